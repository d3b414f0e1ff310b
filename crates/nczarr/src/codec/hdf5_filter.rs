//! HDF5's side of a codec: the registered HDF5 filter ids netCDF-4 files (and
//! netCDF's `_Filter` attribute) use, and the vocabulary of what a netCDF-4 writer
//! stores for a codec ([`Hdf5Write`], a codec table row's; [`StoredFilter`], what the
//! table answers for one codec's JSON; [`Hdf5FormError`] when it has no such form).
//!
//! A codec file says its own HDF5 parameters with a [`StoredParams`] function; the
//! table (`table.rs`) joins that to the filter id. This file knows no codec by name.

use super::error::ConfigFault;
use crate::json::Json;

/// HDF5 deflate.
pub const DEFLATE: u32 = 1;
/// HDF5 shuffle.
pub const SHUFFLE: u32 = 2;
/// HDF5 Fletcher-32.
pub const FLETCHER32: u32 = 3;
/// HDF5 szip.
pub const SZIP: u32 = 4;
/// bzip2 (registered HDF5 filter).
pub const BZIP2: u32 = 307;
/// blosc (registered HDF5 filter).
pub const BLOSC: u32 = 32001;
/// zstd (registered HDF5 filter).
pub const ZSTD: u32 = 32015;
/// LZF (registered HDF5 filter; h5py's light compressor).
pub const LZF: u32 = 32000;
/// LZ4 (registered HDF5 filter, hdf5plugin's).
pub const LZ4: u32 = 32004;
/// bitshuffle, alone or with LZ4 or zstd (registered HDF5 filter, hdf5plugin's).
pub const BITSHUFFLE: u32 = 32008;

/// What HDF5's filters are told of a variable's chunks when a netCDF-4 file is
/// written: what a filter's own `set_local` fills into its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredChunk {
    /// Bytes per element of the variable's HDF5 type.
    pub item_size: u32,
    /// Bytes in one chunk (`u32::MAX` when larger).
    pub chunk_bytes: u32,
}

/// A codec's HDF5 parameters (`cd_values`) as HDF5 keeps them for a chunk layout,
/// from its JSON.
///
/// # Errors
/// [`ConfigFault`] when the JSON does not describe a codec the filter can store.
pub type StoredParams = fn(&Json, &StoredChunk) -> Result<Vec<u32>, ConfigFault>;

/// How a writer of netCDF-4 files stores a codec as an HDF5 filter (a codec table
/// row's; the filter id is the row's `hdf5`).
#[derive(Debug, Clone, Copy)]
pub struct Hdf5Write {
    /// HDF5's optional flag: a reader without the filter may skip it. netcdf-c sets it
    /// on every filter but Fletcher-32.
    pub optional: bool,
    /// Its parameters, as HDF5 keeps them after the filter's own `set_local`.
    pub params: StoredParams,
}

/// An HDF5 filter as a netCDF-4 file stores it in a variable's filter pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFilter {
    /// The filter id.
    pub id: u16,
    /// HDF5's optional flag (see [`Hdf5Write::optional`]).
    pub optional: bool,
    /// Every parameter (`cd_values`).
    pub params: Vec<u32>,
}

/// Why a codec has no HDF5 filter a netCDF-4 writer can store it with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Hdf5FormError {
    /// The codec's JSON has no `"id"`, or one this build does not know.
    #[error("unknown codec '{id}'")]
    Unknown {
        /// The id as written (`""` when there is none).
        id: String,
    },
    /// A codec with no HDF5 filter, or one whose HDF5 filter writes other bytes.
    #[error("no HDF5 filter stores the bytes of codec '{id}'")]
    NoFilter {
        /// The codec's id.
        id: String,
    },
    /// A configuration the codec's HDF5 filter cannot take.
    #[error("codec '{id}': {fault}")]
    Config {
        /// The codec's id.
        id: String,
        /// What is wrong.
        fault: ConfigFault,
    },
}

/// Integer member `name` of a codec's JSON as an HDF5 parameter (a C `unsigned int`):
/// `default` when it is absent or not an integer; out-of-range values wrap, as
/// netcdf-c's do.
pub(crate) fn param_u32(config: &Json, name: &str, default: i64) -> u32 {
    config
        .get(name)
        .and_then(Json::as_i64_lenient)
        .unwrap_or(default) as u32
}
