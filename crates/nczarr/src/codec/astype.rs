//! `astype` (numcodecs `AsType`): the array's values stored as another dtype,
//! `enc = x.astype(encode_dtype)`, `dec = enc.astype(decode_dtype)` (floats to integers
//! truncated, integers wrapped, as numpy). Lossy where the encoded dtype is narrower.
//! Config: `{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}`.

use super::dtype::Dtype;
use super::numeric::{check, dtype_param, map};
use super::{obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// Values stored as another dtype.
#[derive(Debug, Clone)]
pub(crate) struct AsType {
    encode_dtype: Dtype,
    decode_dtype: Dtype,
}

impl AsType {
    pub(crate) fn from_config(config: &Json) -> Result<AsType, ConfigFault> {
        let encode_dtype = dtype_param(config, "encode_dtype")?;
        let decode_dtype = dtype_param(config, "decode_dtype")?;
        check(&encode_dtype, "astype")?;
        check(&decode_dtype, "astype")?;
        Ok(AsType {
            encode_dtype,
            decode_dtype,
        })
    }
}

impl Codec for AsType {
    fn id(&self) -> &'static str {
        "astype"
    }

    fn decode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        map(&input, &self.encode_dtype, &self.decode_dtype, |x| x)
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        map(&input, &self.decode_dtype, &self.encode_dtype, |x| x)
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("astype".into())),
            ("encode_dtype", Json::String(self.encode_dtype.to_string())),
            ("decode_dtype", Json::String(self.decode_dtype.to_string())),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn doubles_stored_as_floats() {
        let c = AsType::from_config(
            &parse_str(r#"{"id": "astype", "encode_dtype": "float32", "decode_dtype": "<f8"}"#)
                .unwrap(),
        )
        .unwrap();
        let info = ChunkInfo {
            item_size: 8,
            max_decoded: 1 << 20,
        };
        let x: Vec<u8> = [1.5f64, -2.25]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let enc = c.encode(x.clone(), &info).unwrap();
        assert_eq!(enc.len(), 8);
        assert_eq!(c.decode(enc, &info).unwrap(), x);
    }
}
