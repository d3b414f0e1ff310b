#!/usr/bin/env bash
# Benchmark: kerchunk references to a netCDF-4 file with 10,000 chunks (issue 44),
# against kerchunk's SingleHdf5ToZarr (PyPI kerchunk, h5py) in the same run; and
# dumping a variable through our references against dumping it from the file.
#
# The file: float v(100, 100, 100) in chunks of 1x10x10 (10,000 chunks, zlib 1 +
# shuffle), written by netCDF4-python. Ours: `nczcopy -k kerchunk f.nc refs.json`;
# theirs: `SingleHdf5ToZarr(f).translate()` dumped to JSON (the Python start-up
# counted, as a user running it pays it). Targets: >= 10x kerchunk; the dump through
# the references within 1.2x of the dump of the file. Both sets of references checked
# by nczcmp against the file.
#
# Needs: python3 with numpy, netCDF4, h5py and kerchunk (PYTHON=...), a release build.
# Usage: benches/kerchunk_refs.sh [RUNS]   (default 7: the dumps take 40 ms, where one
# slow run in three moved the ratio from 1.1x to 1.5x; each command runs once first, untimed)
set -euo pipefail
runs=${1:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/kerchunkbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$py" - "$work/f.nc" <<'PY'
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], "w") as d:
    for n in ("z", "y", "x"):
        d.createDimension(n, 100)
    v = d.createVariable("v", "f4", ("z", "y", "x"), zlib=True, complevel=1, shuffle=True,
                         chunksizes=(1, 10, 10))
    v[:] = np.random.default_rng(3).standard_normal((100, 100, 100)).astype("f4")
PY
cat > "$work/theirs.py" <<'PY'
import sys, json, warnings
warnings.simplefilter("ignore")
import kerchunk.hdf
json.dump(kerchunk.hdf.SingleHdf5ToZarr(sys.argv[1], sys.argv[1]).translate(), open(sys.argv[2], "w"))
PY

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
cmd_ours=("$bin/nczcopy" -k kerchunk "$work/f.nc" "$work/ours-@R@.json")
cmd_theirs=("$py" "$work/theirs.py" "$work/f.nc" "$work/theirs-@R@.json")
measure ours theirs
measure_warmup=1
cmd_file=("$bin/nczdump" -v v "$work/f.nc")
cmd_refs=("$bin/nczdump" -v v "$work/ours-1.json")
measure file refs

s1=different; "$bin/nczcmp" -q "$work/f.nc" "$work/ours-1.json" && s1=same
s2=different; "$bin/nczcmp" -q "$work/f.nc" "$work/theirs-1.json" && s2=same
ratio() { echo "$1 / $2" | bc -l; }
printf 'references to 10,000 chunks: nczcopy -k kerchunk %.3f s | kerchunk SingleHdf5ToZarr %.3f s | %.1fx (target >= 10x) ours %s, theirs %s (nczcmp)\n' \
    "$t_ours" "$t_theirs" "$(ratio "$t_theirs" "$t_ours")" "$s1" "$s2"
printf '  nczdump -v v through the references %.3f s | from the file %.3f s | %.2fx the file (target <= 1.2x)\n' \
    "$t_refs" "$t_file" "$(ratio "$t_refs" "$t_file")"
[ "$s1" = same ] && [ "$s2" = same ]
