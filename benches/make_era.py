"""The benchmark dataset of the netCDF-file benchmarks: float tas(time=365, lat=180,
lon=360), smooth fields plus noise, written by netCDF4-python as a netCDF-4 file with
deflate level 1 + shuffle, chunks 1x180x360 (era.nc, ~48 MB), and as an uncompressed
contiguous copy (era_raw.nc). Usage: make_era.py DIR"""
import sys

import netCDF4
import numpy as np

work = sys.argv[1]
nt, ny, nx = 365, 180, 360
base = (280 + 20 * np.cos(np.linspace(0, np.pi, ny)))[:, None] * np.ones((1, nx))
for name, kw in [("era.nc", dict(zlib=True, complevel=1, shuffle=True, chunksizes=(1, ny, nx))),
                 ("era_raw.nc", dict(contiguous=True))]:
    with netCDF4.Dataset(f"{work}/{name}", "w", format="NETCDF4") as ds:
        ds.createDimension("time", nt)
        ds.createDimension("lat", ny)
        ds.createDimension("lon", nx)
        v = ds.createVariable("tas", "f4", ("time", "lat", "lon"), **kw)
        v.units = "K"
        r = np.random.default_rng(42)
        for t in range(nt):
            v[t] = (base + r.standard_normal((ny, nx)) * 2).astype("f4")
