#!/usr/bin/env bash
# Benchmark: OPeNDAP reads against netcdf-c 4.9.0's DAP2 client, on the same server in
# the same run (issue 63).
#
# The server is tests/cli/data/dap/fixture_server.py (answers as THREDDS does; its XDR
# comes from numpy, so the server is not what is measured) with FIXTURE_HUGE=1: huge.nc
# holds float v(time = 100, x = 250000), 100 MB (ncdump asks for it a row at a time: 100
# requests). pydap is not used here: its netCDF handler cannot cut an array of two
# or more dimensions, which ncdump asks for row by row. Cases, each the median of RUNS
# alternated runs:
#   dump     nczdump -v v URL > out   against   ncdump -v v URL > out   (target >= 5x);
#            the outputs must be byte-identical
#   copy     nczcopy -v v URL out.zarr  against  nccopy -V v URL out.nc (target >= 3x)
#   latency  nczcopy -v tas of era.nc directly and through benches/latency_proxy.py
#            (20 ms added to each request): target within 2x
#
# Needs: ncdump/nccopy (netcdf-bin), python3 with numpy (PYTHON=...), a release build.
# Usage: benches/opendap_vs_netcdf_c.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/dapbench.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { local t0=$EPOCHREALTIME; "$@"; echo "$EPOCHREALTIME - $t0" | bc -l; }
# The seconds a command takes, its standard output into FILE.
seconds_to() { local out=$1; shift; local t0=$EPOCHREALTIME; "$@" > "$out"; echo "$EPOCHREALTIME - $t0" | bc -l; }
ratio() { echo "scale=2; $1 / $2" | bc -l; }
wait_for() { for _ in $(seq 300); do [ -s "$1" ] && return; sleep 0.1; done; echo "no $1" >&2; exit 1; }

FIXTURE_HUGE=1 "$py" "$here/tests/cli/data/dap/fixture_server.py" 0 > "$work/server.port" 2>/dev/null &
pids+=($!)
wait_for "$work/server.port"
port=$(head -1 "$work/server.port")
url="http://127.0.0.1:$port/thredds/dodsC/huge.nc"

dump_ours=(); dump_theirs=(); copy_ours=(); copy_theirs=()
for r in $(seq "$runs"); do
    dump_theirs+=("$(seconds_to "$work/theirs.cdl" ncdump -v v "$url")")
    dump_ours+=("$(seconds_to "$work/ours.cdl" "$bin/nczdump" -v v "$url")")
    rm -rf "$work/o.zarr" "$work/o.nc"
    copy_theirs+=("$(seconds nccopy -V v "$url" "$work/o.nc")")
    copy_ours+=("$(seconds "$bin/nczcopy" -v v "$url" "$work/o.zarr")")
done
cmp -s "$work/ours.cdl" "$work/theirs.cdl" && same=yes || same=NO
t_do=$(printf '%s\n' "${dump_ours[@]}" | median); t_dt=$(printf '%s\n' "${dump_theirs[@]}" | median)
t_co=$(printf '%s\n' "${copy_ours[@]}" | median); t_ct=$(printf '%s\n' "${copy_theirs[@]}" | median)
echo "dump -v v (100 MB): nczdump ${t_do}s, ncdump ${t_dt}s: $(ratio "$t_dt" "$t_do")x (target >= 5x); outputs identical: $same"
echo "copy v (100 MB):    nczcopy ${t_co}s, nccopy ${t_ct}s: $(ratio "$t_ct" "$t_co")x (target >= 3x)"
/usr/bin/time -f "%M" -o "$work/rss" "$bin/nczcopy" -O --memory 64M -v v "$url" "$work/o.zarr"
echo "copy v with --memory 64M: peak RSS $(( $(cat "$work/rss") / 1024 )) MiB"

"$py" "$here/benches/latency_proxy.py" "127.0.0.1:$port" > "$work/proxy.port" &
pids+=($!)
wait_for "$work/proxy.port"
pport=$(head -1 "$work/proxy.port")
near=(); far=()
for r in $(seq "$runs"); do
    rm -rf "$work/n.zarr" "$work/f.zarr"
    near+=("$(seconds "$bin/nczcopy" -v v "http://127.0.0.1:$port/thredds/dodsC/huge.nc" "$work/n.zarr")")
    far+=("$(seconds "$bin/nczcopy" -v v "http://127.0.0.1:$pport/thredds/dodsC/huge.nc" "$work/f.zarr")")
done
requests=$(NCTRACING=1 "$bin/nczcopy" -O -v v "$url" "$work/n.zarr" 2>&1 | grep -c "trace: fetch: " || true)
t_n=$(printf '%s\n' "${near[@]}" | median); t_f=$(printf '%s\n' "${far[@]}" | median)
echo "copy v ($requests requests): direct ${t_n}s, behind 20 ms a request ${t_f}s: $(ratio "$t_f" "$t_n")x (target <= 2x)"
