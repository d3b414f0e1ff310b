//! Attributes from `.zattrs`: typed by NCZarr's `_nczarr_attr.types` when present,
//! otherwise inferred from the JSON (the seed's Appendix G, improved: an array is
//! typed by all its elements, not just the first, and an array of strings is a
//! string attribute).

use crate::json::Json;
use crate::model::{Attr, NcType, Values};

/// What an NCZarr type entry says about an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeHint {
    /// A netCDF type.
    Nc(NcType),
    /// `|J0`: an internal JSON attribute (hidden).
    Internal,
}

/// Read an NCZarr type entry: a dtype (`<i4`, `>S1`, `|S128`, `|J0`) or, in V1,
/// a netCDF type number as text (`"2"` is char).
pub(crate) fn type_hint(entry: &Json) -> Option<TypeHint> {
    let text = match entry {
        Json::String(s) => s.as_str(),
        Json::Number(n) => return NcType::from_id(n.as_i64()?).map(TypeHint::Nc),
        _ => return None,
    };
    if let Ok(id) = text.parse::<i64>() {
        return NcType::from_id(id).map(TypeHint::Nc);
    }
    let (endian, rest) = match text.chars().next()? {
        c @ ('<' | '>' | '|' | '=') => (c, &text[1..]),
        _ => ('|', text),
    };
    let kind = rest.chars().next()?;
    let size: usize = rest[kind.len_utf8()..].parse().ok()?;
    Some(TypeHint::Nc(match (kind, size) {
        ('J', _) => return Some(TypeHint::Internal),
        ('i', 1) => NcType::Byte,
        ('i', 2) => NcType::Short,
        ('i', 4) => NcType::Int,
        ('i', 8) => NcType::Int64,
        ('u', 1) => NcType::UByte,
        ('u', 2) => NcType::UShort,
        ('u', 4) => NcType::UInt,
        ('u', 8) => NcType::UInt64,
        ('f', 4) => NcType::Float,
        ('f', 8) => NcType::Double,
        ('b', 1) => NcType::UByte,
        // '>S1' is NCZarr's char; 4.9.0 wrote '<U1'/'>U1' for char.
        ('S', 1) if endian == '>' => NcType::Char,
        ('U', 1) => NcType::Char,
        ('S' | 'U', _) => NcType::String,
        _ => return None,
    }))
}

/// True for attribute names that hold NCZarr or xarray bookkeeping, never shown.
pub(crate) fn is_hidden(name: &str) -> bool {
    name == "_ARRAY_DIMENSIONS"
        || name.starts_with("_nczarr_")
            && !matches!(name, "_nczarr_maxstrlen" | "_nczarr_default_maxstrlen")
        || name.starts_with("_NCZARR_")
}

/// An attribute whose JSON does not fit its declared netCDF type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("attribute '{name}' (type {nc_type}): {fault}")]
pub(crate) struct AttrError {
    name: String,
    nc_type: NcType,
    fault: ValueFault,
}

/// Why one JSON value is not a value of a numeric type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ValueFault {
    #[error("{0} is not a number")]
    NotNumber(String),
    #[error("{0} is not an integer")]
    NotInteger(String),
    #[error("{value} does not fit {nc_type}")]
    OutOfRange { value: String, nc_type: NcType },
}

/// Convert one attribute. `hint` is its NCZarr type, if any.
///
/// # Errors
/// [`AttrError`] when the JSON does not fit the declared type.
pub(crate) fn convert(name: &str, json: &Json, hint: Option<NcType>) -> Result<Attr, AttrError> {
    let values = match hint {
        Some(t) => typed(json, t).map_err(|fault| AttrError {
            name: name.to_string(),
            nc_type: t,
            fault,
        })?,
        None => infer(json),
    };
    Ok(Attr::new(name, values))
}

fn items(json: &Json) -> Vec<&Json> {
    match json {
        Json::Array(a) => a.iter().collect(),
        other => vec![other],
    }
}

fn typed(json: &Json, t: NcType) -> Result<Values, ValueFault> {
    match t {
        NcType::Char => Ok(Values::Char(match json {
            Json::String(s) => crate::text::bytes_of(s),
            // netCDF's JSON convention: text that parsed as JSON was stored as JSON.
            // netcdf-c reads it back as its first character; we give back the text.
            other => other.to_python_text().into_bytes(),
        })),
        NcType::String => Ok(Values::String(
            items(json)
                .into_iter()
                .map(|j| match j {
                    Json::String(s) => Some(crate::text::bytes_of(s)),
                    Json::Null => None,
                    other => Some(other.to_python_text().into_bytes()),
                })
                .collect(),
        )),
        t => {
            let mut out = Values::with_capacity(t, 1);
            for j in items(json) {
                out.append(number(j, t)?);
            }
            Ok(out)
        }
    }
}

/// One JSON number (or numeric string, or boolean) as a value of numeric type `t`.
fn number(j: &Json, t: NcType) -> Result<Values, ValueFault> {
    let n = match j {
        Json::Number(n) => n.clone(),
        Json::Bool(b) => crate::json::Number::from_i64(i64::from(*b)),
        Json::String(s) => match crate::json::parse_str(s.trim()) {
            Ok(Json::Number(n)) => n,
            _ => return Err(ValueFault::NotNumber(format!("\"{s}\""))),
        },
        other => return Err(ValueFault::NotNumber(other.to_text())),
    };
    let out_of_range = || ValueFault::OutOfRange {
        value: n.text().to_string(),
        nc_type: t,
    };
    let int = || -> Result<i128, ValueFault> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .ok_or_else(|| ValueFault::NotInteger(n.text().to_string()))
    };
    Ok(match t {
        NcType::Float => Values::Float(vec![n.as_f64().ok_or_else(out_of_range)? as f32]),
        NcType::Double => Values::Double(vec![n.as_f64().ok_or_else(out_of_range)?]),
        NcType::Byte => Values::Byte(vec![i8::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::UByte => Values::UByte(vec![u8::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::Short => Values::Short(vec![i16::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::UShort => Values::UShort(vec![u16::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::Int => Values::Int(vec![i32::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::UInt => Values::UInt(vec![u32::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::Int64 => Values::Int64(vec![i64::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::UInt64 => Values::UInt64(vec![u64::try_from(int()?).map_err(|_| out_of_range())?]),
        NcType::Char | NcType::String => return Err(ValueFault::NotNumber(j.to_text())),
    })
}

/// The type of an untyped attribute from its JSON value.
fn infer(json: &Json) -> Values {
    match json {
        Json::String(s) => Values::Char(crate::text::bytes_of(s)),
        Json::Number(_) | Json::Bool(_) => {
            numbers(&[json]).unwrap_or_else(|| Values::text(&json.to_python_text()))
        }
        Json::Array(a) if !a.is_empty() && a.iter().all(|j| matches!(j, Json::String(_))) => {
            Values::String(
                a.iter()
                    .map(|j| j.as_str().map(|s| s.as_bytes().to_vec()))
                    .collect(),
            )
        }
        Json::Array(a)
            if !a.is_empty()
                && a.iter()
                    .all(|j| matches!(j, Json::Number(_) | Json::Bool(_))) =>
        {
            let refs: Vec<&Json> = a.iter().collect();
            numbers(&refs).unwrap_or_else(|| Values::text(&json.to_python_text()))
        }
        // Objects, null, nested or mixed arrays: the JSON text, as a char attribute.
        other => Values::text(&other.to_python_text()),
    }
}

/// A list of JSON numbers/booleans as the smallest netCDF type holding them all:
/// int, uint, int64, uint64 for integers (int at least), double if any is not integral,
/// ubyte when all are booleans.
fn numbers(items: &[&Json]) -> Option<Values> {
    if items.iter().all(|j| matches!(j, Json::Bool(_))) {
        return Some(Values::UByte(
            items
                .iter()
                .map(|j| u8::from(matches!(j, Json::Bool(true))))
                .collect(),
        ));
    }
    let nums: Vec<crate::json::Number> = items
        .iter()
        .map(|j| match j {
            Json::Number(n) => n.clone(),
            Json::Bool(b) => crate::json::Number::from_i64(i64::from(*b)),
            _ => crate::json::Number::from_i64(0),
        })
        .collect();
    let ints: Option<Vec<i128>> = nums
        .iter()
        .map(|n| {
            if n.is_integer() {
                n.as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from))
            } else {
                None
            }
        })
        .collect();
    let Some(ints) = ints else {
        return Some(Values::Double(
            nums.iter()
                .map(|n| n.as_f64().unwrap_or(f64::NAN))
                .collect(),
        ));
    };
    let (lo, hi) = (ints.iter().min().copied()?, ints.iter().max().copied()?);
    let fits = |a: i128, b: i128| lo >= a && hi <= b;
    Some(if fits(i128::from(i32::MIN), i128::from(i32::MAX)) {
        Values::Int(ints.iter().map(|&v| v as i32).collect())
    } else if fits(0, i128::from(u32::MAX)) {
        Values::UInt(ints.iter().map(|&v| v as u32).collect())
    } else if fits(i128::from(i64::MIN), i128::from(i64::MAX)) {
        Values::Int64(ints.iter().map(|&v| v as i64).collect())
    } else if fits(0, i128::from(u64::MAX)) {
        Values::UInt64(ints.iter().map(|&v| v as u64).collect())
    } else {
        Values::Double(ints.iter().map(|&v| v as f64).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    /// Found by fuzzing (zarr_store): a type entry whose kind is not ASCII sliced a
    /// char in two and panicked.
    #[test]
    fn type_entry_with_a_multibyte_kind_is_unknown() {
        assert!(type_hint(&Json::String("<\u{e9}4".into())).is_none());
        assert!(type_hint(&Json::String("\u{e9}".into())).is_none());
        assert!(matches!(
            type_hint(&Json::String("<i4".into())),
            Some(TypeHint::Nc(NcType::Int))
        ));
    }

    fn inf(s: &str) -> Values {
        infer(&parse_str(s).unwrap())
    }

    #[test]
    fn inference() {
        assert_eq!(inf("5"), Values::Int(vec![5]));
        assert_eq!(inf("[1, 2.5]"), Values::Double(vec![1.0, 2.5]));
        assert_eq!(inf("3000000000"), Values::UInt(vec![3000000000]));
        assert_eq!(inf("[-1, 3000000000]"), Values::Int64(vec![-1, 3000000000]));
        assert_eq!(inf("18446744073709551615"), Values::UInt64(vec![u64::MAX]));
        assert_eq!(inf("true"), Values::UByte(vec![1]));
        assert_eq!(inf("\"K\""), Values::text("K"));
        assert_eq!(
            inf(r#"["a", "b"]"#),
            Values::String(vec![Some(b"a".to_vec()), Some(b"b".to_vec())].into())
        );
        assert_eq!(
            inf(r#"{"a": 1, "b": [1,2]}"#),
            Values::text(r#"{"a": 1, "b": [1, 2]}"#)
        );
        assert_eq!(inf("[]"), Values::text("[]"));
        assert_eq!(inf("null"), Values::text("null"));
        assert!(matches!(inf("NaN"), Values::Double(v) if v[0].is_nan()));
    }

    #[test]
    fn typed_conversion() {
        let c = |s: &str, t| typed(&parse_str(s).unwrap(), t);
        assert_eq!(
            c("[1,2]", NcType::UByte).unwrap(),
            Values::UByte(vec![1, 2])
        );
        assert_eq!(c("1.5", NcType::Float).unwrap(), Values::Float(vec![1.5]));
        assert_eq!(c("\"NaN\"", NcType::Double).unwrap().len(), 1);
        assert_eq!(c("123", NcType::Char).unwrap(), Values::text("123"));
        assert_eq!(c("[1,2]", NcType::Char).unwrap(), Values::text("[1, 2]"));
        assert!(c("300", NcType::UByte)
            .unwrap_err()
            .to_string()
            .contains("300 does not fit ubyte"));
        assert!(c("1.5", NcType::Int).is_err());
    }

    #[test]
    fn hints() {
        let h = |s: &str| type_hint(&Json::String(s.into()));
        assert_eq!(h(">S1"), Some(TypeHint::Nc(NcType::Char)));
        assert_eq!(h("<U1"), Some(TypeHint::Nc(NcType::Char)));
        assert_eq!(h("|S1"), Some(TypeHint::Nc(NcType::String)));
        assert_eq!(h("|S128"), Some(TypeHint::Nc(NcType::String)));
        assert_eq!(h("|J0"), Some(TypeHint::Internal));
        assert_eq!(h("<u8"), Some(TypeHint::Nc(NcType::UInt64)));
        assert_eq!(h("2"), Some(TypeHint::Nc(NcType::Char)));
        assert_eq!(h("<c8"), None);
        assert!(
            is_hidden("_nczarr_attr")
                && is_hidden("_ARRAY_DIMENSIONS")
                && !is_hidden("_nczarr_maxstrlen")
        );
    }
}
