#!/usr/bin/env bash
# Benchmark: many files into one dataset (issue 43), against ncrcat and xarray in the same
# run, outputs compared.
#
# 365 daily netCDF-4 files (float tas(1,180,360) each with its time coordinate, zlib 1 +
# shuffle, written by netCDF4-python) into one NCZarr store with chunks of 30x180x360:
# `nczcopy -c time/30,lat/180,lon/360 day*.nc year.zarr` against `ncrcat day*.nc
# year.nc` (to one netCDF-4 file; target >= 3x) and xarray's
# `open_mfdataset(parallel=False).to_zarr` with the same chunks (target >= 10x); our
# peak RSS < 300 MiB. Values compared by nczdump's text of tas (cksum).
#
# The two tools' defaults write different codecs: nczcopy keeps the inputs' zlib 1 +
# shuffle, xarray writes zarr-python's default, blosc lz4 with shuffle, which costs a
# quarter of zlib's CPU (level 1, one core: 1300 against 300 MB/s). So xarray is also
# measured writing zlib 1 + shuffle (`xarray_z`, the same stored bytes' codecs as ours),
# and nczcopy writing blosc lz4 after a shuffle
# (`ours_b`, xarray's default's codec): each pair writes the same kind of output.
#
# Needs: ncrcat (apt-get install nco), python3 with numpy, netCDF4, xarray, dask and
# zarr (PYTHON=...), a release build.
# Usage: benches/concat_vs_ncrcat.sh [RUNS]   (default 1: xarray takes a minute a run)
set -euo pipefail
runs=${1:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/concatbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/days"
"$py" - "$work/days" <<'PY'
import sys, numpy as np, netCDF4
rng = np.random.default_rng(42)
base = (280 + 20 * np.cos(np.linspace(0, np.pi, 180)))[:, None] * np.ones((1, 360))
for i in range(365):
    with netCDF4.Dataset(f"{sys.argv[1]}/day{i:03d}.nc", "w") as d:
        d.createDimension("time", None); d.createDimension("lat", 180); d.createDimension("lon", 360)
        t = d.createVariable("time", "f8", ("time",)); t.units = "days since 2001-01-01"
        la = d.createVariable("lat", "f4", ("lat",)); la[:] = np.linspace(-89.5, 89.5, 180)
        lo = d.createVariable("lon", "f4", ("lon",)); lo[:] = np.arange(0.5, 360, 1.0)
        v = d.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True, complevel=1, shuffle=True,
                             chunksizes=(1, 180, 360))
        t[0] = i
        v[0] = (base + rng.standard_normal((180, 360)) * 2).astype("f4")
PY
cat > "$work/xr.py" <<'PY'
import sys, glob, xarray as xr
ds = xr.open_mfdataset(sorted(glob.glob(sys.argv[1] + "/day*.nc")), parallel=False, combine="by_coords")
ds = ds.chunk({"time": 30, "lat": 180, "lon": 360})
ds.to_zarr(sys.argv[2], mode="w", zarr_format=2, consolidated=False)
PY
cat > "$work/xr_zlib.py" <<'PY'
import sys, glob, numcodecs, xarray as xr
ds = xr.open_mfdataset(sorted(glob.glob(sys.argv[1] + "/day*.nc")), parallel=False, combine="by_coords")
ds = ds.chunk({"time": 30, "lat": 180, "lon": 360})
enc = {"tas": {"compressors": [numcodecs.Zlib(level=1)], "filters": [numcodecs.Shuffle(elementsize=4)]}}
ds.to_zarr(sys.argv[2], mode="w", zarr_format=2, consolidated=False, encoding=enc)
PY

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
days=("$work"/days/day*.nc)
cmd_ncrcat=(ncrcat -O "${days[@]}" "$work/ncrcat-@R@.nc")
cmd_ours=("$bin/nczcopy" -c time/30,lat/180,lon/360 "${days[@]}" "$work/ours-@R@.zarr")
cmd_xarray=("$py" "$work/xr.py" "$work/days" "$work/xr-@R@.zarr")
cmd_ours_b=("$bin/nczcopy" --codec blosc:cname=lz4,clevel=5,shuffle=0 -c time/30,lat/180,lon/360 "${days[@]}" "$work/ours-b-@R@.zarr")
cmd_xarray_z=("$py" "$work/xr_zlib.py" "$work/days" "$work/xrz-@R@.zarr")
measure ncrcat ours xarray ours_b xarray_z

ratio() { echo "$1 / $2" | bc -l; }
tas() { "$bin/nczdump" -v tas "$1" | sed -n '/^ tas =/,$p' | cksum; }
ours_tas=$(tas "$work/ours-1.zarr")
s1=different; [ "$(tas "$work/ncrcat-1.nc")" = "$ours_tas" ] && s1=same
s2=different; [ "$(tas "$work/xr-1.zarr")" = "$ours_tas" ] && s2=same
printf '365 daily files -> one dataset (chunks 30x180x360): ncrcat %.2f s %d MiB | nczcopy %.2f s %d MiB (target < 300) | %.2fx (target >= 3x) values %s\n' \
    "$t_ncrcat" "$m_ncrcat" "$t_ours" "$m_ours" "$(ratio "$t_ncrcat" "$t_ours")" "$s1"
printf '  xarray open_mfdataset().to_zarr %.2f s %d MiB | %.2fx (target >= 10x) values %s\n' \
    "$t_xarray" "$m_xarray" "$(ratio "$t_xarray" "$t_ours")" "$s2"
s3=different; [ "$(tas "$work/xrz-1.zarr")" = "$ours_tas" ] && [ "$(tas "$work/ours-b-1.zarr")" = "$ours_tas" ] && s3=same
printf '  the same codecs: zlib 1 + shuffle: xarray %.2f s, nczcopy %.2f s, %.2fx | blosc lz4 + shuffle: xarray %.2f s, nczcopy %.2f s, %.2fx (target >= 10x) values %s\n' \
    "$t_xarray_z" "$t_ours" "$(ratio "$t_xarray_z" "$t_ours")" "$t_xarray" "$t_ours_b" "$(ratio "$t_xarray" "$t_ours_b")" "$s3"
[ "$s1" = same ] && [ "$s2" = same ] && [ "$s3" = same ] && [ "$m_ours" -lt 300 ]
