//! Variable data in a Zarr v2 array: store + codec pipeline + chunk grid, both ways.
//!
//! [`ArrayReader`] reads any hyperslab of a variable. The chunks a read touches are
//! fetched with one batch request (backends overlap them), decoded in parallel
//! (rayon), converted to host byte order and netCDF types, and copied into place;
//! missing chunks and positions beyond the stored shape read as the fill value.
//!
//! [`ArrayWriter`] is its mirror: a slab of whole chunks is cut into chunks (padded
//! with the fill value at the array's edge), encoded in parallel and put with one batch
//! request. Both use the same chunk grid and region plan ([`crate::chunking`]); memory
//! is bounded by the slab asked for plus the chunks it touches, so callers that stream
//! a large variable go slab by slab ([`crate::chunking::slabs`]).

pub(crate) mod from_stored;
mod in_place;
mod reader;
#[cfg(test)]
mod reader_tests;
pub(crate) mod shard;
mod stored;
pub(crate) mod to_stored;
mod writer;

pub use from_stored::ConvertError;
pub use reader::ArrayReader;
pub(crate) use reader::BATCH_BYTES as READ_BATCH_BYTES;
pub use shard::ShardCache;
pub use stored::{ChunkKeys, Sharding, StoredArray};
pub use writer::{ArrayWriter, Written};
