//! HDF5's side of a codec: the registered HDF5 filter ids netCDF-4 files (and
//! netCDF's `_Filter` attribute) use, and the vocabulary of a codec table row's HDF5
//! forms: what a netCDF-4 writer stores ([`Hdf5Write`]; [`StoredFilter`], what the
//! table answers for one codec's JSON; [`Hdf5FormError`] when it has no such form)
//! and what `_Filter` shows and reads back ([`Hdf5Attr`], [`FilterError`]).
//!
//! A codec file says its own HDF5 parameters with functions of these types; the table
//! (`table.rs`) joins them to the filter id. This file knows no codec by name.

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

/// How netCDF's `_Filter` attribute shows a codec and reads it back (a codec table
/// row's; the filter id is the row's `hdf5`).
#[derive(Debug, Clone, Copy)]
pub struct Hdf5Attr {
    /// The most parameters a `_Filter` entry for it may give.
    pub most_params: usize,
    /// The parameters ncdump shows for the codec's JSON; `None` when its JSON does not
    /// say them.
    pub shown: fn(&Json) -> Option<Vec<u32>>,
    /// The codec's JSON for a `_Filter` entry's parameters (no more than
    /// `most_params`).
    pub codec: fn(&[u32]) -> Result<Json, FilterError>,
}

/// An HDF5 filter with no Zarr codec here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// A blosc compressor code this build of c-blosc does not have.
    #[error("blosc compressor code {0} is not available")]
    BloscCompressor(u32),
    /// szip: readers may have a decoder, but no encoder is bundled.
    #[error("the szip filter (4) is not available: no szip encoder is bundled")]
    Szip,
    /// A filter id with no codec.
    #[error("HDF5 filter {0} has no Zarr codec in this build")]
    Unknown(u32),
    /// More parameters than the filter takes.
    #[error("HDF5 filter {id} ({name}) takes at most {most} parameter{}, not {got}", if *most == 1 { "" } else { "s" })]
    TooManyParams {
        /// The filter id.
        id: u32,
        /// Its codec's name.
        name: &'static str,
        /// The most it takes.
        most: usize,
        /// How many were given.
        got: usize,
    },
}

/// The first of a `_Filter` entry's parameters (a level), `default` when none is given.
pub(crate) fn first_param(params: &[u32], default: i64) -> i64 {
    params.first().map_or(default, |&p| i64::from(p))
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
