#!/usr/bin/env bash
# Benchmark: netCDF-4 files as output (issue 41), against netcdf-c's nccopy and ncgen in
# the same run, outputs compared.
#
#   - NCZarr -> netCDF-4, zlib 1 + shuffle: float tas(365,180,360), chunks 1x180x360
#     ("era"): `nczcopy era.file era.nc` (era.file compressed, its chunks passed through)
#     against `nccopy -d1 -s 'file://...#mode=nczarr,file' era.nc`, whose input is the
#     same values uncompressed (netcdf-c 4.9.0 as Debian builds it has no zlib plugin for
#     NCZarr: it reads no compressed store); target >= 3x. Also `nczcopy -d 1 -s` from
#     the uncompressed store, compressing on the way as nccopy does;
#   - the same uncompressed: `nczcopy -k nc4` against `nccopy -k nc4`; target >= 2x;
#   - CDL -> netCDF-4: the 10-million-value CDL of benches/gen_vs_ncgen.sh, `nczgen -k nc4`
#     against `ncgen -4`; target >= 10x, peak < 150 MiB;
#   - a rechunk within netCDF-4: the compressed file to chunks 10x180x360
#     (`-c time/10,lat/180,lon/360`), nczcopy against nccopy; target >= 2x.
# Outputs are compared by nczdump's text of their values (cksum). Wall time is the median
# of RUNS runs; peak RSS from GNU time (benches/measure.sh). Unless BIG=0, nczcopy alone
# then copies a 2 GiB variable (float 1024x512x1024) into a netCDF-4 file: peak RSS must
# stay under 300 MiB.
#
# Needs: ncgen/nccopy (apt-get install netcdf-bin), GNU time, python3 with numpy
# (PYTHON=...), a release build (cargo build --release).
# Usage: benches/nc4_vs_nccopy.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/nc4bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/netcdf_inputs.sh
. "$here/benches/netcdf_inputs.sh"
make_tas_store
make_big_cdl
# The compressed input (netcdf-c 4.9.0 writes NCZarr uncompressed: no plugin).
"$bin/nczcopy" -d 1 -s "$work/b.file" "$work/era.file"

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"

cmd_nccopy_z=(nccopy -d1 -s "file://$work/b.file#mode=nczarr,file" "$work/nccopy-z-@R@.nc")
cmd_ours_z=("$bin/nczcopy" "$work/era.file" "$work/ours-z-@R@.nc")
cmd_ours_d=("$bin/nczcopy" -d 1 -s "$work/b.file" "$work/ours-d-@R@.nc")
measure nccopy_z ours_z ours_d
cmd_nccopy_u=(nccopy -k nc4 "file://$work/b.file#mode=nczarr,file" "$work/nccopy-u-@R@.nc")
cmd_ours_u=("$bin/nczcopy" -k nc4 "$work/b.file" "$work/ours-u-@R@.nc")
measure nccopy_u ours_u
cmd_ncgen=(ncgen -4 -o "$work/ncgen-@R@.nc" "$work/g.cdl")
cmd_nczgen=("$bin/nczgen" -k nc4 -o "$work/nczgen-@R@.nc" "$work/g.cdl")
measure ncgen nczgen
cmd_nccopy_c=(nccopy -c time/10,lat/180,lon/360 "$work/nccopy-z-1.nc" "$work/nccopy-c-@R@.nc")
cmd_ours_c=("$bin/nczcopy" -c time/10,lat/180,lon/360 "$work/ours-z-1.nc" "$work/ours-c-@R@.nc")
measure nccopy_c ours_c

# The same values: nczdump of both outputs (ours reads either).
same() {
    [ "$("$bin/nczdump" "$1" | sed 1d | cksum)" = "$("$bin/nczdump" "$2" | sed 1d | cksum)" ] &&
        echo same || echo DIFFERENT
}
ratio() { echo "$1 / $2" | bc -l; }
sz=$(same "$work/nccopy-z-1.nc" "$work/ours-z-1.nc")
sd=$(same "$work/nccopy-z-1.nc" "$work/ours-d-1.nc")
su=$(same "$work/nccopy-u-1.nc" "$work/ours-u-1.nc")
sg=$(same "$work/ncgen-1.nc" "$work/nczgen-1.nc")
sc=$(same "$work/nccopy-c-1.nc" "$work/ours-c-1.nc")
size() { stat -c %s "$1"; }
printf 'NCZarr (zlib 1 + shuffle) -> netCDF-4, 90 MiB float: nccopy -d1 -s %.3f s %d MiB | nczcopy, chunks passed through %.3f s %d MiB | %.2fx (target >= 3x) values %s, sizes %d / %d\n' \
    "$t_nccopy_z" "$m_nccopy_z" "$t_ours_z" "$m_ours_z" "$(ratio "$t_nccopy_z" "$t_ours_z")" "$sz" \
    "$(size "$work/nccopy-z-1.nc")" "$(size "$work/ours-z-1.nc")"
printf '  the same compressed on the way: nczcopy -d 1 -s %.3f s %d MiB | %.2fx values %s, size %d\n' \
    "$t_ours_d" "$m_ours_d" "$(ratio "$t_nccopy_z" "$t_ours_d")" "$sd" "$(size "$work/ours-d-1.nc")"
printf 'NCZarr (uncompressed) -> netCDF-4: nccopy %.3f s %d MiB | nczcopy %.3f s %d MiB | %.2fx (target >= 2x) values %s\n' \
    "$t_nccopy_u" "$m_nccopy_u" "$t_ours_u" "$m_ours_u" "$(ratio "$t_nccopy_u" "$t_ours_u")" "$su"
printf 'CDL (10M values) -> netCDF-4: ncgen %.3f s %d MiB | nczgen %.3f s %d MiB | %.2fx (target >= 10x, < 150 MiB) values %s\n' \
    "$t_ncgen" "$m_ncgen" "$t_nczgen" "$m_nczgen" "$(ratio "$t_ncgen" "$t_nczgen")" "$sg"
printf 'netCDF-4 rechunk to 10x180x360: nccopy %.3f s %d MiB | nczcopy %.3f s %d MiB | %.2fx (target >= 2x) values %s\n' \
    "$t_nccopy_c" "$m_nccopy_c" "$t_ours_c" "$m_ours_c" "$(ratio "$t_nccopy_c" "$t_ours_c")" "$sc"
ok=1
for s in "$sz" "$sd" "$su" "$sg" "$sc"; do [ "$s" = same ] || ok=0; done

if [ "${BIG:-1}" != 0 ]; then
    rm -rf "$work"/*.nc "$work/b.file" "$work/era.file"
    make_2gib_store
    cmd_big=("$bin/nczcopy" -k nc4 "$work/big.file" "$work/big-@R@.nc")
    runs=1 measure big
    printf '2 GiB: float tas(1024,512,1024) -> netCDF-4: nczcopy %.1f s, %d MiB peak (target < 300)\n' \
        "$t_big" "$m_big"
    [ "$m_big" -lt 300 ] || ok=0
fi
[ "$ok" = 1 ]
