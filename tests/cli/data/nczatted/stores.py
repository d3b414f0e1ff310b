"""Zarr stores for nczatted's tests, and what xarray and netCDF4-python read of them.

    stores.py make DIR          xarray's consolidated Zarr v2 and v3 stores DIR/xr2.zarr,
                                DIR/xr3.zarr (float tas with a NaN fill, int flag, attrs)
    stores.py attrs STORE       JSON: xarray's reading of STORE's attributes (global and
                                per variable, consolidated when the store is), and the
                                values of every variable
    stores.py nc STORE          JSON: netCDF4-python's reading of the NCZarr STORE's
                                attributes, with their types
    stores.py nc4 FILE          a netCDF-4 file written by netCDF4-python (a.cdl's variables)
    stores.py ncfile FILE       JSON: netCDF4-python's and h5py's reading of the netCDF file's
                                attributes (netCDF4-python: with their types; h5py: every
                                attribute of every object, netcdf-c's own too)
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


def nc4(path):
    import netCDF4
    with netCDF4.Dataset(path, "w", format="NETCDF4") as f:
        f.createDimension("time", None)
        f.createDimension("x", 3)
        t = f.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        v = f.createVariable("T", "f4", ("time", "x"), fill_value=-999.0)
        v.units = "K"
        v.setncattr("scale", np.float32(2))
        v.valid_range = np.array([0, 400], dtype="f4")
        n = f.createVariable("n", "i2", ("x",))
        n.flags = np.array([1, 2], dtype="i2")
        sub = f.createVariable("sub", "i4", ())
        sub.long_name = "a variable named like nothing else"
        f.title = "attribute edits"
        f.history = "made by netCDF4-python"
        t[:] = [0, 1]
        v[:] = np.array([[1, 2, 3], [4, 5, -999]], dtype="f4")
        n[:] = [1, 2, 3]
        sub.assignValue(7)


def ncfile(path):
    import h5py
    import netCDF4
    d = netCDF4.Dataset(path)
    out = {"global": {k: [plain(d.getncattr(k)), type(d.getncattr(k)).__name__] for k in d.ncattrs()}}
    for name, v in d.variables.items():
        out[name] = {k: [plain(v.getncattr(k)), str(getattr(v.getncattr(k), "dtype", type(v.getncattr(k)).__name__))]
                     for k in v.ncattrs()}
    d.close()
    h5 = {}
    def seen(name, obj):
        h5[name] = sorted(k for k in obj.attrs.keys())
    with h5py.File(path, "r") as f:
        h5["/"] = sorted(f.attrs.keys())
        f.visititems(seen)
    out["h5py"] = h5
    print(json.dumps(out, sort_keys=True))


{"make": make, "attrs": attrs, "nc": nc, "vars": variables, "nc4": nc4, "ncfile": ncfile}[sys.argv[1]](sys.argv[2])
