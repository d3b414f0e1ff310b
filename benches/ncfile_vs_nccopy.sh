#!/usr/bin/env bash
# Benchmark: netCDF files as output (issue 41), against netcdf-c's nccopy and ncgen in
# the same run, outputs compared.
#
#   - NCZarr -> classic file: float tas(365,180,360), chunks 1x180x360, uncompressed
#     (benches/copy_vs_nccopy.sh's dataset): `nczcopy -k classic` against
#     `nccopy -k classic 'file://...#mode=nczarr,file'`; target >= 2x;
#   - classic -> CDF-5: the same values, `nczcopy -k cdf5 x.nc y.nc` against `nccopy -k cdf5`;
#   - CDL -> classic file: the 10-million-value CDL of benches/gen_vs_ncgen.sh,
#     `nczgen -k classic` against `ncgen -k classic`.
# Each output must be byte-identical to netcdf-c's (cmp). Wall time is the median of RUNS
# runs; peak RSS from GNU time (benches/measure.sh). Unless BIG=0, nczcopy alone then
# copies a 2 GiB variable (float 1024x512x1024) into a CDF-5 file: peak RSS must stay
# under 300 MiB (the default --memory 256M bounds the values; the file is not held).
#
# Needs: ncgen/nccopy (apt-get install netcdf-bin), GNU time, python3 with numpy
# (PYTHON=...), a release build (cargo build --release).
# Usage: benches/ncfile_vs_nccopy.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/ncfilebench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The NCZarr input, as copy_vs_nccopy.sh makes it.
# shellcheck source=benches/netcdf_inputs.sh
. "$here/benches/netcdf_inputs.sh"
make_tas_store
make_big_cdl

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"

in_url="file://$work/b.file#mode=nczarr,file"
cmd_nccopy=(nccopy -k classic "$in_url" "$work/nccopy-@R@.nc")
cmd_ours=("$bin/nczcopy" -k classic "$work/b.file" "$work/ours-@R@.nc")
measure nccopy ours
cmd_nccopy5=(nccopy -k cdf5 "$work/nccopy-1.nc" "$work/nccopy5-@R@.nc")
cmd_ours5=("$bin/nczcopy" -k cdf5 "$work/ours-1.nc" "$work/ours5-@R@.nc")
measure nccopy5 ours5
cmd_ncgen=(ncgen -k classic -o "$work/ncgen-@R@.nc" "$work/g.cdl")
cmd_nczgen=("$bin/nczgen" -k classic -o "$work/nczgen-@R@.nc" "$work/g.cdl")
measure ncgen nczgen

same() { cmp -s "$1" "$2" && echo identical || echo DIFFERENT; }
ratio() { echo "$1 / $2" | bc -l; }
s1=$(same "$work/nccopy-1.nc" "$work/ours-1.nc")
s5=$(same "$work/nccopy5-1.nc" "$work/ours5-1.nc")
sg=$(same "$work/ncgen-1.nc" "$work/nczgen-1.nc")
printf 'NCZarr -> classic, float tas(365,180,360) 90 MiB: nccopy %.3f s %d MiB | nczcopy %.3f s %d MiB | %.2fx (target >= 2x) bytes %s\n' \
    "$t_nccopy" "$m_nccopy" "$t_ours" "$m_ours" "$(ratio "$t_nccopy" "$t_ours")" "$s1"
printf 'classic -> CDF-5: nccopy %.3f s %d MiB | nczcopy %.3f s %d MiB | %.2fx bytes %s\n' \
    "$t_nccopy5" "$m_nccopy5" "$t_ours5" "$m_ours5" "$(ratio "$t_nccopy5" "$t_ours5")" "$s5"
printf 'CDL (10M values) -> classic: ncgen %.3f s %d MiB | nczgen %.3f s %d MiB | %.2fx bytes %s\n' \
    "$t_ncgen" "$m_ncgen" "$t_nczgen" "$m_nczgen" "$(ratio "$t_ncgen" "$t_nczgen")" "$sg"
ok=1
[ "$s1" = identical ] && [ "$s5" = identical ] && [ "$sg" = identical ] || ok=0

if [ "${BIG:-1}" != 0 ]; then
    rm -rf "$work"/*.nc "$work/b.file"
    make_2gib_store
    cmd_big=("$bin/nczcopy" -k cdf5 "$work/big.file" "$work/big-@R@.nc")
    runs=1 measure big
    printf '2 GiB: float tas(1024,512,1024) -> CDF-5: nczcopy %.1f s, %d MiB peak (target < 300)\n' \
        "$t_big" "$m_big"
    [ "$m_big" -lt 300 ] || ok=0
fi
[ "$ok" = 1 ]
