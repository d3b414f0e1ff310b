//! Build a codec from its Zarr v2 JSON, by the codec table ([`super::table`]).

use super::table;
use super::{Codec, CodecError, ConfigFault};
use crate::json::Json;

/// The parameters each codec takes, as numcodecs names them (besides `id`).
fn params_of(id: &str) -> Option<&'static [&'static str]> {
    table::spec(id).map(|c| c.params)
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
    let codec = match table::spec(id).and_then(|c| c.build) {
        Some(build) => build(config),
        None => Err(ConfigFault::Unknown {
            id: id.into(),
            known: table::known_ids(),
        }),
    };
    codec.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn every_listed_codec_is_known() {
        for id in table::CODECS
            .iter()
            .map(|c| c.id)
            .filter(|id| !id.starts_with("vlen-"))
        {
            let config = parse_str(&format!(r#"{{"id": "{id}"}}"#)).unwrap();
            if let Err(e) = build(&config) {
                assert!(!e.to_string().contains("unknown codec"), "{id}: {e}");
            }
        }
    }

    #[test]
    fn unknown_parameters_are_refused_for_every_codec() {
        for id in table::CODECS.iter().map(|c| c.id) {
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
