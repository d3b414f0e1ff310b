#!/usr/bin/env bash
# Benchmark: Zarr v3 rechunking and recompression, and v2 -> v3 conversion, with nczcopy
# against zarrs_reencode (crate zarrs_tools, the zarrs project's CLI) and zarr-python,
# in the same run, outputs compared (issue 46).
#
# Dataset: float tas(time=365, lat=180, lon=360), smooth fields plus noise, written by
# zarr-python 3: v3 zstd 1 in chunks 1x180x360; the same
# sharded (inner chunks 1x180x360 in shards 73x180x360); v3 blosc lz4 with shuffle; v2
# zstd 1. Jobs, each run by the three tools:
#   - series: v3 zstd 1x180x360 -> time series, inner chunks 365x10x10 in shards of
#     365x90x90, zstd 1 (every input chunk feeds 648 output chunks);
#   - rechunk: v3 zstd -> inner chunks 73x90x90 in shards of 73x180x360 (each inner
#     chunk gathers 73 input chunks);
#   - reshard: v3 sharded zstd -> blosc lz4 shuffle, inner chunks and shards kept;
#   - recompress: v3 blosc -> zstd 1, chunks kept;
#   - v2to3: v2 zstd -> v3, chunks and codec kept.
# The rechunks write shards because zarrs_reencode 0.8.1 changes the chunk grid only
# then: given --chunk-shape alone it keeps the input's chunks (its builder applies the
# override to the sharding codec only). The check below compares each output's chunk
# grid and codecs with the other tools' so that every tool is seen doing the same job.
# zarrs_reencode gets a chunk cache of 1 GiB (--cache-size; without one a rechunk decodes
# each input chunk once per output chunk it feeds). zarr-python reads the array whole
# and writes it (the data fit in memory: its fastest way). Every output is read back by
# zarr-python and compared with the input, value for value.
# Wall time is the median of RUNS runs, commands alternated; peak RSS from GNU time
# (benches/measure.sh). Targets: nczcopy >= 1x zarrs_reencode, >= 5x zarr-python. nczcopy
# makes its output durable before it is put in place (docs/reliability.md); neither peer
# syncs: nczcopy with NCZARR_FSYNC=0 is measured too, to show what that costs.
#
# Needs: zarrs_reencode (cargo install zarrs_tools@0.8.1 --locked), GNU time, python3
# with numpy and zarr>=3 (PYTHON=...), a release build (cargo build --release).
# Usage: benches/zarr3_vs_zarrs.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
zarrs=${ZARRS_REENCODE:-zarrs_reencode}
work=$(mktemp -d "${TMPDIR:-/tmp}/zarrsbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v "$zarrs" > /dev/null || {
    echo "zarrs_reencode not found: cargo install zarrs_tools@0.8.1 --locked" >&2
    exit 1
}
# shellcheck source=benches/measure.sh
source "$here/benches/measure.sh"

"$py" - "$work" <<'PY'
import sys, numpy as np, numcodecs, zarr
from zarr.codecs import BloscCodec, ZstdCodec
work = sys.argv[1]
nt, ny, nx = 365, 180, 360
rng = np.random.default_rng(42)
base = (280 + 20 * np.cos(np.linspace(0, np.pi, ny)))[:, None] * np.ones((1, nx))
data = np.stack([(base + rng.standard_normal((ny, nx)) * 2) for _ in range(nt)]).astype("f4")
dims = ("time", "lat", "lon")
def v3(name, **kw):
    g = zarr.open_group(f"{work}/{name}.zarr", mode="w", zarr_format=3)
    g.create_array("tas", shape=data.shape, dtype="f4", chunks=(1, ny, nx),
                   dimension_names=dims, **kw)[...] = data
v3("zstd", compressors=ZstdCodec(level=1))
v3("sharded", compressors=ZstdCodec(level=1), shards=(73, ny, nx))
v3("blosc", compressors=BloscCodec(cname="lz4", clevel=5, shuffle="shuffle"))
g = zarr.open_group(f"{work}/v2.zarr", mode="w", zarr_format=2)
g.create_array("tas", shape=data.shape, dtype="f4", chunks=(1, ny, nx),
               compressors=numcodecs.Zstd(level=1),
               attributes={"_ARRAY_DIMENSIONS": list(dims)})[...] = data
np.save(f"{work}/data.npy", data)
PY

# zarr-python's copy: IN OUT CHUNKS SHARDS|- CODEC (zstd or blosc).
cat > "$work/zarr_copy.py" <<'PY'
import sys, zarr
from zarr.codecs import BloscCodec, ZstdCodec
src, dst, chunks, shards, codec = sys.argv[1:6]
a = zarr.open_array(src, mode="r")
data = a[...]
comp = ZstdCodec(level=1) if codec == "zstd" else BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")
kw = {} if shards == "-" else {"shards": tuple(map(int, shards.split(",")))}
out = zarr.create_array(dst, shape=data.shape, dtype=data.dtype, zarr_format=3,
                        chunks=tuple(map(int, chunks.split(","))), compressors=comp,
                        dimension_names=("time", "lat", "lon"), **kw)
out[...] = data
PY

zstd_json='[{"name": "zstd", "configuration": {"level": 1, "checksum": false}}]'
blosc_json='[{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}]'
cache=(--cache-size 1073741824)

# job NAME IN CHUNKS SHARDS|- SPEC(ours: -c) SHARDSPEC(ours: --shards) CODEC:
# cmd_NAME_{zarrs,ours,zp}.
job() {
    local name=$1 in=$2 chunks=$3 shards=$4 spec=$5 shardspec=$6 codec=$7
    local zj=$zstd_json ours_codec=(--codec zstd:level=1) zs=() os=() oc=()
    if [ "$codec" = blosc ]; then
        zj=$blosc_json
        ours_codec=(--codec blosc:cname=lz4,clevel=5,shuffle=1)
    fi
    [ "$shards" = - ] || zs=(--shard-shape "$shards")
    [ "$shardspec" = - ] || os=(--shards "$shardspec")
    [ "$spec" = - ] || oc=(-c "$spec")
    local -n z="cmd_${name}_zarrs" o="cmd_${name}_ours" p="cmd_${name}_zp"
    z=("$zarrs" "${cache[@]}" --chunk-shape "$chunks" "${zs[@]}" --bytes-to-bytes-codecs "$zj"
        "$work/$in.zarr/tas" "$work/out-$name-zarrs-@R@")
    o=("$bin/nczcopy" -k zarr3 "${oc[@]}" "${os[@]}" "${ours_codec[@]}"
        "$work/$in.zarr" "$work/out-$name-ours-@R@.zarr")
    local -n u="cmd_${name}_unsynced"
    u=(env NCZARR_FSYNC=0 "${o[@]}")
    u[${#u[@]}-1]="$work/out-$name-unsynced-@R@.zarr"
    unset -n u
    p=("$py" "$work/zarr_copy.py" "$work/$in.zarr/tas" "$work/out-$name-zp-@R@" "$chunks" "$shards" "$codec")
    unset -n z o p
}
job series zstd 365,10,10 365,90,90 time/365,lat/10,lon/10 lat/90,lon/90 zstd
job rechunk zstd 73,90,90 73,180,360 time/73,lat/90,lon/90 lat/180,lon/360 zstd
job reshard sharded 1,180,360 73,180,360 - time/73 blosc
job recompress blosc 1,180,360 - - - zstd
# v2 -> v3 keeps the input's chunks and codec: no options but the format.
job v2to3 v2 1,180,360 - - - zstd
cmd_v2to3_zarrs=("$zarrs" "$work/v2.zarr/tas" "$work/out-v2to3-zarrs-@R@")
cmd_v2to3_ours=("$bin/nczcopy" -k zarr3 "$work/v2.zarr" "$work/out-v2to3-ours-@R@.zarr")
cmd_v2to3_unsynced=(env NCZARR_FSYNC=0 "$bin/nczcopy" -k zarr3 "$work/v2.zarr" "$work/out-v2to3-unsynced-@R@.zarr")

names=()
for j in series rechunk reshard recompress v2to3; do names+=("${j}_zarrs" "${j}_ours" "${j}_unsynced" "${j}_zp"); done
measure "${names[@]}"

# Every output holds the input's values, and the three tools' outputs of a job have the
# same chunk grid, shards and codecs.
"$py" - "$work" <<'PY'
import sys, glob, json, numpy as np, zarr
work = sys.argv[1]
data = np.load(f"{work}/data.npy")
bad = 0
def layout(path):
    meta = json.load(open(f"{path}/zarr.json"))
    codecs = meta["codecs"]
    grid = meta["chunk_grid"]["configuration"]["chunk_shape"]
    if codecs[0]["name"] == "sharding_indexed":
        c = codecs[0]["configuration"]
        return (grid, c["chunk_shape"], [x["name"] for x in c["codecs"]])
    return (grid, None, [x["name"] for x in codecs])
for job in ["series", "rechunk", "reshard", "recompress", "v2to3"]:
    outs = {"zarrs": f"{work}/out-{job}-zarrs-1", "ours": f"{work}/out-{job}-ours-1.zarr/tas",
            "zarr-python": f"{work}/out-{job}-zp-1"}
    layouts = {}
    for tool, path in outs.items():
        if not np.array_equal(zarr.open_array(path, mode="r")[...], data):
            print(f"DIFFERENT values: {job} by {tool}"); bad += 1
        layouts[tool] = layout(path)
    if len({json.dumps(l) for l in layouts.values()}) != 1:
        print(f"DIFFERENT layouts: {job}: {layouts}"); bad += 1
print("outputs: every one equals the input, each job's three alike in chunks, shards and codecs"
      if not bad else f"{bad} differences")
sys.exit(1 if bad else 0)
PY

ratio() { echo "scale=2; $1 / $2" | bc; }
echo "median of $runs runs (s, peak MiB); nczcopy against zarrs_reencode (target >= 1x) and zarr-python (>= 5x):"
for j in series rechunk reshard recompress v2to3; do
    local_z="t_${j}_zarrs" local_o="t_${j}_ours" local_p="t_${j}_zp" local_u="t_${j}_unsynced"
    mz="m_${j}_zarrs" mo="m_${j}_ours" mp="m_${j}_zp"
    printf '  %-10s zarrs_reencode %s s %s MiB | nczcopy %s s %s MiB (unsynced %s s) | zarr-python %s s %s MiB | x%s zarrs (unsynced x%s), x%s zarr-python\n' \
        "$j" "${!local_z}" "${!mz}" "${!local_o}" "${!mo}" "${!local_u}" "${!local_p}" "${!mp}" \
        "$(ratio "${!local_z}" "${!local_o}")" "$(ratio "${!local_z}" "${!local_u}")" "$(ratio "${!local_p}" "${!local_o}")"
done
