#!/usr/bin/env bash
# Benchmark: nczgen against netcdf-c's ncgen compiling the same CDL to NCZarr, same run.
#
# CDL: 10 million data values: float temp(time=100, lat=200, lon=400) with 4 MB chunks
# (_ChunkSizes, so both write the same chunk grid) plus coordinate variables. Both
# datasets are then dumped with ncdump (-p 9,17) and the data sections must be identical
# (the dataset name in the header differs). Target: nczgen at least 5x faster.
#
# Needs: ncgen/ncdump (apt-get install netcdf-bin), python3, a release build
# (cargo build --release). Usage: benches/gen_vs_ncgen.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
nczgen=${NCZGEN:-$here/target/release/nczgen}
nczdump=${NCZDUMP:-$here/target/release/nczdump}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/big.cdl" <<'PY'
import random, sys
random.seed(7)
nt, ny, nx = 100, 200, 400
with open(sys.argv[1], "w") as f:
    f.write("netcdf big {\ndimensions:\n\ttime = %d ;\n\tlat = %d ;\n\tlon = %d ;\n" % (nt, ny, nx))
    f.write("variables:\n\tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n")
    f.write("\tfloat lat(lat) ;\n\tfloat lon(lon) ;\n")
    f.write("\tfloat temp(time, lat, lon) ;\n\t\ttemp:units = \"K\" ;\n")
    f.write("\t\ttemp:_ChunkSizes = 10, 200, 400 ;\n\n")
    f.write("// global attributes:\n\t\t:title = \"10 million values\" ;\ndata:\n\n")
    f.write(" time = " + ", ".join(str(t) for t in range(nt)) + " ;\n\n")
    f.write(" lat = " + ", ".join("%.2f" % (-90 + 0.9 * j) for j in range(ny)) + " ;\n\n")
    f.write(" lon = " + ", ".join("%.2f" % (0.9 * i) for i in range(nx)) + " ;\n\n")
    f.write(" temp =\n")
    rows = []
    for t in range(nt):
        for j in range(ny):
            rows.append("  " + ", ".join("%.3f" % (250 + 50 * random.random()) for _ in range(nx)))
    f.write(",\n".join(rows) + " ;\n}\n")
PY

time_it() { # prints the median wall seconds of $runs runs of "$@"
    local times=()
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N)
        times+=("$(echo "$t1 - $t0" | bc -l)")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

gen_ncgen() { rm -rf "$work/nc.file"; ncgen -4 -lb -o "file://$work/nc.file#mode=nczarr,file" "$work/big.cdl"; }
gen_ours() { rm -rf "$work/ours.zarr"; "$nczgen" -o "$work/ours.zarr" "$work/big.cdl"; }

t_nc=$(time_it gen_ncgen)
t_ours=$(time_it gen_ours)

# Same content: both dumped by ncdump's own reading rules where it can (netcdf-c 4.9.0
# cannot read the zarr-python dtypes nczgen writes by default), so compare with nczdump,
# which reads both, after checking nczdump equals ncdump on ncgen's output.
data() { sed -n '/^data:/,$p'; }
ncdump -p 9,17 "file://$work/nc.file#mode=nczarr,file" | data > "$work/ref.cdl"
"$nczdump" -p 9,17 "$work/nc.file" | data > "$work/ref_ours_reader.cdl"
"$nczdump" -p 9,17 "$work/ours.zarr" | data > "$work/ours.cdl"
if cmp -s "$work/ref.cdl" "$work/ref_ours_reader.cdl" && cmp -s "$work/ref.cdl" "$work/ours.cdl"; then
    same=identical
else
    same=DIFFERENT
fi
ratio=$(echo "$t_nc / $t_ours" | bc -l)
printf 'CDL: %s MB, 10,000,700 values (float temp 100x200x400, chunks 10x200x400)\n' \
    "$(($(stat -c %s "$work/big.cdl") / 1000000))"
printf 'ncgen -4 -lb (netcdf-c %s) to NCZarr: %.3f s (median of %d)\n' \
    "$(ncdump 2>&1 | sed -n 's/.*library version \([0-9.]*\).*/\1/p')" "$t_nc" "$runs"
printf 'nczgen to NCZarr: %.3f s (median of %d)\n' "$t_ours" "$runs"
printf 'speed-up ncgen/nczgen: %.1fx (target >= 5x); data %s\n' "$ratio" "$same"
[ "$same" = identical ]
