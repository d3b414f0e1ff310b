//! The HDF5 filters netCDF's `_Filter` attribute shows and their Zarr codec
//! equivalents, both ways (netcdf-c's `NCZhdf5filters` plugin table). The filter ids
//! are [`super::hdf5_filter`]'s, re-exported here; what a netCDF-4 writer stores for a
//! codec is the codec table's ([`super::table::stored_hdf5_filter`]).
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

use super::blosc::Blosc;
use super::hdf5_filter::param_u32;
use super::{num, obj};
use crate::json::Json;

pub use super::hdf5_filter::{
    BITSHUFFLE, BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, LZF, SHUFFLE, SZIP, ZSTD,
};

/// The szip option bits a user sets (`H5_SZIP_CHIP_OPTION_MASK | H5_SZIP_EC_OPTION_MASK |
/// H5_SZIP_NN_OPTION_MASK`), which ncdump shows of the stored mask.
const SZIP_USER_MASKS: u32 = 2 | 4 | 32;

/// The HDF5 filter id and visible parameters of a codec, as ncdump's `_Filter` shows
/// them; `None` for codecs with no HDF5 equivalent (gzip, lz4, delta, ...).
pub fn filter_of(config: &Json) -> Option<(u32, Vec<u32>)> {
    let id = config.get("id")?.as_str()?;
    let param = |name: &str, default: i64| param_u32(config, name, default);
    Some(match id {
        "zlib" => (DEFLATE, vec![param("level", 1)]),
        // ncdump shows shuffle's element size (HDF5 keeps it as the parameter).
        "shuffle" => match param("elementsize", 0) {
            0 => (SHUFFLE, vec![]),
            n => (SHUFFLE, vec![n]),
        },
        "fletcher32" => (FLETCHER32, vec![]),
        // HDF5 adds its own bits to the stored option mask (raw 128, byte order 8 or 16,
        // K13 1); ncdump shows the user's: chip 2, entropy coding 4, nearest neighbour 32.
        "szip" => (
            SZIP,
            vec![
                param("mask", 0) & SZIP_USER_MASKS,
                param("pixels-per-block", 0),
            ],
        ),
        "bz2" => (BZIP2, vec![param("level", 9)]),
        "zstd" => (ZSTD, vec![param("level", 0)]),
        "lzf" => (LZF, vec![]),
        "lz4h5" => (LZ4, vec![]),
        "bitshuffle" => (
            BITSHUFFLE,
            vec![
                0,
                4,
                param("elementsize", 0),
                param("blocksize", 0),
                param("compression", 0),
            ],
        ),
        "blosc" => {
            let b = Blosc::from_config(config).ok()?;
            (
                BLOSC,
                vec![
                    0,
                    0,
                    0,
                    b.blocksize as u32,
                    b.clevel as u32,
                    b.shuffle as u32,
                    b.compcode(),
                ],
            )
        }
        _ => return None,
    })
}

/// An HDF5 filter with no Zarr codec here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// A blosc compressor code this build of c-blosc does not have.
    #[error("blosc compressor code {0} is not available")]
    BloscCompressor(u32),
    /// szip: readers may have a decoder, but no encoder is bundled.
    #[error("the szip filter (4) is not available: no szip encoder is bundled")]
    Szip,
    /// A filter id with no codec.
    #[error("HDF5 filter {0} has no Zarr codec in this build")]
    Unknown(u32),
    /// More parameters than the filter takes.
    #[error("HDF5 filter {id} ({name}) takes at most {most} parameter{}, not {got}", if *most == 1 { "" } else { "s" })]
    TooManyParams {
        /// The filter id.
        id: u32,
        /// Its codec's name.
        name: &'static str,
        /// The most it takes.
        most: usize,
        /// How many were given.
        got: usize,
    },
}

/// The codec JSON for HDF5 filter `id` with parameters `params` (for `_Filter` in CDL).
///
/// # Errors
/// [`FilterError`] for ids with no codec here.
pub fn codec_of(id: u32, params: &[u32]) -> Result<Json, FilterError> {
    let most = |name: &'static str, most: usize| {
        if params.len() > most {
            Err(FilterError::TooManyParams {
                id,
                name,
                most,
                got: params.len(),
            })
        } else {
            Ok(())
        }
    };
    match id {
        DEFLATE => most("zlib", 1)?,
        SHUFFLE => most("shuffle", 1)?,
        FLETCHER32 => most("fletcher32", 0)?,
        BZIP2 => most("bz2", 1)?,
        ZSTD => most("zstd", 1)?,
        BLOSC => most("blosc", 7)?,
        // h5py's lzf keeps a version and the chunk's size as parameters.
        LZF => most("lzf", 3)?,
        LZ4 => most("lz4h5", 1)?,
        BITSHUFFLE => most("bitshuffle", 6)?,
        _ => {}
    }
    let idj = |s: &str| ("id", Json::String(s.to_string()));
    let level = |default: i64| params.first().map_or(default, |&p| i64::from(p));
    Ok(match id {
        DEFLATE => obj(vec![idj("zlib"), ("level", num(level(1).clamp(0, 9)))]),
        SHUFFLE => obj(vec![idj("shuffle"), ("elementsize", num(0))]),
        FLETCHER32 => obj(vec![idj("fletcher32")]),
        BZIP2 => obj(vec![idj("bz2"), ("level", num(level(9).clamp(1, 9)))]),
        ZSTD => obj(vec![idj("zstd"), ("level", num(level(3)))]),
        BLOSC => {
            let p = |i: usize, d: u32| params.get(i).copied().unwrap_or(d);
            let cname = match p(6, 0) {
                0 => "blosclz",
                1 => "lz4",
                2 => "lz4hc",
                4 => "zlib",
                5 => "zstd",
                other => return Err(FilterError::BloscCompressor(other)),
            };
            obj(vec![
                idj("blosc"),
                ("clevel", num(i64::from(p(4, 5)))),
                ("blocksize", num(i64::from(p(3, 0)))),
                ("cname", Json::String(cname.into())),
                ("shuffle", num(i64::from(p(5, 1)))),
            ])
        }
        LZF => obj(vec![idj("lzf")]),
        LZ4 => obj(vec![idj("lz4h5")]),
        // The filter's version (two numbers), element size, block size, compression
        // and zstd level.
        BITSHUFFLE => {
            let p = |i: usize| i64::from(params.get(i).copied().unwrap_or(0));
            obj(vec![
                idj("bitshuffle"),
                ("elementsize", num(p(2))),
                ("blocksize", num(p(3))),
                ("compression", num(p(4))),
            ])
        }
        SZIP => return Err(FilterError::Szip),
        other => return Err(FilterError::Unknown(other)),
    })
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
