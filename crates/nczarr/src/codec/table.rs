//! The codec table: every codec this build knows, once, with each name it goes by
//! (numcodecs' id, its Zarr v3 name, its HDF5 filter id), what it is (a compressor, a
//! filter on bytes or on values, a checksum, an object codec), whether it loses
//! information, whether it is written here or only read, how it is built, and what a
//! netCDF-4 file stores for it (its HDF5 filter's flag and parameters) and how
//! netCDF's `_Filter` attribute shows it and reads it back. The registry,
//! the Zarr v3 chain, the HDF5 filter mapping, the netCDF-4 writer
//! ([`stored_hdf5_filter`]), the copy planner and `--codec` all read this table: a new
//! codec is its file and one entry here.

use super::astype::AsType;
use super::base::Codec;
use super::bitround::BitRound;
use super::bitshuffle::{self, Bitshuffle};
use super::blosc::{self, Blosc};
use super::bz2::{self, Bz2};
use super::categorize::Categorize;
use super::checksum::{Checksum, Kind};
use super::delta::Delta;
use super::error::ConfigFault;
use super::fixedscaleoffset::FixedScaleOffset;
use super::fletcher32::{self, Fletcher32};
use super::gzip::Gzip;
use super::hdf5_filter::{
    self as hdf5, Hdf5Attr, Hdf5FormError, Hdf5Write, StoredChunk, StoredFilter,
};
use super::lz4::Lz4;
use super::lz4h5::{self, Lz4H5};
use super::lzf::{self, Lzf};
use super::packbits::PackBits;
use super::pcodec::Pcodec;
use super::quantize::Quantize;
use super::shuffle::{self, Shuffle};
use super::zfp::Zfpy;
use super::zlib::{self, Zlib};
use super::zstd::{self, Zstd};
use crate::json::Json;

/// What a codec does to a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Compresses bytes; `--codec` puts it in place of a variable's compressor.
    Compressor,
    /// Works on the values (Zarr v3: an array-to-array codec, before `bytes`).
    ValueFilter,
    /// Rearranges or transforms bytes (Zarr v3: bytes-to-bytes).
    ByteFilter,
    /// Appends or checks a checksum.
    Checksum,
    /// Stores variable-length items (strings, bytes): first in a chain.
    Object,
}

/// How a codec's chunks are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// Encoded as read.
    Yes,
    /// Read only here: copies store what it decodes with zstd at level 1.
    ReadOnly,
    /// Dropped by a copy, whose writers store the values in their own form (strings at
    /// a fixed width or with their own object codec; categorized strings as strings).
    Dropped,
}

/// A codec's constructor, from its JSON.
pub type Build = fn(&Json) -> Result<Box<dyn Codec>, ConfigFault>;

/// One codec, in every vocabulary that names it.
#[derive(Debug)]
pub struct CodecSpec {
    /// numcodecs' id, the `"id"` of its Zarr v2 JSON.
    pub id: &'static str,
    /// Its name in the Zarr v3 core specification (`gzip`, `zstd`, ...); `None` for
    /// numcodecs' codecs, which v3 names `numcodecs.<id>`.
    pub v3_core: Option<&'static str>,
    /// Its registered HDF5 filter id (netCDF-4's `_Filter`), if it has one.
    pub hdf5: Option<u32>,
    /// HDF5's filter writes the bytes the Zarr codec writes, so a netCDF-4 chunk
    /// stored with it is a Zarr chunk as it is (a copy moves it without decoding).
    pub hdf5_same_bytes: bool,
    /// How a writer of netCDF-4 files stores it with its HDF5 filter `hdf5`; `None`
    /// when it cannot (no filter, or one that writes other bytes than ours).
    pub hdf5_write: Option<Hdf5Write>,
    /// How netCDF's `_Filter` shows it and reads it back, for its HDF5 filter `hdf5`.
    pub hdf5_attr: Option<Hdf5Attr>,
    /// What it does.
    pub role: Role,
    /// Whether the values read back differ from those stored.
    pub lossy: bool,
    /// Applies to floating-point variables only (`--codec` leaves others alone).
    pub floats_only: bool,
    /// How a copy writes it.
    pub writes: Writes,
    /// The parameters it takes, as numcodecs names them (besides `id`).
    pub params: &'static [&'static str],
    /// Build it from its JSON; `None` for the object codecs, which the pipeline
    /// handles itself.
    pub build: Option<Build>,
}

fn boxed<C: Codec + 'static>(c: C) -> Box<dyn Codec> {
    Box::new(c)
}

/// A codec with the defaults most have: lossless, written, no HDF5 id.
const fn codec(id: &'static str, role: Role, params: &'static [&'static str]) -> CodecSpec {
    CodecSpec {
        id,
        v3_core: None,
        hdf5: None,
        hdf5_same_bytes: false,
        hdf5_write: None,
        hdf5_attr: None,
        role,
        lossy: false,
        floats_only: false,
        writes: Writes::Yes,
        params,
        build: None,
    }
}

/// Every codec, in the order messages list them.
pub static CODECS: &[CodecSpec] = &[
    CodecSpec {
        hdf5: Some(hdf5::DEFLATE),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 1,
            shown: zlib::hdf5_shown,
            codec: zlib::from_hdf5,
        }),
        hdf5_same_bytes: true,
        hdf5_write: Some(Hdf5Write {
            optional: true,
            params: zlib::hdf5_params,
        }),
        build: Some(|c| Zlib::from_config(c).map(boxed)),
        ..codec("zlib", Role::Compressor, &["level"])
    },
    CodecSpec {
        v3_core: Some("gzip"),
        build: Some(|c| Gzip::from_config(c).map(boxed)),
        ..codec("gzip", Role::Compressor, &["level"])
    },
    CodecSpec {
        v3_core: Some("blosc"),
        hdf5: Some(hdf5::BLOSC),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 7,
            shown: blosc::hdf5_shown,
            codec: blosc::from_hdf5,
        }),
        hdf5_same_bytes: true,
        hdf5_write: Some(Hdf5Write {
            optional: true,
            params: blosc::hdf5_params,
        }),
        build: Some(|c| Blosc::from_config(c).map(boxed)),
        ..codec(
            "blosc",
            Role::Compressor,
            &["cname", "clevel", "shuffle", "blocksize", "typesize"],
        )
    },
    CodecSpec {
        v3_core: Some("zstd"),
        hdf5: Some(hdf5::ZSTD),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 1,
            shown: zstd::hdf5_shown,
            codec: zstd::from_hdf5,
        }),
        hdf5_same_bytes: true,
        hdf5_write: Some(Hdf5Write {
            optional: true,
            params: zstd::hdf5_params,
        }),
        build: Some(|c| Zstd::from_config(c).map(boxed)),
        ..codec("zstd", Role::Compressor, &["level", "checksum"])
    },
    CodecSpec {
        build: Some(|c| Lz4::from_config(c).map(boxed)),
        ..codec("lz4", Role::Compressor, &["acceleration"])
    },
    CodecSpec {
        hdf5: Some(hdf5::BZIP2),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 1,
            shown: bz2::hdf5_shown,
            codec: bz2::from_hdf5,
        }),
        hdf5_same_bytes: true,
        hdf5_write: Some(Hdf5Write {
            optional: true,
            params: bz2::hdf5_params,
        }),
        build: Some(|c| Bz2::from_config(c).map(boxed)),
        ..codec("bz2", Role::Compressor, &["level"])
    },
    CodecSpec {
        hdf5: Some(hdf5::SHUFFLE),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 1,
            shown: shuffle::hdf5_shown,
            codec: shuffle::from_hdf5,
        }),
        hdf5_same_bytes: true,
        hdf5_write: Some(Hdf5Write {
            optional: true,
            params: shuffle::hdf5_params,
        }),
        build: Some(|c| Shuffle::from_config(c).map(boxed)),
        ..codec("shuffle", Role::ByteFilter, &["elementsize"])
    },
    CodecSpec {
        hdf5: Some(hdf5::FLETCHER32),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 0,
            shown: fletcher32::hdf5_shown,
            codec: fletcher32::from_hdf5,
        }),
        // Not `hdf5_same_bytes` (a copy does not move its chunks as they are), but
        // written: the one filter netcdf-c makes mandatory.
        hdf5_write: Some(Hdf5Write {
            optional: false,
            params: fletcher32::hdf5_params,
        }),
        build: Some(|_| Ok(boxed(Fletcher32))),
        ..codec("fletcher32", Role::Checksum, &[])
    },
    CodecSpec {
        build: Some(|c| Delta::from_config(c).map(boxed)),
        ..codec("delta", Role::ValueFilter, &["dtype", "astype"])
    },
    CodecSpec {
        lossy: true,
        floats_only: true,
        build: Some(|c| BitRound::from_config(c).map(boxed)),
        ..codec("bitround", Role::ValueFilter, &["keepbits"])
    },
    CodecSpec {
        lossy: true,
        build: Some(|c| FixedScaleOffset::from_config(c).map(boxed)),
        ..codec(
            "fixedscaleoffset",
            Role::ValueFilter,
            &["offset", "scale", "dtype", "astype"],
        )
    },
    CodecSpec {
        lossy: true,
        floats_only: true,
        build: Some(|c| Quantize::from_config(c).map(boxed)),
        ..codec(
            "quantize",
            Role::ValueFilter,
            &["digits", "dtype", "astype"],
        )
    },
    CodecSpec {
        build: Some(|_| Ok(boxed(PackBits))),
        ..codec("packbits", Role::ByteFilter, &[])
    },
    CodecSpec {
        build: Some(|c| AsType::from_config(c).map(boxed)),
        ..codec(
            "astype",
            Role::ValueFilter,
            &["encode_dtype", "decode_dtype"],
        )
    },
    CodecSpec {
        hdf5: Some(hdf5::LZF),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 3,
            shown: lzf::hdf5_shown,
            codec: lzf::from_hdf5,
        }),
        writes: Writes::ReadOnly,
        build: Some(|_| Ok(boxed(Lzf))),
        ..codec("lzf", Role::Compressor, &[])
    },
    CodecSpec {
        hdf5: Some(hdf5::LZ4),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 1,
            shown: lz4h5::hdf5_shown,
            codec: lz4h5::from_hdf5,
        }),
        writes: Writes::ReadOnly,
        build: Some(|_| Ok(boxed(Lz4H5))),
        ..codec("lz4h5", Role::Compressor, &[])
    },
    CodecSpec {
        hdf5: Some(hdf5::BITSHUFFLE),
        hdf5_attr: Some(Hdf5Attr {
            most_params: 6,
            shown: bitshuffle::hdf5_shown,
            codec: bitshuffle::from_hdf5,
        }),
        writes: Writes::ReadOnly,
        build: Some(|c| Bitshuffle::from_config(c).map(boxed)),
        ..codec(
            "bitshuffle",
            Role::Compressor,
            &["elementsize", "blocksize", "compression"],
        )
    },
    CodecSpec {
        writes: Writes::Dropped,
        build: Some(|c| Categorize::from_config(c).map(boxed)),
        ..codec(
            "categorize",
            Role::ValueFilter,
            &["labels", "dtype", "astype"],
        )
    },
    CodecSpec {
        writes: Writes::ReadOnly,
        build: Some(|c| Ok(boxed(Pcodec::from_config(c)))),
        ..codec(
            "pcodec",
            Role::Compressor,
            &[
                "level",
                "mode_spec",
                "delta_spec",
                "paging_spec",
                "delta_encoding_order",
                "equal_pages_up_to",
            ],
        )
    },
    CodecSpec {
        lossy: true,
        writes: Writes::ReadOnly,
        build: Some(|c| Ok(boxed(Zfpy::from_config(c)))),
        ..codec(
            "zfpy",
            Role::Compressor,
            &[
                "mode",
                "tolerance",
                "rate",
                "precision",
                "compression_kwargs",
            ],
        )
    },
    CodecSpec {
        build: Some(|c| Checksum::from_config(Kind::Crc32, c).map(boxed)),
        ..codec("crc32", Role::Checksum, &["location"])
    },
    CodecSpec {
        v3_core: Some("crc32c"),
        build: Some(|c| Checksum::from_config(Kind::Crc32c, c).map(boxed)),
        ..codec("crc32c", Role::Checksum, &["location"])
    },
    CodecSpec {
        build: Some(|c| Checksum::from_config(Kind::Adler32, c).map(boxed)),
        ..codec("adler32", Role::Checksum, &["location"])
    },
    CodecSpec {
        v3_core: Some("vlen-utf8"),
        writes: Writes::Dropped,
        ..codec("vlen-utf8", Role::Object, &[])
    },
    CodecSpec {
        v3_core: Some("vlen-bytes"),
        writes: Writes::Dropped,
        ..codec("vlen-bytes", Role::Object, &[])
    },
];

/// The codec numcodecs calls `id`.
pub fn spec(id: &str) -> Option<&'static CodecSpec> {
    CODECS.iter().find(|c| c.id == id)
}

/// The codec of HDF5 filter `filter`.
pub fn by_hdf5(filter: u32) -> Option<&'static CodecSpec> {
    CODECS.iter().find(|c| c.hdf5 == Some(filter))
}

/// The HDF5 filter id of the codec `config` describes (by its `"id"`), if it has one:
/// how netCDF's special attributes (`_Shuffle`, `_DeflateLevel`, `_Fletcher32`), which
/// are HDF5 filters, find their codec in a chain.
pub fn hdf5_id(config: &Json) -> Option<u32> {
    spec(config.get("id").and_then(Json::as_str)?)?.hdf5
}

/// The codec a Zarr v3 chain names `name`: a core name, or `numcodecs.<id>`.
pub fn by_v3_name(name: &str) -> Option<&'static CodecSpec> {
    match name.strip_prefix("numcodecs.") {
        Some(id) => spec(id),
        None => CODECS.iter().find(|c| c.v3_core == Some(name)),
    }
}

impl CodecSpec {
    /// Its name in a Zarr v3 chain.
    pub fn v3_name(&self) -> String {
        match self.v3_core {
            Some(core) => core.to_string(),
            None => format!("numcodecs.{}", self.id),
        }
    }
}

/// What a writer of netCDF-4 files stores for the codec `config` describes: its HDF5
/// filter id, HDF5's optional flag and every parameter as HDF5 keeps them, for chunks
/// of `chunk`'s sizes.
///
/// # Errors
/// [`Hdf5FormError`] when the codec is unknown, has no HDF5 filter that writes its
/// bytes, or has a configuration its filter cannot take.
pub fn stored_hdf5_filter(
    config: &Json,
    chunk: &StoredChunk,
) -> Result<StoredFilter, Hdf5FormError> {
    let id = config.get("id").and_then(Json::as_str).unwrap_or("");
    let spec = spec(id).ok_or_else(|| Hdf5FormError::Unknown { id: id.into() })?;
    let (Some(filter), Some(write)) = (spec.hdf5, spec.hdf5_write) else {
        return Err(Hdf5FormError::NoFilter { id: id.into() });
    };
    let params = (write.params)(config, chunk).map_err(|fault| Hdf5FormError::Config {
        id: id.into(),
        fault,
    })?;
    Ok(StoredFilter {
        id: u16::try_from(filter).expect("the table's test checks HDF5 filter ids fit 16 bits"),
        optional: write.optional,
        params,
    })
}

/// The ids of every codec, comma-separated (for messages).
pub fn known_ids() -> String {
    CODECS.iter().map(|c| c.id).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn stored(
        config: &str,
        item_size: u32,
        chunk_bytes: u32,
    ) -> Result<StoredFilter, Hdf5FormError> {
        let chunk = StoredChunk {
            item_size,
            chunk_bytes,
        };
        stored_hdf5_filter(&parse_str(config).unwrap(), &chunk)
    }

    fn filter(id: u16, optional: bool, params: &[u32]) -> Result<StoredFilter, Hdf5FormError> {
        Ok(StoredFilter {
            id,
            optional,
            params: params.to_vec(),
        })
    }

    #[test]
    fn stored_hdf5_filters_as_netcdf_c_writes_them() {
        assert_eq!(
            stored(r#"{"id": "zlib", "level": 5}"#, 4, 400),
            filter(1, true, &[5])
        );
        assert_eq!(
            stored(r#"{"id": "zlib", "level": "5"}"#, 4, 400),
            filter(1, true, &[5])
        );
        assert_eq!(stored(r#"{"id": "zlib"}"#, 4, 400), filter(1, true, &[1]));
        assert_eq!(
            stored(r#"{"id": "shuffle", "elementsize": 0}"#, 8, 400),
            filter(2, true, &[8])
        );
        assert_eq!(
            stored(r#"{"id": "fletcher32"}"#, 4, 400),
            filter(3, false, &[])
        );
        assert_eq!(
            stored(r#"{"id": "zstd"}"#, 4, 400),
            filter(32015, true, &[0])
        );
        assert_eq!(
            stored(r#"{"id": "zstd", "level": 7}"#, 4, 400),
            filter(32015, true, &[7])
        );
        assert_eq!(stored(r#"{"id": "bz2"}"#, 4, 400), filter(307, true, &[9]));
        assert_eq!(
            stored(
                r#"{"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2}"#,
                8,
                800
            ),
            filter(32001, true, &[2, 2, 8, 800, 3, 2, 5])
        );
        assert_eq!(
            stored(r#"{"id": "blosc"}"#, 2, 64),
            filter(32001, true, &[2, 2, 2, 64, 5, 1, 1])
        );
    }

    #[test]
    fn stored_hdf5_filter_refusals() {
        let no_filter = |id: &str| Err(Hdf5FormError::NoFilter { id: id.into() });
        // gzip has no HDF5 filter; lzf's writes other bytes than ours (read only here).
        assert_eq!(stored(r#"{"id": "gzip"}"#, 4, 400), no_filter("gzip"));
        assert_eq!(stored(r#"{"id": "lzf"}"#, 4, 400), no_filter("lzf"));
        assert_eq!(
            stored(r#"{"id": "nope"}"#, 4, 400),
            Err(Hdf5FormError::Unknown { id: "nope".into() })
        );
        assert_eq!(
            stored(r#"{"level": 1}"#, 4, 400),
            Err(Hdf5FormError::Unknown { id: String::new() })
        );
        let e = stored(r#"{"id": "blosc", "cname": "snappy"}"#, 4, 400).unwrap_err();
        assert!(
            matches!(e, Hdf5FormError::Config { ref id, .. } if id == "blosc"),
            "{e}"
        );
        // Every codec the table says a writer stores is stored for its default JSON.
        for c in CODECS.iter().filter(|c| c.hdf5_write.is_some()) {
            let f = stored(&format!(r#"{{"id": "{}"}}"#, c.id), 4, 400).unwrap();
            assert_eq!(Some(u32::from(f.id)), c.hdf5, "{}", c.id);
        }
    }

    #[test]
    fn names_are_unique_in_every_vocabulary() {
        for (i, a) in CODECS.iter().enumerate() {
            for b in &CODECS[i + 1..] {
                assert_ne!(a.id, b.id);
                assert!(a.hdf5.is_none() || a.hdf5 != b.hdf5, "{} {}", a.id, b.id);
                assert!(a.v3_core.is_none() || a.v3_core != b.v3_core);
            }
            assert_eq!(by_v3_name(&a.v3_name()).map(|c| c.id), Some(a.id));
            assert_eq!(
                by_v3_name(&format!("numcodecs.{}", a.id)).map(|c| c.id),
                Some(a.id)
            );
            if let Some(h) = a.hdf5 {
                assert_eq!(by_hdf5(h).map(|c| c.id), Some(a.id));
                assert!(u16::try_from(h).is_ok(), "{}", a.id);
            }
            // A filter a writer stores, or `_Filter` names, is one the codec has; every
            // codec with a filter can be named in `_Filter`.
            assert!(a.hdf5_write.is_none() || a.hdf5.is_some(), "{}", a.id);
            assert_eq!(a.hdf5_attr.is_some(), a.hdf5.is_some(), "{}", a.id);
            // Only bytes codecs are built; the object codecs are the pipeline's.
            assert_eq!(a.build.is_none(), a.id.starts_with("vlen-"), "{}", a.id);
        }
    }
}
