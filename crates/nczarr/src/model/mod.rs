//! The netCDF-4 data model as NCZarr can express it: groups, shared dimensions,
//! variables of the twelve atomic types, typed attributes.
//!
//! This module holds no I/O and knows no storage format: how a variable is stored is
//! the `encoding` module's `Encoding`, which sources give and sinks take beside the model.

pub mod cf_links;
mod dataset;
mod path;
pub mod select;
mod strings;
mod types;
pub mod user;
mod user_type;
mod values;

pub use dataset::{Attr, Dataset, Dim, DimRef, Group, Var};
pub use path::{GroupPath, VarPath};
pub(crate) use strings::extend_short;
pub use strings::{Strings, TooLarge};
pub use types::NcType;
pub use user_type::{Field, TypeId, TypeRef, UValue, UserAttr, UserKind, UserType};
pub use values::Values;
