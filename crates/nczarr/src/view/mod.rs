//! A quick look at a slice (`nczview`): one 2-D slice of a variable read in bounded
//! memory and reduced to the picture's size (`field`), CF-decoded (`decode`), placed on
//! a colour scale as xarray's `.plot()` places it (`norm`) and coloured with
//! matplotlib's own tables (`colormap`); then a raster and PNG (`raster`), half blocks
//! or the kitty protocol for a terminal (`term`), or a decorated picture with axes,
//! colour bar and title (`picture`, drawn on `canvas` with a bundled font).

pub mod canvas;
pub mod colormap;
mod colormap_tables;
pub mod decode;
pub mod field;
pub mod norm;
pub mod picture;
pub mod raster;
pub mod term;
pub mod ticks;

pub use crate::error::{NormError, ViewError};
pub use colormap::Colormap;
pub use field::{read_field, Field, FieldRequest};
pub use norm::{choose, Limits, Norm, Scale};
