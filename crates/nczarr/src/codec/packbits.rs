//! `packbits` (numcodecs `PackBits`): booleans packed eight to a byte, most significant
//! bit first, after a byte giving how many bits of the last byte are padding.
//! Config: `{"id": "packbits"}`.

use super::{obj, ChunkFault, ChunkInfo, Codec};
use crate::json::Json;

/// Bits of booleans.
#[derive(Debug, Clone)]
pub(crate) struct PackBits;

impl Codec for PackBits {
    fn id(&self) -> &'static str {
        "packbits"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let Some((&padding, packed)) = input.split_first() else {
            return Ok(Vec::new());
        };
        let total = (packed.len() * 8).saturating_sub(usize::from(padding));
        if padding > 7 || (padding > 0 && packed.is_empty()) {
            return Err(ChunkFault::Corrupt {
                what: "packbits data",
                detail: format!("a padding of {padding} bits"),
            });
        }
        if total > info.max_decoded {
            return Err(super::wrong_size(total, info.max_decoded));
        }
        Ok((0..total)
            .map(|i| (packed[i / 8] >> (7 - i % 8)) & 1)
            .collect())
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let padding = (8 - input.len() % 8) % 8;
        let mut out = vec![0u8; 1 + input.len().div_ceil(8)];
        out[0] = padding as u8;
        for (i, &b) in input.iter().enumerate() {
            if b != 0 {
                out[1 + i / 8] |= 1 << (7 - i % 8);
            }
        }
        Ok(out)
    }

    fn config(&self) -> Json {
        obj(vec![("id", Json::String("packbits".into()))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numcodecs_layout() {
        let info = ChunkInfo {
            item_size: 1,
            max_decoded: 1 << 20,
        };
        let x = vec![1u8, 0, 1, 1, 0, 0, 0, 0, 1, 1];
        let enc = PackBits.encode(x.clone(), &info).unwrap();
        assert_eq!(enc, [6, 0b1011_0000, 0b1100_0000]);
        assert_eq!(PackBits.decode(enc, &info).unwrap(), x);
        assert!(PackBits.decode(vec![9, 0], &info).is_err());
    }
}
