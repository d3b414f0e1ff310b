#!/usr/bin/env bash
# Benchmark: one grid point's whole time series (issue 42) from a netCDF-4 file in an S3
# object, behind 20 ms of added latency per request, against netCDF4-python reading the
# same point through `#mode=bytes` in the same run.
#
# The file is benches/netcdf_inputs.sh's era.nc (float tas(365,180,360), chunks
# 1x180x360, zlib 1 + shuffle: a series touches all 365 chunks) in the local SeaweedFS's
# public bucket (scripts/s3_server.sh); benches/latency_proxy.py holds every request
# 20 ms. Ours: `nczcopy --dim lat,45. --dim lon,10. -V tas URL#mode=bytes,s3 point.nc`,
# its requests counted from NCTRACING's trace; netCDF4-python (netcdf-c 4.10 inside):
# `Dataset(URL#mode=bytes)["tas"][:, ilat, ilon]`. Then the same with the file rechunked
# for series (365x10x10: the point is one chunk). Targets: our time within 1.5x of
# (requests / concurrency 32) x 20 ms, and faster than netCDF4-python; values equal. With
# 1x180x360 chunks the point's chunks are the whole file (57 MB): bandwidth and
# decompression, not latency, set the time there.
#
# Needs: python3 with numpy and netCDF4 (PYTHON=...), a release build.
# Usage: benches/subset_s3_point.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
cd "$here"
# shellcheck source=benches/s3_behind_latency.sh
. benches/s3_behind_latency.sh

# shellcheck source=benches/netcdf_inputs.sh
. "$here/benches/netcdf_inputs.sh"
make_era_nc
export AWS_ACCESS_KEY_ID="$NCZARR_TEST_S3_KEY" AWS_SECRET_ACCESS_KEY="$NCZARR_TEST_S3_SECRET"
# The same data chunked for series (365x10x10): a point is then one chunk.
"$bin/nczcopy" -c time/365,lat/10,lon/10 "$work/era.nc" "$work/era_ts.nc"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
all_same=1
for file in era.nc era_ts.nc; do
    key="bench-$$/$file"
    "$bin/nczcopy" "$work/$file" "$NCZARR_TEST_S3_ENDPOINT/$NCZARR_TEST_S3_PUBLIC_BUCKET/$key#mode=bytes,s3"
    url="$proxy/$NCZARR_TEST_S3_PUBLIC_BUCKET/$key"
    ours=()
    for r in $(seq "$runs"); do
        rm -f "$work/point-$r.nc"
        t0=$EPOCHREALTIME
        NCTRACING=1 "$bin/nczcopy" --dim lat,45. --dim lon,10. -V tas "$url#mode=bytes,s3" "$work/point-$r.nc" 2>"$work/trace-$r"
        t1=$EPOCHREALTIME
        ours+=("$(echo "$t1 - $t0" | bc -l)")
    done
    t_ours=$(printf '%s\n' "${ours[@]}" | median)
    requests=$(grep -c "trace: get\|trace: head" "$work/trace-1" || true)
    bytes=$(grep "trace: get" "$work/trace-1" | sed -n 's/.*-> \([0-9]*\) bytes.*/\1/p' | paste -sd+ | bc)
    read -r t_py same < <("$py" - "$url#mode=bytes" "$work/point-1.nc" "$runs" <<'PY'
import sys, time, numpy as np, netCDF4
url, ours, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    with netCDF4.Dataset(url) as d:
        ilat = int(np.abs(d["lat"][:] - 45.0).argmin()); ilon = int(np.abs(d["lon"][:] - 10.0).argmin())
        series = d["tas"][:, ilat, ilon]
    times.append(time.perf_counter() - t0)
with netCDF4.Dataset(ours) as d:
    mine = d["tas"][:, 0, 0]
print(sorted(times)[len(times) // 2], "same" if np.array_equal(np.ma.filled(series), np.ma.filled(mine)) else "DIFFERENT")
PY
    )
    bound=$(echo "$requests / 32 * 0.020" | bc -l)
    printf '%s: one point, 365 days, from S3 (+20 ms a request): nczcopy --dim %.3f s, %d requests, %d bytes (bound (requests/32) x 20 ms = %.3f s: %.1fx it) | netCDF4-python #mode=bytes %.3f s | %.2fx values %s\n' \
        "$file" "$t_ours" "$requests" "$bytes" "$bound" "$(echo "$t_ours / $bound" | bc -l)" "$t_py" "$(echo "$t_py / $t_ours" | bc -l)" "$same"
    [ "$same" = same ] || all_same=0
done
[ "$all_same" = 1 ]
