//! Opening the store a dataset URL names.

use super::{DirStore, ReadStore, StoreError, TraceSink, TracingStore, ZipStore};
use crate::url::{DatasetUrl, StorageKind};

/// A store opened for reading, with what we learned while opening it.
pub struct OpenedStore {
    /// The store, rooted at the dataset.
    pub store: Box<dyn ReadStore>,
}

/// Open the store `url` names, for reading. With `trace`, every request is reported.
///
/// # Errors
/// [`StoreError`] when the dataset does not exist or cannot be opened.
pub fn open_read(url: &DatasetUrl, trace: Option<TraceSink>) -> Result<OpenedStore, StoreError> {
    let store: Box<dyn ReadStore> = match (url.storage, url.path()) {
        (StorageKind::Dir, Some(path)) => Box::new(DirStore::open(path)?),
        (StorageKind::Zip, Some(path)) => Box::new(ZipStore::open(path)?),
        _ => {
            return Err(StoreError::Archive {
                location: url.original.clone(),
                message: "S3 and HTTP stores are not available in this build yet".to_string(),
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
