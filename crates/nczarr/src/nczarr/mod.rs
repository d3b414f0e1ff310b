//! NCZarr and pure Zarr v2: reading a store's metadata into the netCDF model (every
//! generation netcdf-c has written, and what zarr-python and xarray write), the
//! [`ZarrSource`] over it, and the [`ZarrSink`] that writes both.
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
mod meta;
mod pure;
mod read;
mod source;
mod v3;
mod var;
mod walk;
pub mod write;

use std::collections::HashMap;

pub use detect::Generation;
pub use read::ReadOptions;
pub use source::ZarrSource;
pub use write::{
    fills_to_leave_out, parts_opener, CharDtype, Layout, PartReport, ScalarShape, WriteOptions,
    ZarrSink, OPENERS, PARTS_PREFIX,
};

use crate::array::StoredArray;
use crate::model::VarPath;
use meta::MetaSource;

/// How each variable of a dataset is stored.
pub(crate) type Arrays = HashMap<VarPath, StoredArray>;

/// The root dimension that stands for "no dimensions" in the netcdf-c 4.9.0 layout
/// (netcdf-c's own name for it): 4.9.0 crashes on arrays without dimensions.
pub(crate) const SCALAR_DIM: &str = "_scalar_";
