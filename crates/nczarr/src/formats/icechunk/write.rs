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
use super::repo::{create_repository, is_repository_dir, open_repository, Version};
use super::store::IcechunkStore;
use crate::store::{Staged, StoreError, Target};
use crate::url::DatasetUrl;

/// The branch a write at `url` goes on: `#branch=NAME`, else `main`.
///
/// # Errors
/// [`StoreError::Settings`] for a tag or snapshot (read-only versions).
pub(crate) fn branch_of(url: &DatasetUrl) -> Result<String, StoreError> {
    match Version::from_url(url)? {
        Version::Branch(b) => Ok(b),
        other => Err(StoreError::Settings {
            location: url.original.clone(),
            message: format!(
                "{} cannot be written: a write makes a new snapshot on a branch (#branch=NAME)",
                other.describe()
            ),
        }),
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

/// The target of a copy into the repository at `url`: a new repository, or (with
/// `overwrite`) a new snapshot of an existing one holding only what is written.
///
/// # Errors
/// [`StoreError::Archive`] for an existing repository without `overwrite`, a new
/// repository on a branch other than `main`, an existing tag; store errors.
pub(crate) fn create_target(
    url: &DatasetUrl,
    overwrite: bool,
    mut info: CommitInfo,
) -> Result<Target, StoreError> {
    info.branch = branch_of(url)?;
    if exists(url)? {
        if !overwrite {
            return Err(StoreError::Archive {
                location: url.original.clone(),
                message: "an Icechunk repository is there: --append adds a snapshot, --overwrite replaces its contents in a new snapshot (its history is kept)".into(),
            });
        }
        let repo = open_repository(url, None)?;
        let store = IcechunkStore::writer(&repo, &info.branch)?;
        store.clear()?;
        let commit = Commit::of(&repo, &store, info)?;
        return Ok(Target::in_place(Box::new(store)).completed_by(completion(commit)));
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
    match url.path() {
        Some(path) => {
            let staged = Staged::beside(path)?;
            let temp = DatasetUrl::parse(&staged.temp.display().to_string()).map_err(|e| {
                StoreError::Settings {
                    location: staged.temp.display().to_string(),
                    message: e.to_string(),
                }
            })?;
            let repo = create_repository(&temp, None)?;
            let store = IcechunkStore::writer(&repo, "main")?;
            let commit = Commit::of(&repo, &store, info)?;
            Ok(Target::staged(Box::new(store), staged).completed_by(completion(commit)))
        }
        None => {
            let repo = create_repository(url, None)?;
            let store = IcechunkStore::writer(&repo, "main")?;
            let commit = Commit::of(&repo, &store, info)?;
            Ok(Target::in_place(Box::new(store)).completed_by(completion(commit)))
        }
    }
}

fn completion(commit: Commit) -> crate::store::Completion {
    Box::new(move || commit.commit().map(drop))
}
