//! A version of a repository as a Zarr version 3 store: metadata and chunks through
//! Icechunk's session, virtual chunks (references into other files) read by
//! `virtual_read.rs` through our own stores. Writes go into the session (chunks are
//! uploaded as they come, unreachable until the commit makes them part of a snapshot).

use std::sync::Arc;

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use icechunk::format::manifest::{Checksum, ChunkPayload};
use icechunk::format::{ByteRange as IceRange, ChunkIndices, Path as NodePath};
use icechunk::session::{Session, SessionErrorKind};
use icechunk::store::StoreErrorKind;
use rayon::prelude::*;
use tokio::sync::RwLock;

use super::repo::{Repo, Version};
use super::said;
use super::virtual_read::{VirtualChunk, VirtualFiles};
use crate::reach::ReferenceOptions;
use crate::store::{
    children_of, GetResult, ListableStore, ReadableStore, StoreError, StoreKey, WritableStore,
};

/// How many keys are asked for at once.
const IN_FLIGHT: usize = 32;

/// One version of a repository (or a branch being written), as a store.
pub struct IcechunkStore {
    pub(super) session: Arc<RwLock<Session>>,
    store: icechunk::Store,
    runtime: &'static tokio::runtime::Runtime,
    /// `repository#branch=main`: for messages.
    location: String,
    virtuals: VirtualFiles,
    /// Chunks written before their array is defined (or grown to hold them): our
    /// writers put an array's document after its chunks. Uploaded already; set in
    /// the session when the document comes.
    pub(super) pending: Arc<std::sync::Mutex<Vec<PendingChunk>>>,
    /// A read-only session's nodes, listed once: readers search the store once per
    /// group, and each listing walks the whole snapshot. `None` for a writer, whose
    /// nodes change.
    read_only_nodes: Option<std::sync::OnceLock<Arc<Nodes>>>,
}

/// Every node of a session: its path (no leading `/`) and whether it is an array.
type Nodes = Vec<(String, bool)>;

/// A chunk uploaded for an array not yet defined (or not yet that large).
pub(super) struct PendingChunk {
    path: NodePath,
    coords: ChunkIndices,
    payload: ChunkPayload,
}

impl PendingChunk {
    /// The chunk's key, for messages.
    pub(super) fn key(&self) -> String {
        chunk_key(&self.path, &self.coords)
    }
}

impl std::fmt::Debug for IcechunkStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IcechunkStore({})", self.location)
    }
}

/// What a key holds, found without reading a virtual chunk.
enum Found {
    Missing,
    Bytes(Vec<u8>),
    Virtual(VirtualChunk),
}

impl IcechunkStore {
    /// `version` of `repo`, read only. `refs` says what the virtual chunks of a
    /// repository reached over the network may name on this machine.
    ///
    /// # Errors
    /// [`StoreError::Archive`] when the version is not in the repository.
    pub fn reader(
        repo: &Repo,
        version: &Version,
        refs: ReferenceOptions,
    ) -> Result<IcechunkStore, StoreError> {
        let session = repo.readonly(version)?;
        let location = format!("{}#{}", repo.location, fragment(version));
        let mut store = IcechunkStore::over(repo, session, location, refs);
        store.read_only_nodes = Some(std::sync::OnceLock::new());
        Ok(store)
    }

    /// A session writing on `branch`, from its tip.
    ///
    /// # Errors
    /// As [`IcechunkStore::reader`].
    pub fn writer(repo: &Repo, branch: &str) -> Result<IcechunkStore, StoreError> {
        let session = repo.writable(branch)?;
        let location = format!("{}#branch={branch}", repo.location);
        Ok(IcechunkStore::over(
            repo,
            session,
            location,
            ReferenceOptions::default(),
        ))
    }

    fn over(
        repo: &Repo,
        session: Session,
        location: String,
        refs: ReferenceOptions,
    ) -> IcechunkStore {
        let virtuals = VirtualFiles::new(&session, repo.base.clone(), repo.origin, refs);
        let session = Arc::new(RwLock::new(session));
        let store = repo
            .runtime
            .block_on(icechunk::Store::from_session(Arc::clone(&session)));
        IcechunkStore {
            session,
            store,
            runtime: repo.runtime,
            location,
            virtuals,
            pending: Arc::new(std::sync::Mutex::new(Vec::new())),
            read_only_nodes: None,
        }
    }

    /// Remove every node from the session: the next commit holds only what is
    /// written after (the snapshots before keep theirs).
    ///
    /// # Errors
    /// Icechunk's refusal.
    pub(crate) fn clear(&self) -> Result<(), StoreError> {
        self.runtime
            .block_on(self.store.clear())
            .map_err(|e| self.fail("", said(&e.kind)))
    }

    /// Icechunk's own store over the same session (virtual references are set
    /// through it).
    pub(crate) fn icechunk_store(&self) -> &icechunk::Store {
        &self.store
    }

    pub(crate) fn runtime(&self) -> &'static tokio::runtime::Runtime {
        self.runtime
    }

    fn fail(&self, key: &str, message: String) -> StoreError {
        StoreError::Remote {
            location: format!("{} key '{key}'", self.location),
            message,
        }
    }

    /// What `key` holds: metadata and stored chunks read, a virtual chunk located.
    async fn find(&self, key: &str) -> Result<Found, StoreError> {
        let last = key.rsplit('/').next().unwrap_or(key);
        if last == "zarr.json" {
            return self.read_stored(key).await;
        }
        let Some((path, coords)) = chunk_of(key) else {
            // Zarr version 2 documents, our own records: no such keys in a repository.
            return Ok(Found::Missing);
        };
        let payload = {
            let session = self.session.read().await;
            match session.get_chunk_ref(&path, &coords).await {
                Ok(p) => p,
                Err(e) => match e.kind {
                    SessionErrorKind::NodeNotFound { .. } | SessionErrorKind::NotAnArray { .. } => {
                        return Ok(Found::Missing)
                    }
                    kind => return Err(self.fail(key, said(&kind))),
                },
            }
        };
        match payload {
            None => Ok(Found::Missing),
            Some(ChunkPayload::Inline(bytes)) => Ok(Found::Bytes(bytes.to_vec())),
            Some(ChunkPayload::Ref(_)) => self.read_stored(key).await,
            Some(ChunkPayload::Virtual(reference)) => {
                let session = self.session.read().await;
                let url = session
                    .resolve_virtual_location(&reference.location)
                    .map_err(|e| self.fail(key, said(&e)))?;
                let modified = match reference.checksum {
                    Some(Checksum::LastModified(s)) => Some(s.0),
                    _ => None,
                };
                Ok(Found::Virtual(VirtualChunk {
                    key: key.to_string(),
                    declared: session.matching_container(&reference.location).is_some(),
                    url,
                    offset: reference.offset,
                    length: reference.length,
                    modified,
                }))
            }
            // A payload of a later Icechunk: read as Icechunk reads it.
            Some(_) => self.read_stored(key).await,
        }
    }

    async fn read_stored(&self, key: &str) -> Result<Found, StoreError> {
        match self.store.get(key, &IceRange::ALL).await {
            Ok(bytes) => Ok(Found::Bytes(bytes.to_vec())),
            Err(e) => match e.kind {
                StoreErrorKind::NotFound(_) => Ok(Found::Missing),
                kind => Err(self.fail(key, said(&kind))),
            },
        }
    }

    fn resolve(&self, found: Found) -> GetResult {
        match found {
            Found::Missing => Ok(None),
            Found::Bytes(b) => Ok(Some(b)),
            Found::Virtual(chunk) => self.virtuals.read(&chunk).map(Some),
        }
    }

    /// The names of every node (group or array), as keys (`""` for the root), and
    /// whether it is an array.
    fn nodes(&self) -> Result<Arc<Nodes>, StoreError> {
        let Some(cell) = &self.read_only_nodes else {
            return self.list_nodes().map(Arc::new);
        };
        if let Some(nodes) = cell.get() {
            return Ok(Arc::clone(nodes));
        }
        let nodes = Arc::new(self.list_nodes()?);
        Ok(Arc::clone(cell.get_or_init(|| nodes)))
    }

    /// Every node of the session, listed from its snapshot and changes.
    fn list_nodes(&self) -> Result<Nodes, StoreError> {
        self.runtime.block_on(async {
            let session = self.session.read().await;
            let nodes = session
                .list_nodes(&NodePath::root())
                .await
                .map_err(|e| self.fail("", said(&e.kind)))?;
            nodes
                .map(|n| {
                    n.map(|n| {
                        let is_array = matches!(
                            n.node_data,
                            icechunk::format::snapshot::NodeData::Array { .. }
                        );
                        (
                            n.path.as_str().trim_start_matches('/').to_string(),
                            is_array,
                        )
                    })
                    .map_err(|e| self.fail("", said(&e.kind)))
                })
                .collect()
        })
    }
}

/// `branch=main`, `tag=v1`, `snapshot=ID`: the fragment naming `version`.
fn fragment(version: &Version) -> String {
    match version {
        Version::Branch(b) => format!("branch={b}"),
        Version::Tag(t) => format!("tag={t}"),
        Version::Snapshot(s) => format!("snapshot={s}"),
    }
}

/// The array and chunk indices a chunk key names (`tas/c/0/1/2`, `c` for a scalar at
/// the root), Zarr version 3's default chunk key encoding, the only one Icechunk keeps.
pub(crate) fn chunk_of(key: &str) -> Option<(NodePath, ChunkIndices)> {
    let parts: Vec<&str> = key.split('/').collect();
    // The last `c` after which every part is an index: a group may be named `c`.
    let at = (0..parts.len())
        .rev()
        .find(|&i| parts[i] == "c" && parts[i + 1..].iter().all(|p| p.parse::<u32>().is_ok()))?;
    let coords = parts[at + 1..]
        .iter()
        .map(|p| p.parse::<u32>().ok())
        .collect::<Option<Vec<u32>>>()?;
    let path = NodePath::new(&format!("/{}", parts[..at].join("/"))).ok()?;
    Some((path, ChunkIndices(coords)))
}

/// The key of chunk `coords` of the array at `path`.
fn chunk_key(path: &NodePath, coords: &ChunkIndices) -> String {
    let mut key = path.as_str().trim_start_matches('/').to_string();
    if !key.is_empty() {
        key.push('/');
    }
    key.push('c');
    for c in &coords.0 {
        key.push('/');
        key.push_str(&c.to_string());
    }
    key
}

impl ReadableStore for IcechunkStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        let found = self.runtime.block_on(self.find(key.as_str()))?;
        self.resolve(found)
    }

    /// Located together (metadata and stored chunks read, `IN_FLIGHT` at once), then
    /// the virtual chunks read in parallel from their files.
    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        let found: Vec<Result<Found, StoreError>> = self.runtime.block_on(
            futures::stream::iter(keys.iter().map(|k| self.find(k.as_str())))
                .buffered(IN_FLIGHT)
                .collect(),
        );
        found
            .into_par_iter()
            .map(|f| f.and_then(|f| self.resolve(f)))
            .collect()
    }

    fn location(&self) -> String {
        self.location.clone()
    }
}

impl ListableStore for IcechunkStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        let nodes = self.nodes()?;
        let mut out = Vec::new();
        for (path, _) in nodes.iter() {
            let key = if path.is_empty() {
                "zarr.json".to_string()
            } else {
                format!("{path}/zarr.json")
            };
            let size = self
                .runtime
                .block_on(self.store.getsize(&key))
                .map_err(|e| self.fail(&key, said(&e.kind)))?;
            out.push((StoreKey::new(&key)?, size));
        }
        let chunks: Vec<(String, u64)> = self.runtime.block_on(async {
            let session = self.session.read().await;
            let stream = session
                .all_chunks()
                .await
                .map_err(|e| self.fail("", said(&e.kind)))?;
            stream
                .map_ok(|(path, info)| (chunk_key(&path, &info.coord), info.payload.length()))
                .map_err(|e| self.fail("", said(&e.kind)))
                .try_collect()
                .await
        })?;
        for (key, size) in chunks {
            out.push((StoreKey::new(&key)?, size));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        let nodes = self.nodes()?;
        let mut keys: Vec<StoreKey> = Vec::new();
        for (path, is_array) in nodes.iter() {
            let node = if path.is_empty() {
                StoreKey::root()
            } else {
                StoreKey::new(path)?
            };
            keys.push(node.join("zarr.json")?);
            if *is_array {
                keys.push(node.join("c")?);
            }
        }
        Ok(children_of(keys.iter(), prefix))
    }
}

impl IcechunkStore {
    /// Put one value: a document through Icechunk's store (then the chunks waiting
    /// for it are set), a chunk uploaded and set in the session (or kept pending).
    async fn put_one(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        let refused = |message: String| StoreError::Refused {
            key: key.to_string(),
            message,
        };
        let last = key.as_str().rsplit('/').next().unwrap_or(key.as_str());
        if last == "zarr.json" {
            self.store
                .set(key.as_str(), Bytes::copy_from_slice(value))
                .await
                .map_err(|e| refused(said(&e.kind)))?;
            let node = key.parent();
            let path = NodePath::new(&format!("/{}", node.as_str()))
                .map_err(|e| refused(e.to_string()))?;
            return self.set_pending(&path).await;
        }
        let (path, coords) = chunk_of(key.as_str()).ok_or_else(|| {
            refused("not a Zarr version 3 key (an Icechunk repository holds zarr.json documents and c/... chunks only)".into())
        })?;
        let upload = {
            let session = self.session.read().await;
            session
                .get_chunk_writer(&path, &coords)
                .map_err(|e| refused(said(&e.kind)))?
        };
        let payload = upload(Bytes::copy_from_slice(value))
            .await
            .map_err(|e| refused(said(&e.kind)))?;
        let mut session = self.session.write().await;
        match session
            .set_chunk_ref(path.clone(), coords.clone(), Some(payload.clone()))
            .await
        {
            Ok(()) => Ok(()),
            Err(e) if waits_for_document(&e.kind) => {
                if let Ok(mut pending) = self.pending.lock() {
                    pending.push(PendingChunk {
                        path,
                        coords,
                        payload,
                    });
                }
                Ok(())
            }
            Err(e) => Err(refused(said(&e.kind))),
        }
    }

    /// Set the pending chunks of the array at `path`, now that its document is there.
    async fn set_pending(&self, path: &NodePath) -> Result<(), StoreError> {
        let mine: Vec<PendingChunk> = match self.pending.lock() {
            Ok(mut pending) => {
                let (mine, rest) = std::mem::take(&mut *pending)
                    .into_iter()
                    .partition(|p| &p.path == path);
                *pending = rest;
                mine
            }
            Err(_) => return Ok(()),
        };
        if mine.is_empty() {
            return Ok(());
        }
        let mut session = self.session.write().await;
        let mut still = Vec::new();
        for p in mine {
            match session
                .set_chunk_ref(p.path.clone(), p.coords.clone(), Some(p.payload.clone()))
                .await
            {
                Ok(()) => {}
                Err(e) if waits_for_document(&e.kind) => still.push(p),
                Err(e) => {
                    return Err(StoreError::Refused {
                        key: p.key(),
                        message: said(&e.kind),
                    })
                }
            }
        }
        if let Ok(mut pending) = self.pending.lock() {
            pending.extend(still);
        }
        Ok(())
    }
}

impl IcechunkStore {
    /// Upload the chunk `key` holds, without setting it in the session: its
    /// reference, for a later session to set ([`IcechunkStore::set_refs`]).
    ///
    /// # Errors
    /// A key that is no chunk's; Icechunk's refusal.
    pub(crate) fn upload(&self, key: &StoreKey, value: &[u8]) -> Result<ChunkPayload, StoreError> {
        let refused = |message: String| StoreError::Refused {
            key: key.to_string(),
            message,
        };
        let (path, coords) =
            chunk_of(key.as_str()).ok_or_else(|| refused("not a chunk key".into()))?;
        self.runtime.block_on(async {
            let upload = {
                let session = self.session.read().await;
                session
                    .get_chunk_writer(&path, &coords)
                    .map_err(|e| refused(said(&e.kind)))?
            };
            upload(Bytes::copy_from_slice(value))
                .await
                .map_err(|e| refused(said(&e.kind)))
        })
    }

    /// Chunks (references, or uploaded) to set when their arrays' documents say they
    /// can be there: those a virtual append adds before the grown documents.
    pub(crate) fn add_pending(&self, chunks: Vec<(NodePath, ChunkIndices, ChunkPayload)>) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.extend(
                chunks
                    .into_iter()
                    .map(|(path, coords, payload)| PendingChunk {
                        path,
                        coords,
                        payload,
                    }),
            );
        }
    }

    /// Set chunks uploaded before (by [`IcechunkStore::upload`], in any session of
    /// the repository) in this session.
    ///
    /// # Errors
    /// A key that is no chunk's, or a chunk no array here holds.
    pub(crate) fn set_refs(&self, refs: Vec<(String, ChunkPayload)>) -> Result<(), StoreError> {
        self.runtime.block_on(async {
            let mut session = self.session.write().await;
            for (key, payload) in refs {
                let refused = |message: String| StoreError::Refused {
                    key: key.clone(),
                    message,
                };
                let (path, coords) =
                    chunk_of(&key).ok_or_else(|| refused("not a chunk key".into()))?;
                session
                    .set_chunk_ref(path, coords, Some(payload))
                    .await
                    .map_err(|e| refused(said(&e.kind)))?;
            }
            Ok(())
        })
    }
}

/// A chunk set before its array's document says it can be there.
fn waits_for_document(kind: &SessionErrorKind) -> bool {
    matches!(
        kind,
        SessionErrorKind::NodeNotFound { .. } | SessionErrorKind::InvalidIndex { .. }
    )
}

impl WritableStore for IcechunkStore {
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        self.runtime.block_on(self.put_one(key, value))
    }

    fn put_many(&self, items: &[(StoreKey, Vec<u8>)]) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        let results: Vec<Result<(), StoreError>> = self.runtime.block_on(
            futures::stream::iter(items.iter().map(|(k, v)| self.put_one(k, v)))
                .buffer_unordered(IN_FLIGHT)
                .collect(),
        );
        results.into_iter().collect()
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.runtime
            .block_on(self.store.delete(key.as_str()))
            .map_err(|e| StoreError::Refused {
                key: key.to_string(),
                message: said(&e.kind),
            })
    }

    fn transactional(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_keys_both_ways() {
        let (p, c) = chunk_of("tas/c/0/1/2").unwrap();
        assert_eq!((p.as_str(), c.0.clone()), ("/tas", vec![0, 1, 2]));
        assert_eq!(chunk_key(&p, &c), "tas/c/0/1/2");
        let (p, c) = chunk_of("c").unwrap();
        assert_eq!((p.as_str(), c.0.len()), ("/", 0));
        assert_eq!(chunk_key(&p, &c), "c");
        // A group named `c`.
        let (p, c) = chunk_of("c/x/c/3").unwrap();
        assert_eq!((p.as_str(), c.0.clone()), ("/c/x", vec![3]));
        assert!(chunk_of("tas/zarr.json").is_none());
        assert!(chunk_of(".zgroup").is_none());
        assert!(chunk_of("tas/c/x").is_none());
    }
}
