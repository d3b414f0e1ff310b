//! An attribute's value as ncatted's command line writes it: a list of numbers
//! separated by commas for the numeric types, text for `char` (commas included), a list
//! of strings for `string`; C's escapes (`\n`, `\t`...) in text. Unlike NCO, a number
//! that does not fit its type, or an empty item in a list, is refused rather than
//! wrapped or crashed on.

use crate::model::{NcType, Values};

/// ncatted's type letters (and NCO's longer names) as netCDF types.
///
/// # Errors
/// A message listing the letters, for a name that is none of them.
pub fn parse_type(letters: &str) -> Result<NcType, String> {
    Ok(match letters.to_ascii_lowercase().as_str() {
        "f" | "float" => NcType::Float,
        "d" | "double" => NcType::Double,
        "l" | "i" | "int" => NcType::Int,
        "s" | "short" => NcType::Short,
        "c" | "char" => NcType::Char,
        "b" | "byte" => NcType::Byte,
        "ub" | "ubyte" => NcType::UByte,
        "us" | "ushort" => NcType::UShort,
        "u" | "ui" | "ul" | "uint" => NcType::UInt,
        "ll" | "int64" => NcType::Int64,
        "ull" | "uint64" => NcType::UInt64,
        "sng" | "string" => NcType::String,
        other => {
            return Err(format!(
                "'{other}' is not a type (f d l i s c b ub us u ui ll ull sng)"
            ))
        }
    })
}

/// `text` with C's escapes replaced: `\n \t \r \a \b \f \v \\ \? \' \"`; any other
/// backslash is kept as it is (as NCO does).
pub fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            out.push('\\');
            break;
        };
        match next {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' | '?' | '\'' | '"' => out.push(next),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// The values `text` gives an attribute of type `t`.
///
/// # Errors
/// A message naming the item that is not a number of the type, does not fit it, or is
/// empty (`1,,2`); no value at all for a number.
pub fn parse_values(t: NcType, text: &str) -> Result<Values, String> {
    match t {
        NcType::Char => return Ok(Values::Char(unescape(text).into_bytes())),
        NcType::String => {
            let items: Vec<Option<Vec<u8>>> = unescape(text)
                .split(',')
                .map(|s| Some(s.as_bytes().to_vec()))
                .collect();
            return Ok(Values::String(items.into()));
        }
        _ => {}
    }
    let items: Vec<&str> = text.split(',').map(str::trim).collect();
    if items.iter().any(|s| s.is_empty()) {
        return Err(if text.trim().is_empty() {
            "a number needs a value (only char and string values may be empty)".into()
        } else {
            format!("'{text}' has an empty item: numbers are separated by one comma")
        });
    }
    let mut values = Values::with_capacity(t, items.len());
    for item in items {
        values.append(one_number(t, item)?);
    }
    Ok(values)
}

/// One number of type `t`.
fn one_number(t: NcType, item: &str) -> Result<Values, String> {
    let bad = || format!("'{item}' is not {}", a_type(t));
    let out_of_range = || format!("{item} does not fit {}", a_type(t));
    if matches!(t, NcType::Float | NcType::Double) {
        let x: f64 = item.parse().map_err(|_| bad())?;
        return Ok(if t == NcType::Float {
            #[allow(clippy::cast_possible_truncation)]
            let f = x as f32;
            if x.is_finite() && !f.is_finite() {
                return Err(out_of_range());
            }
            Values::Float(vec![f])
        } else {
            Values::Double(vec![x])
        });
    }
    let n: i128 = item
        .strip_prefix('+')
        .unwrap_or(item)
        .parse()
        .map_err(|_| bad())?;
    let fit = |r: Option<Values>| r.ok_or_else(out_of_range);
    match t {
        NcType::Byte => fit(i8::try_from(n).ok().map(|v| Values::Byte(vec![v]))),
        NcType::Short => fit(i16::try_from(n).ok().map(|v| Values::Short(vec![v]))),
        NcType::Int => fit(i32::try_from(n).ok().map(|v| Values::Int(vec![v]))),
        NcType::Int64 => fit(i64::try_from(n).ok().map(|v| Values::Int64(vec![v]))),
        NcType::UByte => fit(u8::try_from(n).ok().map(|v| Values::UByte(vec![v]))),
        NcType::UShort => fit(u16::try_from(n).ok().map(|v| Values::UShort(vec![v]))),
        NcType::UInt => fit(u32::try_from(n).ok().map(|v| Values::UInt(vec![v]))),
        NcType::UInt64 => fit(u64::try_from(n).ok().map(|v| Values::UInt64(vec![v]))),
        _ => Err(bad()),
    }
}

/// `a short`, `an int`: for messages.
fn a_type(t: NcType) -> String {
    let name = t.cdl_name();
    let article = if name.starts_with(['a', 'e', 'i', 'o']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_parsed_checked_and_never_wrapped() {
        assert_eq!(
            parse_values(NcType::Int, "1, 2,3").unwrap(),
            Values::Int(vec![1, 2, 3])
        );
        assert_eq!(
            parse_values(NcType::Float, "1e3").unwrap(),
            Values::Float(vec![1000.0])
        );
        assert_eq!(
            parse_values(NcType::Short, "70000").unwrap_err(),
            "70000 does not fit a short"
        );
        assert_eq!(
            parse_values(NcType::Short, "abc").unwrap_err(),
            "'abc' is not a short"
        );
        assert_eq!(
            parse_values(NcType::UInt, "-1").unwrap_err(),
            "-1 does not fit a uint"
        );
        assert!(parse_values(NcType::Double, "1,,2")
            .unwrap_err()
            .contains("empty item"));
        assert!(parse_values(NcType::Double, "")
            .unwrap_err()
            .contains("needs a value"));
        assert_eq!(
            parse_values(NcType::Float, "1e40").unwrap_err(),
            "1e40 does not fit a float"
        );
        assert_eq!(
            parse_values(NcType::UInt64, "18446744073709551615").unwrap(),
            Values::UInt64(vec![u64::MAX])
        );
    }

    #[test]
    fn text_keeps_commas_and_takes_escapes() {
        assert_eq!(
            parse_values(NcType::Char, r"a,b\tc\nd\\e\q").unwrap(),
            Values::text("a,b\tc\nd\\e\\q")
        );
        assert_eq!(parse_values(NcType::Char, "").unwrap(), Values::text(""));
        let Values::String(s) = parse_values(NcType::String, "a,b").unwrap() else {
            panic!("strings")
        };
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn type_letters_are_ncos() {
        assert_eq!(parse_type("l").unwrap(), NcType::Int);
        assert_eq!(parse_type("ULL").unwrap(), NcType::UInt64);
        assert_eq!(parse_type("sng").unwrap(), NcType::String);
        assert!(parse_type("z").unwrap_err().contains("not a type"));
    }
}
