//! Reading a dataset's metadata into the netCDF model: every NCZarr generation
//! netcdf-c has written, and pure Zarr from zarr-python and xarray.
//!
//! | generation | where NCZarr metadata lives | written by |
//! |---|---|---|
//! | [`Generation::V1`] | separate `.nczarr`, `.nczgroup`, `.nczarray`, `.nczattr` objects | netcdf-c 4.8 |
//! | [`Generation::UpperKeys`] | `_NCZARR_*` keys inside `.zgroup`/`.zarray`/`.zattrs` | netcdf-c 4.9.0 |
//! | [`Generation::LowerKeys`] | `_nczarr_*` keys inside `.zgroup`/`.zarray`/`.zattrs` | netcdf-c 4.9.1–4.9.2 |
//! | [`Generation::Attributes`] | `_nczarr_*` attributes in `.zattrs` | netcdf-c 4.9.3, 4.10 |
//! | [`Generation::PureZarr`] | none: groups by listing, dims from `_ARRAY_DIMENSIONS` | zarr-python, xarray |
//!
//! `detect` picks the generation from the root objects; one tolerant walker reads all
//! NCZarr generations (each accepts the others' key spellings, as netcdf-c's readers
//! partly do), `pure` reads pure Zarr. Deliberate differences from netcdf-c are
//! listed in `docs/formats.md`.

mod attrs;
mod detect;
mod pure;
mod source;
mod var;
mod walk;
pub mod write;

pub use detect::Generation;

use crate::error::{Error, Result};
use crate::model::Dataset;
use crate::store::{ReadStore, StoreKey, TraceSink};
use source::MetaSource;

/// How to interpret a store.
#[derive(Clone, Default)]
pub struct ReadOptions {
    /// Ignore NCZarr metadata and read as pure Zarr (`mode=zarr`).
    pub force_pure_zarr: bool,
    /// Ignore `_ARRAY_DIMENSIONS` (`mode=noxarray`).
    pub ignore_xarray_dims: bool,
    /// Report decisions here (`NCTRACING`).
    pub trace: Option<TraceSink>,
}

/// A dataset read from a store, with what was learned about its format.
#[derive(Debug, Clone)]
pub struct DatasetInfo {
    /// The metadata.
    pub dataset: Dataset,
    /// The metadata generation found.
    pub generation: Generation,
    /// `_NCProperties` of the root, if present.
    pub nc_properties: Option<String>,
    /// Problems that did not stop the read (an attribute or variable skipped), one line each.
    pub problems: Vec<String>,
}

impl DatasetInfo {
    /// netCDF's `_SuperblockVersion`: 2 for NCZarr 2.x, 1 for V1, 0 for pure Zarr.
    pub fn superblock_version(&self) -> i32 {
        match self.generation {
            Generation::V1 => 1,
            Generation::PureZarr => 0,
            _ => 2,
        }
    }
}

/// Read the metadata of the dataset at the root of `store`.
///
/// # Errors
/// [`Error::NotZarr`] when the store holds no Zarr dataset; JSON and metadata errors
/// naming the key; store errors.
pub fn read_dataset(store: &dyn ReadStore, options: &ReadOptions) -> Result<DatasetInfo> {
    let trace = |m: &str| {
        if let Some(t) = &options.trace {
            t(m);
        }
    };
    let root = StoreKey::root();
    let src = MetaSource::open(store, options.trace.clone())?;
    let probe =
        [".zgroup", ".zattrs", ".nczarr", ".zarray"].map(|n| StoreKey::new(n).expect("static key"));
    let docs = src.docs(&probe)?;
    let [zgroup, zattrs, nczarr, zarray] = docs;
    if zgroup.is_none() && nczarr.is_none() && !src.is_consolidated() {
        if zarray.is_some() {
            return Err(Error::metadata(
                ".zarray",
                "the store's root is a single array, not a group; netCDF datasets are groups",
            ));
        }
        return Err(Error::NotZarr {
            location: store.location(),
        });
    }
    let detected = detect::detect(zgroup.as_ref(), zattrs.as_ref(), nczarr.is_some());
    let generation = if options.force_pure_zarr {
        Generation::PureZarr
    } else {
        detected
    };
    trace(&format!(
        "metadata generation: {}{}",
        detected.describe(),
        if options.force_pure_zarr && detected != Generation::PureZarr {
            " (read as pure Zarr: mode=zarr)"
        } else {
            ""
        }
    ));
    let mut problems = Vec::new();
    let (root_group, nc_properties) = match generation {
        Generation::PureZarr => pure::read(&src, &root, zattrs, options, &mut problems)?,
        g => walk::read(&src, &root, g, zgroup, zattrs, &mut problems)?,
    };
    Ok(DatasetInfo {
        dataset: Dataset { root: root_group },
        generation,
        nc_properties,
        problems,
    })
}
