//! `shuffle`: byte transposition (numcodecs `Shuffle`, HDF5 filter 2).
//! Config: `{"id": "shuffle", "elementsize": N}`. netcdf-c writes `elementsize: 0`
//! (and 4.9.2 `"0"`), meaning "the dtype's size"; we read it that way.
//! Bytes past the last whole element are left in place, as HDF5's filter does.

use super::{int_param, num, obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// Byte shuffle.
#[derive(Debug, Clone)]
pub(crate) struct Shuffle {
    /// 0 means "use the array's item size".
    element_size: usize,
}

impl Shuffle {
    pub(crate) fn from_config(config: &Json) -> Result<Shuffle, ConfigFault> {
        Ok(Shuffle {
            element_size: int_param(config, "elementsize", 4, 0..=1 << 20)? as usize,
        })
    }

    fn size(&self, info: &ChunkInfo) -> usize {
        if self.element_size == 0 {
            info.item_size.max(1)
        } else {
            self.element_size
        }
    }
}

/// `out[j*n + i] = input[i*es + j]` for `n` whole elements.
pub(crate) fn shuffle(input: &[u8], es: usize) -> Vec<u8> {
    let n = input.len() / es;
    let mut out = input.to_vec();
    if es > 1 {
        for (i, elem) in input[..n * es].chunks_exact(es).enumerate() {
            for (j, &b) in elem.iter().enumerate() {
                out[j * n + i] = b;
            }
        }
    }
    out
}

/// The inverse of [`shuffle`].
pub(crate) fn unshuffle(input: &[u8], es: usize) -> Vec<u8> {
    let n = input.len() / es;
    let mut out = input.to_vec();
    if es > 1 {
        for (i, elem) in out[..n * es].chunks_exact_mut(es).enumerate() {
            for (j, b) in elem.iter_mut().enumerate() {
                *b = input[j * n + i];
            }
        }
    }
    out
}

impl Codec for Shuffle {
    fn id(&self) -> &'static str {
        "shuffle"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Ok(unshuffle(&input, self.size(info)))
    }

    fn encode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Ok(shuffle(&input, self.size(info)))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("shuffle".into())),
            ("elementsize", num(self.element_size as i64)),
        ])
    }
}
