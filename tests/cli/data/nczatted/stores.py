"""Zarr stores for nczatted's tests, and what xarray and netCDF4-python read of them.

    stores.py make DIR          xarray's consolidated Zarr v2 and v3 stores DIR/xr2.zarr,
                                DIR/xr3.zarr (float tas with a NaN fill, int flag, attrs)
    stores.py attrs STORE       JSON: xarray's reading of STORE's attributes (global and
                                per variable, consolidated when the store is), and the
                                values of every variable
    stores.py nc STORE          JSON: netCDF4-python's reading of the NCZarr STORE's
                                attributes, with their types
    stores.py vars STORE        JSON: xarray's reading of every group of STORE, through
                                the consolidated metadata (when there is one) and
                                without: each variable's dimensions and values
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np


def plain(v):
    if isinstance(v, np.ndarray):
        return plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v != v:
        return "NaN"
    return v


def make(d):
    import xarray as xr
    tas = np.arange(12, dtype="f4").reshape(4, 3)
    tas[1, 1] = np.nan
    ds = xr.Dataset(
        {"tas": (("time", "x"), tas, {"units": "K", "long_name": "air"}),
         "flag": (("x",), np.array([1, 2, 3], dtype="i4"), {"meaning": "none"})},
        coords={"time": ("time", np.arange(4.0), {"units": "days since 2000-01-01"})},
        attrs={"title": "xarray wrote this", "history": "made by xarray"},
    )
    ds.tas.encoding.update(chunks=(2, 3))
    ds.to_zarr(f"{d}/xr2.zarr", zarr_format=2, consolidated=True)
    ds.to_zarr(f"{d}/xr3.zarr", zarr_format=3, consolidated=True)


def attrs(store):
    import xarray as xr
    import zarr
    consolidated = None
    try:
        zarr.open_consolidated(store)
        consolidated = True
    except Exception:
        consolidated = False
    ds = xr.open_zarr(store, consolidated=consolidated)
    out = {"global": {k: plain(v) for k, v in ds.attrs.items()}}
    for name, v in ds.variables.items():
        out[name] = {"attrs": {k: plain(x) for k, x in v.attrs.items()}, "values": plain(v.values)}
    print(json.dumps(out, sort_keys=True))


def nc(store):
    import netCDF4
    d = netCDF4.Dataset(f"file://{store}#mode=nczarr,file")
    out = {"global": {k: [plain(d.getncattr(k)), type(d.getncattr(k)).__name__] for k in d.ncattrs()}}
    for name, v in d.variables.items():
        out[name] = {k: [plain(v.getncattr(k)), str(getattr(v.getncattr(k), "dtype", type(v.getncattr(k)).__name__))]
                     for k in v.ncattrs()}
    print(json.dumps(out, sort_keys=True))


def variables(store):
    import xarray as xr
    import zarr
    root = zarr.open_group(store, mode="r")
    groups = [""]
    todo = [("", root)]
    while todo:
        path, g = todo.pop()
        for name, sub in g.groups():
            p = f"{path}/{name}".lstrip("/")
            groups.append(p)
            todo.append((p, sub))
    out = {}
    for consolidated in (True, False):
        try:
            zarr.open_consolidated(store)
        except Exception:
            if consolidated:
                continue
        seen = {}
        for p in sorted(groups):
            ds = xr.open_zarr(store, group=p or None, consolidated=consolidated)
            seen[p or "/"] = {n: {"dims": list(v.dims), "values": plain(v.values)}
                              for n, v in ds.variables.items()}
        out["consolidated" if consolidated else "listed"] = seen
    print(json.dumps(out, sort_keys=True))


{"make": make, "attrs": attrs, "nc": nc, "vars": variables}[sys.argv[1]](sys.argv[2])
