//! The HDF5 filters a netCDF-4 file stores for a variable's codecs, with every
//! parameter as HDF5 keeps them. What each codec stores is the codec table's answer
//! ([`table::stored_hdf5_filter`]); this file knows no codec by name.

use super::encode::Filter;
use crate::codec::table;
use crate::codec::{Hdf5FormError, StoredChunk};
use crate::json::Json;

/// The filters of a codec chain, in order, for a variable of `item`-byte elements in
/// chunks of `chunk_bytes`.
///
/// # Errors
/// [`Hdf5FormError`] for the first codec no HDF5 filter stores as it writes.
pub(super) fn filters_of(
    codecs: &[Json],
    item: u32,
    chunk_bytes: u32,
) -> Result<Vec<Filter>, Hdf5FormError> {
    let chunk = StoredChunk {
        item_size: item,
        chunk_bytes,
    };
    codecs
        .iter()
        .map(|c| {
            let f = table::stored_hdf5_filter(c, &chunk)?;
            Ok(Filter {
                id: f.id,
                optional: f.optional,
                params: f.params,
            })
        })
        .collect()
}
