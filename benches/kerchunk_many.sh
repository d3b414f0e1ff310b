#!/usr/bin/env bash
# Benchmark: kerchunk references to a year of daily netCDF-4 files joined into one
# virtual dataset (issue 44), against kerchunk's SingleHdf5ToZarr on each file then
# MultiZarrToZarr (PyPI kerchunk, h5py) in the same run; and the same files on a web
# server 20 ms away: requests counted against the bound (requests / concurrency) x 20 ms.
#
# The files: 365 days, each float tas(time=1, 180, 360) in chunks of 1x90x180 (4 a day,
# zlib 1 + shuffle) and double time with "days since 2001-01-01", written by
# netCDF4-python. Ours: `nczcopy -k kerchunk day*.nc refs.json`; theirs:
# SingleHdf5ToZarr(f).translate() for each file, MultiZarrToZarr(concat_dims=["time"])
# of them, dumped to JSON (the Python start-up counted once, as a user running it pays
# it). Targets: >= 10x kerchunk; remote: within 1.5x of (requests / 16) x 20 ms (16:
# the files whose headers are read at once). Both sets of references checked by nczcmp
# against the files joined by nczcopy.
#
# Needs: python3 with numpy, netCDF4, h5py and kerchunk (PYTHON=...), a release build.
# Usage: benches/kerchunk_many.sh [RUNS]   (default 3; the remote part runs once)
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/kerchunkmany.XXXXXX")
server_pid=""
finish() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap finish EXIT
mkdir "$work/days"
"$py" "$here/benches/make_days.py" "$work/days"
cat > "$work/theirs.py" <<'PY'
import sys, json, glob, warnings
warnings.simplefilter("ignore")
import kerchunk.hdf, kerchunk.combine
files = sorted(glob.glob(sys.argv[1] + "/day*.nc"))
singles = [kerchunk.hdf.SingleHdf5ToZarr(f, f).translate() for f in files]
mzz = kerchunk.combine.MultiZarrToZarr(singles, concat_dims=["time"], identical_dims=["lat", "lon"])
json.dump(mzz.translate(), open(sys.argv[2], "w"))
PY
"$bin/nczcopy" "$work"/days/day*.nc "$work/joined.zarr"

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
cmd_ours=("$bin/nczcopy" -k kerchunk "$work"/days/day*.nc "$work/ours-@R@.json")
cmd_theirs=("$py" "$work/theirs.py" "$work/days" "$work/theirs-@R@.json")
measure ours theirs

s1=different; "$bin/nczcmp" -q "$work/joined.zarr" "$work/ours-1.json" && s1=same
s2=different; "$bin/nczcmp" -q -d "$work/joined.zarr" "$work/theirs-1.json" && s2=same
ratio() { echo "$1 / $2" | bc -l; }
printf 'references to 365 daily files (1,460 chunks): nczcopy -k kerchunk %.3f s | kerchunk SingleHdf5ToZarr + MultiZarrToZarr %.3f s | %.1fx (target >= 10x) ours %s, theirs %s (nczcmp; theirs: data)\n' \
    "$t_ours" "$t_theirs" "$(ratio "$t_theirs" "$t_ours")" "$s1" "$s2"

# The same files on a web server 20 ms away.
log="$work/requests.log"
python3 "$here/benches/range_server.py" "$work/days" 0.020 "$log" > "$work/port" &
server_pid=$!
for _ in $(seq 1 50); do [ -s "$work/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$work/port")"
for f in "$work"/days/day*.nc; do echo "$base/$(basename "$f")#mode=bytes"; done > "$work/urls"
: > "$log"
t0=$EPOCHREALTIME
"$bin/nczcopy" -k kerchunk --inputs-from "$work/urls" "$work/remote.json"
t1=$EPOCHREALTIME
requests=$(wc -l < "$log")
t_remote=$(echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}')
bound=$(echo "$requests / 16 * 0.020" | bc -l)
s3=different; "$bin/nczcmp" -q "$work/joined.zarr" "$work/remote.json" && s3=same
printf '  on a web server 20 ms away: %.3f s, %d requests (%.1f a file); bound (requests / 16) x 20 ms = %.3f s: %.2fx the bound (target <= 1.5x) %s (nczcmp)\n' \
    "$t_remote" "$requests" "$(echo "$requests / 365" | bc -l)" "$bound" "$(ratio "$t_remote" "$bound")" "$s3"
[ "$s1" = same ] && [ "$s2" = same ] && [ "$s3" = same ]
