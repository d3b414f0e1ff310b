//! One metadata document at a time in an otherwise valid store: `.zgroup`, `.zattrs`,
//! `.zarray`, `.zmetadata`, NCZarr's `.nczgroup`/`.nczarray`/`.nczattr`/`.nczarr` and
//! Zarr v3's `zarr.json`, of the root group, a subgroup or a variable. The first byte
//! picks the key, the rest is its document: the fuzzer spends its time in the
//! metadata readers instead of building stores.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nczarr::formats::zarr::{ReadOptions, ZarrSource};

/// Keys of `nczarr_fuzz::skeleton` that a document may replace.
const KEYS: &[&str] = &[
    ".zgroup",
    ".zattrs",
    ".zmetadata",
    ".nczgroup",
    ".nczarr",
    "v/.zarray",
    "v/.zattrs",
    "v/.nczarray",
    "v/.nczattr",
    "g/.zgroup",
    "g/.zattrs",
    "g/.nczgroup",
    "g/w/.zarray",
    "g/w/.zattrs",
    "zarr.json",
    "v/zarr.json",
    "g/zarr.json",
    "v/0",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, doc)) = data.split_first() else {
        return;
    };
    let key = KEYS[usize::from(pick) % KEYS.len()];
    let v3 = usize::from(pick / 64) % 2 == 1;
    let store = nczarr_fuzz::skeleton(v3);
    let _ = store.insert_str(key, doc.to_vec());
    let options = ReadOptions {
        force_v3: key.ends_with("zarr.json"),
        ..ReadOptions::default()
    };
    if let Ok(source) = ZarrSource::open(Box::new(store), &options) {
        nczarr_fuzz::dump(&source);
    }
});
