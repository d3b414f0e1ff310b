//! Codecs: the numcodecs-compatible transforms between a chunk's raw bytes and the
//! bytes in the store.
//!
//! One file per codec; [`registry`] builds a codec from its Zarr v2 JSON (`{"id": ...}`),
//! [`Pipeline`] applies a variable's chain (filters, then the compressor) and
//! [`hdf5`] maps codecs to the HDF5 filter ids netCDF's `_Filter` attribute uses, and
//! [`table`] is the one list of codecs and the names each goes by, and what a
//! netCDF-4 file stores for each ([`table::stored_hdf5_filter`]).
//!
//! Building a codec from metadata ([`CodecError::Create`]) and a codec failing on a
//! chunk ([`CodecError::Failed`]) are separate errors: the first is found when a
//! dataset opens, the second names the chunk.
//!
//! This file only declares and re-exports; the files below import each other one way
//! only, lowest first: `error` (the errors), `base` (the [`Codec`] trait and the
//! helpers codec files share), `hdf5_filter` (HDF5's filter ids and the vocabulary of
//! a codec's HDF5 forms), the codec files, `table`, then what reads the table: `hdf5`
//! (`_Filter`'s mapping), `registry`, `pipeline`.

mod astype;
mod base;
mod bitround;
mod bitshuffle;
pub(crate) mod blosc;
mod bz2;
mod categorize;
mod checksum;
mod deflate_runs;
mod delta;
pub mod dtype;
mod error;
mod fixedscaleoffset;
mod fletcher32;
mod gzip;
pub mod hdf5;
mod hdf5_filter;
mod huffman;
mod lz4;
mod lz4h5;
mod lzf;
mod numeric;
mod packbits;
mod pcodec;
mod pipeline;
mod quantize;
pub mod registry;
mod shuffle;
pub mod table;
mod vlen;
mod zfp;
mod zlib;
mod zstd;

pub(crate) use base::{copy_whole, encode_failed, int_param, num, obj, read_bounded, wrong_size};
pub use base::{ChunkInfo, Codec};
pub(crate) use checksum::crc32c;
pub use dtype::{Dtype, DtypeError, Endian};
pub use error::{ChunkFault, CodecError, ConfigFault};
pub use hdf5_filter::{
    Hdf5Attr, Hdf5FormError, Hdf5Write, StoredChunk, StoredFilter, StoredParams,
};
pub use pipeline::{Decoded, Pipeline};
pub use registry::check_params;
