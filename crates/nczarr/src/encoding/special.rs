//! netCDF's special attributes, both ways: CDL's `_ChunkSizes`, `_DeflateLevel`,
//! `_Shuffle`, `_Fletcher32`, `_Filter`, `_Codecs`, `_Storage`, `_Endianness` and
//! `_NoFill` change an [`Encoding`] ([`Encoding::apply`]); an encoding is shown as the
//! same attributes by `ncdump -s` ([`special_attrs`]).
//!
//! Codec order follows netcdf-c: shuffle before any compressor, a checksum
//! (fletcher32) last, because it guards the bytes as stored.

use super::{codec_id, Chunking, Encoding, EncodingError, Endianness};
use crate::codec::{hdf5, table, Pipeline};
use crate::json::{self, Json};
use crate::model::NcType;

/// The special attributes a CDL variable may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    /// `_Storage`
    Storage,
    /// `_ChunkSizes`
    ChunkSizes,
    /// `_Fletcher32`
    Fletcher32,
    /// `_Shuffle`
    Shuffle,
    /// `_DeflateLevel`
    DeflateLevel,
    /// `_Endianness`
    Endianness,
    /// `_NoFill`
    NoFill,
    /// `_Filter`
    Filter,
    /// `_Codecs`
    Codecs,
    /// `_Quantize*`: netCDF's quantization of float values, applied as they are
    /// written; the attribute is kept too, as netcdf-c keeps it.
    Quantize,
}

impl SpecialKind {
    /// The kind of the variable attribute `name`, if it is a special one.
    pub fn of(name: &str) -> Option<SpecialKind> {
        Some(match name {
            "_Storage" => SpecialKind::Storage,
            "_ChunkSizes" => SpecialKind::ChunkSizes,
            "_Fletcher32" => SpecialKind::Fletcher32,
            "_Shuffle" => SpecialKind::Shuffle,
            "_DeflateLevel" => SpecialKind::DeflateLevel,
            "_Endianness" => SpecialKind::Endianness,
            "_NoFill" => SpecialKind::NoFill,
            "_Filter" => SpecialKind::Filter,
            "_Codecs" => SpecialKind::Codecs,
            n if n.starts_with("_Quantize") => SpecialKind::Quantize,
            _ => return None,
        })
    }
}

/// One special attribute with its value, as a CDL file gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Special {
    /// `_Storage = "chunked" | "contiguous" | "compact"`.
    Storage(String),
    /// `_ChunkSizes = 10, 20` (lengths already checked to be positive).
    ChunkSizes(Vec<u64>),
    /// `_Fletcher32 = "true"`.
    Fletcher32(bool),
    /// `_Shuffle = "true"`.
    Shuffle(bool),
    /// `_DeflateLevel = 5`.
    DeflateLevel(i128),
    /// `_Endianness = "little" | "big" | "native"`.
    Endianness(String),
    /// `_NoFill = "true"`.
    NoFill(bool),
    /// `_Filter = "307,9|32015,3"`: HDF5 filter ids and parameters.
    Filter(String),
    /// `_Codecs = "[{\"id\": ...}]"`: the exact codec chain as JSON text.
    Codecs(String),
    /// `_QuantizeBitRoundNumberOfSignificantBits = 5` and the other two.
    Quantize(super::quantize::Quantize),
}

impl Encoding {
    /// Apply one special attribute of a variable of type `t` with `rank` dimensions.
    ///
    /// # Errors
    /// [`EncodingError::Special`] naming the attribute when its value is not valid.
    pub fn apply(&mut self, special: Special, t: NcType, rank: usize) -> Result<(), EncodingError> {
        let fail = |message: String| Err(EncodingError::Special { message });
        let elem = t.size().max(1);
        match special {
            Special::Storage(text) => match text.as_str() {
                "chunked" => {
                    if matches!(
                        self.chunking,
                        Some(Chunking::Contiguous | Chunking::Compact)
                    ) {
                        self.chunking = None;
                    }
                }
                "contiguous" => self.chunking = Some(Chunking::Contiguous),
                "compact" => self.chunking = Some(Chunking::Compact),
                other => {
                    return fail(format!(
                    "_Storage must be \"chunked\", \"contiguous\" or \"compact\", not \"{other}\""
                ))
                }
            },
            Special::ChunkSizes(sizes) => {
                if sizes.len() != rank {
                    return fail(format!(
                        "_ChunkSizes has {} values, the variable has {rank} dimensions",
                        sizes.len()
                    ));
                }
                self.chunking = Some(Chunking::Chunked(sizes));
            }
            Special::Fletcher32(on) => {
                if on {
                    self.push_codec(codec_of(hdf5::FLETCHER32, &[])?);
                }
            }
            Special::Shuffle(on) => {
                // Shuffle goes before any compressor.
                if on && !self.codecs.iter().any(|c| is_filter(c, hdf5::SHUFFLE)) {
                    self.codecs.insert(0, shuffle(elem));
                }
            }
            Special::DeflateLevel(level) => {
                let Some(level) = u32::try_from(level).ok().filter(|l| *l <= 9) else {
                    return fail(format!("_DeflateLevel must be 0..9, not {level}"));
                };
                self.codecs.retain(|c| !is_filter(c, hdf5::DEFLATE));
                let at = self.checksum_position();
                self.codecs.insert(at, codec_of(hdf5::DEFLATE, &[level])?);
            }
            Special::Endianness(text) => {
                self.endian = match text.to_ascii_lowercase().as_str() {
                    "little" => Some(Endianness::Little),
                    "big" => Some(Endianness::Big),
                    "native" => None,
                    other => {
                        return fail(format!(
                            "_Endianness must be \"little\" or \"big\", not \"{other}\""
                        ))
                    }
                }
            }
            Special::NoFill(on) => self.no_fill = on,
            Special::Filter(text) => {
                let codecs = parse_filter_spec(&text)?;
                for c in codecs {
                    let c = if is_filter(&c, hdf5::SHUFFLE) {
                        shuffle(elem)
                    } else {
                        c
                    };
                    self.push_codec(c);
                }
            }
            Special::Codecs(text) => self.codecs = parse_codecs(&text)?,
            Special::Quantize(q) => {
                let double = match t {
                    NcType::Float => false,
                    NcType::Double => true,
                    other => {
                        return fail(format!(
                            "{} applies to float and double variables, not {other}",
                            q.attribute()
                        ))
                    }
                };
                q.check(double).or_else(fail)?;
                self.quantize = Some(q);
            }
        }
        Ok(())
    }

    /// Where a codec goes so that a checksum stays last.
    fn checksum_position(&self) -> usize {
        self.codecs
            .iter()
            .position(|x| is_filter(x, hdf5::FLETCHER32))
            .unwrap_or(self.codecs.len())
    }

    /// Add a codec (replacing one with the same id), keeping checksums last.
    fn push_codec(&mut self, c: Json) {
        let id = codec_id(&c).to_string();
        self.codecs.retain(|x| codec_id(x) != id);
        let at = if is_filter(&c, hdf5::FLETCHER32) {
            self.codecs.len()
        } else {
            self.checksum_position()
        };
        self.codecs.insert(at, c);
    }
}

/// Whether codec `c` is HDF5 filter `filter` (the special attributes `_Shuffle`,
/// `_DeflateLevel` and `_Fletcher32` are HDF5's filters 2, 1 and 3).
fn is_filter(c: &Json, filter: u32) -> bool {
    table::hdf5_id(c) == Some(filter)
}

fn shuffle(elem: usize) -> Json {
    Json::Object(vec![
        ("id".into(), Json::String("shuffle".into())),
        (
            "elementsize".into(),
            Json::Number(json::Number::from_i64(elem as i64)),
        ),
    ])
}

fn codec_of(id: u32, params: &[u32]) -> Result<Json, EncodingError> {
    hdf5::codec_of(id, params).map_err(|e| EncodingError::Special {
        message: e.to_string(),
    })
}

/// `_Codecs`: a JSON array of codec objects, each with an id, that build a chain.
fn parse_codecs(text: &str) -> Result<Vec<Json>, EncodingError> {
    let fail = |message: String| EncodingError::Special { message };
    let parsed =
        json::parse_str(text).map_err(|e| fail(format!("_Codecs is not valid JSON: {e}")))?;
    let Json::Array(items) = parsed else {
        return Err(fail("_Codecs must be a JSON array of codec objects".into()));
    };
    for c in &items {
        crate::codec::check_params(c).map_err(|e| fail(format!("_Codecs: {e}")))?;
    }
    Pipeline::new(&items, None).map_err(|e| fail(format!("_Codecs: {e}")))?;
    if let Some(c) = items
        .iter()
        .find(|c| c.get("id").and_then(Json::as_str).is_none())
    {
        return Err(fail(format!("_Codecs entry {} has no \"id\"", c.to_text())));
    }
    Ok(items)
}

/// Parse netCDF's `_Filter` syntax: `id,p1,p2|id2,...` (numeric HDF5 filter ids;
/// parameters as unsigned integers, with netcdf-c's `b s l u` suffixes tolerated).
fn parse_filter_spec(text: &str) -> Result<Vec<Json>, EncodingError> {
    let fail = |m: String| EncodingError::Special {
        message: format!("_Filter: {m}"),
    };
    let mut out = Vec::new();
    for part in text.split('|').map(str::trim).filter(|p| !p.is_empty()) {
        let mut fields = part.split(',').map(str::trim);
        let id_text = fields.next().unwrap_or("");
        let id: u32 = id_text.parse().map_err(|_| {
            fail(format!("filter id '{id_text}' is not a number (netCDF's _Filter takes numeric HDF5 filter ids)"))
        })?;
        let mut params = Vec::new();
        for f in fields {
            let digits = f.trim_end_matches(['b', 'B', 's', 'S', 'l', 'L', 'u', 'U']);
            let v: i64 = digits
                .parse()
                .map_err(|_| fail(format!("filter parameter '{f}' is not an integer")))?;
            // As netcdf-c: parameters are C unsigned ints; negative values wrap.
            params.push(v as u32);
        }
        out.push(hdf5::codec_of(id, &params).map_err(|e| fail(e.to_string()))?);
    }
    if out.is_empty() {
        return Err(fail("empty filter specification".into()));
    }
    Ok(out)
}

/// The value of a special attribute as `ncdump -s` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecialValue {
    /// A quoted string (the printer escapes it).
    Text(String),
    /// Unquoted lengths separated by `, `.
    Ints(Vec<u64>),
    /// One unquoted integer.
    Int(i64),
}

/// One special attribute as `ncdump -s` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialAttr {
    /// `_Storage`, `_ChunkSizes`, ...
    pub name: &'static str,
    /// Its value.
    pub value: SpecialValue,
}

/// The special attributes `ncdump -s` shows for a variable of type `t` stored with
/// `enc`, in ncdump's order (`pr_att_specials`). With `filter_atts` (ncdump's `-F`),
/// deflate, shuffle and fletcher32 are shown in `_Filter` rather than as their own
/// attributes.
pub fn special_attrs(enc: &Encoding, t: NcType, filter_atts: bool) -> Vec<SpecialAttr> {
    let text = |name, v: &str| SpecialAttr {
        name,
        value: SpecialValue::Text(v.to_string()),
    };
    let mut out = Vec::new();
    match &enc.chunking {
        Some(Chunking::Chunked(sizes)) => {
            out.push(text("_Storage", "chunked"));
            out.push(SpecialAttr {
                name: "_ChunkSizes",
                value: SpecialValue::Ints(sizes.clone()),
            });
        }
        // A scalar is one value in one chunk: netcdf-c 4.9.2 and HDF5 call that
        // contiguous (HEAD prints a broken, empty _ChunkSizes line instead).
        Some(Chunking::Contiguous) | None => out.push(text("_Storage", "contiguous")),
        Some(Chunking::Compact) => out.push(text("_Storage", "compact")),
    }
    let has = |filter: u32| enc.codecs.iter().any(|c| is_filter(c, filter));
    if !filter_atts {
        if has(hdf5::FLETCHER32) {
            out.push(text("_Fletcher32", "true"));
        }
        if has(hdf5::SHUFFLE) {
            out.push(text("_Shuffle", "true"));
        }
        if let Some(z) = enc.codecs.iter().find(|c| is_filter(c, hdf5::DEFLATE)) {
            let level = z.get("level").and_then(Json::as_i64_lenient).unwrap_or(1);
            out.push(SpecialAttr {
                name: "_DeflateLevel",
                value: SpecialValue::Int(level),
            });
        }
    }
    let filters: Vec<String> = enc
        .codecs
        .iter()
        .filter_map(hdf5::filter_of)
        .filter(|(id, _)| {
            filter_atts || !matches!(*id, hdf5::DEFLATE | hdf5::SHUFFLE | hdf5::FLETCHER32)
        })
        .map(|(id, params)| {
            let mut s = id.to_string();
            for p in params {
                s.push(',');
                s.push_str(&p.to_string());
            }
            s
        })
        .collect();
    if !filters.is_empty() {
        out.push(text("_Filter", &filters.join("|")));
    }
    if !enc.codecs.is_empty() {
        let json: Vec<String> = enc.codecs.iter().map(Json::to_text).collect();
        out.push(text("_Codecs", &format!("[{}]", json.join(","))));
    }
    if t.size() > 1 {
        match enc.endian {
            Some(Endianness::Little) => out.push(text("_Endianness", "little")),
            Some(Endianness::Big) => out.push(text("_Endianness", "big")),
            None => {}
        }
    }
    if enc.no_fill {
        out.push(text("_NoFill", "true"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(e: &Encoding) -> Vec<&str> {
        e.codec_ids().collect()
    }

    #[test]
    fn checksum_stays_last_and_shuffle_first() {
        let mut e = Encoding::default();
        e.apply(Special::Fletcher32(true), NcType::Int, 1).unwrap();
        e.apply(Special::DeflateLevel(5), NcType::Int, 1).unwrap();
        e.apply(Special::Shuffle(true), NcType::Int, 1).unwrap();
        e.apply(Special::Filter("307,9".into()), NcType::Int, 1)
            .unwrap();
        assert_eq!(ids(&e), ["shuffle", "zlib", "bz2", "fletcher32"]);
        assert_eq!(e.codecs[0].get("elementsize").unwrap().to_text(), "4");
        // A second deflate level replaces the first.
        e.apply(Special::DeflateLevel(1), NcType::Int, 1).unwrap();
        assert_eq!(ids(&e), ["shuffle", "bz2", "zlib", "fletcher32"]);
    }

    #[test]
    fn invalid_values_name_the_attribute() {
        let mut e = Encoding::default();
        let err = |s| {
            e.clone()
                .apply(s, NcType::Float, 2)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(Special::DeflateLevel(10)),
            "_DeflateLevel must be 0..9, not 10"
        );
        assert_eq!(
            err(Special::ChunkSizes(vec![1])),
            "_ChunkSizes has 1 values, the variable has 2 dimensions"
        );
        assert!(err(Special::Filter("x".into())).starts_with("_Filter: filter id 'x'"));
        assert!(err(Special::Filter("4,4,8".into())).contains("szip"));
        assert_eq!(
            err(Special::Codecs("{}".into())),
            "_Codecs must be a JSON array of codec objects"
        );
        assert!(err(Special::Codecs("[".into())).starts_with("_Codecs is not valid JSON"));
        assert!(err(Special::Storage("banded".into())).starts_with("_Storage must be"));
        assert!(err(Special::Endianness("middle".into())).starts_with("_Endianness must be"));
        e.apply(Special::Storage("compact".into()), NcType::Float, 2)
            .unwrap();
        assert_eq!(e.chunking, Some(Chunking::Compact));
        e.apply(Special::Storage("chunked".into()), NcType::Float, 2)
            .unwrap();
        assert_eq!(e.chunking, None);
    }

    #[test]
    fn specials_round_trip_through_cdl_attributes() {
        let mut e = Encoding::default();
        e.apply(Special::ChunkSizes(vec![2, 3]), NcType::Short, 2)
            .unwrap();
        e.apply(Special::Shuffle(true), NcType::Short, 2).unwrap();
        e.apply(Special::DeflateLevel(4), NcType::Short, 2).unwrap();
        e.apply(Special::Filter("32015,3".into()), NcType::Short, 2)
            .unwrap();
        e.apply(Special::Endianness("big".into()), NcType::Short, 2)
            .unwrap();
        e.apply(Special::NoFill(true), NcType::Short, 2).unwrap();
        let shown = special_attrs(&e, NcType::Short, false);
        let names: Vec<&str> = shown.iter().map(|a| a.name).collect();
        assert_eq!(
            names,
            [
                "_Storage",
                "_ChunkSizes",
                "_Shuffle",
                "_DeflateLevel",
                "_Filter",
                "_Codecs",
                "_Endianness",
                "_NoFill"
            ]
        );
        assert_eq!(shown[4].value, SpecialValue::Text("32015,3".into()));
        // Read back as CDL would: the same encoding.
        let mut back = Encoding::default();
        for a in &shown {
            let s = match (&a.value, a.name) {
                (SpecialValue::Ints(v), "_ChunkSizes") => Special::ChunkSizes(v.clone()),
                (SpecialValue::Int(v), "_DeflateLevel") => Special::DeflateLevel(i128::from(*v)),
                (SpecialValue::Text(t), "_Codecs") => Special::Codecs(t.clone()),
                (SpecialValue::Text(t), "_Storage") => Special::Storage(t.clone()),
                (SpecialValue::Text(t), "_Endianness") => Special::Endianness(t.clone()),
                (SpecialValue::Text(_), "_NoFill") => Special::NoFill(true),
                _ => continue,
            };
            back.apply(s, NcType::Short, 2).unwrap();
        }
        assert_eq!(back, e);
        // -F shows every filter in _Filter.
        let f = special_attrs(&e, NcType::Short, true);
        assert!(f.iter().all(|a| a.name != "_Shuffle"));
        let filter = f.iter().find(|a| a.name == "_Filter").unwrap();
        // Shuffle with its element size, as HDF5 keeps it and ncdump shows it.
        assert_eq!(filter.value, SpecialValue::Text("2,2|1,4|32015,3".into()));
    }
}
