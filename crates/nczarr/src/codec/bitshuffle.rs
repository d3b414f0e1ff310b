//! `bitshuffle`: the HDF5 bitshuffle filter (registered id 32008, in hdf5plugin),
//! alone or with its LZ4 or zstd compression. Read only: no Zarr reader knows it, so
//! a copy stores such chunks with another codec.
//!
//! Elements go in blocks (a multiple of eight elements; by default about 8 KiB), each
//! transposed bit by bit: for every byte of an element and every bit of that byte, one
//! row of bits, the element's index its position in the row. The elements past the
//! last multiple of eight are stored as they are. Compressed, the stream starts with
//! the decoded size (8 bytes, big-endian) and the block size in bytes (4), and each
//! block is its compressed size (4) and an LZ4 block or a zstd frame.

use super::hdf5_filter::{param_u32, FilterError};
use super::lz4h5::{be, corrupt, lz4_block};
use super::{num, obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

const WHAT: &str = "bitshuffle data";

/// bitshuffle's default block: 8 KiB of elements, a multiple of eight, at least 128.
fn default_block(elem: usize) -> usize {
    ((8192 / elem.max(1)) / 8 * 8).max(128)
}

/// Bitshuffle decoding (HDF5 filter 32008).
#[derive(Debug, Clone)]
pub(crate) struct Bitshuffle {
    /// Bytes per element (0: the array's).
    elementsize: usize,
    /// Elements per block (0: the default for the element size).
    blocksize: usize,
    /// 0 none, 2 LZ4, 3 zstd.
    compression: u32,
}

impl Bitshuffle {
    pub(crate) fn from_config(config: &Json) -> Result<Bitshuffle, ConfigFault> {
        let int = |name: &str| config.get(name).and_then(Json::as_i64_lenient).unwrap_or(0);
        let compression = int("compression");
        if ![0, 2, 3].contains(&compression) {
            return Err(ConfigFault::BadValue {
                name: "compression",
                expected: "0 (none), 2 (lz4) or 3 (zstd)".into(),
                found: compression.to_string(),
            });
        }
        Ok(Bitshuffle {
            elementsize: usize::try_from(int("elementsize")).unwrap_or(0),
            blocksize: usize::try_from(int("blocksize")).unwrap_or(0),
            compression: compression as u32,
        })
    }
}

/// Undo the bit transposition of one block of `n` elements (n a multiple of 8).
fn untranspose(block: &[u8], elem: usize, out: &mut Vec<u8>) {
    let n = block.len() / elem;
    let row = n / 8;
    let start = out.len();
    out.resize(start + block.len(), 0);
    let dst = &mut out[start..];
    for j in 0..elem {
        for bit in 0..8 {
            let plane = &block[(j * 8 + bit) * row..(j * 8 + bit + 1) * row];
            for (k, &byte) in plane.iter().enumerate() {
                if byte == 0 {
                    continue;
                }
                for m in 0..8 {
                    if byte >> m & 1 == 1 {
                        dst[(k * 8 + m) * elem + j] |= 1 << bit;
                    }
                }
            }
        }
    }
}

impl Bitshuffle {
    fn decompress(&self, input: &[u8], info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let elem = match self.elementsize {
            0 => info.item_size.max(1),
            e => e,
        };
        let cut = || corrupt(WHAT, "cut short".into());
        let (total, mut block, body) = if self.compression == 0 {
            (input.len(), self.blocksize, input)
        } else {
            let total = usize::try_from(be::<8>(input, 0).ok_or_else(cut)?).unwrap_or(usize::MAX);
            let bytes = usize::try_from(be::<4>(input, 8).ok_or_else(cut)?).unwrap_or(0);
            (total, bytes / elem, &input[12..])
        };
        if total > info.max_decoded {
            return Err(corrupt(
                WHAT,
                format!("{total} bytes, more than the {} expected", info.max_decoded),
            ));
        }
        if block == 0 {
            block = default_block(elem);
        }
        if block % 8 != 0 {
            return Err(corrupt(WHAT, format!("a block of {block} elements")));
        }
        let elements = total / elem;
        let mut out = Vec::with_capacity(total);
        let mut at = 0;
        let mut done = 0;
        while elements - done >= 8 {
            let n = block.min((elements - done) / 8 * 8);
            let len = n * elem;
            let shuffled = match self.compression {
                0 => {
                    let b = body.get(at..at + len).ok_or_else(cut)?.to_vec();
                    at += len;
                    b
                }
                c => {
                    let stored =
                        usize::try_from(be::<4>(body, at).ok_or_else(cut)?).unwrap_or(usize::MAX);
                    let data = body
                        .get(at + 4..(at + 4).saturating_add(stored))
                        .ok_or_else(cut)?;
                    at += 4 + stored;
                    if c == 2 {
                        lz4_block(data, len, WHAT)?
                    } else {
                        let b = ::zstd::bulk::decompress(data, len)
                            .map_err(|e| corrupt(WHAT, e.to_string()))?;
                        if b.len() != len {
                            return Err(corrupt(WHAT, "a block of the wrong size".into()));
                        }
                        b
                    }
                }
            };
            untranspose(&shuffled, elem, &mut out);
            done += n;
        }
        // The elements past the last multiple of eight, and any odd bytes, as stored.
        let rest = total - out.len();
        out.extend_from_slice(body.get(at..at + rest).ok_or_else(cut)?);
        Ok(out)
    }
}

impl Codec for Bitshuffle {
    fn id(&self) -> &'static str {
        "bitshuffle"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        self.decompress(&input, info)
    }

    fn encode(&self, _: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Err(ChunkFault::WrongKind(
            "bitshuffle is read only here: store the chunks with another codec",
        ))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("bitshuffle".into())),
            ("elementsize", num(self.elementsize as i64)),
            ("blocksize", num(self.blocksize as i64)),
            ("compression", num(i64::from(self.compression))),
        ])
    }
}

/// The parameters netCDF's `_Filter` shows for this codec as the bitshuffle filter
/// (32008): the filter's version (0, 4), element size, block size and compression. The
/// codec table's `hdf5_attr`.
pub(super) fn hdf5_shown(config: &Json) -> Option<Vec<u32>> {
    Some(vec![
        0,
        4,
        param_u32(config, "elementsize", 0),
        param_u32(config, "blocksize", 0),
        param_u32(config, "compression", 0),
    ])
}

/// This codec for a `_Filter` entry of the bitshuffle filter (32008): the filter's
/// version (two numbers), element size, block size, compression and zstd level. The
/// codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(params: &[u32]) -> Result<Json, FilterError> {
    let p = |i: usize| i64::from(params.get(i).copied().unwrap_or(0));
    Ok(obj(vec![
        ("id", Json::String("bitshuffle".into())),
        ("elementsize", num(p(2))),
        ("blocksize", num(p(3))),
        ("compression", num(p(4))),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bitshuffle's transposition, written from its definition (row of byte j, bit b
    /// of every element).
    fn transpose(block: &[u8], elem: usize) -> Vec<u8> {
        let n = block.len() / elem;
        let mut out = vec![0u8; block.len()];
        for i in 0..n {
            for j in 0..elem {
                for b in 0..8 {
                    if block[i * elem + j] >> b & 1 == 1 {
                        out[(j * 8 + b) * (n / 8) + i / 8] |= 1 << (i % 8);
                    }
                }
            }
        }
        out
    }

    fn codec(compression: u32, blocksize: usize) -> Bitshuffle {
        Bitshuffle {
            elementsize: 4,
            blocksize,
            compression,
        }
    }

    #[test]
    fn blocks_untransposed_with_the_tail_as_stored() {
        let info = ChunkInfo {
            item_size: 4,
            max_decoded: 1 << 20,
        };
        // 21 floats: two blocks of 8 with blocksize 8, then 5 stored as they are.
        let data: Vec<u8> = (0..21)
            .flat_map(|i| (i as f32 * 1.25).to_le_bytes())
            .collect();
        let mut plain = transpose(&data[..32], 4);
        plain.extend(transpose(&data[32..64], 4));
        plain.extend_from_slice(&data[64..]);
        assert_eq!(codec(0, 8).decompress(&plain, &info).unwrap(), data);

        let mut lz = (data.len() as u64).to_be_bytes().to_vec();
        lz.extend_from_slice(&32u32.to_be_bytes());
        for b in [&data[..32], &data[32..64]] {
            let c = lz4_flex::block::compress(&transpose(b, 4));
            lz.extend_from_slice(&(c.len() as u32).to_be_bytes());
            lz.extend(c);
        }
        lz.extend_from_slice(&data[64..]);
        assert_eq!(codec(2, 0).decompress(&lz, &info).unwrap(), data);
        assert!(codec(2, 0).decompress(&lz[..lz.len() - 3], &info).is_err());
    }
}
