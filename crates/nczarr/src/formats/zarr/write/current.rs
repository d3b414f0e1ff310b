//! The current NCZarr layout (netcdf-c 4.9.3+ and 4.10) and pure Zarr: `.zgroup` and
//! `.zarray` are plain Zarr; everything netCDF adds is in `.zattrs` as `_nczarr_*`
//! attributes (left out for pure Zarr).
//!
//! ```json
//! // .zattrs of a variable
//! {"units": "K", "_ARRAY_DIMENSIONS": ["time"],
//!  "_nczarr_array": {"dimension_references": ["/time"], "storage": "chunked"},
//!  "_nczarr_attr": {"types": {"units": ">S1", "_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}
//! ```

use super::array::array_meta;
use super::attrs::attrs_object;
use super::{CharDtype, WriteOptions};
use crate::formats::zarr::array::StoredArray;
use crate::formats::zarr::v2::Dtype;
use crate::json::{Json, Number};
use crate::model::{Group, NcType, Var};

fn num(v: i64) -> Json {
    Json::Number(Number::from_i64(v))
}

fn names<'a>(names: impl Iterator<Item = &'a String>) -> Json {
    Json::Array(names.map(|n| Json::String(n.clone())).collect())
}

/// xarray's `_ARRAY_DIMENSIONS` of a variable stored as `stored`, when written.
pub(crate) fn xarray_dims(
    v: &Var,
    stored: &StoredArray,
    opts: &WriteOptions,
) -> Vec<(String, Json)> {
    if !opts.xarray_dims {
        return Vec::new();
    }
    let dims = if v.dims.is_empty() {
        // A scalar stored as a one-element array: netcdf-c names its dimension so.
        if stored.shape.is_empty() {
            Json::Array(Vec::new())
        } else {
            Json::Array(vec![Json::String("_scalar_".into())])
        }
    } else {
        names(v.dims.iter().map(|d| &d.name))
    };
    vec![("_ARRAY_DIMENSIONS".to_string(), dims)]
}

/// The documents of variable `v`, stored as `stored`: `.zarray`, then `.zattrs`.
/// `default_fill`: the variable's fill is netCDF's default though `.zarray` leaves it
/// out (`"fill": "default"` in `_nczarr_array`, which netcdf-c ignores and our reader
/// reads).
pub(crate) fn var_docs(
    v: &Var,
    stored: &StoredArray,
    default_fill: bool,
    opts: &WriteOptions,
) -> Vec<(&'static str, Json)> {
    let block = (!opts.pure_zarr).then(|| {
        let mut m = vec![(
            "dimension_references".to_string(),
            Json::Array(v.dims.iter().map(|d| Json::String(d.fqn())).collect()),
        )];
        if v.dims.is_empty() {
            m.push(("scalar".into(), num(1)));
        }
        m.push(("storage".into(), Json::String("chunked".into())));
        if v.nc_type == NcType::Char && opts.char_dtype == CharDtype::Zarr {
            // '|S1' alone reads as a 1-character string in netcdf-c; say it is char.
            m.push(("nctype".into(), Json::String("char".into())));
        }
        if default_fill {
            m.push(("fill".into(), Json::String("default".into())));
        }
        ("_nczarr_array", Json::Object(m))
    });
    // A boolean dtype says what xarray's `dtype = "bool"` attribute says.
    let attrs: Vec<crate::model::Attr> = v
        .attrs
        .iter()
        .filter(|a| !(stored.dtype == Dtype::Bool && is_bool_marker(a)))
        .cloned()
        .collect();
    let zattrs = attrs_object(&attrs, xarray_dims(v, stored, opts), block, opts);
    vec![
        (".zarray", array_meta(stored, opts.pure_zarr).to_json()),
        (".zattrs", zattrs),
    ]
}

/// xarray's marking of a boolean variable stored as integers: `dtype = "bool"`.
pub(crate) fn is_bool_marker(a: &crate::model::Attr) -> bool {
    a.name == "dtype" && a.values == crate::model::Values::text("bool")
}

/// The documents of group `g`: `.zattrs`, then `.zgroup` (which makes it openable).
pub(crate) fn group_docs(g: &Group, root: bool, opts: &WriteOptions) -> Vec<(&'static str, Json)> {
    let mut extra = Vec::new();
    if root && !opts.nc_properties.is_empty() {
        extra.push((
            "_NCProperties".to_string(),
            Json::String(opts.nc_properties.clone()),
        ));
    }
    let block = (!opts.pure_zarr).then(|| {
        let dims = Json::Object(
            g.dims
                .iter()
                .map(|d| {
                    let size = Json::Number(Number::from_u64(d.len));
                    let v = if d.unlimited {
                        Json::Object(vec![("size".into(), size), ("unlimited".into(), num(1))])
                    } else {
                        size
                    };
                    (d.name.clone(), v)
                })
                .collect(),
        );
        let ginfo = Json::Object(vec![
            ("dimensions".into(), dims),
            ("arrays".into(), names(g.vars.iter().map(|v| &v.name))),
            ("groups".into(), names(g.groups.iter().map(|c| &c.name))),
        ]);
        if root {
            extra.push(("_nczarr_group".into(), ginfo));
            (
                "_nczarr_superblock",
                Json::Object(vec![("version".into(), Json::String("2.0.0".into()))]),
            )
        } else {
            ("_nczarr_group", ginfo)
        }
    });
    vec![
        (".zattrs", attrs_object(&g.attrs, extra, block, opts)),
        (
            ".zgroup",
            Json::Object(vec![("zarr_format".into(), num(2))]),
        ),
    ]
}
