#!/usr/bin/env bash
# Benchmark: netCDF-4 files as input. nczdump against ncdump, nczcopy against nccopy
# and xarray, on the same file, in the same run.
#
# Dataset: float tas(time=365, lat=180, lon=360) with smooth fields plus noise, written
# by netCDF4-python as a netCDF-4 file with deflate level 1 + shuffle, chunks 1x180x360
# (era.nc, ~48 MB), and as an uncompressed contiguous copy (era_raw.nc).
#   - dump:  ncdump era.nc / nczdump era.nc (outputs must be identical), both files;
#   - copy raw chunks: nccopy era.nc 'file://out#mode=nczarr,file' (netcdf-c 4.9.0
#     writes NCZarr chunks uncompressed) / nczcopy -d 0 era.nc out;
#   - copy, compression carried over: xarray open_dataset().to_zarr() / nczcopy era.nc out.
# Wall time is the median of RUNS runs, tools interleaved run by run; peak RSS from GNU
# time (benches/measure.sh). Targets: nczdump >= 10x faster than ncdump (both files); nczcopy -d 0
# >= 2x faster than nccopy; nczcopy >= 5x faster than xarray; peak RSS < 300 MiB.
#
# Needs: ncdump/nccopy (apt-get install netcdf-bin), GNU time, python3 with numpy,
# netCDF4, xarray and zarr>=3 (PYTHON=...), a release build (cargo build --release).
# Usage: benches/ncfile_vs_netcdf_c.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/ncbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$py" "$here/benches/make_era.py" "$work"

# The tools' outputs are compared below.
measure_keep_output=1
# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"

cat > "$work/xarray_copy.py" <<'PY'
import sys, warnings, xarray as xr
warnings.simplefilter("ignore")
xr.open_dataset(sys.argv[1]).to_zarr(sys.argv[2], mode="w", zarr_format=2, consolidated=False)
PY

cmd_ncdump=(ncdump "$work/era.nc")
cmd_ours=("$bin/nczdump" "$work/era.nc")
cmd_ncdumpraw=(ncdump "$work/era_raw.nc")
cmd_oursraw=("$bin/nczdump" "$work/era_raw.nc")
measure ncdump ours ncdumpraw oursraw
same=identical
cmp -s "$work/out-ncdump.txt" "$work/out-ours.txt" || same=DIFFERENT
cmp -s "$work/out-ncdumpraw.txt" "$work/out-oursraw.txt" || same=DIFFERENT

cmd_nccopy=(nccopy "$work/era.nc" "file://$work/c-nccopy-@R@.file#mode=nczarr,file")
cmd_copyraw=("$bin/nczcopy" -d 0 "$work/era.nc" "$work/c-raw-@R@.file")
cmd_xr=("$py" "$work/xarray_copy.py" "$work/era.nc" "$work/c-xr-@R@.zarr")
cmd_copy=("$bin/nczcopy" "$work/era.nc" "$work/c-ours-@R@.file")
measure nccopy copyraw xr copy
"$bin/nczdump" -v tas -n era "$work/c-nccopy-1.file" > "$work/nccopy.cdl"
for o in raw ours; do
    "$bin/nczdump" -v tas -n era "$work/c-$o-1.file" | cmp -s - "$work/nccopy.cdl" || same=DIFFERENT
done

ratio() { echo "$1 / $2" | bc -l; }
printf 'file: float tas(365,180,360), netCDF-4 deflate 1 + shuffle, chunks 1x180x360, %d MB; median of %d\n' \
    "$(($(stat -c %s "$work/era.nc") / 1000000))" "$runs"
printf 'dump: ncdump %.2f s %d MiB | nczdump %.2f s %d MiB: %.1fx (target >= 10x)\n' \
    "$t_ncdump" "$m_ncdump" "$t_ours" "$m_ours" "$(ratio "$t_ncdump" "$t_ours")"
printf 'dump, uncompressed file: ncdump %.2f s %d MiB | nczdump %.2f s %d MiB: %.1fx (target >= 10x)\n' \
    "$t_ncdumpraw" "$m_ncdumpraw" "$t_oursraw" "$m_oursraw" "$(ratio "$t_ncdumpraw" "$t_oursraw")"
printf 'copy, raw chunks: nccopy %.3f s %d MiB | nczcopy -d 0 %.3f s %d MiB: %.2fx (target >= 2x)\n' \
    "$t_nccopy" "$m_nccopy" "$t_copyraw" "$m_copyraw" "$(ratio "$t_nccopy" "$t_copyraw")"
printf 'copy, compression kept: xarray %.3f s %d MiB | nczcopy %.3f s %d MiB: %.1fx (target >= 5x)\n' \
    "$t_xr" "$m_xr" "$t_copy" "$m_copy" "$(ratio "$t_xr" "$t_copy")"
printf 'values: %s\n' "$same"
ok=1
[ "$same" = identical ] || ok=0
for m in "$m_ours" "$m_oursraw" "$m_copyraw" "$m_copy"; do [ "$m" -lt 300 ] || ok=0; done
[ "$ok" = 1 ]
