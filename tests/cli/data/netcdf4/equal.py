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


def walk(g):
    out = {}
    for n, v in g.variables.items():
        v.set_auto_mask(True)
        out[g.path.rstrip("/") + "/" + n] = (
            v.dimensions,
            str(v.dtype),
            v[...],
            {k: v.getncattr(k) for k in v.ncattrs()},
        )
    out[g.path + ":attrs"] = str({k: g.getncattr(k) for k in g.ncattrs()})
    out[g.path + ":dims"] = str({k: (len(d), d.isunlimited()) for k, d in g.dimensions.items()})
    for c in g.groups.values():
        out.update(walk(c))
    return out


def groups(path):
    with netCDF4.Dataset(path) as d:
        def paths(g):
            yield g.path
            for c in g.groups.values():
                yield from paths(c)
        return list(paths(d))


with netCDF4.Dataset(theirs) as a, netCDF4.Dataset(ours) as b:
    A, B = walk(a), walk(b)
assert A.keys() == B.keys(), f"netCDF4: {sorted(A.keys() ^ B.keys())}"
for k in A:
    if k.endswith((":attrs", ":dims")):
        assert A[k] == B[k], f"netCDF4 {k}: {A[k]} != {B[k]}"
        continue
    (da, ta, xa, aa), (db, tb, xb, ab) = A[k], B[k]
    assert da == db, f"netCDF4 {k}: dims {da} != {db}"
    assert ta == tb, f"netCDF4 {k}: dtype {ta} != {tb}"
    assert np.array_equal(np.ma.getmaskarray(xa), np.ma.getmaskarray(xb)), f"netCDF4 {k}: mask"
    assert np.array_equal(np.ma.filled(xa), np.ma.filled(xb)) or str(xa) == str(xb), f"netCDF4 {k}: {xa} != {xb}"
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

with h5py.File(ours, "r") as f:
    def visit(name, obj):
        dict(obj.attrs)
        if isinstance(obj, h5py.Dataset):
            obj[()]
            for dim in obj.dims:
                list(dim.keys())
    f.visititems(visit)
print("equal")
