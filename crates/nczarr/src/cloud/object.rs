//! Object stores in the cloud (S3 and S3-compatible servers, Google Cloud Storage,
//! Azure Blob) through `object_store`: one [`CloudStore`] over whichever client the
//! URL needs (`s3.rs`, `gcs.rs`, `azure.rs` build them), so every cloud gets the same
//! batching, errors, staged writes and listing.
//!
//! The store is rooted at the dataset's key inside its bucket (container). Batch calls
//! (`get_many`, `put_many`) keep up to `concurrency` requests in flight on a small
//! tokio runtime the store owns; results come back in request order. Nothing is asked
//! twice: no HEAD before a GET (a missing key is the GET's 404), listings use the
//! service's delimiter listing for `search`.
//!
//! Errors name the object as `scheme://bucket/key` and what the server said (its error
//! code and message only: response bodies can echo request details). Credentials never
//! appear.

use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjPath;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload};

// Kept reachable here: callers name it as the object store's.
pub(crate) use super::place::check_endpoint;
use super::place::{check_place, CloudPlace};
use crate::store::{
    ByteRange, Existing, GetResult, KeyError, ListableStore, ReadableStore, StoreError, StoreKey,
    Target, WritableStore, MAX_KEY_BYTES,
};

/// A new dataset written straight into `store`'s place on S3.
///
/// S3 has no rename: a dataset cannot be swapped in whole, and writing over one would
/// damage it if the run failed half way. So a place that holds a dataset is refused
/// unless `overwrite` says to replace it (see [`CloudStore::replacing_existing`]), a
/// place holding anything that is not a dataset is refused whatever `overwrite` says,
/// and what an unfinished run wrote is deleted when the target is dropped.
///
/// # Errors
/// [`StoreError::Archive`] when the place already holds a dataset (without
/// `overwrite`) or anything else; listing errors.
pub(crate) fn cloud_target(store: CloudStore, overwrite: bool) -> Result<Target, StoreError> {
    let location = store.location();
    let store = match store.existing()?.or_refuse(&location)? {
        Existing::Nothing => store,
        Existing::Dataset if overwrite => store.replacing_existing()?,
        Existing::Dataset | Existing::Foreign { .. } => {
            return Err(StoreError::Archive {
                location,
                message: "already holds a dataset; S3 cannot replace a dataset atomically, \
                          so nothing was written (remove the old dataset first, choose another \
                          key, or replace it with --overwrite, which is not atomic)"
                    .into(),
            })
        }
    };
    Ok(Target::in_place(Box::new(
        store.removing_unfinished_writes(),
    )))
}

/// A dataset in a cloud bucket.
pub struct CloudStore {
    pub(super) store: Arc<dyn ObjectStore>,
    pub(super) runtime: &'static tokio::runtime::Runtime,
    /// The dataset's root key in the bucket ("" for the bucket root).
    root: String,
    place: CloudPlace,
    concurrency: usize,
    /// The service answers suffix ranges (`bytes=-N`); Azure does not.
    suffix_ranges: bool,
    /// Keys written, while writing a new dataset: removed again if the writing is not
    /// finished (S3 has no staging area to abandon).
    written: Option<std::sync::Mutex<Vec<ObjPath>>>,
    finished: std::sync::atomic::AtomicBool,
    /// The keys of the dataset being replaced (`--overwrite`): those the new dataset
    /// does not write again are deleted when it is finished.
    replaced: Vec<ObjPath>,
    /// Said after a refusal (access denied, not authenticated): why requests may have
    /// been refused, as "no credentials were found" when they went unsigned.
    refusal_hint: Option<String>,
}

impl std::fmt::Debug for CloudStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloudStore")
            .field("location", &self.location())
            .field("endpoint", &self.place.endpoint)
            .finish_non_exhaustive()
    }
}

impl CloudStore {
    /// A store over the client `store`, rooted at `place`. No request is made yet.
    ///
    /// # Errors
    /// [`StoreError::Settings`] when the I/O runtime cannot be started.
    pub fn new(
        store: Arc<dyn ObjectStore>,
        place: CloudPlace,
        concurrency: usize,
    ) -> Result<CloudStore, StoreError> {
        check_place(&place).map_err(|message| StoreError::Settings {
            location: place.location(),
            message,
        })?;
        let runtime = super::shared::io_runtime().map_err(|message| StoreError::Settings {
            location: place.location(),
            message,
        })?;
        Ok(CloudStore {
            store,
            runtime,
            root: place.root.trim_matches('/').to_string(),
            place,
            concurrency: concurrency.max(1),
            suffix_ranges: true,
            written: None,
            finished: std::sync::atomic::AtomicBool::new(false),
            replaced: Vec::new(),
            refusal_hint: None,
        })
    }

    /// The endpoint requests go to (`https://s3.us-east-1.amazonaws.com`, an emulator's).
    pub fn endpoint(&self) -> &str {
        &self.place.endpoint
    }

    /// The client requests go through, shared (an Icechunk repository's storage is
    /// built on it: `formats/icechunk/backend.rs`).
    pub(crate) fn client(&self) -> Arc<dyn ObjectStore> {
        Arc::clone(&self.store)
    }

    /// The dataset's root key in its bucket (`""` at the bucket root).
    pub fn root_key(&self) -> &str {
        &self.root
    }

    /// A reader of the same bucket, through the same client, rooted at `root` (another
    /// prefix: an ancestor of this one, to see what is around a new dataset's place).
    pub fn at_root(&self, root: &str) -> CloudStore {
        let mut place = self.place.clone();
        place.root = root.trim_matches('/').to_string();
        CloudStore {
            store: Arc::clone(&self.store),
            runtime: self.runtime,
            root: place.root.clone(),
            place,
            concurrency: self.concurrency,
            suffix_ranges: self.suffix_ranges,
            written: None,
            finished: std::sync::atomic::AtomicBool::new(false),
            replaced: Vec::new(),
            refusal_hint: self.refusal_hint.clone(),
        }
    }

    /// Which of `keys` exist, asked concurrently by HEAD requests (no body to be cut
    /// short: most of these are misses, whose error bodies a flaky link can break).
    ///
    /// # Errors
    /// [`StoreError`] of the first request that failed (object_store retries each).
    pub fn exist_many(&self, keys: &[StoreKey]) -> Result<Vec<bool>, StoreError> {
        let heads = keys.iter().map(|k| async move {
            let path = self.path_of(k)?;
            // A HEAD is asked again on any failure but an answer (not found, refused):
            // a link that cuts a response short breaks its headers, which object_store
            // reports as a parse error it does not retry.
            let mut attempt = 1;
            loop {
                match self.store.head(&path).await {
                    Ok(_) => return Ok(true),
                    Err(object_store::Error::NotFound { .. }) => return Ok(false),
                    Err(
                        e @ (object_store::Error::PermissionDenied { .. }
                        | object_store::Error::Unauthenticated { .. }),
                    ) => return Err(self.error(path.as_ref(), &e)),
                    Err(e) if attempt >= READ_ATTEMPTS => return Err(self.error(path.as_ref(), &e)),
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
                        attempt += 1;
                    }
                }
            }
        });
        self.runtime
            .block_on(
                futures::stream::iter(heads)
                    .buffered(self.concurrency)
                    .collect::<Vec<Result<bool, StoreError>>>(),
            )
            .into_iter()
            .collect()
    }

    /// Say `hint` after a refusal: requests sent unsigned because no credentials were
    /// found get "access denied" from a private bucket, which says nothing of why.
    pub fn with_refusal_hint(mut self, hint: impl Into<String>) -> CloudStore {
        self.refusal_hint = Some(hint.into());
        self
    }

    /// For a service that answers no suffix ranges: such a read asks the object's size
    /// first, then reads that many bytes from its end.
    pub fn without_suffix_ranges(mut self) -> CloudStore {
        self.suffix_ranges = false;
        self
    }

    /// Remember every key written, and delete them all if the store is dropped before
    /// [`WritableStore::finish`]: a failed run leaves nothing behind.
    pub fn removing_unfinished_writes(mut self) -> CloudStore {
        self.written = Some(std::sync::Mutex::new(Vec::new()));
        self
    }

    /// Replace the dataset at this place: its root objects (`.zgroup`, `.zmetadata`, `zarr.json`,
    /// `.nczarr`, the objects that make it open) are deleted now, so that from here on
    /// it does not open; its other objects are deleted when the new dataset is
    /// finished, unless the new one writes them again. Not atomic: a failed run leaves
    /// neither dataset openable.
    ///
    /// # Errors
    /// [`StoreError`] when listing or deleting fails.
    pub fn replacing_existing(mut self) -> Result<CloudStore, StoreError> {
        let root = self.root_path()?;
        let metas: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(again(|| self.store.list(root.as_ref()).try_collect()))
            .map_err(|e| self.error(&self.root, &e))?;
        let markers: Vec<ObjPath> = [".zgroup", ".zmetadata", ".nczarr", "zarr.json"]
            .iter()
            .map(|k| self.path_of(&StoreKey::new(k).expect("static key")))
            .collect::<Result<_, _>>()?;
        let (openers, rest): (Vec<ObjPath>, Vec<ObjPath>) = metas
            .into_iter()
            .map(|m| m.location)
            .partition(|p| markers.contains(p));
        self.delete_paths(openers)?;
        self.replaced = rest;
        Ok(self)
    }

    fn delete_paths(&self, paths: Vec<ObjPath>) -> Result<(), StoreError> {
        if paths.is_empty() {
            return Ok(());
        }
        let store = Arc::clone(&self.store);
        let stream = futures::stream::iter(paths.into_iter().map(Ok)).boxed();
        let results = self
            .runtime
            .block_on(store.delete_stream(stream).collect::<Vec<_>>());
        for r in results {
            if let Err(e) = r {
                if !matches!(e, object_store::Error::NotFound { .. }) {
                    return Err(self.error(&self.root, &e));
                }
            }
        }
        Ok(())
    }

    /// The object path of `key`, checked against the 1024-byte key limit of S3, GCS and
    /// Azure before any request is made.
    pub(super) fn path_of(&self, key: &StoreKey) -> Result<ObjPath, StoreError> {
        let full = match (self.root.is_empty(), key.is_root()) {
            (true, _) => key.as_str().to_string(),
            (false, true) => self.root.clone(),
            (false, false) => format!("{}/{}", self.root, key.as_str()),
        };
        if full.len() > MAX_KEY_BYTES {
            return Err(StoreError::InvalidKey(KeyError {
                key: format!("{}://{}/{full}", self.place.scheme, self.place.bucket),
                reason:
                    "longer than the 1024-byte limit of object keys (with the dataset's root key)",
            }));
        }
        ObjPath::parse(&full).map_err(|e| StoreError::Corrupt {
            key: full,
            message: format!("not a valid object key: {e}"),
        })
    }

    /// The dataset's root as an object path (`None` at the bucket root), taken byte for
    /// byte (`ObjPath::from_iter` would percent-encode some characters).
    fn root_path(&self) -> Result<Option<ObjPath>, StoreError> {
        if self.root.is_empty() {
            return Ok(None);
        }
        ObjPath::parse(&self.root)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                key: self.root.clone(),
                message: format!("not a valid object key: {e}"),
            })
    }

    pub(super) fn error(&self, key: &str, e: &object_store::Error) -> StoreError {
        let text = e.to_string();
        // Listings report a refusal as a generic error: known by its status or code.
        let refused = [
            "status 403",
            "Forbidden",
            "AuthorizationFailure",
            "AccessDenied",
        ]
        .iter()
        .any(|t| text.contains(t));
        let unauthenticated = ["status 401", "AuthenticationFailed"]
            .iter()
            .any(|t| text.contains(t));
        let what = match e {
            object_store::Error::PermissionDenied { .. } => "access denied",
            object_store::Error::Unauthenticated { .. } => "not authenticated",
            _ if refused => "access denied",
            _ if unauthenticated => "not authenticated",
            _ => "request failed",
        };
        let hint = match (&self.refusal_hint, what) {
            (Some(h), "access denied" | "not authenticated") => format!("; {h}"),
            _ => String::new(),
        };
        StoreError::Remote {
            location: format!("{}://{}/{}", self.place.scheme, self.place.bucket, key),
            message: format!("{what} ({}): {}{hint}", self.place.endpoint, brief(e)),
        }
    }

    /// GET the object `key`, or the part `range` says; `None` when it does not exist.
    /// A body cut short is asked for again (see [`again`]).
    async fn fetch(&self, key: &StoreKey, range: Option<&ByteRange>) -> GetResult {
        Ok(self.fetch_sized(key, range).await?.map(|(bytes, _)| bytes))
    }

    /// [`CloudStore::fetch`], with the object's whole length (an answer to a range
    /// gives it).
    async fn fetch_sized(
        &self,
        key: &StoreKey,
        range: Option<&ByteRange>,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        let path = self.path_of(key)?;
        let bounded;
        let range = match range {
            Some(ByteRange::Suffix(n)) if !self.suffix_ranges => {
                let size = match self.store.head(&path).await {
                    Ok(meta) => meta.size,
                    Err(object_store::Error::NotFound { .. }) => return Ok(None),
                    Err(e) => return Err(self.error(path.as_ref(), &e)),
                };
                if size == 0 || *n == 0 {
                    return Ok(Some((Vec::new(), size)));
                }
                bounded = ByteRange::Bounded(size.saturating_sub(*n)..size);
                Some(&bounded)
            }
            r => r,
        };
        let got = again(|| async {
            let r = self.store.get_opts(&path, get_options(range)).await?;
            let size = r.meta.size;
            r.bytes().await.map(|b| (b, size))
        })
        .await;
        match got {
            Ok((b, size)) => Ok(Some((b.to_vec(), size))),
            Err(object_store::Error::NotFound { source, .. })
                if no_such_bucket(&source.to_string()) =>
            {
                Err(StoreError::Remote {
                    location: format!("{}://{}", self.place.scheme, self.place.bucket),
                    message: format!("no such bucket at {}", self.place.endpoint),
                })
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(path.as_ref(), &e)),
        }
    }

    /// The service's copy of `from` to `to`.
    async fn copy_one(&self, from: &ObjPath, to: &ObjPath) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        self.store
            .copy(from, to)
            .await
            .map_err(|e| self.error(from.as_ref(), &e))
    }

    async fn store_one(&self, key: &StoreKey, value: Vec<u8>) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        let path = self.path_of(key)?;
        if let Some(w) = &self.written {
            // Recorded before the request: a PUT that fails half way may still land.
            w.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(path.clone());
        }
        self.store
            .put(&path, PutPayload::from(value))
            .await
            .map(|_| ())
            .map_err(|e| self.error(path.as_ref(), &e))
    }

    /// What the place holds: every object under the prefix judged as a dataset's key or
    /// not (see [`crate::store::existing`]). Objects whose names our keys cannot hold count as
    /// foreign: they are not ours.
    ///
    /// # Errors
    /// [`StoreError`] when the listing fails.
    pub fn existing(&self) -> Result<Existing, StoreError> {
        let names: Vec<String> = self.object_names()?.into_iter().map(|(n, _)| n).collect();
        Ok(crate::store::existing::judge_prefix_keys(&names))
    }

    /// Every object under the dataset's root: its name relative to the root (as the
    /// service spells it, whatever our key rules say; `""` for an object named as the
    /// root itself) and its size.
    ///
    /// # Errors
    /// [`StoreError`] when the listing fails.
    fn object_names(&self) -> Result<Vec<(String, u64)>, StoreError> {
        let root = self.root_path()?;
        let metas: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(again(|| self.store.list(root.as_ref()).try_collect()))
            .map_err(|e| self.error(&self.root, &e))?;
        let skip = if self.root.is_empty() {
            0
        } else {
            self.root.len() + 1
        };
        Ok(metas
            .into_iter()
            .map(|m| {
                let full: &str = m.location.as_ref();
                (full.get(skip..).unwrap_or("").to_string(), m.size)
            })
            .collect())
    }

    /// Whether any object exists under the dataset's root.
    ///
    /// # Errors
    /// [`StoreError`] when the listing fails.
    pub fn has_content(&self) -> Result<bool, StoreError> {
        let root = self.root_path()?;
        self.runtime
            .block_on(again(|| async {
                let mut s = self.store.list(root.as_ref());
                s.next().await.transpose()
            }))
            .map(|first| first.is_some())
            .map_err(|e| self.error(&self.root, &e))
    }
}

/// Times a read that failed in a way object_store does not retry is tried again.
const READ_ATTEMPTS: u32 = 4;

/// Run a read, again when it fails in a way object_store leaves to us: its retries
/// cover error statuses and failed connections, not a body cut short nor a listing page
/// lost mid-way. Up to [`READ_ATTEMPTS`] tries, 200 ms, 400 ms, 800 ms apart; answers
/// that say something (not found, refused, bad request) and errors object_store already
/// retried are returned at once.
async fn again<T, F, Fut>(op: F) -> Result<T, object_store::Error>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, object_store::Error>>,
{
    let mut attempt = 1;
    loop {
        match op().await {
            Err(e) if attempt < READ_ATTEMPTS && transient(&e) => {
                tokio::time::sleep(std::time::Duration::from_millis(100 << attempt)).await;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// True for a failure worth another try: a transfer broken off, not an answer.
fn transient(e: &object_store::Error) -> bool {
    use object_store::Error as E;
    if !matches!(e, E::Generic { .. }) {
        return false;
    }
    let mut chain = e.to_string();
    let mut inner: &dyn std::error::Error = e;
    while let Some(next) = inner.source() {
        chain.push_str(": ");
        chain.push_str(&next.to_string());
        inner = next;
    }
    // object_store says "after N retries" when its own budget is spent.
    !chain.contains("retries")
        && [
            "end of file before message length",
            "connection closed before message completed",
            "error decoding response body",
            "Connection reset",
            "error reading a body",
            "body error",
        ]
        .iter()
        .any(|m| chain.contains(m))
}

/// True when a 404's body says the bucket (container) itself is missing: S3's and GCS's
/// `NoSuchBucket`, Azure's `ContainerNotFound`.
fn no_such_bucket(text: &str) -> bool {
    text.contains("NoSuchBucket") || text.contains("ContainerNotFound")
}

/// A GET of the part `range` says (all of it for `None`), in `object_store`'s terms.
pub(super) fn get_options(range: Option<&ByteRange>) -> GetOptions {
    GetOptions {
        range: range.map(|r| match r {
            ByteRange::Bounded(b) => GetRange::Bounded(b.clone()),
            ByteRange::From(s) => GetRange::Offset(*s),
            ByteRange::Suffix(n) => GetRange::Suffix(*n),
        }),
        ..GetOptions::default()
    }
}

/// What an `object_store` error says, in one line: for a server reply its error code
/// and message (the XML `<Code>`/`<Message>` S3, GCS and Azure answer with), otherwise
/// the innermost cause (connection refused, timed out).
pub(super) fn brief(e: &(dyn std::error::Error + 'static)) -> String {
    let text = e.to_string();
    let tag = |name: &str| -> Option<String> {
        let open = format!("<{name}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&format!("</{name}>"))? + start;
        Some(text[start..end].to_string())
    };
    if let Some(code) = tag("Code") {
        // Azure's message goes on with RequestId and Time lines: the first says it.
        return match tag("Message") {
            Some(m) => format!("{code}: {}", m.lines().next().unwrap_or("").trim()),
            None => code,
        };
    }
    // The innermost cause is the most specific (e.g. "Connection refused").
    let mut inner: &dyn std::error::Error = e;
    while let Some(next) = inner.source() {
        inner = next;
    }
    let inner = inner.to_string();
    let status = text.find("status ").map(|i| {
        text[i..]
            .split([':', ','])
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    });
    let line = match status {
        Some(s) if !inner.contains(&s) => format!("{s}: {inner}"),
        _ => inner,
    };
    line.lines().next().unwrap_or("").trim().to_string()
}

impl ReadableStore for CloudStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        self.runtime.block_on(self.fetch(key, None))
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        let path = self.path_of(key)?;
        match self.runtime.block_on(self.store.head(&path)) {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(path.as_ref(), &e)),
        }
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        self.runtime.block_on(self.fetch(key, Some(range)))
    }

    fn get_range_sized(
        &self,
        key: &StoreKey,
        range: &ByteRange,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        self.runtime.block_on(self.fetch_sized(key, Some(range)))
    }

    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        self.runtime.block_on(
            futures::stream::iter(keys.iter().map(|k| self.fetch(k, None)))
                .buffered(self.concurrency)
                .collect(),
        )
    }

    fn get_many_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Vec<GetResult> {
        self.runtime.block_on(
            futures::stream::iter(requests.iter().map(|(k, r)| self.fetch(k, Some(r))))
                .buffered(self.concurrency)
                .collect(),
        )
    }

    fn location(&self) -> String {
        self.place.location()
    }
}

impl ListableStore for CloudStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        // Keys that break our rules (made by other tools) are left out, not fatal.
        let mut out: Vec<(StoreKey, u64)> = self
            .object_names()?
            .into_iter()
            .filter(|(name, _)| !name.is_empty())
            .filter_map(|(name, size)| StoreKey::new(&name).ok().map(|k| (k, size)))
            .collect();
        out.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        Ok(out)
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        let base = if prefix.is_root() {
            self.root_path()?
        } else {
            Some(self.path_of(prefix)?)
        };
        let listed = self
            .runtime
            .block_on(self.store.list_with_delimiter(base.as_ref()))
            .map_err(|e| self.error(&self.root, &e))?;
        let mut names: Vec<String> = listed
            .common_prefixes
            .iter()
            .chain(listed.objects.iter().map(|o| &o.location))
            .filter_map(|p| p.filename().map(str::to_string))
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }
}

impl Drop for CloudStore {
    fn drop(&mut self) {
        let Some(written) = self.written.take() else {
            return;
        };
        if self.finished.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let paths = written
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Best effort: the run has already failed and says why.
        let _ = self.delete_paths(paths);
    }
}

impl WritableStore for CloudStore {
    fn finish(&self) -> Result<(), StoreError> {
        if !self.replaced.is_empty() {
            let written: std::collections::HashSet<ObjPath> = self
                .written
                .as_ref()
                .map(|w| {
                    w.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .iter()
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            let stale = self
                .replaced
                .iter()
                .filter(|p| !written.contains(*p))
                .cloned()
                .collect();
            self.delete_paths(stale)?;
        }
        self.finished
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        self.runtime.block_on(self.store_one(key, value.to_vec()))
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        let path = self.path_of(key)?;
        self.delete_paths(vec![path])
    }

    fn delete_many(&self, keys: &[StoreKey]) -> Result<(), StoreError> {
        let paths = keys
            .iter()
            .map(|k| self.path_of(k))
            .collect::<Result<Vec<_>, _>>()?;
        self.delete_paths(paths)
    }

    /// The service copies (S3's CopyObject, GCS's copy, Azure's copy blob): no byte
    /// comes here, `concurrency` copies in flight. A service that refuses the first
    /// (an emulator without copies: fake-gcs-server) leaves the copying to the caller,
    /// whose reads and writes say what is wrong if anything is.
    fn copy_many(&self, pairs: &[(StoreKey, StoreKey)]) -> Result<bool, StoreError> {
        let paths = pairs
            .iter()
            .map(|(a, b)| Ok((self.path_of(a)?, self.path_of(b)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let Some(((from, to), rest)) = paths.split_first() else {
            return Ok(true);
        };
        if self.runtime.block_on(self.copy_one(from, to)).is_err() {
            return Ok(false);
        }
        self.runtime.block_on(
            futures::stream::iter(rest.iter().map(|(from, to)| self.copy_one(from, to)))
                .buffer_unordered(self.concurrency)
                .try_collect::<Vec<()>>(),
        )?;
        Ok(true)
    }

    fn put_many(&self, items: &[(StoreKey, Vec<u8>)]) -> Result<(), StoreError> {
        self.runtime.block_on(
            futures::stream::iter(items.iter().map(|(k, v)| self.store_one(k, v.clone())))
                .buffer_unordered(self.concurrency)
                .try_collect::<Vec<()>>(),
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Chain(&'static str, Option<Box<Chain>>);

    impl std::fmt::Display for Chain {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Chain {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|c| c as _)
        }
    }

    #[test]
    fn brief_keeps_the_server_code_and_message_only() {
        let e = Chain(
            "Client error with status 403 Forbidden: <?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match.</Message><StringToSign>AWS4-HMAC-SHA256 ...</StringToSign></Error>",
            None,
        );
        assert_eq!(
            brief(&e),
            "SignatureDoesNotMatch: The request signature we calculated does not match."
        );
        let e = Chain(
            "Generic S3 error: error sending request",
            Some(Box::new(Chain(
                "client error (Connect)",
                Some(Box::new(Chain("Connection refused (os error 111)", None))),
            ))),
        );
        assert_eq!(brief(&e), "Connection refused (os error 111)");
    }
}
