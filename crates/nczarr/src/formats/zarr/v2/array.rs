//! The `.zarray` document.

use super::{Dtype, MetadataError};
use crate::json::{Json, Number};

type Result<T> = std::result::Result<T, MetadataError>;

/// A parsed `.zarray`.
///
/// ```json
/// {"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2,3],
///  "fill_value": -2147483647, "order": "C", "compressor": null, "filters": null}
/// ```
/// Unknown members (netcdf-c 4.9.x's `_NCZARR_ARRAY`/`_nczarr_array`) are kept in `extra`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayMeta {
    /// Array shape.
    pub shape: Vec<u64>,
    /// Chunk shape (same rank as `shape`).
    pub chunks: Vec<u64>,
    /// Element dtype.
    pub dtype: Dtype,
    /// The raw `fill_value` (its meaning depends on the dtype and the writer).
    pub fill_value: Json,
    /// True for `"order": "F"`.
    pub fortran_order: bool,
    /// The compressor, if not null.
    pub compressor: Option<Json>,
    /// The filters, in encode order.
    pub filters: Vec<Json>,
    /// `.` or `/`.
    pub separator: char,
    /// Members this reader does not interpret.
    pub extra: Vec<(String, Json)>,
}

/// Chunk counts beyond this are refused: they could only come from a damaged or
/// hostile `.zarray`, and would make even listing the chunks impossible.
const MAX_CHUNKS: u128 = 1 << 48;

/// Decoded chunks larger than this are refused (HDF5's own limit for one chunk): a
/// reader holds a whole chunk in memory while it decodes it, so a `.zarray` claiming
/// chunks of gigabytes over a few values must fail before anything is allocated.
const MAX_CHUNK_BYTES: u128 = 1 << 32;

/// Refuse chunks of `chunks` elements of `item_size` bytes past [`MAX_CHUNK_BYTES`].
pub(crate) fn check_chunk_bytes(
    chunks: &[u64],
    item_size: usize,
) -> std::result::Result<(), String> {
    let bytes = chunks.iter().try_fold(item_size.max(1) as u128, |acc, &c| {
        acc.checked_mul(u128::from(c))
    });
    match bytes {
        Some(b) if b <= MAX_CHUNK_BYTES => Ok(()),
        _ => Err(format!(
            "chunks {chunks:?} of {item_size}-byte values are larger than 4 GiB each (HDF5's limit; a chunk is held whole in memory)",
        )),
    }
}

/// The member `name` of a metadata document: a list of non-negative integers
/// (`shape`, `chunks`, v3's `chunk_shape`).
pub(crate) fn u64_list(json: Option<&Json>, name: &str) -> std::result::Result<Vec<u64>, String> {
    let arr = json
        .and_then(Json::as_array)
        .ok_or_else(|| format!("missing or non-array \"{name}\""))?;
    arr.iter()
        .map(|v| {
            v.as_number().and_then(Number::as_u64).ok_or_else(|| {
                format!(
                    "\"{name}\" holds {}, not a non-negative integer",
                    v.to_text()
                )
            })
        })
        .collect()
}

/// The `zarr_format` of a metadata document that must be a JSON object (`.zarray`,
/// `zarr.json`): the messages both versions' parsers give.
pub(crate) fn zarr_format(json: &Json) -> std::result::Result<i64, String> {
    if json.as_object().is_none() {
        return Err(format!("expected a JSON object, found {}", json.kind()));
    }
    json.get("zarr_format")
        .and_then(Json::as_i64_lenient)
        .ok_or_else(|| "missing or non-integer \"zarr_format\"".into())
}

/// Check chunk sizes against a shape of the same rank: a chunk size of 0 is 1 along an
/// empty dimension (netcdf-c writes 0 there; nothing is stored) and an error elsewhere,
/// and chunk counts past [`MAX_CHUNKS`] are refused.
pub(crate) fn check_chunks(shape: &[u64], chunks: &mut [u64]) -> std::result::Result<(), String> {
    for (i, c) in chunks.iter_mut().enumerate() {
        if *c == 0 {
            if shape[i] == 0 {
                *c = 1;
            } else {
                return Err(format!("chunk size 0 in dimension {i}"));
            }
        }
    }
    let nchunks: u128 = shape
        .iter()
        .zip(chunks.iter())
        .map(|(s, c)| u128::from(s.div_ceil(*c)))
        .try_fold(1u128, |acc, n| acc.checked_mul(n))
        .unwrap_or(u128::MAX);
    if nchunks > MAX_CHUNKS {
        return Err(format!(
            "shape {shape:?} with chunks {chunks:?} means more than 2^48 chunks"
        ));
    }
    Ok(())
}

impl ArrayMeta {
    /// Parse and validate a `.zarray` document read from `key`.
    ///
    /// # Errors
    /// [`MetadataError`] naming `key` for missing members, wrong `zarr_format`,
    /// rank mismatches, zero chunk sizes and unknown dtypes.
    pub fn from_json(json: &Json, key: &str) -> Result<ArrayMeta> {
        let bad = |message: String| MetadataError {
            key: key.to_string(),
            message,
        };
        match zarr_format(json).map_err(bad)? {
            2 => {}
            v => {
                return Err(bad(format!(
                    "zarr_format {v} is not supported (only Zarr version 2)"
                )))
            }
        }
        let shape = u64_list(json.get("shape"), "shape").map_err(bad)?;
        let mut chunks = u64_list(json.get("chunks"), "chunks").map_err(bad)?;
        if shape.len() != chunks.len() {
            return Err(bad(format!(
                "shape {:?} has {} dimensions but chunks {:?} has {}",
                shape,
                shape.len(),
                chunks,
                chunks.len()
            )));
        }
        check_chunks(&shape, &mut chunks).map_err(bad)?;
        let dtype_text =
            json.get("dtype")
                .and_then(Json::as_str)
                .ok_or_else(|| match json.get("dtype") {
                    Some(Json::Array(_)) => bad("structured dtypes have no netCDF type".into()),
                    _ => bad("missing or non-string \"dtype\"".into()),
                })?;
        let dtype = Dtype::parse(dtype_text).map_err(|e| bad(e.to_string()))?;
        check_chunk_bytes(&chunks, dtype.item_size()).map_err(bad)?;
        let fill_value = json.get("fill_value").cloned().unwrap_or(Json::Null);
        let fortran_order = match json.get("order") {
            None | Some(Json::Null) => false,
            Some(Json::String(s)) if s == "C" => false,
            Some(Json::String(s)) if s == "F" => true,
            Some(other) => {
                return Err(bad(format!(
                    "\"order\" must be \"C\" or \"F\", found {}",
                    other.to_text()
                )))
            }
        };
        let compressor = match json.get("compressor") {
            None | Some(Json::Null) => None,
            Some(c @ Json::Object(_)) => Some(c.clone()),
            Some(other) => {
                return Err(bad(format!(
                    "\"compressor\" must be an object or null, found {}",
                    other.kind()
                )))
            }
        };
        let filters = match json.get("filters") {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::Array(a)) => a.clone(),
            Some(other) => {
                return Err(bad(format!(
                    "\"filters\" must be an array or null, found {}",
                    other.kind()
                )))
            }
        };
        let separator = match json.get("dimension_separator") {
            None | Some(Json::Null) => '.',
            Some(Json::String(s)) if s == "." => '.',
            Some(Json::String(s)) if s == "/" => '/',
            Some(other) => {
                return Err(bad(format!(
                    "\"dimension_separator\" must be \".\" or \"/\", found {}",
                    other.to_text()
                )))
            }
        };
        const KNOWN: &[&str] = &[
            "zarr_format",
            "shape",
            "chunks",
            "dtype",
            "fill_value",
            "order",
            "compressor",
            "filters",
            "dimension_separator",
        ];
        let extra = json
            .as_object()
            .unwrap_or(&[])
            .iter()
            .filter(|(k, _)| !KNOWN.contains(&k.as_str()))
            .cloned()
            .collect();
        Ok(ArrayMeta {
            shape,
            chunks,
            dtype,
            fill_value,
            fortran_order,
            compressor,
            filters,
            separator,
            extra,
        })
    }

    /// The `.zarray` document, members in the order zarr-python writes them, then the
    /// members this type does not interpret (`extra`) in their order.
    pub fn to_json(&self) -> Json {
        let dims = |v: &[u64]| {
            Json::Array(
                v.iter()
                    .map(|&x| Json::Number(Number::from_u64(x)))
                    .collect(),
            )
        };
        let mut m = vec![
            ("zarr_format".to_string(), Json::Number(Number::from_i64(2))),
            ("shape".into(), dims(&self.shape)),
            ("dtype".into(), Json::String(self.dtype.to_string())),
            ("chunks".into(), dims(&self.chunks)),
            ("fill_value".into(), self.fill_value.clone()),
            (
                "order".into(),
                Json::String(if self.fortran_order { "F" } else { "C" }.into()),
            ),
            (
                "compressor".into(),
                self.compressor.clone().unwrap_or(Json::Null),
            ),
            (
                "filters".into(),
                if self.filters.is_empty() {
                    Json::Null
                } else {
                    Json::Array(self.filters.clone())
                },
            ),
        ];
        if self.separator == '/' {
            m.push(("dimension_separator".into(), Json::String("/".into())));
        }
        m.extend(self.extra.iter().cloned());
        Json::Object(m)
    }

    /// The member `name` among the ones this type does not interpret.
    pub fn extra(&self, name: &str) -> Option<&Json> {
        self.extra.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn parse(text: &str) -> Result<ArrayMeta> {
        ArrayMeta::from_json(&parse_str(text).unwrap(), "v/.zarray")
    }

    #[test]
    fn netcdf_zarray() {
        let m = parse(r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2,3], "fill_value": -2147483647, "order": "C", "compressor": null, "filters": null, "_NCZARR_ARRAY": {"dimrefs": ["/x"]}}"#).unwrap();
        assert_eq!(m.shape, [2, 3]);
        assert_eq!(m.separator, '.');
        assert!(m.extra("_NCZARR_ARRAY").is_some());
    }

    #[test]
    fn written_as_parsed() {
        let text = r#"{"zarr_format": 2, "shape": [2, 3], "dtype": ">i2", "chunks": [1, 3], "fill_value": -1, "order": "F", "compressor": {"id": "zlib", "level": 1}, "filters": [{"id": "shuffle", "elementsize": 2}], "dimension_separator": "/", "_NCZARR_ARRAY": {"dimrefs": ["/x", "/y"]}}"#;
        let m = parse(text).unwrap();
        assert_eq!(m.to_json(), parse_str(text).unwrap());
        assert_eq!(ArrayMeta::from_json(&m.to_json(), "k").unwrap(), m);
    }

    #[test]
    fn errors_name_the_key() {
        let e = parse(
            r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2], "fill_value": 0}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "key 'v/.zarray': shape [2, 3] has 2 dimensions but chunks [2] has 1"
        );
        let e = parse(r#"{"zarr_format": 3}"#).unwrap_err();
        assert!(e.to_string().contains("zarr_format 3 is not supported"));
        let e = parse(r#"{"zarr_format": 2, "shape": [2], "dtype": "<c8", "chunks": [2]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("unsupported Zarr dtype '<c8'"));
        let e = parse(r#"{"zarr_format": 2, "shape": [2], "dtype": "<i4", "chunks": [0]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("chunk size 0"));
        let e = parse(r#"{"zarr_format": 2, "shape": [-2], "dtype": "<i4", "chunks": [1]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("not a non-negative integer"));
        let e = parse(r#"{"zarr_format": 2, "shape": [4294967296, 4294967296], "dtype": "<i4", "chunks": [1, 1]}"#).unwrap_err();
        assert!(e.to_string().contains("2^48"));
    }
}
