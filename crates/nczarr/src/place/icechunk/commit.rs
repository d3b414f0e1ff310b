//! The one commit that makes a write a snapshot: everything the run wrote appears at
//! once on the branch, or nothing does (a killed run leaves the branch at its previous
//! snapshot; the chunks it uploaded stay unreachable until Icechunk's garbage
//! collection removes them).
//!
//! A commit that loses a race (another writer moved the branch since the run started)
//! is rebased once onto the new tip when the two changed different things (Icechunk's
//! conflict detector decides), else refused, naming what both changed.

use std::sync::Arc;

use icechunk::conflicts::detector::ConflictDetector;
use icechunk::session::SessionErrorKind;

use super::repo::Repo;
use super::said;
use super::store::IcechunkStore;
use crate::store::StoreError;

/// What a commit says: its message, the tag it gets, and the branch it goes on.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    /// The snapshot's message (nczcopy's default: its command line).
    pub message: String,
    /// A tag for the new snapshot (tags are never moved: an existing one is refused
    /// before anything is written).
    pub tag: Option<String>,
    /// The branch the snapshot goes on.
    pub branch: String,
}

impl Default for CommitInfo {
    fn default() -> CommitInfo {
        CommitInfo::new("written by nczarr-tools")
    }
}

impl CommitInfo {
    /// A commit with `message` on `main`, untagged.
    pub fn new(message: impl Into<String>) -> CommitInfo {
        CommitInfo {
            message: message.into(),
            tag: None,
            branch: "main".into(),
        }
    }
}

/// A commit made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The new snapshot's id.
    pub snapshot: String,
    /// The branch had moved, and the commit was rebased onto its new tip.
    pub rebased: bool,
}

/// The commit still to make of what a session wrote.
pub struct Commit {
    repo: Arc<icechunk::Repository>,
    session: Arc<tokio::sync::RwLock<icechunk::session::Session>>,
    runtime: &'static tokio::runtime::Runtime,
    location: String,
    info: CommitInfo,
    pending: Arc<std::sync::Mutex<Vec<super::store::PendingChunk>>>,
}

impl std::fmt::Debug for Commit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Commit({} on {})", self.location, self.info.branch)
    }
}

impl Commit {
    /// The commit of what `store` (a session writing on `info.branch`) writes.
    ///
    /// # Errors
    /// [`StoreError::Archive`] when `info.tag` exists already;
    /// [`StoreError::Settings`] when it is no name (see `check_ref_name`).
    pub fn of(repo: &Repo, store: &IcechunkStore, info: CommitInfo) -> Result<Commit, StoreError> {
        if let Some(tag) = &info.tag {
            super::repo::check_ref_name("tag", tag, &repo.location)?;
            if repo.runtime.block_on(repo.repo.lookup_tag(tag)).is_ok() {
                return Err(StoreError::Archive {
                    location: repo.location.clone(),
                    message: format!(
                        "the repository has a tag '{tag}' already (tags are never moved); nothing was written"
                    ),
                });
            }
        }
        Ok(Commit {
            repo: Arc::clone(&repo.repo),
            session: Arc::clone(&store.session),
            runtime: repo.runtime,
            location: repo.location.clone(),
            info,
            pending: Arc::clone(&store.pending),
        })
    }

    /// Make the snapshot (and its tag).
    ///
    /// # Errors
    /// [`StoreError::Archive`] when another writer changed the same things since the
    /// session started (nothing committed), or the repository refuses.
    pub fn commit(self) -> Result<Committed, StoreError> {
        crate::store::check_cancelled()?;
        let fail = |message: String| StoreError::Archive {
            location: self.location.clone(),
            message,
        };
        // A chunk whose array never came (or never grew to hold it): a writer's fault,
        // not to be committed as a snapshot missing it.
        if let Some(first) = self
            .pending
            .lock()
            .ok()
            .and_then(|p| p.first().map(|c| c.key()))
        {
            return Err(fail(format!(
                "chunk '{first}' was written for an array its document does not define; nothing was committed"
            )));
        }
        let (id, rebased) = self.runtime.block_on(async {
            let mut session = self.session.write().await;
            let first = session
                .commit(self.info.message.clone())
                .allow_empty(true)
                .execute()
                .await;
            match first {
                Ok(id) => Ok((id, false)),
                Err(e) if matches!(e.kind, SessionErrorKind::Conflict { .. }) => {
                    match session.rebase(&ConflictDetector).await {
                        Ok(()) => session
                            .commit(self.info.message.clone())
                            .allow_empty(true)
                            .execute()
                            .await
                            .map(|id| (id, true))
                            .map_err(|e| fail(lost_race(&e.kind))),
                        Err(e) => Err(fail(lost_race(&e.kind))),
                    }
                }
                Err(e) => Err(fail(format!("commit failed: {}", said(&e.kind)))),
            }
        })?;
        if let Some(tag) = &self.info.tag {
            self.runtime
                .block_on(self.repo.create_tag(tag, &id))
                .map_err(|e| {
                    fail(format!(
                        "snapshot {id} was committed, but tag '{tag}' could not be made: {}",
                        said(&e.kind)
                    ))
                })?;
        }
        Ok(Committed {
            snapshot: id.to_string(),
            rebased,
        })
    }
}

/// Refuse before anything is written when the nodes of `branch` cannot be moved (a
/// version 1 repository, or one whose move feature is off).
///
/// # Errors
/// [`StoreError::Archive`] saying why.
pub fn check_moves(repo: &Repo, branch: &str) -> Result<(), StoreError> {
    repo.runtime
        .block_on(repo.repo.rearrange_session(branch))
        .map(drop)
        .map_err(|e| StoreError::Archive {
            location: repo.location.clone(),
            message: format!(
                "its variables and groups cannot be renamed: {}; nothing was changed",
                said(&e.kind)
            ),
        })
}

/// Move the nodes of `branch` named in `moves` (each `from` path to its `to`, in order,
/// each named as the moves before it left it) in one rearrange session (Icechunk's
/// only way to rename: no chunk read or written), committed with `message`; `amend`
/// replaces the branch's tip (a snapshot this run just made) with the result, so that
/// the two are one snapshot in the history.
///
/// # Errors
/// [`StoreError::Archive`] when the repository refuses a move (a version 1
/// repository, a name taken) or the commit, nothing moved.
pub fn move_nodes(
    repo: &Repo,
    branch: &str,
    moves: &[(String, String)],
    message: &str,
    amend: bool,
) -> Result<Committed, StoreError> {
    let fail = |message: String| StoreError::Archive {
        location: repo.location.clone(),
        message,
    };
    let path = |p: &str| {
        icechunk::format::Path::new(&format!("/{}", p.trim_start_matches('/')))
            .map_err(|e| fail(format!("'{p}' is no node path: {e}")))
    };
    let id = repo.runtime.block_on(async {
        let mut session = repo
            .repo
            .rearrange_session(branch)
            .await
            .map_err(|e| fail(format!("its nodes cannot be moved: {}", said(&e.kind))))?;
        for (from, to) in moves {
            session
                .move_node(path(from)?, path(to)?)
                .await
                .map_err(|e| fail(format!("'{from}' not moved to '{to}': {}", said(&e.kind))))?;
        }
        let commit = session.commit(message.to_string());
        let commit = if amend { commit.amend() } else { commit };
        commit
            .execute()
            .await
            .map_err(|e| fail(format!("commit failed: {}", said(&e.kind))))
    })?;
    Ok(Committed {
        snapshot: id.to_string(),
        rebased: false,
    })
}

/// Why a commit that lost a race was not made.
fn lost_race(kind: &SessionErrorKind) -> String {
    let what = match kind {
        SessionErrorKind::RebaseFailed { conflicts, .. } => {
            let listed: Vec<String> = conflicts.iter().take(3).map(|c| format!("{c:?}")).collect();
            format!(" ({})", listed.join("; "))
        }
        other => format!(" ({})", said(other)),
    };
    format!(
        "another writer committed to the branch while this run wrote, and changed the same things{what}; nothing was committed (run again on the new tip)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::place::icechunk::{create_repository, IcechunkStore};
    use crate::store::{StoreKey, WritableStore};
    use crate::url::DatasetUrl;

    const GROUP: &str = r#"{"zarr_format":3,"node_type":"group","attributes":{}}"#;

    fn array(len: u64) -> String {
        format!(
            r#"{{"zarr_format":3,"node_type":"array","shape":[{len}],"data_type":"int32","chunk_grid":{{"name":"regular","configuration":{{"chunk_shape":[4]}}}},"chunk_key_encoding":{{"name":"default","configuration":{{"separator":"/"}}}},"fill_value":0,"codecs":[{{"name":"bytes","configuration":{{"endian":"little"}}}}]}}"#
        )
    }

    fn put(store: &IcechunkStore, key: &str, value: &[u8]) {
        store.put(&StoreKey::new(key).unwrap(), value).unwrap();
    }

    #[test]
    fn a_lost_race_is_rebased_once_when_apart_and_refused_when_not() {
        let tmp = tempfile::tempdir().unwrap();
        let url = DatasetUrl::parse(&tmp.path().join("r.ice").display().to_string()).unwrap();
        let repo = create_repository(&url, None).unwrap();
        let base = IcechunkStore::writer(&repo, "main").unwrap();
        put(&base, "zarr.json", GROUP.as_bytes());
        put(&base, "a/zarr.json", array(8).as_bytes());
        put(&base, "b/zarr.json", array(8).as_bytes());
        Commit::of(&repo, &base, CommitInfo::new("base"))
            .unwrap()
            .commit()
            .unwrap();
        // Two writers from the same tip: one writes a's chunks, the other b's.
        let one = IcechunkStore::writer(&repo, "main").unwrap();
        let two = IcechunkStore::writer(&repo, "main").unwrap();
        put(&one, "a/c/0", &[1u8; 16]);
        put(&two, "b/c/1", &[2u8; 16]);
        let first = Commit::of(&repo, &one, CommitInfo::new("one"))
            .unwrap()
            .commit()
            .unwrap();
        assert!(!first.rebased);
        let second = Commit::of(&repo, &two, CommitInfo::new("two"))
            .unwrap()
            .commit()
            .unwrap();
        assert!(second.rebased, "the branch had moved: rebased onto it");
        // Both are in the tip.
        let tip = IcechunkStore::reader(
            &repo,
            &crate::place::icechunk::Version::Branch("main".into()),
            Default::default(),
        )
        .unwrap();
        use crate::store::ReadableStore;
        assert_eq!(
            tip.get(&StoreKey::new("a/c/0").unwrap()).unwrap(),
            Some(vec![1u8; 16])
        );
        assert_eq!(
            tip.get(&StoreKey::new("b/c/1").unwrap()).unwrap(),
            Some(vec![2u8; 16])
        );
        // Two writers changing the same array's document: the second is refused.
        let three = IcechunkStore::writer(&repo, "main").unwrap();
        let four = IcechunkStore::writer(&repo, "main").unwrap();
        put(&three, "a/zarr.json", array(12).as_bytes());
        put(&four, "a/zarr.json", array(16).as_bytes());
        Commit::of(&repo, &three, CommitInfo::new("three"))
            .unwrap()
            .commit()
            .unwrap();
        let e = Commit::of(&repo, &four, CommitInfo::new("four"))
            .unwrap()
            .commit()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("another writer committed to the branch while this run wrote"),
            "{e}"
        );
        assert!(e.contains("nothing was committed"), "{e}");
    }
}
