#!/usr/bin/env python3
"""A DAP4 server for the tests: serves the netCDF-4 files of a directory as a DAP4
server (Hyrax, THREDDS) does, from the files' values as netCDF4-python reads them.

Usage:  python dap4_server.py DIR PORT     (PORT 0 = pick a free port)

The chosen port is printed on stdout, then the server runs forever (threaded).
Each request is logged on stderr.

Requests, for a file DIR/f.nc:
  /f.nc.dmr, /f.nc.dmr.xml          the DMR (with ?dap4.ce=..., the constrained DMR)
  /f.nc.dap[?dap4.ce=CE][&dap4.checksum=true|false]
                                    the chunked data response: the DMR chunk, data
                                    in chunks of at most CHUNK bytes, little-endian
Variables have <Map>s to their dimensions' coordinate variables, as Hyrax's do.
CE: ';'-separated fully qualified variable names, each with optional slices
[i], [a:b], [a:s:b] per dimension.  A sliced dimension becomes anonymous in the
constrained DMR (a <Dim size=N/>).

Path prefixes change how it answers (after them, the file's path):
  /be/       big-endian data (the receiver makes it right)
  /hyrax/    string checksums computed Hyrax's way (over the strings' bytes only)
  /nocrc/    no checksums, and the first chunk flagged so (bit 8)
  /badcrc/   every checksum off by one
  /trunc/    the response cut 3 bytes short, the connection closed
  /errchunk/ the data replaced by an error chunk after the DMR
  /limit/    a 403 "Request too big" DAP4 error (THREDDS's words) when a response
             would carry more than 4000 bytes of data
Checksums are sent (and _DAP4_Checksum_CRC32 declared) unless the query says
dap4.checksum=false or the path starts with /nocrc/.
"""
import os
import struct
import sys
import threading
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape, quoteattr

import netCDF4
import numpy as np

ROOT = '.'
# netCDF-C and HDF5 are not thread-safe: one request reads the files at a time.
LOCK = threading.Lock()
CHUNK = 4096
PREFIXES = ('be', 'hyrax', 'nocrc', 'badcrc', 'trunc', 'errchunk', 'limit')

ATOMIC = {
    'i1': 'Int8', 'u1': 'UInt8', 'i2': 'Int16', 'u2': 'UInt16', 'i4': 'Int32',
    'u4': 'UInt32', 'i8': 'Int64', 'u8': 'UInt64', 'f4': 'Float32', 'f8': 'Float64',
}


def dap_type(dt):
    if dt is str:
        return 'String'
    dt = np.dtype(dt)
    if dt.kind == 'S' and dt.itemsize == 1:
        return 'Char'
    return ATOMIC[dt.str[1:]]


def esc(name):
    return name.replace('\\', '\\\\').replace('/', '\\/').replace('.', '\\.')


def fqn(group, name):
    path = []
    g = group
    while g.parent is not None:
        path.insert(0, esc(g.name))
        g = g.parent
    return '/' + '/'.join(path + [esc(name)])


def attr_xml(name, value, ind, enum=None):
    if isinstance(value, str):
        t, vals = 'String', [value]
    elif isinstance(value, bytes):
        t, vals = 'String', [value.decode('utf-8', 'replace')]
    else:
        arr = np.atleast_1d(np.asarray(value))
        if arr.dtype.kind in 'US':
            t, vals = 'String', [str(x) for x in arr]
        else:
            t = enum or ATOMIC[arr.dtype.str[1:]]
            vals = [repr(x.item()) if arr.dtype.kind == 'f' else str(x.item()) for x in arr]
    out = '%s<Attribute name=%s type=%s>\n' % (ind, quoteattr(name), quoteattr(t))
    for v in vals:
        out += '%s  <Value>%s</Value>\n' % (ind, escape(v))
    return out + '%s</Attribute>\n' % ind


def all_vars(group):
    """Top-level variables in DAP4's order: a group's, then its subgroups'."""
    out = [(group, v) for v in group.variables.values()]
    for g in group.groups.values():
        out += all_vars(g)
    return out


def parse_ce(ds, ce):
    """{variable fqn: list of (start, stride, stop) or None per dim}"""
    want = {}
    for part in filter(None, ce.split(';')):
        name, _, rest = part.partition('[')
        slices = []
        if rest:
            for s in ('[' + rest).strip('[]').split(']['):
                nums = [int(x) for x in s.split(':')] if s else []
                if len(nums) == 1:
                    slices.append((nums[0], 1, nums[0]))
                elif len(nums) == 2:
                    slices.append((nums[0], 1, nums[1]))
                elif len(nums) == 3:
                    slices.append((nums[0], nums[1], nums[2]))
                else:
                    slices.append(None)
        want[name] = slices
    known = {fqn(g, v.name) for g, v in all_vars(ds)}
    for name in want:
        if name not in known:
            raise KeyError(name)
    return want


def var_slices(v, slices):
    sel = []
    for i, n in enumerate(v.shape):
        s = slices[i] if slices and i < len(slices) else None
        if s is None:
            sel.append(None)
        else:
            a, st, b = s
            if not (0 <= a <= b < n) or st < 1:
                raise IndexError('%s[%d:%d:%d] is outside [0:%d]' % (v.name, a, st, b, n - 1))
            sel.append(s)
    return sel


def dmr_text(ds, name, want, checksums=None):
    out = ['<?xml version="1.0" encoding="ISO-8859-1"?>\n',
           '<Dataset xmlns="http://xml.opendap.org/ns/DAP/4.0#" dapVersion="4.0" '
           'dmrVersion="1.0" name=%s>\n' % quoteattr(name)]

    def group(g, ind):
        names = {fqn(gg, v.name) for gg, v in all_vars(g)}
        if want is not None and not any(n in want for n in names):
            return False
        for d in g.dimensions.values():
            # netcdf-c's DAP4 test server's mark of a record dimension.
            unlim = ' _edu.ucar.isunlimited="1"' if d.isunlimited() else ''
            out.append('%s<Dimension name=%s size="%d"%s/>\n' % (ind, quoteattr(d.name), len(d), unlim))
        for t in g.enumtypes.values():
            out.append('%s<Enumeration name=%s basetype=%s>\n' % (
                ind, quoteattr(t.name), quoteattr(ATOMIC[np.dtype(t.dtype).str[1:]])))
            for k, val in t.enum_dict.items():
                out.append('%s  <EnumConst name=%s value="%d"/>\n' % (ind, quoteattr(k), val))
            out.append('%s</Enumeration>\n' % ind)
        for v in g.variables.values():
            f = fqn(g, v.name)
            if want is not None and f not in want:
                continue
            sel = var_slices(v, want.get(f) if want else None)
            enum = None
            if isinstance(v.datatype, netCDF4.EnumType):
                enum = v.datatype
                out.append('%s<Enum name=%s enum=%s>\n' % (ind, quoteattr(v.name), quoteattr(fqn(v.group(), enum.name))))
            else:
                out.append('%s<%s name=%s>\n' % (ind, dap_type(v.dtype), quoteattr(v.name)))
            for d, s in zip(v.get_dims(), sel):
                if s is None:
                    out.append('%s  <Dim name=%s/>\n' % (ind, quoteattr(fqn(d.group(), d.name))))
                else:
                    out.append('%s  <Dim size="%d"/>\n' % (ind, len(range(s[0], s[2] + 1, s[1]))))
            # Hyrax's maps: the coordinate variables of the variable's dimensions.
            for d in v.get_dims():
                if d.name != v.name and d.name in d.group().variables and d.group().variables[d.name].dimensions == (d.name,):
                    if want is None or fqn(d.group(), d.name) in want:
                        out.append('%s  <Map name=%s/>\n' % (ind, quoteattr(fqn(d.group(), d.name))))
            for a in v.ncattrs():
                out.append(attr_xml(a, v.getncattr(a), ind + '  ',
                                    enum=ATOMIC[np.dtype(enum.dtype).str[1:]] if enum and a == '_FillValue' else None))
            if checksums is not None:
                out.append(attr_xml('_DAP4_Checksum_CRC32', np.uint32(checksums[f]), ind + '  '))
            out.append('%s</%s>\n' % (ind, 'Enum' if enum else dap_type(v.dtype)))
        for a in g.ncattrs():
            out.append(attr_xml(a, g.getncattr(a), ind))
        for sub in g.groups.values():
            mark = len(out)
            out.append('%s<Group name=%s>\n' % (ind, quoteattr(sub.name)))
            if group(sub, ind + '  '):
                out.append('%s</Group>\n' % ind)
            else:
                del out[mark:]
        return True

    group(ds, '  ')
    out.append('</Dataset>\n')
    return ''.join(out)


def values_of(v, sel):
    v.set_auto_maskandscale(False)
    idx = tuple(slice(None) if s is None else slice(s[0], s[2] + 1, s[1]) for s in sel)
    if v.shape == ():
        return np.asarray(v.getValue() if v.dtype is str else v[...])
    return np.asarray(v[idx] if idx else v[...])


def serialize(v, vals, little):
    order = '<' if little else '>'
    if v.dtype is str:
        out = bytearray()
        for s in np.asarray(vals, dtype=object).ravel():
            b = (s or '').encode('utf-8')
            out += struct.pack(order + 'Q', len(b)) + b
        return bytes(out), True
    dt = np.dtype(v.datatype.dtype if isinstance(v.datatype, netCDF4.EnumType) else v.datatype)
    a = np.ascontiguousarray(np.asarray(vals, dtype=dt))
    if dt.itemsize > 1:
        a = a.astype(dt.newbyteorder(order))
    return a.tobytes(), False


def crc(b, strings, hyrax, little):
    if hyrax and strings:
        c, at = 0, 0
        while at < len(b):
            n = struct.unpack(('<' if little else '>') + 'Q', b[at:at + 8])[0]
            c = zlib.crc32(b[at + 8:at + 8 + n], c)
            at += 8 + n
        return c & 0xffffffff
    return zlib.crc32(b) & 0xffffffff


def dap_error_xml(status, message):
    return ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<Error httpcode="%d">\n'
            '  <Message>%s</Message>\n</Error>\n' % (status, escape(message)))


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def send(self, status, body, ctype, close=False):
        if isinstance(body, str):
            body = body.encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        if close:
            self.send_header('Connection', 'close')
            self.close_connection = True
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        ce = q.get('dap4.ce', [''])[0]
        parts = path.strip('/').split('/')
        flags = set()
        while parts and parts[0] in PREFIXES:
            flags.add(parts.pop(0))
        rel = '/'.join(parts)
        for ext in ('.dmr.xml', '.dmr', '.dap'):
            if rel.endswith(ext):
                rel, kind = rel[:-len(ext)], ext
                break
        else:
            return self.send(404, dap_error_xml(404, 'Not a DAP4 request: ' + path), 'text/xml')
        file = os.path.join(ROOT, rel)
        if not os.path.isfile(file):
            return self.send(404, dap_error_xml(404, 'No such dataset: /' + rel), 'text/xml')
        try:
            with LOCK, netCDF4.Dataset(file) as ds:
                want = parse_ce(ds, ce) if ce else None
                name = os.path.basename(rel)
                if kind != '.dap':
                    return self.send(200, dmr_text(ds, name, want), 'application/vnd.opendap.dap4.dataset-metadata+xml')
                return self.data(ds, name, want, flags, q)
        except KeyError as e:
            return self.send(400, dap_error_xml(400, 'No such variable: %s' % e.args[0]), 'text/xml')
        except IndexError as e:
            return self.send(400, dap_error_xml(400, 'Constraint out of range: %s' % e), 'text/xml')

    def data(self, ds, name, want, flags, q):
        little = 'be' not in flags
        asked = q.get('dap4.checksum', ['true'])[0].lower() != 'false'
        checksummed = asked and 'nocrc' not in flags
        blobs, sums = [], {}
        count = 0
        for g, v in all_vars(ds):
            f = fqn(g, v.name)
            if want is not None and f not in want:
                continue
            sel = var_slices(v, want.get(f) if want else None)
            vals = values_of(v, sel)
            count += max(1, np.asarray(vals).size)
            b, strings = serialize(v, vals, little)
            c = crc(b, strings, 'hyrax' in flags, little)
            if 'badcrc' in flags:
                c = (c + 1) & 0xffffffff
            sums[f] = c
            blobs.append(b + (struct.pack(('<' if little else '>') + 'I', c) if checksummed else b''))
        size = sum(len(b) for b in blobs)
        if 'limit' in flags and size > 4000:
            # THREDDS's words, its sizes in Mbytes.
            return self.send(403, dap_error_xml(403, 'Request too big=%.6f Mbytes, max=0.004' % (size / 1e6)), 'text/xml')
        dmr = dmr_text(ds, name, want, sums if checksummed else None).encode('utf-8') + b'\r\n'
        first = (4 if little else 0) | (0 if checksummed else 8)
        out = bytearray(struct.pack('>I', (first << 24) | len(dmr)) + dmr)
        data = b''.join(blobs)
        if 'errchunk' in flags:
            err = dap_error_xml(500, 'the server failed while sending the data').encode()
            out += struct.pack('>I', (3 << 24) | len(err)) + err
        else:
            chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)] or [b'']
            for i, c in enumerate(chunks):
                fl = (4 if little else 0) | (1 if i == len(chunks) - 1 else 0)
                out += struct.pack('>I', (fl << 24) | len(c)) + c
        if 'trunc' in flags:
            out = out[:-3]
            self.send_response(200)
            self.send_header('Content-Type', 'application/vnd.opendap.dap4.data')
            self.send_header('Connection', 'close')
            self.close_connection = True
            self.end_headers()
            self.wfile.write(bytes(out))
            return
        self.send(200, bytes(out), 'application/vnd.opendap.dap4.data')

    def log_message(self, fmt, *args):
        sys.stderr.write('%s\n' % (fmt % args))


def main():
    global ROOT
    ROOT = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    server = ThreadingHTTPServer(('127.0.0.1', port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
