//! The zip store: opening an archive (central directory, entry names, prefixes), then
//! listing and reading every entry, and the dataset in it.
#![no_main]
use std::io::Write;

use libfuzzer_sys::fuzz_target;
use nczarr::formats::zarr::{ReadOptions, ZarrSource};
use nczarr::store::{ListableStore, ReadableStore, ZipStore};

fuzz_target!(|data: &[u8]| {
    // The store opens a path; a file in memory-backed /dev/shm where there is one.
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("nczarr-fuzz-{}.zip", std::process::id()));
    let written = std::fs::File::create(&path).and_then(|mut f| f.write_all(data));
    if written.is_err() {
        return;
    }
    if let Ok(store) = ZipStore::open(&path) {
        if let Ok(keys) = store.list() {
            for (k, _) in keys.iter().take(64) {
                let _ = store.get(k);
                let _ = store.size(k);
            }
        }
        if let Ok(source) = ZarrSource::open(Box::new(store), &ReadOptions::default()) {
            nczarr_fuzz::dump(&source);
        }
    }
    let _ = std::fs::remove_file(&path);
});
