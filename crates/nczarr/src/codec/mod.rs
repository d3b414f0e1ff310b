//! Codecs: the numcodecs-compatible transforms between a chunk's raw bytes and the
//! bytes in the store.
//!
//! One file per codec; [`registry`] builds a codec from its Zarr v2 JSON (`{"id": ...}`),
//! [`Pipeline`] applies a variable's chain (filters, then the compressor) and
//! [`hdf5`] maps codecs to the HDF5 filter ids netCDF's `_Filter` attribute uses, and
//! [`table`] is the one list of codecs and the names each goes by.
//!
//! Building a codec from metadata ([`CodecError::Create`]) and a codec failing on a
//! chunk ([`CodecError::Failed`]) are separate errors: the first is found when a
//! dataset opens, the second names the chunk.

mod astype;
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

pub(crate) use checksum::crc32c;
pub use dtype::{Dtype, DtypeError, Endian};
pub use error::{ChunkFault, ConfigFault};
pub use pipeline::{Decoded, Pipeline};
pub use registry::check_params;

use std::fmt;

use crate::json::Json;

/// What a codec needs to know about the chunk it transforms.
#[derive(Debug, Clone, Copy)]
pub struct ChunkInfo {
    /// Bytes per element of the array's dtype (shuffle and blosc need it).
    pub item_size: usize,
    /// The upper bound on decoded bytes: codecs refuse to inflate beyond it, so a
    /// damaged or hostile chunk cannot exhaust memory.
    pub max_decoded: usize,
}

/// A codec error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The codec cannot be built from its configuration (unknown id, bad parameter).
    #[error("codec {config}: {fault}")]
    Create {
        /// The codec JSON as written.
        config: String,
        /// What is wrong.
        fault: ConfigFault,
    },
    /// The codec failed on a chunk.
    #[error("codec '{codec}' failed on chunk '{key}': {fault}")]
    Failed {
        /// The codec id.
        codec: String,
        /// The chunk key.
        key: String,
        /// What went wrong.
        fault: ChunkFault,
    },
}

/// A bytes-to-bytes codec.
pub trait Codec: Send + Sync + fmt::Debug {
    /// The Zarr v2 codec id (`zlib`, `blosc`, ...).
    fn id(&self) -> &'static str;

    /// Undo the codec: stored bytes to raw bytes.
    ///
    /// # Errors
    /// [`ChunkFault`] saying why the input cannot be decoded.
    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault>;

    /// [`Codec::decode`] into `out`, which the result must fill exactly (a chunk's
    /// place in a read's output). By default decoded, then copied.
    ///
    /// # Errors
    /// As [`Codec::decode`]; [`ChunkFault::Corrupt`] when the result is not
    /// `out.len()` bytes.
    fn decode_to(
        &self,
        input: Vec<u8>,
        out: &mut [u8],
        info: &ChunkInfo,
    ) -> Result<(), ChunkFault> {
        let decoded = self.decode(input, info)?;
        copy_whole(&decoded, out)
    }

    /// Apply the codec: raw bytes to stored bytes.
    ///
    /// # Errors
    /// [`ChunkFault`] saying why the input cannot be encoded.
    fn encode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault>;

    /// The codec's Zarr v2 JSON configuration.
    fn config(&self) -> Json;
}

/// Read an optional integer member of a codec config, with a range check.
pub(crate) fn int_param(
    config: &Json,
    name: &'static str,
    default: i64,
    range: std::ops::RangeInclusive<i64>,
) -> Result<i64, ConfigFault> {
    match config.get(name) {
        None | Some(Json::Null) => Ok(default),
        Some(v) => {
            let n = v.as_i64_lenient().ok_or_else(|| ConfigFault::NotInteger {
                name,
                found: v.to_text(),
            })?;
            if range.contains(&n) {
                Ok(n)
            } else {
                Err(ConfigFault::OutOfRange {
                    name,
                    value: n,
                    min: *range.start(),
                    max: *range.end(),
                })
            }
        }
    }
}

/// Build a JSON object from members.
pub(crate) fn obj(members: Vec<(&str, Json)>) -> Json {
    Json::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// A JSON integer.
pub(crate) fn num(v: i64) -> Json {
    Json::Number(crate::json::Number::from_i64(v))
}

/// Decode from `reader` (a decompressor of `what`) to the end, refusing more than
/// `max` bytes.
pub(crate) fn read_bounded(
    reader: impl std::io::Read,
    max: usize,
    what: &'static str,
) -> Result<Vec<u8>, ChunkFault> {
    let mut out = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    std::io::Read::read_to_end(&mut std::io::Read::take(reader, limit), &mut out).map_err(|e| {
        ChunkFault::Corrupt {
            what,
            detail: e.to_string(),
        }
    })?;
    if out.len() > max {
        return Err(ChunkFault::TooLarge { max });
    }
    Ok(out)
}

/// `decoded` copied into `out`, which it must fill exactly.
pub(crate) fn copy_whole(decoded: &[u8], out: &mut [u8]) -> Result<(), ChunkFault> {
    if decoded.len() != out.len() {
        return Err(wrong_size(decoded.len(), out.len()));
    }
    out.copy_from_slice(decoded);
    Ok(())
}

/// A chunk decoded to `got` bytes where `want` were expected.
pub(crate) fn wrong_size(got: usize, want: usize) -> ChunkFault {
    ChunkFault::Corrupt {
        what: "chunk",
        detail: format!("decodes to {got} bytes, not the {want} of a whole chunk"),
    }
}

/// The error of an encoder writing into memory (`what` names the format).
pub(crate) fn encode_failed(format: &'static str) -> impl Fn(std::io::Error) -> ChunkFault {
    move |e| ChunkFault::EncodeFailed {
        format,
        detail: e.to_string(),
    }
}
