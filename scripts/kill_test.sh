#!/usr/bin/env bash
# Crash safety (issue 13): kill -9 nczgen and nczcopy at random points while they
# replace an existing dataset (a directory store and a zip archive), KILLS times each,
# and check after every kill that
#   - the existing dataset is byte-identical (same file list and checksums),
#   - no other complete-looking dataset appeared beside it (only .NAME.tmp-PID /
#     .NAME.old-PID leftovers of the killed run),
# and after each next, uninterrupted run that it succeeded, replaced the dataset, and
# left no leftovers of any killed run. Then on S3 (see s3_trial below), when the local
# server starts.
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
# S3 (the local server of scripts/s3_server.sh, when it starts): there is no rename, so
# a new dataset is written in place, chunks first and its root metadata last. A run
# killed mid-way leaves objects that do not open as a dataset; a run to a key that holds
# a dataset is refused without --overwrite, so a killed one cannot touch it.
s3_trial() { # label tool-args-before-url...: new datasets, killed
    local label=$1; shift
    local url t0 t1 span i killed=0 looks=0
    url="$s3_base/$label-probe.zarr#mode=nczarr,s3"
    t0=$(date +%s%N); "$@" "$url" >/dev/null 2>&1; t1=$(date +%s%N)
    span=$(( (t1 - t0) / 1000000 ))
    for i in $(seq "$kills"); do
        url="$s3_base/$label-$i.zarr#mode=nczarr,s3"
        "$@" "$url" >/dev/null 2>&1 &
        local pid=$!
        t=$(awk -v r=$RANDOM -v s="$span" 'BEGIN { printf "%.3f", (r % 1000) / 1000 * s / 1000 }')
        sleep "$t"
        if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
        if wait "$pid" 2>/dev/null; then
            continue # finished before the kill: a complete dataset, rightly
        fi
        # Killed: what it left must not open as a dataset.
        if "$bin/nczdump" -h "$url" >/dev/null 2>&1; then
            looks=$((looks + 1)); fail "$label kill $i ($t s): a killed run left a dataset that opens"
        fi
        # The existing dataset, refused as a target, is untouched.
        "$@" "$s3_base/existing.zarr#mode=nczarr,s3" >/dev/null 2>&1 &
        pid=$!; sleep "$t"; kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
        [ "$("$bin/nczdump" "$s3_base/existing.zarr#mode=nczarr,s3" | sha1sum)" = "$existing" ] ||
            fail "$label kill $i: the existing dataset changed"
        # The next run replaces the debris with --overwrite and gives the whole dataset.
        "$1" --overwrite "${@:2}" "$url" >/dev/null 2>&1 || fail "$label kill $i: the run after the kill failed"
        [ "$("$bin/nczdump" "$url" | sed 1d | sha1sum)" = "$expected" ] ||
            fail "$label kill $i: the run after the kill wrote something else"
    done
    echo "$label: $killed of $kills runs killed mid-way (a run takes ${span} ms; none left a dataset that opens)"
}
if [ -f "$here/scripts/s3_server.sh" ]; then
    # shellcheck source=scripts/s3_server.sh
    source "$here/scripts/s3_server.sh"
    s3_server_start
fi
if [ -n "${NCZARR_TEST_S3_ENDPOINT:-}" ]; then
    export AWS_ACCESS_KEY_ID=$NCZARR_TEST_S3_KEY AWS_SECRET_ACCESS_KEY=$NCZARR_TEST_S3_SECRET
    s3_base="$NCZARR_TEST_S3_ENDPOINT/$NCZARR_TEST_S3_BUCKET/killtest-$$"
    "$bin/nczcopy" "$work/source.zarr" "$s3_base/existing.zarr#mode=nczarr,s3"
    existing=$("$bin/nczdump" "$s3_base/existing.zarr#mode=nczarr,s3" | sha1sum)
    expected=$("$bin/nczdump" "$work/source.zarr" | sed 1d | sha1sum)
    s3_trial "nczgen-s3" "$bin/nczgen" "$work/big.cdl" -o
    s3_trial "nczcopy-s3" "$bin/nczcopy" "$work/source.zarr"
else
    echo "S3: no local server (scripts/s3_server.sh), S3 trials skipped"
fi
[ "$failures" -eq 0 ] && echo "kill test: all checks passed" || { echo "kill test: $failures failures"; exit 1; }
