//! Build a codec from its Zarr v2 JSON. A `match` on the id: our set is closed.

use super::astype::AsType;
use super::bitround::BitRound;
use super::bitshuffle::Bitshuffle;
use super::blosc::Blosc;
use super::bz2::Bz2;
use super::categorize::Categorize;
use super::checksum::{Checksum, Kind};
use super::delta::Delta;
use super::fixedscaleoffset::FixedScaleOffset;
use super::fletcher32::Fletcher32;
use super::gzip::Gzip;
use super::lz4::Lz4;
use super::lz4h5::Lz4H5;
use super::lzf::Lzf;
use super::packbits::PackBits;
use super::pcodec::Pcodec;
use super::quantize::Quantize;
use super::shuffle::Shuffle;
use super::zfp::Zfpy;
use super::zlib::Zlib;
use super::zstd::Zstd;
use super::{Codec, CodecError, ConfigFault};
use crate::json::Json;

/// Every codec id this build can read and write (plus the `vlen-*` object codecs).
pub const KNOWN_IDS: &[&str] = &[
    "zlib",
    "gzip",
    "blosc",
    "zstd",
    "lz4",
    "bz2",
    "shuffle",
    "fletcher32",
    "delta",
    "bitround",
    "fixedscaleoffset",
    "quantize",
    "packbits",
    "astype",
    "lzf",
    "lz4h5",
    "bitshuffle",
    "categorize",
    "pcodec",
    "zfpy",
    "crc32",
    "crc32c",
    "adler32",
    "vlen-utf8",
    "vlen-bytes",
];

/// The parameters each codec takes, as numcodecs names them (besides `id`).
fn params_of(id: &str) -> Option<&'static [&'static str]> {
    Some(match id {
        "zlib" | "gzip" | "bz2" => &["level"],
        "zstd" => &["level", "checksum"],
        "blosc" => &["cname", "clevel", "shuffle", "blocksize", "typesize"],
        "lz4" => &["acceleration"],
        "shuffle" => &["elementsize"],
        "delta" => &["dtype", "astype"],
        "bitround" => &["keepbits"],
        "fixedscaleoffset" => &["offset", "scale", "dtype", "astype"],
        "quantize" => &["digits", "dtype", "astype"],
        "astype" => &["encode_dtype", "decode_dtype"],
        "packbits" | "lzf" | "lz4h5" => &[],
        "pcodec" => &[
            "level",
            "mode_spec",
            "delta_spec",
            "paging_spec",
            "delta_encoding_order",
            "equal_pages_up_to",
        ],
        "zfpy" => &[
            "mode",
            "tolerance",
            "rate",
            "precision",
            "compression_kwargs",
        ],
        "bitshuffle" => &["elementsize", "blocksize", "compression"],
        "categorize" => &["labels", "dtype", "astype"],
        "crc32" | "crc32c" | "adler32" => &["location"],
        "fletcher32" | "vlen-utf8" | "vlen-bytes" => &[],
        _ => return None,
    })
}

/// Refuse parameters the codec `config` describes does not have: for codecs a user
/// gives (`--codec`, `-F`, `_Codecs`), where a misspelt `levl` would otherwise be
/// ignored here and written into metadata zarr-python refuses. Codecs read from a
/// dataset are not checked (a newer writer's extra parameter is no reason not to read).
///
/// # Errors
/// [`CodecError::Create`] naming the first unknown parameter and the ones it takes.
pub fn check_params(config: &Json) -> Result<(), CodecError> {
    let Some(id) = config.get("id").and_then(Json::as_str) else {
        return Ok(());
    };
    let Some(takes) = params_of(id) else {
        return Ok(());
    };
    for (name, _) in config.as_object().unwrap_or(&[]) {
        if name != "id" && !takes.contains(&name.as_str()) {
            return Err(CodecError::Create {
                config: config.to_text(),
                fault: ConfigFault::UnknownParam {
                    name: name.clone(),
                    takes: if takes.is_empty() {
                        "none".into()
                    } else {
                        takes.join(", ")
                    },
                },
            });
        }
    }
    Ok(())
}

/// Build the bytes codec `config` describes. The object codecs (`vlen-utf8`,
/// `vlen-bytes`) are not bytes codecs and are handled by the pipeline.
///
/// # Errors
/// [`CodecError::Create`] for a missing or unknown id and for bad parameters.
pub fn build(config: &Json) -> Result<Box<dyn Codec>, CodecError> {
    let fail = |fault: ConfigFault| CodecError::Create {
        config: config.to_text(),
        fault,
    };
    let id = config
        .get("id")
        .and_then(Json::as_str)
        .ok_or_else(|| fail(ConfigFault::MissingId))?;
    let codec: Result<Box<dyn Codec>, ConfigFault> = match id {
        "zlib" => Zlib::from_config(config).map(|c| Box::new(c) as _),
        "gzip" => Gzip::from_config(config).map(|c| Box::new(c) as _),
        "blosc" => Blosc::from_config(config).map(|c| Box::new(c) as _),
        "zstd" => Zstd::from_config(config).map(|c| Box::new(c) as _),
        "lz4" => Lz4::from_config(config).map(|c| Box::new(c) as _),
        "bz2" => Bz2::from_config(config).map(|c| Box::new(c) as _),
        "shuffle" => Shuffle::from_config(config).map(|c| Box::new(c) as _),
        "fletcher32" => Ok(Box::new(Fletcher32) as _),
        "delta" => Delta::from_config(config).map(|c| Box::new(c) as _),
        "bitround" => BitRound::from_config(config).map(|c| Box::new(c) as _),
        "fixedscaleoffset" => FixedScaleOffset::from_config(config).map(|c| Box::new(c) as _),
        "quantize" => Quantize::from_config(config).map(|c| Box::new(c) as _),
        "packbits" => Ok(Box::new(PackBits) as _),
        "astype" => AsType::from_config(config).map(|c| Box::new(c) as _),
        "lzf" => Ok(Box::new(Lzf) as _),
        "pcodec" => Ok(Box::new(Pcodec::from_config(config)) as _),
        "zfpy" => Ok(Box::new(Zfpy::from_config(config)) as _),
        "lz4h5" => Ok(Box::new(Lz4H5) as _),
        "bitshuffle" => Bitshuffle::from_config(config).map(|c| Box::new(c) as _),
        "categorize" => Categorize::from_config(config).map(|c| Box::new(c) as _),
        "crc32" => Checksum::from_config(Kind::Crc32, config).map(|c| Box::new(c) as _),
        "crc32c" => Checksum::from_config(Kind::Crc32c, config).map(|c| Box::new(c) as _),
        "adler32" => Checksum::from_config(Kind::Adler32, config).map(|c| Box::new(c) as _),
        other => Err(ConfigFault::Unknown { id: other.into() }),
    };
    codec.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn every_listed_codec_is_known() {
        for id in KNOWN_IDS.iter().filter(|id| !id.starts_with("vlen-")) {
            let config = parse_str(&format!(r#"{{"id": "{id}"}}"#)).unwrap();
            if let Err(e) = build(&config) {
                assert!(!e.to_string().contains("unknown codec"), "{id}: {e}");
            }
        }
    }

    #[test]
    fn unknown_parameters_are_refused_for_every_codec() {
        for id in KNOWN_IDS {
            let config = parse_str(&format!(r#"{{"id": "{id}", "levl": 3}}"#)).unwrap();
            let e = check_params(&config).unwrap_err().to_string();
            assert!(e.contains("unknown parameter \"levl\""), "{id}: {e}");
            let takes = params_of(id).unwrap();
            let good = takes
                .iter()
                .map(|p| format!(r#", "{p}": 1"#))
                .collect::<String>();
            let config = parse_str(&format!(r#"{{"id": "{id}"{good}}}"#)).unwrap();
            assert!(check_params(&config).is_ok(), "{id}");
        }
        let e = check_params(&parse_str(r#"{"id": "zstd", "levl": 3}"#).unwrap()).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"codec {"id": "zstd", "levl": 3}: unknown parameter "levl" (it takes level, checksum)"#
        );
    }

    #[test]
    fn unknown_and_bad_configs() {
        let e = build(&parse_str(r#"{"id": "szip", "mask": 4}"#).unwrap()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"codec {"id": "szip", "mask": 4}: unknown codec 'szip'"#),
            "{e}"
        );
        let e = build(&parse_str(r#"{"level": 4}"#).unwrap()).unwrap_err();
        assert!(e.to_string().contains("has no \"id\""));
        let e = build(&parse_str(r#"{"id": "zlib", "level": 12}"#).unwrap()).unwrap_err();
        assert!(e.to_string().contains("\"level\" = 12 is outside 0..=9"));
        let e = build(&parse_str(r#"{"id": "blosc", "cname": "snappy"}"#).unwrap()).unwrap_err();
        assert!(e.to_string().contains("not available"));
        // netcdf-c 4.9.2 quotes numbers.
        assert!(build(&parse_str(r#"{"id": "zlib", "level": "5"}"#).unwrap()).is_ok());
    }
}
