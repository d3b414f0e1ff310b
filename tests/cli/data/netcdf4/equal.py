"""Whether two netCDF-4 files decode alike, for every reader of netCDF-4 files.

Usage: equal.py THEIRS OURS  (exits 1, saying where, on the first difference)

netCDF4-python (netcdf-c): every group's variables with their dimensions, dtype,
values, mask and attributes; xarray with its netcdf4 and h5netcdf engines (identical
datasets, every group); h5py: every object opens, every dataset reads, and each
dimension scale a dataset has attached is found.
"""

import sys
import warnings

import h5py
import netCDF4
import numpy as np
import xarray as xr

warnings.simplefilter("ignore")
theirs, ours = sys.argv[1], sys.argv[2]


def attr(o, k):
    # What netCDF4-python cannot read (a vlen _FillValue) must fail alike in both.
    try:
        return o.getncattr(k)
    except Exception as e:
        return f"unreadable: {e}"


def same(a, b):
    """Values alike: masks and data, element by element for vlens (object arrays)."""
    if not np.array_equal(np.ma.getmaskarray(a), np.ma.getmaskarray(b)):
        return False
    if a is np.ma.masked or b is np.ma.masked:
        return a is b
    a, b = np.ma.filled(a), np.ma.filled(b)
    if getattr(a, "dtype", None) == object or getattr(b, "dtype", None) == object:
        a, b = np.asarray(a, dtype=object).ravel(), np.asarray(b, dtype=object).ravel()
        return len(a) == len(b) and all(str(x) == str(y) for x, y in zip(a, b))
    return np.array_equal(a, b) or str(a) == str(b)


def walk(g):
    out = {}
    for n, v in g.variables.items():
        v.set_auto_mask(True)
        out[g.path.rstrip("/") + "/" + n] = (
            v.dimensions,
            str(v.dtype),
            v[...],
            {k: attr(v, k) for k in v.ncattrs()},
        )
    out[g.path + ":attrs"] = str({k: attr(g, k) for k in g.ncattrs() if k != "_NCProperties"})
    out[g.path + ":dims"] = str({k: (len(d), d.isunlimited()) for k, d in g.dimensions.items()})
    for c in g.groups.values():
        out.update(walk(c))
    return out


def groups(path):
    with h5py.File(path, "r") as f:
        out = ["/"]
        f.visititems(lambda n, o: out.append("/" + n) if isinstance(o, h5py.Group) else None)
        return out


def read(path):
    """Every group's variables as netCDF4-python reads them, or why it cannot."""
    try:
        with netCDF4.Dataset(path) as d:
            return walk(d)
    except Exception as e:
        return f"{type(e).__name__}: {e}"


A, B = read(theirs), read(ours)
if isinstance(A, str):
    # What netCDF4-python cannot read of ncgen's file must fail alike for ours.
    assert A == B, f"netCDF4: {A} != {B}"
    A = B = {}
assert A.keys() == B.keys(), f"netCDF4: {sorted(A.keys() ^ B.keys())}"
for k in A:
    if k.endswith((":attrs", ":dims")):
        assert A[k] == B[k], f"netCDF4 {k}: {A[k]} != {B[k]}"
        continue
    (da, ta, xa, aa), (db, tb, xb, ab) = A[k], B[k]
    assert da == db, f"netCDF4 {k}: dims {da} != {db}"
    assert ta == tb, f"netCDF4 {k}: dtype {ta} != {tb}"
    assert same(xa, xb), f"netCDF4 {k}: {xa} != {xb}"
    assert str(aa) == str(ab), f"netCDF4 {k}: attrs {aa} != {ab}"

for engine in ("netcdf4", "h5netcdf"):
    for g in groups(theirs):
        kw = {"group": g} if g != "/" else {}
        try:
            want = xr.open_dataset(theirs, engine=engine, **kw).load()
        except Exception:
            continue  # what xarray cannot read of ncgen's file is not asked of ours
        got = xr.open_dataset(ours, engine=engine, **kw).load()
        try:
            xr.testing.assert_identical(want, got)
        except AssertionError as e:
            raise AssertionError(f"xarray ({engine}) group {g}: {e}")
        except ValueError:
            # Vlens (object arrays of arrays), which xarray cannot compare.
            assert list(want.variables) == list(got.variables), f"xarray ({engine}) group {g}"
            for n in want.variables:
                w, o = want.variables[n], got.variables[n]
                assert same(w.values, o.values), f"xarray ({engine}) {g} {n}: values"
                assert str(w.attrs) == str(o.attrs), f"xarray ({engine}) {g} {n}: attrs"

with h5py.File(ours, "r") as f:
    def visit(name, obj):
        dict(obj.attrs)
        if isinstance(obj, h5py.Dataset):
            obj[()]
            for dim in obj.dims:
                list(dim.keys())
    f.visititems(visit)
print("equal")
