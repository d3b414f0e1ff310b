//! `categorize`: numcodecs' codec for text with few distinct values, stored as codes
//! (`astype`, an unsigned integer dtype): 0 for a value not among `labels`, `i + 1`
//! for `labels[i]`. Decoded, the array is `dtype`: `|O` (zarr-python's object
//! arrays, where it is the object codec) or `<U n` (fixed-width UTF-32), whose
//! elements a code 0 leaves empty.

use super::dtype::{Dtype, Endian};
use super::numeric::{self, Num};
use super::{obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// A `categorize` configuration.
#[derive(Debug, Clone)]
pub(crate) struct Categorize {
    labels: Vec<String>,
    /// The decoded dtype's spelling (`|O`, `<U5`).
    dtype: String,
    /// Characters and byte order of a `<U` dtype; `None` for `|O`.
    unicode: Option<(usize, Endian)>,
    /// The codes' dtype.
    astype: Dtype,
}

impl Categorize {
    pub(crate) fn from_config(config: &Json) -> Result<Categorize, ConfigFault> {
        let labels = config
            .get("labels")
            .and_then(Json::as_array)
            .ok_or(ConfigFault::Missing { name: "labels" })?
            .iter()
            .map(|l| l.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| ConfigFault::BadValue {
                name: "labels",
                expected: "a list of strings".into(),
                found: config.get("labels").map(Json::to_text).unwrap_or_default(),
            })?;
        let dtype = config
            .get("dtype")
            .and_then(Json::as_str)
            .ok_or(ConfigFault::Missing { name: "dtype" })?
            .to_string();
        let unicode = match Dtype::parse(&dtype) {
            Ok(Dtype::Object) => None,
            Ok(Dtype::Unicode { chars, endian }) => Some((chars, endian)),
            _ => {
                return Err(ConfigFault::BadValue {
                    name: "dtype",
                    expected: "|O or a <U dtype".into(),
                    found: dtype,
                })
            }
        };
        let astype = match config.get("astype") {
            None => Dtype::parse("|u1").map_err(|_| ConfigFault::Missing { name: "astype" })?,
            Some(_) => numeric::dtype_param(config, "astype")?,
        };
        if !matches!(astype, Dtype::Int { signed: false, .. }) {
            return Err(ConfigFault::BadValue {
                name: "astype",
                expected: "an unsigned integer dtype".into(),
                found: astype.to_string(),
            });
        }
        Ok(Categorize {
            labels,
            dtype,
            unicode,
            astype,
        })
    }

    /// True when it decodes to the items of an object array.
    pub(crate) fn is_object(&self) -> bool {
        self.unicode.is_none()
    }

    /// The label of each code (an empty one for 0).
    fn labels_of(&self, input: &[u8]) -> Result<Vec<&str>, ChunkFault> {
        numeric::elements(input, &self.astype)?
            .map(|code| match code {
                Num::I(0) => Ok(""),
                Num::I(c) => usize::try_from(c - 1)
                    .ok()
                    .and_then(|i| self.labels.get(i))
                    .map(String::as_str)
                    .ok_or_else(|| ChunkFault::Corrupt {
                        what: "categorize codes",
                        detail: format!("code {c} of {} labels", self.labels.len()),
                    }),
                Num::F(_) => Err(ChunkFault::WrongKind("categorize codes are integers")),
            })
            .collect()
    }

    /// The code of each label.
    fn codes_of<'a>(&self, items: impl Iterator<Item = &'a [u8]>) -> Vec<u8> {
        let mut out = Vec::new();
        for item in items {
            let code = self
                .labels
                .iter()
                .position(|l| l.as_bytes() == item)
                .map_or(0, |i| i + 1);
            numeric::write(&self.astype, Num::I(code as i128), &mut out);
        }
        out
    }

    /// Decoded as the items of an object array.
    pub(crate) fn decode_items(&self, input: &[u8]) -> Result<Vec<Vec<u8>>, ChunkFault> {
        Ok(self
            .labels_of(input)?
            .into_iter()
            .map(|l| l.as_bytes().to_vec())
            .collect())
    }

    /// The codes of an object array's items.
    pub(crate) fn encode_items(&self, items: &[Vec<u8>]) -> Vec<u8> {
        self.codes_of(items.iter().map(Vec::as_slice))
    }
}

/// Text as `chars` UTF-32 code units in byte order `endian`, padded with zeros.
fn utf32(text: &str, chars: usize, endian: Endian, out: &mut Vec<u8>) {
    let start = out.len();
    for c in text.chars().take(chars) {
        let unit = u32::from(c);
        out.extend_from_slice(&match endian {
            Endian::Big => unit.to_be_bytes(),
            _ => unit.to_le_bytes(),
        });
    }
    out.resize(start + chars * 4, 0);
}

impl Codec for Categorize {
    fn id(&self) -> &'static str {
        "categorize"
    }

    fn decode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let Some((chars, endian)) = self.unicode else {
            return Err(ChunkFault::WrongKind("categorize to |O decodes to items"));
        };
        let mut out = Vec::new();
        for label in self.labels_of(&input)? {
            utf32(label, chars, endian, &mut out);
        }
        Ok(out)
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let Some((chars, endian)) = self.unicode else {
            return Err(ChunkFault::WrongKind("categorize to |O encodes items"));
        };
        let texts: Vec<Vec<u8>> = input
            .chunks(chars.max(1) * 4)
            .map(|e| {
                e.chunks_exact(4)
                    .map(|u| match endian {
                        Endian::Big => u32::from_be_bytes([u[0], u[1], u[2], u[3]]),
                        _ => u32::from_le_bytes([u[0], u[1], u[2], u[3]]),
                    })
                    .take_while(|&u| u != 0)
                    .filter_map(char::from_u32)
                    .collect::<String>()
                    .into_bytes()
            })
            .collect();
        Ok(self.codes_of(texts.iter().map(Vec::as_slice)))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("categorize".into())),
            (
                "labels",
                Json::Array(
                    self.labels
                        .iter()
                        .map(|l| Json::String(l.clone()))
                        .collect(),
                ),
            ),
            ("dtype", Json::String(self.dtype.clone())),
            ("astype", Json::String(self.astype.to_string())),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn info() -> ChunkInfo {
        ChunkInfo {
            item_size: 8,
            max_decoded: 1 << 20,
        }
    }

    #[test]
    fn codes_to_labels_and_back() {
        let c = Categorize::from_config(
            &parse_str(
                r#"{"id": "categorize", "labels": ["ü", "bb"], "dtype": "<U2", "astype": "|u1"}"#,
            )
            .unwrap(),
        )
        .unwrap();
        let dec = c.decode(vec![1, 0, 2], &info()).unwrap();
        let mut want = Vec::new();
        for t in ["ü", "", "bb"] {
            utf32(t, 2, Endian::Little, &mut want);
        }
        assert_eq!(dec, want);
        assert_eq!(c.encode(dec, &info()).unwrap(), vec![1, 0, 2]);
        assert!(c.decode(vec![3], &info()).is_err());

        let o = Categorize::from_config(
            &parse_str(r#"{"id": "categorize", "labels": ["a"], "dtype": "|O", "astype": "<u2"}"#)
                .unwrap(),
        )
        .unwrap();
        assert!(o.is_object());
        let items = o.decode_items(&[1, 0, 0, 0]).unwrap();
        assert_eq!(items, vec![b"a".to_vec(), Vec::new()]);
        assert_eq!(o.encode_items(&items), vec![1, 0, 0, 0]);
        assert!(Categorize::from_config(
            &parse_str(r#"{"id": "categorize", "dtype": "|O"}"#).unwrap()
        )
        .is_err());
    }
}
