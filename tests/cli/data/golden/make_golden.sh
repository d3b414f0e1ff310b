#!/bin/sh
# Regenerate the golden corpus (see README.md): a wrapper around make_golden.py.
# PYTHON: an interpreter with netCDF4, zarr, xarray, numcodecs (default python3).
# NCZDUMP: the binary under test (default <repo>/target/debug/nczdump).
exec "${PYTHON:-python3}" "$(dirname "$0")/make_golden.py" "$@"
