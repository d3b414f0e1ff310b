//! Many inputs as one dataset (`nczcopy a.nc b.nc ... out`, ncrcat's job): joined along
//! the record dimension or another, after checks that they fit together (`check.rs`),
//! seen through [`Concat`], which every tool reads as any source.

mod check;
mod view;

pub use crate::error::{JoinError, OrderHint, StructureDifference};
pub use view::{Concat, ConcatOptions};
