//! nczarr: the netCDF-4 data model over Zarr version 2 storage (NCZarr), as netcdf-c
//! defines it, with every metadata generation netcdf-c has written and pure Zarr from
//! zarr-python and xarray.
//!
//! Modules:
//! - [`url`]: dataset names and `#mode=` fragments;
//! - [`store`]: the key/value store interface and its backends;
//! - [`json`]: a tolerant JSON reader and netcdf-style writer;
//! - [`model`]: groups, dimensions, variables, attributes, typed values;
//! - [`zarr`]: `.zarray`/`.zgroup`/`.zattrs`/`.zmetadata`, dtypes, fill values;
//! - [`nczarr`]: reading NCZarr and pure-Zarr metadata into the model;
//! - [`codec`]: numcodecs-compatible codecs and their chains;
//! - [`chunking`]: regions and chunk grids (pure arithmetic);
//! - [`mod@array`]: reading variable data through store, codecs and chunk grid;
//! - [`cdl`]: CDL text, printed exactly as ncdump prints it.
#![warn(missing_docs, unreachable_pub, clippy::unwrap_used)]

pub mod array;
pub mod aws;
pub mod cdl;
pub mod chunking;
pub mod codec;
mod error;
pub mod json;
pub mod model;
pub mod nczarr;
pub mod rc;
pub mod store;
pub mod url;
pub mod zarr;

pub use error::{Error, Result};
