//! `zfpy`: numcodecs' ZFPY, LLNL's zfp compressor for floating-point and integer
//! arrays (lossy at a fixed accuracy, precision or rate, or lossless), as zarr-python
//! and zarrs write it. Read only; zfp is a C library, so this is a decoder of zfp's
//! documented stream format of our own, checked bit for bit against `zfpy`.
//!
//! Each chunk is one zfp stream with its full header, so the header alone says the
//! scalar type, the field's shape and the mode; the codec's JSON parameters are what
//! the writer asked for and are not needed to decode.

mod bits;
mod block;
mod header;
mod perm;

use super::{obj, ChunkFault, ChunkInfo, Codec};
use crate::json::Json;
use bits::BitReader;
use header::Header;

/// ZFPY decompression.
#[derive(Debug, Clone)]
pub(crate) struct Zfpy {
    config: Json,
}

impl Zfpy {
    pub(crate) fn from_config(config: &Json) -> Zfpy {
        Zfpy {
            config: config.clone(),
        }
    }
}

fn corrupt(detail: String) -> ChunkFault {
    ChunkFault::Corrupt {
        what: "zfp stream",
        detail,
    }
}

/// Decode the field, block by block (x fastest, then y, z, w), into native-order
/// values with x varying fastest: a C-order array of the numpy shape zfpy was given.
fn decode_field(r: &mut BitReader, h: &Header, out: &mut [u8]) -> Result<(), ChunkFault> {
    let size = h.scalar.size();
    let [nx, ny, nz, nw] = h.shape;
    let block_len = 4usize.pow(h.dims);
    let mut values = [0u64; 256];
    let values = &mut values[..block_len];
    let blocks = |n: usize| n.div_ceil(4);
    for bw in 0..blocks(nw) {
        for bz in 0..blocks(nz) {
            for by in 0..blocks(ny) {
                for bx in 0..blocks(nx) {
                    block::decode_block(r, &h.params, h.dims, h.scalar, values);
                    if r.overrun() {
                        return Err(corrupt(format!(
                            "the stream ends inside block ({bx}, {by}, {bz}, {bw})"
                        )));
                    }
                    // A block beyond a field's edge keeps only the values inside it.
                    for (i, v) in values.iter().enumerate() {
                        let (x, y, z, w) = (
                            4 * bx + i % 4,
                            4 * by + (i / 4) % 4,
                            4 * bz + (i / 16) % 4,
                            4 * bw + i / 64,
                        );
                        if x >= nx || y >= ny || z >= nz || w >= nw {
                            continue;
                        }
                        let at = size * (x + nx * (y + ny * (z + nz * w)));
                        out[at..at + size].copy_from_slice(&v.to_ne_bytes()[..size]);
                    }
                }
            }
        }
    }
    Ok(())
}

impl Codec for Zfpy {
    fn id(&self) -> &'static str {
        "zfpy"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let mut r = BitReader::new(&input);
        let h = header::read(&mut r).map_err(corrupt)?;
        let bytes = h
            .len()
            .and_then(|n| n.checked_mul(h.scalar.size()))
            .filter(|&b| b <= info.max_decoded)
            .ok_or_else(|| {
                corrupt(format!(
                    "the header's {} field of {:?} is larger than the chunk's {} bytes",
                    h.scalar.name(),
                    &h.shape[..h.dims as usize],
                    info.max_decoded
                ))
            })?;
        let mut out = vec![0u8; bytes];
        decode_field(&mut r, &h, &mut out)?;
        Ok(out)
    }

    fn encode(&self, _: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Err(ChunkFault::WrongKind(
            "zfpy is read only here: store the chunks with another codec",
        ))
    }

    fn config(&self) -> Json {
        match &self.config {
            Json::Object(_) => self.config.clone(),
            _ => obj(vec![("id", Json::String("zfpy".into()))]),
        }
    }
}
