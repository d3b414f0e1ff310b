//! A small JSON reader and writer tuned for Zarr v2 / NCZarr metadata.
//!
//! Why not serde_json: the stores we read are written by tools that bend JSON.
//! netcdf-c 4.9.0 writes bare `NaN`, zarr-python writes bare `NaN`/`Infinity`
//! (Python's `json` allows them), netcdf-c leaves control bytes raw inside strings,
//! and numbers must keep their exact text (an `uint64` fill of
//! `18446744073709551614` or a float attribute must not pass through `f64`
//! unless asked). Object members keep their order, because attribute order is
//! part of a netCDF dataset.
//!
//! The writer produces netcdf-c's layout (`{"k": v, "k2": v2}`, arrays without
//! spaces), which keeps our output byte-comparable with netcdf-c's.

use std::fmt::Write as _;

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, kept as text; includes the non-standard `NaN`, `Infinity`, `-Infinity`.
    Number(Number),
    /// A string (always valid UTF-8).
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in document order.
    Object(Vec<(String, Json)>),
}

/// A JSON number kept as its source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Number(String);

/// Why a JSON text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line} column {column}")]
pub struct JsonError {
    /// 1-based line of the fault.
    pub line: usize,
    /// 1-based column (in bytes) of the fault.
    pub column: usize,
    /// What was wrong.
    pub message: String,
}

impl Number {
    /// Make a number from an integer.
    pub fn from_i64(v: i64) -> Number {
        Number(v.to_string())
    }

    /// Make a number from an unsigned integer.
    pub fn from_u64(v: u64) -> Number {
        Number(v.to_string())
    }

    /// Make a number from a double, shortest text that reads back to the same value;
    /// non-finite values become `NaN`, `Infinity` or `-Infinity`.
    pub fn from_f64(v: f64) -> Number {
        if v.is_nan() {
            Number("NaN".into())
        } else if v.is_infinite() {
            Number(if v < 0.0 { "-Infinity" } else { "Infinity" }.into())
        } else {
            Number(shortest_f64(v))
        }
    }

    /// Make a number from a float, shortest text that reads back to the same `f32`.
    pub fn from_f32(v: f32) -> Number {
        if !v.is_finite() {
            return Number::from_f64(f64::from(v));
        }
        Number(pick_shorter(format!("{v}"), format!("{v:e}")))
    }

    /// The number's text as written.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// True when the text has no fraction or exponent (and is not NaN/Infinity).
    pub fn is_integer(&self) -> bool {
        !self.0.contains(['.', 'e', 'E', 'N', 'I', 'n', 'i'])
    }

    /// The value as `i64` when it is an integer in range, or a float with an integral value in range.
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_integer() {
            return self.0.parse().ok();
        }
        let f = self.as_f64()?;
        (f.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f))
            .then_some(f as i64)
    }

    /// The value as `u64` when it is a non-negative integer in range, or an integral float in range.
    pub fn as_u64(&self) -> Option<u64> {
        if self.is_integer() {
            return self.0.parse().ok();
        }
        let f = self.as_f64()?;
        (f.fract() == 0.0 && (0.0..1.844_674_407_370_955_2e19).contains(&f)).then_some(f as u64)
    }

    /// The value as `f64` (NaN and infinities included).
    pub fn as_f64(&self) -> Option<f64> {
        parse_float_text(&self.0)
    }
}

/// Parse a float, accepting netcdf-c's spellings of the special values.
pub(crate) fn parse_float_text(s: &str) -> Option<f64> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let lower = lower.strip_suffix('f').unwrap_or(&lower);
    match lower {
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        "infinity" | "+infinity" | "inf" | "+inf" => Some(f64::INFINITY),
        "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
        _ => t.parse::<f64>().ok(),
    }
}

/// Shortest round-trip text for a finite double, in a JSON-compatible spelling.
fn shortest_f64(v: f64) -> String {
    pick_shorter(format!("{v}"), format!("{v:e}"))
}

/// Rust's `Display` and `LowerExp` both give the shortest round-trip digits; keep the
/// shorter spelling, and give integral values a ".0" so they read back as floats.
fn pick_shorter(plain: String, sci: String) -> String {
    let plain = if plain.contains(['.', 'e', 'E']) {
        plain
    } else {
        format!("{plain}.0")
    };
    if sci.len() < plain.len() {
        sci
    } else {
        plain
    }
}

impl Json {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The member `key` of an object, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(members) => members.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Set the member `key` of an object to `value` (in its place if there is one,
    /// else last); nothing happens to anything but an object.
    pub fn set(&mut self, key: &str, value: Json) {
        if let Json::Object(members) = self {
            match members.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = value,
                None => members.push((key.to_string(), value)),
            }
        }
    }

    /// The first member found among `keys` (for netcdf-c's alternate key spellings).
    pub fn get_any(&self, keys: &[&str]) -> Option<&Json> {
        keys.iter().find_map(|k| self.get(k))
    }

    /// The string value, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&[(String, Json)]> {
        match self {
            Json::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The number, if this is a number.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Json::Number(n) => Some(n),
            _ => None,
        }
    }

    /// An integer value; also accepts a string holding an integer (netcdf-c 4.9.2
    /// quoted codec parameters such as `"level": "5"`).
    pub fn as_i64_lenient(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.as_i64(),
            Json::String(s) => s.trim().parse().ok(),
            Json::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// A short name of the JSON kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// Serialize in netcdf-c's layout: `{"k": v, "k2": v2}`, `[1,2,3]`, no newline.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out);
        out
    }

    /// As [`Json::to_text`], but non-finite numbers bare (`NaN`, `Infinity`), as
    /// Python's `json.dumps` writes them: zarr-python's attributes, which it reads
    /// back as numbers (strings would read as strings).
    pub fn to_text_bare_nonfinite(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out, ",", true);
        out
    }

    /// Serialize the way Python's `json.dumps` does by default (`[1, 2]`,
    /// `{"a": 1, "b": 2}`): the most common spelling of JSON text typed by people, so
    /// the best guess at the text a JSON-valued char attribute was written from.
    pub fn to_python_text(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out, ", ", false);
        out
    }

    /// Serialize with two-space indentation, one member or element per line (for people).
    pub fn to_pretty(&self) -> String {
        let mut out = String::new();
        self.write_pretty(&mut out, 0);
        out
    }

    fn write_pretty(&self, out: &mut String, depth: usize) {
        let pad = |out: &mut String, d: usize| out.extend(std::iter::repeat_n(' ', 2 * d));
        match self {
            Json::Array(items) if !items.is_empty() => {
                if items
                    .iter()
                    .all(|i| !matches!(i, Json::Array(_) | Json::Object(_)))
                {
                    self.write_text(out);
                    return;
                }
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    pad(out, depth + 1);
                    item.write_pretty(out, depth + 1);
                    if i + 1 < items.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                pad(out, depth);
                out.push(']');
            }
            Json::Object(members) if !members.is_empty() => {
                out.push_str("{\n");
                for (i, (k, v)) in members.iter().enumerate() {
                    pad(out, depth + 1);
                    write_string(k, out);
                    out.push_str(": ");
                    v.write_pretty(out, depth + 1);
                    if i + 1 < members.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                pad(out, depth);
                out.push('}');
            }
            other => other.write_text(out),
        }
    }

    fn write_text(&self, out: &mut String) {
        self.write_compact(out, ",", false);
    }

    /// One line; array elements apart by `array_sep` (netcdf-c `,`, Python `, `),
    /// object members always by `, ` (both spell them so).
    fn write_compact(&self, out: &mut String, array_sep: &str, bare_nonfinite: bool) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => {
                // Non-finite numbers are written as strings, the way netcdf-c 4.9.2+
                // and zarr-python's fill_value spell them, so every JSON reader copes.
                if n.as_f64().is_some_and(|f| !f.is_finite()) {
                    let name = if n.as_f64().is_some_and(f64::is_nan) {
                        "NaN"
                    } else if n.text().starts_with('-') {
                        "-Infinity"
                    } else {
                        "Infinity"
                    };
                    if bare_nonfinite {
                        out.push_str(name);
                    } else {
                        write_string(name, out);
                    }
                } else {
                    out.push_str(n.text());
                }
            }
            Json::String(s) => write_string(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(array_sep);
                    }
                    item.write_compact(out, array_sep, bare_nonfinite);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_string(k, out);
                    out.push_str(": ");
                    v.write_compact(out, array_sep, bare_nonfinite);
                }
                out.push('}');
            }
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

mod parse;
pub use parse::{parse, parse_str};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_netcdf_object_and_keeps_order() {
        let j = parse_str(r#"{"b": 1, "a": [1,2.5], "c": {"x": null}}"#).unwrap();
        let keys: Vec<_> = j
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(j.to_text(), r#"{"b": 1, "a": [1,2.5], "c": {"x": null}}"#);
    }

    #[test]
    fn bare_nan_and_infinity_are_numbers() {
        let j = parse_str("[NaN, -Infinity, Infinity, nan, NaNf, Infinityf]").unwrap();
        let a = j.as_array().unwrap();
        assert!(a[0].as_number().unwrap().as_f64().unwrap().is_nan());
        assert_eq!(a[1].as_number().unwrap().as_f64(), Some(f64::NEG_INFINITY));
        assert_eq!(a[2].as_number().unwrap().as_f64(), Some(f64::INFINITY));
        assert!(a[3].as_number().unwrap().as_f64().unwrap().is_nan());
        assert!(a[4].as_number().unwrap().as_f64().unwrap().is_nan());
        assert_eq!(a[5].as_number().unwrap().as_f64(), Some(f64::INFINITY));
    }

    #[test]
    fn numbers_keep_their_text() {
        let j = parse_str("18446744073709551614").unwrap();
        assert_eq!(j.as_number().unwrap().as_u64(), Some(18446744073709551614));
        assert_eq!(j.to_text(), "18446744073709551614");
        let j = parse_str("-2147483647").unwrap();
        assert_eq!(j.as_number().unwrap().as_i64(), Some(-2147483647));
        let j = parse_str("1.0").unwrap();
        assert_eq!(j.as_number().unwrap().as_i64(), Some(1));
        assert!(!j.as_number().unwrap().is_integer());
    }

    #[test]
    fn unicode_escapes_are_decoded() {
        let j = parse_str(r#""na\u00efve \u03a9 \ud83d\ude00""#).unwrap();
        assert_eq!(j.as_str(), Some("naïve Ω 😀"));
    }

    #[test]
    fn raw_control_characters_in_strings_are_accepted() {
        let j = parse(b"\"a\x01b\"").unwrap();
        assert_eq!(j.as_str(), Some("a\u{1}b"));
    }

    #[test]
    fn errors_have_line_and_column() {
        let e = parse_str("{\n  \"a\": 1,\n  \"b\" 2}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 7));
        assert_eq!(e.message, "expected ':'");
        let e = parse_str("{\"a\": 1} x").unwrap_err();
        assert!(e.message.contains("after the JSON value"));
        let e = parse_str("").unwrap_err();
        assert!(e.message.contains("end"));
        let e = parse_str("[1, 2").unwrap_err();
        assert!(e.message.contains("expected ',' or ']'"));
    }

    #[test]
    fn fast_and_general_paths_read_alike() {
        // Strings: a plain run, then escapes after it, then a plain tail; bytes that
        // are not UTF-8 kept as stand-ins either way.
        let j = parse(b"[\"plain\", \"ab\\\"c\\nd\", \"\\u0041z\", \"\xffx\", \"\"]").unwrap();
        let a = j.as_array().unwrap();
        assert_eq!(a[0].as_str(), Some("plain"));
        assert_eq!(a[1].as_str(), Some("ab\"c\nd"));
        assert_eq!(a[2].as_str(), Some("Az"));
        assert_eq!(
            a[3].as_str(),
            Some(crate::text::lossless(b"\xffx".to_vec()).as_str())
        );
        assert_eq!(a[4].as_str(), Some(""));
        // Numbers: the plain grammar kept as written, the rest through the general path.
        for (text, kept) in [
            ("-0.5", "-0.5"),
            ("1e5", "1e5"),
            ("1E-07", "1E-07"),
            (".5", ".5"),
            ("5.", "5."),
            ("+7", "7"),
            ("007", "007"),
        ] {
            let j = parse_str(text).unwrap();
            assert_eq!(j.as_number().unwrap().text(), kept, "{text}");
        }
        for bad in ["1e", "1.2.3", "--1", "1e+", "-"] {
            assert!(parse_str(bad).is_err(), "{bad}");
        }
        // Words in any case, and not as the start of a longer word.
        let j = parse_str("[TRUE, False, Null, null]").unwrap();
        assert_eq!(j.to_text(), "[true,false,null,null]");
        assert!(parse_str("nullx").is_err());
        assert!(parse_str("[truex]").is_err());
        // An error inside a nested value is the one reported.
        let e = parse_str("{\"a\": [1, {\"b\": tru}]}").unwrap_err();
        assert!(e.message.contains("tru"), "{}", e.message);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "[".repeat(100_000);
        assert!(parse_str(&text).unwrap_err().message.contains("deeply"));
    }

    #[test]
    fn writer_escapes_and_spells_nonfinite_as_strings() {
        let j = Json::Array(vec![
            Json::String("a\"b\\c\nd\u{1}".into()),
            Json::Number(Number::from_f64(f64::NAN)),
            Json::Number(Number::from_f64(f64::NEG_INFINITY)),
            Json::Number(Number::from_f64(0.1)),
            Json::Number(Number::from_f64(1.0)),
            Json::Number(Number::from_f32(0.1)),
        ]);
        assert_eq!(
            j.to_text(),
            r#"["a\"b\\c\nd\u0001","NaN","-Infinity",0.1,1.0,0.1]"#
        );
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let j = parse_str(r#"{"a": 1, "a": 2}"#).unwrap();
        assert_eq!(j.get("a").unwrap().as_number().unwrap().as_i64(), Some(2));
        assert_eq!(j.as_object().unwrap().len(), 1);
        // Past the indexed size too, in place and in time (10^5 members: a scan per
        // member would take minutes).
        let mut text: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\": {i}")).collect();
        text.push(r#""k40": -1"#.into());
        text.push(r#""k7": -2"#.into());
        let j = parse_str(&format!("{{{}}}", text.join(","))).unwrap();
        let members = j.as_object().unwrap();
        assert_eq!(members.len(), 100_000);
        assert_eq!(members[40].0, "k40");
        assert_eq!(
            j.get("k40").unwrap().as_number().unwrap().as_i64(),
            Some(-1)
        );
        assert_eq!(j.get("k7").unwrap().as_number().unwrap().as_i64(), Some(-2));
        assert_eq!(
            j.get("k99999").unwrap().as_number().unwrap().as_i64(),
            Some(99999)
        );
    }
}
