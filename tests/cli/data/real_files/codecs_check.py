"""Issue 39, class 5: the codecs zarr-python (numcodecs) and h5py write that nczdump must
read, and the lossy ones nczcopy must write so that zarr-python reads them back.

Usage: codecs_check.py NCZDUMP NCZCOPY WORKDIR   (exit 1 naming each difference)

Writes with zarr-python 3 and numcodecs: Zarr v2 arrays filtered by bitround,
fixedscaleoffset, quantize, astype, delta (v2 dtype names) and packbits; Zarr v3 arrays
with the same as `numcodecs.*` codecs (v3 dtype names: int32, float64); with h5py an
HDF5 dataset compressed with lzf; a string array encoded by numcodecs' Categorize; zfpy
(v2 compressor, v3 serializer) lossy and lossless, copied out with zstd. nczdump's values (--json) must equal what
zarr-python and h5py read. Then nczcopy stores floats with `--codec bitround:keepbits=5
--codec zstd`, and zarr-python must read exactly what numcodecs' BitRound(5) makes of
them; the lzf dataset copied to Zarr must read as h5py reads it.
"""

import json
import os
import subprocess
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")
NCZDUMP, NCZCOPY, OUT = sys.argv[1:4]
os.makedirs(OUT, exist_ok=True)


def write_inputs():
    import h5py
    import numcodecs
    import zarr
    from zarr.codecs import numcodecs as nz

    x = np.linspace(-5, 5, 12).reshape(3, 4)
    xi = np.arange(12, dtype="i4").reshape(3, 4) * 7 - 20
    b = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0], dtype=bool)
    cases = [
        ("bitround", x.astype("f4"), numcodecs.BitRound(keepbits=5), nz.BitRound(keepbits=5)),
        ("fso", x, numcodecs.FixedScaleOffset(offset=0, scale=100, dtype="<f8", astype="<i2"),
         nz.FixedScaleOffset(offset=0, scale=100, dtype="float64", astype="int16")),
        ("quant", x, numcodecs.Quantize(digits=2, dtype="<f8"), nz.Quantize(digits=2, dtype="float64")),
        ("astype", x, numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8"),
         nz.AsType(encode_dtype="float32", decode_dtype="float64")),
        ("delta", xi, numcodecs.Delta(dtype="<i4", astype="<i2"), nz.Delta(dtype="int32", astype="int16")),
        ("packbits", b, numcodecs.PackBits(), None),
        ("plain", x, None, None),
    ]
    for fmt in (2, 3):
        g = zarr.open_group(f"{OUT}/v{fmt}.zarr", mode="w", zarr_format=fmt)
        for name, data, v2, v3 in cases:
            codec = v2 if fmt == 2 else v3
            if codec is None and name != "plain":
                continue
            dims = ["y", "x"] if data.ndim == 2 else ["n"]
            kw = {"dimension_names": dims} if fmt == 3 else {}
            a = g.create_array(name, shape=data.shape, chunks=(2, 4) if data.ndim == 2 else (5,),
                               dtype=data.dtype, filters=[codec] if codec else None, compressors=None, **kw)
            a[...] = data
            if fmt == 2:
                a.attrs["_ARRAY_DIMENSIONS"] = dims
    # zfpy (LLNL's zfp) compresses whole chunks, lossy at a tolerance or lossless; in
    # Zarr v3 it is the array-to-bytes codec. Edge chunks are partial zfp blocks.
    field = np.sin(np.linspace(0, 7, 9 * 11)).reshape(9, 11) * 50
    zfp_cases = [
        ("zfp_tol", field.astype("f4"), dict(tolerance=0.01)),
        ("zfp_rev", field, dict()),
        ("zfp_int", (field * 1000).astype("i8"), dict(precision=40)),
    ]
    for fmt in (2, 3):
        g = zarr.open_group(f"{OUT}/v{fmt}.zarr", mode="a")
        for name, data, kw in zfp_cases:
            if fmt == 2:
                a = g.create_array(name, shape=data.shape, chunks=(5, 6), dtype=data.dtype,
                                   compressors=[numcodecs.ZFPY(**kw)])
                a.attrs["_ARRAY_DIMENSIONS"] = ["zy", "zx"]
            else:
                a = g.create_array(name, shape=data.shape, chunks=(5, 6), dtype=data.dtype,
                                   serializer=nz.ZFPY(**kw), compressors=None, dimension_names=["zy", "zx"])
            a[...] = data
    # Categorize stores labels' indices (0: a value not among them, which reads as "").
    words = np.array(["rain", "sunny", "fog", "rain", "", "sunny"], dtype="<U5")
    g = zarr.open_group(f"{OUT}/cat.zarr", mode="w", zarr_format=2)
    a = g.create_array("w", shape=words.shape, chunks=(4,), dtype=words.dtype, compressors=None,
                       filters=[numcodecs.Categorize(labels=["sunny", "rain", "fog"], dtype="<U5", astype="u1")])
    a[...] = words
    a.attrs["_ARRAY_DIMENSIONS"] = ["n"]
    with h5py.File(f"{OUT}/lzf.h5", "w") as f:
        f.create_dataset("lz", data=np.arange(2000, dtype="f4").reshape(40, 50), chunks=(10, 50), compression="lzf")
    want = {}
    for fmt in (2, 3):
        g = zarr.open_group(f"{OUT}/v{fmt}.zarr", mode="r")
        for name, a in g.arrays():
            want[(f"{OUT}/v{fmt}.zarr", name)] = np.asarray(a[...], dtype=float).ravel()
    want[(f"{OUT}/cat.zarr", "w")] = np.asarray(zarr.open_group(f"{OUT}/cat.zarr", mode="r")["w"][...]).ravel()
    with h5py.File(f"{OUT}/lzf.h5") as f:
        want[(f"{OUT}/lzf.h5", "lz")] = f["lz"][...].astype(float).ravel()
    return want


def dumped(path, var):
    out = subprocess.run([NCZDUMP, "--json", "-v", var, path], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()

    def find(o):
        if isinstance(o, dict):
            if o.get("name") == var and "data" in o:
                return o["data"]
            for v in o.values():
                r = find(v)
                if r is not None:
                    return r
        if isinstance(o, list):
            for v in o:
                r = find(v)
                if r is not None:
                    return r
        return None

    data = find(json.loads(out.stdout))
    if data is None:
        return None, "no data"
    return np.asarray(data, dtype=str if path.endswith("cat.zarr") else float).ravel(), ""


def main():
    import numcodecs
    import zarr

    failures = []
    want = write_inputs()
    for (path, var), values in want.items():
        got, err = dumped(path, var)
        if got is not None and values.dtype == float and np.array_equal(values.astype("f4").astype(float), values):
            # float32 data: --json prints the shortest text that reads back as the float32
            got = got.astype("f4").astype(float)
        if got is None or not np.array_equal(got, values):
            failures.append(f"read {os.path.basename(path)}/{var}: {err or got[:6]} != {values[:6]}")
    # Lossy writing: bitround then zstd, as a user cuts float data down.
    src = f"{OUT}/v2.zarr"
    dst = f"{OUT}/rounded.zarr"
    subprocess.run(["rm", "-rf", dst])
    r = subprocess.run([NCZCOPY, "-k", "zarr", "--codec", "bitround:keepbits=5", "--codec", "zstd", "-V", "plain", src, dst],
                       capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"nczcopy --codec bitround: {r.stderr.strip()}")
    else:
        a = zarr.open_group(dst, mode="r")["plain"]
        chain = [c.codec_id for c in (a.filters or [])]
        expect = numcodecs.BitRound(keepbits=5).decode(numcodecs.BitRound(keepbits=5).encode(
            np.asarray(zarr.open_group(src, mode="r")["plain"][...])))
        if "bitround" not in chain or not np.array_equal(a[...], expect):
            failures.append(f"bitround copy: filters {chain}, values {a[...].ravel()[:4]} != {expect.ravel()[:4]}")
    # lzf has no Zarr reader: copied with another codec, values kept.
    dst = f"{OUT}/lzf.zarr"
    subprocess.run(["rm", "-rf", dst])
    r = subprocess.run([NCZCOPY, "-k", "zarr", f"{OUT}/lzf.h5", dst], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"nczcopy of lzf: {r.stderr.strip()}")
    elif not np.array_equal(np.asarray(zarr.open_group(dst, mode="r")["lz"][...], dtype=float).ravel(),
                            want[(f"{OUT}/lzf.h5", "lz")]):
        failures.append("lzf copy: values differ")
    # zfpy is read only here: a copy stores what zfpy decodes, with zstd.
    for fmt in (2, 3):
        dst = f"{OUT}/zfp_v{fmt}_copy.zarr"
        subprocess.run(["rm", "-rf", dst])
        r = subprocess.run([NCZCOPY, "-k", "zarr", "-V", "zfp_tol,zfp_rev,zfp_int", f"{OUT}/v{fmt}.zarr", dst],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"nczcopy of zfpy (v{fmt}): {r.stderr.strip()}")
            continue
        for name in ("zfp_tol", "zfp_rev", "zfp_int"):
            got = np.asarray(zarr.open_group(dst, mode="r")[name][...], dtype=float).ravel()
            if not np.array_equal(got, want[(f"{OUT}/v{fmt}.zarr", name)]):
                failures.append(f"zfpy copy v{fmt}/{name}: values differ")
    for f in failures:
        print(f)
    print(f"{len(failures)} differences")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
