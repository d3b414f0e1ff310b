//! `lz4h5`: the HDF5 LZ4 filter (registered id 32004, in hdf5plugin and netCDF's
//! plugins), named as imagecodecs names its format. Read only: no Zarr reader knows
//! it, so a copy stores such chunks with another codec.
//!
//! The stream: the decoded size (8 bytes, big-endian), the block size (4 bytes), then
//! per block of that many decoded bytes (the last shorter) its stored size (4 bytes)
//! and an LZ4 block, or the block as it is where the stored size equals its own.

use super::hdf5_filter::FilterError;
use super::{obj, ChunkFault, ChunkInfo, Codec};
use crate::json::Json;

/// HDF5 LZ4 decompression.
#[derive(Debug, Clone)]
pub(crate) struct Lz4H5;

pub(super) fn corrupt(what: &'static str, detail: String) -> ChunkFault {
    ChunkFault::Corrupt { what, detail }
}

/// A big-endian number of `N` bytes at `at`.
pub(super) fn be<const N: usize>(b: &[u8], at: usize) -> Option<u64> {
    let bytes: [u8; N] = b.get(at..at + N)?.try_into().ok()?;
    Some(bytes.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
}

/// One LZ4 block of `len` decoded bytes.
pub(super) fn lz4_block(
    input: &[u8],
    len: usize,
    what: &'static str,
) -> Result<Vec<u8>, ChunkFault> {
    let mut out = vec![0u8; len];
    let n = lz4_flex::block::decompress_into(input, &mut out)
        .map_err(|e| corrupt(what, e.to_string()))?;
    if n != len {
        return Err(corrupt(
            what,
            format!("a block of {n} bytes, {len} expected"),
        ));
    }
    Ok(out)
}

fn decompress(input: &[u8], max: usize) -> Result<Vec<u8>, ChunkFault> {
    let what = "HDF5 lz4 data";
    let cut = || corrupt(what, "cut short".into());
    let total = be::<8>(input, 0).ok_or_else(cut)?;
    let block = be::<4>(input, 8).ok_or_else(cut)?;
    let total = usize::try_from(total).unwrap_or(usize::MAX);
    if total > max {
        return Err(corrupt(
            what,
            format!("{total} bytes, more than the {max} expected"),
        ));
    }
    let block = match usize::try_from(block) {
        Ok(0) | Err(_) => total,
        Ok(b) => b,
    };
    let mut out = Vec::with_capacity(total);
    let mut at = 12;
    while out.len() < total {
        let want = block.min(total - out.len());
        let stored = usize::try_from(be::<4>(input, at).ok_or_else(cut)?).unwrap_or(usize::MAX);
        at += 4;
        let data = input.get(at..at.saturating_add(stored)).ok_or_else(cut)?;
        at += stored;
        if stored == want {
            out.extend_from_slice(data);
        } else {
            out.extend(lz4_block(data, want, what)?);
        }
    }
    Ok(out)
}

impl Codec for Lz4H5 {
    fn id(&self) -> &'static str {
        "lz4h5"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        decompress(&input, info.max_decoded)
    }

    fn encode(&self, _: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Err(ChunkFault::WrongKind(
            "lz4h5 is read only here: store the chunks with another codec",
        ))
    }

    fn config(&self) -> Json {
        obj(vec![("id", Json::String("lz4h5".into()))])
    }
}

/// The parameters netCDF's `_Filter` shows for this codec as the LZ4 filter (32004):
/// none (the block size is not shown). The codec table's `hdf5_attr`.
pub(super) fn hdf5_shown(_config: &Json) -> Option<Vec<u32>> {
    Some(vec![])
}

/// This codec for a `_Filter` entry of the LZ4 filter (32004): the block size, which
/// the stream repeats. The codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(_params: &[u32]) -> Result<Json, FilterError> {
    Ok(obj(vec![("id", Json::String("lz4h5".into()))]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(total: u64, block: u32, blocks: &[&[u8]]) -> Vec<u8> {
        let mut s = total.to_be_bytes().to_vec();
        s.extend_from_slice(&block.to_be_bytes());
        for b in blocks {
            s.extend_from_slice(&(b.len() as u32).to_be_bytes());
            s.extend_from_slice(b);
        }
        s
    }

    #[test]
    fn blocks_compressed_and_stored() {
        let data: Vec<u8> = (0..100u8).map(|i| i % 7).collect();
        let first = lz4_flex::block::compress(&data[..64]);
        // The last block (36 bytes) stored as it is.
        let s = stream(100, 64, &[&first, &data[64..]]);
        assert_eq!(decompress(&s, 1000).unwrap(), data);
        assert!(decompress(&s, 50).is_err());
        assert!(decompress(&s[..s.len() - 1], 1000).is_err());
    }
}
