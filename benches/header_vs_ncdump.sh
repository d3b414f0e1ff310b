#!/usr/bin/env bash
# Benchmark: `nczdump -h` against `ncdump -h` on datasets with many variables, same run.
#
# Datasets (NCZarr, written by netcdf-c's ncgen so ncdump 4.9.0 reads them natively):
#   h400   400 variables in the root group, 4 attributes each
#   h5000  5,000 variables in 200 groups (25 each), 4 attributes each
# Every variable has its own chunk grid, so each is a .zarray and a .zattrs to read.
# Outputs must be byte-identical. Target (issue 15): at least 5x faster than ncdump -h.
#
# Needs: ncgen/ncdump (apt-get install netcdf-bin), GNU time, python3, a release build
# (cargo build --release). Usage: benches/header_vs_ncdump.sh [RUNS]
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && tmp=/dev/shm
work=$(mktemp -d "$tmp/headbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
measure_keep_output=1

make_cdl() { # NAME GROUPS VARS_PER_GROUP
    python3 - "$@" <<'PY'
import sys
name, groups, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def group_body(ind, g):
    out = []
    out.append(f"{ind}dimensions:\n{ind}\tx = 10 ;\n{ind}\ty = 20 ;\n{ind}variables:\n")
    for v in range(per):
        out.append(f"{ind}\tfloat v{g}_{v}(x, y) ;\n")
        out.append(f'{ind}\t\tv{g}_{v}:units = "m s-1" ;\n')
        out.append(f'{ind}\t\tv{g}_{v}:long_name = "variable {v} of group {g}" ;\n')
        out.append(f"{ind}\t\tv{g}_{v}:scale_factor = 0.5f ;\n")
        out.append(f"{ind}\t\tv{g}_{v}:valid_range = -100., 100. ;\n")
    return "".join(out)
with open(f"{name}.cdl", "w") as f:
    f.write(f"netcdf {name} {{\n")
    if groups == 0:
        f.write(group_body("", 0))
    else:
        f.write("\n// global attributes:\n\t\t:title = \"many groups\" ;\n")
        for g in range(groups):
            f.write(f"\ngroup: g{g} {{\n")
            f.write(group_body("  ", g))
            f.write(f"  }} // group g{g}\n")
    f.write("}\n")
PY
    ncgen -4 -lb -o "file://$work/$1.file#mode=nczarr,file" "$1.cdl"
}

cd "$work"
make_cdl h400 0 400
make_cdl h5000 200 25

ok=1
report=()
for ds in h400 h5000; do
    cmd_nc=(ncdump -h "file://$work/$ds.file#mode=nczarr,file")
    cmd_ours=("$bin/nczdump" -h "$work/$ds.file")
    measure nc ours
    same=identical
    cmp -s "$work/out-nc.txt" "$work/out-ours.txt" || { same=DIFFERENT; ok=0; }
    speed=$(echo "$t_nc / $t_ours" | bc -l)
    (($(echo "$speed < 5" | bc -l))) && ok=0
    report+=("$(printf '%-6s ncdump -h %6.3f s %4d MiB | nczdump -h %6.3f s %4d MiB | %5.1fx (target >= 5x) %s' \
        "$ds" "$t_nc" "$m_nc" "$t_ours" "$m_ours" "$speed" "$same")")
done
printf 'nczdump -h vs ncdump -h (netcdf-c %s), median of %d runs\n' \
    "$(ncdump 2>&1 | sed -n 's/.*library version \([0-9.]*\).*/\1/p')" "$runs"
printf '%s\n' "${report[@]}"
[ "$ok" = 1 ]
