//! `pcodec`: numcodecs' Pcodec (pco's standalone format), which zarr-python and zarrs
//! users write for numeric arrays. Read only, by the `pco` crate (the format's own
//! implementation): the stream names its number type, so a chunk decodes without the
//! array's dtype; it decodes into at most the chunk's bytes.

use pco::data_types::NumberType;
use pco::standalone::{simple_decompress_into, FileDecompressor};

use super::{obj, ChunkFault, ChunkInfo, Codec};
use crate::json::Json;

/// Pcodec decompression.
#[derive(Debug, Clone)]
pub(crate) struct Pcodec {
    config: Json,
}

impl Pcodec {
    pub(crate) fn from_config(config: &Json) -> Pcodec {
        Pcodec {
            config: config.clone(),
        }
    }
}

fn corrupt(detail: String) -> ChunkFault {
    ChunkFault::Corrupt {
        what: "pcodec data",
        detail,
    }
}

/// Decode `input` as numbers of type `T` into at most `max` bytes, native order.
fn numbers<T: pco::data_types::Number + Default>(
    input: &[u8],
    max: usize,
    to_bytes: impl Fn(&T, &mut Vec<u8>),
) -> Result<Vec<u8>, ChunkFault> {
    let n = max / std::mem::size_of::<T>().max(1);
    let mut dst = vec![T::default(); n];
    let progress = simple_decompress_into(input, &mut dst).map_err(|e| corrupt(e.to_string()))?;
    if !progress.finished {
        return Err(corrupt(format!("more than the {max} bytes expected")));
    }
    let mut out = Vec::with_capacity(progress.n_processed * std::mem::size_of::<T>());
    for x in &dst[..progress.n_processed] {
        to_bytes(x, &mut out);
    }
    Ok(out)
}

impl Codec for Pcodec {
    fn id(&self) -> &'static str {
        "pcodec"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let (fd, rest) =
            FileDecompressor::new(input.as_slice()).map_err(|e| corrupt(e.to_string()))?;
        let Some(t) = fd
            .peek_number_type_or_termination(rest)
            .map_err(|e| corrupt(e.to_string()))?
        else {
            return Ok(Vec::new());
        };
        let max = info.max_decoded;
        macro_rules! le {
            ($t:ty) => {
                numbers::<$t>(&input, max, |x, out| {
                    out.extend_from_slice(&x.to_ne_bytes())
                })
            };
        }
        match t {
            NumberType::F16 => le!(half::f16),
            NumberType::F32 => le!(f32),
            NumberType::F64 => le!(f64),
            NumberType::I8 => le!(i8),
            NumberType::I16 => le!(i16),
            NumberType::I32 => le!(i32),
            NumberType::I64 => le!(i64),
            NumberType::U8 => le!(u8),
            NumberType::U16 => le!(u16),
            NumberType::U32 => le!(u32),
            NumberType::U64 => le!(u64),
            other => Err(corrupt(format!(
                "number type {other:?}, which this build does not know"
            ))),
        }
    }

    fn encode(&self, _: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Err(ChunkFault::WrongKind(
            "pcodec is read only here: store the chunks with another codec",
        ))
    }

    fn config(&self) -> Json {
        match &self.config {
            Json::Object(_) => self.config.clone(),
            _ => obj(vec![("id", Json::String("pcodec".into()))]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_decode_to_their_own_number_type() {
        let x: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
        let packed = pco::standalone::simple_compress(&x, &pco::ChunkConfig::default()).unwrap();
        let info = ChunkInfo {
            item_size: 4,
            max_decoded: 400,
        };
        let raw = Pcodec::from_config(&Json::Null)
            .decode(packed.clone(), &info)
            .unwrap();
        let back: Vec<f32> = raw
            .chunks_exact(4)
            .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(back, x);
        // More values than the chunk holds is an error, not a larger buffer.
        let small = ChunkInfo {
            item_size: 4,
            max_decoded: 40,
        };
        assert!(Pcodec::from_config(&Json::Null)
            .decode(packed, &small)
            .is_err());
        assert!(Pcodec::from_config(&Json::Null)
            .decode(vec![1, 2, 3], &info)
            .is_err());
    }
}
