//! A variable's codec chain: `filters` in order, then the `compressor` on encode;
//! the reverse on decode. An object codec (`vlen-utf8`, `vlen-bytes`, `categorize`
//! of `|O`) may only come first, where it turns strings into bytes.

use super::categorize::Categorize;
use super::{registry, vlen, ChunkFault, ChunkInfo, Codec, CodecError, ConfigFault};
use crate::json::Json;

/// The result of decoding one chunk.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// Raw element bytes.
    Bytes(Vec<u8>),
    /// Items of an object (`|O`) array.
    Items(Vec<Vec<u8>>),
}

/// The codec that turns an object array's items into bytes.
#[derive(Debug)]
enum Object {
    /// `vlen-utf8` or `vlen-bytes`.
    Vlen(&'static str),
    /// `categorize` of `|O`.
    Categorize(Categorize),
}

impl Object {
    fn id(&self) -> &'static str {
        match self {
            Object::Vlen(id) => id,
            Object::Categorize(_) => "categorize",
        }
    }
}

/// A built codec chain.
#[derive(Debug)]
pub struct Pipeline {
    vlen: Option<Object>,
    codecs: Vec<Box<dyn Codec>>,
}

impl Pipeline {
    /// Build the chain `filters` + `compressor`.
    ///
    /// # Errors
    /// [`CodecError::Create`] for unknown codecs, bad parameters, or an object codec
    /// anywhere but first.
    pub fn new(filters: &[Json], compressor: Option<&Json>) -> Result<Pipeline, CodecError> {
        let mut vlen = None;
        let mut codecs = Vec::new();
        for (i, config) in filters.iter().chain(compressor).enumerate() {
            match config.get("id").and_then(Json::as_str) {
                Some(id @ ("vlen-utf8" | "vlen-bytes" | "categorize")) => {
                    let object = match id {
                        "vlen-utf8" => Object::Vlen("vlen-utf8"),
                        "vlen-bytes" => Object::Vlen("vlen-bytes"),
                        _ => {
                            let c = Categorize::from_config(config).map_err(|fault| {
                                CodecError::Create {
                                    config: config.to_text(),
                                    fault,
                                }
                            })?;
                            if !c.is_object() {
                                codecs.push(Box::new(c) as Box<dyn Codec>);
                                continue;
                            }
                            Object::Categorize(c)
                        }
                    };
                    if i != 0 {
                        return Err(CodecError::Create {
                            config: config.to_text(),
                            fault: ConfigFault::Misplaced,
                        });
                    }
                    vlen = Some(object);
                }
                _ => codecs.push(registry::build(config)?),
            }
        }
        Ok(Pipeline { vlen, codecs })
    }

    /// True when the chain starts with an object codec (the array holds `|O` items).
    pub fn is_object(&self) -> bool {
        self.vlen.is_some()
    }

    /// True when the chain does nothing.
    pub fn is_empty(&self) -> bool {
        self.vlen.is_none() && self.codecs.is_empty()
    }

    /// Decode the stored bytes of chunk `key` holding `items` elements.
    ///
    /// # Errors
    /// [`CodecError::Failed`] naming the codec and the chunk.
    pub fn decode(
        &self,
        stored: Vec<u8>,
        key: &str,
        info: &ChunkInfo,
        items: usize,
    ) -> Result<Decoded, CodecError> {
        let mut data = stored;
        let fail = failure(key);
        for codec in self.codecs.iter().rev() {
            data = codec.decode(data, info).map_err(|m| fail(codec.id(), m))?;
        }
        match &self.vlen {
            Some(Object::Vlen(id)) => Ok(Decoded::Items(
                vlen::decode(&data, items).map_err(|m| fail(id, m))?,
            )),
            Some(Object::Categorize(c)) => Ok(Decoded::Items(
                c.decode_items(&data).map_err(|m| fail("categorize", m))?,
            )),
            None => Ok(Decoded::Bytes(data)),
        }
    }

    /// [`Pipeline::decode`] of a chain of fixed-size values into `out`, which the
    /// chunk's bytes must fill exactly: the last step writes there (no copy of the
    /// chunk, nor memory for it).
    ///
    /// # Errors
    /// [`CodecError::Failed`] naming the codec and the chunk (the chunk not of
    /// `out`'s size too); an object chain is refused.
    pub fn decode_to(
        &self,
        stored: Vec<u8>,
        key: &str,
        info: &ChunkInfo,
        out: &mut [u8],
    ) -> Result<(), CodecError> {
        let fail = failure(key);
        if let Some(o) = &self.vlen {
            return Err(fail(o.id(), ChunkFault::WrongKind("items are not bytes")));
        }
        // Decoding applies the chain from its end: the first codec is the last step.
        let Some((last, rest)) = self.codecs.split_first() else {
            return super::copy_whole(&stored, out).map_err(|m| fail("pipeline", m));
        };
        let mut data = stored;
        for codec in rest.iter().rev() {
            data = codec.decode(data, info).map_err(|m| fail(codec.id(), m))?;
        }
        last.decode_to(data, out, info)
            .map_err(|m| fail(last.id(), m))
    }

    /// Encode raw chunk bytes (or items, for an object chain).
    ///
    /// # Errors
    /// [`CodecError::Failed`] naming the codec and the chunk.
    pub fn encode(
        &self,
        chunk: Decoded,
        key: &str,
        info: &ChunkInfo,
    ) -> Result<Vec<u8>, CodecError> {
        let fail = failure(key);
        let mut data = match (chunk, &self.vlen) {
            (Decoded::Items(items), Some(Object::Vlen(_))) => {
                let refs: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
                vlen::encode(&refs)
            }
            (Decoded::Items(items), Some(Object::Categorize(c))) => c.encode_items(&items),
            (Decoded::Bytes(b), None) => b,
            (_, Some(o)) => {
                return Err(fail(
                    o.id(),
                    ChunkFault::WrongKind("an object chain needs items, not bytes"),
                ))
            }
            (Decoded::Items(_), None) => {
                return Err(fail(
                    "pipeline",
                    ChunkFault::WrongKind("items need an object codec"),
                ))
            }
        };
        for codec in &self.codecs {
            data = codec.encode(data, info).map_err(|m| fail(codec.id(), m))?;
        }
        Ok(data)
    }
}

/// The error of codec `codec` failing with `fault` on chunk `key`.
fn failure(key: &str) -> impl Fn(&str, ChunkFault) -> CodecError + '_ {
    move |codec, fault| CodecError::Failed {
        codec: codec.to_string(),
        key: key.to_string(),
        fault,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn info() -> ChunkInfo {
        ChunkInfo {
            item_size: 4,
            max_decoded: 1 << 20,
        }
    }

    fn chain(filters: &str, compressor: &str) -> Pipeline {
        let f = parse_str(filters).unwrap();
        let c = parse_str(compressor).unwrap();
        Pipeline::new(
            f.as_array().unwrap_or(&[]),
            if matches!(c, Json::Null) {
                None
            } else {
                Some(&c)
            },
        )
        .unwrap()
    }

    fn sample() -> Vec<u8> {
        (0..1000u32)
            .flat_map(|i| (i * 7 % 13).to_le_bytes())
            .collect()
    }

    /// Decoded into a chunk's place, a chain gives what it decodes to, and a place of
    /// another size is an error naming the codec and the chunk.
    #[test]
    fn decoding_into_a_place_gives_the_decoded_bytes() {
        for (filters, compressor) in [
            ("[]", "null"),
            ("[]", r#"{"id": "zlib", "level": 1}"#),
            (
                r#"[{"id": "shuffle", "elementsize": 4}]"#,
                r#"{"id": "zlib", "level": 1}"#,
            ),
            (
                r#"[{"id": "shuffle", "elementsize": 4}]"#,
                r#"{"id": "zstd", "level": 3}"#,
            ),
            ("[]", r#"{"id": "bz2", "level": 9}"#),
        ] {
            let p = chain(filters, compressor);
            let data = sample();
            let stored = p
                .encode(Decoded::Bytes(data.clone()), "k", &info())
                .unwrap();
            let mut place = vec![0xee; data.len()];
            p.decode_to(stored.clone(), "k", &info(), &mut place)
                .unwrap();
            assert_eq!(place, data, "{filters} {compressor}");
            for len in [data.len() - 1, data.len() + 4] {
                let mut place = vec![0; len];
                let e = p
                    .decode_to(stored.clone(), "0.1", &info(), &mut place)
                    .unwrap_err();
                assert!(e.to_string().contains("0.1"), "{e}");
            }
        }
    }

    #[test]
    fn every_codec_round_trips() {
        let configs = [
            r#"{"id": "zlib", "level": 5}"#,
            r#"{"id": "gzip", "level": 5}"#,
            r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
            r#"{"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}"#,
            r#"{"id": "blosc", "cname": "blosclz", "clevel": 9, "shuffle": 0, "blocksize": 0}"#,
            r#"{"id": "blosc", "cname": "lz4hc", "clevel": 5, "shuffle": -1, "blocksize": 0}"#,
            r#"{"id": "blosc", "cname": "zlib", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
            r#"{"id": "zstd", "level": 3}"#,
            r#"{"id": "lz4", "acceleration": 1}"#,
            r#"{"id": "bz2", "level": 9}"#,
            r#"{"id": "shuffle", "elementsize": 4}"#,
            r#"{"id": "shuffle", "elementsize": 0}"#,
            r#"{"id": "fletcher32"}"#,
            r#"{"id": "delta", "dtype": "<u4", "astype": "<u4"}"#,
            r#"{"id": "delta", "dtype": "<u4", "astype": "<i8"}"#,
            r#"{"id": "crc32"}"#,
            r#"{"id": "crc32c"}"#,
            r#"{"id": "adler32"}"#,
        ];
        for c in configs {
            let p = chain("null", c);
            let enc = p.encode(Decoded::Bytes(sample()), "v/0", &info()).unwrap();
            let dec = p.decode(enc, "v/0", &info(), 1000).unwrap();
            assert_eq!(dec, Decoded::Bytes(sample()), "{c}");
        }
        // Empty chunks too.
        for c in configs {
            let p = chain("null", c);
            let enc = p
                .encode(Decoded::Bytes(Vec::new()), "v/0", &info())
                .unwrap();
            assert_eq!(
                p.decode(enc, "v/0", &info(), 0).unwrap(),
                Decoded::Bytes(Vec::new()),
                "{c}"
            );
        }
    }

    #[test]
    fn filters_then_compressor() {
        let p = chain(
            r#"[{"id": "shuffle", "elementsize": 4}]"#,
            r#"{"id": "zlib", "level": 5}"#,
        );
        let enc = p.encode(Decoded::Bytes(sample()), "v/0", &info()).unwrap();
        let shuffled = chain("null", r#"{"id": "shuffle", "elementsize": 4}"#)
            .encode(Decoded::Bytes(sample()), "k", &info())
            .unwrap();
        let zlib_only = chain("null", r#"{"id": "zlib", "level": 5}"#);
        assert_eq!(
            zlib_only.decode(enc.clone(), "k", &info(), 0).unwrap(),
            Decoded::Bytes(shuffled)
        );
        assert_eq!(
            p.decode(enc, "k", &info(), 1000).unwrap(),
            Decoded::Bytes(sample())
        );
    }

    #[test]
    fn corrupt_input_is_an_error_naming_codec_and_chunk() {
        for c in [
            r#"{"id": "zlib", "level": 5}"#,
            r#"{"id": "gzip", "level": 5}"#,
            r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
            r#"{"id": "zstd", "level": 3}"#,
            r#"{"id": "lz4", "acceleration": 1}"#,
            r#"{"id": "bz2", "level": 9}"#,
            r#"{"id": "fletcher32"}"#,
        ] {
            let p = chain("null", c);
            let e = p
                .decode(
                    b"garbage!garbage!garbage!".to_vec(),
                    "tas/0.1",
                    &info(),
                    100,
                )
                .unwrap_err();
            assert!(
                e.to_string().contains("failed on chunk 'tas/0.1'"),
                "{c}: {e}"
            );
        }
    }

    #[test]
    fn decoding_is_bounded() {
        let p = chain("null", r#"{"id": "zlib", "level": 9}"#);
        let big = vec![0u8; 1 << 20];
        let enc = p.encode(Decoded::Bytes(big), "k", &info()).unwrap();
        let small = ChunkInfo {
            item_size: 4,
            max_decoded: 1000,
        };
        assert!(p
            .decode(enc, "k", &small, 250)
            .unwrap_err()
            .to_string()
            .contains("more than"));
    }

    #[test]
    fn vlen_first_only() {
        let p = chain(r#"[{"id": "vlen-utf8"}]"#, "null");
        assert!(p.is_object());
        let enc = p
            .encode(Decoded::Items(vec![b"a".to_vec()]), "k", &info())
            .unwrap();
        assert_eq!(
            p.decode(enc, "k", &info(), 1).unwrap(),
            Decoded::Items(vec![b"a".to_vec()])
        );
        let f = parse_str(r#"[{"id": "zlib"}, {"id": "vlen-utf8"}]"#).unwrap();
        assert!(Pipeline::new(f.as_array().unwrap(), None).is_err());
    }
}
