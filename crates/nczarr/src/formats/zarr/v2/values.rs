//! netCDF values as Zarr JSON: attribute values in `.zattrs` and fill values in
//! `.zarray`, the way NCZarr and zarr-python write them.

use crate::json::{Json, Number};
use crate::model::Values;

/// A char attribute's bytes as a JSON string: UTF-8 as is, other bytes as Latin-1;
/// trailing NULs dropped.
pub(crate) fn text_json(bytes: &[u8]) -> Json {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    let bytes = &bytes[..end];
    Json::String(match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    })
}

/// Attribute values as JSON: a string for char, a scalar for one value, else an array.
/// Floats keep full precision (netcdf-c writes `%g`, six digits); NaN and the
/// infinities are the strings zarr-python writes.
pub fn values_json(values: &Values) -> Json {
    let item = |i: usize| -> Json {
        match values {
            Values::Float(v) => Json::Number(Number::from_f32(v[i])),
            Values::Double(v) => Json::Number(Number::from_f64(v[i])),
            Values::String(v) => v.value(i).map_or(Json::Null, text_json),
            Values::Int64(v) => Json::Number(Number::from_i64(v[i])),
            Values::UInt64(v) => Json::Number(Number::from_u64(v[i])),
            other => Json::Number(Number::from_i64(other.get_i128(i).unwrap_or(0) as i64)),
        }
    };
    match values {
        Values::Char(bytes) => text_json(bytes),
        v if v.len() == 1 => item(0),
        v => Json::Array((0..v.len()).map(item).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::encode_base64;

    #[test]
    fn attribute_json() {
        assert_eq!(values_json(&Values::Int(vec![5])).to_text(), "5");
        assert_eq!(
            values_json(&Values::Double(vec![1.0, 2.5])).to_text(),
            "[1.0,2.5]"
        );
        assert_eq!(
            values_json(&Values::Float(vec![0.1, f32::NAN])).to_text(),
            "[0.1,\"NaN\"]"
        );
        assert_eq!(values_json(&Values::text("abc\0")).to_text(), "\"abc\"");
        assert_eq!(
            values_json(&Values::String(vec![Some(b"a".to_vec()), None].into())).to_text(),
            "[\"a\",null]"
        );
        assert_eq!(
            values_json(&Values::UInt64(vec![u64::MAX])).to_text(),
            "18446744073709551615"
        );
    }

    #[test]
    fn base64() {
        assert_eq!(encode_base64(b"*"), "Kg==");
        assert_eq!(encode_base64(b"hello"), "aGVsbG8=");
        assert_eq!(
            crate::text::decode_base64(&encode_base64(b"hello")).unwrap(),
            b"hello"
        );
    }
}
