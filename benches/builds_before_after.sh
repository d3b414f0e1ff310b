#!/usr/bin/env bash
# Benchmark: two builds of the tools against each other, in the same run, each command of
# one build alternated with the other's (benches/measure.sh), on the jobs every tool runs:
# a header dump, a data dump, a rechunking copy, a netCDF-4 write with zlib, a join of
# 365 daily files, a subset by coordinate values, a comparison, kerchunk references to
# 365 files, and a CDL compile. Outputs of the two builds are compared byte for byte
# where they are text (dumps); copies are compared by nczcmp.
#
# For a refactoring that must not slow anything (issue 62: the jobs wing). Needs: python3
# with netCDF4 and numpy (NCZARR_PYTHON, default python3), GNU time.
# Usage: benches/builds_before_after.sh OLD_BIN_DIR NEW_BIN_DIR [RUNS]
set -euo pipefail
old=$1
new=$2
runs=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
py=${NCZARR_PYTHON:-python3}
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/beforeafter.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
measure_keep_output=1
measure_warmup=1
cd "$work"

"$py" - <<'PY'
import numpy as np, netCDF4
rng = np.random.default_rng(62)
with netCDF4.Dataset("tas.nc", "w") as d:
    d.createDimension("time", None); d.createDimension("lat", 180); d.createDimension("lon", 360)
    t = d.createVariable("time", "f8", ("time",)); t.units = "days since 2001-01-01"
    la = d.createVariable("lat", "f4", ("lat",)); la[:] = np.linspace(-89.5, 89.5, 180)
    lo = d.createVariable("lon", "f4", ("lon",)); lo[:] = np.linspace(0.5, 359.5, 360)
    v = d.createVariable("tas", "f4", ("time", "lat", "lon"), chunksizes=(1, 180, 360), zlib=True, complevel=1)
    t[:] = np.arange(73)
    v[:] = (rng.standard_normal((73, 180, 360)) * 10 + 280).astype("f4")
for day in range(365):
    with netCDF4.Dataset(f"day{day:03d}.nc", "w") as d:
        d.createDimension("time", None); d.createDimension("lat", 90); d.createDimension("lon", 180)
        t = d.createVariable("time", "f8", ("time",)); t.units = "days since 2001-01-01"; t[:] = [day]
        v = d.createVariable("tas", "f4", ("time", "lat", "lon"))
        v[:] = rng.standard_normal((1, 90, 180)).astype("f4")
with open("h400.cdl", "w") as f:
    f.write("netcdf h400 {\ndimensions:\n\tx = 10 ;\n\ty = 20 ;\nvariables:\n")
    for i in range(400):
        f.write(f'\tfloat v{i}(x, y) ;\n\t\tv{i}:units = "m s-1" ;\n\t\tv{i}:scale_factor = 0.5f ;\n')
    f.write("}\n")
with open("big.cdl", "w") as f:
    f.write("netcdf big {\ndimensions:\n\tn = 1000000 ;\nvariables:\n\tdouble v(n) ;\ndata:\n v = ")
    f.write(", ".join(f"{x:.6g}" for x in rng.standard_normal(1000000)))
    f.write(" ;\n}\n")
PY
"$new/nczgen" -o h400.zarr h400.cdl
"$new/nczcopy" tas.nc tas.zarr
days=(day*.nc)

report=()
bench() { # LABEL COMMAND... (@B@: the build's directory, @T@: old or new, @R@: the round)
    local label=$1
    shift
    local with_old=("${@//@B@/$old}") with_new=("${@//@B@/$new}")
    cmd_old=("${with_old[@]//@T@/old}")
    cmd_new=("${with_new[@]//@T@/new}")
    measure old new
    local same=same
    cmp -s "$work/out-old.txt" "$work/out-new.txt" || same=DIFFERENT
    report+=("$(printf '%-28s old %7.3f s %5d MiB | new %7.3f s %5d MiB | new/old %5.2f  %s' \
        "$label" "$t_old" "$m_old" "$t_new" "$m_new" "$(echo "$t_new / $t_old" | bc -l)" "$same")")
}

bench "nczdump -h (400 vars)" @B@/nczdump -h h400.zarr
bench "nczdump tas.nc" @B@/nczdump tas.nc
bench "nczcopy rechunk" @B@/nczcopy -c time/73,lat/30,lon/30 tas.nc "rechunk-@T@-@R@.zarr"
bench "nczcopy -k nc4 -d 1" @B@/nczcopy -k nc4 -d 1 -s tas.zarr "nc4-@T@-@R@.nc"
bench "nczcopy join 365" @B@/nczcopy "${days[@]}" "year-@T@-@R@.zarr"
bench "nczcopy --dim (values)" @B@/nczcopy --dim lat,-30.,30. --dim time,10,40 tas.nc "sub-@T@-@R@.zarr"
bench "nczcmp tas.nc tas.zarr" @B@/nczcmp tas.nc tas.zarr
bench "nczcopy -k kerchunk 365" @B@/nczcopy -k kerchunk "${days[@]}" "refs-@T@-@R@.json"
bench "nczgen 1M values" @B@/nczgen -o "gen-@T@-@R@.zarr" big.cdl

printf 'old: %s\nnew: %s\nmedian of %d runs each, alternated\n' "$old" "$new" "$runs"
printf '%s\n' "${report[@]}"
