//! The HDF5 filters a netCDF-4 file stores for a variable's codecs, with every
//! parameter as HDF5 keeps them.

use super::encode::Filter;
use crate::codec::blosc::Blosc;
use crate::codec::hdf5;
use crate::json::Json;

/// The filters of a codec chain, in order; `Err` names the first codec no HDF5 filter
/// stores as it writes.
pub(super) fn filters_of(
    codecs: &[Json],
    item: u32,
    chunk_bytes: u32,
) -> std::result::Result<Vec<Filter>, String> {
    codecs
        .iter()
        .map(|c| {
            stored_filter(c, item, chunk_bytes)
                .map(|(id, optional, params)| Filter {
                    id: id as u16,
                    optional,
                    params,
                })
                .ok_or_else(|| crate::encoding::codec_id(c).to_string())
        })
        .collect()
}

/// The HDF5 filter a writer of netCDF-4 files stores for a codec, as HDF5 keeps it
/// (after the filter's own `set_local`): id, whether a reader may skip it (HDF5's
/// optional flag, as netcdf-c sets it: only Fletcher-32 is mandatory), and every
/// parameter. `item` is the variable's element size, `chunk_bytes` a chunk's size.
/// `None` for codecs whose HDF5 filter writes other bytes, or that have none.
fn stored_filter(config: &Json, item: u32, chunk_bytes: u32) -> Option<(u32, bool, Vec<u32>)> {
    let id = config.get("id")?.as_str()?;
    let spec = crate::codec::table::spec(id)?;
    let filter = spec
        .hdf5
        .filter(|_| spec.hdf5_same_bytes || id == "fletcher32")?;
    let param = |name: &str, default: i64| -> u32 {
        config
            .get(name)
            .and_then(Json::as_i64_lenient)
            .unwrap_or(default) as u32
    };
    let params = match id {
        "zlib" => vec![param("level", 1)],
        "shuffle" => vec![item],
        "fletcher32" => vec![],
        "zstd" => vec![param("level", 0)],
        "bz2" => vec![param("level", 9)],
        "blosc" => {
            let b = Blosc::from_config(config).ok()?;
            // The filter's version, blosc's format version, then what its set_local
            // fills in (element and chunk size), then the user's three.
            vec![
                2,
                2,
                item,
                chunk_bytes,
                b.clevel as u32,
                b.shuffle as u32,
                b.compcode(),
            ]
        }
        _ => return None,
    };
    Some((filter, filter != hdf5::FLETCHER32, params))
}
