//! `fill_value` in `.zarray`: JSON numbers, `"NaN"`/`"Infinity"`/`"-Infinity"`,
//! base64 for byte strings (zarr-python), plain text for NCZarr char and string.

use super::Dtype;
use crate::json::Json;
use crate::model::{NcType, Strings, Values};
use crate::text::decode_base64;

/// A `fill_value` that does not fit its array's type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fill_value {value} does not fit dtype {dtype}: {reason}")]
pub struct FillError {
    /// The JSON as written.
    pub value: String,
    /// The array's dtype.
    pub dtype: String,
    /// What is wrong.
    pub reason: String,
}

// Here rather than in `error.rs`, which would otherwise import the layer it is
// imported by.
impl From<FillError> for crate::Error {
    fn from(e: FillError) -> crate::Error {
        crate::Error::Layer {
            layer: "zarr",
            source: Box::new(e),
        }
    }
}

/// Convert a `fill_value` to one value of `nc_type`; `Ok(None)` for `null` (no fill).
///
/// `text_is_base64` says how to read a string fill of a byte-string dtype: zarr-python
/// stores it base64-encoded, netcdf-c as the plain text.
///
/// # Errors
/// [`FillError`] when the value is out of range or of the wrong kind.
pub fn parse_fill_value(
    json: &Json,
    dtype: &Dtype,
    nc_type: NcType,
    text_is_base64: bool,
) -> Result<Option<Values>, FillError> {
    let fail = |reason: &str| FillError {
        value: json.to_text(),
        dtype: dtype.to_string(),
        reason: reason.to_string(),
    };
    if matches!(json, Json::Null) {
        return Ok(None);
    }
    let values = match nc_type {
        NcType::Char => Values::Char(vec![text_fill(json, text_is_base64)
            .first()
            .copied()
            .unwrap_or(0)]),
        NcType::String => {
            let mut bytes = match json {
                // zarr-python reads a number given to a text dtype as its text
                // (`str(0)`, "0"); zarr-python 2 wrote 0 for `|O` arrays.
                Json::Number(n) if !text_is_base64 => python_text(n).into_bytes(),
                _ => text_fill(json, text_is_base64),
            };
            while bytes.last() == Some(&0) {
                bytes.pop();
            }
            Values::String(Strings::from(vec![Some(bytes)]))
        }
        NcType::Float | NcType::Double => {
            let f = match json {
                Json::Number(n) => n.as_f64(),
                Json::String(s) => crate::json::parse_float_text(s).or_else(|| {
                    // zarr-python 2 could write a float fill as base64 of its bytes.
                    decode_base64(s).and_then(|b| match b.len() {
                        8 => Some(f64::from_le_bytes(b.try_into().ok()?)),
                        4 => Some(f64::from(f32::from_le_bytes(b.try_into().ok()?))),
                        _ => None,
                    })
                }),
                Json::Bool(b) => Some(f64::from(u8::from(*b))),
                _ => None,
            }
            .ok_or_else(|| fail("not a number"))?;
            if nc_type == NcType::Float {
                Values::Float(vec![f as f32])
            } else {
                Values::Double(vec![f])
            }
        }
        _ => {
            let v: i128 = match json {
                Json::Number(n) => n
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from))
                    .ok_or_else(|| fail("not an integer"))?,
                Json::Bool(b) => i128::from(*b),
                // datetime64 "NaT"
                Json::String(s) if s == "NaT" => i128::from(i64::MIN),
                Json::String(s) => s
                    .trim()
                    .parse::<i128>()
                    .map_err(|_| fail("not an integer"))?,
                _ => return Err(fail("not an integer")),
            };
            int_values(nc_type, v).ok_or_else(|| fail("out of range"))?
        }
    };
    Ok(Some(values))
}

/// Python's `str()` of a JSON number as `json.loads` reads it: an integer's digits, a
/// float's `repr` (shortest round trip, `1.0`, `1e+20`, `1e-05`).
fn python_text(n: &crate::json::Number) -> String {
    if n.is_integer() {
        if let Ok(v) = n.text().parse::<i128>() {
            return v.to_string();
        }
        return n.text().to_string();
    }
    let Some(v) = n.as_f64() else {
        return n.text().to_string();
    };
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    // Rust's `{:e}` and `{}` give the shortest round-trip digits, as `repr` does;
    // `repr` writes an exponent from 1e16 on and below 1e-4, signed, two digits at least.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if v == 0.0 || (-4..16).contains(&exp) {
        let fixed = format!("{v}");
        return if fixed.contains('.') {
            fixed
        } else {
            fixed + ".0"
        };
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

fn text_fill(json: &Json, base64: bool) -> Vec<u8> {
    match json {
        Json::String(s) if base64 => decode_base64(s).unwrap_or_else(|| s.as_bytes().to_vec()),
        Json::String(s) => s.as_bytes().to_vec(),
        Json::Number(n) => n
            .as_u64()
            .and_then(|v| u8::try_from(v).ok())
            .map_or_else(Vec::new, |b| vec![b]),
        _ => Vec::new(),
    }
}

fn int_values(t: NcType, v: i128) -> Option<Values> {
    Some(match t {
        NcType::Byte => Values::Byte(vec![i8::try_from(v).ok()?]),
        NcType::UByte => Values::UByte(vec![u8::try_from(v).ok()?]),
        NcType::Short => Values::Short(vec![i16::try_from(v).ok()?]),
        NcType::UShort => Values::UShort(vec![u16::try_from(v).ok()?]),
        NcType::Int => Values::Int(vec![i32::try_from(v).ok()?]),
        NcType::UInt => Values::UInt(vec![u32::try_from(v).ok()?]),
        NcType::Int64 => Values::Int64(vec![i64::try_from(v).ok()?]),
        NcType::UInt64 => Values::UInt64(vec![u64::try_from(v).ok()?]),
        _ => return None,
    })
}

/// The `fill_value` JSON of one fill value (`None`: no fill, written `null`).
///
/// Byte-string fills are base64 in Zarr (`base64_text`, what zarr-python reads) and
/// the text itself in NCZarr; a NUL char fill is `""` in both (base64 of nothing).
/// String fills are written `""`: netCDF's default empty string.
pub fn fill_json(fill: Option<&Values>, base64_text: bool) -> Json {
    match fill {
        None => Json::Null,
        Some(Values::Char(c)) if base64_text => Json::String(match c.first() {
            None | Some(0) => String::new(),
            Some(&b) => crate::text::encode_base64(&[b]),
        }),
        Some(Values::Char(c)) => super::values::text_json(c),
        Some(Values::String(_)) => Json::String(String::new()),
        Some(v) => super::values::values_json(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn fill(j: &str, dtype: &str, t: NcType, b64: bool) -> Result<Option<Values>, FillError> {
        parse_fill_value(
            &parse_str(j).unwrap(),
            &Dtype::parse(dtype).unwrap(),
            t,
            b64,
        )
    }

    #[test]
    fn numbers_and_specials() {
        assert_eq!(fill("null", "<i4", NcType::Int, false).unwrap(), None);
        assert_eq!(
            fill("-2147483647", "<i4", NcType::Int, false).unwrap(),
            Some(Values::Int(vec![-2147483647]))
        );
        assert_eq!(
            fill("18446744073709551614", "<u8", NcType::UInt64, false).unwrap(),
            Some(Values::UInt64(vec![18446744073709551614]))
        );
        assert!(
            matches!(fill("\"NaN\"", "<f4", NcType::Float, false).unwrap(), Some(Values::Float(v)) if v[0].is_nan())
        );
        assert!(
            matches!(fill("NaN", "<f8", NcType::Double, false).unwrap(), Some(Values::Double(v)) if v[0].is_nan())
        );
        assert_eq!(
            fill("\"-Infinity\"", "<f8", NcType::Double, false).unwrap(),
            Some(Values::Double(vec![f64::NEG_INFINITY]))
        );
        assert_eq!(
            fill("9.96921e+36", "<f8", NcType::Double, false).unwrap(),
            Some(Values::Double(vec![9.96921e36]))
        );
        assert_eq!(
            fill("0.0", "<i2", NcType::Short, false).unwrap(),
            Some(Values::Short(vec![0]))
        );
        assert_eq!(
            fill("true", "|b1", NcType::UByte, false).unwrap(),
            Some(Values::UByte(vec![1]))
        );
    }

    #[test]
    fn text_fills() {
        assert_eq!(
            fill("\"\"", ">S1", NcType::Char, false).unwrap(),
            Some(Values::Char(vec![0]))
        );
        assert_eq!(
            fill("\"x\"", ">S1", NcType::Char, false).unwrap(),
            Some(Values::Char(vec![b'x']))
        );
        assert_eq!(
            fill("\"eA==\"", "|S1", NcType::Char, true).unwrap(),
            Some(Values::Char(vec![b'x']))
        );
        assert_eq!(
            fill("\"\"", "|S128", NcType::String, false).unwrap(),
            Some(Values::String(vec![Some(vec![])].into()))
        );
    }

    #[test]
    fn text_fills_of_zarr_python() {
        // zarr-python reads a number given to a text dtype as its text, and text
        // plainly unless the dtype holds bytes (base64 then).
        let text = |j: &str, dtype: &str, b64: bool| match fill(j, dtype, NcType::String, b64) {
            Ok(Some(Values::String(s))) => String::from_utf8(s.value(0).unwrap().to_vec()).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text("0", "|O", false), "0");
        assert_eq!(text("5", "|O", false), "5");
        assert_eq!(text("\"ab\"", "|O", false), "ab");
        assert_eq!(text("\"ab\"", "<U3", false), "ab");
        assert_eq!(text("\"YWI=\"", "|S3", true), "ab");
        assert_eq!(text("1.5", "|O", false), "1.5");
        assert_eq!(text("100.0", "|O", false), "100.0");
        assert_eq!(text("1e20", "|O", false), "1e+20");
        assert_eq!(text("0.00001", "|O", false), "1e-05");
        assert_eq!(text("-0.0001", "|O", false), "-0.0001");
    }

    #[test]
    fn errors() {
        let e = fill("300", "|u1", NcType::UByte, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "fill_value 300 does not fit dtype |u1: out of range"
        );
        assert!(fill("1.5", "<i4", NcType::Int, false).is_err());
        assert!(fill("[1]", "<f4", NcType::Float, false).is_err());
    }

    #[test]
    fn fills_written_as_read() {
        let dt = Dtype::parse("|S1").unwrap();
        for (v, b64) in [(b'*', true), (b'*', false), (0, true)] {
            let j = fill_json(Some(&Values::Char(vec![v])), b64);
            assert_eq!(
                parse_fill_value(&j, &dt, NcType::Char, b64).unwrap(),
                Some(Values::Char(vec![v])),
                "{j:?}"
            );
        }
        assert_eq!(fill_json(None, true), Json::Null);
        assert_eq!(
            fill_json(Some(&Values::Short(vec![-3])), false).to_text(),
            "-3"
        );
    }

    #[test]
    fn base64() {
        assert_eq!(decode_base64("AAAAAA==").unwrap(), vec![0, 0, 0, 0]);
        assert_eq!(decode_base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(decode_base64("").unwrap(), b"");
        assert!(decode_base64("a").is_none());
        assert!(decode_base64("a*b=").is_none());
    }
}
