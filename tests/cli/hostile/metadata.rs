//! Hostile metadata: shapes and chunk sizes past every limit, absurd dtypes and fill
//! values, JSON nested deep, huge strings, duplicate keys, bytes that are not UTF-8.

use super::{put, zarr, Case, Expect};

/// nczdump of the store `s.zarr` whose `.zarray` is `zarray`.
fn dump_zarray(class: &'static str, name: &'static str, zarray: String, expect: Expect) -> Case {
    Case::dump_store(class, name, expect, move |d| {
        zarr(d, &zarray, None, &[]);
    })
}

/// A `.zarray` with this shape and these chunks (JSON text) of `<i4`.
fn shaped(shape: &str, chunks: &str) -> String {
    format!(
        r#"{{"zarr_format": 2, "shape": {shape}, "chunks": {chunks}, "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}}"#
    )
}

/// A `.zarray` of 4 elements with this dtype and fill value (JSON text).
fn typed(dtype: &str, fill: &str) -> String {
    format!(
        r#"{{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": {dtype}, "fill_value": {fill}, "order": "C", "compressor": null, "filters": null}}"#
    )
}

/// `depth` opening brackets, a value, and the closing ones.
fn nested(open: &str, inner: &str, close: &str, depth: usize) -> String {
    format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
}

pub fn cases() -> Vec<Case> {
    use Expect::{Fails, Succeeds};
    let ones33 = format!("[{}]", vec!["1"; 33].join(","));
    let ones1000 = format!("[{}]", vec!["1"; 1000].join(","));
    vec![
        // Shapes and chunk sizes.
        dump_zarray("shape", "product of the shape overflows u64", shaped("[4294967296, 4294967296, 65536]", "[1, 1, 1]"), Fails("means more than 2^48 chunks; variable skipped")),
        dump_zarray("shape", "chunk product overflows u64", shaped("[8]", "[18446744073709551615]"), Fails("key 'v/.zarray': chunks [18446744073709551615] of 4-byte values are larger than 4 GiB each")),
        dump_zarray("shape", "negative length", shaped("[-1]", "[1]"), Fails("\"shape\" holds -1, not a non-negative integer")),
        dump_zarray("shape", "negative chunk", shaped("[4]", "[-2]"), Fails("\"chunks\" holds -2, not a non-negative integer")),
        dump_zarray("shape", "zero chunk", shaped("[4]", "[0]"), Fails("chunk size 0 in dimension 0")),
        dump_zarray("shape", "fractional length", shaped("[2.5]", "[1]"), Fails("\"shape\" holds 2.5, not a non-negative integer")),
        dump_zarray("shape", "length 1e18 as a float", shaped("[1e18]", "[1000]"), Fails("means more than 2^48 chunks")),
        dump_zarray("shape", "length 2^64-1", shaped("[18446744073709551615]", "[1]"), Fails("means more than 2^48 chunks")),
        dump_zarray("shape", "length 2^70", shaped("[1180591620717411303424]", "[1]"), Fails("holds 1180591620717411303424, not a non-negative integer")),
        dump_zarray("shape", "length 1e999", shaped("[1e999]", "[1]"), Fails("\"shape\" holds \"Infinity\", not a non-negative integer")),
        dump_zarray("shape", "rank 33", shaped(&ones33, &ones33), Succeeds("int v(_Anonymous_Dim_1, _Anonymous_Dim_1, _Anonymous_Dim_1,")),
        dump_zarray("shape", "rank 1000", shaped(&ones1000, &ones1000), Fails("longer than S3's 1024-byte limit")),
        dump_zarray("shape", "chunk of 16 GiB over 4 values", shaped("[4]", "[4294967296]"), Fails("chunks [4294967296] of 4-byte values are larger than 4 GiB each (HDF5's limit; a chunk is held whole in memory); variable skipped")),
        dump_zarray("shape", "shape is a string", shaped("\"4\"", "[1]"), Fails("missing or non-array \"shape\"")),
        Case::new("shape", "10^10 values and no chunks: header", "nczdump", &["-h", "{dir}/s.zarr"],
            Succeeds("int v(_Anonymous_Dim_10000000000) ;"), |d| zarr(d, &shaped("[10000000000]", "[1000000]"), None, &[])),
        // dtypes and fill values.
        dump_zarray("dtype", "string of 10^11 bytes", typed("\"|S99999999999\"", "null"), Fails("chunks [4] of 99999999999-byte values are larger than 4 GiB")),
        dump_zarray("dtype", "string of no bytes", typed("\"|S0\"", "null"), Fails("unsupported Zarr dtype '|S0': zero-length byte strings hold nothing")),
        dump_zarray("dtype", "negative unicode size", typed("\"<U-1\"", "null"), Fails("unsupported Zarr dtype '<U-1': bad size")),
        dump_zarray("dtype", "unknown kind", typed("\"<q9\"", "null"), Fails("unsupported Zarr dtype '<q9': unknown kind")),
        dump_zarray("dtype", "structured with 100,000 fields", typed(&format!("[{}]", vec![r#"["a", "<i4"]"#; 100_000].join(",")), "null"), Fails("structured dtypes have no netCDF type")),
        dump_zarray("dtype", "fill value of another type", typed("\"<i4\"", "\"abc\""), Fails("fill_value \"abc\" does not fit dtype <i4: not an integer")),
        dump_zarray("dtype", "fill value 20 MB of base64", typed("\"|S4\"", &format!("\"{}\"", "A".repeat(20 << 20))), Succeeds("v = _, _, _, _ ;")),
        // JSON.
        dump_zarray("json", ".zarray nested 100,000 deep", nested("[", "1", "]", 100_000), Fails("key 'v/.zarray': JSON nested too deeply at line 1 column 257")),
        Case::new("json", ".zattrs nested 100,000 deep", "nczdump", &["{dir}/s.zarr"], Fails("key 'v/.zattrs': JSON nested too deeply"), |d| {
            zarr(d, &shaped("[2]", "[2]"), None, &[]);
            put(d, "s.zarr/v/.zattrs", format!("{{\"a\": {}}}", nested("{\"b\": ", "1", "}", 100_000)));
        }),
        Case::new("json", ".zgroup nested 1,000,000 deep", "nczdump", &["{dir}/s.zarr"], Fails("key '.zgroup': JSON nested too deeply at line 1 column 257"), |d| {
            put(d, "s.zarr/.zgroup", nested("[", "", "]", 1_000_000));
        }),
        Case::new("json", "string attribute of 20 MB", "nczdump", &["-h", "{dir}/s.zarr"], Succeeds("v:big = \"xxxx"), |d| {
            zarr(d, &shaped("[2]", "[2]"), None, &[]);
            put(d, "s.zarr/v/.zattrs", format!("{{\"big\": \"{}\"}}", "x".repeat(20 << 20)));
        }),
        Case::new("json", "attribute of 10^6 numbers", "nczdump", &["-h", "{dir}/s.zarr"], Succeeds("v:many = 0, 1, 2"), |d| {
            zarr(d, &shaped("[2]", "[2]"), None, &[]);
            let list: Vec<String> = (0..1_000_000).map(|i| i.to_string()).collect();
            put(d, "s.zarr/v/.zattrs", format!("{{\"many\": [{}]}}", list.join(",")));
        }),
        dump_zarray("json", "duplicate keys", r#"{"zarr_format": 2, "shape": [2], "shape": [3], "chunks": [2], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#.into(), Succeeds("_Anonymous_Dim_3 = 3 ;")),
        Case::new("json", "invalid UTF-8 in a key", "nczdump", &["{dir}/s.zarr"], Succeeds(" = 1 ;"), |d| {
            zarr(d, &shaped("[2]", "[2]"), None, &[]);
            put(d, "s.zarr/v/.zattrs", b"{\"a\xff\xfe\": 1}");
        }),
        Case::new("json", "lone surrogate in a string", "nczdump", &["-h", "{dir}/s.zarr"], Succeeds("v:a = \"x\u{fffd}y\" ;"), |d| {
            zarr(d, &shaped("[2]", "[2]"), None, &[]);
            put(d, "s.zarr/v/.zattrs", r#"{"a": "x\ud800y"}"#);
        }),
        dump_zarray("json", "truncated", r#"{"zarr_format": 2, "shape": [2"#.into(), Fails("expected ',' or ']' at line 1 column 31")),
        dump_zarray("json", "empty", String::new(), Fails("unexpected end of JSON text at line 1 column 1")),
        dump_zarray("json", "NUL byte", "{\"zarr_format\": 2,\0 \"shape\": [2]}".into(), Fails("expected a string key at line 1 column 19")),
        dump_zarray("json", "an array, not an object", "[1, 2, 3]".into(), Fails("expected a JSON object, found array")),
        dump_zarray("json", "byte order mark", "\u{feff}{}".into(), Fails("missing or non-integer \"zarr_format\"")),
        dump_zarray("json", "10^6 members", format!("{{{}}}", (0..1_000_000).map(|i| format!("\"k{i}\": {i}")).collect::<Vec<_>>().join(",")), Fails("missing or non-integer \"zarr_format\"")),
    ]
}
