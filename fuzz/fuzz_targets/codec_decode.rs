//! Every codec's decode on hostile bytes, with a declared output size: zlib, gzip,
//! zstd, lz4, bz2, blosc (each inner compressor), shuffle, delta, fletcher32, the
//! checksums and the vlen object codecs, alone and in the chains netcdf-c and
//! zarr-python write. A decode fails or gives at most the declared size.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nczarr::codec::{ChunkInfo, Decoded, Pipeline};

/// (filters, compressor) as JSON.
const CHAINS: &[(&str, &str)] = &[
    ("[]", r#"{"id": "zlib", "level": 1}"#),
    ("[]", r#"{"id": "gzip", "level": 1}"#),
    ("[]", r#"{"id": "zstd", "level": 1}"#),
    ("[]", r#"{"id": "lz4", "acceleration": 1}"#),
    ("[]", r#"{"id": "bz2", "level": 1}"#),
    ("[]", r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#),
    ("[]", r#"{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 2, "blocksize": 0}"#),
    ("[]", r#"{"id": "blosc", "cname": "zlib", "clevel": 5, "shuffle": 0, "blocksize": 0}"#),
    ("[]", r#"{"id": "blosc", "cname": "blosclz", "clevel": 5, "shuffle": 1, "blocksize": 0}"#),
    ("[]", r#"{"id": "blosc", "cname": "lz4hc", "clevel": 5, "shuffle": 1, "blocksize": 0}"#),
    (r#"[{"id": "shuffle", "elementsize": 4}]"#, "null"),
    (r#"[{"id": "delta", "dtype": "<i4"}]"#, "null"),
    (r#"[{"id": "delta", "dtype": "<f8", "astype": "<f8"}]"#, "null"),
    (r#"[{"id": "fletcher32"}]"#, "null"),
    (r#"[{"id": "crc32"}]"#, "null"),
    (r#"[{"id": "crc32c"}]"#, "null"),
    (r#"[{"id": "adler32"}]"#, "null"),
    (r#"[{"id": "vlen-utf8"}]"#, "null"),
    (r#"[{"id": "vlen-bytes"}]"#, "null"),
    (r#"[{"id": "vlen-utf8"}]"#, r#"{"id": "zstd", "level": 1}"#),
    (r#"[{"id": "shuffle", "elementsize": 2}]"#, r#"{"id": "zlib", "level": 1}"#),
    (r#"[{"id": "shuffle", "elementsize": 8}, {"id": "fletcher32"}]"#, r#"{"id": "zlib", "level": 1}"#),
];

fuzz_target!(|data: &[u8]| {
    let [pick, item, m0, m1, items, stored @ ..] = data else {
        return;
    };
    let (filters, compressor) = CHAINS[usize::from(*pick) % CHAINS.len()];
    let Ok(filters) = nczarr::json::parse_str(filters) else {
        return;
    };
    let Ok(compressor) = nczarr::json::parse_str(compressor) else {
        return;
    };
    let filters = filters.as_array().unwrap_or(&[]).to_vec();
    let compressor = (!matches!(compressor, nczarr::json::Json::Null)).then_some(&compressor);
    let Ok(pipeline) = Pipeline::new(&filters, compressor) else {
        return;
    };
    let max_decoded = usize::from(u16::from_le_bytes([*m0, *m1])) * 16;
    let info = ChunkInfo {
        item_size: [1, 2, 4, 8][usize::from(*item) % 4],
        max_decoded,
    };
    // Filters that keep the size (shuffle, delta) may give back as many bytes as they
    // were given: nothing is inflated. No codec may give more than both.
    let bound = max_decoded.max(stored.len());
    match pipeline.decode(stored.to_vec(), "fuzz/0", &info, usize::from(*items)) {
        Ok(Decoded::Bytes(b)) => assert!(
            b.len() <= bound,
            "decoded {} bytes from {}, {max_decoded} declared",
            b.len(),
            stored.len()
        ),
        Ok(Decoded::Items(_)) | Err(_) => {}
    }
});
