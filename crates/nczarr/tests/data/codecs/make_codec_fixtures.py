#!/usr/bin/env python3
"""Regenerate the numcodecs codec fixtures used by crates/nczarr/tests/codecs.rs.

For every codec configuration this writes, next to this script:

  <name>.json        the numcodecs config (codec.get_config()) plus "dtype" (numpy dtype
                     string of the data) and "shape" (number of elements); for the chain
                     fixture {"filters": [...], "compressor": {...}, "dtype", "shape"}
  <name>.bin         the bytes numcodecs produced (codec.encode(data))
  <name>.raw         the unencoded data, data.tobytes() (C order, the dtype's byte order)
  <name>.items.json  (vlen codecs only, instead of .raw) the items as a JSON list: strings
                     for vlen-utf8, base64 strings for vlen-bytes

and VERSIONS.txt with the numcodecs / numpy / Python versions used. Every fixture is
checked here: numcodecs must decode its own .bin back to exactly .raw.

Re-runnable: it rewrites every file it owns and removes stale fixtures. Note that the
gzip fixture embeds the encoding time in its header, so gzip_5.bin changes on every run
(its decoded content does not).

Run with:  /work/venv/bin/python make_codec_fixtures.py
"""

import base64
import json
import os
import platform
import sys

import numpy as np
import numcodecs
from numcodecs import (
    BZ2,
    CRC32,
    LZ4,
    Adler32,
    Blosc,
    Delta,
    Fletcher32,
    GZip,
    Shuffle,
    VLenBytes,
    VLenUTF8,
    Zlib,
    Zstd,
)
from numcodecs.compat import ensure_bytes

try:
    from numcodecs import CRC32C
except Exception:  # pragma: no cover - older numcodecs or missing crc32c package
    CRC32C = None

HERE = os.path.dirname(os.path.abspath(__file__))
SUFFIXES = (".json", ".bin", ".raw", ".items.json")

numcodecs.blosc.set_nthreads(1)

# --------------------------------------------------------------------------- data
N = 1000
i = np.arange(N, dtype=np.int64)

# <i4, compressible: slow staircase plus a small wobble, some negatives.
I4 = ((i // 7) * 3 + (i % 5) - 200).astype("<i4")

# <f4 with NaN (and an infinity and a negative zero).
F4 = (np.sin(i * 0.01) * 100.0).astype("<f4")
F4[[3, 500, 999]] = np.nan
F4[10] = np.inf
F4[11] = -0.0

# <f8 with NaN.
j = np.arange(600, dtype=np.int64)
F8 = np.cos(j * 0.005) * 1.0e6 + j
F8 = F8.astype("<f8")
F8[[0, 77, 599]] = np.nan

# <f8 for delta: multiples of 0.25 of small magnitude, so every difference and every
# running sum is exact in binary floating point (no NaN: it would poison the cumsum).
F8_DELTA = ((j % 13) * 0.25 - (j // 50) * 1.5 + j * 0.5).astype("<f8")

# |u1, compressible; 3001 items, not a multiple of 8 (bitshuffle works on groups of 8).
k = np.arange(3001, dtype=np.int64)
U1 = ((k % 17) + (k // 100)).astype("|u1")

# <u4 pseudo-random (Knuth multiplicative hash): nearly incompressible.
NOISE = ((np.arange(1200, dtype=np.uint64) * np.uint64(2654435761)) % np.uint64(2**32)).astype("<u4")

# <u2 for delta with astype <i4: goes up and down, and wraps around 0 / 65535.
m = np.arange(1500, dtype=np.int64)
U2 = ((m * 37) % 1000 + np.where(m % 97 == 0, 65000, 0)).astype("<u2")

# |u1, odd length (7 bytes) for fletcher32.
ODD = np.array([1, 2, 3, 250, 251, 252, 7], dtype="|u1")

# <i2, 66006 bytes: with a forced blocksize c-blosc splits it into a 65536-byte block
# and a 470-byte (235-item, not a multiple of 8) leftover block. Note c-blosc 1.21.x as
# bundled with numcodecs 0.16 raises small forced block sizes to 64 KiB and ignores them
# for buffers below 64 KiB, so a multi-block fixture needs more than 64 KiB.
n = np.arange(33003, dtype=np.int64)
I2_BIG = ((n // 3) % 1000 - 500 + (n % 7)).astype("<i2")

# Short input: 12 bytes, below c-blosc's minimum, so blosc stores it with memcpy.
TINY = np.array([1, 2, 3], dtype="<i4")

# Object arrays for the vlen codecs.
STRINGS = ["hello", "", "wörld", "Ωμέγα", "日本語", "emoji \U0001F600", "a" * 300, "tab\tnl\n", "x"]
BYTES = [b"hello", b"", b"\x00\x01\x02\xff", bytes(range(256)), b"x", "wörld".encode("utf-8")]


def cfg_of(codec):
    return codec.get_config()


# --------------------------------------------------------------------------- writers
written = set()


def _path(name, suffix):
    return os.path.join(HERE, name + suffix)


def _write(path, data):
    mode = "w" if isinstance(data, str) else "wb"
    kw = {"encoding": "utf-8", "newline": "\n"} if mode == "w" else {}
    with open(path, mode, **kw) as f:
        f.write(data)
    written.add(os.path.basename(path))


def _meta(config, data):
    meta = dict(config)
    # Delta has its own "dtype" parameter; it must agree with the data's dtype, or the
    # fixture's "dtype" member would overwrite the codec's.
    if "dtype" in meta and np.dtype(meta["dtype"]).str != data.dtype.str:
        raise ValueError(f"codec dtype {meta['dtype']} differs from data dtype {data.dtype.str}")
    meta["dtype"] = data.dtype.str
    meta["shape"] = int(data.size)
    return json.dumps(meta, indent=1, ensure_ascii=False) + "\n"


def fixture(name, codec, data):
    """A single bytes codec."""
    raw = data.tobytes()
    enc = ensure_bytes(codec.encode(data))
    dec = ensure_bytes(codec.decode(enc))
    assert dec == raw, f"{name}: numcodecs does not round-trip its own encoding"
    _write(_path(name, ".json"), _meta(cfg_of(codec), data))
    _write(_path(name, ".bin"), enc)
    _write(_path(name, ".raw"), raw)
    print(f"{name:34s} {data.dtype.str:5s} raw {len(raw):6d}  enc {len(enc):6d}")


def vlen_fixture(name, codec, items, as_json):
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    enc = ensure_bytes(codec.encode(arr))
    back = codec.decode(enc)
    assert list(back) == list(items), f"{name}: numcodecs does not round-trip"
    meta = dict(cfg_of(codec))
    meta["dtype"] = "|O"
    meta["shape"] = len(items)
    _write(_path(name, ".json"), json.dumps(meta, indent=1) + "\n")
    _write(_path(name, ".bin"), enc)
    _write(
        _path(name, ".items.json"),
        json.dumps([as_json(x) for x in items], indent=1, ensure_ascii=False) + "\n",
    )
    print(f"{name:34s} |O    items {len(items):4d}  enc {len(enc):6d}")


def chain_fixture(name, filters, compressor, data):
    raw = data.tobytes()
    buf = data
    for f in filters:
        buf = f.encode(buf)
    enc = ensure_bytes(compressor.encode(buf))
    dec = compressor.decode(enc)
    for f in reversed(filters):
        dec = f.decode(dec)
    assert ensure_bytes(dec) == raw, f"{name}: numcodecs does not round-trip"
    meta = {
        "filters": [cfg_of(f) for f in filters],
        "compressor": cfg_of(compressor),
        "dtype": data.dtype.str,
        "shape": int(data.size),
    }
    _write(_path(name, ".json"), json.dumps(meta, indent=1) + "\n")
    _write(_path(name, ".bin"), enc)
    _write(_path(name, ".raw"), raw)
    print(f"{name:34s} {data.dtype.str:5s} raw {len(raw):6d}  enc {len(enc):6d}")


# --------------------------------------------------------------------------- fixtures
refused = []


def attempt(name, make):
    try:
        make()
    except Exception as e:  # record and go on: a refused config is a finding, not a crash
        refused.append(f"{name}: {type(e).__name__}: {e}")
        print(f"{name:34s} REFUSED: {e}")
        for s in SUFFIXES:
            p = _path(name, s)
            if os.path.exists(p):
                os.remove(p)
                written.discard(os.path.basename(p))


def main():
    # zlib / gzip
    attempt("zlib_1", lambda: fixture("zlib_1", Zlib(level=1), I4))
    attempt("zlib_9", lambda: fixture("zlib_9", Zlib(level=9), F8))
    attempt("gzip_5", lambda: fixture("gzip_5", GZip(level=5), F4))

    # blosc (numcodecs takes the typesize from the array's itemsize)
    attempt("blosc_lz4_shuffle", lambda: fixture(
        "blosc_lz4_shuffle", Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), F4))
    attempt("blosc_zstd_bitshuffle", lambda: fixture(
        "blosc_zstd_bitshuffle", Blosc(cname="zstd", clevel=3, shuffle=Blosc.BITSHUFFLE), F4))
    attempt("blosc_blosclz_noshuffle", lambda: fixture(
        "blosc_blosclz_noshuffle", Blosc(cname="blosclz", clevel=9, shuffle=Blosc.NOSHUFFLE), I4))
    attempt("blosc_zlib_shuffle", lambda: fixture(
        "blosc_zlib_shuffle", Blosc(cname="zlib", clevel=5, shuffle=Blosc.SHUFFLE), F8))
    attempt("blosc_lz4hc_shuffle", lambda: fixture(
        "blosc_lz4hc_shuffle", Blosc(cname="lz4hc", clevel=5, shuffle=Blosc.SHUFFLE), I4))
    attempt("blosc_lz4_autoshuffle_u1", lambda: fixture(
        "blosc_lz4_autoshuffle_u1", Blosc(cname="lz4", clevel=5, shuffle=Blosc.AUTOSHUFFLE), U1))
    attempt("blosc_lz4_autoshuffle_f8", lambda: fixture(
        "blosc_lz4_autoshuffle_f8", Blosc(cname="lz4", clevel=5, shuffle=Blosc.AUTOSHUFFLE), F8))
    attempt("blosc_lz4_multiblock", lambda: fixture(
        "blosc_lz4_multiblock", Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE, blocksize=8192), I2_BIG))
    attempt("blosc_zstd_bitshuffle_multiblock", lambda: fixture(
        "blosc_zstd_bitshuffle_multiblock",
        Blosc(cname="zstd", clevel=5, shuffle=Blosc.BITSHUFFLE, blocksize=8192), I2_BIG))
    attempt("blosc_lz4_noise", lambda: fixture(
        "blosc_lz4_noise", Blosc(cname="lz4", clevel=5, shuffle=Blosc.NOSHUFFLE), NOISE))
    attempt("blosc_lz4_tiny", lambda: fixture(
        "blosc_lz4_tiny", Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), TINY))

    # zstd / lz4 / bz2
    attempt("zstd_3", lambda: fixture("zstd_3", Zstd(level=3), I4))
    attempt("zstd_0", lambda: fixture("zstd_0", Zstd(level=0), F8))
    attempt("zstd_3_checksum", lambda: fixture("zstd_3_checksum", Zstd(level=3, checksum=True), F4))
    attempt("lz4_1", lambda: fixture("lz4_1", LZ4(acceleration=1), I4))
    attempt("bz2_9", lambda: fixture("bz2_9", BZ2(level=9), F8))

    # shuffle
    attempt("shuffle_4", lambda: fixture("shuffle_4", Shuffle(elementsize=4), F4))
    attempt("shuffle_8", lambda: fixture("shuffle_8", Shuffle(elementsize=8), F8))

    # fletcher32
    attempt("fletcher32_i4", lambda: fixture("fletcher32_i4", Fletcher32(), I4))
    attempt("fletcher32_odd", lambda: fixture("fletcher32_odd", Fletcher32(), ODD))

    # delta
    attempt("delta_i4", lambda: fixture("delta_i4", Delta(dtype="<i4", astype="<i4"), I4))
    attempt("delta_f8", lambda: fixture("delta_f8", Delta(dtype="<f8", astype="<f8"), F8_DELTA))
    attempt("delta_u2_i4", lambda: fixture("delta_u2_i4", Delta(dtype="<u2", astype="<i4"), U2))

    # checksums
    attempt("crc32", lambda: fixture("crc32", CRC32(), I4))
    attempt("crc32_end", lambda: fixture("crc32_end", CRC32(location="end"), U1))
    attempt("adler32", lambda: fixture("adler32", Adler32(), F4))
    if CRC32C is None:
        refused.append("crc32c: numcodecs.CRC32C not importable (skipped)")
        print(f"{'crc32c':34s} SKIPPED: not importable")
    else:
        attempt("crc32c", lambda: fixture("crc32c", CRC32C(), I4))

    # vlen object codecs
    attempt("vlen_utf8", lambda: vlen_fixture("vlen_utf8", VLenUTF8(), STRINGS, lambda s: s))
    attempt("vlen_bytes", lambda: vlen_fixture(
        "vlen_bytes", VLenBytes(), BYTES, lambda b: base64.b64encode(b).decode("ascii")))

    # a chain: shuffle filter then zlib compressor
    attempt("chain_shuffle_zlib", lambda: chain_fixture(
        "chain_shuffle_zlib", [Shuffle(elementsize=4)], Zlib(level=5), I4))

    # Remove fixtures of earlier runs that this run no longer writes.
    for f in sorted(os.listdir(HERE)):
        if f.endswith(SUFFIXES) and f not in written:
            os.remove(os.path.join(HERE, f))
            print(f"removed stale {f}")

    lines = [
        f"numcodecs {numcodecs.__version__}",
        f"numpy {np.__version__}",
        f"python {platform.python_version()}",
        f"blosc {numcodecs.blosc.VERSION_STRING if hasattr(numcodecs.blosc, 'VERSION_STRING') else '?'}",
    ]
    if refused:
        lines.append("")
        lines.append("refused or skipped:")
        lines += [f"  {r}" for r in refused]
    _write(os.path.join(HERE, "VERSIONS.txt"), "\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
