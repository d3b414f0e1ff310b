#!/usr/bin/env bash
# Benchmark: a netCDF-4 file read by byte ranges from a web server 20 ms away
# (#mode=bytes): requests and time for the header (nczdump -h) and for one variable
# (nczdump -v tas, nczcopy), against netcdf-c on the same URL, same run.
#
# File: era.nc (benches/make_era.py: float tas(365,180,360), deflate 1 + shuffle, chunks
# 1x180x360, ~48 MB) on benches/range_server.py, which holds each request 20 ms.
# netcdf-c: Debian's ncdump 4.9.0 is tried (its build has no byte-range support: the
# line says so); netcdf-c 4.10.1 inside netCDF4-python reads the same URL (open = the
# header; then all of tas).
#
# Needs: python3 with numpy and netCDF4 (PYTHON=...), a release build.
# Usage: benches/remote_ncfile.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/ncremote.XXXXXX")
server_pid=""
finish() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap finish EXIT

"$py" "$here/benches/make_era.py" "$work"
log="$work/requests.log"
python3 "$here/benches/range_server.py" "$work" 0.020 "$log" > "$work/port" &
server_pid=$!
for _ in $(seq 1 50); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")/era.nc#mode=bytes"

# run NAME CMD...: median wall time of $runs runs (t_NAME) and requests of the last
# (r_NAME); stdout of the last run in $work/out-NAME.
run() {
    local name=$1; shift
    local times=()
    for _ in $(seq "$runs"); do
        : > "$log"
        local t0 t1
        t0=$(date +%s.%N)
        "$@" > "$work/out-$name" 2> "$work/err-$name" || { echo "FAILED" > "$work/out-$name"; }
        t1=$(date +%s.%N)
        times+=("$(echo "$t1 - $t0" | bc -l)")
        rm -rf "$work/copy.zarr"
    done
    printf -v "t_$name" '%s' "$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    printf -v "r_$name" '%s' "$(wc -l < "$log")"
}

cat > "$work/nc4py.py" <<'PY'
import sys, netCDF4
ds = netCDF4.Dataset(sys.argv[1])
if sys.argv[2] == "data":
    ds["tas"][:]
print(list(ds.variables))
PY

run ours_h "$bin/nczdump" -h "$url"
run ours_v "$bin/nczdump" -v tas "$url"
run ours_copy "$bin/nczcopy" "$url" "$work/copy.zarr"
run ncdump_h ncdump -h "$url"
run nc410_h "$py" "$work/nc4py.py" "$url" header
run nc410_v "$py" "$work/nc4py.py" "$url" data

same=identical
"$bin/nczdump" -v tas "$work/era.nc" | cmp -s - "$work/out-ours_v" || same=DIFFERENT
"$bin/nczdump" -h "$work/era.nc" | cmp -s - "$work/out-ours_h" || same=DIFFERENT
ratio() { echo "$1 / $2" | bc -l; }
printf 'file: era.nc (%d MB) by byte ranges, 20 ms per request; median of %d\n' \
    "$(($(stat -c %s "$work/era.nc") / 1000000))" "$runs"
if grep -q FAILED "$work/out-ncdump_h"; then
    printf 'ncdump 4.9.0 -h: cannot read it (%s)\n' "$(head -c 120 "$work/err-ncdump_h" | tr '\n' ' ')"
else
    printf 'ncdump 4.9.0 -h: %.3f s, %d requests\n' "$t_ncdump_h" "$r_ncdump_h"
fi
printf 'header: netcdf-c 4.10.1 open %.3f s, %d requests | nczdump -h %.3f s, %d requests: %.1fx\n' \
    "$t_nc410_h" "$r_nc410_h" "$t_ours_h" "$r_ours_h" "$(ratio "$t_nc410_h" "$t_ours_h")"
printf 'variable: netcdf-c 4.10.1 read tas %.3f s, %d requests | nczdump -v tas %.3f s, %d requests: %.1fx\n' \
    "$t_nc410_v" "$r_nc410_v" "$t_ours_v" "$r_ours_v" "$(ratio "$t_nc410_v" "$t_ours_v")"
printf 'copy: nczcopy URL out.zarr %.3f s, %d requests\n' "$t_ours_copy" "$r_ours_copy"
printf 'dumps: %s to the local file'"'"'s\n' "$same"
[ "$same" = identical ]
