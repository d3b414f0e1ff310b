//! `zlib`: a zlib stream (numcodecs `Zlib`; netCDF's deflate filter, HDF5 id 1).
//! Config: `{"id": "zlib", "level": 1..9}`.

use std::io::Write;

use super::{
    encode_failed, int_param, num, obj, read_bounded, ChunkFault, ChunkInfo, Codec, ConfigFault,
};
use crate::json::Json;

/// zlib compression.
#[derive(Debug, Clone)]
pub(crate) struct Zlib {
    pub(crate) level: u32,
}

impl Zlib {
    pub(crate) fn from_config(config: &Json) -> Result<Zlib, ConfigFault> {
        Ok(Zlib {
            level: int_param(config, "level", 1, 0..=9)? as u32,
        })
    }
}

impl Codec for Zlib {
    fn id(&self) -> &'static str {
        "zlib"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        read_bounded(
            flate2::read::ZlibDecoder::new(&input[..]),
            info.max_decoded,
            "zlib stream",
        )
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let mut e =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(self.level));
        e.write_all(&input).map_err(encode_failed("zlib"))?;
        e.finish().map_err(encode_failed("zlib"))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("zlib".into())),
            ("level", num(i64::from(self.level))),
        ])
    }
}
