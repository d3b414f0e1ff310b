"""Whether two datasets hold the same dimensions and variable values, whatever the
order of their definitions (ncks sorts them): netCDF4-python reads both.

Usage: same_values.py A B   (exits 1 saying where on the first difference)
"""

import sys

import netCDF4
import numpy as np


def walk(g, out):
    for n, d in g.dimensions.items():
        out[f"{g.path}:dim {n}"] = (len(d), d.isunlimited())
    for n, v in g.variables.items():
        v.set_auto_maskandscale(False)
        out[f"{g.path}:{n}"] = (v.dimensions, np.asarray(v[...]))
    for c in g.groups.values():
        walk(c, out)
    return out


with netCDF4.Dataset(sys.argv[1]) as a, netCDF4.Dataset(sys.argv[2]) as b:
    A, B = walk(a, {}), walk(b, {})
assert A.keys() == B.keys(), f"names: {sorted(A.keys() ^ B.keys())}"
for k in A:
    if ":dim " in k:
        assert A[k] == B[k], f"{k}: {A[k]} != {B[k]}"
        continue
    (da, xa), (db, xb) = A[k], B[k]
    assert da == db, f"{k}: dims {da} != {db}"
    assert xa.shape == xb.shape and (np.array_equal(xa, xb) or str(xa) == str(xb)), f"{k}: {xa} != {xb}"
print("same")
