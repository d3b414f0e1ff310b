#!/usr/bin/env bash
# Benchmark: OPeNDAP reads against netcdf-c 4.9.0's DAP2 client, on the same server in
# the same run (issue 63).
#
# A pydap server (PYDAP=..., `pip install "pydap[server,netcdf]"`) serves a netCDF-4 file
# holding `double big(n = 13107200)` (100 MiB; 1-D, because pydap 3.5 cannot cut an array
# of two or more dimensions) and `float tas(365, 90, 180)`. Cases, each timed as the
# median of RUNS alternated runs:
#   dump   nczdump -v big URL > out   against   ncdump -v big URL > out   (target >= 5x)
#   copy   nczcopy -v big URL out.zarr  against  nccopy -V big URL out.nc (target >= 3x)
# The dump outputs must be byte-identical. Then, against the THREDDS-like fixture server
# (tests/cli/data/dap/fixture_server.py: its era.nc, a year of daily 90x180 fields):
#   latency  nczcopy -v tas URL out.zarr directly and through benches/latency_proxy.py
#            (20 ms added to each request): target within 2x.
#
# Needs: ncdump/nccopy (netcdf-bin), python3 with numpy and netCDF4 (PYTHON=...), pydap,
# a release build. Usage: benches/opendap_vs_netcdf_c.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
pydap=${PYDAP:-$(dirname "$py")/pydap}
work=$(mktemp -d "${TMPDIR:-/tmp}/dapbench.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { local t0=$EPOCHREALTIME; "$@"; echo "$EPOCHREALTIME - $t0" | bc -l; }

mkdir -p "$work/data"
"$py" - "$work/data/big.nc" <<'PY'
import sys, numpy as np, netCDF4
d = netCDF4.Dataset(sys.argv[1], "w", format="NETCDF4")
d.createDimension("n", 13107200)
v = d.createVariable("big", "f8", ("n",))
v[:] = np.random.default_rng(1).normal(280, 10, 13107200)
d.close()
PY
port=$(free_port)
"$pydap" -d "$work/data" -p "$port" --workers 2 --threads 4 >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/big.nc.dds" >/dev/null && break; sleep 0.2; done
url="http://127.0.0.1:$port/big.nc"

ratio() { echo "scale=2; $1 / $2" | bc -l; }
dump_ours=(); dump_theirs=(); copy_ours=(); copy_theirs=()
for r in $(seq "$runs"); do
    dump_theirs+=("$(seconds ncdump -v big "$url" > "$work/theirs.cdl")")
    dump_ours+=("$(seconds "$bin/nczdump" -v big "$url" > "$work/ours.cdl")")
    rm -rf "$work/o.zarr" "$work/o.nc"
    copy_theirs+=("$(seconds nccopy -V big "$url" "$work/o.nc")")
    copy_ours+=("$(seconds "$bin/nczcopy" -v big "$url" "$work/o.zarr")")
done
cmp -s "$work/ours.cdl" "$work/theirs.cdl" && same=yes || same=NO
t_do=$(printf '%s\n' "${dump_ours[@]}" | median); t_dt=$(printf '%s\n' "${dump_theirs[@]}" | median)
t_co=$(printf '%s\n' "${copy_ours[@]}" | median); t_ct=$(printf '%s\n' "${copy_theirs[@]}" | median)
echo "dump -v big (100 MiB): nczdump ${t_do}s, ncdump ${t_dt}s: $(ratio "$t_dt" "$t_do")x (target >= 5x); outputs identical: $same"
echo "copy big (100 MiB):    nczcopy ${t_co}s, nccopy ${t_ct}s: $(ratio "$t_ct" "$t_co")x (target >= 3x)"

# Latency: the fixture server directly and behind 20 ms per request.
fport_file="$work/fixture.port"
"$py" "$here/tests/cli/data/dap/fixture_server.py" 0 > "$fport_file" 2>/dev/null &
pids+=($!)
for _ in $(seq 100); do [ -s "$fport_file" ] && break; sleep 0.1; done
fport=$(head -1 "$fport_file")
"$py" "$here/benches/latency_proxy.py" "127.0.0.1:$fport" > "$work/proxy.port" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/proxy.port" ] && break; sleep 0.1; done
pport=$(head -1 "$work/proxy.port")
near=(); far=()
for r in $(seq "$runs"); do
    rm -rf "$work/n.zarr" "$work/f.zarr"
    near+=("$(seconds "$bin/nczcopy" -v tas "http://127.0.0.1:$fport/thredds/dodsC/era.nc" "$work/n.zarr")")
    far+=("$(seconds "$bin/nczcopy" -v tas "http://127.0.0.1:$pport/thredds/dodsC/era.nc" "$work/f.zarr")")
done
requests=$(NCTRACING=1 "$bin/nczcopy" -O -v tas "http://127.0.0.1:$fport/thredds/dodsC/era.nc" "$work/n.zarr" 2>&1 | grep -c "trace: fetch: ")
t_n=$(printf '%s\n' "${near[@]}" | median); t_f=$(printf '%s\n' "${far[@]}" | median)
echo "copy tas (24 MiB, $requests requests): direct ${t_n}s, behind 20 ms ${t_f}s: $(ratio "$t_f" "$t_n")x (target <= 2x)"
