#!/usr/bin/env bash
# Benchmark: nczgen against netcdf-c's ncgen compiling the same CDL to NCZarr, same run.
#
# CDL: 10 million data values: float temp(time=100, lat=200, lon=400) with 4 MB chunks
# (_ChunkSizes, so both write the same chunk grid) plus coordinate variables. Both
# datasets are then dumped with ncdump (-p 9,17) and the data sections must be identical
# (the dataset name in the header differs). Targets (issue 15): nczgen at least 15x
# faster than ncgen, peak RSS under 150 MiB. Wall time is the median of RUNS runs, peak
# RSS from GNU time (benches/measure.sh).
#
# Then the CDL people have (issue 46): the same values as ncdump prints them (ncgen's
# netCDF-4 file of big.cdl dumped by ncdump: 8 values a line, no storage attributes, so
# each tool picks its default chunks), compiled by both; target nczgen >= 15x, < 150 MiB.
#
# Needs: ncgen/ncdump (apt-get install netcdf-bin), GNU time, python3, a release build
# (cargo build --release). Usage: benches/gen_vs_ncgen.sh [RUNS]
# Environment: NCZ_BIN=dir of the nczgen and nczdump to measure (default target/release);
# NCZGEN_BEFORE=path/to/another/nczgen is measured in the same rounds and reported beside
# (e.g. the build of the main branch, to compare a change).
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
nczgen=${NCZGEN:-$bin/nczgen}
nczdump=${NCZDUMP:-$bin/nczdump}
before=${NCZGEN_BEFORE:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"

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

# The CDL as ncdump prints it.
ncgen -4 -o "$work/real.nc" "$work/big.cdl"
ncdump "$work/real.nc" > "$work/real.cdl"
rm -f "$work/real.nc"

# compare SUFFIX CDL: ncgen, nczgen (and the build before) on CDL, named NAME_SUFFIX.
# Each run writes a new output (see measure.sh on why outputs are removed only after).
compare() {
    local suffix=$1 cdl=$2 names=()
    declare -ga "cmd_ncgen$suffix=(ncgen -4 -lb -o \"file://\$work/nc$suffix@R@.file#mode=nczarr,file\" \"\$cdl\")"
    declare -ga "cmd_ours$suffix=(\"\$nczgen\" -o \"\$work/ours$suffix@R@.zarr\" \"\$cdl\")"
    names=("ncgen$suffix" "ours$suffix")
    if [ -n "$before" ]; then
        declare -ga "cmd_before$suffix=(\"\$before\" -o \"\$work/before$suffix@R@.zarr\" \"\$cdl\")"
        names+=("before$suffix")
    fi
    measure "${names[@]}"
}
compare "" "$work/big.cdl"
compare _real "$work/real.cdl"

# Same content: both dumped by ncdump's own reading rules where it can (netcdf-c 4.9.0
# cannot read the zarr-python dtypes nczgen writes by default), so compare with nczdump,
# which reads both, after checking nczdump equals ncdump on ncgen's output.
data() { sed -n '/^data:/,$p'; }
ncdump -p 9,17 "file://$work/nc1.file#mode=nczarr,file" | data > "$work/ref.cdl"
"$nczdump" -p 9,17 "$work/nc1.file" | data > "$work/ref_ours_reader.cdl"
"$nczdump" -p 9,17 "$work/ours1.zarr" | data > "$work/ours.cdl"
"$nczdump" -p 9,17 "$work/nc_real1.file" | data > "$work/ref_real.cdl"
"$nczdump" -p 9,17 "$work/ours_real1.zarr" | data > "$work/ours_real.cdl"
if cmp -s "$work/ref.cdl" "$work/ref_ours_reader.cdl" && cmp -s "$work/ref.cdl" "$work/ours.cdl" \
    && cmp -s "$work/ref_real.cdl" "$work/ours_real.cdl"; then
    same=identical
else
    same=DIFFERENT
fi
ratio=$(echo "$t_ncgen / $t_ours" | bc -l)
printf 'CDL: %s MB, 10,000,700 values (float temp 100x200x400, chunks 10x200x400)\n' \
    "$(($(stat -c %s "$work/big.cdl") / 1000000))"
printf 'ncgen -4 -lb (netcdf-c %s) to NCZarr: %.3f s, peak RSS %d MiB (median of %d)\n' \
    "$(ncdump 2>&1 | sed -n 's/.*library version \([0-9.]*\).*/\1/p')" "$t_ncgen" "$m_ncgen" "$runs"
printf 'nczgen to NCZarr: %.3f s, peak RSS %d MiB (median of %d)\n' "$t_ours" "$m_ours" "$runs"
if [ -n "$before" ]; then
    printf 'nczgen before (%s): %.3f s, peak RSS %d MiB; speed-up ncgen/before: %.1fx\n' \
        "$before" "$t_before" "$m_before" "$(echo "$t_ncgen / $t_before" | bc -l)"
fi
printf 'speed-up ncgen/nczgen: %.1fx (target >= 15x); nczgen peak RSS %d MiB (target < 150 MiB); data %s\n' \
    "$ratio" "$m_ours" "$same"
printf 'the CDL as ncdump prints it (%s MB, %s lines, default chunks): ncgen %.3f s %d MiB | nczgen %.3f s %d MiB: %.1fx (target >= 15x)\n' \
    "$(($(stat -c %s "$work/real.cdl") / 1000000))" "$(wc -l < "$work/real.cdl")" \
    "$t_ncgen_real" "$m_ncgen_real" "$t_ours_real" "$m_ours_real" "$(echo "$t_ncgen_real / $t_ours_real" | bc -l)"
if [ -n "$before" ]; then
    printf '  nczgen before: %.3f s %d MiB\n' "$t_before_real" "$m_before_real"
fi
[ "$same" = identical ]
