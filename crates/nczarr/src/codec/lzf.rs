//! `lzf`: LibLZF's format, the HDF5 filter 32000 that h5py offers as its light
//! compressor. Read only: no Zarr reader knows it, so a copy stores such chunks with
//! another codec. Written here (about thirty lines, bounded by the chunk's size) rather
//! than taken from the `lzf` crate, which is deprecated.
//!
//! A stream of runs: a control byte below 32 is a literal of that many bytes plus
//! one; any other is a back reference of `(c >> 5) + 2` bytes (seven and more take a
//! length byte too) at a distance of `((c & 31) << 8) + next + 1` bytes back.

use super::hdf5_filter::FilterError;
use super::{obj, ChunkFault, ChunkInfo, Codec};
use crate::json::Json;

/// LZF decompression.
#[derive(Debug, Clone)]
pub(crate) struct Lzf;

fn corrupt(detail: String) -> ChunkFault {
    ChunkFault::Corrupt {
        what: "lzf data",
        detail,
    }
}

/// Decompress `input`, refusing to produce more than `max` bytes.
fn decompress(input: &[u8], max: usize) -> Result<Vec<u8>, ChunkFault> {
    let mut out: Vec<u8> = Vec::with_capacity(max.min(input.len().saturating_mul(4)));
    let mut i = 0;
    while i < input.len() {
        let c = usize::from(input[i]);
        i += 1;
        if c < 32 {
            let n = c + 1;
            let lit = input
                .get(i..i + n)
                .ok_or_else(|| corrupt(format!("a literal of {n} bytes past the end")))?;
            if out.len() + n > max {
                return Err(corrupt(format!("more than the {max} bytes expected")));
            }
            out.extend_from_slice(lit);
            i += n;
            continue;
        }
        let mut len = c >> 5;
        if len == 7 {
            len += usize::from(*input.get(i).ok_or_else(|| corrupt("a cut length".into()))?);
            i += 1;
        }
        len += 2;
        let low = usize::from(
            *input
                .get(i)
                .ok_or_else(|| corrupt("a cut reference".into()))?,
        );
        i += 1;
        let back = ((c & 31) << 8) + low + 1;
        if back > out.len() {
            return Err(corrupt(format!(
                "a reference {back} bytes back, before the start"
            )));
        }
        if out.len() + len > max {
            return Err(corrupt(format!("more than the {max} bytes expected")));
        }
        // Byte by byte: a reference may overlap what it writes (a run).
        let from = out.len() - back;
        for k in 0..len {
            let b = out[from + k];
            out.push(b);
        }
    }
    Ok(out)
}

impl Codec for Lzf {
    fn id(&self) -> &'static str {
        "lzf"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        decompress(&input, info.max_decoded)
    }

    fn encode(&self, _: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Err(ChunkFault::WrongKind(
            "lzf is read only here: store the chunks with another codec",
        ))
    }

    fn config(&self) -> Json {
        obj(vec![("id", Json::String("lzf".into()))])
    }
}

/// The parameters netCDF's `_Filter` shows for this codec as h5py's LZF filter (32000):
/// none (h5py's version and the chunk size it keeps are not shown). The codec table's
/// `hdf5_attr`.
pub(super) fn hdf5_shown(_config: &Json) -> Option<Vec<u32>> {
    Some(vec![])
}

/// This codec for a `_Filter` entry of h5py's LZF filter (32000): h5py keeps a version
/// and the chunk's size, which decoding does not need. The codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(_params: &[u32]) -> Result<Json, FilterError> {
    Ok(obj(vec![("id", Json::String("lzf".into()))]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_references_and_runs() {
        // "abcabcabcX": literal "abc", a reference of 6 bytes 3 back (overlapping), "X".
        let stream = [2, b'a', b'b', b'c', (4 << 5), 2, 0, b'X'];
        assert_eq!(decompress(&stream, 100).unwrap(), b"abcabcabcX");
        // A long reference: length byte after 7.
        let stream = [0, b'z', (7 << 5), 3, 0];
        assert_eq!(decompress(&stream, 100).unwrap(), vec![b'z'; 13]);
    }

    #[test]
    fn damaged_streams_are_errors() {
        assert!(decompress(&[5, b'a'], 100).is_err());
        assert!(decompress(&[0, b'a', (1 << 5), 9], 100).is_err());
        assert!(decompress(&[0, b'a', (7 << 5), 200, 0], 10).is_err());
    }
}
