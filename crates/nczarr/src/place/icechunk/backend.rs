//! An Icechunk repository in a cloud bucket, reached through the same `object_store`
//! client as every other dataset there: the client our cloud settings built (profile,
//! region, endpoint, credentials, anonymous access, the redirect policy), handed to
//! Icechunk as one of its storage backends. Icechunk builds its backends from their
//! serialised form only, so the client waits in a registry under a number that the
//! serialised backend carries.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use icechunk::storage::{ObjectStoreBackend, Role, Settings, StorageError, StorageInfo};
use object_store::ObjectStore;

/// The clients handed to Icechunk, by number. A handful per run (one per repository
/// opened), kept for the run.
fn registry() -> &'static Mutex<HashMap<u64, Arc<dyn ObjectStore>>> {
    static CLIENTS: OnceLock<Mutex<HashMap<u64, Arc<dyn ObjectStore>>>> = OnceLock::new();
    CLIENTS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Our client as an Icechunk backend: the registry's number and the repository's
/// prefix in the bucket.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct SharedClient {
    id: u64,
    prefix: String,
    /// `s3://bucket/prefix`, for Icechunk's messages.
    location: String,
}

impl std::fmt::Display for SharedClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.location)
    }
}

#[typetag::serde(name = "nczarr_shared_client")]
impl ObjectStoreBackend for SharedClient {
    fn mk_object_store(
        &self,
        _settings: &Settings,
        _role: Role,
    ) -> Result<Arc<dyn ObjectStore>, StorageError> {
        let found = registry()
            .lock()
            .ok()
            .and_then(|clients| clients.get(&self.id).cloned());
        found.ok_or_else(|| {
            StorageError::capture(icechunk::storage::StorageErrorKind::Other(format!(
                "{}: no client (an Icechunk storage of this run only)",
                self.location
            )))
        })
    }

    fn prefix(&self) -> String {
        self.prefix.clone()
    }

    // S3, GCS and Azure list keys in order, from an offset, on the server.
    fn ordered_offset_listing(&self) -> bool {
        true
    }

    fn storage_info(&self) -> StorageInfo {
        StorageInfo {
            backend_type: "nczarr-tools object_store client",
            fields: vec![("location", self.location.clone())],
        }
    }

    fn default_settings(&self) -> Settings {
        Settings::default()
    }
}

/// An Icechunk storage over `client`, the repository at `prefix` in its bucket
/// (`location` names it in messages).
///
/// # Errors
/// A message when Icechunk does not take the backend (a build of it without our
/// backend registered: not expected).
pub(super) fn storage_over(
    client: Arc<dyn ObjectStore>,
    prefix: &str,
    location: &str,
) -> Result<Arc<dyn icechunk::Storage + Send + Sync>, String> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    registry()
        .lock()
        .map_err(|_| "the client registry is poisoned".to_string())?
        .insert(id, client);
    let backend = SharedClient {
        id,
        prefix: prefix.trim_matches('/').to_string(),
        location: location.to_string(),
    };
    // `ObjectStorage` is built from its serialised form: its constructor from a
    // backend is private.
    let backend = serde_json::to_value(&backend as &dyn ObjectStoreBackend)
        .map_err(|e| format!("{location}: {e}"))?;
    let storage: icechunk::storage::ObjectStorage =
        serde_json::from_value(serde_json::json!({ "backend": backend }))
            .map_err(|e| format!("{location}: {e}"))?;
    Ok(Arc::new(storage))
}
