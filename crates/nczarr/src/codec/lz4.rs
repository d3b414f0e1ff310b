//! `lz4` (numcodecs `LZ4`, not the LZ4 frame format): a little-endian u32 holding the
//! uncompressed size, then one raw LZ4 block. Config: `{"id": "lz4", "acceleration": 1}`.

use super::{int_param, num, obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// numcodecs LZ4.
#[derive(Debug, Clone)]
pub(crate) struct Lz4 {
    acceleration: i64,
}

impl Lz4 {
    pub(crate) fn from_config(config: &Json) -> Result<Lz4, ConfigFault> {
        Ok(Lz4 {
            acceleration: int_param(config, "acceleration", 1, i64::MIN..=i64::MAX)?,
        })
    }
}

impl Codec for Lz4 {
    fn id(&self) -> &'static str {
        "lz4"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let head: [u8; 4] =
            input
                .get(..4)
                .and_then(|h| h.try_into().ok())
                .ok_or(ChunkFault::Truncated {
                    what: "an lz4 size header",
                })?;
        let size = u32::from_le_bytes(head) as usize;
        if size > info.max_decoded {
            return Err(ChunkFault::ClaimsTooMuch {
                format: "lz4",
                claimed: size as u64,
            });
        }
        lz4_flex::block::decompress(&input[4..], size).map_err(|e| ChunkFault::Corrupt {
            what: "lz4 block",
            detail: e.to_string(),
        })
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Ok(lz4_flex::block::compress_prepend_size(&input))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("lz4".into())),
            ("acceleration", num(self.acceleration)),
        ])
    }
}
