//! A whole store from one input (keys and values, see `unpack_store`): the NCZarr,
//! Zarr v2 and Zarr v3 readers, consolidated metadata, chunks and codecs, read the
//! three ways the `#mode=` flags ask for.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nczarr::formats::zarr::{ReadOptions, ZarrSource};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, packed)) = data.split_first() else {
        return;
    };
    let store = nczarr_fuzz::unpack_store(packed);
    let options = ReadOptions {
        force_pure_zarr: mode & 1 != 0,
        ignore_xarray_dims: mode & 2 != 0,
        force_v3: mode & 4 != 0,
        batch_bytes: Some(1 << 16),
        ..ReadOptions::default()
    };
    if let Ok(source) = ZarrSource::open(Box::new(store), &options) {
        nczarr_fuzz::dump(&source);
    }
});
