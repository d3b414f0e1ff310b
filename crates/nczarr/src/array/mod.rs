//! Reading variable data: store + codec pipeline + chunk grid.
//!
//! [`ArrayReader`] reads any hyperslab of a variable. The chunks a read touches are
//! fetched with one batch request (backends overlap them), decoded in parallel
//! (rayon), converted to host byte order and netCDF types, and copied into place;
//! missing chunks and positions beyond the stored shape read as the fill value.
//! Memory is bounded by the region asked for plus the chunks it touches: callers
//! that stream a large variable read it slab by slab ([`crate::chunking::slabs`]).

pub(crate) mod convert;
pub(crate) mod convert_out;
mod reader;

pub use reader::ArrayReader;

mod source;
pub use source::StoreSource;
