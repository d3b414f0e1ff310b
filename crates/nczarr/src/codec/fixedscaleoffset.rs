//! `fixedscaleoffset` (numcodecs `FixedScaleOffset`): values stored as scaled integers,
//! `enc = round((x - offset) * scale)` as `astype`, `dec = enc / scale + offset` as
//! `dtype`. Lossy: it keeps what `scale` resolves (scale 10: one decimal).
//! Config: `{"id": "fixedscaleoffset", "offset": 1000, "scale": 10, "dtype": "<f8", "astype": "<u2"}`.

use super::dtype::Dtype;
use super::numeric::{as_f, check, dtype_param, float_param, map, Num};
use super::{obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::{Json, Number};

/// Scaled and offset integers.
#[derive(Debug, Clone)]
pub(crate) struct FixedScaleOffset {
    offset: f64,
    scale: f64,
    dtype: Dtype,
    astype: Dtype,
}

impl FixedScaleOffset {
    pub(crate) fn from_config(config: &Json) -> Result<FixedScaleOffset, ConfigFault> {
        let dtype = dtype_param(config, "dtype")?;
        let astype = match config.get("astype") {
            None | Some(Json::Null) => dtype.clone(),
            Some(_) => dtype_param(config, "astype")?,
        };
        check(&dtype, "fixedscaleoffset")?;
        check(&astype, "fixedscaleoffset")?;
        let scale = float_param(config, "scale", 1.0)?;
        if scale == 0.0 || !scale.is_finite() {
            return Err(ConfigFault::BadValue {
                name: "scale",
                expected: "a finite number other than 0".into(),
                found: scale.to_string(),
            });
        }
        Ok(FixedScaleOffset {
            offset: float_param(config, "offset", 0.0)?,
            scale,
            dtype,
            astype,
        })
    }
}

/// numpy's `around`: halves to even.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

impl Codec for FixedScaleOffset {
    fn id(&self) -> &'static str {
        "fixedscaleoffset"
    }

    fn decode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        map(&input, &self.astype, &self.dtype, |e| {
            Num::F(as_f(e) / self.scale + self.offset)
        })
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        map(&input, &self.dtype, &self.astype, |x| {
            Num::F(round_half_even((as_f(x) - self.offset) * self.scale))
        })
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("fixedscaleoffset".into())),
            ("offset", Json::Number(Number::from_f64(self.offset))),
            ("scale", Json::Number(Number::from_f64(self.scale))),
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
    fn numcodecs_docs_example() {
        // numcodecs' docstring: offset 1000, scale 10, <f8 as <u2.
        let c = FixedScaleOffset::from_config(
            &parse_str(r#"{"id": "fixedscaleoffset", "offset": 1000, "scale": 10, "dtype": "<f8", "astype": "<u2"}"#)
                .unwrap(),
        )
        .unwrap();
        let info = ChunkInfo {
            item_size: 8,
            max_decoded: 1 << 20,
        };
        let x: Vec<u8> = [1000.0f64, 1000.12, 1001.25, 1001.37]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let enc = c.encode(x, &info).unwrap();
        let ints: Vec<u16> = enc
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(ints, [0, 1, 12, 14]);
        let dec = c.decode(enc, &info).unwrap();
        let back: Vec<f64> = dec
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(back, [1000.0, 1000.1, 1001.2, 1001.4]);
    }
}
