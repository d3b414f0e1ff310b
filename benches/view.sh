#!/usr/bin/env bash
# Benchmark (issue 66): one time step of the 365x180x360 bench dataset (benches/make_era.py:
# float tas, netCDF-4 with deflate 1 + shuffle, chunks 1x180x360) to a PNG, as a netCDF-4
# file and as an NCZarr copy: `nczview FILE -v tas -o out.png` against xarray's
# `open_dataset(...).tas.isel(time=0).plot()` + matplotlib's `savefig` (Agg), each a
# fresh process as a user runs them, alternated, the median of RUNS (target >= 10x).
# Also the warm figure: xarray + matplotlib timed inside one interpreter, imports done.
#
# Needs: PYTHON with numpy, netCDF4, xarray, zarr and matplotlib; a release build
# (NCZ_BIN, default target/release). Usage: benches/view.sh [RUNS]   (default 5)
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" "$here/benches/make_era.py" "$work"
"$bin/nczcopy" "$work/era.nc" "$work/era.zarr"
cat > "$work/theirs.py" <<'PY'
import sys, time
t0 = time.perf_counter()
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import xarray as xr
t1 = time.perf_counter()
path, out = sys.argv[1], sys.argv[2]
engine = "zarr" if path.endswith(".zarr") else "netcdf4"
kw = {"consolidated": False} if engine == "zarr" else {}
ds = xr.open_dataset(path, engine=engine, **kw)
ds.tas.isel(time=0).plot()
plt.savefig(out)
t2 = time.perf_counter()
print(f"{t2 - t1:.4f}", file=sys.stderr)
PY
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
for input in era.nc era.zarr; do
    ours=() theirs=() warm=()
    for _ in $(seq "$runs"); do
        ours+=("$(secs "$bin/nczview" "$work/$input" -v tas -O -o "$work/ours.png")")
        s=$(date +%s.%N)
        w=$("$py" "$work/theirs.py" "$work/$input" "$work/theirs.png" 2>&1 >/dev/null | tail -n 1)
        e=$(date +%s.%N)
        theirs+=("$(echo "$e - $s" | bc -l)")
        warm+=("$w")
    done
    o=$(printf '%s\n' "${ours[@]}" | median)
    t=$(printf '%s\n' "${theirs[@]}" | median)
    w=$(printf '%s\n' "${warm[@]}" | median)
    printf '%-9s nczview %.4f s   xarray+matplotlib %.4f s (%.1fx)   warm, imports done %.4f s (%.1fx)\n' \
        "$input" "$o" "$t" "$(echo "$t / $o" | bc -l)" "$w" "$(echo "$w / $o" | bc -l)"
done
