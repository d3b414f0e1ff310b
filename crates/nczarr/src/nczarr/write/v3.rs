//! Zarr version 3 documents: each array's and group's `zarr.json`, the root's last
//! with every other document inline as consolidated metadata (what zarr-python
//! writes, so xarray opens the dataset with one read).
//!
//! netCDF facts v3 has no place for go in attributes, read back by `nczarr::v3`
//! (`docs/formats.md`): `_nczarr_group` (variables and subgroups in order, dimensions
//! with their lengths and unlimited
//! flags), `_nczarr_array` (`nctype` for char and string, `nofill`), `_nczarr_attr`
//! (attribute types), `_nczarr_superblock` at the root. Dimension names are
//! `dimension_names`; a `_FillValue` attribute is kept as such (xarray reads it as
//! CF's fill) beside the array's `fill_value`.

use super::super::source::array_key;
use super::attrs::attrs_object;
use super::{group_key, ZarrSink};
use crate::error::Result;
use crate::json::{Json, Number};
use crate::model::{Group, NcType, Values, Var, VarPath};
use crate::zarr3::{ArrayMeta3, ZARR_JSON};

fn num(v: i64) -> Json {
    Json::Number(Number::from_i64(v))
}

/// Write the documents of group `g` at `path` and below (arrays, subgroups, then the
/// group), adding each to `consolidated` by its path; the root gets them all.
pub(super) fn write_group(
    sink: &ZarrSink,
    g: &Group,
    path: &mut Vec<String>,
    consolidated: &mut Vec<(String, Json)>,
) -> Result<()> {
    let opts = &sink.options;
    for v in &g.vars {
        let vp = VarPath::new(path, &v.name);
        let stored = &sink.var(&vp)?.stored;
        let doc = ArrayMeta3::to_json(
            stored,
            Some(&dim_names(v)),
            array_attrs(v, stored.fill.is_none(), opts),
        );
        let key = array_key(&vp)?;
        sink.store()
            .put(&key.join(ZARR_JSON)?, doc.to_text().as_bytes())?;
        consolidated.push((key.to_string(), doc));
    }
    for c in &g.groups {
        path.push(c.name.clone());
        write_group(sink, c, path, consolidated)?;
        path.pop();
    }
    let root = path.is_empty();
    let mut members = vec![
        ("zarr_format".into(), num(3)),
        ("node_type".into(), Json::String("group".into())),
        ("attributes".into(), group_attrs(g, root, opts)),
    ];
    let key = group_key(path)?;
    if root {
        consolidated.sort_by(|a, b| a.0.cmp(&b.0));
        members.push((
            "consolidated_metadata".into(),
            Json::Object(vec![
                ("kind".into(), Json::String("inline".into())),
                ("must_understand".into(), Json::Bool(false)),
                (
                    "metadata".into(),
                    Json::Object(std::mem::take(consolidated)),
                ),
            ]),
        ));
    }
    let doc = Json::Object(members);
    if root {
        return sink.put_opener(ZARR_JSON, &doc);
    }
    sink.store()
        .put(&key.join(ZARR_JSON)?, doc.to_text().as_bytes())?;
    {
        // The consolidated copy holds no nested consolidated metadata.
        consolidated.push((key.to_string(), doc));
    }
    Ok(())
}

fn dim_names(v: &Var) -> Vec<String> {
    v.dims.iter().map(|d| d.name.clone()).collect()
}

fn array_attrs(v: &Var, no_fill: bool, opts: &super::WriteOptions) -> Json {
    let mut info = Vec::new();
    match v.nc_type {
        NcType::Char => info.push(("nctype".to_string(), Json::String("char".into()))),
        NcType::String => info.push(("nctype".to_string(), Json::String("string".into()))),
        _ => {}
    }
    if no_fill {
        info.push(("nofill".to_string(), Json::Bool(true)));
    }
    let block = (!info.is_empty()).then_some(("_nczarr_array", Json::Object(info)));
    let mut doc = attrs_object(&v.attrs, Vec::new(), block, opts);
    // xarray reads a float _FillValue of a v3 array only as base64 of its
    // little-endian float64 bytes (and fails on a number).
    let fill = v
        .attrs
        .iter()
        .find(|a| a.name == "_FillValue")
        .and_then(|a| match &a.values {
            Values::Float(f) => f.first().map(|&x| f64::from(x)),
            Values::Double(d) => d.first().copied(),
            _ => None,
        });
    if let Json::Object(members) = &mut doc {
        for (k, val) in members.iter_mut() {
            if k == "_FillValue" {
                match fill {
                    Some(x) => *val = Json::String(crate::zarr::encode_base64(&x.to_le_bytes())),
                    // xarray cannot decode a _FillValue of a byte-string array at all
                    // (it refuses to open it): kept under a name it leaves alone.
                    None if v.nc_type == NcType::Char => *k = CHAR_FILL.to_string(),
                    None => {}
                }
            }
        }
    }
    doc
}

/// Where a char variable's `_FillValue` is kept in v3 attributes.
pub(crate) const CHAR_FILL: &str = "_nczarr_FillValue";

fn group_attrs(g: &Group, root: bool, opts: &super::WriteOptions) -> Json {
    let mut extra = Vec::new();
    if root && !opts.nc_properties.is_empty() {
        extra.push((
            "_NCProperties".to_string(),
            Json::String(opts.nc_properties.clone()),
        ));
    }
    // The order of dimensions, variables and subgroups: Zarr lists children sorted.
    let dims = g
        .dims
        .iter()
        .map(|d| {
            let mut m = vec![("size".to_string(), Json::Number(Number::from_u64(d.len)))];
            if d.unlimited {
                m.push(("unlimited".into(), num(1)));
            }
            (d.name.clone(), Json::Object(m))
        })
        .collect();
    let names =
        |n: Vec<&String>| Json::Array(n.into_iter().map(|n| Json::String(n.clone())).collect());
    extra.push((
        "_nczarr_group".to_string(),
        Json::Object(vec![
            ("dimensions".into(), Json::Object(dims)),
            (
                "arrays".into(),
                names(g.vars.iter().map(|v| &v.name).collect()),
            ),
            (
                "groups".into(),
                names(g.groups.iter().map(|c| &c.name).collect()),
            ),
        ]),
    ));
    let block = root.then(|| {
        (
            "_nczarr_superblock",
            Json::Object(vec![("version".into(), Json::String("3.0.0".into()))]),
        )
    });
    attrs_object(&g.attrs, extra, block, opts)
}
