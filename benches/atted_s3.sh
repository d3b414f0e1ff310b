#!/usr/bin/env bash
# Benchmark: one attribute of a 10,000-chunk Zarr store on S3 behind 20 ms a request
# (issue 65): `nczatted -h -a units,T,o,c,degC` (and with NCO's history line, the
# default), its requests counted at the proxy, against zarr-python 3 setting the same
# attribute (`g["T"].attrs["units"] = "degC"`) and, for the same result (consolidated
# metadata kept true), `zarr.consolidate_metadata` after it.
#
# The store: float T(time=100, y=100, x=100) in 1x10x10 chunks, NCZarr with
# consolidated metadata (.zmetadata) and the same as Zarr version 3, in the local
# SeaweedFS (scripts/s3_server.sh), each edit through benches/latency_proxy.py.
# Target: at most 4 requests.
#
# Needs: PYTHON with numpy and netCDF4; ICE_PYTHON with zarr 3 and obstore (the
# Python 3.12 venv of .ci/run); a build (NCZ_BIN, default target/release).
# Usage: benches/atted_s3.sh [RUNS]   (default 3)
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
ice_py=${ICE_PYTHON:-$HOME/.cache/nczarr-tools/venv312/bin/python}
cd "$here"
# shellcheck source=benches/s3_behind_latency.sh
. benches/s3_behind_latency.sh
export AWS_ACCESS_KEY_ID="$NCZARR_TEST_S3_KEY" AWS_SECRET_ACCESS_KEY="$NCZARR_TEST_S3_SECRET"
# A second proxy, logging each request line: the counts.
log="$work/requests.log"
: >"$log"
python3 benches/latency_proxy.py "${NCZARR_TEST_S3_ENDPOINT#http://}" "$log" >"$work/counting.port" 2>/dev/null &
counting_pid=$!
trap 'kill $counting_pid 2>/dev/null || true; finish' EXIT
for _ in $(seq 1 50); do [ -s "$work/counting.port" ] && break; sleep 0.1; done
counting="http://127.0.0.1:$(cat "$work/counting.port")"

"$py" - "$work/t.nc" <<'EOF'
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], "w") as d:
    for n in ("time", "y", "x"):
        d.createDimension(n, 100)
    v = d.createVariable("T", "f4", ("time", "y", "x"), chunksizes=(1, 10, 10))
    v.units = "K"
    v[:] = np.arange(100 * 100 * 100, dtype="f4").reshape(100, 100, 100)
EOF
bucket=$NCZARR_TEST_S3_BUCKET
declare -A urls
for kind in nczarr zarr3; do
    "$bin/nczcopy" -k "$kind" "$work/t.nc" "$NCZARR_TEST_S3_ENDPOINT/$bucket/atted-$$/$kind.zarr#mode=$kind,s3"
    urls[$kind]="atted-$$/$kind.zarr"
done
chunks=$("$bin/zmapdump" list "$NCZARR_TEST_S3_ENDPOINT/$bucket/atted-$$/nczarr.zarr#mode=nczarr,s3" | grep -c ' T/[0-9]' || true)
echo "store: T(100,100,100) in 1x10x10 chunks: $chunks chunk objects (NCZarr)"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# run NAME COMMAND...: the median time of RUNS runs, the requests of the last. `@V@`
# in the command is a new value each run (an edit that changes nothing writes nothing).
value=0
run() {
    local name=$1 t0 t1 times=()
    shift
    for _ in $(seq "$runs"); do
        : >"$log"
        value=$((value + 1))
        t0=$EPOCHREALTIME
        "${@//@V@/$value}" >/dev/null
        t1=$EPOCHREALTIME
        times+=("$(echo "$t1 - $t0" | bc -l)")
    done
    printf '%-58s %6.3f s  %3d requests\n' "$name" "$(printf '%s\n' "${times[@]}" | median)" "$(wc -l <"$log")"
}
zarr_python() {
    "$ice_py" -W ignore - "$counting" "$bucket" "$1" "$2" "$3" <<'EOF'
import sys, os, zarr, obstore.store
endpoint, bucket, prefix, consolidate = sys.argv[1:5]
s3 = obstore.store.S3Store(bucket, prefix=prefix, endpoint=endpoint, region="us-east-1",
    access_key_id=os.environ["AWS_ACCESS_KEY_ID"], secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
    client_options={"allow_http": True})
store = zarr.storage.ObjectStore(s3)
g = zarr.open_group(store, mode="r+")
g["T"].attrs["units"] = f"degC {sys.argv[5]}"
if consolidate == "yes":
    zarr.consolidate_metadata(store)
EOF
}
for kind in nczarr zarr3; do
    url="$counting/$bucket/${urls[$kind]}#mode=$kind,s3"
    run "$kind: nczatted -h (no history)" "$bin/nczatted" -h -a "units,T,o,c,degC @V@" "$url"
    run "$kind: nczatted (NCO's history line too)" "$bin/nczatted" -a "units,T,o,c,degC @V@" "$url"
    run "$kind: zarr-python attrs (consolidated left stale)" zarr_python "${urls[$kind]}" no @V@
    run "$kind: zarr-python attrs + consolidate_metadata" zarr_python "${urls[$kind]}" yes @V@
done
