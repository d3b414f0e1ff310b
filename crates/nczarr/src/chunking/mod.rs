//! Regions and chunk grids: pure arithmetic, no I/O.
//!
//! A [`Region`] is a netCDF hyperslab (start, count, stride per dimension). A
//! [`ChunkGrid`] cuts an array into chunks; [`ChunkGrid::parts`] says which chunks a
//! region touches and, per dimension, which positions of each chunk go where in the
//! region's output.

mod grid;
mod policy;
mod region;

pub use grid::{
    block_row_starts, block_runs, c_strides, for_each_index, place_block, ChunkGrid, ChunkPart,
    DimRun,
};
pub use policy::{
    aligned_units, block_slabs, default_chunks, default_chunks_unlimited, netcdf4_default_chunks,
    slabs, small_first, SlabOrder, DEFAULT_CHUNK_BYTES,
};
pub use region::{region_offsets, Region, RegionError};
