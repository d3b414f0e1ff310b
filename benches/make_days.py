"""The daily files of benches/kerchunk_many.sh and benches/icechunk_vs_xarray.sh: 365
netCDF-4 files DIR/day000.nc..day364.nc, each float tas(time=1, lat=180, lon=360) in
chunks of 1x90x180 (zlib 1 + shuffle) and its time, written by netCDF4-python.

    python make_days.py DIR
"""

import sys

import netCDF4
import numpy as np

rng = np.random.default_rng(5)
for d in range(365):
    with netCDF4.Dataset(f"{sys.argv[1]}/day{d:03d}.nc", "w") as ds:
        ds.createDimension("time", None)
        ds.createDimension("lat", 180)
        ds.createDimension("lon", 360)
        t = ds.createVariable("time", "f8", ("time",))
        t.units = "days since 2001-01-01"
        t.calendar = "standard"
        t[:] = [d]
        v = ds.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True, complevel=1,
                              shuffle=True, chunksizes=(1, 90, 180))
        v.units = "K"
        v[:] = (rng.standard_normal((1, 180, 360)) + 280).astype("f4")
