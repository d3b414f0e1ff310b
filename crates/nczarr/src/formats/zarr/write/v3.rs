//! Zarr version 3 documents: each array's and group's `zarr.json`, the root's last
//! with every other document inline as consolidated metadata (what zarr-python
//! writes, so xarray opens the dataset with one read).
//!
//! netCDF facts v3 has no place for go in group attributes, read back by `nczarr::v3`
//! (`docs/formats.md`): `_nczarr_group` (variables and subgroups in order, dimensions
//! with their lengths and unlimited flags), `_nczarr_arrays` (per array: its
//! `_nczarr_array` with `nctype` for char, `nofill`; its `_nczarr_attr` attribute types;
//! a char `_FillValue`), `_nczarr_attr` (the group's attribute types),
//! `_nczarr_superblock` at the root. In the group because xarray hides a group's
//! `_nc*` attributes but shows an array's, and cannot write such a dictionary to
//! netCDF. An array's own attributes are the variable's: a `_FillValue` only where the
//! variable has one (floats as xarray spells them, base64), beside the array's
//! `fill_value`; dimension names are `dimension_names`.

use super::super::conventions::{array_key, ARRAYS_INFO};
use super::attrs::{attr_dtype, attrs_object};
use super::current::is_bool_marker;
use super::{group_key, ZarrSink};
use crate::error::Result;
use crate::formats::zarr::array::StoredArray;
use crate::formats::zarr::v2::{values_json, Dtype};
use crate::formats::zarr::v3::{ArrayMeta3, ZARR_JSON};
use crate::json::{Json, Number};
use crate::model::{Group, NcType, Values, Var, VarPath};

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
    let mut infos = Vec::new();
    for v in &g.vars {
        let vp = VarPath::new(path, &v.name);
        let stored = &sink.var(&vp)?.stored;
        let (attrs, info) = array_attrs(v, stored, opts);
        if let Some(info) = info {
            infos.push((v.name.clone(), info));
        }
        let doc = ArrayMeta3::to_json(stored, Some(&dim_names(v)), attrs);
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
        ("attributes".into(), group_attrs(g, root, infos, opts)),
    ];
    let key = group_key(path)?;
    if root && !opts.unconsolidated {
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

/// The attributes of variable `v`'s array, stored as `stored`, and what its group
/// keeps for it ([`ARRAYS_INFO`]; `None` when nothing).
fn array_attrs(v: &Var, stored: &StoredArray, opts: &super::WriteOptions) -> (Json, Option<Json>) {
    let mut block = Vec::new();
    if v.nc_type == NcType::Char {
        block.push(("nctype".to_string(), Json::String("char".into())));
    }
    if stored.fill.is_none() {
        block.push(("nofill".to_string(), Json::Bool(true)));
    }
    let mut members = Vec::new();
    let mut types = Vec::new();
    let mut info = Vec::new();
    for a in &v.attrs {
        if stored.dtype == Dtype::Bool && is_bool_marker(a) {
            // The bool dtype says it.
            continue;
        }
        types.push((a.name.clone(), Json::String(attr_dtype(&a.values, opts))));
        let value = match (&a.values, a.name.as_str()) {
            // xarray reads a float _FillValue of a v3 array only as base64 of its
            // little-endian float64 bytes (and fails on a number).
            (Values::Float(f), "_FillValue") => f
                .first()
                .map(|&x| base64_f64(f64::from(x)))
                .unwrap_or(Json::Null),
            (Values::Double(d), "_FillValue") => {
                d.first().map(|&x| base64_f64(x)).unwrap_or(Json::Null)
            }
            // xarray cannot decode a _FillValue of a byte-string array at all (it
            // refuses to open it): kept with the group.
            (Values::Char(_), "_FillValue") => {
                info.push((a.name.clone(), values_json(&a.values)));
                continue;
            }
            (values, _) => values_json(values),
        };
        members.push((a.name.clone(), value));
    }
    if !block.is_empty() {
        info.push(("_nczarr_array".into(), Json::Object(block)));
    }
    if !types.is_empty() {
        info.push((
            "_nczarr_attr".into(),
            Json::Object(vec![("types".into(), Json::Object(types))]),
        ));
    }
    (
        Json::Object(members),
        (!info.is_empty()).then_some(Json::Object(info)),
    )
}

fn base64_f64(x: f64) -> Json {
    Json::String(crate::formats::zarr::v2::encode_base64(&x.to_le_bytes()))
}

fn group_attrs(
    g: &Group,
    root: bool,
    infos: Vec<(String, Json)>,
    opts: &super::WriteOptions,
) -> Json {
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
    if !infos.is_empty() {
        extra.push((ARRAYS_INFO.to_string(), Json::Object(infos)));
    }
    let block = root.then(|| {
        (
            "_nczarr_superblock",
            Json::Object(vec![("version".into(), Json::String("3.0.0".into()))]),
        )
    });
    attrs_object(&g.attrs, extra, block, opts)
}
