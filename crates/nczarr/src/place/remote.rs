//! The store of a cloud URL (S3, GCS, Azure, its settings decided from the environment)
//! and of one remote object (an object or a web server's file), fetched whole or read by
//! byte ranges: what opening a dataset ([`super::open_read`]) and reading a reference
//! file's references ([`super::ReferenceStore`]) both need.

use crate::cloud::s3::{resolve, s3_store, AwsInputs};
use crate::cloud::{azure, gcs, CloudStore, HttpStore};
use crate::reach::Origin;
use crate::store::{
    ByteRange, RangedFile, ReadStore, StoreError, StoreKey, TraceSink, TracingStore, READ_AHEAD,
};
use crate::url::{DatasetUrl, StorageKind};

/// Connect to the S3 dataset `url` names, deciding profile, region, credentials and
/// endpoint from the environment (see [`crate::cloud::s3`]); the decisions are traced.
///
/// # Errors
/// [`StoreError::Settings`] naming the URL when the settings cannot be decided or the
/// client cannot be built.
pub fn open_s3(url: &DatasetUrl, trace: Option<&TraceSink>) -> Result<CloudStore, StoreError> {
    let inputs = AwsInputs::from_process();
    let settings = resolve(url, &inputs).map_err(|e| StoreError::Settings {
        location: url.original.clone(),
        message: e.to_string(),
    })?;
    if let Some(sink) = trace {
        for note in inputs.notes.iter().chain(&settings.decisions) {
            sink(&format!("s3: {note}"));
        }
    }
    s3_store(&settings)
}

/// Connect to the cloud dataset `url` names (S3, GCS or Azure), deciding its settings
/// from the environment; the decisions are traced. `write` says the store will be
/// written (GCS refuses that without credentials).
///
/// # Errors
/// [`StoreError::Settings`] naming the URL when the settings cannot be decided or the
/// client cannot be built, or for a URL that names no cloud store.
pub fn open_cloud(
    url: &DatasetUrl,
    trace: Option<&TraceSink>,
    write: bool,
) -> Result<CloudStore, StoreError> {
    let fail = |message: String| StoreError::Settings {
        location: url.original.clone(),
        message,
    };
    let note = |cloud: &str, decisions: &[String]| {
        if let Some(sink) = trace {
            for d in decisions {
                sink(&format!("{cloud}: {d}"));
            }
        }
    };
    match url.storage {
        StorageKind::S3 => open_s3(url, trace),
        StorageKind::Gcs => {
            let settings = gcs::resolve(url, &gcs::GcsInputs::from_process())
                .map_err(|e| fail(e.to_string()))?;
            note("gcs", &settings.decisions);
            if write {
                gcs::writable(&settings)?;
            }
            gcs::gcs_store(&settings)
        }
        StorageKind::Azure => {
            let settings = azure::resolve(url, &azure::AzureInputs::from_process())
                .map_err(|e| fail(e.to_string()))?;
            note("azure", &settings.decisions);
            azure::azure_store(&settings)
        }
        _ => Err(fail("not a cloud store URL (s3://, gs://, az://)".into())),
    }
}

/// A web URL as given, without the fragment (modes are ours, not the server's).
pub(super) fn web_base(url: &DatasetUrl) -> &str {
    url.original.split('#').next().unwrap_or(&url.original)
}

/// The store holding the one object `url` names (an S3, GCS or Azure object, or a
/// file on a web server), and where its requests go (the cloud's endpoint, or the web
/// URL): what a document fetched from it may make us reach ([`crate::reach`]).
///
/// A store opened for a reference of a reference file read from `reference_of` is
/// reached only where that file may lead ([`HttpStore::for_reference`]).
fn object_store(
    url: &DatasetUrl,
    trace: Option<&TraceSink>,
    local_error: &str,
    reference_of: Option<Origin>,
) -> Result<(Box<dyn ReadStore>, Origin), StoreError> {
    Ok(match url.storage {
        StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure => {
            let store = open_cloud(url, trace, false)?;
            let origin = Origin::of_address(store.endpoint());
            (Box::new(store), origin)
        }
        StorageKind::Http => {
            let base = web_base(url);
            let store = match reference_of {
                Some(origin) => HttpStore::for_reference(base, origin)?,
                None => HttpStore::new(base)?,
            };
            (Box::new(store), Origin::of_address(base))
        }
        StorageKind::Dir | StorageKind::Zip => {
            return Err(StoreError::Settings {
                location: url.original.clone(),
                message: local_error.into(),
            })
        }
    })
}

/// The whole object `url` names (an S3 object or a file on a web server) in one
/// request, and where it came from, or `None` when there is no such object: for small
/// files read whole (a reference file), from any server, whether it honours ranges or
/// not.
///
/// # Errors
/// [`StoreError`] when the server cannot be reached or refuses, and for a local URL.
pub fn fetch_object(url: &DatasetUrl) -> Result<Option<(Vec<u8>, Origin)>, StoreError> {
    let (store, origin) = object_store(url, None, "a local file is read directly", None)?;
    Ok(store.get(&StoreKey::root())?.map(|bytes| (bytes, origin)))
}

/// The object `url` names (an S3 object or a file on a web server) as a file read by
/// byte ranges (`#mode=bytes`), or `None` when there is no such object. One request
/// reads its first [`READ_AHEAD`] bytes (where every format's header starts) and,
/// in the answer, its length; with `trace`, every request is reported.
///
///
/// # Errors
/// [`StoreError`] when the server cannot be reached or refuses, and for a local URL.
pub fn open_ranged(
    url: &DatasetUrl,
    trace: Option<TraceSink>,
) -> Result<Option<RangedFile>, StoreError> {
    ranged(url, trace, None)
}

/// [`open_ranged`] for a reference of a reference file read from `origin`: reached only
/// where that file may lead ([`crate::reach`]).
pub(crate) fn open_ranged_reference(
    url: &DatasetUrl,
    origin: Origin,
) -> Result<Option<RangedFile>, StoreError> {
    ranged(url, None, Some(origin))
}

fn ranged(
    url: &DatasetUrl,
    trace: Option<TraceSink>,
    reference_of: Option<Origin>,
) -> Result<Option<RangedFile>, StoreError> {
    let (store, _) = object_store(
        url,
        trace.as_ref(),
        "byte-range reading is for remote files; a local file is read directly",
        reference_of,
    )?;
    let store = match trace {
        Some(sink) => {
            sink(&format!("open file at {} by byte ranges", store.location()));
            Box::new(TracingStore::new(store, sink)) as Box<dyn ReadStore>
        }
        None => store,
    };
    let root = StoreKey::root();
    // The length comes with the first read: asked for alone, it was a round trip
    // before any other request could start (a fifth of a point read's time at 20 ms
    // a request, half the requests of opening a few hundred files).
    let first = ByteRange::Bounded(0..READ_AHEAD);
    match store.get_range_sized(&root, &first) {
        Ok(None) => Ok(None),
        Ok(Some((head, len))) => Ok(Some(RangedFile::with_head(store, len, head))),
        // No range fits an empty object, and a server may refuse ranges: the size
        // alone then, and the reads say in their words what is wrong.
        Err(_) => Ok(store.size(&root)?.map(|len| RangedFile::new(store, len))),
    }
}
