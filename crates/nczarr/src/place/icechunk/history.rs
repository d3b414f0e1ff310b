//! A repository's history and references, for `zmapdump history` (snapshots newest
//! first, as `git log --oneline`) and `zmapdump refs` (branches and tags).

use futures::TryStreamExt;
use icechunk::repository::VersionInfo;

use super::repo::{Repo, Version};
use super::said;
use crate::store::StoreError;

/// One snapshot of a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotLine {
    /// Its id (20 characters).
    pub id: String,
    /// When it was written, RFC 3339 in UTC to the second.
    pub time: String,
    /// Its message.
    pub message: String,
}

/// The snapshots from `version` back to the repository's first, newest first.
///
/// # Errors
/// [`StoreError::Archive`] when the version is not in the repository.
pub fn history(repo: &Repo, version: &Version) -> Result<Vec<SnapshotLine>, StoreError> {
    let info = match version {
        Version::Branch(b) => VersionInfo::BranchTipRef(b.clone()),
        Version::Tag(t) => VersionInfo::TagRef(t.clone()),
        Version::Snapshot(_) => {
            // Checked and resolved by opening it.
            let session = repo.readonly(version)?;
            VersionInfo::SnapshotId(session.snapshot_id().clone())
        }
    };
    let fail = |message: String| StoreError::Archive {
        location: repo.location.clone(),
        message,
    };
    repo.runtime.block_on(async {
        let stream = repo
            .repo
            .ancestry(&info)
            .await
            .map_err(|e| fail(format!("no {} ({})", version.describe(), said(&e.kind))))?;
        stream
            .map_ok(|s| SnapshotLine {
                id: s.id.to_string(),
                time: s.flushed_at.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
                message: s.message,
            })
            .map_err(|e| fail(said(&e.kind)))
            .try_collect()
            .await
    })
}

/// A branch or a tag, and the snapshot it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `branch` or `tag`.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// The snapshot id.
    pub snapshot: String,
}

/// The repository's branches, then its tags, each sorted by name.
///
/// # Errors
/// Storage errors naming the repository.
pub fn references(repo: &Repo) -> Result<Vec<Reference>, StoreError> {
    let fail = |e: String| StoreError::Archive {
        location: repo.location.clone(),
        message: e,
    };
    repo.runtime.block_on(async {
        let mut out = Vec::new();
        let branches = repo
            .repo
            .list_branches()
            .await
            .map_err(|e| fail(said(&e.kind)))?;
        for name in branches {
            let id = repo
                .repo
                .lookup_branch(&name)
                .await
                .map_err(|e| fail(said(&e.kind)))?;
            out.push(Reference {
                kind: "branch",
                name,
                snapshot: id.to_string(),
            });
        }
        let tags = repo
            .repo
            .list_tags()
            .await
            .map_err(|e| fail(said(&e.kind)))?;
        for name in tags {
            let id = repo
                .repo
                .lookup_tag(&name)
                .await
                .map_err(|e| fail(said(&e.kind)))?;
            out.push(Reference {
                kind: "tag",
                name,
                snapshot: id.to_string(),
            });
        }
        Ok(out)
    })
}
