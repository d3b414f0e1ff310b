//! A kerchunk reference file's JSON read straight into its entries (serde_json,
//! visiting each reference as it is read): a year of daily files is hundreds of
//! thousands of references, and a tree of every value first was most of the time of
//! opening them. Templates are kept as written and expanded by the caller (they may
//! come after the references in the file).

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One reference as written.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Written {
    /// Text (a metadata document, or `base64:` bytes).
    Text(String),
    /// `[url]` or `[url, offset, length]`, the url before templates.
    Range {
        url: String,
        span: Option<(u64, u64)>,
    },
    /// Anything else (named in the error, with its key).
    Other,
}

/// What a reference file holds.
#[derive(Debug, Default)]
pub(super) struct WrittenRefs {
    pub templates: HashMap<String, String>,
    pub refs: Vec<(String, Written)>,
}

/// Parse a reference file (version 1, `{"version": 1, "templates": ..., "refs": ...}`,
/// or version 0, the references alone).
///
/// # Errors
/// serde_json's message (with line and column) when it is not such JSON.
pub(super) fn parse(bytes: &[u8]) -> Result<WrittenRefs, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let top = de.deserialize_map(Top).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(WrittenRefs {
        templates: top.templates,
        refs: top.refs.unwrap_or(top.bare),
    })
}

#[derive(Default)]
struct TopValue {
    templates: HashMap<String, String>,
    refs: Option<Vec<(String, Written)>>,
    /// Version 0: the references are the top-level members.
    bare: Vec<(String, Written)>,
}

struct Top;

impl<'de> Visitor<'de> for Top {
    type Value = TopValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object of references")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopValue, A::Error> {
        let mut out = TopValue::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" | "gen" => {
                    map.next_value::<IgnoredAny>()?;
                }
                "templates" => {
                    out.templates = map.next_value_seed(Templates)?;
                }
                "refs" => out.refs = Some(map.next_value_seed(Entries)?),
                _ => {
                    let entry = map.next_value_seed(Entry)?;
                    out.bare.push((key, entry));
                }
            }
        }
        Ok(out)
    }
}

/// `templates`: names and text (members that are not text are left out).
struct Templates;

impl<'de> DeserializeSeed<'de> for Templates {
    type Value = HashMap<String, String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Templates {
    type Value = HashMap<String, String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of templates")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = HashMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if let Written::Text(text) = map.next_value_seed(Entry)? {
                out.insert(key, text);
            }
        }
        Ok(out)
    }
}

/// `refs`: each member an entry, in the file's order.
struct Entries;

impl<'de> DeserializeSeed<'de> for Entries {
    type Value = Vec<(String, Written)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Entries {
    type Value = Vec<(String, Written)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of references")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(key) = map.next_key::<String>()? {
            let entry = map.next_value_seed(Entry)?;
            out.push((key, entry));
        }
        Ok(out)
    }
}

/// One reference: text, or `[url(, offset, length)]`.
struct Entry;

impl<'de> DeserializeSeed<'de> for Entry {
    type Value = Written;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Written, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Entry {
    type Value = Written;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("text or [url, offset, length]")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Written, E> {
        Ok(Written::Text(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Written, E> {
        Ok(Written::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Written, A::Error> {
        let url = match seq.next_element_seed(PartVisitor)? {
            Some(Part::Text(u)) => u,
            _ => {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                return Ok(Written::Other);
            }
        };
        let mut numbers = Vec::with_capacity(2);
        let mut other = false;
        while let Some(part) = seq.next_element_seed(PartVisitor)? {
            match part {
                Part::Number(n) => numbers.push(n),
                _ => other = true,
            }
        }
        Ok(match (other, numbers.as_slice()) {
            (false, []) => Written::Range { url, span: None },
            (false, [offset, len]) => Written::Range {
                url,
                span: Some((*offset, *len)),
            },
            _ => Written::Other,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Written, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Written::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Written, E> {
        Ok(Written::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Written, E> {
        Ok(Written::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Written, E> {
        Ok(Written::Other)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Written, E> {
        Ok(Written::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Written, E> {
        Ok(Written::Other)
    }
}

/// A part of `[url, offset, length]`: text, or a whole number (written as an integer,
/// or as a float with no fraction, as some writers do).
enum Part {
    Text(String),
    Number(u64),
    Other,
}

struct PartVisitor;

impl<'de> DeserializeSeed<'de> for PartVisitor {
    type Value = Part;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Part, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PartVisitor {
    type Value = Part;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a url or a byte count")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Part, E> {
        Ok(Part::Text(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Part, E> {
        Ok(Part::Text(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Part, E> {
        Ok(Part::Number(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Part, E> {
        Ok(u64::try_from(v).map_or(Part::Other, Part::Number))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Part, E> {
        Ok(if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(63) {
            Part::Number(v as u64)
        } else {
            Part::Other
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Part, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Part::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Part::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Part, E> {
        Ok(Part::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Part, E> {
        Ok(Part::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_0_and_1_templates_after_refs_and_lenient_numbers() {
        let v1 = br#"{"version": 1, "refs": {".zgroup": "{\"zarr_format\": 2}",
            "a/0": ["{{u}}", 10, 20], "a/1": ["{{u}}", 30.0, "40"], "b/0": ["/x.nc"],
            "c/0": 5}, "templates": {"u": "/data/f.nc"}}"#;
        let r = parse(v1).unwrap();
        assert_eq!(r.templates.get("u").map(String::as_str), Some("/data/f.nc"));
        assert_eq!(r.refs.len(), 5);
        assert_eq!(
            r.refs[1].1,
            Written::Range {
                url: "{{u}}".into(),
                span: Some((10, 20))
            }
        );
        // A length written as text is not a number: the reference is refused by name.
        assert_eq!(r.refs[2].1, Written::Other);
        assert_eq!(
            r.refs[3].1,
            Written::Range {
                url: "/x.nc".into(),
                span: None
            }
        );
        assert_eq!(r.refs[4].1, Written::Other);
        let v0 = br#"{".zgroup": "{}", "a/0": ["f.nc", 0, 4]}"#;
        let r = parse(v0).unwrap();
        assert_eq!(r.refs.len(), 2);
        assert!(parse(b"{\"refs\": {").is_err());
        assert!(parse(b"[1, 2]").is_err());
    }
}
