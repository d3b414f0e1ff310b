//! Opening a place to write a new dataset, staged beside its final location.

use crate::cloud::cloud_target;
use crate::store::{
    examine_path, DirStore, ReadStore, Staged, StoreError, Target, WritableStore, ZipWriterStore,
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

/// A new netCDF file's staging beside `url`'s path, and the file opened for writing
/// there (renamed into place by [`Staged::commit`]). An existing netCDF file is
/// replaced; anything else is refused.
///
/// # Errors
/// [`StoreError::Settings`] for a remote URL (netCDF files are written to local paths
/// for now), [`StoreError::Archive`] naming what is there, [`StoreError::Io`].
pub fn create_file(url: &DatasetUrl) -> Result<(Staged, std::fs::File), StoreError> {
    let path = match (url.storage, url.path()) {
        (StorageKind::Dir, Some(path)) => path,
        _ => {
            return Err(StoreError::Settings {
                location: url.original.clone(),
                message: "a netCDF file is written to a local path; write a Zarr dataset to object storage, or the file locally and upload it".into(),
            })
        }
    };
    crate::store::examine_file_path(path)?.or_refuse(&path.display().to_string())?;
    let staged = Staged::beside(path)?;
    let file = std::fs::File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&staged.temp)
        .map_err(|source| StoreError::Io {
            location: staged.temp.display().to_string(),
            source,
        })?;
    Ok((staged, file))
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
