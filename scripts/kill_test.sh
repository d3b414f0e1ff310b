#!/usr/bin/env bash
# Crash safety (issue 13): kill -9 nczgen and nczcopy at random points while they
# replace an existing dataset (a directory store and a zip archive), KILLS times each,
# and check after every kill that
#   - the existing dataset is byte-identical (same file list and checksums),
#   - no other complete-looking dataset appeared beside it (only .NAME.tmp-PID /
#     .NAME.old-PID leftovers of the killed run),
# and after each next, uninterrupted run that it succeeded, replaced the dataset, and
# left no leftovers of any killed run.
# Usage: scripts/kill_test.sh [KILLS]   (binaries: NCZ_BIN, default target/release)
set -euo pipefail
kills=${1:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
work=$(mktemp -d "${TMPDIR:-/tmp}/killtest.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A CDL big enough that a run takes a few hundred milliseconds.
{
    echo "netcdf big {"
    echo "dimensions:"
    echo "	t = 40 ;"
    echo "	x = 20000 ;"
    echo "variables:"
    echo "	double v(t, x) ;"
    echo "		v:_ChunkSizes = 1, 20000 ;"
    echo "		v:_DeflateLevel = 1 ;"
    echo "	int w(t) ;"
    echo "data:"
    printf " v = "
    seq -s ', ' 1 800000
    echo " ;"
    echo " w = $(seq -s ', ' 40) ;"
    echo "}"
} > "$work/big.cdl"
"$bin/nczgen" -o "$work/source.zarr" "$work/big.cdl"

snapshot() { # path: a listing with checksums of a directory tree or a file
    if [ -d "$1" ]; then (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha1sum); else sha1sum < "$1"; fi
}

leftovers() { # dir name: what killed runs left beside NAME
    find "$1" -maxdepth 1 -name ".$2.*" | wc -l
}

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

trial() { # label target command...: KILLS kills, each followed by a check
    local label=$1 target=$2; shift 2
    local dir name before i t
    dir=$(dirname "$target"); name=$(basename "$target")
    before=$(snapshot "$target")
    # One uninterrupted run's length: kills land anywhere in it.
    local t0 t1 span
    t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    span=$(( (t1 - t0) / 1000000 ))
    local killed=0
    for i in $(seq "$kills"); do
        "$@" >/dev/null 2>&1 &
        local pid=$!
        # Anywhere from start-up to the final rename.
        t=$(awk -v r=$RANDOM -v s="$span" 'BEGIN { printf "%.3f", (r % 1000) / 1000 * s / 1000 }')
        sleep "$t"
        if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
        wait "$pid" 2>/dev/null || true
        # The run finished before the kill: it replaced the dataset with the same content.
        [ "$(snapshot "$target")" = "$before" ] || fail "$label kill $i ($t s): $target changed"
        local others
        others=$(find "$dir" -maxdepth 1 -name "$name*" ! -name "$name" | wc -l)
        [ "$others" -eq 0 ] || fail "$label kill $i: another dataset named like $name appeared"
    done
    local stale; stale=$(leftovers "$dir" "$name")
    "$@" >/dev/null 2>&1 || fail "$label: the run after the kills failed"
    [ "$(snapshot "$target")" = "$before" ] || fail "$label: the uninterrupted run wrote something else"
    [ "$(leftovers "$dir" "$name")" -eq 0 ] || fail "$label: leftovers of killed runs remain after a clean run"
    echo "$label: $killed of $kills runs killed mid-way (a run takes ${span} ms; $stale leftovers before the clean run, 0 after)"
}

mkdir -p "$work/d" "$work/z"
"$bin/nczgen" -o "$work/d/out.zarr" "$work/big.cdl"
trial "nczgen -> directory" "$work/d/out.zarr" "$bin/nczgen" -o "$work/d/out.zarr" "$work/big.cdl"
"$bin/nczgen" -o "$work/z/out.zip" "$work/big.cdl"
trial "nczgen -> zip" "$work/z/out.zip" "$bin/nczgen" -o "$work/z/out.zip" "$work/big.cdl"
"$bin/nczcopy" "$work/source.zarr" "$work/d/copy.zarr"
trial "nczcopy -> directory" "$work/d/copy.zarr" "$bin/nczcopy" "$work/source.zarr" "$work/d/copy.zarr"
"$bin/nczcopy" "$work/source.zarr" "$work/z/copy.zip"
trial "nczcopy -> zip" "$work/z/copy.zip" "$bin/nczcopy" "$work/source.zarr" "$work/z/copy.zip"
[ "$failures" -eq 0 ] && echo "kill test: all checks passed" || { echo "kill test: $failures failures"; exit 1; }
