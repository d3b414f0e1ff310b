#!/usr/bin/env bash
# Benchmark: appending one day to a year-long store (issue 43), against xarray's
# `to_zarr(append_dim="time")` in the same run, results compared.
#
# A pure Zarr v2 store of 365 days of float tas(time,180,360) (chunks 30x180x360,
# zlib 1 + shuffle from daily netCDF-4 files), and one of 35 days (its last chunk as
# partial as the year's: 5 of 30 days); the next day is appended to fresh copies of each: `nczcopy --append day365.nc year.zarr`. The target: the
# time is the day's, not the store's (year / month close to 1), and faster than xarray
# on the same year store. Values of the appended day compared by nczdump's text (cksum).
#
# Needs: python3 with numpy, netCDF4, xarray and zarr (PYTHON=...), a release build.
# Usage: benches/append_day.sh [RUNS]   (default 5)
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/appendbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/days"
"$py" - "$work/days" <<'PY'
import sys, numpy as np, netCDF4
rng = np.random.default_rng(42)
base = (280 + 20 * np.cos(np.linspace(0, np.pi, 180)))[:, None] * np.ones((1, 360))
for i in range(366):
    with netCDF4.Dataset(f"{sys.argv[1]}/day{i:03d}.nc", "w") as d:
        d.createDimension("time", None); d.createDimension("lat", 180); d.createDimension("lon", 360)
        t = d.createVariable("time", "f8", ("time",)); t.units = "days since 2001-01-01"
        t.calendar = "proleptic_gregorian"
        la = d.createVariable("lat", "f4", ("lat",)); la[:] = np.linspace(-89.5, 89.5, 180)
        lo = d.createVariable("lon", "f4", ("lon",)); lo[:] = np.arange(0.5, 360, 1.0)
        v = d.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True, complevel=1, shuffle=True,
                             chunksizes=(1, 180, 360))
        t[0] = i
        v[0] = (base + rng.standard_normal((180, 360)) * 2).astype("f4")
PY
day="$work/days/day365.nc"
mv "$day" "$work/"
day="$work/day365.nc"
"$bin/nczcopy" -k zarr -c time/30,lat/180,lon/360 -d 1 -s "$work"/days/day*.nc "$work/year.zarr"
"$bin/nczcopy" -k zarr -c time/30,lat/180,lon/360 -d 1 -s "$work"/days/day00*.nc "$work"/days/day01*.nc \
    "$work"/days/day02[0-9].nc "$work"/days/day03[0-4].nc "$work/month.zarr"
for r in $(seq "$runs") rss; do
    for s in year month; do cp -r "$work/$s.zarr" "$work/ours-$s-$r.zarr"; done
    cp -r "$work/year.zarr" "$work/xr-year-$r.zarr"
done
cat > "$work/xr.py" <<'PY'
import sys, xarray as xr
xr.open_dataset(sys.argv[1]).drop_encoding().to_zarr(sys.argv[2], append_dim="time", consolidated=True)
PY

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
cmd_year=("$bin/nczcopy" --append "$day" "$work/ours-year-@R@.zarr")
cmd_month=("$bin/nczcopy" --append "$work/days/day035.nc" "$work/ours-month-@R@.zarr")
cmd_xarray=("$py" "$work/xr.py" "$day" "$work/xr-year-@R@.zarr")
measure year month xarray

ratio() { echo "$1 / $2" | bc -l; }
last() { "$bin/nczdump" --dim time,-1 -v tas "$1" | sed -n '/^ tas =/,$p' | cksum; }
want=$("$bin/nczdump" -v tas "$day" | sed -n '/^ tas =/,$p' | cksum)
s1=different; [ "$(last "$work/ours-year-1.zarr")" = "$want" ] && s1=same
s2=different; [ "$(last "$work/xr-year-1.zarr")" = "$want" ] && s2=same
printf 'one day appended: to 365 days %.3f s | to 35 days %.3f s | year/month %.2f (target ~1: the day'"'"'s cost) values %s\n' \
    "$t_year" "$t_month" "$(ratio "$t_year" "$t_month")" "$s1"
printf '  xarray to_zarr(append_dim) to 365 days %.3f s %d MiB | %.2fx (ours %d MiB) values %s\n' \
    "$t_xarray" "$m_xarray" "$(ratio "$t_xarray" "$t_year")" "$m_year" "$s2"
[ "$s1" = same ] && [ "$s2" = same ]
