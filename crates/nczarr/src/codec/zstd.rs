//! `zstd` (numcodecs `Zstd`, HDF5 filter 32015). Config: `{"id": "zstd", "level": L}`;
//! level 0 means zstd's default (3). Frames without a content size are streamed.

use super::{
    encode_failed, int_param, num, obj, read_bounded, ChunkFault, ChunkInfo, Codec, ConfigFault,
};
use crate::json::Json;

/// zstd compression.
#[derive(Debug, Clone)]
pub(crate) struct Zstd {
    level: i32,
    checksum: bool,
}

impl Zstd {
    pub(crate) fn from_config(config: &Json) -> Result<Zstd, ConfigFault> {
        let level = int_param(config, "level", 0, -131072..=22)? as i32;
        let checksum = matches!(config.get("checksum"), Some(Json::Bool(true)));
        Ok(Zstd { level, checksum })
    }
}

impl Codec for Zstd {
    fn id(&self) -> &'static str {
        "zstd"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let decoder =
            zstd::stream::read::Decoder::new(&input[..]).map_err(|e| ChunkFault::Corrupt {
                what: "zstd data",
                detail: e.to_string(),
            })?;
        read_bounded(decoder, info.max_decoded, "zstd data")
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let failed = encode_failed("zstd");
        let mut c = zstd::bulk::Compressor::new(self.level).map_err(&failed)?;
        c.include_checksum(self.checksum).map_err(&failed)?;
        c.include_contentsize(true).map_err(&failed)?;
        c.compress(&input).map_err(&failed)
    }

    fn config(&self) -> Json {
        let mut m = vec![
            ("id", Json::String("zstd".into())),
            ("level", num(i64::from(self.level))),
        ];
        if self.checksum {
            m.push(("checksum", Json::Bool(true)));
        }
        obj(m)
    }
}
