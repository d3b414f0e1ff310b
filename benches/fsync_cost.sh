#!/usr/bin/env bash
# Benchmark: what making written datasets durable costs (issues 13 and 46), on a quiet
# file system and on one another program is writing to, against nccopy (which never
# syncs) in the same run. Before a finished dataset is renamed into place it is made
# durable (crates/nczarr/src/store/durable.rs): by default a sync of each file and
# directory, or one syncfs(2) when the system holds few unwritten bytes besides ours;
# NCZARR_FSYNC=files and =fs force one way, =0 skips it. Jobs:
#   - copy: `nczcopy -d 0 era.nc out.zarr`, the netCDF-4 file of benches/make_era.py
#     (deflate 1 + shuffle, 365 chunks of 253 KiB) to an uncompressed NCZarr store,
#     against `nccopy era.nc 'file://out#mode=nczarr,file'` (netcdf-c 4.9.0 writes its
#     NCZarr chunks raw);
#   - small: the same rechunked to 1x45x90 (5,840 chunk files of 16 KiB);
#   - gen: nczgen of a CDL with 200 small variables (many small files).
# Each job runs quiet; then just after another program wrote 200 MiB to the same file
# system (dd, not synced: its bytes are still to be written when the job starts); then
# with another program writing all along: a loop of dd rewriting a 1 GiB file there,
# started before the round and stopped after it. Wall time is the median of RUNS runs, commands alternated.
# Targets (issue 46): copy >= 3x nccopy quiet and >= 2x just after the 200 MiB, with
# durable writes.
# Needs: nccopy (netcdf-bin), GNU time, python3 with numpy and netCDF4 (PYTHON=...), bc,
# 12 GiB free on the file system of TMPDIR, a release build (cargo build --release).
# Usage: benches/fsync_cost.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-$here/target}/fsyncbench.XXXXXX")
busy_pid=
stop_busy() {
    if [ -n "$busy_pid" ]; then
        kill "$busy_pid" 2>/dev/null || true
        wait "$busy_pid" 2>/dev/null || true
        busy_pid=
    fi
    rm -f "$work/busy"
}
trap 'stop_busy; rm -rf "$work"' EXIT
# shellcheck source=benches/measure.sh
source "$here/benches/measure.sh"

"$py" "$here/benches/make_era.py" "$work"

{
    echo "netcdf many {"
    echo "dimensions:"
    echo "	x = 100 ;"
    echo "variables:"
    for i in $(seq 200); do echo "	int v$i(x) ;"; done
    echo "data:"
    for i in $(seq 200); do echo " v$i = $(seq -s ', ' 100) ;"; done
    echo "}"
} > "$work/many.cdl"

# The commands of one job under each method: cmd_JOB_auto, _fs, _files, _none, writing
# outputs named after CASE. Outputs are removed only at the end: on this project's
# journal-less ext4 each file created scans past the inodes deleted in the last minutes
# (benches/measure.sh), which made the 5,840-file copies after a removal 6x slower.
define_jobs() { # CASE
    local case=$1 method envs
    for method in auto fs files none; do
        case $method in
            auto) envs=() ;;
            none) envs=(env NCZARR_FSYNC=0) ;;
            *) envs=(env "NCZARR_FSYNC=$method") ;;
        esac
        declare -ga "cmd_copy_$method=(\"\${envs[@]}\" \"\$bin/nczcopy\" -d 0 \"\$work/era.nc\" \"\$work/$case-copy-$method-@R@.zarr\")"
        declare -ga "cmd_small_$method=(\"\${envs[@]}\" \"\$bin/nczcopy\" -d 0 -c time/1,lat/45,lon/90 \"\$work/era.nc\" \"\$work/$case-small-$method-@R@.zarr\")"
        declare -ga "cmd_gen_$method=(\"\${envs[@]}\" \"\$bin/nczgen\" -o \"\$work/$case-gen-$method-@R@.zarr\" \"\$work/many.cdl\")"
    done
    cmd_nccopy=(nccopy "$work/era.nc" "file://$work/$case-nccopy-@R@.zarr#mode=nczarr,file")
}
jobs=(nccopy copy_auto copy_fs copy_files copy_none small_auto small_fs small_files small_none
    gen_auto gen_fs gen_files gen_none)

ratio() { echo "scale=2; $1 / $2" | bc; }
report() { # CASE
    echo "$1 (median of $runs runs, same run; x = time over the unsynced run's):"
    printf '  nccopy era.nc (never syncs): %ss, %s MiB; nczcopy -d 0 (default): %s MiB\n' \
        "$t_nccopy" "$m_nccopy" "$m_copy_auto"
    for job in copy small gen; do
        local -n a="t_${job}_auto" f="t_${job}_fs" e="t_${job}_files" n="t_${job}_none"
        printf '  %-5s default %ss x%s | syncfs %ss x%s | each file %ss x%s | unsynced %ss\n' "$job" \
            "$a" "$(ratio "$a" "$n")" "$f" "$(ratio "$f" "$n")" "$e" "$(ratio "$e" "$n")" "$n"
        unset -n a f e n
    done
    printf '  copy against nccopy: default %sx, syncfs %sx, unsynced %sx\n' \
        "$(ratio "$t_nccopy" "$t_copy_auto")" "$(ratio "$t_nccopy" "$t_copy_fs")" \
        "$(ratio "$t_nccopy" "$t_copy_none")"
}

define_jobs quiet
measure "${jobs[@]}"
report "quiet"

# Just after another program wrote 200 MiB there.
write_200() { dd if=/dev/zero of="$work/busy" bs=1M count=200 status=none; }
measure_before=write_200
define_jobs after
measure "${jobs[@]}"
measure_before=
report "just after 200 MiB written beside"

# Another program writing to the same file system all through the round.
(while :; do dd if=/dev/zero of="$work/busy" bs=1M count=1024 status=none; done) &
busy_pid=$!
sleep 2
define_jobs busy
measure "${jobs[@]}"
stop_busy
report "busy (dd rewriting 1 GiB beside all along)"

# The copies hold the input's values (the unsynced and the default ones alike).
for d in quiet-copy-auto-1 busy-copy-none-1 after-nccopy-1; do
    "$bin/nczdump" -v tas -n era "$work/$d.zarr" | cksum
done | uniq | wc -l | grep -qx 1 || { echo "copies differ" >&2; exit 1; }
echo "values: nczcopy's and nccopy's copies identical"
