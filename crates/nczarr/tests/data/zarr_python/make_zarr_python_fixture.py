#!/usr/bin/env python3
"""Regenerate arrays.zarr (a Zarr v2 group written by zarr-python 3) and
expected_values.json, both next to this script.

arrays.zarr holds small arrays covering the layouts a reader must handle:

  temperature  <f4 5x7, chunks 2x3 (ragged edges), blosc lz4 shuffle, fill NaN, some NaN;
               the corner chunk 2.2 holds only a NaN, equal to the fill, so zarr-python
               (write_empty_chunks=False) does not store it: it must read as NaN
  big_endian   >i4 1-D, 10 items in chunks of 4, zlib
  fortran      <i2 4x6, chunks 3x4, order "F", uncompressed (chunk bytes are F order)
  nested       <u2 4x5, chunks 2x2, dimension_separator "/" (keys like "1/2")
  bytes4       |S4 fixed-length byte strings
  unicode3     <U3 fixed-length UTF-32 strings
  strings      |O with the vlen-utf8 filter (zarr-python's dtype=str)
  flags        |b1 booleans
  scalar       <f8 0-d
  sparse       <i4 6x6, chunks 2x2, fill -1, most chunks never written

Every array has an _ARRAY_DIMENSIONS attribute (xarray's convention).

expected_values.json maps each array name to its dtype, shape, chunks, order,
fill_value (as in .zarray), the chunk keys present in the store, and "values": the full
C-order flattened contents as zarr-python reads them back: NaN as the string "NaN",
byte strings decoded as latin-1, booleans as true/false.

Re-runnable: the store is deleted and rewritten (its bytes are deterministic).
Run with:  /work/venv/bin/python make_zarr_python_fixture.py
"""

import json
import math
import os
import shutil
import sys

import numcodecs
import numpy as np
import zarr

HERE = os.path.dirname(os.path.abspath(__file__))
STORE = os.path.join(HERE, "arrays.zarr")

numcodecs.blosc.set_nthreads(1)


def new_array(name, dims, **kw):
    a = zarr.open_array(store=STORE, path=name, mode="w", zarr_format=2, **kw)
    a.attrs["_ARRAY_DIMENSIONS"] = dims
    return a


def write_fortran_by_hand(name, dims, values, chunks, dtype):
    """Fallback if zarr-python refuses order "F" for v2: write .zarray and chunks."""
    d = os.path.join(STORE, name)
    os.makedirs(d, exist_ok=True)
    meta = {
        "shape": list(values.shape),
        "chunks": list(chunks),
        "dtype": np.dtype(dtype).str,
        "fill_value": 0,
        "order": "F",
        "filters": None,
        "dimension_separator": ".",
        "compressor": None,
        "zarr_format": 2,
    }
    with open(os.path.join(d, ".zarray"), "w") as f:
        json.dump(meta, f, indent=2)
    with open(os.path.join(d, ".zattrs"), "w") as f:
        json.dump({"_ARRAY_DIMENSIONS": dims}, f, indent=2)
    for ci in range(-(-values.shape[0] // chunks[0])):
        for cj in range(-(-values.shape[1] // chunks[1])):
            chunk = np.zeros(chunks, dtype=dtype)
            part = values[ci * chunks[0]:(ci + 1) * chunks[0], cj * chunks[1]:(cj + 1) * chunks[1]]
            chunk[: part.shape[0], : part.shape[1]] = part
            with open(os.path.join(d, f"{ci}.{cj}"), "wb") as f:
                f.write(chunk.tobytes(order="F"))


def build():
    if os.path.exists(STORE):
        shutil.rmtree(STORE)
    root = zarr.open_group(STORE, mode="w", zarr_format=2)
    root.attrs["title"] = "zarr-python 3 v2 fixture"

    # <f4 2-D, ragged chunks, blosc, NaN fill and some NaN values.
    t = (np.arange(35, dtype="<f4").reshape(5, 7) * 0.5 - 3.0).astype("<f4")
    t[1, 2] = np.nan
    t[4, 6] = np.nan
    a = new_array("temperature", ["y", "x"], shape=(5, 7), chunks=(2, 3), dtype="<f4",
                  compressor=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1),
                  fill_value=np.nan)
    a.attrs["units"] = "degC"
    a[:] = t

    # >i4 big-endian 1-D.
    a = new_array("big_endian", ["t"], shape=(10,), chunks=(4,), dtype=">i4",
                  compressor=numcodecs.Zlib(level=5), fill_value=0)
    a[:] = ((np.arange(10) - 3) * 100003).astype(">i4")

    # <i2 Fortran order, distinct values, uncompressed so the F layout is visible.
    f = (np.arange(4)[:, None] * 10 + np.arange(6)[None, :] + 1).astype("<i2")
    try:
        a = new_array("fortran", ["row", "col"], shape=(4, 6), chunks=(3, 4), dtype="<i2",
                      order="F", compressor=None, fill_value=0)
        a[:] = f
        if json.load(open(os.path.join(STORE, "fortran", ".zarray")))["order"] != "F":
            raise RuntimeError("zarr-python did not record order F")
    except Exception as e:
        print(f"zarr-python refused order F ({e}); writing it by hand")
        shutil.rmtree(os.path.join(STORE, "fortran"), ignore_errors=True)
        write_fortran_by_hand("fortran", ["row", "col"], f, (3, 4), "<i2")
    # Check the stored layout really is F order (edge chunks padded with the fill).
    with open(os.path.join(STORE, "fortran", "0.0"), "rb") as fh:
        assert fh.read() == f[0:3, 0:4].tobytes(order="F"), "fortran/0.0 is not F order"

    # dimension_separator "/".
    a = new_array("nested", ["a", "b"], shape=(4, 5), chunks=(2, 2), dtype="<u2",
                  dimension_separator="/", compressor=numcodecs.Zstd(level=1), fill_value=0)
    a[:] = (np.arange(20).reshape(4, 5) * 3000).astype("<u2")

    # |S4 fixed-length bytes.
    a = new_array("bytes4", ["n4"], shape=(5,), chunks=(3,), dtype="|S4")
    a[:] = np.array([b"ab", b"", b"wxyz", b"\x00\xffA", b"q"], dtype="|S4")

    # <U3 fixed-length unicode (UTF-32LE in the chunks).
    a = new_array("unicode3", ["n5"], shape=(5,), chunks=(3,), dtype="<U3")
    a[:] = np.array(["a", "Ωμ", "日本語", "", "xyz"], dtype="<U3")

    # Object strings through vlen-utf8 (zarr-python 3 spells this dtype=str).
    a = new_array("strings", ["n6"], shape=(6,), chunks=(4,), dtype=str)
    a[:] = np.array(["hello", "", "wörld", "日本", "emoji \U0001F600", "z"], dtype=object)

    # |b1 booleans.
    a = new_array("flags", ["n7"], shape=(7,), chunks=(3,), dtype="|b1")
    a[:] = np.array([True, False, False, True, True, False, True])

    # 0-d scalar.
    a = new_array("scalar", [], shape=(), dtype="<f8", fill_value=0.0)
    a[...] = 3.25

    # Most chunks never written: they read as the fill value.
    a = new_array("sparse", ["p", "q"], shape=(6, 6), chunks=(2, 2), dtype="<i4",
                  fill_value=-1, compressor=numcodecs.Zlib(level=1))
    a[0:2, 0:4] = np.arange(8).reshape(2, 4).astype("<i4") + 100
    a[3:5, 4:6] = np.array([[7, 8], [9, 10]], dtype="<i4")


def json_value(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        x = float(v)
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "Infinity" if x > 0 else "-Infinity"
        return x
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("latin-1")
    if isinstance(v, (str, np.str_)):
        return str(v)
    raise TypeError(f"unexpected value {v!r} of type {type(v)}")


def chunk_keys(name):
    d = os.path.join(STORE, name)
    keys = []
    for dirpath, _dirs, files in os.walk(d):
        for fname in files:
            if fname.startswith("."):
                continue
            keys.append(os.path.relpath(os.path.join(dirpath, fname), d).replace(os.sep, "/"))
    return sorted(keys)


def expected():
    out = {}
    root = zarr.open_group(STORE, mode="r", zarr_format=2)
    for name in sorted(n for n, _ in root.arrays()):
        with open(os.path.join(STORE, name, ".zarray")) as f:
            meta = json.load(f)
        arr = zarr.open_array(store=STORE, path=name, mode="r", zarr_format=2)
        data = np.asarray(arr[...])
        flat = data.reshape(-1, order="C")
        out[name] = {
            "dtype": meta["dtype"],
            "shape": list(meta["shape"]),
            "chunks": list(meta["chunks"]),
            "order": meta["order"],
            "fill_value": meta["fill_value"],
            "chunk_keys": chunk_keys(name),
            "values": [json_value(v) for v in flat],
        }
    return out


def main():
    build()
    exp = expected()
    with open(os.path.join(HERE, "expected_values.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(exp, f, indent=1, ensure_ascii=False, allow_nan=False)
        f.write("\n")
    with open(os.path.join(HERE, "VERSIONS.txt"), "w", newline="\n") as f:
        f.write(f"zarr {zarr.__version__}\nnumcodecs {numcodecs.__version__}\nnumpy {np.__version__}\n")
    for name, e in exp.items():
        print(f"{name:12s} {e['dtype']:5s} shape {e['shape']} chunks {e['chunks']} keys {e['chunk_keys']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
