//! The formats a netCDF dataset is stored in, one family per folder, each with its
//! documents, its source (and sink, where it is written):
//!
//! - [`nc3`]: netCDF classic, 64-bit offset and CDF-5 files;
//! - [`nc4`]: netCDF-4 files (HDF5), read;
//! - [`sniff`]: which of them a file holds, from its first bytes.
//!
//! The Zarr family (NCZarr, Zarr v2 and v3) is in [`crate::nczarr`], [`crate::zarr`]
//! and [`crate::zarr3`]. A new format is a folder here and a line in [`sniff`] (files)
//! and in [`mod@crate::open`].

pub mod nc3;
pub mod nc4;
pub mod sniff;

pub use sniff::{sniff_at, sniff_file, FileKind};
