#!/usr/bin/env bash
# Benchmark: nczdump against netcdf-c's ncdump on the same NCZarr dataset, in the same run.
#
# Dataset: float tas(time=365, lat=180, lon=360), chunks 1x180x360, uncompressed, written
# by netcdf-c's own ncgen (so ncdump 4.9.0 reads it natively) with pseudo-random data.
# Both outputs must be byte-identical. Target: nczdump takes at most 1/10 of ncdump's time.
#
# Needs: ncgen/ncdump (apt-get install netcdf-bin), python3 with numpy (PYTHON=...),
# a release build (cargo build --release). Usage: benches/dump_vs_ncdump.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
nczdump=${NCZDUMP:-$here/target/release/nczdump}
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/b.cdl" <<'CDL'
netcdf b {
dimensions:
	time = 365 ;
	lat = 180 ;
	lon = 360 ;
variables:
	float tas(time, lat, lon) ;
		tas:units = "K" ;
		tas:_ChunkSizes = 1, 180, 360 ;
}
CDL
ncgen -4 -lb -o "file://$work/b.file#mode=nczarr,file" "$work/b.cdl"
"$py" - "$work/b.file/tas" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(42)
for t in range(365):
    (rng.standard_normal((180, 360)) * 10 + 280).astype('<f4').tofile(f"{sys.argv[1]}/{t}.0.0")
PY

time_it() { # prints seconds of the median of $runs runs of "$@" > $out
    local out=$1; shift
    local times=()
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s.%N); "$@" > "$out"; t1=$(date +%s.%N)
        times+=("$(echo "$t1 - $t0" | bc -l)")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

url="file://$work/b.file#mode=nczarr,file"
t_nc=$(time_it "$work/ncdump.cdl" ncdump "$url")
t_ours=$(time_it "$work/nczdump.cdl" "$nczdump" "$url")
if cmp -s "$work/ncdump.cdl" "$work/nczdump.cdl"; then same=identical; else same=DIFFERENT; fi
ratio=$(echo "$t_ours / $t_nc" | bc -l)
printf 'dataset: float tas(365,180,360), chunks 1x180x360, %s MB of CDL\n' "$(($(stat -c %s "$work/ncdump.cdl") / 1000000))"
printf 'ncdump  (netcdf-c %s): %.3f s (median of %d)\n' "$(ncdump 2>&1 | sed -n 's/.*library version \([0-9.]*\).*/\1/p')" "$t_nc" "$runs"
printf 'nczdump: %.3f s (median of %d)\n' "$t_ours" "$runs"
printf 'ratio nczdump/ncdump: %.3f (target <= 0.100); outputs %s\n' "$ratio" "$same"
[ "$same" = identical ]
