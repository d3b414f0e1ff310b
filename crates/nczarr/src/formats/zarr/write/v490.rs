//! netcdf-c 4.9.0's NCZarr layout: upper-case `_NCZARR_*` keys inside `.zgroup` and
//! `.zarray`, attribute types in `.zattrs`' `_NCZARR_ATTR`, char as `<U1` holding one
//! byte per character, and what 4.9.0 cannot hold fitted or refused beforehand.
//!
//! ```json
//! // .zgroup of the root
//! {"zarr_format": 2, "_NCZARR_SUPERBLOCK": {"version": "2.0.0"},
//!  "_NCZARR_GROUP": {"dims": {"time": 4}, "vars": ["t"], "groups": []}}
//! ```

use super::array::array_meta;
use super::attrs::attrs_object;
use super::current::xarray_dims;
use super::WriteOptions;
use crate::encoding::{Chunking, Encoding, Endianness};
use crate::error::{Error, Result};
use crate::formats::zarr::array::StoredArray;
use crate::formats::zarr::v2::{Dtype, Endian};
use crate::formats::zarr::SCALAR_DIM;
use crate::json::{Json, Number};
use crate::model::{Dataset, Group, GroupPath, NcType, Var, VarPath};

fn num(v: i64) -> Json {
    Json::Number(Number::from_i64(v))
}

fn names<'a>(names: impl Iterator<Item = &'a String>) -> Json {
    Json::Array(names.map(|n| Json::String(n.clone())).collect())
}

/// Change a variable's encoding to what 4.9.0 can read back; returns what was changed,
/// for a warning. The values are always kept.
///
/// Byte order becomes little-endian (4.9.0 reads stored bytes in host order whatever
/// the dtype says, so big-endian data came back swapped), codecs are dropped
/// (Debian's 4.9.0 has no NCZarr filters and reads compressed chunks as raw bytes,
/// silently), and no chunk is longer than its dimension (`shape`, the variable's):
/// 4.9.0 cannot open an array whose chunk is, as an unlimited dimension written fixed
/// at 3 with chunks of 512 was.
pub(crate) fn fit(enc: &mut Encoding, shape: &[u64]) -> Vec<String> {
    let mut changed = Vec::new();
    if let Some(Chunking::Chunked(chunks)) = &mut enc.chunking {
        for (c, &len) in chunks.iter_mut().zip(shape) {
            *c = (*c).min(len.max(1));
        }
    }
    if enc.endian == Some(Endianness::Big) {
        enc.endian = None;
        changed.push(
            "written little-endian: netcdf-c 4.9.0 ignores the byte order of stored data".into(),
        );
    }
    if !enc.codecs.is_empty() {
        let ids: Vec<&str> = enc.codec_ids().collect();
        changed.push(format!(
            "written without its codecs ({}): netcdf-c 4.9.0 reads encoded chunks as raw bytes",
            ids.join(", ")
        ));
        enc.codecs.clear();
    }
    changed
}

/// What 4.9.0 cannot hold: strings are refused (it crashes on them); unlimited
/// dimensions are written fixed, with a warning each.
///
/// # Errors
/// [`Error::Unsupported`] naming the first string variable or attribute.
pub(crate) fn limits(ds: &Dataset) -> Result<Vec<String>> {
    fn walk(g: &Group, path: &mut Vec<String>, warnings: &mut Vec<String>) -> Result<()> {
        let no_strings = |what: String| {
            Err(Error::Unsupported(format!(
                "{what} is a string; netcdf-c 4.9.0 cannot read strings in NCZarr (it crashes), so the 4.9.0 layout cannot hold it"
            )))
        };
        for a in &g.attrs {
            if a.values.nc_type() == NcType::String {
                return no_strings(format!("attribute {}:{}", GroupPath(path), a.name));
            }
        }
        for d in &g.dims {
            if d.unlimited {
                warnings.push(format!(
                    "dimension {} is written as fixed (length {}): netcdf-c 4.9.0 has no unlimited dimensions in NCZarr",
                    VarPath::new(path, &d.name),
                    d.len
                ));
            }
        }
        for v in &g.vars {
            let vp = VarPath::new(path, &v.name);
            if v.nc_type == NcType::String {
                return no_strings(format!("variable {vp}"));
            }
            if let Some(a) = v
                .attrs
                .iter()
                .find(|a| a.values.nc_type() == NcType::String)
            {
                return no_strings(format!("attribute {vp}:{}", a.name));
            }
        }
        for c in &g.groups {
            path.push(c.name.clone());
            walk(c, path, warnings)?;
            path.pop();
        }
        Ok(())
    }
    let mut warnings = Vec::new();
    walk(&ds.root, &mut Vec::new(), &mut warnings)?;
    Ok(warnings)
}

/// The documents of variable `v`, stored as `stored`: `.zattrs`, then `.zarray`.
pub(crate) fn var_docs(
    v: &Var,
    stored: &StoredArray,
    opts: &WriteOptions,
) -> Vec<(&'static str, Json)> {
    // 4.9.0 crashes on any variable without dimensions (even its own), so a scalar is
    // a 1-element array over the root dimension `_scalar_`; our reader turns it back.
    let refs = if v.dims.is_empty() {
        vec![Json::String(format!("/{SCALAR_DIM}"))]
    } else {
        v.dims.iter().map(|d| Json::String(d.fqn())).collect()
    };
    let mut zarray = array_meta(stored, false);
    if v.nc_type == NcType::Char {
        // What 4.9.0 writes and expects: '<U1' over one byte per character.
        zarray.dtype = Dtype::Unicode {
            chars: 1,
            endian: Endian::Little,
        };
    }
    zarray.extra.push((
        "_NCZARR_ARRAY".into(),
        Json::Object(vec![
            ("dimrefs".into(), Json::Array(refs)),
            ("storage".into(), Json::String("chunked".into())),
        ]),
    ));
    vec![
        (
            ".zattrs",
            attrs_object(&v.attrs, xarray_dims(v, stored, opts), None, opts),
        ),
        (".zarray", zarray.to_json()),
    ]
}

fn has_scalar(g: &Group) -> bool {
    g.vars.iter().any(|v| v.dims.is_empty()) || g.groups.iter().any(has_scalar)
}

/// The documents of group `g` of `ds`: `.zattrs` (attributes and their types), then
/// `.zgroup` holding the group's contents and, at the root, the superblock.
pub(crate) fn group_docs(
    ds: &Dataset,
    g: &Group,
    root: bool,
    opts: &WriteOptions,
) -> Vec<(&'static str, Json)> {
    let mut extra = Vec::new();
    if root && !opts.nc_properties.is_empty() {
        extra.push((
            "_NCProperties".to_string(),
            Json::String(opts.nc_properties.clone()),
        ));
    }
    let mut dims: Vec<(String, Json)> = g
        .dims
        .iter()
        .map(|d| (d.name.clone(), Json::Number(Number::from_u64(d.len))))
        .collect();
    if root && has_scalar(&ds.root) && !dims.iter().any(|(k, _)| k == SCALAR_DIM) {
        dims.push((SCALAR_DIM.into(), num(1)));
    }
    let mut zgroup = vec![("zarr_format".to_string(), num(2))];
    if root {
        zgroup.push((
            "_NCZARR_SUPERBLOCK".into(),
            Json::Object(vec![("version".into(), Json::String("2.0.0".into()))]),
        ));
    }
    zgroup.push((
        "_NCZARR_GROUP".into(),
        Json::Object(vec![
            ("dims".into(), Json::Object(dims)),
            ("vars".into(), names(g.vars.iter().map(|v| &v.name))),
            ("groups".into(), names(g.groups.iter().map(|c| &c.name))),
        ]),
    ));
    vec![
        (".zattrs", attrs_object(&g.attrs, extra, None, opts)),
        (".zgroup", Json::Object(zgroup)),
    ]
}
