//! Opening the store a dataset URL names, for reading.

use super::remote::{open_cloud, web_base};
use crate::cloud::HttpStore;
use crate::reach::ReferenceOptions;
use crate::store::{DirStore, ReadStore, StoreError, TraceSink, TracingStore, ZipStore};
use crate::url::{DatasetUrl, StorageKind};

/// A store opened for reading, with what we learned while opening it.
pub struct OpenedStore {
    /// The store, rooted at the dataset.
    pub store: Box<dyn ReadStore>,
}

/// Open the store `url` names, for reading. With `trace`, every request is reported;
/// `refs` says what a kerchunk reference file read over the network may name beyond
/// [`crate::reach`]'s rules.
///
/// # Errors
/// [`StoreError`] when the dataset does not exist or cannot be opened;
/// [`StoreError::ReferenceRefused`] for a reference file naming what it may not.
pub fn open_read(
    url: &DatasetUrl,
    trace: Option<TraceSink>,
    refs: ReferenceOptions,
) -> Result<OpenedStore, StoreError> {
    // An Icechunk repository: the Zarr keys of the version the name chooses.
    if url.modes.has("icechunk")
        || url
            .path()
            .is_some_and(crate::place::icechunk::is_repository_dir)
    {
        use crate::place::icechunk::{open_repository, IcechunkStore, Version};
        let version = Version::from_url(url)?;
        let refs = refs.for_url(url).map_err(|message| StoreError::Settings {
            location: url.original.clone(),
            message,
        })?;
        let repo = open_repository(url, trace.as_ref())?;
        return Ok(OpenedStore {
            store: Box::new(IcechunkStore::reader(&repo, &version, refs)?),
        });
    }
    let store: Box<dyn ReadStore> = match (url.storage, url.path()) {
        // A zip archive by its bytes whatever its name (`open` refuses other files).
        // kerchunk's references, else a zip archive by its bytes whatever its name.
        (StorageKind::Dir, Some(path))
            if path.is_file()
                && (url.modes.has("kerchunk") || super::starts_like_references(path)) =>
        {
            Box::new(super::ReferenceStore::open(path)?)
        }
        (StorageKind::Dir, Some(path)) if path.is_file() => Box::new(ZipStore::open(path)?),
        (_, None) if url.modes.has("kerchunk") || super::names_a_json_object(url) => {
            match super::ReferenceStore::open_remote(url, refs)? {
                Some(refs) => Box::new(refs),
                None => return Err(StoreError::Settings {
                    location: url.original.clone(),
                    message:
                        "not kerchunk's references (a JSON object naming \"refs\" or \"version\")"
                            .into(),
                }),
            }
        }
        (StorageKind::Dir, Some(path)) => Box::new(DirStore::open(path)?),
        (StorageKind::Zip, Some(path)) => Box::new(ZipStore::open(path)?),
        (StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure, _) => {
            Box::new(open_cloud(url, trace.as_ref(), false)?)
        }
        (StorageKind::Http, _) => Box::new(HttpStore::new(web_base(url))?),
        (_, None) => {
            return Err(StoreError::Settings {
                location: url.original.clone(),
                message: "a remote URL needs mode=s3 (or an s3:// or *.amazonaws.com URL)"
                    .to_string(),
            })
        }
    };
    let store = match trace {
        Some(sink) => {
            sink(&format!(
                "open {:?} store at {}",
                url.storage,
                store.location()
            ));
            Box::new(TracingStore::new(store, sink)) as Box<dyn ReadStore>
        }
        None => store,
    };
    Ok(OpenedStore { store })
}
