//! The formats a netCDF dataset is stored in, one family per folder, each with its
//! documents, its source (and sink, where it is written):
//!
//! - [`zarr`]: the Zarr family: NCZarr, Zarr v2 and v3, read and written;
//! - [`nc3`]: netCDF classic, 64-bit offset and CDF-5 files;
//! - [`nc4`]: netCDF-4 files (HDF5), read;
//! - [`sniff`]: which file format a file holds, from its first bytes (a Zarr store is
//!   told by its keys, in `zarr`).
//!
//! A new format is a folder here and a line in [`sniff`] (files) and in
//! [`mod@crate::open`].

pub mod nc3;
pub mod nc4;
pub mod sniff;
pub mod zarr;

pub use sniff::{sniff_at, sniff_file, FileKind};
