//! The `zarr.json` document of a group or an array.

use super::codecs::{chain_to_json, CodecChain};
use super::dtype::{dtype_from_json, dtype_to_json, is_text, with_endian};
use crate::formats::zarr::array::{ChunkKeys, StoredArray};
use crate::formats::zarr::v2::{
    check_chunk_bytes, check_chunks, parse_fill_value, u64_list, zarr_format, Dtype, Endian,
    FillError, MetadataError,
};
use crate::json::{Json, Number};
use crate::model::{NcType, Values};

type Result<T> = std::result::Result<T, MetadataError>;

/// A parsed `zarr.json`.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeMeta {
    /// A group and its attributes (with `consolidated_metadata` when present).
    Group {
        /// `attributes`, an object.
        attributes: Json,
        /// `consolidated_metadata.metadata`: documents by path below the group.
        consolidated: Option<Vec<(String, Json)>>,
    },
    /// An array.
    Array(Box<ArrayMeta3>),
}

/// A parsed array `zarr.json`, in the storage terms of the chunk reader.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayMeta3 {
    /// The array's storage: dtype (byte order from `bytes`), shape, chunks (inner ones
    /// when sharded), codecs, element order, chunk keys, shards. `fill` is unset:
    /// it needs the netCDF type ([`ArrayMeta3::fill`]).
    pub stored: StoredArray,
    /// The raw `fill_value`.
    pub fill_value: Json,
    /// True when the data type is `string` (text), not bytes.
    pub text: bool,
    /// `dimension_names`, if given (`None` entries for null names).
    pub dimension_names: Option<Vec<Option<String>>>,
    /// `attributes`, an object.
    pub attributes: Json,
}

impl NodeMeta {
    /// Parse the `zarr.json` read from `key`.
    ///
    /// # Errors
    /// [`MetadataError`] naming `key`: wrong `zarr_format` or `node_type`, missing or
    /// malformed members, unsupported grids, key encodings, data types and layouts.
    pub fn from_json(json: &Json, key: &str) -> Result<NodeMeta> {
        let bad = |message: String| MetadataError {
            key: key.to_string(),
            message,
        };
        match zarr_format(json).map_err(bad)? {
            3 => {}
            v => return Err(bad(format!("zarr_format {v} in a zarr.json (expected 3)"))),
        }
        let attributes = match json.get("attributes") {
            None | Some(Json::Null) => Json::Object(Vec::new()),
            Some(a @ Json::Object(_)) => a.clone(),
            Some(other) => {
                return Err(bad(format!(
                    "\"attributes\" is {}, not an object",
                    other.kind()
                )))
            }
        };
        match json.get("node_type").and_then(Json::as_str) {
            Some("group") => {
                let consolidated = json
                    .get("consolidated_metadata")
                    .filter(|c| c.get("kind").and_then(Json::as_str) == Some("inline"))
                    .and_then(|c| c.get("metadata"))
                    .and_then(Json::as_object)
                    .map(<[(String, Json)]>::to_vec);
                Ok(NodeMeta::Group {
                    attributes,
                    consolidated,
                })
            }
            Some("array") => Ok(NodeMeta::Array(Box::new(ArrayMeta3::parse(
                json, attributes, &bad,
            )?))),
            Some(other) => Err(bad(format!(
                "node_type \"{other}\" is neither group nor array"
            ))),
            None => Err(bad("missing \"node_type\"".into())),
        }
    }
}

fn must_understand(json: &Json, what: &str, bad: &dyn Fn(String) -> MetadataError) -> Result<()> {
    // Extension members the spec lets a reader ignore say so; any other member we
    // do not know changes how the array must be read.
    const KNOWN: &[&str] = &[
        "zarr_format",
        "node_type",
        "shape",
        "data_type",
        "chunk_grid",
        "chunk_key_encoding",
        "fill_value",
        "codecs",
        "attributes",
        "dimension_names",
        "storage_transformers",
    ];
    for (k, v) in json.as_object().unwrap_or(&[]) {
        if !KNOWN.contains(&k.as_str())
            && !matches!(v.get("must_understand"), Some(Json::Bool(false)))
        {
            return Err(bad(format!(
                "{what}: unknown extension \"{k}\" (must be understood)"
            )));
        }
    }
    Ok(())
}

impl ArrayMeta3 {
    fn parse(
        json: &Json,
        attributes: Json,
        bad: &dyn Fn(String) -> MetadataError,
    ) -> Result<ArrayMeta3> {
        must_understand(json, "array", bad)?;
        let shape = u64_list(json.get("shape"), "shape").map_err(bad)?;
        let rank = shape.len();
        let data_type = json
            .get("data_type")
            .ok_or_else(|| bad("missing \"data_type\"".into()))?;
        let dtype = dtype_from_json(data_type).map_err(bad)?;
        let grid = json
            .get("chunk_grid")
            .ok_or_else(|| bad("missing \"chunk_grid\"".into()))?;
        match grid.get("name").and_then(Json::as_str) {
            Some("regular") => {}
            Some(other) => {
                return Err(bad(format!(
                    "chunk grid \"{other}\" is not supported (only regular)"
                )))
            }
            None => return Err(bad("chunk_grid has no \"name\"".into())),
        }
        let mut chunks = u64_list(
            grid.get("configuration").and_then(|c| c.get("chunk_shape")),
            "chunk_shape",
        )
        .map_err(bad)?;
        if chunks.len() != rank {
            return Err(bad(format!(
                "shape {shape:?} has {rank} dimensions but chunk_shape {chunks:?} has {}",
                chunks.len()
            )));
        }
        check_chunks(&shape, &mut chunks).map_err(bad)?;
        let keys = chunk_keys(json.get("chunk_key_encoding"), bad)?;
        if json
            .get("storage_transformers")
            .and_then(Json::as_array)
            .is_some_and(|t| !t.is_empty())
        {
            return Err(bad("storage transformers are not supported".into()));
        }
        let codecs = json
            .get("codecs")
            .ok_or_else(|| bad("missing \"codecs\"".into()))?;
        let chain = CodecChain::from_json(codecs, rank).map_err(bad)?;
        if matches!(dtype, Dtype::Object) != chain.is_object() {
            return Err(bad(format!(
                "data type {} needs the vlen-utf8 or vlen-bytes codec (and only strings may have it)",
                data_type.to_text()
            )));
        }
        let (sharding, inner, chain) = match chain.sharding.clone() {
            Some((mut sh, inner, inner_chain)) => {
                if chunks.iter().zip(&inner).any(|(s, i)| s % i != 0) {
                    return Err(bad(format!(
                        "shard shape {chunks:?} is not a whole number of inner chunks {inner:?}"
                    )));
                }
                sh.shape = chunks.clone();
                (Some(sh), inner, *inner_chain)
            }
            None => (None, chunks.clone(), chain),
        };
        check_chunks(&shape, &mut inner.clone()).map_err(bad)?;
        check_chunk_bytes(&inner, dtype.item_size()).map_err(bad)?;
        let dtype = with_endian(dtype, chain.endian.unwrap_or(Endian::Little));
        let dimension_names = match json.get("dimension_names") {
            None | Some(Json::Null) => None,
            Some(Json::Array(a)) if a.len() == rank => Some(
                a.iter()
                    .map(|n| n.as_str().filter(|s| !s.is_empty()).map(str::to_string))
                    .collect(),
            ),
            Some(other) => {
                return Err(bad(format!(
                    "dimension_names {} does not name the array's {rank} dimensions",
                    other.to_text()
                )))
            }
        };
        Ok(ArrayMeta3 {
            stored: StoredArray {
                dtype,
                shape,
                chunks: inner,
                fill: None,
                filters: chain.filters,
                compressor: None,
                transpose: chain.transpose,
                keys,
                sharding,
                fill_implied: false,
            },
            fill_value: json.get("fill_value").cloned().unwrap_or(Json::Null),
            text: is_text(data_type),
            dimension_names,
            attributes,
        })
    }

    /// The fill value as one value of `nc_type`.
    ///
    /// # Errors
    /// [`FillError`] when it does not fit the type.
    pub fn fill(&self, nc_type: NcType) -> std::result::Result<Option<Values>, FillError> {
        let dtype = &self.stored.dtype;
        // Floats may be given by their bits: "0x7fc00000".
        if let (Json::String(s), Dtype::Float { bytes, .. }) = (&self.fill_value, dtype) {
            if let Some(hex) = s.strip_prefix("0x") {
                let bits = u64::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.len() == bytes * 2);
                let bits = bits.ok_or_else(|| FillError {
                    value: self.fill_value.to_text(),
                    dtype: dtype.to_string(),
                    reason: "not the bits of this float type".into(),
                })?;
                let v = match bytes {
                    2 => f64::from(crate::formats::zarr::array::from_stored::half_to_f32(
                        bits as u16,
                    )),
                    4 => f64::from(f32::from_bits(bits as u32)),
                    _ => f64::from_bits(bits),
                };
                return Ok(Some(match nc_type {
                    NcType::Float => Values::Float(vec![v as f32]),
                    _ => Values::Double(vec![v]),
                }));
            }
        }
        // zarr-python writes byte-string fills in base64, text as it is.
        let base64 =
            matches!(dtype, Dtype::Bytes { .. }) || (matches!(dtype, Dtype::Object) && !self.text);
        parse_fill_value(&self.fill_value, dtype, nc_type, base64)
    }

    /// The `zarr.json` of an array stored as `stored` (its fill spelled from
    /// `stored.fill`), with `dimension_names` and `attributes`.
    pub fn to_json(
        stored: &StoredArray,
        dimension_names: Option<&[String]>,
        attributes: Json,
    ) -> Json {
        let dims = |v: &[u64]| {
            Json::Array(
                v.iter()
                    .map(|&n| Json::Number(Number::from_u64(n)))
                    .collect(),
            )
        };
        let grid_chunks = stored
            .sharding
            .as_ref()
            .map_or(&stored.chunks, |s| &s.shape);
        let (prefix, sep) = match stored.keys {
            ChunkKeys::Default(s) => ("default", s),
            ChunkKeys::V2(s) => ("v2", s),
        };
        let codecs = chain_to_json(
            &stored.filters,
            stored.dtype.endian(),
            stored.dtype.item_size(),
            stored
                .sharding
                .as_ref()
                .map(|s| (s, stored.chunks.as_slice())),
        );
        let mut members = vec![
            ("zarr_format".into(), Json::Number(Number::from_i64(3))),
            ("node_type".into(), Json::String("array".into())),
            ("shape".into(), dims(&stored.shape)),
            ("data_type".into(), dtype_to_json(&stored.dtype)),
            (
                "chunk_grid".into(),
                Json::Object(vec![
                    ("name".into(), Json::String("regular".into())),
                    (
                        "configuration".into(),
                        Json::Object(vec![("chunk_shape".into(), dims(grid_chunks))]),
                    ),
                ]),
            ),
            (
                "chunk_key_encoding".into(),
                Json::Object(vec![
                    ("name".into(), Json::String(prefix.into())),
                    (
                        "configuration".into(),
                        Json::Object(vec![("separator".into(), Json::String(sep.to_string()))]),
                    ),
                ]),
            ),
            ("fill_value".into(), fill_json3(stored)),
            ("codecs".into(), codecs),
            ("attributes".into(), attributes),
        ];
        if let Some(names) = dimension_names {
            members.push((
                "dimension_names".into(),
                Json::Array(names.iter().map(|n| Json::String(n.clone())).collect()),
            ));
        }
        Json::Object(members)
    }
}

/// The v3 `fill_value` of an array: v3 has no "no fill", so netCDF's NoFill is written
/// as the type's default (zero, or `""`), which zarr-python also uses.
fn fill_json3(stored: &StoredArray) -> Json {
    match (&stored.fill, &stored.dtype) {
        (None, Dtype::Bool) => Json::Bool(false),
        (None, Dtype::Bytes { .. } | Dtype::Unicode { .. } | Dtype::Object) => {
            Json::String(String::new())
        }
        (None, _) => Json::Number(Number::from_i64(0)),
        (Some(v), Dtype::Bool) => {
            Json::Bool(matches!(v, Values::UByte(b) if b.first().is_some_and(|&x| x != 0)))
        }
        (Some(Values::String(s)), _) => Json::String(
            String::from_utf8_lossy(s.first().flatten().unwrap_or_default()).into_owned(),
        ),
        (Some(v), _) => crate::formats::zarr::v2::fill_json(Some(v), true),
    }
}

fn chunk_keys(json: Option<&Json>, bad: &dyn Fn(String) -> MetadataError) -> Result<ChunkKeys> {
    let Some(json) = json else {
        return Err(bad("missing \"chunk_key_encoding\"".into()));
    };
    let name = json
        .get("name")
        .and_then(Json::as_str)
        .ok_or_else(|| bad("chunk_key_encoding has no \"name\"".into()))?;
    let sep = json
        .get("configuration")
        .and_then(|c| c.get("separator"))
        .and_then(Json::as_str);
    let sep = match (name, sep) {
        (_, Some(".")) => '.',
        (_, Some("/")) => '/',
        ("default", None) => '/',
        ("v2", None) => '.',
        (_, Some(other)) => {
            return Err(bad(format!(
                "chunk key separator \"{other}\" is not \".\" or \"/\""
            )))
        }
        _ => '/',
    };
    match name {
        "default" => Ok(ChunkKeys::Default(sep)),
        "v2" => Ok(ChunkKeys::V2(sep)),
        other => Err(bad(format!(
            "chunk key encoding \"{other}\" is not supported"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn array(text: &str) -> std::result::Result<ArrayMeta3, String> {
        match NodeMeta::from_json(&parse_str(text).map_err(|e| e.to_string())?, "v/zarr.json") {
            Ok(NodeMeta::Array(a)) => Ok(*a),
            Ok(_) => Err("a group".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    const F4: &str = r#"{"zarr_format": 3, "node_type": "array", "shape": [4, 5], "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": "NaN", "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}],
        "attributes": {"units": "K"}, "dimension_names": ["y", null]}"#;

    #[test]
    fn an_array_document() {
        let a = array(F4).unwrap();
        assert_eq!(a.stored.dtype.to_string(), ">f4");
        assert_eq!(a.stored.keys, ChunkKeys::Default('/'));
        assert_eq!(a.dimension_names, Some(vec![Some("y".into()), None]));
        let Some(Values::Float(f)) = a.fill(NcType::Float).unwrap() else {
            panic!()
        };
        assert!(f[0].is_nan());
        let json = ArrayMeta3::to_json(
            &a.stored,
            Some(&["y".into(), "x".into()]),
            a.attributes.clone(),
        );
        let back = array(&json.to_text()).unwrap();
        assert_eq!(back.stored, a.stored);
    }

    #[test]
    fn fills_by_bits_and_refusals() {
        let hex = F4.replace(r#""NaN""#, r#""0x3f800000""#);
        assert_eq!(
            array(&hex).unwrap().fill(NcType::Float).unwrap(),
            Some(Values::Float(vec![1.0]))
        );
        let short = F4.replace(r#""NaN""#, r#""0x3f80""#);
        assert!(array(&short).unwrap().fill(NcType::Float).is_err());
        let rect = F4.replace(r#""regular""#, r#""rectilinear""#);
        assert!(array(&rect)
            .unwrap_err()
            .contains("chunk grid \"rectilinear\""));
        let ext = F4.replace(r#""attributes""#, r#""my_ext": {"x": 1}, "attributes""#);
        assert!(array(&ext).unwrap_err().contains("must be understood"));
        let v2 = F4.replace(r#""zarr_format": 3"#, r#""zarr_format": 2"#);
        assert!(array(&v2).unwrap_err().contains("zarr_format 2"));
    }
}
