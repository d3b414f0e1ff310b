//! Reading a Zarr store into the netCDF model: `detect` picks the generation, `walk`
//! reads every NCZarr generation, `pure` pure Zarr v2, `v3` Zarr v3 (with or without
//! NCZarr's attributes); `var` and `attrs` build variables and attributes, `meta` fetches
//! the documents in batches; [`ZarrSource`] serves the values.

mod attrs;
mod detect;
mod meta;
mod options;
mod pure;
mod read;
mod source;
mod v3;
mod var;
mod walk;

pub use detect::Generation;
pub use options::ReadOptions;
pub use source::ZarrSource;

use super::conventions::SCALAR_DIM;
use super::Arrays;
use meta::MetaSource;
