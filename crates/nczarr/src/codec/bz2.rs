//! `bz2` (numcodecs `BZ2`, HDF5 filter 307). Config: `{"id": "bz2", "level": 1..9}`.

use std::io::Write;

use super::hdf5_filter::{first_param, param_u32, FilterError, StoredChunk};
use super::{
    encode_failed, int_param, num, obj, read_bounded, ChunkFault, ChunkInfo, Codec, ConfigFault,
};
use crate::json::Json;

/// bzip2 compression.
#[derive(Debug, Clone)]
pub(crate) struct Bz2 {
    level: u32,
}

impl Bz2 {
    pub(crate) fn from_config(config: &Json) -> Result<Bz2, ConfigFault> {
        Ok(Bz2 {
            level: int_param(config, "level", 9, 1..=9)? as u32,
        })
    }
}

impl Codec for Bz2 {
    fn id(&self) -> &'static str {
        "bz2"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        read_bounded(
            bzip2::read::MultiBzDecoder::new(&input[..]),
            info.max_decoded,
            "bzip2 data",
        )
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(self.level));
        e.write_all(&input).map_err(encode_failed("bzip2"))?;
        e.finish().map_err(encode_failed("bzip2"))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("bz2".into())),
            ("level", num(i64::from(self.level))),
        ])
    }
}
/// What a netCDF-4 file stores for this codec as the bzip2 filter (307): the
/// level, 9 when none is given. The codec table's `hdf5_write`.
///
/// # Errors
/// Never; the signature is the table's [`StoredParams`](super::hdf5_filter::StoredParams).
pub(super) fn hdf5_params(config: &Json, _chunk: &StoredChunk) -> Result<Vec<u32>, ConfigFault> {
    Ok(vec![param_u32(config, "level", 9)])
}

/// The parameters netCDF's `_Filter` shows for this codec as the bzip2 filter (307):
/// the level, 9 when none is given. The codec table's `hdf5_attr`.
pub(super) fn hdf5_shown(config: &Json) -> Option<Vec<u32>> {
    Some(vec![param_u32(config, "level", 9)])
}

/// This codec for a `_Filter` entry of the bzip2 filter (307): level 9 unless given,
/// brought into 1..=9. The codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(params: &[u32]) -> Result<Json, FilterError> {
    Ok(obj(vec![
        ("id", Json::String("bz2".into())),
        ("level", num(first_param(params, 9).clamp(1, 9))),
    ]))
}
