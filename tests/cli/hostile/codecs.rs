//! Hostile chunks: decompression bombs, headers that claim huge sizes, truncated and
//! garbage bytes for every codec, vlen items that run past their buffer.

use std::io::Write;
use std::path::Path;

use super::{zarr, zarray, Case, Expect};

/// The stored bytes of a codec fixture (`crates/nczarr/tests/data/codecs`).
fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/nczarr/tests/data/codecs")
        .join(format!("{name}.bin"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A codec as a (dtype, values per chunk, compressor, filters) of its fixture.
struct Chain {
    fixture: &'static str,
    dtype: &'static str,
    n: u64,
    compressor: &'static str,
    filters: &'static str,
}

const CHAINS: &[Chain] = &[
    Chain {
        fixture: "zlib_1",
        dtype: "<i4",
        n: 1000,
        compressor: r#"{"id": "zlib", "level": 1}"#,
        filters: "null",
    },
    Chain {
        fixture: "gzip_5",
        dtype: "<f4",
        n: 1000,
        compressor: r#"{"id": "gzip", "level": 5}"#,
        filters: "null",
    },
    Chain {
        fixture: "zstd_3",
        dtype: "<i4",
        n: 1000,
        compressor: r#"{"id": "zstd", "level": 3}"#,
        filters: "null",
    },
    Chain {
        fixture: "bz2_9",
        dtype: "<f8",
        n: 600,
        compressor: r#"{"id": "bz2", "level": 9}"#,
        filters: "null",
    },
    Chain {
        fixture: "lz4_1",
        dtype: "<i4",
        n: 1000,
        compressor: r#"{"id": "lz4", "acceleration": 1}"#,
        filters: "null",
    },
    Chain {
        fixture: "blosc_lz4_shuffle",
        dtype: "<f4",
        n: 1000,
        compressor: r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
        filters: "null",
    },
    Chain {
        fixture: "blosc_zstd_bitshuffle",
        dtype: "<f4",
        n: 1000,
        compressor: r#"{"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}"#,
        filters: "null",
    },
    Chain {
        fixture: "shuffle_4",
        dtype: "<f4",
        n: 1000,
        compressor: "null",
        filters: r#"[{"id": "shuffle", "elementsize": 4}]"#,
    },
    Chain {
        fixture: "delta_i4",
        dtype: "<i4",
        n: 1000,
        compressor: "null",
        filters: r#"[{"id": "delta", "dtype": "<i4"}]"#,
    },
    Chain {
        fixture: "fletcher32_i4",
        dtype: "<i4",
        n: 1000,
        compressor: "null",
        filters: r#"[{"id": "fletcher32"}]"#,
    },
    Chain {
        fixture: "crc32",
        dtype: "<i4",
        n: 1000,
        compressor: "null",
        filters: r#"[{"id": "crc32"}]"#,
    },
    Chain {
        fixture: "vlen_utf8",
        dtype: "|O",
        n: 9,
        compressor: "null",
        filters: r#"[{"id": "vlen-utf8"}]"#,
    },
    Chain {
        fixture: "vlen_bytes",
        dtype: "|O",
        n: 6,
        compressor: "null",
        filters: r#"[{"id": "vlen-bytes"}]"#,
    },
];

/// nczdump of a one-chunk variable stored with `chain`, whose chunk is `bytes`.
fn chunk_case(
    class: &'static str,
    name: &'static str,
    chain: &'static Chain,
    expect: Expect,
    bytes: impl Fn() -> Vec<u8> + 'static,
) -> Case {
    Case::dump_store(class, name, expect, move |d| {
        let za = zarray(
            chain.n,
            chain.n,
            chain.dtype,
            chain.compressor,
            chain.filters,
        );
        let b = bytes();
        zarr(d, &za, None, &[("0", b.as_slice())]);
    })
}

fn chain(fixture: &str) -> &'static Chain {
    CHAINS
        .iter()
        .find(|c| c.fixture == fixture)
        .expect("known chain")
}

/// `len` zero bytes compressed by `compress` as it writes them, 1 MiB at a time.
fn bomb<W: Write>(mut w: W, len: usize) -> W {
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..len >> 20 {
        w.write_all(&zeros).expect("compress");
    }
    w
}

/// 256 MiB of zeros: far past the 4,000-byte chunk every bomb claims to be.
const BOMB: usize = 256 << 20;

fn zlib_bomb() -> Vec<u8> {
    let w = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    bomb(w, BOMB).finish().expect("zlib")
}

fn gzip_bomb() -> Vec<u8> {
    let w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    bomb(w, BOMB).finish().expect("gzip")
}

fn zstd_bomb() -> Vec<u8> {
    let w = zstd::stream::write::Encoder::new(Vec::new(), 19).expect("zstd");
    bomb(w, BOMB).finish().expect("zstd")
}

fn bz2_bomb() -> Vec<u8> {
    let w = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    bomb(w, 32 << 20).finish().expect("bz2")
}

/// numcodecs' LZ4: the decoded size (u32, little-endian), then an LZ4 block.
fn lz4_claiming(size: u32) -> Vec<u8> {
    let mut v = size.to_le_bytes().to_vec();
    v.extend_from_slice(&[0x1f, 0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x50, 0, 0, 0, 0, 0]);
    v
}

/// A blosc header (16 bytes) claiming `nbytes` decoded from `cbytes` stored, with a
/// body of `body` bytes.
fn blosc_claiming(nbytes: u32, blocksize: u32, cbytes: u32, body: usize) -> Vec<u8> {
    let mut v = vec![2, 1, 0x01, 4];
    v.extend_from_slice(&nbytes.to_le_bytes());
    v.extend_from_slice(&blocksize.to_le_bytes());
    v.extend_from_slice(&cbytes.to_le_bytes());
    v.extend(std::iter::repeat_n(0xAB, body));
    v
}

/// vlen items: a count, then (length, bytes) pairs, as numcodecs writes them.
fn vlen(count: u32, items: &[(u32, &[u8])]) -> Vec<u8> {
    let mut v = count.to_le_bytes().to_vec();
    for (len, bytes) in items {
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(bytes);
    }
    v
}

pub fn cases() -> Vec<Case> {
    use Expect::{Fails, Succeeds};
    let mut cases = vec![
        chunk_case("bomb", "zlib: 256 MiB of zeros for a 4 KB chunk", chain("zlib_1"), Fails("s.zarr: variable '/v': codec 'zlib' failed on chunk 'v/0': decodes to more than the 4000 bytes a chunk of this"), zlib_bomb),
        chunk_case("bomb", "gzip: 256 MiB of zeros", chain("gzip_5"), Fails("s.zarr: variable '/v': codec 'gzip' failed on chunk 'v/0': decodes to more than the 4000 bytes a chunk of this"), gzip_bomb),
        chunk_case("bomb", "zstd: 256 MiB of zeros", chain("zstd_3"), Fails("s.zarr: variable '/v': codec 'zstd' failed on chunk 'v/0': decodes to more than the 4000 bytes a chunk of this"), zstd_bomb),
        chunk_case("bomb", "bz2: 32 MiB of zeros", chain("bz2_9"), Fails("s.zarr: variable '/v': codec 'bz2' failed on chunk 'v/0': decodes to more than the 4800 bytes a chunk of this "), bz2_bomb),
        chunk_case("bomb", "lz4 header claims 4 GiB", chain("lz4_1"), Fails("s.zarr: variable '/v': codec 'lz4' failed on chunk 'v/0': lz4 header claims 4294967295 bytes, more than a chun"), || lz4_claiming(u32::MAX)),
        chunk_case("bomb", "lz4 header claims more than the chunk", chain("lz4_1"), Fails("s.zarr: variable '/v': codec 'lz4' failed on chunk 'v/0': lz4 header claims 4001 bytes, more than a chunk hold"), || lz4_claiming(4001)),
        chunk_case("bomb", "blosc header claims 2 GiB", chain("blosc_lz4_shuffle"), Fails("s.zarr: variable '/v': codec 'blosc' failed on chunk 'v/0': corrupt blosc buffer: the header does not validate"), || blosc_claiming(0x8000_0000, 0x8000_0000, 116, 100)),
        chunk_case("bomb", "blosc header claims a tiny block size", chain("blosc_lz4_shuffle"), Fails("s.zarr: variable '/v': codec 'blosc' failed on chunk 'v/0': corrupt blosc data: the decompressor returned -1"), || blosc_claiming(4000, 1, 1000, 984)),
        chunk_case("bomb", "blosc stored size past the chunk", chain("blosc_lz4_shuffle"), Fails("s.zarr: variable '/v': codec 'blosc' failed on chunk 'v/0': corrupt blosc buffer: the header does not validate"), || blosc_claiming(4000, 4000, u32::MAX, 100)),
        chunk_case("vlen", "count past the buffer", chain("vlen_utf8"), Fails("s.zarr: variable '/v': codec 'vlen-utf8' failed on chunk 'v/0': chunk too short to hold the vlen items its hea"), || vlen(9, &[(1, b"a")])),
        chunk_case("vlen", "count 2^32-1", chain("vlen_utf8"), Fails("s.zarr: variable '/v': codec 'vlen-utf8' failed on chunk 'v/0': vlen buffer holds 4294967295 items, the chunk "), || vlen(u32::MAX, &[(1, b"a")])),
        chunk_case("vlen", "item length past the buffer", chain("vlen_utf8"), Fails("s.zarr: variable '/v': codec 'vlen-utf8' failed on chunk 'v/0': chunk too short to hold the vlen items its hea"), || {
            let mut items = vec![(1u32, b"a".as_slice()); 8];
            items.push((1 << 30, b"b"));
            vlen(9, &items)
        }),
        chunk_case("vlen", "item length 2^32-1", chain("vlen_bytes"), Fails("s.zarr: variable '/v': codec 'vlen-bytes' failed on chunk 'v/0': chunk too short to hold the vlen items its he"), || vlen(6, &[(u32::MAX, b"x")])),
        chunk_case("vlen", "header cut short", chain("vlen_utf8"), Fails("s.zarr: variable '/v': codec 'vlen-utf8' failed on chunk 'v/0': chunk too short to hold the vlen items its hea"), || vec![9, 0]),
        chunk_case("vlen", "count disagrees with the chunk", chain("vlen_utf8"), Fails("s.zarr: variable '/v': codec 'vlen-utf8' failed on chunk 'v/0': vlen buffer holds 2 items, the chunk has 9"), || vlen(2, &[(1, b"a"), (1, b"b")])),
        chunk_case("vlen", "invalid UTF-8 in a vlen-utf8 item", chain("vlen_utf8"), Succeeds("v = "), || {
            let mut items = vec![(1u32, b"a".as_slice()); 8];
            items.push((2, b"\xff\xfe"));
            vlen(9, &items)
        }),
    ];
    for c in CHAINS {
        cases.push(chunk_case(
            "truncated",
            c.fixture,
            c,
            damaged("truncated", c.fixture),
            || {
                let mut b = fixture(c.fixture);
                b.truncate(b.len() / 2);
                b
            },
        ));
        cases.push(chunk_case(
            "garbage",
            c.fixture,
            c,
            damaged("garbage", c.fixture),
            || {
                let b = fixture(c.fixture);
                // Same length, every byte changed: headers and checksums both wrong.
                b.iter()
                    .enumerate()
                    .map(|(i, x)| x ^ (0x5A ^ (i as u8)))
                    .collect()
            },
        ));
    }
    cases
}

/// How a damaged chunk of a fixture reads: the codec or the size check says what is
/// wrong; filters with no check of their own (shuffle, delta) decode garbage to values.
fn damaged(class: &str, fixture: &str) -> Expect {
    match (class, fixture) {
        ("truncated", "zlib_1") => Expect::Fails("variable '/v': codec 'zlib' failed on chunk 'v/0': corrupt zlib stream: incomplete deflate stream"),
        ("garbage", "zlib_1") => Expect::Fails("variable '/v': codec 'zlib' failed on chunk 'v/0': corrupt zlib stream: corrupt deflate stream"),
        ("truncated", "gzip_5") => Expect::Fails("variable '/v': codec 'gzip' failed on chunk 'v/0': corrupt gzip data: incomplete deflate stream"),
        ("garbage", "gzip_5") => Expect::Fails("variable '/v': codec 'gzip' failed on chunk 'v/0': corrupt gzip data: invalid gzip header"),
        ("truncated", "zstd_3") => Expect::Fails("variable '/v': codec 'zstd' failed on chunk 'v/0': corrupt zstd data: incomplete frame"),
        ("garbage", "zstd_3") => Expect::Fails("variable '/v': codec 'zstd' failed on chunk 'v/0': corrupt zstd data: Unknown frame descriptor"),
        ("truncated", "bz2_9") => Expect::Fails("variable '/v': codec 'bz2' failed on chunk 'v/0': corrupt bzip2 data: decompression not finished but"),
        ("garbage", "bz2_9") => Expect::Fails("variable '/v': codec 'bz2' failed on chunk 'v/0': corrupt bzip2 data: bzip2: bz2 header missing"),
        ("truncated", "lz4_1") => Expect::Fails("variable '/v': codec 'lz4' failed on chunk 'v/0': corrupt lz4 block: expected another byte, found no"),
        ("garbage", "lz4_1") => Expect::Fails("variable '/v': codec 'lz4' failed on chunk 'v/0': lz4 header claims 1498961146 bytes, more than a ch"),
        ("truncated", "blosc_lz4_shuffle") => Expect::Fails("variable '/v': codec 'blosc' failed on chunk 'v/0': corrupt blosc buffer: the header does not valida"),
        ("garbage", "blosc_lz4_shuffle") => Expect::Fails("variable '/v': codec 'blosc' failed on chunk 'v/0': corrupt blosc buffer: the header does not valida"),
        ("truncated", "blosc_zstd_bitshuffle") => Expect::Fails("variable '/v': codec 'blosc' failed on chunk 'v/0': corrupt blosc buffer: the header does not valida"),
        ("garbage", "blosc_zstd_bitshuffle") => Expect::Fails("variable '/v': codec 'blosc' failed on chunk 'v/0': corrupt blosc buffer: the header does not valida"),
        ("truncated", "shuffle_4") => Expect::Fails("variable '/v', chunk 'v/0': chunk holds 2000 bytes, expected 4000 (1000 elements of <f4); truncated "),
        ("garbage", "shuffle_4") => Expect::Succeeds("v ="),
        ("truncated", "delta_i4") => Expect::Fails("variable '/v', chunk 'v/0': chunk holds 2000 bytes, expected 4000 (1000 elements of <i4); truncated "),
        ("garbage", "delta_i4") => Expect::Succeeds("v ="),
        ("truncated", "fletcher32_i4") => Expect::Fails("variable '/v': codec 'fletcher32' failed on chunk 'v/0': fletcher32 checksum mismatch (stored 0x000d"),
        ("garbage", "fletcher32_i4") => Expect::Fails("variable '/v': codec 'fletcher32' failed on chunk 'v/0': fletcher32 checksum mismatch (stored 0xef31"),
        ("truncated", "crc32") => Expect::Fails("variable '/v': codec 'crc32' failed on chunk 'v/0': crc32 checksum mismatch (stored 0xefd2d2c7, comp"),
        ("garbage", "crc32") => Expect::Fails("variable '/v': codec 'crc32' failed on chunk 'v/0': crc32 checksum mismatch (stored 0xb68a899d, comp"),
        ("truncated", "vlen_utf8") => Expect::Fails("variable '/v': codec 'vlen-utf8' failed on chunk 'v/0': chunk too short to hold the vlen items its h"),
        ("garbage", "vlen_utf8") => Expect::Fails("variable '/v': codec 'vlen-utf8' failed on chunk 'v/0': vlen buffer holds 1498962771 items, the chun"),
        ("truncated", "vlen_bytes") => Expect::Fails("variable '/v': codec 'vlen-bytes' failed on chunk 'v/0': chunk too short to hold the vlen items its "),
        ("garbage", "vlen_bytes") => Expect::Fails("variable '/v': codec 'vlen-bytes' failed on chunk 'v/0': vlen buffer holds 1498962780 items, the chu"),
        _ => panic!("no expectation for {class} {fixture}"),
    }
}
