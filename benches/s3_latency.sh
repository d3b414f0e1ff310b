#!/usr/bin/env bash
# Benchmark: nczdump, and nczcopy from S3 to S3, with 20 ms of added latency per
# request: our default concurrency against one request at a time, same run, same dataset.
#
# A local SeaweedFS (scripts/s3_server.sh) holds float v(1000, 50, 50) in 1000 chunks
# of 1x50x50 (10 kB each); a small TCP proxy in front of it holds every request for
# 20 ms before passing it on, like a distant region. Both dumps must be identical, and
# so must every copy's. Target: default concurrency at least 10x faster than
# concurrency 1, for the dump and for the copy.
#
# Needs: python3, curl, a release build (cargo build --release).
# Usage: benches/s3_latency.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
nczgen=${NCZGEN:-$here/target/release/nczgen}
nczdump=${NCZDUMP:-$here/target/release/nczdump}
nczcopy=${NCZCOPY:-$here/target/release/nczcopy}
cd "$here"
# shellcheck source=benches/s3_behind_latency.sh
. benches/s3_behind_latency.sh

python3 - "$work/v.cdl" <<'PY'
import random, sys
random.seed(3)
with open(sys.argv[1], "w") as f:
    f.write("netcdf lat {\ndimensions:\n\tt = 1000 ;\n\ty = 50 ;\n\tx = 50 ;\nvariables:\n")
    f.write("\tfloat v(t, y, x) ;\n\t\tv:_ChunkSizes = 1, 50, 50 ;\ndata:\n v = ")
    f.write(", ".join("%.2f" % random.uniform(-50, 50) for _ in range(1000 * 50 * 50)))
    f.write(" ;\n}\n")
PY
export AWS_ACCESS_KEY_ID="$NCZARR_TEST_S3_KEY" AWS_SECRET_ACCESS_KEY="$NCZARR_TEST_S3_SECRET"
key="bench-$$/lat.zarr"
"$nczgen" -o "$NCZARR_TEST_S3_ENDPOINT/$NCZARR_TEST_S3_BUCKET/$key#mode=nczarr,s3" "$work/v.cdl"
url="$proxy/$NCZARR_TEST_S3_BUCKET/$key#mode=nczarr,s3"

time_it() { # median wall seconds of $runs runs of "$@" > $out
    local out=$1; shift
    local times=()
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s.%N); "$@" > "$out"; t1=$(date +%s.%N)
        times+=("$(echo "$t1 - $t0" | bc -l)")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

t_default=$(time_it "$work/default.cdl" "$nczdump" -v v "$url")
t_one=$(time_it "$work/one.cdl" "$nczdump" -v v "$url&concurrency=1")
if cmp -s "$work/default.cdl" "$work/one.cdl"; then same=identical; else same=DIFFERENT; fi
printf 'variable: float v(1000,50,50), 1000 chunks of 10 kB; 20 ms added per request\n'
printf 'nczdump, concurrency 1:       %.3f s (median of %d)\n' "$t_one" "$runs"
printf 'nczdump, default concurrency: %.3f s (median of %d)\n' "$t_default" "$runs"
printf 'speed-up: %.1fx (target >= 10x); outputs %s\n' "$(echo "$t_one / $t_default" | bc -l)" "$same"

# The same variable copied from S3 to S3 through the proxy (both sides delayed), each run
# to a new key; every copy must dump as the input does.
# (time_it runs in a subshell: the key of the last copy is passed on in a file.)
copy_to_new() { # FRAGMENT: copy with the fragment added to both URLs
    local key
    key="bench-$$/copy-$(date +%s%N).zarr"
    "$nczcopy" --quiet "$url$1" "$proxy/$NCZARR_TEST_S3_BUCKET/$key#mode=nczarr,s3$1"
    echo "$key" > "$work/last_copy"
}
check_copy() {
    local copy="$NCZARR_TEST_S3_ENDPOINT/$NCZARR_TEST_S3_BUCKET/$(cat "$work/last_copy")#mode=nczarr,s3"
    "$nczdump" -n lat -v v "$copy" | cmp -s - "$work/default.cdl" || copy_same=DIFFERENT
}
copy_same=identical
t_copy_default=$(time_it /dev/null copy_to_new "")
check_copy
t_copy_one=$(time_it /dev/null copy_to_new "&concurrency=1")
check_copy
printf 'nczcopy S3 -> S3, concurrency 1:       %.3f s (median of %d)\n' "$t_copy_one" "$runs"
printf 'nczcopy S3 -> S3, default concurrency: %.3f s (median of %d)\n' "$t_copy_default" "$runs"
printf 'speed-up: %.1fx (target >= 10x); copies %s\n' "$(echo "$t_copy_one / $t_copy_default" | bc -l)" "$copy_same"
[ "$same" = identical ] && [ "$copy_same" = identical ]
