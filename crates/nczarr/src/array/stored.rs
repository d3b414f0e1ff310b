//! How one Zarr v2 array is stored, as its `.zarray` says: what the reader and the
//! writer of its chunks need.

use crate::json::Json;
use crate::model::Values;
use crate::zarr::Dtype;

/// The storage facts of one array.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredArray {
    /// The Zarr dtype of the stored elements.
    pub dtype: Dtype,
    /// The stored array shape (`[1]` for an NCZarr scalar, `[]` for a pure-Zarr one).
    pub shape: Vec<u64>,
    /// Chunk shape, one entry per stored dimension.
    pub chunks: Vec<u64>,
    /// The fill value; `None` means no fill (`fill_value: null`, netCDF's NoFill).
    pub fill: Option<Values>,
    /// The `filters`, in encode order.
    pub filters: Vec<Json>,
    /// The `compressor`, applied after the filters.
    pub compressor: Option<Json>,
    /// True for Fortran (`"F"`) element order within chunks.
    pub fortran_order: bool,
    /// The chunk key separator, `.` or `/`.
    pub separator: char,
}

impl StoredArray {
    /// The codec chain in encode order: filters, then the compressor.
    pub fn codec_chain(&self) -> impl Iterator<Item = &Json> {
        self.filters.iter().chain(self.compressor.iter())
    }
}
