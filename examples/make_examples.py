"""Write the bundled example datasets (run from the repository root or anywhere).

ocean.zarr  - NCZarr written by netCDF4-python (netcdf-c 4.10.1): groups, an unlimited
              dimension, compressed and chunked variables, typed attributes.
xr.zarr     - the same content written by xarray as pure Zarr v2 with consolidated metadata.

Made with netCDF4 1.7.5 (netcdf-c 4.10.1), xarray, numpy; the stores are committed.
"""
import os
import shutil

import netCDF4
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
ocean = os.path.join(here, "ocean.zarr")
shutil.rmtree(ocean, ignore_errors=True)

ds = netCDF4.Dataset(f"file://{ocean}#mode=nczarr,file", "w", format="NETCDF4")
ds.title = "Example ocean surface fields"
ds.Conventions = "CF-1.8"
ds.createDimension("time", None)
ds.createDimension("lat", 6)
ds.createDimension("lon", 8)
t = ds.createVariable("time", "f8", ("time",))
t.units = "days since 2000-01-01"
t.standard_name = "time"
lat = ds.createVariable("lat", "f4", ("lat",))
lat.units = "degrees_north"
lon = ds.createVariable("lon", "f4", ("lon",))
lon.units = "degrees_east"
sst = ds.createVariable("sst", "f4", ("time", "lat", "lon"), zlib=True, complevel=4,
                        shuffle=True, chunksizes=(1, 3, 4), fill_value=np.float32(-999.0))
sst.units = "degC"
sst.long_name = "sea surface temperature"
sst.valid_range = np.array([-2.0, 40.0], dtype="f4")
flag = ds.createVariable("quality", "u1", ("time", "lat", "lon"))
flag.flag_values = np.array([0, 1, 2], dtype="u1")
flag.flag_meanings = "good suspect bad"
lat[:] = np.linspace(-25, 25, 6)
lon[:] = np.linspace(0, 315, 8)
t[:] = [0.0, 1.0, 2.0]
rng = np.random.default_rng(7)
field = (15 + 10 * np.cos(np.radians(lat[:]))[None, :, None] + rng.normal(0, 0.5, (3, 6, 8))).astype("f4")
field[1, 2, 3] = -999.0
sst[:] = field
flag[:] = rng.integers(0, 3, (3, 6, 8)).astype("u1")
g = ds.createGroup("station")
g.createDimension("obs", 4)
g.site = "Buoy 42"
depth = g.createVariable("depth", "i2", ("obs",))
depth.units = "m"
depth[:] = [1, 5, 10, 20]
name = g.createVariable("name", str, ("obs",))
name[:] = np.array(["surface", "upper", "mid", "deep"], dtype=object)
temp = g.createVariable("temp", "f8", ("time", "obs"))
temp[:] = np.round(rng.normal(12, 3, (3, 4)), 3)
ds.close()

xr_path = os.path.join(here, "xr.zarr")
shutil.rmtree(xr_path, ignore_errors=True)
try:
    import xarray as xr
    nc = os.path.join(here, "_tmp.nc")
    src = netCDF4.Dataset(f"file://{ocean}#mode=nczarr,file")
    with netCDF4.Dataset(nc, "w") as out:
        for name_, dim in src.dimensions.items():
            out.createDimension(name_, None if dim.isunlimited() else len(dim))
        for name_, var in src.variables.items():
            v = out.createVariable(name_, var.dtype, var.dimensions)
            v.setncatts({k: var.getncattr(k) for k in var.ncattrs() if k != "_FillValue"})
            v[:] = var[:]
        out.setncatts({k: src.getncattr(k) for k in src.ncattrs()})
    src.close()
    xr.open_dataset(nc, decode_cf=False).to_zarr(xr_path, zarr_format=2, consolidated=True, mode="w")
    os.remove(nc)
except ImportError:
    print("xarray not installed: xr.zarr not written")
