//! netCDF-4 files (HDF5, including the netCDF-4 classic model) as dataset sources,
//! and as outputs ([`mod@write`], our own HDF5 writer).
//!
//! The HDF5 format itself (superblocks, object headers, B-trees, heaps, chunk
//! indexes, filters) is read by the pure-Rust `hdf5-reader` crate. What is ours is
//! netCDF-4's layer on top of it, as netcdf-c defines it: dimensions from dimension
//! scales, hidden attributes, the twelve atomic types, and the encoding `ncdump -s`
//! describes, so that a netCDF-4 file is one more [`crate::source::DatasetSource`].

mod attrs;
mod chunks;
mod collection;
mod fault;
mod heap;
mod meta;
mod order;
mod places;
mod refs;
mod source;
mod stored;
#[cfg(test)]
mod test_file;
mod types;
mod user;
pub mod write;

pub(crate) use meta::RESERVED as RESERVED_ATTS;
pub use source::Hdf5Source;
pub use write::Nc4Sink;
