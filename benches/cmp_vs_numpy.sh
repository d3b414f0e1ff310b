#!/usr/bin/env bash
# Benchmark: comparing datasets (issue 45), nczcmp against nccmp where installed (it is
# not packaged for Debian) and against the loop a user writes without it: netCDF4-python
# reading both datasets variable by variable and numpy comparing (shipped here), in the
# same run.
#
# benches/make_era.py's float tas(365,180,360) netCDF-4 file (deflate 1 + shuffle,
# chunks 1x180x360) against its NCZarr copy (the same chunks and codecs): equal, and
# with one value changed (the last one, so that a comparison that stops at the first
# difference still reads everything before it). Target: >= 5x the peer; nczcmp's exit
# status checked (0, then 1).
#
# Needs: python3 with numpy and netCDF4 (PYTHON=...), a release build.
# Usage: benches/cmp_vs_numpy.sh [RUNS]   (default 3)
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/cmpbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$py" "$here/benches/make_era.py" "$work"
"$bin/nczcopy" "$work/era.nc" "$work/era.zarr"
cp "$work/era.nc" "$work/changed.nc"
"$py" - "$work/changed.nc" <<'PY'
import sys, netCDF4
with netCDF4.Dataset(sys.argv[1], "a") as d:
    d["tas"][-1, -1, -1] = d["tas"][-1, -1, -1] + 0.5
PY
"$bin/nczcopy" "$work/changed.nc" "$work/changed.zarr"
cat > "$work/loop.py" <<'PY'
import sys, numpy as np, netCDF4
a = netCDF4.Dataset(sys.argv[1])
b = netCDF4.Dataset("file://" + sys.argv[2] + "#mode=nczarr,file")
same = True
for name, v in a.variables.items():
    for t in range(v.shape[0]):
        x, y = v[t], b[name][t]
        if not np.array_equal(np.ma.getdata(x), np.ma.getdata(y)):
            same = False
            break
sys.exit(0 if same else 1)
PY

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
# A difference exits 1: the run is timed as one that succeeds.
either=(bash -c '"$@"; [ $? -le 1 ]' --)
cmd_ours=("$bin/nczcmp" -d "$work/era.nc" "$work/era.zarr")
cmd_loop=("$py" "$work/loop.py" "$work/era.nc" "$work/era.zarr")
cmd_ours1=("${either[@]}" "$bin/nczcmp" -d "$work/era.nc" "$work/changed.zarr")
cmd_loop1=("${either[@]}" "$py" "$work/loop.py" "$work/era.nc" "$work/changed.zarr")
measure ours loop ours1 loop1

s0=$("$bin/nczcmp" -d "$work/era.nc" "$work/era.zarr" >/dev/null && echo 0 || echo $?)
s1=$("$bin/nczcmp" -d "$work/era.nc" "$work/changed.zarr" >/dev/null && echo 0 || echo $?)
ratio() { echo "$1 / $2" | bc -l; }
printf 'era.nc against its NCZarr copy, equal: nczcmp %.2f s %d MiB | netCDF4-python+numpy %.2f s | %.2fx (target >= 5x) exit %s\n' \
    "$t_ours" "$m_ours" "$t_loop" "$(ratio "$t_loop" "$t_ours")" "$s0"
printf '  one value changed (the last): nczcmp %.2f s | netCDF4-python+numpy %.2f s | %.2fx exit %s\n' \
    "$t_ours1" "$t_loop1" "$(ratio "$t_loop1" "$t_ours1")" "$s1"
command -v nccmp >/dev/null || echo "  (nccmp is not installed: not measured)"
[ "$s0" = 0 ] && [ "$s1" = 1 ]
