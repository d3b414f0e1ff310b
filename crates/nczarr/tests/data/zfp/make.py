"""Write zfp streams with the real zfpy (numcodecs' ZFPY codec calls it) and the values
zfpy decodes from them, for crates/nczarr/tests/zfp.rs.

    python make.py [OUT_DIR] [--many N]

Each case is <name>.zfp (zfpy.compress_numpy with its full header, exactly what ZFPY
stores per chunk) and <name>.raw (zfpy.decompress_numpy of it, native byte order).
The test decodes every .zfp in the directory and wants the .raw bit for bit. Without
--many the small fixed set committed here is written; --many N adds N random cases
(types, shapes, modes, value ranges) for a wider check outside the repository.
"""
import importlib.metadata
import pathlib
import sys

import numpy as np
import zfpy

TYPES = ["float32", "float64", "int32", "int64"]


def values(rng, dtype, shape, kind):
    n = int(np.prod(shape))
    if dtype.startswith("int"):
        bits = 30 if dtype == "int32" else 62  # zfp's integer range for lossy modes
        hi = 2 ** (bits - 4) if kind == "smooth" else 2**bits
        a = rng.integers(-hi, hi, size=n)
        if kind == "smooth":
            a = np.cumsum(rng.integers(-1000, 1000, size=n))
        return a.astype(dtype).reshape(shape)
    if kind == "smooth":
        g = np.indices(shape).sum(axis=0).astype("float64")
        a = np.sin(g / 3.0) * 100 + rng.normal(0, 0.01, size=shape)
    elif kind == "wide":
        a = rng.normal(0, 1, size=shape) * 10.0 ** rng.integers(-30, 30, size=shape)
    elif kind == "tiny":
        a = rng.normal(0, 1, size=shape) * (1e-40 if dtype == "float32" else 1e-310)
    elif kind == "zeros":
        a = np.zeros(shape)
        a.flat[-1] = 1.5
    else:
        a = rng.normal(0, 1, size=shape)
    return a.astype(dtype)


def modes(dtype):
    yield "tol", {"tolerance": 0.01}
    yield "tol0", {"tolerance": 1e-6}
    yield "prec", {"precision": 12}
    yield "rate", {"rate": 8}
    yield "rev", {}


FIXED = [
    # name, dtype, shape, kind, mode
    ("f4_2d_tol", "float32", (10, 10), "smooth", {"tolerance": 0.01}),
    ("f4_1d_prec", "float32", (37,), "normal", {"precision": 16}),
    ("f4_3d_rate", "float32", (6, 5, 9), "smooth", {"rate": 6}),
    ("f4_4d_tol", "float32", (3, 5, 4, 6), "smooth", {"tolerance": 0.001}),
    ("f4_2d_rev", "float32", (7, 9), "wide", {}),
    ("f4_2d_rev_smooth", "float32", (9, 7), "smooth", {}),
    ("f4_1d_tiny", "float32", (13,), "tiny", {"precision": 20}),
    ("f4_2d_zeros", "float32", (8, 8), "zeros", {"tolerance": 0.1}),
    ("f8_2d_tol", "float64", (11, 6), "smooth", {"tolerance": 1e-9}),
    ("f8_3d_prec", "float64", (5, 6, 7), "wide", {"precision": 40}),
    ("f8_1d_rate", "float64", (21,), "normal", {"rate": 16}),
    # 4 bits a block, less than a double's exponent: zfp codes such blocks unlimited
    ("f8_1d_rate_low", "float64", (50,), "zeros", {"rate": 1}),
    ("f8_4d_rev", "float64", (2, 3, 5, 6), "smooth", {}),
    ("f8_1d_tiny", "float64", (9,), "tiny", {"tolerance": 1e-320}),
    ("i4_2d_prec", "int32", (9, 10), "smooth", {"precision": 20}),
    ("i4_1d_rev", "int32", (17,), "wide", {}),
    ("i4_3d_rate", "int32", (4, 5, 6), "smooth", {"rate": 12}),
    ("i8_2d_rev", "int64", (6, 5), "wide", {}),
    ("i8_4d_prec", "int64", (2, 5, 3, 4), "smooth", {"precision": 50}),
]


def write(out, name, a, kwargs):
    try:
        packed = zfpy.compress_numpy(a, write_header=True, **kwargs)
    except Exception as e:  # zfpy refuses some settings (a rate too low for the type)
        print(f"skip {name}: {e}", file=sys.stderr)
        return
    back = zfpy.decompress_numpy(packed)
    assert back.dtype == a.dtype and back.shape == a.shape
    (out / f"{name}.zfp").write_bytes(packed)
    (out / f"{name}.raw").write_bytes(np.ascontiguousarray(back).tobytes())


def main():
    args = sys.argv[1:]
    many = 0
    if "--many" in args:
        i = args.index("--many")
        many = int(args[i + 1])
        del args[i : i + 2]
    out = pathlib.Path(args[0] if args else pathlib.Path(__file__).parent)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(39)
    for name, dtype, shape, kind, kwargs in FIXED:
        write(out, name, values(rng, dtype, shape, kind), kwargs)
    for i in range(many):
        dtype = TYPES[rng.integers(len(TYPES))]
        dims = int(rng.integers(1, 5))
        shape = tuple(int(s) for s in rng.integers(1, [300, 40, 14, 7][dims - 1], size=dims))
        kind = ["smooth", "normal", "wide", "tiny", "zeros"][rng.integers(5)]
        if dtype.startswith("int"):
            kind = "smooth" if kind != "wide" else "wide"
        label, kwargs = list(modes(dtype))[rng.integers(5)]
        if label == "prec":
            kwargs = {"precision": int(rng.integers(1, 65))}
        elif label == "rate":
            kwargs = {"rate": float(rng.integers(1, 65)) / [1, 2][rng.integers(2)]}
            if kwargs["rate"] * 4**dims < 13:
                # zfpy ignores the type when it sets a rate, and zfp's stream size
                # bound is then too small: it may crash (see f8_1d_rate_low)
                kwargs = {"rate": 16.0}
        elif label == "tol":
            kwargs = {"tolerance": float(10.0 ** rng.integers(-12, 3))}
        if dtype.startswith("int") and label.startswith("tol"):
            label, kwargs = "rev", {}
        if dtype.startswith("int") and label != "rev" and kind == "wide":
            kind = "smooth"  # lossy integer modes assume zfp's 30/62-bit range
        write(out, f"many{i:04d}_{dtype}_{dims}d_{kind}_{label}", values(rng, dtype, shape, kind), kwargs)
    (out / "VERSIONS.txt").write_text(f"zfpy {importlib.metadata.version('zfpy')}\nnumpy {np.__version__}\n")


if __name__ == "__main__":
    main()
