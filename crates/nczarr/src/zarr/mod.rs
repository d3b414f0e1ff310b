//! Zarr version 2 documents: `.zarray`, `.zgroup`, `.zattrs`, `.zmetadata`, dtypes
//! and fill values.
//!
//! Spec: <https://zarr-specs.readthedocs.io/en/latest/v2/v2.0.html>. These types
//! know nothing of NCZarr; the `nczarr` module layers netCDF meaning on top.

mod array;
mod consolidated;
mod dtype;
mod fill;

pub use array::ArrayMeta;
pub use consolidated::Consolidated;
pub use dtype::{Dtype, DtypeError, Endian};
pub use fill::{parse_fill_value, FillError};
