#!/usr/bin/env bash
# Benchmark: 2,000 small netCDF-4 files (a few KB each: float v(1,20,20) with its time)
# into one NCZarr store (issue 43): the per-input overhead, (time - time of one
# input) / 2000, against the target of 2 ms; ncrcat on the same files in the same run.
# Values compared by nczdump's text of v (cksum).
#
# Needs: ncrcat (apt-get install nco), python3 with numpy and netCDF4 (PYTHON=...), a
# release build.
# Usage: benches/concat_small_files.sh [RUNS]   (default 3)
set -euo pipefail
runs=${1:-3}
n=2000
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/smallfiles.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
"$py" - "$work/in" "$n" <<'PY'
import sys, numpy as np, netCDF4
rng = np.random.default_rng(1)
for i in range(int(sys.argv[2])):
    with netCDF4.Dataset(f"{sys.argv[1]}/f{i:05d}.nc", "w") as d:
        d.createDimension("time", None); d.createDimension("y", 20); d.createDimension("x", 20)
        t = d.createVariable("time", "f8", ("time",)); t.units = "hours since 2001-01-01"
        v = d.createVariable("v", "f4", ("time", "y", "x"))
        t[0] = i
        v[0] = rng.standard_normal((20, 20)).astype("f4")
PY
printf '%s\n' "$work"/in/f*.nc > "$work/list.txt"
first=$(head -1 "$work/list.txt")

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
cmd_ours=("$bin/nczcopy" -c time/500 --inputs-from "$work/list.txt" "$work/ours-@R@.zarr")
cmd_one=("$bin/nczcopy" "$first" "$work/one-@R@.zarr")
cmd_ncrcat=(ncrcat -O "$work"/in/f*.nc "$work/ncrcat-@R@.nc")
measure ours one ncrcat

v() { "$bin/nczdump" -v v "$1" | sed -n '/^ v =/,$p' | cksum; }
same=different; [ "$(v "$work/ours-1.zarr")" = "$(v "$work/ncrcat-1.nc")" ] && same=same
per=$(echo "($t_ours - $t_one) * 1000 / $n" | bc -l)
printf '%d small files -> one store: nczcopy %.3f s (one input %.3f s) | %.3f ms per input (target < 2) | ncrcat %.3f s (%.2fx) values %s\n' \
    "$n" "$t_ours" "$t_one" "$per" "$t_ncrcat" "$(echo "$t_ncrcat / $t_ours" | bc -l)" "$same"
[ "$same" = same ] && (($(echo "$per < 2" | bc -l)))
