#!/usr/bin/env bash
# Benchmark: subsets (issue 42), against ncks and xarray in the same run, outputs compared.
#
#   - a month (February, by dates) of tas(365,180,360) float, chunks 1x180x360, from a
#     netCDF-4 file (zlib 1 + shuffle) to a new netCDF-4 file:
#     `nczcopy --dim time,2001-02-01,2001-02-28` against `ncks -d time,2001-02-01,2001-02-28`
#     (NCO takes the dates through UDUnits); target >= 2x;
#   - the same month from a pure Zarr v2 copy to a new Zarr store:
#     `nczcopy --dim ...` against xarray's `open_zarr(...).sel(time=slice(...)).to_zarr(...)`;
#     target >= 5x.
# Outputs are compared by netCDF4-python (tests/cli/data/subset/same_values.py) for ncks
# and by nczdump's text of tas (cksum) for xarray. Wall time is the median of RUNS runs.
#
# Needs: ncks (apt-get install nco), python3 with numpy, netCDF4, xarray and zarr
# (PYTHON=...), a release build (cargo build --release).
# Usage: benches/subset_vs_ncks.sh [RUNS]
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${NCZ_BIN:-$here/target/release}
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/subsetbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/netcdf_inputs.sh
. "$here/benches/netcdf_inputs.sh"
make_era_nc
"$bin/nczcopy" -k zarr "$work/era.nc" "$work/era.zarr"

# shellcheck source=benches/measure.sh
. "$here/benches/measure.sh"

month=(time,2001-02-01,2001-02-28)
cmd_ncks=(ncks -O -d "${month[0]}" -v tas "$work/era.nc" "$work/ncks-@R@.nc")
cmd_ours_nc=("$bin/nczcopy" --dim "${month[0]}" -V tas "$work/era.nc" "$work/ours-@R@.nc")
measure ncks ours_nc
cat > "$work/xr.py" <<'PY'
import sys, xarray as xr
ds = xr.open_zarr(sys.argv[1], consolidated=False)
ds[["tas"]].sel(time=slice("2001-02-01", "2001-02-28")).to_zarr(sys.argv[2], mode="w", zarr_format=2, consolidated=False)
PY
cmd_xarray=("$py" "$work/xr.py" "$work/era.zarr" "$work/xr-@R@.zarr")
cmd_ours_z=("$bin/nczcopy" -k zarr --dim "${month[0]}" -V tas "$work/era.zarr" "$work/oz-@R@.zarr")
measure xarray ours_z

ratio() { echo "$1 / $2" | bc -l; }
s1=$("$py" "$here/tests/cli/data/subset/same_values.py" "$work/ncks-1.nc" "$work/ours-1.nc" 2>&1 | tail -1)
tas() { "$bin/nczdump" -v tas "$1" | sed -n '/^ tas =/,$p' | cksum; }
s2=different
[ "$(tas "$work/xr-1.zarr")" = "$(tas "$work/oz-1.zarr")" ] && s2=same
printf 'a month by dates, netCDF-4 -> netCDF-4: ncks %.3f s %d MiB | nczcopy --dim %.3f s %d MiB | %.2fx (target >= 2x) values %s\n' \
    "$t_ncks" "$m_ncks" "$t_ours_nc" "$m_ours_nc" "$(ratio "$t_ncks" "$t_ours_nc")" "$s1"
printf 'a month by dates, Zarr -> Zarr: xarray sel().to_zarr %.3f s %d MiB | nczcopy --dim %.3f s %d MiB | %.2fx (target >= 5x) values %s\n' \
    "$t_xarray" "$m_xarray" "$t_ours_z" "$m_ours_z" "$(ratio "$t_xarray" "$t_ours_z")" "$s2"
[ "$s1" = same ] && [ "$s2" = same ]
