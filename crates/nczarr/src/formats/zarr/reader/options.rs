//! How a Zarr store is read ([`ReadOptions`]): what every reader of this folder takes,
//! apart from `read.rs`, the driver that picks one, so that the readers need not name it.

use crate::store::TraceSink;

/// How to interpret a store.
#[derive(Clone, Default)]
pub struct ReadOptions {
    /// Ignore NCZarr metadata and read as pure Zarr (`mode=zarr`).
    pub force_pure_zarr: bool,
    /// Ignore `_ARRAY_DIMENSIONS` (`mode=noxarray`).
    pub ignore_xarray_dims: bool,
    /// Read as Zarr version 3 even if version 2 metadata is there too (`mode=zarr3`).
    pub force_v3: bool,
    /// Read as Zarr version 2 even if a `zarr.json` is there too (`mode=v2`).
    pub force_v2: bool,
    /// Report decisions here (`NCTRACING`).
    pub trace: Option<TraceSink>,
    /// About how many bytes of decoded chunks a read holds at once (default 64 MiB).
    pub batch_bytes: Option<u64>,
}
