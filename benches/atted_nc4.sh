#!/usr/bin/env bash
# Benchmark: one attribute that grows the header of a 2 GB netCDF-4 file (issue 65):
# `nczatted -h -a comment,global,o,c,<600 characters>` against NCO's
# `ncatted -h -a ...` on copies of the same file, alternated, the median of RUNS;
# nczatted also with NCZARR_FSYNC=0 (ncatted makes no fsync; ours makes three, the
# order of its writes against a power loss).
#
# The file: float T(512, 1024, 1024) in 1x1024x1024 chunks, uncompressed (2 GiB),
# written by netCDF4-python; with KINDS="nc4 classic" also the same as a 64-bit offset
# file (whose header has no room: both tools rewrite it).
#
# Needs: PYTHON with numpy and netCDF4, NCO's ncatted, a build (NCZ_BIN, default
# target/release), about 8 GB free where TMPDIR is for each kind.
# Usage: benches/atted_nc4.sh [RUNS]   (default 3)
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" - "$work" <<'PY'
import sys, numpy as np, netCDF4
d = sys.argv[1]
import os
kinds = {"nc4": ("NETCDF4", "big4.nc"), "classic": ("NETCDF3_64BIT_OFFSET", "big3.nc")}
for kind, name in (kinds[k] for k in os.environ.get("KINDS", "nc4").split()):
    with netCDF4.Dataset(f"{d}/{name}", "w", format=kind) as f:
        f.createDimension("time", 512)
        f.createDimension("y", 1024)
        f.createDimension("x", 1024)
        opts = {"chunksizes": (1, 1024, 1024)} if kind == "NETCDF4" else {}
        v = f.createVariable("T", "f4", ("time", "y", "x"), **opts)
        v.units = "K"
        block = np.random.default_rng(0).random((1024, 1024), dtype="f4")
        for t in range(512):
            v[t] = block + t
PY
long=$(printf 'x%.0s' $(seq 600))
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for f in big4.nc big3.nc; do
    [ -e "$work/$f" ] || continue
    ours=() scratch=() theirs=()
    for _ in $(seq "$runs"); do
        for c in ours scratch theirs; do cp "$work/$f" "$work/$c.nc"; done
        sync
        t0=$EPOCHREALTIME; "$bin/nczatted" -h -a "comment,global,o,c,$long" "$work/ours.nc"; t1=$EPOCHREALTIME
        ours+=("$(echo "$t1 - $t0" | bc -l)")
        # As durable as ncatted makes it (no fsync: safe against a kill, not a power loss).
        t0=$EPOCHREALTIME; NCZARR_FSYNC=0 "$bin/nczatted" -h -a "comment,global,o,c,$long" "$work/scratch.nc"; t1=$EPOCHREALTIME
        scratch+=("$(echo "$t1 - $t0" | bc -l)")
        t0=$EPOCHREALTIME; ncatted -h -a "comment,global,o,c,$long" "$work/theirs.nc"; t1=$EPOCHREALTIME
        theirs+=("$(echo "$t1 - $t0" | bc -l)")
        for c in ours scratch; do
            cmp -s <(ncdump -h "$work/$c.nc" | tail -n +2) <(ncdump -h "$work/theirs.nc" | tail -n +2) || {
                echo "$f: the headers differ ($c)" >&2
                exit 1
            }
        done
        rm -f "$work/ours.nc" "$work/scratch.nc" "$work/theirs.nc"
    done
    o=$(printf '%s\n' "${ours[@]}" | median)
    z=$(printf '%s\n' "${scratch[@]}" | median)
    t=$(printf '%s\n' "${theirs[@]}" | median)
    printf '%s (%s bytes): nczatted %.4f s (%.2fx ncatted), with NCZARR_FSYNC=0 %.4f s (%.2fx), ncatted %.4f s\n' \
        "$f" "$(stat -c %s "$work/$f")" "$o" "$(echo "$t / $o" | bc -l)" "$z" "$(echo "$t / $z" | bc -l)" "$t"
done
