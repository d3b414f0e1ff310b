#!/usr/bin/env bash
# Benchmark: what making written datasets durable costs (issue 13). Before a finished
# dataset is renamed into place it is made durable (on Linux one syncfs(2) of its file
# system; elsewhere a fsync of every file and directory), then the parent directory is
# fsync'ed after the rename. NCZARR_FSYNC=0 skips that; this
# measures both, in the same run, and nccopy (which never syncs) for scale:
#   - copy: nczcopy of a 90 MiB float variable in 365 chunks (1x180x360), as
#     benches/copy_vs_nccopy.sh's input, to a directory store;
#   - small: nczcopy of the same data rechunked to 1x45x90 (5,840 chunk files);
#   - gen: nczgen of a CDL with 200 small variables (many small files).
# Wall time is the median of RUNS runs.
# Needs: nccopy (netcdf-bin), GNU time, python3 with numpy and netCDF4 (PYTHON=...), bc,
# a release build (cargo build --release).
# Usage: benches/fsync_cost.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-$here/target}/fsyncbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
source "$here/benches/measure.sh"

# The input: benches/make_era.py's netCDF-4 file, copied once to an NCZarr directory.
"$py" "$here/benches/make_era.py" "$work"
NCZARR_FSYNC=0 "$bin/nczcopy" -c time/1,lat/180,lon/360 "$work/era_raw.nc" "$work/in.zarr"

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

cmd_copy_sync=("$bin/nczcopy" "$work/in.zarr" "$work/copy-s@R@.zarr")
cmd_copy_nosync=(env NCZARR_FSYNC=0 "$bin/nczcopy" "$work/in.zarr" "$work/copy-n@R@.zarr")
cmd_small_sync=("$bin/nczcopy" -c time/1,lat/45,lon/90 "$work/in.zarr" "$work/small-s@R@.zarr")
cmd_small_nosync=(env NCZARR_FSYNC=0 "$bin/nczcopy" -c time/1,lat/45,lon/90 "$work/in.zarr" "$work/small-n@R@.zarr")
cmd_gen_sync=("$bin/nczgen" -o "$work/gen-s@R@.zarr" "$work/many.cdl")
cmd_gen_nosync=(env NCZARR_FSYNC=0 "$bin/nczgen" -o "$work/gen-n@R@.zarr" "$work/many.cdl")
cmd_nccopy=(nccopy "file://$work/in.zarr#mode=nczarr,file" "file://$work/nccopy@R@.zarr#mode=nczarr,file")
measure copy_sync copy_nosync small_sync small_nosync gen_sync gen_nosync nccopy

ratio() { echo "scale=2; $1 / $2" | bc; }
echo "fsync cost (median of $runs runs, same run):"
echo "  copy, 365 chunks of 253 KiB:   synced ${t_copy_sync}s, unsynced ${t_copy_nosync}s: x$(ratio "$t_copy_sync" "$t_copy_nosync") (nccopy ${t_nccopy}s)"
echo "  copy, 5,840 chunks of 16 KiB:  synced ${t_small_sync}s, unsynced ${t_small_nosync}s: x$(ratio "$t_small_sync" "$t_small_nosync")"
echo "  nczgen, 200 variables:         synced ${t_gen_sync}s, unsynced ${t_gen_nosync}s: x$(ratio "$t_gen_sync" "$t_gen_nosync")"
