#!/usr/bin/env bash
# Benchmark: nczdump against netcdf-c's ncdump on the same datasets, in the same run.
#
# Datasets, written by netcdf-c's own ncgen (so ncdump 4.9.0 reads them natively) with
# pseudo-random data written into the chunk files by numpy:
#   b1     float tas(time=365, lat=180, lon=360), chunks 1x180x360, uncompressed NCZarr
#   b1z    the same as a netCDF-4 file, zlib 1 + shuffle (ncdump 4.9.0's NCZarr has no
#          filters): ncdump and nczdump read the same file; nczdump also reads an NCZarr
#          copy with the same filters (nczcopy -d 1 -s), reported beside it
#   small  float tas(73, 180, 360) for -f c (a comment line per value)
#   double double v(100, 180, 360), values spread over 12 orders of magnitude
#   short  short s(365, 180, 360) with a _FillValue, one value in ten missing
#   string string name(1000, 1000), 1 to 24 characters, some quotes and escapes, in a
#          netCDF-4 file (netcdf-c 4.9.0 cannot write strings to NCZarr)
#   many   2,000 float variables of 4x5 values in a netCDF-4 file: the cost per variable
#          (no target in issue 15; never slower than ncdump)
# Cases: the default dump of each, and -p 4,9, -b c on b1. Outputs must be byte-identical.
# Targets (issue 15): b1 and b1z at least 20x faster than ncdump, peak RSS under 200 MiB;
# every other case at least 10x. Wall time is the median of RUNS runs after one untimed
# run of each command, peak RSS from one more run (benches/measure.sh).
#
# Needs: ncgen/ncdump/nccopy (apt-get install netcdf-bin), GNU time, python3 with numpy
# (PYTHON=...), a release build (cargo build --release). Usage: benches/dump_vs_ncdump.sh [RUNS]
# Environment: CASES="b1 p49 ..." runs only those cases.
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
# Outputs are compared, so they are kept: in memory when it can, as a pipe would.
tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && tmp=/dev/shm
work=$(mktemp -d "$tmp/dumpbench.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cases=${CASES:-b1 b1z p49 bc fc double short string many}

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"
measure_keep_output=1
measure_warmup=1

ncgen_store() { # NAME CDL: an NCZarr store made by ncgen from CDL text on stdin
    cat > "$work/$1.cdl"
    ncgen -4 -lb -o "file://$work/$1.file#mode=nczarr,file" "$work/$1.cdl"
}
url() { echo "file://$work/$1.file#mode=nczarr,file"; }

# store NAME NT VAR TYPE 'ATTRIBUTES' SEED 'PYTHON': an NCZarr store of TYPE VAR(NT, 180,
# 360) in chunks of 1x180x360, whose chunk files hold what PYTHON makes of rng (numpy's
# generator) as `x`, one time step at a time.
store() {
    local name=$1 nt=$2 var=$3 type=$4 attrs=$5 seed=$6 make=$7
    printf 'netcdf %s {\ndimensions:\n\ttime = %s ;\n\tlat = 180 ;\n\tlon = 360 ;\nvariables:\n\t%s %s(time, lat, lon) ;\n%s\t\t%s:_ChunkSizes = 1, 180, 360 ;\n}\n' \
        "$name" "$nt" "$type" "$var" "$attrs" "$var" | ncgen_store "$name"
    "$py" - "$work/$name.file/$var" "$nt" "$seed" "$make" <<'PY'
import sys, numpy as np
path, nt, seed, make = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(seed)
for t in range(nt):
    scope = {"rng": rng, "np": np}
    exec(make, scope)
    scope["x"].tofile(f"{path}/{t}.0.0")
PY
}

make_b1() { # NAME NT: float tas(NT,180,360) of random values
    store "$1" "$2" tas float $'\t\ttas:units = "K" ;\n' 42 \
        "x = (rng.standard_normal((180, 360)) * 10 + 280).astype('<f4')"
}

make_double() {
    store double 100 v double "" 43 \
        "x = (rng.standard_normal((180, 360)) * 10.0 ** rng.integers(-6, 6, (180, 360))).astype('<f8')"
}

make_short() {
    store short 365 s short $'\t\ts:_FillValue = -32767s ;\n\t\ts:scale_factor = 0.01f ;\n' 44 \
        "x = rng.integers(-3000, 3000, (180, 360)).astype('<i2'); x[rng.random((180, 360)) < 0.1] = -32767"
}

make_string() {
    "$py" - > "$work/string.cdl" <<'PY'
import random
random.seed(45)
alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789_-"
print("netcdf string {\ndimensions:\n\tn = 1000 ;\n\tm = 1000 ;\nvariables:")
print("\tstring name(n, m) ;\n\t\tname:_ChunkSizes = 100, 1000 ;\ndata:\n\n name =")
rows = []
for _ in range(1000):
    vals = []
    for _ in range(1000):
        s = "".join(random.choice(alphabet) for _ in range(random.randint(1, 24)))
        if random.random() < 0.01:
            s += '\\"quoted\\"\\t'
        vals.append('"%s"' % s)
    rows.append("  " + ", ".join(vals))
print(",\n".join(rows) + " ;\n}")
PY
    # netcdf-c 4.9.0's ncgen cannot write strings to NCZarr (it aborts): a netCDF-4 file.
    ncgen -4 -lb -o "$work/string.nc" "$work/string.cdl"
}

make_many() {
    "$py" - > "$work/many.cdl" <<'PY'
n = 2000
print("netcdf many {\ndimensions:\n\tx = 4 ;\n\ty = 5 ;\nvariables:")
for i in range(n):
    print("\tfloat v%d(x, y) ;" % i)
print("data:")
for i in range(n):
    print(" v%d = %s ;" % (i, ", ".join(str(i + k * 0.5) for k in range(20))))
print("}")
PY
    ncgen -4 -o "$work/many.nc" "$work/many.cdl"
}

ok=1
report=()
# run_case NAME TARGET DATASET [ARGS...]: ncdump and nczdump with ARGS on DATASET's store.
run_case() {
    local name=$1 target=$2 ds=$3; shift 3
    cmd_nc=(ncdump "$@" "$(url "$ds")")
    cmd_ours=("$bin/nczdump" "$@" "$work/$ds.file")
    measure nc ours
    compare "$name" "$target" "$*"
}
# run_nc NAME TARGET: ncdump and nczdump on the netCDF-4 file NAME.nc.
run_nc() {
    cmd_nc=(ncdump "$work/$1.nc")
    cmd_ours=("$bin/nczdump" "$work/$1.nc")
    measure nc ours
    compare "$1" "$2" "(.nc)"
}
compare() { # NAME TARGET ARGS: ratio of t_nc to t_ours, outputs identical, into the report
    local same=identical speed
    cmp -s "$work/out-nc.txt" "$work/out-ours.txt" || { same=DIFFERENT; ok=0; }
    speed=$(echo "$t_nc / $t_ours" | bc -l)
    (($(echo "$speed < $2" | bc -l))) && ok=0
    report+=("$(printf '%-7s %-10s ncdump %7.3f s %4d MiB | nczdump %6.3f s %4d MiB | %5.1fx (target >= %dx) %s' \
        "$1" "$3" "$t_nc" "$m_nc" "$t_ours" "$m_ours" "$speed" "$2" "$same")")
    rm -f "$work"/out-*.txt
}

for c in $cases; do
    case $c in
    b1 | p49 | bc) [ -d "$work/b1.file" ] || make_b1 b1 365 ;;
    b1z)
        [ -d "$work/b1.file" ] || make_b1 b1 365
        nccopy -k nc4 -d 1 -s "$(url b1)" "$work/b1z.nc"
        "$bin/nczcopy" -d 1 -s "$work/b1.file" "$work/b1z.zarr"
        ;;
    fc) make_b1 small 73 ;;
    double) make_double ;;
    short) make_short ;;
    string) make_string ;;
    many) make_many ;;
    esac
    case $c in
    b1) run_case b1 20 b1 ;;
    p49) run_case b1 10 b1 -p 4,9 ;;
    bc) run_case b1 10 b1 -b c ;;
    fc) run_case small 10 small -f c ;;
    double | short) run_case "$c" 10 "$c" ;;
    string) run_nc string 10 ;;
    many) run_nc many 1 ;;
    b1z)
        cmd_nc=(ncdump "$work/b1z.nc")
        cmd_ours=("$bin/nczdump" "$work/b1z.nc")
        cmd_zarr=("$bin/nczdump" "$work/b1z.zarr")
        measure nc ours zarr
        # The NCZarr copy's dump names its own dataset: compare from the dimensions on.
        sed -n '2,$p' "$work/out-zarr.txt" > "$work/zarr.txt"
        sed -n '2,$p' "$work/out-nc.txt" | cmp -s - "$work/zarr.txt" || ok=0
        zarr_line=$(printf '%-7s %-10s                         | nczdump %6.3f s %4d MiB | %5.1fx' \
            b1z "(NCZarr)" "$t_zarr" "$m_zarr" "$(echo "$t_nc / $t_zarr" | bc -l)")
        compare b1z 20 "(.nc)"
        report+=("$zarr_line")
        [ "$m_zarr" -lt 200 ] || ok=0
        ;;
    esac
    # Every peak under 200 MiB.
    [ "$m_ours" -lt 200 ] || ok=0
done

printf 'nczdump vs ncdump (netcdf-c %s), median of %d runs, 2 cores\n' \
    "$(ncdump 2>&1 | sed -n 's/.*library version \([0-9.]*\).*/\1/p')" "$runs"
printf '%s\n' "${report[@]}"
[ "$ok" = 1 ]
