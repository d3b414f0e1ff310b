//! `quantize` (numcodecs `Quantize`): floats rounded to a power of two that keeps
//! `digits` decimal digits after the point, so that a compressor after it finds long
//! runs of equal bits; decoding only changes the dtype back. Lossy.
//! Config: `{"id": "quantize", "digits": 2, "dtype": "<f8", "astype": "<f4"}`.

use super::dtype::Dtype;
use super::numeric::{as_f, check, dtype_param, map, Num};
use super::{int_param, obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// Rounding to a power of two.
#[derive(Debug, Clone)]
pub(crate) struct Quantize {
    digits: i64,
    dtype: Dtype,
    astype: Dtype,
}

impl Quantize {
    pub(crate) fn from_config(config: &Json) -> Result<Quantize, ConfigFault> {
        let dtype = dtype_param(config, "dtype")?;
        let astype = match config.get("astype") {
            None | Some(Json::Null) => dtype.clone(),
            Some(_) => dtype_param(config, "astype")?,
        };
        for d in [&dtype, &astype] {
            if !matches!(d, Dtype::Float { bytes: 4 | 8, .. }) {
                return Err(ConfigFault::Unavailable {
                    what: format!("quantize over dtype {d}"),
                    have: "<f4, <f8".into(),
                });
            }
        }
        check(&dtype, "quantize")?;
        Ok(Quantize {
            digits: int_param(config, "digits", 0, 0..=30)?,
            dtype,
            astype,
        })
    }

    /// numcodecs' scale: 2 to the bits that resolve `10^-digits`.
    fn scale(&self) -> f64 {
        let precision = 10f64.powi(-(self.digits as i32));
        let exp = precision.log10().floor();
        let bits = 10f64.powf(-exp).log2().ceil();
        2f64.powf(bits)
    }
}

impl Codec for Quantize {
    fn id(&self) -> &'static str {
        "quantize"
    }

    fn decode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        map(&input, &self.astype, &self.dtype, |x| x)
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let scale = self.scale();
        map(&input, &self.dtype, &self.astype, |x| {
            let v = as_f(x) * scale;
            // numpy's around: halves to even.
            let r = if (v - v.trunc()).abs() == 0.5 {
                2.0 * (v / 2.0).round()
            } else {
                v.round()
            };
            Num::F(r / scale)
        })
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("quantize".into())),
            ("digits", super::num(self.digits)),
            ("dtype", Json::String(self.dtype.to_string())),
            ("astype", Json::String(self.astype.to_string())),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn keeps_the_digits_asked() {
        let c = Quantize::from_config(
            &parse_str(r#"{"id": "quantize", "digits": 1, "dtype": "<f8"}"#).unwrap(),
        )
        .unwrap();
        assert_eq!(c.scale(), 16.0);
        let info = ChunkInfo {
            item_size: 8,
            max_decoded: 1 << 20,
        };
        let x: Vec<u8> = [0.0f64, 1.23, 3.3]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let dec = c.decode(c.encode(x, &info).unwrap(), &info).unwrap();
        let back: Vec<f64> = dec
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(back, [0.0, 1.25, 3.3125]);
    }
}
