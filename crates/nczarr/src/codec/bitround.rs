//! `bitround` (numcodecs `BitRound`): floats rounded to `keepbits` bits of mantissa
//! (round half to even in the bits dropped), so that a compressor after it finds the
//! dropped bits all zero: a user's way to much smaller float data. Decoding is the
//! identity. Lossy. Config: `{"id": "bitround", "keepbits": 10}`.

use super::{int_param, obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// Mantissa rounding.
#[derive(Debug, Clone)]
pub(crate) struct BitRound {
    keepbits: u32,
}

impl BitRound {
    pub(crate) fn from_config(config: &Json) -> Result<BitRound, ConfigFault> {
        if config.get("keepbits").is_none() {
            return Err(ConfigFault::Missing { name: "keepbits" });
        }
        let keepbits = int_param(config, "keepbits", 0, 0..=52)? as u32;
        Ok(BitRound { keepbits })
    }

    fn round<const N: usize>(&self, input: &mut [u8], mantissa: u32) {
        if self.keepbits >= mantissa {
            return;
        }
        let drop = mantissa - self.keepbits;
        for e in input.chunks_exact_mut(N) {
            let mut b = [0u8; 8];
            b[..N].copy_from_slice(e);
            let v = u64::from_le_bytes(b);
            let half = (1u64 << (drop - 1)) - 1;
            let rounded = (v + ((v >> drop) & 1) + half) & !((1u64 << drop) - 1);
            e.copy_from_slice(&rounded.to_le_bytes()[..N]);
        }
    }
}

impl Codec for BitRound {
    fn id(&self) -> &'static str {
        "bitround"
    }

    fn decode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Ok(input)
    }

    fn encode(&self, mut input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        match info.item_size {
            4 if self.keepbits <= 23 => self.round::<4>(&mut input, 23),
            8 => self.round::<8>(&mut input, 52),
            4 => {}
            n => {
                return Err(ChunkFault::WrongKind(if n == 2 {
                    "bitround takes 4- and 8-byte floats, not 2-byte ones"
                } else {
                    "bitround takes 4- and 8-byte floats"
                }))
            }
        }
        Ok(input)
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("bitround".into())),
            ("keepbits", super::num(i64::from(self.keepbits))),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn codec(keep: u32) -> BitRound {
        BitRound::from_config(
            &parse_str(&format!(r#"{{"id": "bitround", "keepbits": {keep}}}"#)).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn rounds_mantissas_as_numcodecs() {
        let info = ChunkInfo {
            item_size: 4,
            max_decoded: 1 << 20,
        };
        // 1 + 2^-23 keeps no bit past the first 3: rounds down to 1; 1.9375 to 2.
        let x: Vec<u8> = [1.0000001f32, 1.9375, 3.3]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let enc = codec(3).encode(x, &info).unwrap();
        let back: Vec<f32> = enc
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(back, [1.0, 2.0, 3.25]);
        assert_eq!(codec(3).decode(enc.clone(), &info).unwrap(), enc);
        assert!(BitRound::from_config(&parse_str(r#"{"id": "bitround"}"#).unwrap()).is_err());
    }
}
