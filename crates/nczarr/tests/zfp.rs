//! zfpy's streams decode to exactly the values zfpy decodes (`tests/data/zfp/make.py`
//! wrote both with the real zfpy): every scalar type, 1 to 4 dimensions, sizes that
//! are not multiples of 4, and each mode (accuracy, precision, rate, reversible).
//!
//! `NCZARR_ZFP_FIXTURES=DIR` checks another directory instead, such as the thousands of
//! random cases `make.py DIR --many N` writes.

use std::path::PathBuf;

use nczarr::codec::{ChunkInfo, Decoded, Pipeline};
use nczarr::json;

fn fixture_dir() -> PathBuf {
    match std::env::var_os("NCZARR_ZFP_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/zfp"),
    }
}

fn item_size(name: &str) -> usize {
    if name.starts_with("f4") || name.starts_with("i4") || name.contains("32_") {
        4
    } else {
        8
    }
}

fn first_difference(got: &[u8], want: &[u8], size: usize) -> String {
    if got.len() != want.len() {
        return format!("{} bytes, expected {}", got.len(), want.len());
    }
    let at = got
        .chunks(size)
        .zip(want.chunks(size))
        .position(|(g, w)| g != w)
        .unwrap_or(0);
    format!(
        "value {at} differs: {:02x?} expected {:02x?}",
        &got[at * size..(at + 1) * size],
        &want[at * size..(at + 1) * size]
    )
}

#[test]
fn zfpy_streams_decode_bit_for_bit() {
    let dir = fixture_dir();
    let codec = json::parse_str(r#"{"id": "zfpy", "mode": 4, "tolerance": 0.01}"#).unwrap();
    let pipeline = Pipeline::new(&[], Some(&codec)).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".zfp").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 18,
        "only {} fixtures in {}",
        names.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    for name in &names {
        let stream = std::fs::read(dir.join(format!("{name}.zfp"))).unwrap();
        let want = std::fs::read(dir.join(format!("{name}.raw"))).unwrap();
        let size = item_size(name);
        let info = ChunkInfo {
            item_size: size,
            max_decoded: want.len(),
        };
        match pipeline.decode(stream, &format!("{name}/0"), &info, want.len() / size) {
            Ok(Decoded::Bytes(got)) if got == want => {}
            Ok(Decoded::Bytes(got)) => {
                failures.push(format!("{name}: {}", first_difference(&got, &want, size)))
            }
            Ok(other) => failures.push(format!("{name}: decoded to {other:?}")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} zfp streams decode wrongly:\n  {}",
        failures.len(),
        names.len(),
        failures.join("\n  ")
    );
}

#[test]
fn damaged_zfp_streams_are_errors_not_panics() {
    let codec = json::parse_str(r#"{"id": "zfpy"}"#).unwrap();
    let pipeline = Pipeline::new(&[], Some(&codec)).unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/zfp");
    let stream = std::fs::read(dir.join("f4_2d_tol.zfp")).unwrap();
    let info = ChunkInfo {
        item_size: 4,
        max_decoded: 400,
    };
    let decode = |bytes: Vec<u8>, max: usize| {
        let info = ChunkInfo {
            max_decoded: max,
            ..info
        };
        pipeline.decode(bytes, "v/0", &info, max / 4)
    };
    // Cut short: inside the header, and inside the blocks.
    for cut in [0, 3, 10, stream.len() / 2] {
        let err = decode(stream[..cut].to_vec(), 400).unwrap_err().to_string();
        assert!(err.contains("v/0"), "{err}");
    }
    // Not zfp at all.
    let err = decode(b"not a zfp stream".to_vec(), 400)
        .unwrap_err()
        .to_string();
    assert!(err.contains("zfp"), "{err}");
    // A header claiming more values than the chunk holds.
    let err = decode(stream.clone(), 100).unwrap_err().to_string();
    assert!(err.contains("larger than the chunk"), "{err}");
    // Every single-bit flip decodes or fails; none panics.
    for bit in (0..stream.len() * 8).step_by(7) {
        let mut s = stream.clone();
        s[bit / 8] ^= 1 << (bit % 8);
        let _ = decode(s, 400);
    }
}
