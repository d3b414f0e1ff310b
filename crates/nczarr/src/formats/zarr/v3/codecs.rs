//! The v3 `codecs` list, translated to the terms of the chunk reader and writer:
//! `transpose` becomes an element order, `bytes` the dtype's byte order,
//! `sharding_indexed` a [`Sharding`] with its own inner chain, and the rest the
//! numcodecs-style configurations (`{"id": "zstd", ...}`) our codec registry builds.
//! The same translation runs backwards when writing.

use crate::codec::table;
use crate::formats::zarr::array::Sharding;
use crate::formats::zarr::v2::Endian;
use crate::json::{Json, Number};

/// One array's codecs, translated.
#[derive(Debug, Clone, PartialEq)]
pub struct CodecChain {
    /// `transpose`: the element order as a permutation of the dimensions.
    pub transpose: Option<Vec<usize>>,
    /// The byte order the `bytes` codec writes (`None` without one).
    pub endian: Option<Endian>,
    /// Every other codec in encode order, numcodecs-style (`vlen-utf8` first when
    /// present); unknown v3 codecs keep their name as `id`, so that building the
    /// chain fails naming them.
    pub filters: Vec<Json>,
    /// `sharding_indexed`: the shards, their inner chunk shape and inner codecs.
    pub sharding: Option<(Sharding, Vec<u64>, Box<CodecChain>)>,
}

/// The configuration object of a codec (or data type) entry, empty when absent.
fn configuration(entry: &Json) -> Vec<(String, Json)> {
    entry
        .get("configuration")
        .and_then(Json::as_object)
        .map(<[(String, Json)]>::to_vec)
        .unwrap_or_default()
}

fn id_json(id: &str, mut config: Vec<(String, Json)>) -> Json {
    config.retain(|(k, _)| k != "id");
    config.insert(0, ("id".into(), Json::String(id.into())));
    Json::Object(config)
}

fn int(v: i64) -> Json {
    Json::Number(Number::from_i64(v))
}

impl CodecChain {
    /// Translate the `codecs` of an array of rank `rank`.
    ///
    /// # Errors
    /// A message naming the codec for malformed entries, codecs in the wrong place,
    /// and layouts that cannot be read (nested sharding, codecs after sharding).
    pub fn from_json(codecs: &Json, rank: usize) -> Result<CodecChain, String> {
        let list = codecs
            .as_array()
            .ok_or_else(|| format!("\"codecs\" is {}, not an array", codecs.kind()))?;
        let mut chain = CodecChain {
            transpose: None,
            endian: None,
            filters: Vec::new(),
            sharding: None,
        };
        // Array-to-array codecs, then one array-to-bytes codec, then bytes-to-bytes.
        let mut seen_serializer = false;
        for entry in list {
            let name = match entry {
                Json::String(s) => s.as_str(),
                _ => entry
                    .get("name")
                    .and_then(Json::as_str)
                    .ok_or_else(|| format!("codec {} has no \"name\"", entry.to_text()))?,
            };
            let config = configuration(entry);
            let cfg = Json::Object(config.clone());
            if chain.sharding.is_some() {
                return Err(format!(
                    "codec '{name}' after sharding_indexed is not supported (it would need the whole shard for any read)"
                ));
            }
            match name {
                "transpose" => {
                    if seen_serializer {
                        return Err("codec 'transpose' after the bytes codec".into());
                    }
                    chain.transpose = Some(transpose_order(cfg.get("order"), rank)?);
                }
                "bytes" | "endian" => {
                    seen_serializer = true;
                    chain.endian = Some(match cfg.get("endian").and_then(Json::as_str) {
                        None | Some("little") => Endian::Little,
                        Some("big") => Endian::Big,
                        Some(other) => {
                            return Err(format!(
                                "codec 'bytes': endian \"{other}\" is not little or big"
                            ))
                        }
                    });
                }
                "vlen-utf8" | "vlen-bytes" | "numcodecs.vlen-utf8" | "numcodecs.vlen-bytes" => {
                    seen_serializer = true;
                    let id = name.trim_start_matches("numcodecs.");
                    chain.filters.insert(0, id_json(id, Vec::new()));
                }
                "sharding_indexed" => {
                    if chain.transpose.is_some() || !chain.filters.is_empty() {
                        return Err("codecs before sharding_indexed are not supported".into());
                    }
                    seen_serializer = true;
                    chain.sharding = Some(sharding(&cfg, rank)?);
                }
                "crc32c" => chain.filters.push(id_json("crc32c", Vec::new())),
                "blosc" => chain.filters.push(blosc_v2(&cfg)?),
                other => {
                    // The codec table's v3 names (core names, numcodecs' codecs as
                    // zarr-python names them), and anything else under its own name
                    // (the chain builder names what it lacks).
                    let id = match table::by_v3_name(other) {
                        Some(c) => c.id,
                        None => other.strip_prefix("numcodecs.").unwrap_or(other),
                    };
                    chain.filters.push(id_json(id, config));
                }
            }
        }
        Ok(chain)
    }

    /// True when the chain stores strings (`vlen-utf8` / `vlen-bytes`).
    pub fn is_object(&self) -> bool {
        let first = |c: &CodecChain| {
            c.filters
                .first()
                .and_then(|f| f.get("id"))
                .and_then(Json::as_str)
                .is_some_and(|id| id.starts_with("vlen-"))
        };
        first(self) || self.sharding.as_ref().is_some_and(|(_, _, c)| first(c))
    }
}

/// `transpose`'s order: a permutation, or (zarr-python 3.0 early) `"C"` / `"F"`.
fn transpose_order(order: Option<&Json>, rank: usize) -> Result<Vec<usize>, String> {
    let order: Vec<usize> = match order {
        Some(Json::String(s)) if s == "C" => (0..rank).collect(),
        Some(Json::String(s)) if s == "F" => (0..rank).rev().collect(),
        Some(Json::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_number()
                    .and_then(Number::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
            })
            .collect::<Option<Vec<usize>>>()
            .ok_or("codec 'transpose': order holds a non-integer")?,
        _ => return Err("codec 'transpose' needs an \"order\"".into()),
    };
    let mut seen = vec![false; rank];
    if order.len() != rank
        || order
            .iter()
            .any(|&d| d >= rank || std::mem::replace(&mut seen[d], true))
    {
        return Err(format!(
            "codec 'transpose': order {order:?} is not a permutation of {rank} dimensions"
        ));
    }
    Ok(order)
}

fn sharding(cfg: &Json, rank: usize) -> Result<(Sharding, Vec<u64>, Box<CodecChain>), String> {
    let inner: Vec<u64> = cfg
        .get("chunk_shape")
        .and_then(Json::as_array)
        .and_then(|a| {
            a.iter()
                .map(|v| v.as_number().and_then(Number::as_u64))
                .collect()
        })
        .ok_or("codec 'sharding_indexed' needs a \"chunk_shape\" of integers")?;
    if inner.len() != rank || inner.contains(&0) {
        return Err(format!(
            "codec 'sharding_indexed': chunk_shape {inner:?} does not fit {rank} dimensions"
        ));
    }
    let inner_chain = CodecChain::from_json(
        cfg.get("codecs")
            .unwrap_or(&Json::Array(vec![Json::String("bytes".into())])),
        rank,
    )?;
    if inner_chain.sharding.is_some() {
        return Err("nested sharding_indexed is not supported".into());
    }
    let mut index_checksum = false;
    for c in cfg
        .get("index_codecs")
        .and_then(Json::as_array)
        .unwrap_or(&[])
    {
        let name = c
            .as_str()
            .or_else(|| c.get("name").and_then(Json::as_str))
            .unwrap_or("");
        match name {
            "bytes" => {
                let endian = c.get("configuration").and_then(|x| x.get("endian"));
                if endian.and_then(Json::as_str).is_some_and(|e| e != "little") {
                    return Err(
                        "sharding_indexed: a big-endian shard index is not supported".into(),
                    );
                }
            }
            "crc32c" => index_checksum = true,
            other => {
                return Err(format!(
                    "sharding_indexed: index codec '{other}' is not supported"
                ))
            }
        }
    }
    let index_at_start = match cfg.get("index_location").and_then(Json::as_str) {
        None | Some("end") => false,
        Some("start") => true,
        Some(other) => {
            return Err(format!(
                "sharding_indexed: index_location \"{other}\" is not start or end"
            ))
        }
    };
    Ok((
        Sharding {
            shape: Vec::new(),
            index_checksum,
            index_at_start,
        },
        inner,
        Box::new(inner_chain),
    ))
}

/// numcodecs' `blosc` config from v3's (`shuffle` by name; `typesize` is implied by
/// the element size when decoding).
fn blosc_v2(cfg: &Json) -> Result<Json, String> {
    let shuffle = match cfg.get("shuffle") {
        None => 1,
        Some(Json::String(s)) => match s.as_str() {
            "noshuffle" => 0,
            "shuffle" => 1,
            "bitshuffle" => 2,
            other => return Err(format!("codec 'blosc': shuffle \"{other}\" is unknown")),
        },
        Some(other) => other
            .as_i64_lenient()
            .ok_or_else(|| format!("codec 'blosc': shuffle {} is unknown", other.to_text()))?,
    };
    let get = |k: &str, d: Json| cfg.get(k).cloned().unwrap_or(d);
    Ok(Json::Object(vec![
        ("id".into(), Json::String("blosc".into())),
        ("cname".into(), get("cname", Json::String("lz4".into()))),
        ("clevel".into(), get("clevel", int(5))),
        ("shuffle".into(), int(shuffle)),
        ("blocksize".into(), get("blocksize", int(0))),
    ]))
}

/// The v3 codec entry of one numcodecs-style configuration; `item_size` is the
/// element size (blosc's `typesize`).
fn codec_to_v3(config: &Json, item_size: usize) -> Json {
    let id = config.get("id").and_then(Json::as_str).unwrap_or("");
    let rest: Vec<(String, Json)> = config
        .as_object()
        .unwrap_or(&[])
        .iter()
        .filter(|(k, _)| k != "id")
        .cloned()
        .collect();
    let entry = |name: &str, config: Vec<(String, Json)>| {
        let mut e = vec![("name".into(), Json::String(name.into()))];
        if !config.is_empty() {
            e.push(("configuration".into(), Json::Object(config)));
        }
        Json::Object(e)
    };
    match id {
        "gzip" => entry("gzip", rest),
        "zstd" => {
            let level = config.get("level").cloned().unwrap_or(int(0));
            let checksum = config.get("checksum").cloned().unwrap_or(Json::Bool(false));
            entry(
                "zstd",
                vec![("level".into(), level), ("checksum".into(), checksum)],
            )
        }
        "crc32c" => entry("crc32c", Vec::new()),
        "vlen-utf8" | "vlen-bytes" => entry(id, Vec::new()),
        "blosc" => {
            let shuffle = match config.get("shuffle").and_then(Json::as_i64_lenient) {
                Some(0) => "noshuffle",
                Some(2) => "bitshuffle",
                _ => "shuffle",
            };
            let get = |k: &str, d: Json| config.get(k).cloned().unwrap_or(d);
            entry(
                "blosc",
                vec![
                    ("cname".into(), get("cname", Json::String("lz4".into()))),
                    ("clevel".into(), get("clevel", int(5))),
                    ("shuffle".into(), Json::String(shuffle.into())),
                    ("typesize".into(), int(item_size.max(1) as i64)),
                    ("blocksize".into(), get("blocksize", int(0))),
                ],
            )
        }
        other => match table::spec(other) {
            Some(c) => entry(&c.v3_name(), rest),
            None => entry(&format!("numcodecs.{other}"), rest),
        },
    }
}

/// True for numcodecs codecs that work on arrays (they go before `bytes` in v3).
fn is_array_to_array(config: &Json) -> bool {
    config
        .get("id")
        .and_then(Json::as_str)
        .and_then(table::spec)
        .is_some_and(|c| c.role == table::Role::ValueFilter)
}

/// The v3 `codecs` list of a chain: array-to-array filters, the
/// serializer (`bytes` with `endian`, or `vlen-utf8`), then bytes-to-bytes codecs;
/// with `sharding` = (shards, inner chunks), all of that moves inside
/// `sharding_indexed` (index at the end, with a CRC32C, as zarr-python writes).
pub fn chain_to_json(
    filters: &[Json],
    endian: Endian,
    item_size: usize,
    sharding: Option<(&Sharding, &[u64])>,
) -> Json {
    let mut list = Vec::new();
    let mut object = false;
    for f in filters.iter().filter(|f| is_array_to_array(f)) {
        list.push(codec_to_v3(f, item_size));
    }
    match filters
        .first()
        .and_then(|f| f.get("id"))
        .and_then(Json::as_str)
    {
        Some(id @ ("vlen-utf8" | "vlen-bytes")) => {
            object = true;
            list.push(codec_to_v3(&id_json(id, Vec::new()), item_size));
        }
        _ => list.push(bytes_codec(endian, item_size)),
    }
    for f in filters.iter().filter(|f| !is_array_to_array(f)) {
        let id = f.get("id").and_then(Json::as_str).unwrap_or("");
        if object && id.starts_with("vlen-") {
            continue;
        }
        list.push(codec_to_v3(f, item_size));
    }
    let Some((sh, inner)) = sharding else {
        return Json::Array(list);
    };
    let index_codecs = {
        let mut ix = vec![bytes_codec(Endian::Little, 8)];
        if sh.index_checksum {
            ix.push(codec_to_v3(&id_json("crc32c", Vec::new()), 8));
        }
        Json::Array(ix)
    };
    let dims = |v: &[u64]| {
        Json::Array(
            v.iter()
                .map(|&n| Json::Number(Number::from_u64(n)))
                .collect(),
        )
    };
    Json::Array(vec![Json::Object(vec![
        ("name".into(), Json::String("sharding_indexed".into())),
        (
            "configuration".into(),
            Json::Object(vec![
                ("chunk_shape".into(), dims(inner)),
                ("codecs".into(), Json::Array(list)),
                ("index_codecs".into(), index_codecs),
                (
                    "index_location".into(),
                    Json::String(if sh.index_at_start { "start" } else { "end" }.into()),
                ),
            ]),
        ),
    ])])
}

fn bytes_codec(endian: Endian, item_size: usize) -> Json {
    let mut e = vec![("name".into(), Json::String("bytes".into()))];
    if item_size > 1 {
        let name = if endian == Endian::Big {
            "big"
        } else {
            "little"
        };
        e.push((
            "configuration".into(),
            Json::Object(vec![("endian".into(), Json::String(name.into()))]),
        ));
    }
    Json::Object(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn chain(text: &str, rank: usize) -> Result<CodecChain, String> {
        CodecChain::from_json(&parse_str(text).unwrap(), rank)
    }

    #[test]
    fn zarr_python_chains_translate() {
        let c = chain(
            r#"[{"name": "transpose", "configuration": {"order": [1, 0]}},
                {"name": "bytes", "configuration": {"endian": "big"}},
                {"name": "gzip", "configuration": {"level": 3}}, {"name": "crc32c"}]"#,
            2,
        )
        .unwrap();
        assert_eq!(c.transpose, Some(vec![1, 0]));
        assert_eq!(c.endian, Some(Endian::Big));
        assert_eq!(
            Json::Array(c.filters),
            parse_str(r#"[{"id":"gzip","level":3},{"id":"crc32c"}]"#).unwrap()
        );
        let s = chain(
            r#"[{"name": "vlen-utf8", "configuration": {}}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}]"#,
            1,
        )
        .unwrap();
        assert!(s.is_object());
        let b = chain(
            r#"[{"name": "bytes"}, {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 0}}]"#,
            1,
        )
        .unwrap();
        assert_eq!(b.filters[0].get("shuffle").unwrap().to_text(), "2");
        let n = chain(
            r#"[{"name": "bytes"}, {"name": "numcodecs.zlib", "configuration": {"level": 1}}]"#,
            1,
        )
        .unwrap();
        assert_eq!(
            n.filters[0],
            parse_str(r#"{"id":"zlib","level":1}"#).unwrap()
        );
    }

    #[test]
    fn sharding_and_its_limits() {
        let s = chain(
            r#"[{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3],
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 1, "checksum": true}}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                "index_location": "start"}}]"#,
            2,
        )
        .unwrap();
        let (sh, inner, c) = s.sharding.unwrap();
        assert_eq!(inner, vec![2, 3]);
        assert!(sh.index_checksum && sh.index_at_start);
        assert_eq!(c.filters.len(), 1);
        assert!(chain(r#"[{"name": "sharding_indexed", "configuration": {"chunk_shape": [2]}}, {"name": "gzip"}]"#, 1)
            .unwrap_err()
            .contains("after sharding"));
        assert!(chain(
            r#"[{"name": "transpose", "configuration": {"order": [0, 0]}}, "bytes"]"#,
            2
        )
        .unwrap_err()
        .contains("permutation"));
    }

    #[test]
    fn written_chains_read_back() {
        let filters = vec![
            parse_str(r#"{"id": "shuffle", "elementsize": 4}"#).unwrap(),
            parse_str(r#"{"id": "zstd", "level": 1}"#).unwrap(),
        ];
        let sh = Sharding {
            shape: vec![4],
            index_checksum: true,
            index_at_start: false,
        };
        for sharding in [None, Some((&sh, &[2u64][..]))] {
            let json = chain_to_json(&filters, Endian::Big, 4, sharding);
            let back = CodecChain::from_json(&json, 1).unwrap();
            let c = match &back.sharding {
                Some((_, inner, c)) => {
                    assert_eq!(inner, &vec![2]);
                    c.as_ref().clone()
                }
                None => back,
            };
            assert_eq!(c.endian, Some(Endian::Big));
            assert_eq!(
                c.filters[0],
                parse_str(r#"{"id":"shuffle","elementsize":4}"#).unwrap()
            );
            assert_eq!(
                c.filters[1],
                parse_str(r#"{"id":"zstd","level":1,"checksum":false}"#).unwrap()
            );
        }
    }
}
