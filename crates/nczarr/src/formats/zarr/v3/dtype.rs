//! Zarr v3 data types as our [`Dtype`]: the byte order is not part of a v3 data type
//! (the `bytes` codec says it), so it is filled in afterwards.

use crate::formats::zarr::v2::{Dtype, Endian};
use crate::json::{Json, Number};

/// The [`Dtype`] of a v3 `data_type` (little-endian until the `bytes` codec says
/// otherwise).
///
/// # Errors
/// A message for data types netCDF has no type for and for unknown ones.
pub fn dtype_from_json(json: &Json) -> Result<Dtype, String> {
    let (name, config) = match json {
        Json::String(s) => (s.as_str(), None),
        Json::Object(_) => (
            json.get("name")
                .and_then(Json::as_str)
                .ok_or("data_type object has no \"name\"")?,
            json.get("configuration"),
        ),
        other => return Err(format!("data_type is {}, not a name", other.kind())),
    };
    let le = Endian::Little;
    let length_bytes = || -> Result<usize, String> {
        config
            .and_then(|c| c.get("length_bytes"))
            .and_then(Json::as_number)
            .and_then(Number::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n > 0 && n <= 1 << 30)
            .ok_or_else(|| format!("data type '{name}' needs a positive \"length_bytes\""))
    };
    let unit = || -> Result<String, String> {
        let unit = config
            .and_then(|c| c.get("unit"))
            .and_then(Json::as_str)
            .filter(|u| !u.is_empty() && u.chars().all(|c| c.is_ascii_alphanumeric()))
            .ok_or_else(|| format!("data type '{name}' needs a time \"unit\""))?;
        match config
            .and_then(|c| c.get("scale_factor"))
            .and_then(Json::as_i64_lenient)
        {
            None | Some(1) => Ok(unit.to_string()),
            Some(n) if n > 1 => Ok(format!("{n}{unit}")),
            Some(n) => Err(format!("data type '{name}' has scale_factor {n}")),
        }
    };
    let int = |bytes, signed| Dtype::Int {
        bytes,
        signed,
        endian: if bytes == 1 {
            Endian::NotApplicable
        } else {
            le
        },
    };
    Ok(match name {
        "bool" => Dtype::Bool,
        "int8" => int(1, true),
        "int16" => int(2, true),
        "int32" => int(4, true),
        "int64" => int(8, true),
        "uint8" => int(1, false),
        "uint16" => int(2, false),
        "uint32" => int(4, false),
        "uint64" => int(8, false),
        "float16" => Dtype::Float {
            bytes: 2,
            endian: le,
        },
        "float32" => Dtype::Float {
            bytes: 4,
            endian: le,
        },
        "float64" => Dtype::Float {
            bytes: 8,
            endian: le,
        },
        "string" | "bytes" | "variable_length_bytes" => Dtype::Object,
        "null_terminated_bytes" | "fixed_length_bytes" => Dtype::Bytes {
            len: length_bytes()?,
            endian: Endian::NotApplicable,
        },
        "fixed_length_utf32" => {
            let n = length_bytes()?;
            if n % 4 != 0 {
                return Err(format!(
                    "fixed_length_utf32 length_bytes {n} is not a multiple of 4"
                ));
            }
            Dtype::Unicode {
                chars: n / 4,
                endian: le,
            }
        }
        "r8" => int(1, false),
        "numpy.datetime64" => Dtype::DateTime {
            unit: unit()?,
            endian: le,
        },
        "numpy.timedelta64" => Dtype::TimeDelta {
            unit: unit()?,
            endian: le,
        },
        "complex64" | "complex128" | "complex_float16" | "complex_float32" | "complex_float64" => {
            return Err(format!(
                "data type '{name}': complex numbers have no netCDF type"
            ))
        }
        "bfloat16" => return Err("data type 'bfloat16' has no netCDF type".into()),
        raw if raw.starts_with('r') && raw[1..].parse::<u32>().is_ok() => {
            return Err(format!(
                "data type '{raw}': raw bits have no netCDF type (only r8 is read, as ubyte)"
            ))
        }
        other => return Err(format!("unknown data type '{other}'")),
    })
}

/// True when `data_type` names variable-length text (`string`), as opposed to bytes.
pub(crate) fn is_text(json: &Json) -> bool {
    matches!(json, Json::String(s) if s == "string")
        || json.get("name").and_then(Json::as_str) == Some("string")
}

/// The v3 `data_type` of a [`Dtype`]; `Object` is written as `string` (netCDF strings
/// are text).
pub fn dtype_to_json(dtype: &Dtype) -> Json {
    let named = |name: &str, config: Vec<(String, Json)>| {
        Json::Object(vec![
            ("name".into(), Json::String(name.into())),
            ("configuration".into(), Json::Object(config)),
        ])
    };
    let plain = |s: &str| Json::String(s.into());
    match dtype {
        Dtype::Bool => plain("bool"),
        Dtype::Int { bytes, signed, .. } => plain(&format!(
            "{}int{}",
            if *signed { "" } else { "u" },
            bytes * 8
        )),
        Dtype::Float { bytes, .. } => plain(&format!("float{}", bytes * 8)),
        Dtype::Object => plain("string"),
        Dtype::Bytes { len, .. } => named(
            "null_terminated_bytes",
            vec![(
                "length_bytes".into(),
                Json::Number(Number::from_u64(*len as u64)),
            )],
        ),
        Dtype::Unicode { chars, .. } => named(
            "fixed_length_utf32",
            vec![(
                "length_bytes".into(),
                Json::Number(Number::from_u64(*chars as u64 * 4)),
            )],
        ),
        Dtype::DateTime { unit, .. } | Dtype::TimeDelta { unit, .. } => named(
            if matches!(dtype, Dtype::DateTime { .. }) {
                "numpy.datetime64"
            } else {
                "numpy.timedelta64"
            },
            vec![
                ("unit".into(), Json::String(unit.clone())),
                ("scale_factor".into(), Json::Number(Number::from_i64(1))),
            ],
        ),
    }
}

/// `dtype` with byte order `endian` (for the types that have one).
pub(crate) fn with_endian(dtype: Dtype, endian: Endian) -> Dtype {
    match dtype {
        Dtype::Int { bytes, signed, .. } if bytes > 1 => Dtype::Int {
            bytes,
            signed,
            endian,
        },
        Dtype::Float { bytes, .. } => Dtype::Float { bytes, endian },
        Dtype::Unicode { chars, .. } => Dtype::Unicode { chars, endian },
        Dtype::DateTime { unit, .. } => Dtype::DateTime { unit, endian },
        Dtype::TimeDelta { unit, .. } => Dtype::TimeDelta { unit, endian },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn every_mappable_type_and_clear_refusals() {
        let d = |t: &str| dtype_from_json(&parse_str(t).unwrap());
        assert_eq!(d(r#""int16""#).unwrap().to_string(), "<i2");
        assert_eq!(d(r#""uint8""#).unwrap().to_string(), "|u1");
        assert_eq!(d(r#""float16""#).unwrap().to_string(), "<f2");
        assert_eq!(d(r#""bool""#).unwrap(), Dtype::Bool);
        assert_eq!(d(r#""string""#).unwrap(), Dtype::Object);
        assert_eq!(
            d(r#"{"name": "null_terminated_bytes", "configuration": {"length_bytes": 3}}"#)
                .unwrap()
                .to_string(),
            "|S3"
        );
        assert_eq!(
            d(r#"{"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}}"#)
                .unwrap()
                .to_string(),
            "<U3"
        );
        assert!(d(r#""complex64""#).unwrap_err().contains("complex"));
        assert!(d(r#""r16""#).unwrap_err().contains("raw bits"));
        assert!(d(r#""float128""#)
            .unwrap_err()
            .contains("unknown data type 'float128'"));
        for t in ["<i8", ">f4", "|b1", "|S4", "<U2", "|u1"] {
            let dt = Dtype::parse(t).unwrap();
            let back = d(&dtype_to_json(&dt).to_text()).unwrap();
            assert_eq!(with_endian(back, dt.endian()), dt, "{t}");
        }
    }
}
