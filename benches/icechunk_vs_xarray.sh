#!/usr/bin/env bash
# Benchmark: Icechunk repositories (issue 64) against icechunk-python + xarray and
# VirtualiZarr in the same run, on a year of daily netCDF-4 files (as
# benches/kerchunk_many.sh: 365 days of float tas(1, 180, 360) in chunks of 1x90x180,
# zlib 1 + shuffle, written by netCDF4-python).
#
# - copy in: `nczcopy -k icechunk day*.nc r.ice` against xarray's
#   open_mfdataset(...).to_zarr(session.store) and a commit (target >= 3x);
# - virtual: `nczcopy -k icechunk --virtual day*.nc v.ice` against VirtualiZarr's
#   open_virtual_mfdataset + vds.vz.to_icechunk + a commit (target >= 10x);
# - copy out: `nczcopy r.ice out.zarr` (Zarr v3) against xarray's
#   open_zarr(session.store).to_zarr(out) (target >= 3x);
# - on S3 (the local SeaweedFS) 20 ms a request away: `nczdump -h` of the repository
#   against icechunk-python + xarray's open_zarr, requests counted at the proxy (target:
#   no more than theirs).
# Every repository is checked by nczcmp against the files joined by nczcopy.
#
# Needs: Python >= 3.12 with icechunk, xarray, dask, netCDF4, virtualizarr[hdf] and
# obstore (ICE_PYTHON=...), a release build. Usage: benches/icechunk_vs_xarray.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${ICE_PYTHON:-$HOME/.cache/nczarr-tools/venv312/bin/python}
export ICECHUNK_LOG=error
cd "$here"
# shellcheck source=benches/s3_behind_latency.sh
. benches/s3_behind_latency.sh
mkdir "$work/days"
"$py" "$here/benches/make_days.py" "$work/days"
cat > "$work/theirs_copy.py" <<'PY'
import sys, glob, warnings
warnings.simplefilter("ignore")
import xarray as xr, icechunk
files = sorted(glob.glob(sys.argv[1] + "/day*.nc"))
ds = xr.open_mfdataset(files, combine="nested", concat_dim="time", parallel=False)
repo = icechunk.Repository.create(icechunk.local_filesystem_storage(sys.argv[2]))
s = repo.writable_session("main")
ds.to_zarr(s.store, mode="w", consolidated=False)
s.commit("a year")
PY
cat > "$work/theirs_virtual.py" <<'PY'
import sys, glob, os, warnings
warnings.simplefilter("ignore")
import icechunk
from obstore.store import LocalStore
from virtualizarr import open_virtual_mfdataset
from virtualizarr.parsers import HDFParser
from virtualizarr.registry import ObjectStoreRegistry
d = os.path.abspath(sys.argv[1])
files = sorted(glob.glob(d + "/day*.nc"))
vds = open_virtual_mfdataset([f"file://{f}" for f in files], parser=HDFParser(),
    registry=ObjectStoreRegistry({"file://": LocalStore()}), combine="nested",
    concat_dim="time", loadable_variables=["time"])
config = icechunk.RepositoryConfig.default()
config.set_virtual_chunk_container(icechunk.VirtualChunkContainer(f"file://{d}/", icechunk.local_filesystem_store(d)))
repo = icechunk.Repository.create(icechunk.local_filesystem_storage(sys.argv[2]), config)
s = repo.writable_session("main")
vds.vz.to_icechunk(s.store)
s.commit("a year, virtual")
PY
cat > "$work/theirs_out.py" <<'PY'
import sys, warnings
warnings.simplefilter("ignore")
import xarray as xr, icechunk
repo = icechunk.Repository.open(icechunk.local_filesystem_storage(sys.argv[1]))
xr.open_zarr(repo.readonly_session("main").store, consolidated=False).to_zarr(sys.argv[2], zarr_format=3, consolidated=True)
PY
cat > "$work/theirs_open.py" <<'PY'
import os, sys, warnings
warnings.simplefilter("ignore")
import xarray as xr, icechunk
bucket, _, prefix = sys.argv[1].partition("/")
storage = icechunk.s3_storage(bucket=bucket, prefix=prefix, endpoint_url=sys.argv[2], allow_http=True,
    force_path_style=True, region="us-east-1", access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
    secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"])
repo = icechunk.Repository.open(storage)
print(xr.open_zarr(repo.readonly_session("main").store, consolidated=False))
PY
"$bin/nczcopy" "$work"/days/day*.nc "$work/joined.zarr"

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
cmd_ours=("$bin/nczcopy" -k icechunk "$work"/days/day*.nc "$work/ours-@R@.ice")
cmd_theirs=("$py" "$work/theirs_copy.py" "$work/days" "$work/theirs-@R@.ice")
measure ours theirs
t_copy_ours=$t_ours t_copy_theirs=$t_theirs
cmd_ours=("$bin/nczcopy" -k icechunk --virtual "$work"/days/day*.nc "$work/ours-v-@R@.ice")
cmd_theirs=("$py" "$work/theirs_virtual.py" "$work/days" "$work/theirs-v-@R@.ice")
measure ours theirs
t_virt_ours=$t_ours t_virt_theirs=$t_theirs
cmd_ours=("$bin/nczcopy" -k zarr3 "$work/ours-1.ice" "$work/out-ours-@R@.zarr")
cmd_theirs=("$py" "$work/theirs_out.py" "$work/ours-1.ice" "$work/out-theirs-@R@.zarr")
measure ours theirs
t_out_ours=$t_ours t_out_theirs=$t_theirs

check() { if "$bin/nczcmp" -q -d "$work/joined.zarr" "$1"; then echo same; else echo DIFFERENT; fi; }
ratio() { echo "$1 / $2" | bc -l; }
printf 'copy in, 365 files: nczcopy -k icechunk %.3f s | xarray open_mfdataset + to_zarr + commit %.3f s | %.1fx (target >= 3x) ours %s, theirs %s\n' \
    "$t_copy_ours" "$t_copy_theirs" "$(ratio "$t_copy_theirs" "$t_copy_ours")" "$(check "$work/ours-1.ice")" "$(check "$work/theirs-1.ice")"
printf 'virtual, 365 files: nczcopy -k icechunk --virtual %.3f s | VirtualiZarr open_virtual_mfdataset + to_icechunk + commit %.3f s | %.1fx (target >= 10x) ours %s, theirs %s\n' \
    "$t_virt_ours" "$t_virt_theirs" "$(ratio "$t_virt_theirs" "$t_virt_ours")" "$(check "$work/ours-v-1.ice")" "$(check "$work/theirs-v-1.ice")"
printf 'copy out to Zarr v3: nczcopy %.3f s | xarray open_zarr(session.store).to_zarr %.3f s | %.1fx (target >= 3x) ours %s, theirs %s\n' \
    "$t_out_ours" "$t_out_theirs" "$(ratio "$t_out_theirs" "$t_out_ours")" "$(check "$work/out-ours-1.zarr")" "$(check "$work/out-theirs-1.zarr")"

# The repository on S3, opened 20 ms a request away; requests counted at the proxy.
export AWS_ACCESS_KEY_ID="$NCZARR_TEST_S3_KEY" AWS_SECRET_ACCESS_KEY="$NCZARR_TEST_S3_SECRET"
key="bench-$$/year.ice"
"$bin/nczcopy" -k icechunk "$work"/days/day*.nc "$NCZARR_TEST_S3_ENDPOINT/$NCZARR_TEST_S3_BUCKET/$key#mode=s3"
kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null || true
log="$work/requests.log"
python3 benches/latency_proxy.py "${NCZARR_TEST_S3_ENDPOINT#http://}" "$log" >"$work/proxy2.port" &
proxy_pid=$!
for _ in $(seq 1 50); do [ -s "$work/proxy2.port" ] && break; sleep 0.1; done
proxy="http://127.0.0.1:$(cat "$work/proxy2.port")"
count_run() { # NAME COMMAND...: wall seconds and requests of one run
    local name=$1; shift
    : > "$log"
    local t0=$EPOCHREALTIME
    "$@" > "$work/$name.out"
    local t1=$EPOCHREALTIME
    sleep 0.2
    printf '%s %.3f s, %d requests\n' "$name" "$(echo "$t1 - $t0" | bc -l)" "$(wc -l < "$log")"
}
count_run "nczdump -h" "$bin/nczdump" -h "$proxy/$NCZARR_TEST_S3_BUCKET/$key#mode=s3"
count_run "icechunk-python + xarray open_zarr" "$py" "$work/theirs_open.py" "$NCZARR_TEST_S3_BUCKET/$key" "$proxy"
echo "header on S3, 20 ms a request (target: no more requests than icechunk-python + xarray)"
