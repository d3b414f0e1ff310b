//! Command-line tests, one test binary. Cut by tool: a module per tool (a folder of
//! files by feature where one file would be too long), `every_tool` for what several
//! tools must do alike, `about` for what every tool prints about itself, `hostile`
//! for hostile input to any tool; `util` holds the helpers all of them share.

/// `--version` and `--generate` of every tool.
mod about;
/// What every tool does alike: errors, faults, references, outputs and targets.
mod every_tool;
/// Hostile input under a memory cap and a time limit: no panic, abort or hang.
mod hostile;
/// Icechunk repositories: read, written, appended, their history; against icechunk-python.
mod icechunk;
/// nczatted and nczrename: attribute edits and renames against NCO's ncatted and ncrename.
mod nczatted;
/// nczcmp: datasets compared with nccmp's options.
mod nczcmp;
/// nczcopy: copies, runs, append, joins, subsets, kerchunk, netCDF and Zarr v3 outputs, object stores.
mod nczcopy;
/// nczdump: options, layout, exit codes; JSON, NcML, subsets, times, inputs of every kind.
mod nczdump;
/// nczgen: CDL to datasets and netCDF files, errors, streaming, dates, corpora.
mod nczgen;
/// nczview: slices as pictures (raster pixels against the data and matplotlib, the
/// decorated picture, the terminal, every input kind, refusals).
mod nczview;
/// OPeNDAP: every tool reading what a DAP server (pydap) serves, against ncdump over it.
mod opendap;
/// Test helpers: temporary stores, running a tool, asserting on its output.
mod util;
/// zmapdump subcommands, on disk and on object stores.
mod zmapdump;
