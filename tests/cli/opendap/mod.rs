//! OPeNDAP: every tool reading what a DAP2 server serves. pydap serves netCDF files
//! the tests write; `nczdump URL` is compared with `ncdump URL` (netcdf-c 4.9.0's DAP2
//! client) over the same server, byte for byte; the other tools against the files.

/// DAP4 over a DAP4 server serving netCDF-4 files: against ncdump and the files.
mod dap4;
/// Against a THREDDS- and Hyrax-like server: grids, nested tables, sequences, limits,
/// logins, broken answers.
mod fixtures;
/// nczdump against ncdump over pydap: shapes, types, options, URL spellings, errors.
mod pydap_dumps;
/// nczcopy, nczcmp and zmapdump over pydap.
mod pydap_tools;
