//! What every codec is built on: the [`Codec`] trait, the [`ChunkInfo`] a codec is
//! given with each chunk, and the helpers the codec files share (reading a
//! configuration's integers, building its JSON, decoding with a bound on the output).
//! No codec lives here, and nothing here knows the codec table.

use std::fmt;

use super::error::{ChunkFault, ConfigFault};
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
