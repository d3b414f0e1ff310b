//! Command-line tests, one module per tool.

/// Test helpers: temporary stores, running a tool, asserting on its output.
mod util;

/// `--version` and `--generate` of every tool.
mod about;
/// nczcopy --append: datasets grown in place.
mod append;
/// nczdump on malformed and damaged datasets: one clear line, non-zero exit.
mod bad_inputs;
/// CDL's user-defined types through nczgen.
mod cdl_user_types;
/// Every tool against GCS and Azure emulators (skipped without them) and a web server.
mod clouds;
/// Many inputs joined into one dataset (issue 43).
mod concat;
/// netcdf-c's own fixtures, when ../shared/conformance is present.
mod conformance;
/// Every output kind and chain decoded by xarray, zarr-python and netCDF4-python as
/// its input is (skipped without them).
mod conversions;
/// What a new user's walk along issue 61's edges found, each mended.
mod edges_61;
/// nczdump against ncdump's output for datasets written by the peers.
mod golden;
/// Hostile input under a memory cap and a time limit: no panic, abort or hang.
mod hostile;
/// nczcopy -k kerchunk: references to the chunks of netCDF files, read by xarray.
mod kerchunk;
/// nczcopy -k kerchunk with several files: one virtual dataset joined along a dimension.
mod kerchunk_joined;
/// Nothing narrowed on its way in (issue 61): strings, integers, joins and appends.
mod narrowing_61;
/// nczdump -x (issue 61): NcML of classic-model datasets, against ncdump -x.
mod ncml_61;
/// nczcmp: datasets compared with nccmp's options.
mod nczcmp;
/// nczcopy: lossless copies, nccopy's flags, rechunking, memory, parts.
mod nczcopy;
/// nczcopy as a process: memory budget, killed runs, copies in parts.
mod nczcopy_runs;
/// nczdump: options, output layout, exit codes.
mod nczdump;
/// nczgen: CDL to datasets, errors, safe replacement.
mod nczgen;
/// nczgen streaming large data lists: same datasets, errors mid-stream, stdin.
mod nczgen_stream;
/// netCDF-4 files as output: against ncgen's, decoded by netCDF4-python, xarray, h5py.
mod netcdf4_out;
/// netCDF classic, 64-bit offset and CDF-5 files as input.
mod netcdf_files;
/// netCDF files as output: against ncgen's files, refusals, kinds, the target.
mod netcdf_out;
/// Options with no test elsewhere (nczdump -p -g -K -XF, nczgen -x -H --separator).
mod options;
/// Real files from other writers (issue 39): each class of difference, reproduced.
mod real_files_39;
/// Real files of a second corpus (issue 61): each class of difference, reproduced.
mod real_files_61;
/// What a reference file or a web server may make us read (issue 61): local files,
/// loopback and metadata addresses, credentials.
mod refs_security_61;
/// What a new user met (issue 38): options ignored, messages, layouts, defaults.
mod regressions_38;
/// Every tool against a local S3 server (skipped without one).
mod s3;
/// Every tool through a fault-injecting proxy in front of the local S3 server.
mod s3_faults;
/// netCDF files in S3 objects, read and written.
mod s3_files;
/// What is at an output path survives: refusals, replacement, signals, killed runs.
mod safe_outputs;
/// Selecting variables keeps CF whole (issue 61): -V, -C, --exclude.
mod selection_61;
/// Subsets: --dim by index, value, date, stride, wrapped, multi-slab (issue 42).
mod subset;
/// Where writing tools may write (issue 61): never inside a dataset, over one only
/// with --overwrite.
mod targets_61;
/// CF time: nczdump -t/-i against ncdump, nczgen date strings.
mod times;
/// Zarr version 3 stores.
mod zarr3;
/// zmapdump subcommands.
mod zmapdump;
