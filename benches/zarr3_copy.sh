#!/usr/bin/env bash
# Benchmark: Zarr v3 <-> v2 conversion with nczcopy against zarr-python, nczdump on v3
# against nczdump on v2, and the requests of a one-variable dump of a sharded dataset,
# all in the same run.
#
# Dataset: float tas(time=365, lat=180, lon=360), smooth fields plus noise, written by
# zarr-python 3 as Zarr v3 (zstd level 1, inner chunks 1x180x360 in shards of
# 73x180x360) and as Zarr v2 (zstd level 1, chunks 1x180x360).
#   - v3 -> v2: nczcopy -k zarr IN3 OUT vs zarr-python (read all, write all, same codec);
#   - v2 -> v3: nczcopy -k zarr3 --shards time/73 IN2 OUT vs zarr-python likewise;
#     target: nczcopy at least 3x faster, peak RSS under 300 MiB;
#   - nczdump of the v3 store vs nczdump of the v2 store: target within 1.2x;
#   - 50 sharded variables (365x90x180, shards 73x90x180): NCTRACING=1 nczdump -v v17
#     counts the requests, which must all be v17's (or the root metadata).
# Wall time is the median of RUNS runs; peak RSS from GNU time (benches/measure.sh). Every copy must
# dump the same values as its input.
#
# Needs: GNU time, python3 with numpy and zarr>=3 (PYTHON=...), a release build
# (cargo build --release). Usage: benches/zarr3_copy.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/zarr3bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$py" - "$work" <<'PY'
import sys, numpy as np, numcodecs, zarr
from zarr.codecs import ZstdCodec
work = sys.argv[1]
nt, ny, nx = 365, 180, 360
dims = ("time", "lat", "lon")
rng = np.random.default_rng(42)
base = (280 + 20 * np.cos(np.linspace(0, np.pi, ny)))[:, None] * np.ones((1, nx))
data = np.stack([(base + rng.standard_normal((ny, nx)) * 2) for _ in range(nt)]).astype("f4")
g3 = zarr.open_group(f"{work}/in3.zarr", mode="w", zarr_format=3)
a = g3.create_array("tas", shape=data.shape, dtype="f4", chunks=(1, ny, nx),
                    shards=(73, ny, nx), compressors=ZstdCodec(level=1), dimension_names=dims)
a[...] = data
a.attrs["units"] = "K"
g2 = zarr.open_group(f"{work}/in2.zarr", mode="w", zarr_format=2)
a = g2.create_array("tas", shape=data.shape, dtype="f4", chunks=(1, ny, nx),
                    compressors=numcodecs.Zstd(level=1),
                    attributes={"_ARRAY_DIMENSIONS": list(dims), "units": "K"})
a[...] = data
zarr.consolidate_metadata(f"{work}/in3.zarr")
zarr.consolidate_metadata(f"{work}/in2.zarr")
# 50 sharded variables, for the request count.
g = zarr.open_group(f"{work}/many.zarr", mode="w", zarr_format=3)
small = data[:, ::2, ::2].copy()
for i in range(50):
    v = g.create_array(f"v{i:02}", shape=small.shape, dtype="f4", chunks=(1, 90, 180),
                       shards=(73, 90, 180), compressors=ZstdCodec(level=1),
                       dimension_names=dims)
    v[...] = small
zarr.consolidate_metadata(f"{work}/many.zarr")
PY

# zarr-python's copy: IN OUT FORMAT(2|3), read all, write all, the same codec.
cat > "$work/zarr_copy.py" <<'PY'
import sys, numcodecs, zarr
from zarr.codecs import ZstdCodec
src, dst, fmt = sys.argv[1], sys.argv[2], int(sys.argv[3])
a = zarr.open_group(src, mode="r")["tas"]
out = zarr.open_group(dst, mode="w", zarr_format=fmt)
kw = dict(shape=a.shape, dtype=a.dtype, chunks=(1, 180, 360))
if fmt == 3:
    b = out.create_array("tas", shards=(73, 180, 360), compressors=ZstdCodec(level=1),
                         dimension_names=("time", "lat", "lon"), **kw)
else:
    b = out.create_array("tas", compressors=numcodecs.Zstd(level=1),
                         attributes={"_ARRAY_DIMENSIONS": ["time", "lat", "lon"]}, **kw)
b[...] = a[...]
b.attrs["units"] = "K"
zarr.consolidate_metadata(dst)
PY

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"

cmd_ours32=("$bin/nczcopy" -k zarr "$work/in3.zarr" "$work/o32-@R@.zarr")
cmd_py32=("$py" "$work/zarr_copy.py" "$work/in3.zarr" "$work/p32-@R@.zarr" 2)
cmd_ours23=("$bin/nczcopy" -k zarr3 --shards time/73 "$work/in2.zarr" "$work/o23-@R@.zarr")
cmd_py23=("$py" "$work/zarr_copy.py" "$work/in2.zarr" "$work/p23-@R@.zarr" 3)
cmd_dump3=("$bin/nczdump" "$work/in3.zarr")
cmd_dump2=("$bin/nczdump" "$work/in2.zarr")
measure ours32 py32 ours23 py23 dump3 dump2

# Every copy holds the input's values (the data sections: zarr-python's v2 array shows its
# fill value 0 as _FillValue, its v3 array does not).
values() { "$bin/nczdump" -v tas "$1" | sed -n '/^data:/,$p'; }
values "$work/in2.zarr" > "$work/want.cdl"
same=identical
for o in in3.zarr o32-1.zarr o23-1.zarr p32-1.zarr p23-1.zarr; do
    values "$work/$o" > "$work/got.cdl"
    cmp -s "$work/want.cdl" "$work/got.cdl" || { same="DIFFERENT ($o)"; break; }
done
# nczcopy's v3 output is sharded as asked and zarr-python reads the same values.
"$py" - "$work" <<'PY' || same="DIFFERENT (zarr-python reading nczcopy's v3)"
import sys, numpy as np, zarr
w = sys.argv[1]
a, b = zarr.open_group(f"{w}/o23-1.zarr", mode="r")["tas"], zarr.open_group(f"{w}/in3.zarr", mode="r")["tas"]
assert a.shards == (73, 180, 360) and a.chunks == (1, 180, 360), (a.shards, a.chunks)
assert np.array_equal(a[...], b[...])
PY

# Requests of a one-variable dump of the 50-variable sharded dataset.
NCTRACING=1 "$bin/nczdump" -v v17 "$work/many.zarr" 2> "$work/trace" > /dev/null
gets=$(grep -c 'trace: get ' "$work/trace" || true)
ranged=$(grep 'trace: get ' "$work/trace" | grep -c 'bytes=' || true)
others=$(grep 'trace: get v[0-9]' "$work/trace" | grep -v -c 'get v17/' || true)
probes=$(grep 'trace: get ' "$work/trace" | grep -c -- '-> missing' || true)
index=$(grep 'trace: get v17/' "$work/trace" | grep -c 'bytes=-' || true)

ratio() { echo "$1 / $2" | bc -l; }
raw=$((365 * 180 * 360 * 4))
printf 'dataset: float tas(365,180,360) %d MiB, zstd 1, v3 inner chunks 1x180x360 in shards 73x180x360, v2 chunks 1x180x360; median of %d\n' \
    "$((raw >> 20))" "$runs"
printf 'v3 -> v2: zarr-python %.3f s %d MiB | nczcopy %.3f s %d MiB: %.1fx (target >= 3x, RSS < 300 MiB)\n' \
    "$t_py32" "$m_py32" "$t_ours32" "$m_ours32" "$(ratio "$t_py32" "$t_ours32")"
printf 'v2 -> v3: zarr-python %.3f s %d MiB | nczcopy %.3f s %d MiB: %.1fx (target >= 3x, RSS < 300 MiB)\n' \
    "$t_py23" "$m_py23" "$t_ours23" "$m_ours23" "$(ratio "$t_py23" "$t_ours23")"
printf 'nczdump: v3 %.3f s %d MiB | v2 %.3f s %d MiB: v3/v2 %.2fx (target <= 1.2x)\n' \
    "$t_dump3" "$m_dump3" "$t_dump2" "$m_dump2" "$(ratio "$t_dump3" "$t_dump2")"
printf 'nczdump -v v17 of 50 sharded variables (5 shards of 73 inner chunks each): %d GETs: %d root probes (missing), 1 root zarr.json, %d shard-index reads, %d data reads; %d of another variable\n' \
    "$gets" "$probes" "$index" "$((ranged - index))" "$others"
printf 'values: %s\n' "$same"
ok=1
[ "$same" = identical ] || ok=0
[ "$others" = 0 ] || ok=0
[ "$m_ours32" -lt 300 ] && [ "$m_ours23" -lt 300 ] || ok=0
[ "$ok" = 1 ]
