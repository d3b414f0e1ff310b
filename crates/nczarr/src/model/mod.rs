//! The netCDF-4 data model as NCZarr can express it: groups, shared dimensions,
//! variables of the twelve atomic types, typed attributes.
//!
//! This module holds no I/O. A [`Var`] carries the Zarr encoding it was read
//! with (or will be written with) as plain data, so that printing `-s` special
//! attributes and copying keep it, but reading data is the job of `array`.

mod dataset;
mod types;
mod values;

pub use dataset::{Attr, Dataset, Dim, DimRef, Group, Var, VarEncoding};
pub use types::NcType;
pub use values::Values;
