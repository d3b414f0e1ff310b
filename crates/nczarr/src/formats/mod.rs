//! The formats a netCDF dataset is stored in, one family per folder, each with its
//! documents, its source (and sink, where it is written):
//!
//! - [`zarr`]: the Zarr family: NCZarr, Zarr v2 and v3, read and written;
//! - [`nc3`]: netCDF classic, 64-bit offset and CDF-5 files;
//! - [`nc4`]: netCDF-4 files (HDF5), read;
//! - [`dap`]: OPeNDAP servers' datasets (DAP2 and DAP4), read;
//! - [`sniff`]: which file format a file holds, from its first bytes (a Zarr store is
//!   told by its keys, in `zarr`).
//!
//! A new format is a folder here and a line in [`sniff`] (files) and in
//! [`mod@crate::open`].

pub mod dap;
pub mod nc3;
pub mod nc4;
pub mod sniff;
pub mod zarr;

pub use sniff::{sniff_at, sniff_file, FileKind};

/// The netCDF file formats a dataset can be written as (ncgen's and nccopy's `-k`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcFileKind {
    /// netCDF classic (CDF-1).
    Classic,
    /// 64-bit offset (CDF-2).
    Offset64,
    /// 64-bit data (CDF-5).
    Cdf5,
    /// netCDF-4 (HDF5).
    Netcdf4,
    /// netCDF-4 classic model (HDF5, classic data model).
    Netcdf4Classic,
}

impl NcFileKind {
    /// What `ncdump -k` calls it.
    pub fn name(self) -> &'static str {
        match self {
            NcFileKind::Classic => "classic",
            NcFileKind::Offset64 => "64-bit offset",
            NcFileKind::Cdf5 => "cdf5",
            NcFileKind::Netcdf4 => "netCDF-4",
            NcFileKind::Netcdf4Classic => "netCDF-4 classic model",
        }
    }

    /// True for the two netCDF-4 (HDF5) kinds.
    pub fn is_netcdf4(self) -> bool {
        matches!(self, NcFileKind::Netcdf4 | NcFileKind::Netcdf4Classic)
    }

    /// The classic-family version, for the three that are one.
    pub fn classic_version(self) -> Option<nc3::Version> {
        match self {
            NcFileKind::Classic => Some(nc3::Version::Classic),
            NcFileKind::Offset64 => Some(nc3::Version::Offset64),
            NcFileKind::Cdf5 => Some(nc3::Version::Data64),
            NcFileKind::Netcdf4 | NcFileKind::Netcdf4Classic => None,
        }
    }
}
