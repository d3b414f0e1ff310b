//! Stable text of a dataset's structure and of a variable's storage, for the fingerprint
//! every run of a copy in parts must agree on ([`super::parts::fingerprint`]). Written
//! field by field rather than by `Debug`, so that it changes only when what is stored
//! does, not when a type gains a field or a build prints differently.

use crate::encoding::{Chunking, Encoding, Endianness, ZarrKind};
use crate::formats::zarr::v2::values_json;
use crate::json::{Json, Number};
use crate::model::{Attr, Group};

/// Append the group `g` at `path` (`""` for the root) and its subgroups: dimensions,
/// variables (type, dimensions, attributes) and attributes, one line each.
pub(crate) fn dataset(out: &mut String, g: &Group, path: &str) {
    out.push_str(&format!("group {path}/\n"));
    for d in &g.dims {
        let unlimited = if d.unlimited { " unlimited" } else { "" };
        out.push_str(&format!("dim {} = {}{unlimited}\n", d.name, d.len));
    }
    for a in &g.attrs {
        attr(out, "", a);
    }
    for v in &g.vars {
        let dims: Vec<String> = v
            .dims
            .iter()
            .map(|d| format!("{}/{}", d.group.join("/"), d.name))
            .collect();
        out.push_str(&format!(
            "var {} {}({})\n",
            v.nc_type.cdl_name(),
            v.name,
            dims.join(", ")
        ));
        for a in &v.attrs {
            attr(out, &v.name, a);
        }
    }
    for sub in &g.groups {
        dataset(out, sub, &format!("{path}/{}", sub.name));
    }
}

fn attr(out: &mut String, var: &str, a: &Attr) {
    out.push_str(&format!(
        "attr {var}:{} {} = {}\n",
        a.name,
        a.values.nc_type().cdl_name(),
        values_json(&a.values).to_text()
    ));
}

/// A variable's storage as JSON: chunks, codecs, fill, byte order, string widths.
pub(crate) fn encoding(e: &Encoding) -> Json {
    let int = |n: u64| Json::Number(Number::from_i64(i64::try_from(n).unwrap_or(i64::MAX)));
    let chunking = match &e.chunking {
        None => Json::Null,
        Some(Chunking::Contiguous) => Json::String("contiguous".into()),
        Some(Chunking::Compact) => Json::String("compact".into()),
        Some(Chunking::Chunked(c)) => Json::Array(c.iter().map(|&n| int(n)).collect()),
    };
    let endian = match e.endian {
        None => Json::Null,
        Some(Endianness::Little) => Json::String("little".into()),
        Some(Endianness::Big) => Json::String("big".into()),
    };
    let zarr_kind = match e.zarr_kind {
        None => Json::Null,
        Some(ZarrKind::Bool) => Json::String("bool".into()),
        Some(ZarrKind::Bytes) => Json::String("bytes".into()),
        Some(ZarrKind::Text) => Json::String("text".into()),
    };
    let width = |w: Option<usize>| w.map_or(Json::Null, |n| int(n as u64));
    Json::Object(vec![
        ("chunking".into(), chunking),
        ("codecs".into(), Json::Array(e.codecs.clone())),
        (
            "fill".into(),
            e.fill.as_ref().map_or(Json::Null, values_json),
        ),
        ("no_fill".into(), Json::Bool(e.no_fill)),
        ("endian".into(), endian),
        ("string_width".into(), width(e.string_width)),
        ("string_chars".into(), width(e.string_chars)),
        ("zarr_kind".into(), zarr_kind),
        ("zarr_fill_masks".into(), Json::Bool(e.zarr_fill_masks)),
    ])
}
