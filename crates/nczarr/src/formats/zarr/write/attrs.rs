//! `.zattrs`: a group's or variable's attributes as JSON, with NCZarr's record of
//! their netCDF types (`_nczarr_attr.types`, or 4.9.0's `_NCZARR_ATTR`).

use super::array::dtype_for;
use super::WriteOptions;
use crate::formats::zarr::v2::values_json;
use crate::json::Json;
use crate::model::{Attr, Values};

/// The type entry of an attribute in `_nczarr_attr.types`.
pub(crate) fn attr_dtype(values: &Values, opts: &WriteOptions) -> String {
    match values {
        Values::String(v) => {
            let n = v
                .iter()
                .flatten()
                .map(<[u8]>::len)
                .max()
                .unwrap_or(1)
                .max(1);
            format!("|S{n}")
        }
        // netcdf-c recognises char attributes by '>S1' whatever the variables use;
        // 4.9.0 types them '<U1' (and reads '>S1' as a string).
        Values::Char(_) => char_type(opts).into(),
        v => dtype_for(v.nc_type(), None, 1, opts.char_dtype).to_string(),
    }
}

fn char_type(opts: &WriteOptions) -> &'static str {
    if opts.v490() {
        "<U1"
    } else {
        ">S1"
    }
}

/// The `.zattrs` object: the attributes, then `extra` members (xarray's
/// `_ARRAY_DIMENSIONS`, `_NCProperties`, NCZarr's JSON blocks), then the NCZarr block
/// `nczarr`, then (for NCZarr) the types of all of them.
pub(crate) fn attrs_object(
    attrs: &[Attr],
    extra: Vec<(String, Json)>,
    nczarr: Option<(&str, Json)>,
    opts: &WriteOptions,
) -> Json {
    let mut members: Vec<(String, Json)> = Vec::new();
    let mut types: Vec<(String, Json)> = Vec::new();
    for a in attrs {
        if opts.pure_zarr && a.name == "_FillValue" {
            // In pure Zarr the fill lives in .zarray's fill_value, which xarray reads as
            // _FillValue.
            continue;
        }
        members.push((a.name.clone(), values_json(&a.values)));
        types.push((a.name.clone(), Json::String(attr_dtype(&a.values, opts))));
    }
    let internal = || Json::String("|J0".into());
    for (k, v) in extra {
        if k.starts_with("_nczarr_") {
            types.push((k.clone(), internal()));
        } else if k == "_NCProperties" {
            types.push((k.clone(), Json::String(char_type(opts).into())));
        }
        members.push((k, v));
    }
    if let Some((k, v)) = nczarr {
        members.push((k.to_string(), v));
        types.push((k.to_string(), internal()));
    }
    if !opts.pure_zarr {
        let key = if opts.v490() {
            "_NCZARR_ATTR"
        } else {
            types.push(("_nczarr_attr".into(), internal()));
            "_nczarr_attr"
        };
        members.push((
            key.into(),
            Json::Object(vec![("types".into(), Json::Object(types))]),
        ));
    }
    Json::Object(members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::zarr::write::Layout;

    #[test]
    fn types_are_recorded_per_generation() {
        let attrs = vec![
            Attr::new("units", Values::text("K")),
            Attr::new("valid", Values::Short(vec![0, 9])),
            Attr::new(
                "names",
                Values::String(vec![Some(b"ab".to_vec()), Some(b"xyz".to_vec())].into()),
            ),
        ];
        let extra = || vec![("_NCProperties".to_string(), Json::String("p".into()))];
        let current = attrs_object(&attrs, extra(), None, &WriteOptions::default());
        assert_eq!(
            current.to_text(),
            r#"{"units": "K", "valid": [0,9], "names": ["ab","xyz"], "_NCProperties": "p", "_nczarr_attr": {"types": {"units": ">S1", "valid": "<i2", "names": "|S3", "_NCProperties": ">S1", "_nczarr_attr": "|J0"}}}"#
        );
        let v490 = WriteOptions {
            layout: Layout::Netcdf490,
            ..WriteOptions::default()
        };
        let old = attrs_object(&attrs[..2], extra(), None, &v490);
        assert_eq!(
            old.to_text(),
            r#"{"units": "K", "valid": [0,9], "_NCProperties": "p", "_NCZARR_ATTR": {"types": {"units": "<U1", "valid": "<i2", "_NCProperties": "<U1"}}}"#
        );
        let pure = WriteOptions {
            pure_zarr: true,
            ..WriteOptions::default()
        };
        let fill = [Attr::new("_FillValue", Values::Int(vec![1]))];
        assert_eq!(attrs_object(&fill, vec![], None, &pure).to_text(), "{}");
    }
}
