//! `fletcher32`: HDF5's Fletcher-32 checksum over big-endian 16-bit words, appended
//! as a little-endian u32 (numcodecs `Fletcher32`, HDF5 filter 3).

use super::hdf5_filter::{FilterError, StoredChunk};
use super::{obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// Fletcher-32 checksum.
#[derive(Debug, Clone)]
pub(crate) struct Fletcher32;

/// HDF5's `H5_checksum_fletcher32`. An odd last byte counts as a high byte.
pub(crate) fn fletcher32(data: &[u8]) -> u32 {
    let mut sum1: u32 = 0;
    let mut sum2: u32 = 0;
    let words = data.chunks_exact(2);
    let odd = words.remainder().first().copied();
    let words: Vec<&[u8]> = words.collect();
    for block in words.chunks(360) {
        for w in block {
            sum1 += (u32::from(w[0]) << 8) | u32::from(w[1]);
            sum2 += sum1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if let Some(b) = odd {
        sum1 += u32::from(b) << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

impl Codec for Fletcher32 {
    fn id(&self) -> &'static str {
        "fletcher32"
    }

    fn decode(&self, mut input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        if input.len() < 4 {
            return Err(ChunkFault::Truncated {
                what: "a fletcher32 checksum",
            });
        }
        let at = input.len() - 4;
        let stored = u32::from_le_bytes([input[at], input[at + 1], input[at + 2], input[at + 3]]);
        input.truncate(at);
        let computed = fletcher32(&input);
        if stored != computed {
            return Err(ChunkFault::ChecksumMismatch {
                kind: "fletcher32",
                stored,
                computed,
            });
        }
        Ok(input)
    }

    fn encode(&self, mut input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let c = fletcher32(&input);
        input.extend_from_slice(&c.to_le_bytes());
        Ok(input)
    }

    fn config(&self) -> Json {
        obj(vec![("id", Json::String("fletcher32".into()))])
    }
}

/// What a netCDF-4 file stores for this codec as HDF5's Fletcher-32 filter (3):
/// no parameters. The codec table's `hdf5_write`.
///
/// # Errors
/// Never; the signature is the table's [`StoredParams`](super::hdf5_filter::StoredParams).
pub(super) fn hdf5_params(_config: &Json, _chunk: &StoredChunk) -> Result<Vec<u32>, ConfigFault> {
    Ok(Vec::new())
}

/// The parameters netCDF's `_Filter` shows for this codec as HDF5's Fletcher-32 filter
/// (3): none. The codec table's `hdf5_attr`.
pub(super) fn hdf5_shown(_config: &Json) -> Option<Vec<u32>> {
    Some(vec![])
}

/// This codec for a `_Filter` entry of HDF5's Fletcher-32 filter (3): it takes no
/// parameters. The codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(_params: &[u32]) -> Result<Json, FilterError> {
    Ok(obj(vec![("id", Json::String("fletcher32".into()))]))
}
