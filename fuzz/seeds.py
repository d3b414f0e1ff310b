#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, from the project's own fixtures.

Usage: fuzz/seeds.py CORPUS_DIR   (writes CORPUS_DIR/<target>/<name> files)

Only the standard library: zip archives by `zipfile`, stores packed as
`fuzz/src/lib.rs` `unpack_store` reads them. netCDF files come from `ncgen`
(netcdf-bin) when it is installed; without it the ncfile target starts from
nothing but a signature.
"""
import hashlib
import io
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STORES = [
    "examples/ocean.zarr",
    "examples/xr.zarr",
    "crates/nczarr/tests/data/zarr_python/arrays.zarr",
]
METADATA_NAMES = {".zgroup", ".zattrs", ".zarray", ".zmetadata", ".nczgroup",
                  ".nczarray", ".nczattr", ".nczarr", "zarr.json"}
# The key order of fuzz_targets/zarr_metadata.rs KEYS, by the document's name.
META_PICK = {".zgroup": 0, ".zattrs": 1, ".zmetadata": 2, ".nczgroup": 3, ".nczarr": 4,
             ".zarray": 5, ".nczarray": 7, ".nczattr": 8, "zarr.json": 14}
CHAINS = 22  # len(fuzz_targets/codec_decode.rs CHAINS)


def put(corpus, target, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def store_dirs():
    """Every Zarr store among the fixtures: a directory with a root document."""
    found = [os.path.join(ROOT, s) for s in STORES]
    for base in ["tests/cli/data/golden/stores", "tests/cli/data/zarr3/stores"]:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, base)):
            if {".zgroup", "zarr.json", ".zmetadata"} & set(filenames):
                found.append(dirpath)
                dirnames[:] = []
    return [d for d in found if os.path.isdir(d)]


def entries(store):
    out = []
    for dirpath, _, filenames in os.walk(store):
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            key = os.path.relpath(path, store).replace(os.sep, "/")
            with open(path, "rb") as f:
                out.append((key, f.read()))
    return out


def pack(items):
    out = bytearray()
    for key, value in items:
        out += key.encode() + b"\n" + struct.pack("<I", len(value)) + value
    return bytes(out)


def main(corpus):
    stores = store_dirs()
    for store in stores:
        items = entries(store)
        small = [(k, v) for k, v in items if len(v) < 1 << 16]
        for mode in (0, 1, 4):
            put(corpus, "zarr_store", bytes([mode]) + pack(small))
        for key, value in items:
            name = key.rsplit("/", 1)[-1]
            if name in METADATA_NAMES and len(value) < 1 << 16:
                put(corpus, "json", value)
                put(corpus, "zarr_metadata", bytes([META_PICK[name]]) + value)
                put(corpus, "zarr_metadata", bytes([64 + META_PICK[name]]) + value)
        for top in (None, os.path.basename(store)):
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
                for key, value in small:
                    z.writestr(f"{top}/{key}" if top else key, value)
            put(corpus, "zip_open", buf.getvalue())

    cdls = []
    for base in ["tests/cli/data", "crates/nczarr/tests", "examples", "docs"]:
        for dirpath, _, filenames in os.walk(os.path.join(ROOT, base)):
            cdls += [os.path.join(dirpath, n) for n in filenames if n.endswith(".cdl")]
    for path in cdls:
        with open(path, "rb") as f:
            put(corpus, "cdl", f.read())

    codecs = os.path.join(ROOT, "crates/nczarr/tests/data/codecs")
    for name in sorted(os.listdir(codecs)):
        if name.endswith(".bin"):
            with open(os.path.join(codecs, name), "rb") as f:
                stored = f.read()
            if len(stored) < 1 << 16:
                for pick in range(CHAINS):
                    put(corpus, "codec_decode", bytes([pick, 2, 0xFF, 0x0F, 8]) + stored)

    for url in ["examples/ocean.zarr", "file:///tmp/x.zarr#mode=nczarr,file",
                "s3://bucket/key/x.zarr#mode=nczarr,s3", "https://s3.us-west-2.amazonaws.com/b/k#mode=zarr,s3",
                "gs://bucket/a.zarr", "az://container/x.zarr", "abfss://c@acct.dfs.core.windows.net/x",
                "https://example.org/data/x.nc#mode=bytes", "http://[::1]:9000/b/k#mode=nczarr,s3&aws.profile=p",
                "x.zip#mode=zip,zarr", "file://./rel.zarr#mode=zarr3"]:
        put(corpus, "url", url.encode())

    put(corpus, "dap", b"Dataset {\n    Float32 tas[time = 2][lat = 3];\n    Grid {\n     ARRAY:\n        Int16 g[y = 2];\n     MAPS:\n        Float64 y[y = 2];\n    } g;\n    Structure { Int32 a; String s[n = 2]; } st;\n    Sequence { Int32 id; } obs;\n} x%2Enc;\n")
    put(corpus, "dap", b"Attributes {\n    NC_GLOBAL { String title \"a \\\"q\\\" \\\\ b\"; Int32 n 1, 2; }\n    tas { Float32 _FillValue -999; nested { Byte b 200; } }\n    DODS_EXTRA { String Unlimited_Dimension \"time\"; }\n}\n")
    put(corpus, "dap", b"Dataset {\n    Byte b[x = 3];\n    String s[x = 3];\n} d;\nData:\n\x00\x00\x00\x03\x00\x00\x00\x03\x01\x02\x03\x00\x00\x00\x00\x03\x00\x00\x00\x01a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
    put(corpus, "dap", b"machine urs.earthdata.nasa.gov login me password secret\n")
    put(corpus, "rc_ini", b"[profile a]\nregion = eu-west-1\naws_access_key_id = K\n[default]\nsource_profile=a\n")
    put(corpus, "rc_ini", b"HTTP.VERBOSE=1\n[https://host.example:9000/bucket]AWS.PROFILE=p\n# comment\n")

    put(corpus, "ncfile", b"CDF\x01" + bytes(28))
    put(corpus, "ncfile", b"\x89HDF\r\n\x1a\n" + bytes(56))
    if shutil.which("ncgen"):
        with tempfile.TemporaryDirectory() as tmp:
            cases = os.path.join(ROOT, "tests/cli/data/golden/cases")
            for name in sorted(os.listdir(cases)):
                for kind in ("1", "2", "5", "4"):
                    out = os.path.join(tmp, "x.nc")
                    r = subprocess.run(["ncgen", "-k", kind, "-o", out, os.path.join(cases, name)],
                                       capture_output=True)
                    if r.returncode == 0 and os.path.getsize(out) < 1 << 17:
                        with open(out, "rb") as f:
                            put(corpus, "ncfile", f.read())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fuzz/seeds.py CORPUS_DIR")
    main(sys.argv[1])
