//! Codec fixtures written by the real numcodecs (see
//! `tests/data/codecs/make_codec_fixtures.py` and `VERSIONS.txt` there).
//!
//! Each fixture `<name>` is `<name>.json` (the numcodecs config plus `"dtype"` and
//! `"shape"`, or `{"filters", "compressor", "dtype", "shape"}` for a chain),
//! `<name>.bin` (what numcodecs stored) and either `<name>.raw` (the raw element bytes)
//! or, for the vlen object codecs, `<name>.items.json` (the items: strings for
//! vlen-utf8, base64 for vlen-bytes).
//!
//! For every fixture: decoding `.bin` gives exactly `.raw` (or the items); encoding
//! `.raw` with our pipeline and decoding again round-trips. For codecs whose output is
//! fully determined by their input (shuffle, delta, checksums, vlen) our encoding must
//! also equal numcodecs' bytes.

use std::path::PathBuf;

use nczarr::codec::{ChunkInfo, Decoded, Pipeline};
use nczarr::json::{self, Json, Number};

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codecs"))
}

fn read(file: &str) -> Result<Vec<u8>, String> {
    let path = data_dir().join(file);
    std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn read_json(file: &str) -> Result<Json, String> {
    let bytes = read(file)?;
    let text = String::from_utf8(bytes).map_err(|e| format!("{file}: not UTF-8: {e}"))?;
    json::parse_str(&text).map_err(|e| format!("{file}: bad JSON: {e}"))
}

/// Bytes per element of a numpy dtype string: `"<f4"` -> 4, `"|u1"` -> 1; `"|O"` -> 1.
fn item_size(dtype: &str) -> usize {
    dtype
        .get(2..)
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
}

/// Decode standard base64 (with `=` padding), as Python's `base64.b64encode` writes it.
fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    fn val(c: u8) -> Result<u32, String> {
        Ok(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("bad base64 character {:?}", char::from(c))),
        })
    }
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for group in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in group.iter().enumerate() {
            acc |= val(c)? << (18 - 6 * i);
        }
        let n = match group.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => return Err("truncated base64".into()),
        };
        out.extend_from_slice(&acc.to_be_bytes()[1..=n]);
    }
    Ok(out)
}

/// Where two byte strings first differ, for readable failures.
fn describe_difference(got: &[u8], want: &[u8]) -> String {
    let first = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let around = |v: &[u8]| {
        let end = (first + 8).min(v.len());
        v[first.min(end)..end]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "got {} bytes, want {}; first difference at byte {first}: got [{}] want [{}]",
        got.len(),
        want.len(),
        around(got),
        around(want)
    )
}

fn describe_decoded(got: &Decoded, want: &Decoded) -> String {
    match (got, want) {
        (Decoded::Bytes(g), Decoded::Bytes(w)) => describe_difference(g, w),
        (Decoded::Items(g), Decoded::Items(w)) => {
            if g.len() != w.len() {
                return format!("got {} items, want {}", g.len(), w.len());
            }
            let i = g.iter().zip(w).position(|(a, b)| a != b).unwrap_or(0);
            format!(
                "item {i} differs: got {:?}, want {:?}",
                String::from_utf8_lossy(&g[i]),
                String::from_utf8_lossy(&w[i])
            )
        }
        (Decoded::Bytes(_), Decoded::Items(_)) => "got bytes, want items".into(),
        (Decoded::Items(_), Decoded::Bytes(_)) => "got items, want bytes".into(),
    }
}

/// A loaded fixture.
struct Fixture {
    name: String,
    pipeline: Pipeline,
    stored: Vec<u8>,
    expected: Decoded,
    items: usize,
    info: ChunkInfo,
}

/// The codec config without the fixture's own `"dtype"`/`"shape"` members (delta keeps
/// `"dtype"`: there it is the codec's parameter, equal to the data's dtype).
fn codec_config(meta: &Json) -> Json {
    let is_delta = meta.get("id").and_then(Json::as_str) == Some("delta");
    match meta {
        Json::Object(members) => Json::Object(
            members
                .iter()
                .filter(|(k, _)| k != "shape" && (k != "dtype" || is_delta))
                .cloned()
                .collect(),
        ),
        other => other.clone(),
    }
}

fn load(name: &str) -> Result<Fixture, String> {
    let meta = read_json(&format!("{name}.json"))?;
    let dtype = meta
        .get("dtype")
        .and_then(Json::as_str)
        .ok_or("no \"dtype\" member")?
        .to_string();
    let items = meta
        .get("shape")
        .and_then(Json::as_number)
        .and_then(Number::as_u64)
        .ok_or("no integer \"shape\" member")? as usize;
    let stored = read(&format!("{name}.bin"))?;

    let built = if meta.get("filters").is_some() || meta.get("compressor").is_some() {
        // A chain: {"filters": [...], "compressor": {...}, "dtype", "shape"}.
        let filters = match meta.get("filters") {
            None | Some(Json::Null) => Vec::new(),
            Some(f) => f.as_array().ok_or("\"filters\" is not an array")?.to_vec(),
        };
        let compressor = match meta.get("compressor") {
            None | Some(Json::Null) => None,
            Some(c) => Some(c.clone()),
        };
        Pipeline::new(&filters, compressor.as_ref())
    } else {
        let config = codec_config(&meta);
        let is_vlen = matches!(
            config.get("id").and_then(Json::as_str),
            Some("vlen-utf8" | "vlen-bytes")
        );
        if is_vlen {
            Pipeline::new(&[config], None)
        } else {
            Pipeline::new(&[], Some(&config))
        }
    };
    let pipeline = built.map_err(|e| format!("Pipeline::new failed: {e}"))?;

    let expected = if pipeline.is_object() {
        let list = read_json(&format!("{name}.items.json"))?;
        let base64 = meta.get("id").and_then(Json::as_str) == Some("vlen-bytes");
        let mut out = Vec::new();
        for item in list.as_array().ok_or("items.json is not an array")? {
            let s = item.as_str().ok_or("items.json holds a non-string")?;
            out.push(if base64 {
                base64_decode(s)?
            } else {
                s.as_bytes().to_vec()
            });
        }
        if out.len() != items {
            return Err(format!(
                "items.json has {} items, \"shape\" says {items}",
                out.len()
            ));
        }
        Decoded::Items(out)
    } else {
        let raw = read(&format!("{name}.raw"))?;
        if raw.len() != items * item_size(&dtype) {
            return Err(format!(
                "{name}.raw has {} bytes, expected {items} x {}",
                raw.len(),
                item_size(&dtype)
            ));
        }
        Decoded::Bytes(raw)
    };
    let expected_len = match &expected {
        Decoded::Bytes(b) => b.len(),
        Decoded::Items(v) => v.iter().map(|i| i.len() + 4).sum::<usize>() + 4,
    };
    Ok(Fixture {
        name: name.to_string(),
        pipeline,
        stored,
        expected,
        items,
        info: ChunkInfo {
            item_size: item_size(&dtype),
            max_decoded: expected_len + 64,
        },
    })
}

/// What to check beyond decode + round trip.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Encode {
    /// Our encoding may differ from numcodecs' (compressors: other library versions,
    /// timestamps).
    MayDiffer,
    /// Our encoding must equal numcodecs' bytes.
    Identical,
}

fn check(f: &Fixture, encode: Encode) -> Result<(), String> {
    let key = format!("{}/0", f.name);
    // 1. numcodecs' bytes decode to the raw data.
    let decoded = f
        .pipeline
        .decode(f.stored.clone(), &key, &f.info, f.items)
        .map_err(|e| format!("decoding numcodecs' bytes failed: {e}"))?;
    if decoded != f.expected {
        return Err(format!(
            "decoding numcodecs' bytes: {}",
            describe_decoded(&decoded, &f.expected)
        ));
    }
    // 2. Our encoding decodes back to the raw data.
    let ours = f
        .pipeline
        .encode(f.expected.clone(), &key, &f.info)
        .map_err(|e| format!("encoding failed: {e}"))?;
    if encode == Encode::Identical && ours != f.stored {
        return Err(format!(
            "our encoding differs from numcodecs': {}",
            describe_difference(&ours, &f.stored)
        ));
    }
    let again = f
        .pipeline
        .decode(ours, &key, &f.info, f.items)
        .map_err(|e| format!("decoding our own encoding failed: {e}"))?;
    if again != f.expected {
        return Err(format!(
            "round trip: {}",
            describe_decoded(&again, &f.expected)
        ));
    }
    Ok(())
}

/// Check every named fixture; `optional` ones may be absent (numcodecs could not
/// make them). Panics listing every failure.
fn check_all(fixtures: &[(&str, Encode)], optional: &[&str]) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for &(name, encode) in fixtures {
        if optional.contains(&name) && !data_dir().join(format!("{name}.json")).exists() {
            eprintln!("fixture {name}: absent (numcodecs could not write it), skipped");
            continue;
        }
        match load(name).and_then(|f| check(&f, encode)) {
            Ok(()) => checked += 1,
            Err(e) => failures.push(format!("fixture {name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n  {}",
        failures.len(),
        fixtures.len(),
        failures.join("\n  ")
    );
    assert!(checked > 0, "no fixture was checked");
}

use Encode::{Identical, MayDiffer};

const ZLIB_GZIP: &[(&str, Encode)] = &[
    ("zlib_1", MayDiffer),
    ("zlib_9", MayDiffer),
    // gzip embeds the encoding time.
    ("gzip_5", MayDiffer),
];

const BLOSC: &[(&str, Encode)] = &[
    ("blosc_lz4_shuffle", MayDiffer),
    ("blosc_zstd_bitshuffle", MayDiffer),
    ("blosc_blosclz_noshuffle", MayDiffer),
    ("blosc_zlib_shuffle", MayDiffer),
    ("blosc_lz4hc_shuffle", MayDiffer),
    // shuffle -1 on a 1-byte dtype: c-blosc bit-shuffles (header flags 0x24).
    ("blosc_lz4_autoshuffle_u1", MayDiffer),
    // shuffle -1 on an 8-byte dtype: byte shuffle.
    ("blosc_lz4_autoshuffle_f8", MayDiffer),
    // 66006 bytes of <i2 in 65536-byte blocks plus a 470-byte leftover block.
    ("blosc_lz4_multiblock", MayDiffer),
    // Same data bit-shuffled in 8192-byte blocks; the leftover is not a multiple of 8
    // items.
    ("blosc_zstd_bitshuffle_multiblock", MayDiffer),
    // Incompressible: stored with the memcpy flag (0x02).
    ("blosc_lz4_noise", MayDiffer),
    // 12 bytes, below c-blosc's minimum buffer: memcpy'd after the 16-byte header.
    ("blosc_lz4_tiny", MayDiffer),
];

const ZSTD: &[(&str, Encode)] = &[
    ("zstd_3", MayDiffer),
    ("zstd_0", MayDiffer),
    ("zstd_3_checksum", MayDiffer),
];

const LZ4: &[(&str, Encode)] = &[("lz4_1", MayDiffer)];

const BZ2: &[(&str, Encode)] = &[("bz2_9", MayDiffer)];

const SHUFFLE: &[(&str, Encode)] = &[("shuffle_4", Identical), ("shuffle_8", Identical)];

const FLETCHER32: &[(&str, Encode)] = &[
    ("fletcher32_i4", Identical),
    // 7 bytes: the odd last byte counts as the high byte of a 16-bit word.
    ("fletcher32_odd", Identical),
];

const DELTA: &[(&str, Encode)] = &[
    ("delta_i4", Identical),
    ("delta_f8", Identical),
    // numcodecs takes the difference in the *source* dtype (u2, wrapping modulo 2^16)
    // and then widens it to i4, so a step down of 2 is stored as 65534, not -2. A
    // decoder that sums modulo 2^16 reads both spellings; our encoder may write -2.
    ("delta_u2_i4", MayDiffer),
];

const CHECKSUMS: &[(&str, Encode)] = &[
    // crc32 and adler32: LE u32 before the data; crc32c: after it.
    ("crc32", Identical),
    ("crc32_end", Identical),
    ("adler32", Identical),
    ("crc32c", Identical),
];

const VLEN: &[(&str, Encode)] = &[("vlen_utf8", Identical), ("vlen_bytes", Identical)];

const CHAINS: &[(&str, Encode)] = &[("chain_shuffle_zlib", MayDiffer)];

#[test]
fn zlib_and_gzip_fixtures_decode() {
    check_all(ZLIB_GZIP, &[]);
}

#[test]
fn blosc_fixtures_decode() {
    check_all(BLOSC, &[]);
}

#[test]
fn zstd_fixtures_decode() {
    check_all(ZSTD, &[]);
}

#[test]
fn lz4_fixtures_decode() {
    check_all(LZ4, &[]);
}

#[test]
fn bz2_fixtures_decode() {
    check_all(BZ2, &[]);
}

#[test]
fn shuffle_fixtures_decode_and_encode_identically() {
    check_all(SHUFFLE, &[]);
}

#[test]
fn fletcher32_fixtures_decode_and_encode_identically() {
    check_all(FLETCHER32, &[]);
}

#[test]
fn delta_fixtures_decode() {
    check_all(DELTA, &[]);
}

#[test]
fn checksum_fixtures_decode_and_encode_identically() {
    check_all(CHECKSUMS, &["crc32c"]);
}

#[test]
fn vlen_fixtures_decode_and_encode_identically() {
    check_all(VLEN, &[]);
}

#[test]
fn chain_fixtures_decode() {
    check_all(CHAINS, &[]);
}

/// Every fixture in the directory belongs to one of the lists above, so a new fixture
/// cannot go untested.
#[test]
fn every_fixture_is_checked() {
    let lists: [&[(&str, Encode)]; 11] = [
        ZLIB_GZIP, BLOSC, ZSTD, LZ4, BZ2, SHUFFLE, FLETCHER32, DELTA, CHECKSUMS, VLEN, CHAINS,
    ];
    let known: Vec<&str> = lists
        .iter()
        .copied()
        .flatten()
        .map(|&(name, _)| name)
        .collect();
    let mut unlisted = Vec::new();
    let dir = std::fs::read_dir(data_dir()).expect("the codec fixture directory");
    for entry in dir {
        let file = entry.expect("a directory entry").file_name();
        let file = file.to_string_lossy();
        if let Some(name) = file.strip_suffix(".json") {
            if name.ends_with(".items") {
                continue;
            }
            if !known.contains(&name) {
                unlisted.push(name.to_string());
            }
        }
    }
    unlisted.sort();
    assert!(
        unlisted.is_empty(),
        "fixtures not checked by any test: {unlisted:?}"
    );
}

#[test]
fn base64_helper() {
    assert_eq!(base64_decode("").unwrap(), b"");
    assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
    assert_eq!(base64_decode("AAEC/w==").unwrap(), [0, 1, 2, 255]);
    assert_eq!(base64_decode("eA==").unwrap(), b"x");
}
