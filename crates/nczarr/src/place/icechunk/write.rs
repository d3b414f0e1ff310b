//! Where a copy into a repository writes: a session on a branch of a new or existing
//! repository, committed as one snapshot when the copy is complete.
//!
//! A new repository on a local disk is made beside its place and renamed into place
//! after its commit, as every new dataset of ours; in a bucket it is made in place (a
//! run that fails leaves the repository with only its initial, empty snapshot; a
//! later `--overwrite` fills it). An existing repository (`--overwrite`) gets a new
//! snapshot whose contents replace the old: its history is kept, and the old contents
//! stay readable by snapshot id and tag.

use super::commit::{Commit, CommitInfo};
use super::repo::{create_repository, declaring, is_repository_dir, open_repository, Version};
use super::store::IcechunkStore;
use crate::store::{Staged, StoreError, Target};
use crate::url::DatasetUrl;

/// The branch a write at `url` goes on: `#branch=NAME`, else `main`.
///
/// # Errors
/// [`StoreError::Settings`] for a tag or snapshot (read-only versions).
pub(crate) fn branch_of(url: &DatasetUrl) -> Result<String, StoreError> {
    match Version::from_url(url)? {
        Version::Branch(b) => {
            super::repo::check_ref_name("branch", &b, &url.original)?;
            Ok(b)
        }
        other => Err(StoreError::Settings {
            location: url.original.clone(),
            message: format!(
                "{} cannot be written: a write makes a new snapshot on a branch (#branch=NAME)",
                other.describe()
            ),
        }),
    }
}

/// True when `url` is written as a repository: `#mode=icechunk`, or a repository is
/// there (a local directory looked at; an object store asked).
///
/// # Errors
/// Store errors asking.
pub(crate) fn names_repository(url: &DatasetUrl) -> Result<bool, StoreError> {
    if url.modes.has("icechunk") {
        return Ok(true);
    }
    match url.storage {
        crate::url::StorageKind::S3
        | crate::url::StorageKind::Gcs
        | crate::url::StorageKind::Azure => exists(url),
        _ => Ok(url.path().is_some_and(is_repository_dir)),
    }
}

/// True when `url` names an existing repository (a local directory looked at; an
/// object store asked for its `repo` object).
///
/// # Errors
/// Store errors asking.
pub(crate) fn exists(url: &DatasetUrl) -> Result<bool, StoreError> {
    if let Some(path) = url.path() {
        return Ok(is_repository_dir(path));
    }
    match open_repository(url, None) {
        Ok(_) => Ok(true),
        Err(StoreError::NotFound { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// A session writing into a repository, with its commit, and (a new local
/// repository) the staging it is renamed from.
pub(crate) struct Writing {
    pub(crate) store: std::sync::Arc<IcechunkStore>,
    commit: Commit,
    staged: Option<Staged>,
}

impl Writing {
    /// As a target of the Zarr writer: committed (then renamed into place) when the
    /// writer finishes.
    pub(crate) fn into_target(self) -> Target {
        let commit = self.commit;
        let target = match self.staged {
            Some(staged) => Target::staged(Box::new(self.store), staged),
            None => Target::in_place(Box::new(self.store)),
        };
        target.completed_by(Box::new(move || commit.commit().map(drop)))
    }

    /// Commit what was written (then rename a new local repository into place).
    ///
    /// # Errors
    /// As [`Commit::commit`]; the rename's.
    pub(crate) fn finish(self) -> Result<super::Committed, StoreError> {
        let done = self.commit.commit()?;
        if let Some(staged) = self.staged {
            staged.commit()?;
        }
        Ok(done)
    }
}

/// The target of a copy into the repository at `url`: a new repository, or (with
/// `overwrite`) a new snapshot of an existing one holding only what is written.
///
/// # Errors
/// [`StoreError::Archive`] for an existing repository without `overwrite`, a new
/// repository on a branch other than `main`, an existing tag; store errors.
pub(crate) fn create_target(
    url: &DatasetUrl,
    overwrite: bool,
    info: CommitInfo,
) -> Result<Target, StoreError> {
    Ok(start(url, overwrite, info, None)?.into_target())
}

/// Start writing into the repository at `url` (see [`create_target`]), its config
/// given `containers` (virtual chunk containers) declared.
///
/// # Errors
/// As [`create_target`].
pub(crate) fn start(
    url: &DatasetUrl,
    overwrite: bool,
    mut info: CommitInfo,
    containers: Option<Vec<icechunk::virtual_chunks::VirtualChunkContainer>>,
) -> Result<Writing, StoreError> {
    use std::sync::Arc;
    if matches!(
        url.storage,
        crate::url::StorageKind::Zip | crate::url::StorageKind::Http
    ) {
        return Err(StoreError::Archive {
            location: url.original.clone(),
            message: "an Icechunk repository is written to a directory or an S3, GCS or Azure prefix, not a zip archive or a web server".into(),
        });
    }
    info.branch = branch_of(url)?;
    if let Some(tag) = &info.tag {
        super::repo::check_ref_name("tag", tag, &url.original)?;
    }
    if exists(url)? {
        if !overwrite {
            return Err(StoreError::Archive {
                location: url.original.clone(),
                message: "an Icechunk repository is there: --append adds a snapshot, --overwrite replaces its contents in a new snapshot (its history is kept)".into(),
            });
        }
        let mut repo = open_repository(url, None)?;
        if let Some(containers) = &containers {
            let config = declaring(&url.original, repo.repo.config().clone(), containers)?;
            repo = super::repo::with_config(repo, config)?;
        }
        let store = Arc::new(IcechunkStore::writer(&repo, &info.branch)?);
        store.clear()?;
        let commit = Commit::of(&repo, &store, info)?;
        return Ok(Writing {
            store,
            commit,
            staged: None,
        });
    }
    if info.branch != "main" {
        return Err(StoreError::Archive {
            location: url.original.clone(),
            message: format!(
                "no repository here to have a branch '{}': a new repository's first snapshot goes on main",
                info.branch
            ),
        });
    }
    let config = match &containers {
        Some(containers) => Some(declaring(
            &url.original,
            icechunk::RepositoryConfig::default(),
            containers,
        )?),
        None => None,
    };
    let (repo, staged) = match url.path() {
        Some(path) => {
            // Only a dataset is ever replaced (with --overwrite, checked before): a
            // directory of anything else, or a file, is refused here.
            refuse_foreign(path)?;
            let staged = Staged::beside(path)?;
            let temp = DatasetUrl::parse(&staged.temp.display().to_string()).map_err(|e| {
                StoreError::Settings {
                    location: staged.temp.display().to_string(),
                    message: e.to_string(),
                }
            })?;
            (create_repository(&temp, config)?, Some(staged))
        }
        None => (create_repository(url, config)?, None),
    };
    let store = Arc::new(IcechunkStore::writer(&repo, "main")?);
    let commit = Commit::of(&repo, &store, info)?;
    Ok(Writing {
        store,
        commit,
        staged,
    })
}

/// Refuse to make a repository at `path` when what is there is not a dataset.
///
/// # Errors
/// [`StoreError::Archive`] naming what is there.
pub(crate) fn refuse_foreign(path: &std::path::Path) -> Result<(), StoreError> {
    crate::store::examine_path(path, false)?
        .or_refuse(&path.display().to_string())
        .map(drop)
}
