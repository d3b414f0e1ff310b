//! Subsets: `--dim DIM,MIN[,MAX[,STRIDE]]` (NCO's `ncks -d`) in every tool. Options are
//! parsed ([`DimSpec`]), looked up in a dataset ([`resolve`]: indices by index, by
//! coordinate value, by date, wrapped across a longitude's seam, multi-slabs joined),
//! and the dataset is seen through them ([`Subset`]), which every tool reads as it
//! reads any source: nczdump prints it, nczcopy writes it.

mod resolve;
mod spec;
mod view;

pub use crate::error::{DimSpecError, SubsetError};
pub use resolve::{resolve, Selections};
pub use spec::{Bound, DimSpec};
pub use view::Subset;
