#!/usr/bin/env bash
# Benchmark: nczcopy against netcdf-c's nccopy and xarray+dask, rechunking the same
# NCZarr dataset into time series, in the same run.
#
# Dataset: float tas(time=365, lat=180, lon=360), chunks 1x180x360, uncompressed, written
# by netcdf-c's ncgen with pseudo-random data (as benches/dump_vs_ncdump.sh). Each tool
# rechunks it to time/365,lat/10,lon/10:
#   - uncompressed: nccopy -c, xarray (open_zarr().chunk().to_zarr()), nczcopy -c;
#   - zlib level 1 + shuffle: xarray, nczcopy -d 1 -s (nccopy 4.9.0 cannot: its NCZarr
#     has no filters and silently writes raw chunks);
# then, unless BIG=0, nczcopy alone rechunks a 2 GiB variable (1024x512x1024).
# Wall time is the median of RUNS runs; peak RSS from GNU time (benches/measure.sh). nccopy's and
# nczcopy's copies must hold the same values (nczdump of each, compared).
# Targets: uncompressed >= 2x faster than nccopy; zlib 1 + shuffle >= 5x faster than
# xarray with output under 60% of the raw size; peak RSS under 300 MiB, also on 2 GiB.
#
# Needs: ncgen/nccopy (apt-get install netcdf-bin), GNU time, python3 with numpy, xarray,
# zarr>=3 and dask (PYTHON=...), a release build (cargo build --release).
# Usage: benches/copy_vs_nccopy.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/copybench.XXXXXX")
trap 'rm -rf "$work"' EXIT

make_input() { # name time lat lon: an uncompressed NCZarr store chunked 1 x lat x lon
    local name=$1 nt=$2 ny=$3 nx=$4
    cat > "$work/$name.cdl" <<CDL
netcdf $name {
dimensions:
	time = $nt ;
	lat = $ny ;
	lon = $nx ;
variables:
	float tas(time, lat, lon) ;
		tas:units = "K" ;
		tas:_ChunkSizes = 1, $ny, $nx ;
}
CDL
    ncgen -4 -lb -o "file://$work/$name.file#mode=nczarr,file" "$work/$name.cdl"
    "$py" - "$work/$name.file/tas" "$nt" "$ny" "$nx" <<'PY'
import sys, numpy as np
path, nt, ny, nx = sys.argv[1], *map(int, sys.argv[2:])
rng = np.random.default_rng(42)
# Smooth fields with noise, like model output: compressible, not trivially.
base = (280 + 20 * np.cos(np.linspace(0, np.pi, ny)))[:, None] * np.ones((1, nx))
for t in range(nt):
    (base + rng.standard_normal((ny, nx)) * 2).astype('<f4').tofile(f"{path}/{t}.0.0")
PY
}

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"

# xarray's rechunking copy: IN OUT COMPRESS(0|1).
cat > "$work/xarray_copy.py" <<'PY'
import sys, warnings, numcodecs, xarray as xr
warnings.simplefilter("ignore")
src, dst, compress = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
ds = xr.open_zarr(src, consolidated=False, zarr_format=2)
for v in ds.variables.values():
    v.encoding.clear()
ds = ds.chunk({"time": 365, "lat": 10, "lon": 10})
enc = {}
if compress:
    enc = {"tas": {"compressors": [numcodecs.Zlib(level=1)], "filters": [numcodecs.Shuffle(elementsize=4)]}}
ds.to_zarr(dst, mode="w", zarr_format=2, consolidated=False, encoding=enc)
PY

make_input b 365 180 360
raw=$((365 * 180 * 360 * 4))
in_url="file://$work/b.file#mode=nczarr,file"
spec="time/365,lat/10,lon/10"

cmd_nccopy=(nccopy -c "$spec" "$in_url" "file://$work/out-nccopy-@R@.file#mode=nczarr,file")
cmd_ours=("$bin/nczcopy" -c "$spec" "$work/b.file" "$work/out-ours-@R@.file")
cmd_xr=("$py" "$work/xarray_copy.py" "$work/b.file" "$work/out-xr-@R@.zarr" 0)
cmd_xrz=("$py" "$work/xarray_copy.py" "$work/b.file" "$work/out-xrz-@R@.zarr" 1)
cmd_oursz=("$bin/nczcopy" -c "$spec" -d 1 -s "$work/b.file" "$work/out-oursz-@R@.file")
measure nccopy ours xr xrz oursz

# The copies hold the input's values.
"$bin/nczdump" -v tas -n b "$work/out-nccopy-1.file" > "$work/nccopy.cdl"
same=identical
for o in ours oursz; do
    "$bin/nczdump" -v tas -n b "$work/out-$o-1.file" > "$work/$o.cdl"
    cmp -s "$work/nccopy.cdl" "$work/$o.cdl" || same=DIFFERENT
done
size_z=$(du -sb "$work/out-oursz-1.file" | cut -f1)
size_xrz=$(du -sb "$work/out-xrz-1.zarr" | cut -f1)

ratio() { echo "$1 / $2" | bc -l; }
printf 'dataset: float tas(365,180,360) %d MiB, chunks 1x180x360 -> %s; median of %d\n' \
    "$((raw >> 20))" "$spec" "$runs"
printf 'uncompressed: nccopy (netcdf-c 4.9.0) %.3f s %d MiB | xarray %.3f s %d MiB | nczcopy %.3f s %d MiB\n' \
    "$t_nccopy" "$m_nccopy" "$t_xr" "$m_xr" "$t_ours" "$m_ours"
printf '  nczcopy speed-up over nccopy: %.2fx (target >= 2x), over xarray: %.1fx\n' \
    "$(ratio "$t_nccopy" "$t_ours")" "$(ratio "$t_xr" "$t_ours")"
printf 'zlib 1 + shuffle: xarray %.3f s %d MiB, %d%% of raw | nczcopy %.3f s %d MiB, %d%% of raw\n' \
    "$t_xrz" "$m_xrz" "$((100 * size_xrz / raw))" "$t_oursz" "$m_oursz" "$((100 * size_z / raw))"
printf '  nczcopy speed-up over xarray: %.1fx (target >= 5x; size target < 60%%)\n' \
    "$(ratio "$t_xrz" "$t_oursz")"
printf 'values: nccopy and nczcopy copies %s\n' "$same"
ok=1
[ "$same" = identical ] || ok=0
[ "$m_ours" -lt 300 ] && [ "$m_oursz" -lt 300 ] || ok=0

if [ "${BIG:-1}" != 0 ]; then
    rm -rf "$work"/out-* "$work"/*.cdl "$work/b.file"
    make_input big 1024 512 1024
    cmd_big=("$bin/nczcopy" -c "$spec" -d 1 -s "$work/big.file" "$work/out-big-@R@.file")
    runs=1 measure big
    printf '2 GiB: float tas(1024,512,1024) -> %s, zlib 1 + shuffle: nczcopy %.1f s, %d MiB peak (target < 300)\n' \
        "$spec" "$t_big" "$m_big"
    [ "$m_big" -lt 300 ] || ok=0
fi
[ "$ok" = 1 ]
