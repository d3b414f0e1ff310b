//! Dataset names: the URL and `#mode=` fragment parser, the S3 address and settings
//! resolution, and building the cloud client (object_store parses hosts and
//! endpoints: a panic there on our input must be guarded before the call). No
//! request is made: clients are built, never used.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nczarr::url::{DatasetUrl, StorageKind};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(url) = DatasetUrl::parse(text) else {
        return;
    };
    let _ = url.path();
    let _ = url.base_name();
    let _ = url.modes.pure_zarr();
    let _ = url.modes.zarr3();
    let _ = url.dap();
    let _ = url.web_base();
    if url.storage == StorageKind::S3 {
        if let Ok(address) = nczarr::cloud::s3::S3Address::from_url(&url) {
            let _ = address;
        }
    }
    if matches!(
        url.storage,
        StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure
    ) {
        let _ = nczarr::place::open_cloud(&url, None, false);
    }
    if url.storage == StorageKind::Http {
        let _ = nczarr::cloud::http::HttpStore::new(&url.original);
    }
});
