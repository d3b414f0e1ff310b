//! What nccopy's `-d`, `-s` and `-F`, and nczcopy's `--codec`, do to a variable's
//! codec chain, in nccopy's order of precedence:
//! 1. the input's chain is kept, unless a `-F` spec names the variable: then its
//!    filters replace the input's (`none`: no filters at all, whatever else is asked);
//! 2. `-d 0` removes every filter; `-d N` sets deflate level N (replacing a deflate the
//!    chain has), with shuffle before it when `-s` is given;
//! 3. `--codec` replaces the chain's compressor (with shuffle before it for `-s`).
//!
//! `-F` specs are `VARS,FILTERS`: VARS is `*` or variable names joined by `&` (nccopy's
//! code) or `|` (its manual); FILTERS is `_Filter`'s `id,params|id,params` (HDF5 ids:
//! 1 deflate, 2 shuffle, 3 fletcher32, 307 bzip2, 32001 blosc, 32015 zstd) or `none`.
//! `-F none` alone drops every filter.

use crate::codec::table;
use crate::encoding::{Encoding, Special};
use crate::json::{self, Json, Number};
use crate::model::select::var_matches;
use crate::model::{NcType, VarPath};

/// A `-F` or `--codec` specification that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{option} '{spec}': {reason}")]
pub struct FilterSpecError {
    /// `-F` or `--codec`.
    pub option: &'static str,
    /// The spec as given.
    pub spec: String,
    /// What is wrong.
    pub reason: String,
}

// Here rather than in `error.rs`, which would otherwise import the layer it is
// imported by.
impl From<FilterSpecError> for crate::Error {
    fn from(e: FilterSpecError) -> crate::Error {
        crate::Error::Layer {
            layer: "copy",
            source: Box::new(e),
        }
    }
}

/// One `-F` specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterSpec {
    /// The variable names it applies to; empty for `*`.
    vars: Vec<String>,
    /// The `_Filter` text of its filters; `None` for `none`.
    filters: Option<String>,
    /// The spec as given.
    text: String,
}

impl FilterSpec {
    /// Parse one `-F` argument.
    ///
    /// # Errors
    /// [`FilterSpecError`] for a spec without filters or with filters that do not
    /// parse (checked here, before anything is read).
    pub fn parse(text: &str) -> Result<FilterSpec, FilterSpecError> {
        let fail = |reason: String| FilterSpecError {
            option: "-F",
            spec: text.to_string(),
            reason,
        };
        let t = text.trim();
        if t.eq_ignore_ascii_case("none") {
            return Ok(FilterSpec {
                vars: Vec::new(),
                filters: None,
                text: text.to_string(),
            });
        }
        let (vars, filters) = t
            .split_once(',')
            .ok_or_else(|| fail("expected VARS,FILTERS (e.g. '*,32015,3' or 'v&w,none')".into()))?;
        let vars: Vec<String> = if vars.trim() == "*" {
            Vec::new()
        } else {
            vars.split(['&', '|'])
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
                .collect()
        };
        if vars.is_empty() && !t.starts_with('*') {
            return Err(fail("no variable names before the first ','".into()));
        }
        let filters = if filters.trim().eq_ignore_ascii_case("none") {
            None
        } else {
            let text = filters.trim().to_string();
            // Check now: the same parser applies it to every variable later.
            Encoding::default()
                .apply(Special::Filter(text.clone()), NcType::Float, 0)
                .map_err(|e| fail(e.to_string()))?;
            Some(text)
        };
        Ok(FilterSpec {
            vars,
            filters,
            text: text.to_string(),
        })
    }

    /// The variable names the spec gives (none for `*`).
    pub fn vars(&self) -> &[String] {
        &self.vars
    }

    /// The first variable name the spec gives that no variable of `dataset` matches: a
    /// typo would otherwise filter nothing, silently (nccopy's own silence).
    pub fn unknown_var<'s>(&'s self, dataset: &crate::model::Dataset) -> Option<&'s str> {
        let vars = dataset.vars();
        self.vars
            .iter()
            .find(|v| !vars.iter().any(|(p, _)| var_matches(v, &p.group, &p.name)))
            .map(String::as_str)
    }

    /// The spec as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn applies_to(&self, var: &VarPath) -> bool {
        self.vars.is_empty()
            || self
                .vars
                .iter()
                .any(|v| var_matches(v, &var.group, &var.name))
    }
}

/// Parse `--codec`: a numcodecs codec by name with optional parameters
/// (`zstd`, `zstd:level=5`, `blosc:cname=lz4,clevel=5,shuffle=1`) or as JSON
/// (`{"id": "zstd", "level": 5}`).
///
/// # Errors
/// [`FilterSpecError`] for text that is neither, or a codec this build cannot build.
pub fn parse_codec(text: &str) -> Result<Json, FilterSpecError> {
    let fail = |reason: String| FilterSpecError {
        option: "--codec",
        spec: text.to_string(),
        reason,
    };
    let t = text.trim();
    let codec = if t.starts_with('{') {
        json::parse_str(t).map_err(|e| fail(format!("not valid JSON: {e}")))?
    } else {
        let (id, params) = t.split_once(':').unwrap_or((t, ""));
        let mut members = vec![("id".to_string(), Json::String(id.trim().to_string()))];
        for p in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| fail(format!("'{p}' is not name=value")))?;
            let v = v.trim();
            let value = match v.parse::<i64>() {
                Ok(n) => Json::Number(Number::from_i64(n)),
                Err(_) => Json::String(v.to_string()),
            };
            members.push((k.trim().to_string(), value));
        }
        Json::Object(members)
    };
    crate::codec::check_params(&codec).map_err(|e| fail(e.to_string()))?;
    crate::codec::Pipeline::new(std::slice::from_ref(&codec), None)
        .map_err(|e| fail(e.to_string()))?;
    Ok(codec)
}

/// The codec ids that compress (and so are replaced by `--codec`).
/// Whether `codec` (JSON) is a compressor, which `--codec` puts in place of the one a
/// variable has, rather than a filter, which it puts before it.
pub fn is_compressor(codec: &Json) -> bool {
    is_compressor_id(crate::encoding::codec_id(codec))
}

fn is_compressor_id(id: &str) -> bool {
    table::spec(id).is_some_and(|c| c.role == table::Role::Compressor)
}

/// Filters that apply to float variables only (`--codec` leaves others as they are).
fn floats_only(id: &str) -> bool {
    table::spec(id).is_some_and(|c| c.floats_only)
}

/// nccopy's and nczcopy's compression options together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Compression {
    /// `-d`: deflate level; 0 removes every filter.
    pub deflate: Option<u32>,
    /// `-s`: shuffle before the compressor `-d` or `--codec` adds.
    pub shuffle: bool,
    /// `-F`, in the order given.
    pub filters: Vec<FilterSpec>,
    /// `--codec`, in the order given: a compressor replaces every variable's; a filter
    /// (`bitround`, `quantize`, `delta`, ...) goes first in its chain.
    pub codec: Vec<Json>,
}

impl Compression {
    /// True when nothing is asked: codec chains are copied as they are.
    pub fn is_empty(&self) -> bool {
        *self == Compression::default()
    }

    /// Change the codec chain of the variable at `var` (of type `t`).
    ///
    /// # Errors
    /// As [`Encoding::apply`] (the specs were checked when parsed).
    pub fn apply(
        &self,
        enc: &mut Encoding,
        var: &VarPath,
        t: NcType,
    ) -> Result<(), crate::encoding::EncodingError> {
        let mut replaced = false;
        for spec in self.filters.iter().filter(|s| s.applies_to(var)) {
            if !replaced {
                enc.codecs.clear();
                replaced = true;
            }
            match &spec.filters {
                // `none` wins over everything else asked for the variable.
                None => {
                    enc.codecs.clear();
                    return Ok(());
                }
                Some(f) => enc.apply(Special::Filter(f.clone()), t, 0)?,
            }
        }
        match self.deflate {
            Some(0) => {
                enc.codecs.clear();
                return Ok(());
            }
            Some(level) => {
                enc.apply(Special::DeflateLevel(i128::from(level)), t, 0)?;
                if self.shuffle {
                    enc.apply(Special::Shuffle(true), t, 0)?;
                }
            }
            None => {}
        }
        if !self.codec.is_empty() {
            let id = |c: &Json| c.get("id").and_then(Json::as_str).unwrap_or("").to_string();
            let (compressors, filters): (Vec<&Json>, Vec<&Json>) =
                self.codec.iter().partition(|c| is_compressor_id(&id(c)));
            if !compressors.is_empty() {
                enc.codecs.retain(|c| !is_compressor_id(&id(c)));
            }
            // Filters come first, in the order given: they work on the variable's
            // values, before any filter that changes their type or bytes (shuffle,
            // fixedscaleoffset); the float ones (bitround, quantize) only on floats.
            let float = matches!(t, NcType::Float | NcType::Double);
            let mut inserted = 0;
            for f in filters {
                if floats_only(&id(f)) && !float {
                    continue;
                }
                enc.codecs.insert(inserted, f.clone());
                inserted += 1;
            }
            let at = enc
                .codecs
                .iter()
                .position(|c| id(c) == "fletcher32")
                .unwrap_or(enc.codecs.len());
            for (k, c) in compressors.into_iter().enumerate() {
                enc.codecs.insert(at + k, c.clone());
            }
            if self.shuffle {
                enc.apply(Special::Shuffle(true), t, 0)?;
            }
        }
        Ok(())
    }

    /// Where each spec applies, as given, for messages.
    pub fn filter_specs(&self) -> impl Iterator<Item = &str> {
        self.filters.iter().map(|f| f.text.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(e: &Encoding) -> Vec<&str> {
        e.codec_ids().collect()
    }

    fn input() -> Encoding {
        let mut e = Encoding::default();
        e.apply(Special::Shuffle(true), NcType::Int, 1).unwrap();
        e.apply(Special::DeflateLevel(5), NcType::Int, 1).unwrap();
        e
    }

    fn at(name: &str) -> VarPath {
        VarPath::new(&[], name)
    }

    #[test]
    fn nccopy_precedence() {
        let run = |c: Compression, var: &str| {
            let mut e = input();
            c.apply(&mut e, &at(var), NcType::Int).unwrap();
            e
        };
        // Nothing asked: the input's chain.
        assert_eq!(ids(&run(Compression::default(), "v")), ["shuffle", "zlib"]);
        // -F replaces the input's filters for the variables it names only.
        let f = Compression {
            filters: vec![FilterSpec::parse("v&w,32015,3").unwrap()],
            ..Compression::default()
        };
        assert_eq!(ids(&run(f.clone(), "v")), ["zstd"]);
        assert_eq!(ids(&run(f, "x")), ["shuffle", "zlib"]);
        // -d 0 removes everything; -d N replaces deflate; -s adds shuffle.
        let d0 = Compression {
            deflate: Some(0),
            ..Compression::default()
        };
        assert!(ids(&run(d0, "v")).is_empty());
        let d1 = Compression {
            deflate: Some(1),
            shuffle: true,
            filters: vec![FilterSpec::parse("*,307,9").unwrap()],
            ..Compression::default()
        };
        let e = run(d1, "v");
        assert_eq!(ids(&e), ["shuffle", "bz2", "zlib"]);
        // none beats -d.
        let none = Compression {
            deflate: Some(4),
            filters: vec![FilterSpec::parse("v|w,none").unwrap()],
            ..Compression::default()
        };
        assert!(ids(&run(none.clone(), "w")).is_empty());
        assert_eq!(ids(&run(none, "z")), ["shuffle", "zlib"]);
        // --codec replaces the compressor.
        let codec = Compression {
            codec: vec![parse_codec("blosc:cname=zstd,clevel=3").unwrap()],
            ..Compression::default()
        };
        let e = run(codec, "v");
        assert_eq!(ids(&e), ["shuffle", "blosc"]);
        assert_eq!(e.codecs[1].get("cname").unwrap().as_str(), Some("zstd"));
        // A filter goes before the compressor, which stays; bitround on floats only.
        let lossy = Compression {
            codec: vec![parse_codec("bitround:keepbits=9").unwrap()],
            ..Compression::default()
        };
        assert_eq!(ids(&run(lossy.clone(), "v")), ["shuffle", "zlib"]);
        let mut e = input();
        lossy.apply(&mut e, &at("v"), NcType::Float).unwrap();
        assert_eq!(ids(&e), ["bitround", "shuffle", "zlib"]);
        let both = Compression {
            codec: vec![
                parse_codec("bitround:keepbits=9").unwrap(),
                parse_codec("zstd").unwrap(),
            ],
            ..Compression::default()
        };
        let mut e = input();
        both.apply(&mut e, &at("v"), NcType::Double).unwrap();
        assert_eq!(ids(&e), ["bitround", "shuffle", "zstd"]);
    }

    #[test]
    fn bad_specs() {
        let e = |s: &str| FilterSpec::parse(s).unwrap_err().to_string();
        assert!(e("v").starts_with("-F 'v': expected VARS,FILTERS"));
        assert!(e("v,abc").contains("filter id 'abc' is not a number"));
        assert!(e("v,4,4,8").contains("szip"));
        assert!(e(",1").contains("no variable names"));
        assert!(FilterSpec::parse("none").unwrap().vars().is_empty());
        let c = |s: &str| parse_codec(s).unwrap_err().to_string();
        assert!(c("snappy").contains("unknown codec 'snappy'"));
        assert!(c("zstd:level").contains("'level' is not name=value"));
        assert!(c("zlib:level=12").contains("outside 0..=9"));
        assert!(c("{").contains("not valid JSON"));
        assert_eq!(
            parse_codec(r#"{"id": "lz4"}"#).unwrap().to_text(),
            r#"{"id": "lz4"}"#
        );
    }
}
