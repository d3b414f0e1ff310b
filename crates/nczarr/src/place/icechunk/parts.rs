//! A copy in parts into a repository (`--metadata-only`, `--part K/N`, `--finish`):
//! every run writes beside the repository's own objects, and only the finishing run
//! commits, once. Documents and the copy's notes (its fingerprint, each part's marker)
//! go into a side store (`.NAME.parts` beside a local repository, `.nczcopy-parts/`
//! under a repository's prefix in a bucket), as for any copy in parts; each part
//! uploads its chunks into the repository (unreachable until committed) and keeps what
//! Icechunk answered for each (its chunk reference) in the side store. The finishing
//! run checks the parts as for any copy, then puts the documents and every part's
//! chunk references in one session and commits it: the branch gets one snapshot, or
//! (killed, failed) none.

use std::sync::Mutex;

use icechunk::format::manifest::ChunkPayload;

use super::commit::{Commit, CommitInfo};
use super::repo::{create_repository, open_repository};
use super::store::IcechunkStore;
use super::write::{branch_of, exists};
use crate::place::PartsRun;
use crate::store::{
    DirStore, GetResult, ListableStore, ReadStore, ReadableStore, StoreError, StoreKey, Target,
    WritableStore,
};
use crate::url::DatasetUrl;

/// Where in the side store each run keeps its chunk references (outside the notes'
/// prefix, which the finishing run reads and clears as any copy's).
const REFS_PREFIX: &str = ".nczcopy-icechunk";

/// A store the side store and writable both: local directory or cloud prefix.
trait SideStore: ReadStore + WritableStore {}
impl<T: ReadStore + WritableStore> SideStore for T {}

/// The store a run of a copy in parts writes into: chunks uploaded into the repository
/// (their references kept), everything else in the side store.
pub(crate) struct PartsStore {
    side: std::sync::Arc<dyn SideStore>,
    uploads: IcechunkStore,
    refs: Mutex<Vec<(String, ChunkPayload)>>,
    /// This run's name for its references' files.
    run: String,
    saved: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Debug for PartsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PartsStore({})", self.uploads.location())
    }
}

fn is_chunk(key: &StoreKey) -> bool {
    let k = key.as_str();
    !k.starts_with('.') && super::store::chunk_of(k).is_some()
}

impl ReadableStore for PartsStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        self.side.get(key)
    }

    fn location(&self) -> String {
        self.uploads.location()
    }
}

impl ListableStore for PartsStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        self.side.list()
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        self.side.search(prefix)
    }
}

impl WritableStore for PartsStore {
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        if !is_chunk(key) {
            return self.side.put(key, value);
        }
        let payload = self.uploads.upload(key, value)?;
        if let Ok(mut refs) = self.refs.lock() {
            refs.push((key.to_string(), payload));
        }
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.side.delete(key)
    }

    /// The references uploaded since the last call, saved in the side store (a part's
    /// marker, written after, says they are all there).
    fn finish(&self) -> Result<(), StoreError> {
        let refs = std::mem::take(&mut *self.refs.lock().map_err(|_| StoreError::Cancelled)?);
        if !refs.is_empty() {
            let n = self
                .saved
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let key = StoreKey::new(&format!("{REFS_PREFIX}/{}-{n}.json", self.run))?;
            let text = serde_json::to_vec(&refs).map_err(|e| StoreError::Corrupt {
                key: key.to_string(),
                message: e.to_string(),
            })?;
            self.side.put(&key, &text)?;
        }
        self.side.finish()
    }
}

/// The side store of the repository at `url`, made anew (emptied) when `fresh`.
fn side_store(url: &DatasetUrl, fresh: bool) -> Result<std::sync::Arc<dyn SideStore>, StoreError> {
    match url.path() {
        Some(path) => {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "repository".into());
            let dir = path.with_file_name(format!(".{name}.parts"));
            let io = |source| StoreError::Io {
                location: dir.display().to_string(),
                source,
            };
            if fresh {
                if dir.exists() {
                    std::fs::remove_dir_all(&dir).map_err(io)?;
                }
                std::fs::create_dir_all(&dir).map_err(io)?;
            } else if !dir.is_dir() {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no copy in parts started here (run --metadata-only first)",
                )));
            }
            Ok(std::sync::Arc::new(DirStore::open(&dir)?))
        }
        None => {
            let store = crate::place::open_cloud(url, None, true)?;
            let side = store.at_root(&format!("{}/.nczcopy-parts", store.root_key()));
            if fresh {
                let keys: Vec<StoreKey> = side.list()?.into_iter().map(|(k, _)| k).collect();
                for k in keys {
                    side.delete(&k)?;
                }
            }
            Ok(std::sync::Arc::new(side))
        }
    }
}

/// The target (and a reader of it) of one run of a copy in parts into the repository
/// at `url`; `commit` is what the finishing run's commit says.
///
/// # Errors
/// The repository's and the side store's errors; no copy in parts started here for a
/// `Resume` run.
pub(crate) fn parts_target(
    url: &DatasetUrl,
    run: PartsRun,
    overwrite: bool,
    commit: CommitInfo,
) -> Result<(Target, Box<dyn ReadStore>), StoreError> {
    let branch = branch_of(url)?;
    let repo = match run {
        PartsRun::Start if !exists(url)? => {
            if branch != "main" {
                return Err(StoreError::Archive {
                    location: url.original.clone(),
                    message: format!(
                        "no repository here to have a branch '{branch}': a new repository's first snapshot goes on main"
                    ),
                });
            }
            if let Some(path) = url.path() {
                super::write::refuse_foreign(path)?;
            }
            create_repository(url, None)?
        }
        PartsRun::Start if !overwrite => {
            return Err(StoreError::Archive {
                location: url.original.clone(),
                message: "an Icechunk repository is there: --overwrite replaces its contents in a new snapshot (its history is kept)".into(),
            })
        }
        PartsRun::Resume if !exists(url)? => {
            return Err(StoreError::Archive {
                location: url.original.clone(),
                message: "no copy in parts started here (run --metadata-only first)".into(),
            })
        }
        _ => open_repository(url, None)?,
    };
    let side = side_store(url, run == PartsRun::Start)?;
    let uploads = IcechunkStore::writer(&repo, &branch)?;
    let store = PartsStore {
        side: std::sync::Arc::clone(&side),
        uploads,
        refs: Mutex::new(Vec::new()),
        run: format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ),
        saved: std::sync::atomic::AtomicUsize::new(0),
    };
    let reader: Box<dyn ReadStore> = Box::new(ReadSide(std::sync::Arc::clone(&side)));
    let info = CommitInfo { branch, ..commit };
    let location = url.clone();
    let finish = move || finish_copy(&location, &side, info);
    let target = Target::in_place(Box::new(store)).completed_by(Box::new(finish));
    Ok((target, reader))
}

/// A reader of the side store.
struct ReadSide(std::sync::Arc<dyn SideStore>);

impl std::fmt::Debug for ReadSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReadSide({})", self.0.location())
    }
}

impl ReadableStore for ReadSide {
    fn get(&self, key: &StoreKey) -> GetResult {
        self.0.get(key)
    }

    fn location(&self) -> String {
        self.0.location()
    }
}

impl ListableStore for ReadSide {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        self.0.list()
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        self.0.search(prefix)
    }
}

/// The finishing run's commit: every document of the side store and every part's
/// chunk references in one session (the branch's contents replaced), committed; then
/// the side store emptied.
fn finish_copy(
    url: &DatasetUrl,
    side: &std::sync::Arc<dyn SideStore>,
    info: CommitInfo,
) -> Result<(), StoreError> {
    let repo = open_repository(url, None)?;
    let store = IcechunkStore::writer(&repo, &info.branch)?;
    store.clear()?;
    let keys: Vec<StoreKey> = side.list()?.into_iter().map(|(k, _)| k).collect();
    let mut docs = Vec::new();
    let mut refs: Vec<(String, ChunkPayload)> = Vec::new();
    for key in &keys {
        let k = key.as_str();
        if k.starts_with(&format!("{REFS_PREFIX}/")) {
            let bytes = side.get(key)?.unwrap_or_default();
            let mut these: Vec<(String, ChunkPayload)> =
                serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt {
                    key: k.to_string(),
                    message: format!("a part's chunk references: {e}"),
                })?;
            refs.append(&mut these);
        } else if k == "zarr.json" || k.ends_with("/zarr.json") {
            if let Some(doc) = side.get(key)? {
                docs.push((key.clone(), doc));
            }
        }
    }
    // Groups before what is in them.
    docs.sort_by_key(|(k, _)| k.as_str().matches('/').count());
    store.put_many(&docs)?;
    store.set_refs(refs)?;
    Commit::of(&repo, &store, info)?.commit()?;
    for key in keys {
        side.delete(&key)?;
    }
    if let Some(path) = url.path() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = std::fs::remove_dir_all(path.with_file_name(format!(".{name}.parts")));
    }
    Ok(())
}
