//! Opening a place to write a new dataset, staged beside its final location.

use crate::cloud::cloud_target;
use crate::store::{
    examine_path, DirStore, ReadStore, ReadableStore, Staged, StoreError, StoreKey, Target,
    WritableStore, ZipWriterStore,
};
use crate::url::{DatasetUrl, StorageKind};

/// Refuse to write at `path` when what is there is not a dataset (see
/// [`crate::store::existing`]): a dataset is only ever replaced by another.
///
/// # Errors
/// [`StoreError::Archive`] naming what is there; [`StoreError::Io`] when it cannot be
/// looked at.
fn refuse_foreign(path: &std::path::Path, zip: bool) -> Result<(), StoreError> {
    examine_path(path, zip)?
        .or_refuse(&path.display().to_string())
        .map(drop)
}

/// Which run of a copy in parts a target is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartsRun {
    /// The first run, which writes the metadata (and refuses an existing dataset on
    /// S3 unless told to overwrite it).
    Start,
    /// A later run: one part's chunks, or the finishing run.
    Resume,
}

/// Where a copy in parts writes, and a reader of the same place (runs check what the
/// first one wrote): on S3 the dataset's own place; for a directory, `.<name>.parts`
/// beside it, moved into place by the finishing run's commit. A zip archive is written
/// in one go and cannot be made in parts.
///
/// # Errors
/// [`StoreError::Archive`] for a zip output, or an S3 place that holds objects (`Start`
/// without `overwrite`); [`StoreError::Io`] when there is no staging to resume.
pub fn parts_target(
    url: &DatasetUrl,
    run: PartsRun,
    overwrite: bool,
) -> Result<(Target, Box<dyn ReadStore>), StoreError> {
    match url.storage {
        StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure => {
            let reader = Box::new(super::open_cloud(url, None, false)?);
            let store = super::open_cloud(url, None, true)?;
            let target = match run {
                PartsRun::Start => cloud_target(store, overwrite)?,
                PartsRun::Resume => Target::in_place(Box::new(store)),
            };
            Ok((target, reader))
        }
        StorageKind::Zip => Err(StoreError::Archive {
            location: url.original.clone(),
            message: "a zip archive is written in one go and cannot be made in parts; copy to a directory or S3".into(),
        }),
        StorageKind::Http => Err(read_only_web(url)),
        StorageKind::Dir => {
            let path = url.path().ok_or_else(|| StoreError::Archive {
                location: url.original.clone(),
                message: "not a local path".into(),
            })?;
            if run == PartsRun::Start {
                refuse_foreign(path, false)?;
            }
            let staged = Staged::for_parts(path, run == PartsRun::Start)?;
            let reader = Box::new(DirStore::open(&staged.temp)?);
            let store = Box::new(DirStore::at(&staged.temp));
            Ok((
                Target::staged(store, staged),
                reader,
            ))
        }
    }
}

/// How a zip archive lays out its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ZipLayout {
    /// Keys at the archive root, as zarr-python's `ZipStore` writes and reads them.
    #[default]
    Root,
    /// Keys under one top-level directory named after the zip file, as netcdf-c
    /// requires.
    TopDirectory,
}

/// Create the dataset `url` names, staged: nothing appears at the destination until
/// [`Target::commit`]. A directory or zip replaces what was there when committed; on S3
/// an existing dataset is refused, or replaced (not atomically) with `overwrite`.
///
/// # Errors
/// [`StoreError`] when the staging place cannot be created.
pub fn create_target(
    url: &DatasetUrl,
    zip_layout: ZipLayout,
    overwrite: bool,
) -> Result<Target, StoreError> {
    match url.storage {
        StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure => {
            return cloud_target(super::open_cloud(url, None, true)?, overwrite)
        }
        StorageKind::Http => return Err(read_only_web(url)),
        StorageKind::Dir | StorageKind::Zip => {}
    }
    let path = url.path().ok_or_else(|| StoreError::Archive {
        location: url.original.clone(),
        message: "a remote URL needs mode=s3 (or an s3:// or *.amazonaws.com URL)".into(),
    })?;
    refuse_foreign(path, url.storage == StorageKind::Zip)?;
    let staged = Staged::beside(path)?;
    let store: Box<dyn WritableStore> = match url.storage {
        StorageKind::Dir => {
            std::fs::create_dir_all(&staged.temp).map_err(|source| StoreError::Io {
                location: staged.temp.display().to_string(),
                source,
            })?;
            Box::new(DirStore::at(&staged.temp))
        }
        StorageKind::Zip => {
            let top = match zip_layout {
                ZipLayout::Root => None,
                ZipLayout::TopDirectory => Some(url.base_name()),
            };
            Box::new(ZipWriterStore::create(&staged.temp, top.as_deref())?)
        }
        // Handled above; kept so the match stays exhaustive without a panic.
        StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure | StorageKind::Http => {
            return Err(StoreError::Archive {
                location: url.original.clone(),
                message: "a remote target reached the local path".into(),
            })
        }
    };
    Ok(Target::staged(store, staged))
}

/// Where a new netCDF file goes: beside a local path (renamed into place when
/// complete), or, for an object in S3, GCS or Azure, a local temporary file uploaded as
/// the one object when complete.
#[derive(Debug)]
pub struct FileTarget {
    /// Where the file is written.
    pub staged: Staged,
    remote: Option<(crate::cloud::CloudStore, StoreKey, String)>,
}

impl FileTarget {
    /// The target as the user named it.
    pub fn location(&self) -> String {
        match &self.remote {
            Some((_, _, name)) => name.clone(),
            None => self.staged.target.display().to_string(),
        }
    }

    /// Put the written file in place: renamed (made durable first), or uploaded.
    ///
    /// # Errors
    /// [`StoreError`] of the rename or the upload; what was at the target is then kept.
    pub fn commit(self) -> Result<(), StoreError> {
        match self.remote {
            None => self.staged.commit(),
            // The staging is removed when dropped, uploaded or not.
            Some((store, key, _)) => store.upload_file(&key, &self.staged.temp),
        }
    }
}

/// A new netCDF file for `url` and the file opened for writing (see [`FileTarget`]).
/// An existing netCDF file (or object) is replaced; anything else is refused.
///
/// # Errors
/// [`StoreError::Settings`] for a web server or zip, [`StoreError::Archive`] naming
/// what is there, [`StoreError::Io`], and the object store's errors.
pub fn create_file(url: &DatasetUrl) -> Result<(FileTarget, std::fs::File), StoreError> {
    let (staged, remote) = match (url.storage, url.path()) {
        (StorageKind::Dir, Some(path)) => {
            crate::store::examine_file_path(path)?.or_refuse(&path.display().to_string())?;
            (Staged::beside(path)?, None)
        }
        (StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure, _) => {
            let (store, key) = remote_file(url)?;
            let local = std::env::temp_dir().join(format!(
                "nczarr-upload-{}",
                key.as_str().rsplit('/').next().unwrap_or("file")
            ));
            (
                Staged::beside(&local)?,
                Some((store, key, url.original.clone())),
            )
        }
        _ => {
            return Err(StoreError::Settings {
                location: url.original.clone(),
                message: "a netCDF file is written to a local path or to S3, GCS or Azure".into(),
            })
        }
    };
    let file = std::fs::File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&staged.temp)
        .map_err(|source| StoreError::Io {
            location: staged.temp.display().to_string(),
            source,
        })?;
    Ok((FileTarget { staged, remote }, file))
}

/// The store of the "directory" holding the object `url` names, and the object's key
/// there; refused when an object there is not a netCDF file.
fn remote_file(url: &DatasetUrl) -> Result<(crate::cloud::CloudStore, StoreKey), StoreError> {
    let fail = |message: &str| StoreError::Settings {
        location: url.original.clone(),
        message: message.into(),
    };
    let crate::url::Location::Remote { path, .. } = &url.location else {
        return Err(fail("not an object store URL"));
    };
    let (parent, name) = match path.trim_end_matches('/').rsplit_once('/') {
        Some((p, n)) => (p.to_string(), n.to_string()),
        None => (String::new(), path.trim_end_matches('/').to_string()),
    };
    if name.is_empty() {
        return Err(fail("names a bucket, not an object: add the file's name"));
    }
    let mut at = url.clone();
    if let crate::url::Location::Remote { path, .. } = &mut at.location {
        *path = parent;
    }
    let store = super::open_cloud(&at, None, true)?;
    let key = StoreKey::new(&name).map_err(|e| fail(&e.to_string()))?;
    if store.size(&key)?.is_some() {
        let head = store
            .get_range(&key, &crate::store::ByteRange::Bounded(0..8))?
            .unwrap_or_default();
        if !crate::store::is_netcdf_magic(&head) {
            return Err(StoreError::Archive {
                location: url.original.clone(),
                message: "already exists and is an object that is not a netCDF file; nothing was written (only a dataset is ever replaced: move it away or choose another name)".into(),
            });
        }
    }
    Ok((store, key))
}

/// A web server is read, never written.
fn read_only_web(url: &DatasetUrl) -> StoreError {
    StoreError::Archive {
        location: url.original.clone(),
        message: "a web server (http/https URL) cannot be written; write to a directory, a .zip, S3 ('#mode=s3' for an S3-compatible server), GCS or Azure".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::conformance::{check_staged_writes, WriteCase};
    use crate::store::{DirStore, ReadStore, ZipStore};

    fn case_at(path: &std::path::Path, zip: Option<ZipLayout>) {
        let url = DatasetUrl::parse(&path.display().to_string()).unwrap();
        let layout = zip.unwrap_or_default();
        let create = || create_target(&url, layout, false);
        let read_back = || -> Option<Box<dyn ReadStore>> {
            match zip {
                None => DirStore::open(path).ok().map(|s| Box::new(s) as _),
                Some(_) => ZipStore::open(path).ok().map(|s| Box::new(s) as _),
            }
        };
        check_staged_writes(&WriteCase {
            create: &create,
            read_back: &read_back,
            staged: true,
            overwrite_replaces: zip.is_none(),
            replaces_existing: true,
        });
    }

    #[test]
    fn directory_conformance() {
        let tmp = tempfile::tempdir().unwrap();
        case_at(&tmp.path().join("d.zarr"), None);
    }

    #[test]
    fn zip_conformance_both_layouts() {
        let tmp = tempfile::tempdir().unwrap();
        case_at(&tmp.path().join("r.zip"), Some(ZipLayout::Root));
        case_at(&tmp.path().join("t.zip"), Some(ZipLayout::TopDirectory));
    }
}
