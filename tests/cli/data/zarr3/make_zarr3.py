#!/usr/bin/env python3
"""Regenerate the Zarr version 3 fixtures: small stores written by zarr-python 3 and
xarray, one per layout, and what nczdump must print for each.

For every fixture this script
1. writes `stores/<name>.zarr` with zarr-python (or xarray) using the data types,
   codec chains, shard layouts and chunk key encodings named in FIXTURES;
2. reads every array back with zarr-python, writes those values (and the
   dimension names and attributes) into a netCDF-4 file with netCDF4-python, and
   saves `ncdump` of that file as `expected/<name>.cdl`.

So the expected text is "what zarr-python reads, as ncdump prints it". nczdump's
own remark lines (`// v: Zarr dtype <f2 (half precision) shown as float`) are not
part of the comparison. Usage (PYTHON: an interpreter with zarr>=3, xarray,
numcodecs, netCDF4; NCDUMP: ncdump of netcdf-bin):

    ~/.cache/nczarr-tools/venv/bin/python tests/cli/data/zarr3/make_zarr3.py

Deletes and recreates `stores/` and `expected/`; the same library versions (written to
`versions.txt`) give the same text and values (gzip chunks differ in their timestamps).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec,
                         TransposeCodec, ZstdCodec)
from zarr.registry import get_codec_class

warnings.simplefilter("ignore")
HERE = Path(__file__).resolve().parent
STORES = HERE / "stores"
EXPECTED = HERE / "expected"
NCDUMP = os.environ.get("NCDUMP", "ncdump")


def ramp(shape, dtype):
    n = int(np.prod(shape))
    return (np.arange(n) % 120).astype(dtype).reshape(shape)


def dtypes(g):
    """Every v3 data type netCDF has a type for."""
    for name, dt in [("b_int8", "i1"), ("c_uint8", "u1"), ("d_int16", "i2"), ("e_uint16", "u2"),
                     ("f_int32", "i4"), ("g_uint32", "u4"), ("h_int64", "i8"), ("i_uint64", "u8"),
                     ("k_float32", "f4"), ("l_float64", "f8"), ("j_float16", "f2")]:
        a = g.create_array(name, shape=(5,), dtype=dt, chunks=(2,), dimension_names=["n"])
        a[...] = ramp((5,), dt) - (2 if dt[0] in "if" else 0)
    a = g.create_array("a_bool", shape=(5,), dtype=bool, chunks=(5,), dimension_names=["n"])
    a[...] = [True, False, True, True, False]
    a = g.create_array("m_string", shape=(3,), dtype=str, chunks=(2,), dimension_names=["s"])
    a[...] = ["a", "bb", "héllo"]
    a = g.create_array("n_char", shape=(3, 4), dtype="S1", chunks=(2, 4), dimension_names=["s", "len"])
    a[...] = np.array([list(b"abcd"), list(b"ef\0\0"), list(b"ghij")], dtype="u1").view("S1")
    a = g.create_array("o_fixed", shape=(3,), dtype="S3", chunks=(3,), dimension_names=["s"])
    a[...] = [b"ab", b"cde", b""]
    a = g.create_array("p_utf32", shape=(3,), dtype="U3", chunks=(3,), dimension_names=["s"])
    a[...] = ["x", "yz", "ñop"]


def codec(name, **config):
    return get_codec_class(name)(**config)


def codecs(g):
    """One int16 and one float32 array per codec chain."""
    chains = {
        "a_raw": dict(compressors=None),
        "b_big": dict(compressors=None, serializer=BytesCodec(endian="big")),
        "c_gzip": dict(compressors=GzipCodec(level=5)),
        "d_zstd_sum": dict(compressors=ZstdCodec(level=3, checksum=True)),
        "e_blosc_lz4": dict(compressors=BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")),
        "f_blosc_zstd_bit": dict(compressors=BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")),
        "g_blosc_noshuf": dict(compressors=BloscCodec(cname="blosclz", clevel=9, shuffle="noshuffle")),
        "h_crc32c": dict(compressors=[GzipCodec(level=1), Crc32cCodec()]),
        "i_transpose": dict(filters=[TransposeCodec(order=(1, 0))], compressors=ZstdCodec(level=1)),
        "j_numcodecs": dict(filters=[codec("numcodecs.delta", dtype="<i4")],
                            compressors=[codec("numcodecs.shuffle", elementsize=4),
                                         codec("numcodecs.zlib", level=2)]),
        "k_lz4_bz2": dict(compressors=[codec("numcodecs.lz4", acceleration=1)]),
        "l_bz2": dict(compressors=[codec("numcodecs.bz2", level=5)]),
    }
    for name, kw in chains.items():
        for suffix, dt in [("i", "i2"), ("f", "f4")]:
            if name == "j_numcodecs":
                dt = "i4"
            a = g.create_array(f"{name}_{suffix}", shape=(6, 7), dtype=dt, chunks=(4, 3),
                               dimension_names=["y", "x"], **kw)
            a[...] = ramp((6, 7), dt)
    a = g.create_array("m_transpose3", shape=(3, 4, 5), dtype="i4", chunks=(2, 3, 4),
                       dimension_names=["t", "y2", "x2"],
                       filters=[TransposeCodec(order=(2, 0, 1))], compressors=None)
    a[...] = ramp((3, 4, 5), "i4")


def sharding(g):
    """Shards: index at the end (zarr-python's default) and start, with and without a
    checksum, edge shards, empty inner chunks and a missing shard."""
    def sharded(name, index_location="end", index_codecs=None, codecs=None, fill=None):
        kw = {}
        if index_codecs is not None or codecs is not None or index_location != "end":
            kw["serializer"] = ShardingCodec(
                chunk_shape=(2, 3),
                codecs=codecs or [BytesCodec(), ZstdCodec(level=1)],
                index_codecs=index_codecs or [BytesCodec(), Crc32cCodec()],
                index_location=index_location)
            kw["compressors"] = None
            shards = None
            chunks = (4, 6)
        else:
            shards, chunks = (4, 6), (2, 3)
        return g.create_array(name, shape=(9, 10), dtype="i2", chunks=chunks, shards=shards,
                              dimension_names=["y", "x"], fill_value=fill, **kw)

    a = sharded("a_default")
    a[...] = ramp((9, 10), "i2")
    a = sharded("b_index_start", index_location="start")
    a[...] = ramp((9, 10), "i2")
    a = sharded("c_no_checksum", index_codecs=[BytesCodec()])
    a[...] = ramp((9, 10), "i2")
    a = sharded("d_gzip_inner", codecs=[BytesCodec(endian="big"), GzipCodec(level=1)])
    a[...] = ramp((9, 10), "i2")
    # Only some inner chunks written: the rest of each shard, and shards never
    # touched, read as the fill value.
    a = sharded("e_sparse", fill=-7)
    a[0:2, 0:3] = 1
    a[5:7, 3:6] = 2
    a = g.create_array("f_strings", shape=(5,), dtype=str, chunks=(2,), shards=(4,),
                       dimension_names=["s"])
    a[...] = ["one", "two", "", "four", "five"]


def keys(g):
    """Chunk key encodings: default with / and ., v2 with . and /."""
    for name, enc in [("a_default_slash", {"name": "default", "separator": "/"}),
                      ("b_default_dot", {"name": "default", "separator": "."}),
                      ("c_v2_dot", {"name": "v2", "separator": "."}),
                      ("d_v2_slash", {"name": "v2", "separator": "/"})]:
        a = g.create_array(name, shape=(4, 5), dtype="u1", chunks=(2, 2),
                           chunk_key_encoding=enc, dimension_names=["y", "x"])
        a[...] = ramp((4, 5), "u1")
    a = g.create_array("e_scalar", shape=(), dtype="f8", dimension_names=[])
    a[...] = 2.5


def groups(g):
    """Groups, attributes of every JSON kind, null dimension names."""
    g.attrs.update({"title": "groups", "n": 3, "x": 1.5, "list": [1, 2, 3], "flag": True})
    a = g.create_array("a", shape=(3,), dtype="i4", chunks=(3,), dimension_names=["n"],
                       attributes={"units": "m", "valid": [0, 10]})
    a[...] = [1, 2, 3]
    sub = g.create_group("sub", attributes={"note": "inner"})
    b = sub.create_array("b", shape=(3, 2), dtype="f8", chunks=(3, 2),
                         dimension_names=["n", None])
    b[...] = [[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]]
    deeper = sub.create_group("deeper")
    c = deeper.create_array("c", shape=(4,), dtype="i2", chunks=(2,), dimension_names=["m"])
    c[...] = [4, 3, 2, 1]


FIXTURES = {
    # name: (writer function, consolidate)
    "dtypes": (dtypes, True),
    "codecs": (codecs, True),
    "sharding": (sharding, False),
    "keys": (keys, False),
    "groups": (groups, False),
    "groups_consolidated": (groups, True),
}


def write_xarray(path: Path):
    import pandas as pd
    import xarray as xr
    time = pd.date_range("2000-01-01", periods=4, freq="D")
    ds = xr.Dataset(
        {"tas": (("time", "lat"), np.arange(12, dtype="f4").reshape(4, 3), {"units": "K"}),
         "count": (("time",), np.array([1, 2, 3, 4], dtype="i4"))},
        coords={"lat": ("lat", [10.0, 20.0, 30.0], {"units": "degrees_north"}), "time": time},
        attrs={"title": "xarray v3"})
    ds["tas"].encoding["_FillValue"] = -999.0
    ds["tas"][1, 1] = np.nan
    ds.to_zarr(path, zarr_format=3, mode="w", consolidated=True)


def nc_type(dtype):
    if dtype.kind == "b":
        return "u1"
    if dtype.kind in "OUT" or (dtype.kind == "S" and dtype.itemsize > 1):
        return str
    if dtype == np.float16:
        return "f4"
    return dtype.str.lstrip("<>|=")


def expected_cdl(store: Path, out: Path):
    """ncdump of a netCDF-4 file holding what zarr-python reads from `store`."""
    import netCDF4
    root = zarr.open_group(store, mode="r", use_consolidated=False)
    with tempfile.TemporaryDirectory() as tmp:
        nc = Path(tmp) / f"{store.stem}.nc"
        with netCDF4.Dataset(nc, "w") as ds:
            anon = {}
            copy_group(root, ds, ds, anon)
        dumped = subprocess.run([NCDUMP, str(nc)], capture_output=True, check=True).stdout
    out.write_bytes(dumped)


def attr_value(v):
    """A JSON attribute as the pure-Zarr rules type it (docs/formats.md): booleans
    are ubyte, integers int when every value fits, else int64."""
    if isinstance(v, bool):
        return np.uint8(int(v))
    ints = v if isinstance(v, list) else [v]
    if ints and all(isinstance(x, int) and not isinstance(x, bool) for x in ints):
        fits = all(-2**31 <= x < 2**31 for x in ints)
        return np.array(ints, dtype="i4" if fits else "i8")
    return v


def copy_group(src, dst, root, anon):
    for k, v in src.attrs.items():
        dst.setncattr(k, attr_value(v))
    arrays = sorted(src.arrays(), key=lambda kv: kv[0])
    # Dimensions in the order the reader meets them (variables in byte order).
    for name, a in arrays:
        names = a.metadata.dimension_names or [None] * a.ndim
        for dim, n in zip(names, a.shape):
            if dim is None:
                dname = f"_Anonymous_Dim_{n}"
                if dname not in root.dimensions:
                    root.createDimension(dname, n)
            elif dim not in dst.dimensions and not any(
                    dim in g.dimensions and len(g.dimensions[dim]) == n for g in ancestors(dst)):
                dst.createDimension(dim, n)
    for name, a in arrays:
        names = a.metadata.dimension_names or [None] * a.ndim
        dims = [f"_Anonymous_Dim_{n}" if d is None else d for d, n in zip(names, a.shape)]
        values = a[...]
        t = nc_type(a.dtype)
        if a.dtype.kind == "S" and a.dtype.itemsize == 1:
            t = "S1"
        attrs = dict(a.attrs)
        fill = attrs.pop("_FillValue", None)
        if isinstance(fill, str):
            import base64, struct
            fill = struct.unpack("<d", base64.b64decode(fill))[0]
        elif fill is None and a.dtype.kind in "iuf":
            # A fill_value chosen by the writer (not zarr-python's default zero) is the
            # fill meant.
            chosen = a.metadata.fill_value
            if chosen != 0:
                fill = chosen
        v = dst.createVariable(name, t, dims, fill_value=fill)
        for k, x in attrs.items():
            v.setncattr(k, attr_value(x))
        v.set_auto_maskandscale(False)
        if t is str:
            flat = [x.decode("latin-1") if isinstance(x, bytes) else str(x) for x in np.ravel(values)]
            v[...] = np.array(flat, dtype=object).reshape(values.shape)
        elif a.dtype.kind == "M":
            v[...] = values.astype("i8")
        else:
            v[...] = np.asarray(values).astype(np.dtype(t) if t != "S1" else "S1")
    for name, child in sorted(src.groups(), key=lambda kv: kv[0]):
        copy_group(child, dst.createGroup(name), root, anon)


def ancestors(g):
    p = g.parent
    while p is not None:
        yield p
        p = p.parent


def main():
    for d in (STORES, EXPECTED):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
    for name, (writer, consolidated) in FIXTURES.items():
        path = STORES / f"{name}.zarr"
        g = zarr.open_group(path, mode="w", zarr_format=3)
        writer(g)
        if consolidated:
            zarr.consolidate_metadata(path)
        expected_cdl(path, EXPECTED / f"{name}.cdl")
        print(name, file=sys.stderr)
    write_xarray(STORES / "xarray.zarr")
    expected_cdl(STORES / "xarray.zarr", EXPECTED / "xarray.cdl")
    import netCDF4, numcodecs, xarray
    (HERE / "versions.txt").write_text(
        f"zarr {zarr.__version__}\nxarray {xarray.__version__}\nnumcodecs {numcodecs.__version__}\n"
        f"netCDF4 {netCDF4.__version__}\nnumpy {np.__version__}\n")


if __name__ == "__main__":
    main()
