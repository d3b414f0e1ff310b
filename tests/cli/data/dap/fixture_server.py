#!/usr/bin/env python3
"""A small OPeNDAP (DAP2) fixture server answering the way THREDDS and Hyrax do.

Usage:  python fixture_server.py PORT      (PORT 0 = pick a free port)

The chosen port is printed as the first line on stdout, then the server runs
forever (threaded, so concurrent requests work).  Each request is logged on
stderr (method, path with constraint, status), which shows what a client asks.

Requests: PATH.dds, PATH.das, PATH.dods, each optionally with ?CE, where CE is
comma-separated projections, each a dotted name with optional hyperslabs
[start], [start:stop] or [start:stride:stop] (percent-encoded or not).
Selection clauses (after '&') are ignored.  DAP2 rules, as libdap applies them:
  * an empty CE means the whole dataset;
  * a projected container (Grid, Structure, Sequence) sends all its members;
  * a projected member also sends its parents (with only the projected members);
  * a Grid stays a Grid only if its array and all its maps are sent with
    matching hyperslabs (libdap's Grid::projection_yields_grid); otherwise it
    is declared and sent as `Structure { <the projected parts> } name;`;
  * hyperslabs on a Grid apply to its array and to the matching maps;
  * a hyperslab on a Sequence selects a range of rows.

Datasets (see DATASETS below): /thredds/dodsC/grid.nc, /hyrax/data/hdf.h5,
/thredds/dodsC/struct.nc, /thredds/dodsC/seq.nc, and the error cases
missing.nc (404 DAP error), /html/error.nc (500 HTML page), stall.nc (.dods
stalls 300 s after the headers), trunc.nc (.dods cut inside the XDR body, the
connection closed without a Content-Length), baddds.nc (.dds does not parse),
big.nc and big1d.nc (403 "Request too big" when a data request asks for
more than 1000 values).
"""
import os
import re
import struct
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

# ---------------------------------------------------------------- data model

class Var:
    """kind: 'base' (scalar or array of an atomic type), 'grid' (members[0] is
    the array, members[1:] the maps), 'struct' or 'seq' (members are fields;
    a sequence's data are `rows`, tuples in field order)."""
    def __init__(self, kind, name, type=None, dims=(), data=None, members=(), rows=()):
        self.kind, self.name, self.type = kind, name, type
        self.dims = list(dims)          # [(dim name or None, size)]
        self.data, self.members, self.rows = data, list(members), list(rows)

def A(type, name, dims=(), data=None):
    """An atomic variable; `name` (and dim names) in their escaped DDS form."""
    if data is not None and type != 'String':
        data = np.asarray(data).reshape([n for _, n in dims])
    elif data is not None:
        data = np.array(data, dtype=object).reshape([n for _, n in dims])
    return Var('base', name, type, dims, data)

def G(name, array, maps):
    return Var('grid', name, members=[array] + maps)

class Dataset:
    def __init__(self, name, flavor, variables, das, value_limit=None):
        self.name, self.flavor, self.vars, self.das = name, flavor, variables, das
        self.value_limit = value_limit  # big.nc: largest data request allowed


# --------------------------------------------------------------- the datasets

def das(tables, ind=4):
    """Render attribute tables as libdap/THREDDS print a DAS.  tables maps a
    name to a nested table (a dict) or to an attribute (type, value or list).
    Strings are quoted; a backslash or double quote in them gets a backslash."""
    out = ''
    for name, body in tables.items():
        if isinstance(body, dict):
            out += '%s%s {\n%s%s}\n' % (' ' * ind, name, das(body, ind + 4), ' ' * ind)
            continue
        t, vals = body
        text = ['"%s"' % v.replace('\\', '\\\\').replace('"', '\\"') if t == 'String'
                else repr(v) for v in (vals if isinstance(vals, list) else [vals])]
        out += '%s%s %s %s;\n' % (' ' * ind, t, name, ', '.join(text))
    return out if ind > 4 else 'Attributes {\n%s}\n' % out


T, LA, LO = ('time', 3), ('lat', 4), ('lon', 5)
time_v = np.array([0.0, 24.0, 48.0])
lat_v = np.array([-45.0, -15.0, 15.0, 45.0], dtype='f4')
lon_v = np.array([0.0, 72.0, 144.0, 216.0, 288.0], dtype='f4')
air_v = (np.arange(60) * 0.5).astype('f4')
sst_v = ((np.arange(60) % 7) - 3).astype('i2')          # -3 .. 3

def coords():  # the three coordinate arrays (fresh objects each call)
    return [A('Float64', 'time', [T], time_v), A('Float32', 'lat', [LA], lat_v),
            A('Float32', 'lon', [LO], lon_v)]


S = lambda v: ('String', v)    # noqa: E731  (a String attribute, for brevity)
GRID_NC = Dataset('grid.nc', 'thredds', coords() + [
    G('air', A('Float32', 'air', [T, LA, LO], air_v), coords()),
    G('sst', A('Int16', 'sst', [T, LA, LO], sst_v), coords()),
    A('Int32', 'station', [('station', 2)], [101, -202]),
    A('String', 'name', [('station', 2)], ['alpha', 'bravo station']),
], das({
    'time': {'units': S('hours since 2000-01-01 00:00:00'), '_CoordinateAxisType': S('Time'),
             '_ChunkSizes': ('Int32', 1)},
    'lat': {'units': S('degrees_north'), 'actual_range': ('Float32', [-45.0, 45.0])},
    'lon': {'units': S('degrees_east')},
    'air': {'units': S('K'), '_FillValue': ('Float32', -9999.0), '_ChunkSizes': ('Int32', [1, 4, 5]),
            'long_name': S('a "quoted" word'), 'path': S('C:\\data\\air')},
    'sst': {'_Unsigned': S('true'), '_FillValue': ('Int16', -1), 'scale_factor': ('Float64', 0.01),
            'add_offset': ('Float64', 273.15), '_ChunkSizes': ('Int32', [1, 4, 5])},
    'station': {'long_name': S('station id')},
    'name': {'long_name': S('station name')},
    'NC_GLOBAL': {'Conventions': S('CF-1.0'), 'title': S('fixture'), 'n': ('Int32', [1, 2])},
    'DODS_EXTRA': {'Unlimited_Dimension': S('time')},
}))

# Hyrax keeps HDF5 names, %-escaping what a DAP2 identifier cannot hold.
HDF_H5 = Dataset('hdf.h5', 'hyrax', [
    A('Float32', 'surface%20temp', [('y', 2), ('x', 3)], np.arange(6, dtype='f4') + 270.25),
    A('Int16', 'counts', [(None, 3)], [-1, 0, 7]),             # an anonymous dimension
    A('Float64', 'x', [('x', 3)], [10.0, 20.0, 30.0]),
    A('Float64', 'y', [('y', 2)], [1.5, 2.5]),
    A('Int32', 'level%2Eflag', [('y', 2)], [1, 0]),
], das({
    'surface%20temp': {'units': S('K'),
                       'origin': {'source': S('model'), 'version': ('Int32', 2)}},
    'counts': {'long_name': S('anonymous dimension')},
    'x': {'units': S('m')}, 'y': {'units': S('m')},
    'level%2Eflag': {'long_name': S('name with an escaped dot')},
    'HDF5_GLOBAL': {'history': S('created by fixture_server.py'), 'version': ('Float32', 1.5),
                    'flags': ('Int16', [1, -2, 3])},
}))

STRUCT_NC = Dataset('struct.nc', 'thredds', [
    Var('struct', 'info', members=[A('Int32', 'a', [], 7), A('Float64', 'b', [], 2.5),
                                   A('Int16', 'c', [('n', 3)], [1, -2, 3])]),
    A('Int32', 'plain', [('n', 3)], [4, 5, 6]),
], das({'info': {'comment': S('a structure'), 'a': {'units': S('m')}},
        'plain': {'units': S('1')}, 'NC_GLOBAL': {'title': S('struct fixture')}}))

SEQ_NC = Dataset('seq.nc', 'thredds', [
    Var('seq', 'obs', members=[A('Int32', 'id'), A('Float64', 'temp'), A('String', 'site')],
        rows=[(1, 10.5, 'north'), (2, 11.25, 'east'), (3, -0.5, 'south'), (4, 3.0, 'west')]),
], das({'obs': {'temp': {'units': S('degC')}}, 'NC_GLOBAL': {'title': S('sequence fixture')}}))

SMALL_DAS = 'Attributes {\n    NC_GLOBAL {\n        String title "%s";\n    }\n}\n'
TRUNC_NC = Dataset('trunc.nc', 'thredds', [A('Float64', 'v', [('x', 100)], np.arange(100.0))],
                   SMALL_DAS % 'truncated data answer')
STALL_NC = Dataset('stall.nc', 'thredds', [A('Int32', 'v', [('x', 4)], [1, 2, 3, 4])],
                   SMALL_DAS % 'stalling data answer')
BIG_NC = Dataset('big.nc', 'thredds', [A('Float64', 'v', [('t', 100), ('x', 50)], np.arange(5000.0))],
                 SMALL_DAS % 'too big for one request', value_limit=1000)
# ncdump reads v one row (50 values) at a time, so never meets the limit; a
# 1-D variable of 1500 values is read in one request and does.
BIG1D_NC = Dataset('big1d.nc', 'thredds', [A('Float64', 'w', [('n', 1500)], np.arange(1500.0))],
                   SMALL_DAS % 'too big for one request', value_limit=1000)
# A year of daily fields (365 x 90 x 180, 24 MB of Float32) for subsets: a point's
# series or a month must move only its values.
ERA = [('time', 365), ('lat', 90), ('lon', 180)]
era_time = np.arange(365.0)
era_lat = np.linspace(-89.0, 89.0, 90).astype('f4')
era_lon = np.linspace(0.0, 358.0, 180).astype('f4')
era_tas = (np.arange(365 * 90 * 180) % 1000).astype('f4') * 0.25
ERA_NC = Dataset('era.nc', 'thredds', [
    A('Float64', 'time', [ERA[0]], era_time), A('Float32', 'lat', [ERA[1]], era_lat),
    A('Float32', 'lon', [ERA[2]], era_lon),
    G('tas', A('Float32', 'tas', ERA, era_tas),
      [A('Float64', 'time', [ERA[0]], era_time), A('Float32', 'lat', [ERA[1]], era_lat),
       A('Float32', 'lon', [ERA[2]], era_lon)]),
], das({
    'time': {'units': S('days since 2001-01-01 00:00:00'), 'calendar': S('standard')},
    'lat': {'units': S('degrees_north')}, 'lon': {'units': S('degrees_east')},
    'tas': {'units': S('K')},
    'NC_GLOBAL': {'title': S('a year of daily fields')},
    'DODS_EXTRA': {'Unlimited_Dimension': S('time')},
}))

# For the benchmarks (benches/opendap_vs_netcdf_c.sh), with FIXTURE_HUGE=1 only: a
# 100 MB variable, float v(time = 100, x = 250000). Rows of 250,000 values: ncdump asks
# for one row a request, 100 requests (with rows of 250 it asks 100,000 times and takes
# hours).
HUGE = [('time', 100), ('x', 250000)]
if os.environ.get('FIXTURE_HUGE') == '1':
    HUGE_NC = Dataset('huge.nc', 'thredds', [
        A('Float64', 'time', [HUGE[0]], np.arange(100.0)),
        A('Float32', 'v', HUGE, (np.arange(100 * 250000) % 977).astype('f4') * 0.5),
    ], SMALL_DAS % 'a 100 MB variable')
else:
    HUGE_NC = None

BAD_DDS = 'Dataset {\n    Float32 x[x = 3]\n    Int32 ;\n} baddds.nc;\n'   # missing ';'

DATASETS = {'/thredds/dodsC/grid.nc': GRID_NC, '/hyrax/data/hdf.h5': HDF_H5,
            '/thredds/dodsC/struct.nc': STRUCT_NC, '/thredds/dodsC/seq.nc': SEQ_NC,
            '/thredds/dodsC/trunc.nc': TRUNC_NC, '/thredds/dodsC/stall.nc': STALL_NC,
            '/thredds/dodsC/big.nc': BIG_NC, '/thredds/dodsC/big1d.nc': BIG1D_NC,
            '/thredds/dodsC/era.nc': ERA_NC}
if HUGE_NC is not None:
    DATASETS['/thredds/dodsC/huge.nc'] = HUGE_NC

# ------------------------------------------------------ constraint expressions

class DapError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status

def www2id(s):
    """libdap's www2id: names in a CE or DDS may carry %XX escapes.  The CE
    was already percent-decoded once, so netcdf-c's `surface%2520temp`
    (its way of sending the DDS name `surface%20temp`) matches here."""
    return urllib.parse.unquote(s)

def mark_all(v, sel):
    """Send v and everything below it (keeping hyperslabs already set)."""
    sel.setdefault(id(v), None)
    for m in v.members:
        mark_all(m, sel)

def parse_slab(text, size, what):
    """'[a]', '[a:b]' or '[a:s:b]' -> (start, stride, stop), checked."""
    p = [int(x) for x in text.split(':') if re.fullmatch(r'\s*\d+\s*', x)]
    start, stride, stop = (p[0], 1, p[-1]) if len(p) in (1, 2) else (p + [0, 0, 0])[:3]
    if len(p) != len(text.split(':')) or len(p) > 3 or stride < 1 or not start <= stop < size:
        raise DapError(400, 'Invalid constraint expression: bad hyperslab [%s] for %s (size %d)'
                       % (text, what, size))
    return (start, stride, stop)

COMPONENT = re.compile(r'([^.\[\]]+)((?:\[[^\]]*\])*)')   # name[slab][slab]...


def constrain(ds, query):
    """Evaluate a CE; return sel: {id(var): None (whole) | [slabs per dim]}."""
    ce = urllib.parse.unquote(query).split('&')[0]   # projections only
    sel = {}
    if not ce.strip():
        for v in ds.vars:
            mark_all(v, sel)
        return sel
    for proj in ce.split(','):
        comps, pos = [], 0
        while pos < len(proj):             # name[slab][slab].name[slab]...
            m = COMPONENT.match(proj, pos)
            if not m:
                raise DapError(400, 'Invalid constraint expression: ' + proj)
            comps.append((m.group(1).strip(), re.findall(r'\[([^\]]*)\]', m.group(2))))
            pos = m.end() + (1 if proj[m.end():m.end() + 1] == '.' else 0)
        scope, chain = ds.vars, []
        for name, slabs in comps:
            v = next((x for x in scope if www2id(x.name) == www2id(name)), None)
            if v is None:
                raise DapError(400, 'Invalid constraint expression: no such variable: '
                               + '.'.join(c[0] for c in comps))
            chain.append(v)
            scope = v.members
            if not slabs:
                continue
            if v.kind == 'seq' and len(slabs) == 1:          # a row range
                sel[id(v)] = [parse_slab(slabs[0], len(v.rows), v.name)]
                continue
            base = v.members[0] if v.kind == 'grid' else v
            if base.kind != 'base' or len(slabs) != len(base.dims):
                raise DapError(400, 'Invalid constraint expression: %s takes %d hyperslabs'
                               % (v.name, len(base.dims)))
            cut = [parse_slab(s, n, v.name) for s, (_, n) in zip(slabs, base.dims)]
            sel[id(base)] = cut
            if v.kind == 'grid':                              # maps follow the array
                for mp, c in zip(v.members[1:], cut):
                    sel[id(mp)] = [c]
        mark_all(chain[-1], sel)
        for v in chain:                                       # parents are sent too
            sel.setdefault(id(v), None)
    return sel

def slabs(v, sel):
    """The hyperslabs of an atomic variable, whole dimensions spelled out."""
    return sel.get(id(v)) or [(0, 1, n - 1) for _, n in v.dims]

def shape(v, sel):
    return [len(range(a, b + 1, s)) for a, s, b in slabs(v, sel)]

def values(v, sel):  # the selected values (a scalar's own value)
    return v.data[tuple(slice(a, b + 1, s) for a, s, b in slabs(v, sel))] if v.dims else v.data

def seq_rows(v, sel):
    a, s, b = (sel.get(id(v)) or [(0, 1, len(v.rows) - 1)])[0]
    return v.rows[a:b + 1:s]

def stays_grid(g, sel):
    """libdap's Grid::projection_yields_grid."""
    arr, maps = g.members[0], g.members[1:]
    if id(arr) not in sel or sum(id(m) in sel for m in g.members) == 1:
        return False
    return all(id(m) in sel and slabs(m, sel)[0] == c for m, c in zip(maps, slabs(arr, sel)))

# ------------------------------------------------------------ DDS and errors

def decl(v, sel, ind, flavor):
    """The DDS declaration of v (only what sel sends), indented by ind."""
    if id(v) not in sel:
        return ''
    sp = ' ' * ind
    if v.kind == 'base':
        dims = ''.join('[%s]' % n if d is None else '[%s = %d]' % (d, n)
                       for (d, _), n in zip(v.dims, shape(v, sel)))
        return '%s%s %s%s;\n' % (sp, v.type, v.name, dims)
    if v.kind == 'grid' and stays_grid(v, sel):
        # THREDDS prints " ARRAY:"/" MAPS:", libdap (Hyrax) "  Array:"/"  Maps:".
        a, m = (' ARRAY:', ' MAPS:') if flavor == 'thredds' else ('  Array:', '  Maps:')
        arr = decl(v.members[0], sel, ind + 4, flavor)
        maps = ''.join(decl(x, sel, ind + 4, flavor) for x in v.members[1:])
        return '%sGrid {\n%s%s\n%s%s%s\n%s%s} %s;\n' % (sp, sp, a, arr, sp, m, maps, sp, v.name)
    # A Structure, a Sequence, or a Grid no longer a Grid (libdap's rule).
    kw = 'Sequence' if v.kind == 'seq' else 'Structure'
    body = ''.join(decl(m, sel, ind + 4, flavor) for m in v.members)
    return '%s%s {\n%s%s} %s;\n' % (sp, kw, body, sp, v.name)

def dds_text(ds, sel):
    body = ''.join(decl(v, sel, 4, ds.flavor) for v in ds.vars)
    return 'Dataset {\n%s} %s;\n' % (body, ds.name)

def dap_error(code, message):
    """The DAP2 error object, as libdap's Error::print writes it."""
    msg = message.replace('\\', '\\\\').replace('"', '\\"')
    return 'Error {\n    code = %d;\n    message = "%s";\n};\n' % (code, msg)

# ------------------------------------------------------------------- XDR


WIRE = {'Byte': 'u1', 'Int16': '>i4', 'UInt16': '>u4', 'Int32': '>i4', 'UInt32': '>u4',
        'Float32': '>f4', 'Float64': '>f8'}   # 16-bit types travel as 32-bit

def pad4(b):
    return b + b'\0' * (-len(b) % 4)

def xdr_string(s):
    b = str(s).encode('utf-8')
    return struct.pack('>I', len(b)) + pad4(b)

def xdr_scalar(t, x):
    if t in ('String', 'Url'):
        return xdr_string(x)
    if t == 'Byte':                    # xdr_char: one byte in a 4-byte unit
        return struct.pack('>I', int(x) & 0xFF)
    return np.asarray(x).astype(WIRE[t]).tobytes()

def xdr(v, sel):
    """Serialize v as libdap does (only what sel sends)."""
    if id(v) not in sel:
        return b''
    if v.kind == 'base':
        d = values(v, sel)
        if not v.dims:
            return xdr_scalar(v.type, d)
        n = d.size
        if v.type in ('String', 'Url'):  # the length once, then the strings
            return struct.pack('>I', n) + b''.join(xdr_string(s) for s in d.flat)
        raw = d.astype(WIRE[v.type]).tobytes()   # the length twice, then values
        return struct.pack('>II', n, n) + (pad4(raw) if v.type == 'Byte' else raw)
    if v.kind == 'seq':                # each row starts 0x5A, the end is 0xA5
        out = b''
        for row in seq_rows(v, sel):
            out += b'\x5a\0\0\0' + b''.join(xdr_scalar(f.type, x) for f, x in zip(v.members, row)
                                            if id(f) in sel)
        return out + b'\xa5\0\0\0'
    return b''.join(xdr(m, sel) for m in v.members)   # Grid array+maps, Structure fields

# ------------------------------------------------------------------- HTTP


HTML_ERROR = (b'<html><head><title>Apache Tomcat - Error report</title></head><body>'
              b'<h1>HTTP Status 500 - Internal Server Error</h1></body></html>\n')

class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def headers_out(self, status, ctype, desc, length=None, close=False, extra=()):
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header('Content-Type', ctype)
        if desc:
            self.send_header('Content-Description', desc)
        self.send_header('XDODS-Server', 'opendap/3.7')
        if length is not None:
            self.send_header('Content-Length', str(length))
        if close:
            self.send_header('Connection', 'close')
            self.close_connection = True
        self.end_headers()

    def reply(self, status, body, ctype, desc, extra=()):
        if isinstance(body, str):
            body = body.encode('utf-8')
        self.headers_out(status, ctype, desc, len(body), extra=extra)
        if self.command != 'HEAD':
            self.wfile.write(body)

    def error(self, status, message):
        self.reply(status, dap_error(status, message), 'text/plain; charset=UTF-8', 'dods_error')

    def do_HEAD(self):
        self.do_GET()

    def login_flow(self, path, query):
        """NASA Earthdata Login's flow, with `localhost` as the login host and
        `127.0.0.1` as the data host: a data request without the session cookie is
        sent to the login host, which wants basic authentication (me:secret), then
        back to the data host, which sets the cookie and sends the client on to what
        it asked for. Returns True when it answered the request."""
        global AUTH_LEAKS
        host = (self.headers.get('Host') or '').split(':')[0]
        port = self.server.server_address[1]
        if path == '/oauth/authorize':
            if self.headers.get('Authorization') != 'Basic bWU6c2VjcmV0':   # me:secret
                self.reply(401, 'login needed\n', 'text/plain', None,
                           extra=[('WWW-Authenticate', 'Basic realm="urs"')])
                return True
            back = urllib.parse.parse_qs(query).get('redirect', [''])[0]
            self.reply(302, '', 'text/plain', None, extra=[(
                'Location', 'http://127.0.0.1:%d/login_done?redirect=%s'
                % (port, urllib.parse.quote(back, safe='')))])
            return True
        if host == '127.0.0.1' and self.headers.get('Authorization'):
            AUTH_LEAKS += 1
        if path == '/login_done':
            back = urllib.parse.parse_qs(query).get('redirect', [''])[0]
            self.reply(302, '', 'text/plain', None, extra=[
                ('Set-Cookie', 'urs_session=ok; Path=/; HttpOnly'), ('Location', back)])
            return True
        if path == '/debug/auth_leaks':
            self.reply(200, '%d\n' % AUTH_LEAKS, 'text/plain', None)
            return True
        if path.startswith('/protected/') and 'urs_session=ok' not in (self.headers.get('Cookie') or ''):
            orig = 'http://127.0.0.1:%d%s' % (port, self.path)
            self.reply(302, '', 'text/plain', None, extra=[(
                'Location', 'http://localhost:%d/oauth/authorize?redirect=%s'
                % (port, urllib.parse.quote(orig, safe='')))])
            return True
        return False

    def do_GET(self):
        raw_path, _, query = self.path.partition('?')
        path = urllib.parse.unquote(raw_path)
        if self.login_flow(path, query):
            return
        if path.startswith('/protected/'):
            path = '/thredds/dodsC/' + path[len('/protected/'):]
        base, dot, ext = path.rpartition('.')
        if path.startswith('/html/error.nc'):
            return self.reply(500, HTML_ERROR, 'text/html;charset=utf-8', None)
        if path.startswith('/thredds/dodsC/missing.nc'):
            return self.error(404, 'Cant find /thredds/dodsC/missing.nc')
        if not dot or ext not in ('dds', 'das', 'dods'):
            return self.error(400, 'Unrecognized request: ' + path)
        text = 'text/plain; charset=UTF-8'
        if base == '/thredds/dodsC/baddds.nc':
            if ext == 'das':
                return self.reply(200, 'Attributes {\n}\n', text, 'dods_das')
            return self.reply(200, BAD_DDS + ('Data:\n' if ext == 'dods' else ''),
                              text if ext == 'dds' else 'application/octet-stream',
                              'dods_dds' if ext == 'dds' else 'dods_data')
        if base == '/thredds/dodsC/nodas.nc':
            # struct.nc whose DAS the server refuses.
            if ext == 'das':
                return self.error(404, 'Cant find the attributes of ' + base)
            base = '/thredds/dodsC/struct.nc'
        ds = DATASETS.get(base)
        if ds is None:
            return self.error(404, 'Cant find ' + base)
        if ext == 'das':                                   # THREDDS ignores a CE here
            return self.reply(200, ds.das, text, 'dods_das')
        try:
            sel = constrain(ds, query)
            if ext == 'dods' and ds.value_limit is not None:
                n = sum(int(np.prod(shape(v, sel))) for v in ds.vars
                        if v.kind == 'base' and id(v) in sel)
                if n > ds.value_limit:
                    raise DapError(403, 'Request too big=%s Mbytes, max=%s'
                                   % (n * 8 / 1e6, ds.value_limit * 8 / 1e6))
        except DapError as e:
            return self.error(e.status, str(e))
        dds = dds_text(ds, sel)
        if ext == 'dds':
            return self.reply(200, dds, text, 'dods_dds')
        body = dds.encode('utf-8') + b'Data:\n' + b''.join(xdr(v, sel) for v in ds.vars)
        binary = 'application/octet-stream'
        if ds is STALL_NC:
            # Headers out, then nothing for 300 s, then the connection closes.
            self.headers_out(200, binary, 'dods_data', close=True)
            self.wfile.flush()
            time.sleep(300)
            return
        if ds is TRUNC_NC:
            # No Content-Length, connection closed half-way through the XDR:
            # only the XDR itself tells the client that data are missing.
            self.headers_out(200, binary, 'dods_data', close=True)
            if self.command != 'HEAD':
                cut = len(dds) + len('Data:\n') + 8 + 8 * 37 + 3   # mid-value
                self.wfile.write(body[:cut])
            return
        self.reply(200, body, binary, 'dods_data')

AUTH_LEAKS = 0


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(('127.0.0.1', port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
