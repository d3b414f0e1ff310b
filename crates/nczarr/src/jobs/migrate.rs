//! [`MigrateJob`]: a Zarr version 2 store (NCZarr or pure Zarr) given Zarr version 3
//! metadata in place, as zarr-python's `zarr migrate v3` does: no chunk read or
//! written. Each array keeps its chunks where they are (v3's `v2` chunk key encoding,
//! the same separator) and its codecs (the v2 filters and compressor as v3 codecs,
//! the byte order as the `bytes` codec's), and the v3 documents are those `nczcopy -k
//! zarr3` writes (netCDF's facts in `_nczarr_group` / `_nczarr_arrays`, dimension
//! names, consolidated metadata in the root's `zarr.json`, written last). The version 2
//! documents stay beside them, so netcdf-c and version 2 readers read the store as
//! before, all but its version 2 consolidated metadata (`.zmetadata`), removed last:
//! it would hide the new documents from readers that take it first. Version 3 readers
//! (zarr-python 3, xarray, ours) read the `zarr.json`.

use crate::error::{Error, Result};
use crate::formats::zarr::array::{ChunkKeys, StoredArray};
use crate::formats::zarr::write::{Layout, WriteOptions, ZarrSink};
use crate::formats::zarr::ZarrSource;
use crate::model::VarPath;
use crate::open::{zarr_read_options, OpenOptions};
use crate::source::DatasetSource;
use crate::url::{DatasetUrl, StorageKind};

use super::edit::writer;

/// A metadata-only migration of a Zarr v2 store to v3, in place.
#[derive(Debug, Clone)]
pub struct MigrateJob {
    /// The store.
    pub dataset: String,
}

/// What a migration did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrateReport {
    /// The arrays given version 3 documents.
    pub arrays: usize,
}

impl MigrateJob {
    /// Write the version 3 documents.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for what is not a Zarr version 2 store in a directory or a
    /// bucket, or an array whose chunks version 3 cannot read as they are; open and
    /// store errors. Nothing is written then.
    pub fn run(&self) -> Result<MigrateReport> {
        let name = &self.dataset;
        self.migrate().map_err(|e| e.named(name))
    }

    fn migrate(&self) -> Result<MigrateReport> {
        let url = DatasetUrl::parse(&self.dataset)?;
        // An array or group of another dataset named alone is not a store to migrate.
        crate::open::check_not_part(&self.dataset)?;
        let refuse = |why: String| Err(Error::Unsupported(why));
        match (url.storage, url.path()) {
            (StorageKind::Dir, Some(p)) if p.is_dir() => {}
            (StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure, _) => {}
            _ => return refuse(
                "migrated in place only in a directory or a bucket (copy it with nczcopy -k zarr3)"
                    .into(),
            ),
        }
        let store = crate::place::open_read(&url, None, crate::reach::ReferenceOptions::default())?;
        let source = ZarrSource::open(
            store.store,
            &zarr_read_options(&url, &OpenOptions::default()),
        )?;
        let format = source.format();
        if format.zarr_version != Some(2) {
            return refuse("not a Zarr version 2 store (it has version 3 metadata already)".into());
        }
        if format.superblock_version == Some(1) {
            return refuse("netcdf-c 4.8's NCZarr layout (.nczarr objects): not migrated".into());
        }
        if let Some(read) = source.store() {
            if crate::append::journal::is_interrupted(read)? {
                return refuse(
                    "an append or edit stopped half way (.nczcopy/append.json): complete it first (any nczatted edit does)".into(),
                );
            }
        }
        let dataset = source.dataset().clone();
        let mut stored = Vec::new();
        for (path, var) in dataset.vars() {
            let (_, v2) = source.stored_array(&path).ok_or_else(|| {
                Error::Unsupported(format!("variable '{path}': no array found for it"))
            })?;
            stored.push((path.clone(), as_v3(&path, v2, var.dims.is_empty())?));
        }
        let options = WriteOptions {
            layout: Layout::Current,
            zarr3: true,
            nc_properties: format.nc_properties.clone().unwrap_or_default(),
            ..WriteOptions::default()
        };
        let arrays = stored.len();
        ZarrSink::write_v3_documents(writer(&url)?, options, &dataset, stored)?;
        // Version 2's consolidated metadata would hide the version 3 documents from a
        // reader that takes it first (and go stale): the v3 root holds its own.
        let zmetadata = crate::store::StoreKey::new(".zmetadata")?;
        let write = writer(&url)?;
        write.delete(&zmetadata)?;
        write.finish()?;
        Ok(MigrateReport { arrays })
    }
}

/// The version 3 form of a version 2 array stored as `v2`: the same chunks at the
/// same keys, read by the same codecs.
fn as_v3(path: &VarPath, v2: &StoredArray, scalar: bool) -> Result<StoredArray> {
    if v2.transpose.is_some() {
        return Err(Error::Unsupported(format!(
            "variable '{path}': its chunks are in Fortran order (\"order\": \"F\"): not migrated (copy it with nczcopy -k zarr3)"
        )));
    }
    let ChunkKeys::V2(_) = v2.keys else {
        return Err(Error::Unsupported(format!(
            "variable '{path}': not a version 2 array"
        )));
    };
    let mut v3 = v2.clone();
    v3.filters.extend(v3.compressor.take());
    // NCZarr keeps a netCDF scalar as a one-element array; v3 says what it is (its one
    // chunk, `0`, holds the same bytes).
    if scalar && v3.shape == [1] {
        v3.shape.clear();
        v3.chunks.clear();
    }
    Ok(v3)
}
