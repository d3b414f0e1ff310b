//! The Zarr family: NCZarr (netCDF-4 on Zarr v2, every generation netcdf-c has written),
//! pure Zarr v2 and Zarr v3 (zarr-python, xarray, zarrs). One folder per job:
//!
//! - [`v2`], [`v3`]: the documents of each Zarr version (nothing of netCDF in them);
//! - [`mod@array`]: one chunked array read and written by region (chunks, shards, codecs);
//! - `conventions`: what NCZarr adds and both directions share (key and attribute names);
//! - `reader`: a store's metadata into the netCDF model, and the [`ZarrSource`] over it;
//! - [`mod@write`]: the [`ZarrSink`] that writes NCZarr, pure Zarr v2 and Zarr v3.
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

pub mod array;
pub(crate) mod attr_docs;
mod conventions;
pub(crate) mod doc_set;
mod reader;
pub(crate) mod rename_docs;
pub mod v2;
pub mod v3;
pub mod write;

use std::collections::HashMap;

pub(crate) use conventions::array_key as array_key_of;
pub use reader::{Generation, ReadOptions, ZarrSource};
pub use write::{
    fills_to_leave_out, parts_opener, CharDtype, Layout, PartReport, ScalarShape, WriteOptions,
    ZarrSink, OPENERS, PARTS_PREFIX,
};

pub(crate) use conventions::SCALAR_DIM;

use crate::model::VarPath;
use array::StoredArray;

/// How each variable of a dataset is stored.
pub(crate) type Arrays = HashMap<VarPath, StoredArray>;
