//! The HDF5 filters netCDF's `_Filter` attribute shows and their Zarr codec
//! equivalents, both ways (netcdf-c's `NCZhdf5filters` plugin table), as the codec
//! table's rows say (`hdf5_attr`: each codec file's `hdf5_shown` and `from_hdf5`).
//! szip, which has no codec here, is the one filter this file knows itself. The filter
//! ids are `hdf5_filter.rs`'s, re-exported here; what a netCDF-4 writer stores
//! for a codec is the table's too ([`super::table::stored_hdf5_filter`]).
//!
//! The table's filters today:
//!
//! | HDF5 id | codec | visible parameters |
//! |---|---|---|
//! | 1 | zlib | level |
//! | 2 | shuffle | (none) |
//! | 3 | fletcher32 | (none) |
//! | 4 | szip | mask, pixels-per-block |
//! | 307 | bz2 | level |
//! | 32001 | blosc | 0, 0, 0, blocksize, clevel, shuffle, compressor code |
//! | 32015 | zstd | level |
//! | 32000 | lzf (read only) | (h5py's version and chunk size, not shown) |
//! | 32004 | lz4h5 (read only) | (block size, not shown) |
//! | 32008 | bitshuffle (read only) | (version, element size, block size, compression) |

use super::hdf5_filter::param_u32;
use super::table;
use crate::json::Json;

pub use super::hdf5_filter::{
    FilterError, BITSHUFFLE, BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, LZF, SHUFFLE, SZIP, ZSTD,
};

/// The id netCDF-4's reader gives an szip filter's codec JSON: szip has no codec here
/// (no encoder is bundled), so no table row, but ncdump shows its `_Filter`.
const SZIP_ID: &str = "szip";

/// The szip option bits a user sets (`H5_SZIP_CHIP_OPTION_MASK | H5_SZIP_EC_OPTION_MASK |
/// H5_SZIP_NN_OPTION_MASK`), which ncdump shows of the stored mask.
const SZIP_USER_MASKS: u32 = 2 | 4 | 32;

/// The HDF5 filter id and visible parameters of a codec, as ncdump's `_Filter` shows
/// them (the codec table's `hdf5_attr`); `None` for codecs with no HDF5 equivalent
/// (gzip, lz4, delta, ...).
pub fn filter_of(config: &Json) -> Option<(u32, Vec<u32>)> {
    let id = config.get("id")?.as_str()?;
    if id == SZIP_ID {
        // HDF5 adds its own bits to the stored option mask (raw 128, byte order 8 or
        // 16, K13 1); ncdump shows the user's: chip 2, entropy coding 4, nearest
        // neighbour 32.
        let param = |name: &str| param_u32(config, name, 0);
        return Some((
            SZIP,
            vec![param("mask") & SZIP_USER_MASKS, param("pixels-per-block")],
        ));
    }
    let spec = table::spec(id)?;
    Some((spec.hdf5?, (spec.hdf5_attr?.shown)(config)?))
}

/// The codec JSON for HDF5 filter `id` with parameters `params` (for `_Filter` in CDL),
/// as the codec table's `hdf5_attr` reads them.
///
/// # Errors
/// [`FilterError`] for ids with no codec here, more parameters than the filter takes,
/// and parameters its codec cannot take.
pub fn codec_of(id: u32, params: &[u32]) -> Result<Json, FilterError> {
    if id == SZIP {
        return Err(FilterError::Szip);
    }
    let Some((spec, attr)) = table::by_hdf5(id).and_then(|s| Some((s, s.hdf5_attr?))) else {
        return Err(FilterError::Unknown(id));
    };
    if params.len() > attr.most_params {
        return Err(FilterError::TooManyParams {
            id,
            name: spec.id,
            most: attr.most_params,
            got: params.len(),
        });
    }
    (attr.codec)(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn netcdf_examples() {
        let b = parse_str(
            r#"{"id": "blosc", "clevel": 5, "blocksize": 0, "cname": "lz4", "shuffle": 1}"#,
        )
        .unwrap();
        assert_eq!(filter_of(&b), Some((32001, vec![0, 0, 0, 0, 5, 1, 1])));
        assert_eq!(codec_of(32001, &[0, 0, 0, 0, 5, 1, 1]).unwrap(), b);
        assert_eq!(
            filter_of(&parse_str(r#"{"id": "zlib", "level": "5"}"#).unwrap()),
            Some((1, vec![5]))
        );
        assert_eq!(filter_of(&parse_str(r#"{"id": "lz4"}"#).unwrap()), None);
        assert!(codec_of(4, &[4, 8]).is_err());
        // The stored szip mask's HDF5 bits are not shown (netcdf-c's szip files: 169).
        assert_eq!(
            filter_of(&parse_str(r#"{"id": "szip", "mask": 169, "pixels-per-block": 8}"#).unwrap()),
            Some((4, vec![32, 8]))
        );
        assert!(codec_of(99, &[]).is_err());
        assert_eq!(
            codec_of(32015, &[3, 9]).unwrap_err().to_string(),
            "HDF5 filter 32015 (zstd) takes at most 1 parameter, not 2"
        );
        assert_eq!(
            filter_of(&parse_str(r#"{"id": "shuffle", "elementsize": 4}"#).unwrap()),
            Some((2, vec![4]))
        );
    }
}
