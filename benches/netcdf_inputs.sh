# Shared by benches/ncfile_vs_nccopy.sh and benches/nc4_vs_nccopy.sh: the inputs they
# copy and compile. Source it after setting `work` (a scratch directory) and `py` (a
# python3 with numpy).

# $work/b.file: NCZarr, as ncgen -4 writes it, float tas(365,180,360) in chunks
# 1x180x360, uncompressed, a climate-like field with noise (the CDL in $work/b.cdl).
make_tas_store() {
    cat > "$work/b.cdl" <<CDL
netcdf b {
dimensions:
	time = 365 ;
	lat = 180 ;
	lon = 360 ;
variables:
	float tas(time, lat, lon) ;
		tas:units = "K" ;
		tas:_ChunkSizes = 1, 180, 360 ;
}
CDL
    ncgen -4 -lb -o "file://$work/b.file#mode=nczarr,file" "$work/b.cdl"
    "$py" - "$work/b.file/tas" <<'PY'
import sys, numpy as np
path = sys.argv[1]
rng = np.random.default_rng(42)
base = (280 + 20 * np.cos(np.linspace(0, np.pi, 180)))[:, None] * np.ones((1, 360))
for t in range(365):
    (base + rng.standard_normal((180, 360)) * 2).astype('<f4').tofile(f"{path}/{t}.0.0")
PY
}

# $work/g.cdl: 10 million values in CDL, as benches/gen_vs_ncgen.sh writes it
# (classic-compatible).
make_big_cdl() {
    "$py" - "$work/g.cdl" <<'PY'
import sys
nt, ny, nx = 100, 200, 400
with open(sys.argv[1], "w") as f:
    f.write("netcdf g {\ndimensions:\n\ttime = %d ;\n\tlat = %d ;\n\tlon = %d ;\nvariables:\n" % (nt, ny, nx))
    f.write("\tfloat temp(time, lat, lon) ;\n\t\ttemp:units = \"K\" ;\n\tdouble time(time) ;\ndata:\n temp =\n")
    row = ", ".join("%.2f" % (270 + (i % 97) * 0.37) for i in range(nx))
    for t in range(nt):
        for y in range(ny):
            f.write("  " + row + ("," if (t, y) != (nt - 1, ny - 1) else " ;") + "\n")
    f.write(" time = " + ", ".join(str(t) for t in range(nt)) + " ;\n}\n")
PY
}

# $work/big.file: NCZarr float tas(1024,512,1024), 2 GiB, chunks 1x512x1024 (needs
# $work/b.cdl from make_tas_store).
make_2gib_store() {
    sed -e 's/= 365 ;/= 1024 ;/; s/= 180 ;/= 512 ;/; s/= 360 ;/= 1024 ;/; s/1, 180, 360/1, 512, 1024/' \
        "$work/b.cdl" > "$work/big.cdl"
    ncgen -4 -lb -o "file://$work/big.file#mode=nczarr,file" "$work/big.cdl"
    "$py" - "$work/big.file/tas" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(1)
plane = (280 + rng.standard_normal((512, 1024))).astype('<f4')
for t in range(1024):
    plane.tofile(f"{sys.argv[1]}/{t}.0.0")
PY
}

# $work/era.nc: a year of daily fields with coordinates, as a model writes them: float
# tas(time, 180, 360), time unlimited in days since 2001-01-01, chunks 1x180x360, zlib 1 +
# shuffle (netCDF4-python).
make_era_nc() {
    "$py" - "$work/era.nc" <<'PY'
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], "w") as d:
    d.createDimension("time", None); d.createDimension("lat", 180); d.createDimension("lon", 360)
    t = d.createVariable("time", "f8", ("time",)); t.units = "days since 2001-01-01"; t.calendar = "standard"
    la = d.createVariable("lat", "f4", ("lat",)); la.units = "degrees_north"
    lo = d.createVariable("lon", "f4", ("lon",)); lo.units = "degrees_east"
    v = d.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True, complevel=1, shuffle=True,
                         chunksizes=(1, 180, 360))
    v.units = "K"
    la[:] = np.linspace(-89.5, 89.5, 180); lo[:] = np.arange(0.5, 360, 1.0)
    rng = np.random.default_rng(42)
    base = (280 + 20 * np.cos(np.linspace(0, np.pi, 180)))[:, None] * np.ones((1, 360))
    for i in range(365):
        t[i] = i
        v[i] = (base + rng.standard_normal((180, 360)) * 2).astype("f4")
PY
}
