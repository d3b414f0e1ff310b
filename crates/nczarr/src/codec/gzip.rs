//! `gzip`: a gzip member (numcodecs `GZip`). Config: `{"id": "gzip", "level": 0..9}`.

use std::io::Write;

use super::{
    encode_failed, int_param, num, obj, read_bounded, ChunkFault, ChunkInfo, Codec, ConfigFault,
};
use crate::json::Json;

/// gzip compression.
#[derive(Debug, Clone)]
pub(crate) struct Gzip {
    level: u32,
}

impl Gzip {
    pub(crate) fn from_config(config: &Json) -> Result<Gzip, ConfigFault> {
        Ok(Gzip {
            level: int_param(config, "level", 1, 0..=9)? as u32,
        })
    }
}

impl Codec for Gzip {
    fn id(&self) -> &'static str {
        "gzip"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        // numcodecs may write several members; read them all.
        read_bounded(
            flate2::read::MultiGzDecoder::new(&input[..]),
            info.max_decoded,
            "gzip data",
        )
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        // mtime 0 so the same chunk always encodes to the same bytes.
        let mut e = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::new(self.level));
        e.write_all(&input).map_err(encode_failed("gzip"))?;
        e.finish().map_err(encode_failed("gzip"))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("gzip".into())),
            ("level", num(i64::from(self.level))),
        ])
    }
}
