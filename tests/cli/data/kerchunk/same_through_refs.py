"""xarray reads each netCDF file and its kerchunk references (through fsspec's reference
filesystem) as the same dataset: the same variables, dimensions, coordinates and values
(xr.testing.assert_equal), and attributes of the same values (a Zarr attribute reads
as a list where the file's reads as an array, in every Zarr). Arguments: FILE REFS
pairs. A file xarray cannot open by itself is skipped (said on stdout); any other
difference fails, named."""
import sys
import warnings

import numpy as np
import xarray as xr

warnings.simplefilter("ignore")


def same_attrs(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, str) or isinstance(y, str):
            if x != y:
                return False
            continue
        x = np.atleast_1d(np.asarray(x))
        # JSON keeps numbers, not their width: the file's float32 1.25e-30 reads back
        # as the float64 of its shortest text, equal once narrowed again (and a uint64
        # past int64 only as the file's own type holds it).
        try:
            y = np.atleast_1d(np.array(y, dtype=x.dtype if x.dtype.kind in "iufc" else None))
        except (OverflowError, ValueError):
            return False
        if x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            return False
    return True


failed = []
args = sys.argv[1:]
for nc, refs in zip(args[::2], args[1::2]):
    try:
        want = xr.open_dataset(nc).load()
    except Exception as e:  # noqa: BLE001 - the file itself is not for xarray
        print(f"skipped {nc}: xarray cannot open it: {type(e).__name__}")
        continue
    try:
        got = xr.open_dataset(
            "reference://",
            engine="zarr",
            backend_kwargs={"consolidated": False, "storage_options": {"fo": refs}},
        ).load()
        xr.testing.assert_equal(got, want)
        for name in [None, *want.variables]:
            a = want.attrs if name is None else want[name].attrs
            b = got.attrs if name is None else got[name].attrs
            if not same_attrs(a, b):
                raise AssertionError(f"attributes of {name or 'the dataset'}: {a} != {b}")
            if name is not None and want[name].dtype != got[name].dtype:
                raise AssertionError(f"{name}: {want[name].dtype} != {got[name].dtype}")
    except Exception as e:  # noqa: BLE001 - reported with the file's name
        failed.append(f"{nc}: {type(e).__name__}: {str(e)[:600]}")
for f in failed:
    print(f, file=sys.stderr)
sys.exit(1 if failed else 0)
