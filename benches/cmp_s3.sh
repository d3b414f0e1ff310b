#!/usr/bin/env bash
# Benchmark: nczcmp on two S3 stores behind 20 ms of latency a request (issue 45).
#
# benches/netcdf_inputs.sh's era.nc (float tas(365,180,360), chunks 1x180x360, zlib 1 +
# shuffle) copied twice as NCZarr into the local SeaweedFS (scripts/s3_server.sh), read
# through benches/latency_proxy.py (every request held 20 ms): `nczcmp -d A B`, its
# requests counted from NCTRACING's trace. Target: within 1.5x of (requests /
# concurrency 32) x 20 ms; exit status 0 (equal).
#
# Needs: python3 with numpy and netCDF4 (PYTHON=...), a release build.
# Usage: benches/cmp_s3.sh [RUNS]   (default 3)
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
for name in a b; do
    "$bin/nczcopy" "$work/era.nc" "$NCZARR_TEST_S3_ENDPOINT/$NCZARR_TEST_S3_PUBLIC_BUCKET/cmp-$$/$name.zarr#mode=nczarr,s3"
done
a="$proxy/$NCZARR_TEST_S3_PUBLIC_BUCKET/cmp-$$/a.zarr#mode=nczarr,s3"
b="$proxy/$NCZARR_TEST_S3_PUBLIC_BUCKET/cmp-$$/b.zarr#mode=nczarr,s3"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
times=()
for r in $(seq "$runs"); do
    t0=$EPOCHREALTIME
    NCTRACING=1 "$bin/nczcmp" -d "$a" "$b" 2>"$work/trace-$r"
    t1=$EPOCHREALTIME
    times+=("$(echo "$t1 - $t0" | bc -l)")
done
t=$(printf '%s\n' "${times[@]}" | median)
# The same without the proxy: what the server and the decoding cost with no latency.
direct=()
for r in $(seq "$runs"); do
    t0=$EPOCHREALTIME
    "$bin/nczcmp" -d "${a/$proxy/$NCZARR_TEST_S3_ENDPOINT}" "${b/$proxy/$NCZARR_TEST_S3_ENDPOINT}"
    t1=$EPOCHREALTIME
    direct+=("$(echo "$t1 - $t0" | bc -l)")
done
t0_direct=$(printf '%s\n' "${direct[@]}" | median)
requests=$(grep -c "trace: get\|trace: head\|trace: list" "$work/trace-1" || true)
bound=$(echo "$requests / 32 * 0.020" | bc -l)
printf 'nczcmp -d of two NCZarr copies of era.nc on S3 (+20 ms a request): %.3f s, %d requests (bound (requests/32) x 20 ms = %.3f s: %.2fx it, target <= 1.5x) equal\n' \
    "$t" "$requests" "$bound" "$(echo "$t / $bound" | bc -l)"
printf '  with no added latency %.3f s (the server, the transfer and the decoding): the latency cost %.3f s, %.2fx the bound\n' \
    "$t0_direct" "$(echo "$t - $t0_direct" | bc -l)" "$(echo "($t - $t0_direct) / $bound" | bc -l)"
(($(echo "$t / $bound <= 1.5" | bc -l)))
