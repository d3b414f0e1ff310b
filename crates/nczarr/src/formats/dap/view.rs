//! The netCDF dataset netcdf-c's DAP2 client makes of a DDS and a DAS (the classic
//! model): which variables, dimensions and attributes `ncdump URL` shows, with the
//! names and types it gives them. Every rule of that mapping is here, and only here.
//!
//! - Variables: each base variable of the DDS, in order; a grid's array under the
//!   grid's name, its maps as coordinate variables (once, where not declared
//!   already). Structures and sequences are refused naming the variable.
//! - Types: Byte is `byte`, Int16 and UInt16 `short`, Int32 and UInt32 `int` (the
//!   unsigned ones' values wrap, as netcdf-c's classic model keeps them), Float32
//!   `float`, Float64 `double`; a String or Url variable is `char` with one more
//!   dimension, `maxStrlen64` (64 characters; `[maxstrlen=N]` changes it).
//! - Dimensions: a named one is shared by every array that names it; an anonymous
//!   one is `<var>_<i>`; all sorted by name. `DODS_EXTRA`'s `Unlimited_Dimension`
//!   names the unlimited one.
//! - Attributes: a variable's table gives its attributes; the dataset's are the
//!   top-level attributes, then `NC_GLOBAL`'s (or any `*_GLOBAL` table's), then each
//!   other table's, flattened as `table.name`.

use super::das::{DasAttr, DasItem, DasTable};
use super::dds::{DapType, Dds, Decl, DimDecl};
use crate::model::{Attr, Dataset, Dim, DimRef, Group, NcType, Values, Var, VarPath};

/// Where a netCDF variable's values come from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VarMap {
    /// The variable in the netCDF view.
    pub(crate) path: VarPath,
    /// Its name in a constraint expression (`tas`, or `grid.array`), DAP's escapes kept.
    pub(crate) projection: String,
    /// Its DAP type.
    pub(crate) ty: DapType,
    /// The string dimension's length, for String and Url variables.
    pub(crate) string_len: Option<u64>,
    /// The DAP dimensions (the netCDF ones without the string dimension).
    pub(crate) dap_rank: usize,
}

/// The dataset and where each of its variables comes from.
#[derive(Debug, Clone)]
pub(crate) struct View {
    /// The netCDF view.
    pub(crate) dataset: Dataset,
    /// One per variable, in the dataset's order.
    pub(crate) vars: Vec<VarMap>,
}

impl View {
    /// The netCDF shape of `var`.
    pub(crate) fn shape(&self, var: &VarMap) -> Vec<u64> {
        let root = &self.dataset.root;
        root.vars
            .iter()
            .find(|v| v.name == var.path.name)
            .map(|v| {
                v.dims
                    .iter()
                    .map(|d| root.dims.iter().find(|x| x.name == d.name).map_or(0, |x| x.len))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The netCDF type of `var`.
    pub(crate) fn nc_type(&self, var: &VarMap) -> NcType {
        nc_type(var.ty)
    }
}

/// The netCDF type netcdf-c's classic view gives a DAP type.
pub(crate) fn nc_type(t: DapType) -> NcType {
    match t {
        DapType::Byte => NcType::Byte,
        DapType::Int16 | DapType::UInt16 => NcType::Short,
        DapType::Int32 | DapType::UInt32 => NcType::Int,
        DapType::Float32 => NcType::Float,
        DapType::Float64 => NcType::Double,
        DapType::String | DapType::Url => NcType::Char,
    }
}

/// DAP's `%XX` escapes undone (names are shown decoded).
pub(crate) fn unescape(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let Some(v) = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One base variable found in the DDS, before dimensions are named.
struct Found {
    name: String,
    projection: String,
    ty: DapType,
    dims: Vec<DimDecl>,
}

/// Build the view. The error is a variable's DAP name and why it cannot be shown.
pub(crate) fn build(
    dds: &Dds,
    das: &[DasItem],
    params: &[(String, String)],
) -> Result<View, (String, String)> {
    let strlen = params
        .iter()
        .find(|(k, _)| k == "maxstrlen" || k == "stringlength")
        .and_then(|(_, v)| v.parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(64);
    let strdim = format!("maxStrlen{strlen}");
    let mut found: Vec<Found> = Vec::new();
    for d in &dds.decls {
        match d {
            Decl::Base { ty, name, dims } => found.push(Found {
                name: unescape(name),
                projection: name.clone(),
                ty: *ty,
                dims: dims.clone(),
            }),
            Decl::Grid { name, array, maps } => {
                if let Decl::Base { ty, name: aname, dims } = array.as_ref() {
                    found.push(Found {
                        name: unescape(name),
                        projection: format!("{name}.{aname}"),
                        ty: *ty,
                        dims: dims.clone(),
                    });
                }
                for m in maps {
                    if let Decl::Base { ty, name: mname, dims } = m {
                        let shown = unescape(mname);
                        let declared = dds.decls.iter().any(|x| unescape(x.name()) == shown);
                        if !declared && !found.iter().any(|f| f.name == shown) {
                            found.push(Found {
                                name: shown,
                                projection: format!("{name}.{mname}"),
                                ty: *ty,
                                dims: dims.clone(),
                            });
                        }
                    }
                }
            }
            Decl::Structure { name, .. } => {
                return Err((
                    unescape(name),
                    "a Structure, which netCDF's classic model cannot hold".into(),
                ))
            }
            Decl::Sequence { name, .. } => {
                return Err((
                    unescape(name),
                    "a Sequence, which netCDF's classic model cannot hold".into(),
                ))
            }
        }
    }
    let unlimited = unlimited_dim(das);
    let mut dims: Vec<Dim> = Vec::new();
    let mut vars = Vec::new();
    let mut maps = Vec::new();
    for f in &found {
        let mut refs = Vec::new();
        for (i, d) in f.dims.iter().enumerate() {
            let name = match &d.name {
                Some(n) => unescape(n),
                None => format!("{}_{i}", f.name),
            };
            match dims.iter().find(|x| x.name == name) {
                Some(have) if have.len != d.size => {
                    return Err((
                        f.name.clone(),
                        format!(
                            "dimension '{name}' is {} here and {} elsewhere",
                            d.size, have.len
                        ),
                    ))
                }
                Some(_) => {}
                None => dims.push(Dim {
                    unlimited: unlimited.as_deref() == Some(name.as_str()),
                    name: name.clone(),
                    len: d.size,
                }),
            }
            refs.push(DimRef {
                group: Vec::new(),
                name,
            });
        }
        let string_len = f.ty.is_text().then_some(strlen);
        if string_len.is_some() {
            if !dims.iter().any(|x| x.name == strdim) {
                dims.push(Dim {
                    name: strdim.clone(),
                    len: strlen,
                    unlimited: false,
                });
            }
            refs.push(DimRef {
                group: Vec::new(),
                name: strdim.clone(),
            });
        }
        vars.push(Var {
            name: f.name.clone(),
            nc_type: nc_type(f.ty),
            user_type: None,
            dims: refs,
            attrs: var_attrs(das, &f.name),
            notes: Vec::new(),
        });
        maps.push(VarMap {
            path: VarPath::new(&[], f.name.clone()),
            projection: f.projection.clone(),
            ty: f.ty,
            string_len,
            dap_rank: f.dims.len(),
        });
    }
    dims.sort_by(|a, b| a.name.cmp(&b.name));
    let mut root = Group::new("");
    root.dims = dims;
    root.vars = vars;
    root.attrs = global_attrs(das, &found);
    Ok(View {
        dataset: Dataset { root },
        vars: maps,
    })
}

/// `DODS_EXTRA { String Unlimited_Dimension "time"; }`.
fn unlimited_dim(das: &[DasItem]) -> Option<String> {
    das.iter().find_map(|i| match i {
        DasItem::Table(t) if t.name == "DODS_EXTRA" => t.items.iter().find_map(|a| match a {
            DasItem::Attr(a) if a.name == "Unlimited_Dimension" => a.values.first().cloned(),
            _ => None,
        }),
        _ => None,
    })
}

/// The attributes of the table named after the variable `name`.
fn var_attrs(das: &[DasItem], name: &str) -> Vec<Attr> {
    let mut out = Vec::new();
    for item in das {
        if let DasItem::Table(t) = item {
            if unescape(&t.name) == name {
                flatten(t, "", &mut out);
            }
        }
    }
    out
}

/// The dataset's attributes: top-level ones, then the global tables', then every
/// table that is no variable's, flattened.
fn global_attrs(das: &[DasItem], found: &[Found]) -> Vec<Attr> {
    let mut out = Vec::new();
    for item in das {
        if let DasItem::Attr(a) = item {
            if let Some(attr) = attr(a, "") {
                out.push(attr);
            }
        }
    }
    let is_var = |t: &DasTable| found.iter().any(|f| f.name == unescape(&t.name));
    let is_global = |t: &DasTable| t.name == "NC_GLOBAL" || t.name.ends_with("_GLOBAL");
    for item in das {
        if let DasItem::Table(t) = item {
            if is_global(t) {
                flatten(t, "", &mut out);
            }
        }
    }
    for item in das {
        if let DasItem::Table(t) = item {
            if !is_var(t) && !is_global(t) && t.name != "DODS_EXTRA" {
                flatten(t, &format!("{}.", unescape(&t.name)), &mut out);
            }
        }
    }
    out
}

/// The attributes of `t` (and of the tables inside it, named `inner.name`), each
/// name after `prefix`.
fn flatten(t: &DasTable, prefix: &str, out: &mut Vec<Attr>) {
    for item in &t.items {
        match item {
            DasItem::Attr(a) => {
                if let Some(attr) = attr(a, prefix) {
                    out.push(attr);
                }
            }
            DasItem::Table(inner) => {
                flatten(inner, &format!("{prefix}{}.", unescape(&inner.name)), out);
            }
        }
    }
}

/// One DAS attribute as netCDF's: its values parsed as its type (integers of
/// unsigned types wrapped to the signed type of their width); text joined with
/// newlines. None when a value does not parse.
fn attr(a: &DasAttr, prefix: &str) -> Option<Attr> {
    let name = format!("{prefix}{}", unescape(&a.name));
    let ints = || -> Option<Vec<i64>> {
        a.values
            .iter()
            .map(|v| {
                let v = v.trim();
                v.parse::<i64>()
                    .ok()
                    .or_else(|| v.parse::<f64>().ok().filter(|f| f.is_finite()).map(|f| f as i64))
            })
            .collect()
    };
    let floats = || -> Option<Vec<f64>> {
        a.values.iter().map(|v| parse_float(v.trim())).collect()
    };
    let values = match a.ty {
        DapType::Byte => Values::Byte(ints()?.into_iter().map(|v| v as i8).collect()),
        DapType::Int16 | DapType::UInt16 => {
            Values::Short(ints()?.into_iter().map(|v| v as i16).collect())
        }
        DapType::Int32 | DapType::UInt32 => {
            Values::Int(ints()?.into_iter().map(|v| v as i32).collect())
        }
        DapType::Float32 => Values::Float(floats()?.into_iter().map(|v| v as f32).collect()),
        DapType::Float64 => Values::Double(floats()?),
        DapType::String | DapType::Url => Values::text(&a.values.join("\n")),
    };
    Some(Attr::new(name, values))
}

/// A DAS number: C's `strtod` spellings, with `NaN` and `Inf` in any case.
fn parse_float(v: &str) -> Option<f64> {
    if let Ok(f) = v.parse::<f64>() {
        return Some(f);
    }
    match v.to_ascii_lowercase().trim_start_matches('+') {
        "nan" | "nanf" => Some(f64::NAN),
        "inf" | "infinity" | "inff" => Some(f64::INFINITY),
        "-inf" | "-infinity" | "-inff" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{das, dds};
    use super::*;

    #[test]
    fn pydaps_answer_as_ncdump_shows_it() {
        let d = dds::parse(
            "Dataset {\n Float32 tas[time = 2][lat = 3];\n UInt16 us[lat = 3];\n String st[lat = 3];\n Float64 time[time = 2];\n} t1%2Enc;",
        )
        .unwrap();
        let a = das::parse(
            "Attributes {\n dimensions { Int32 time 2; Int32 lat 3; }\n Int32 n 5;\n tas { Float32 _FillValue -999; String units \"K\"; }\n}",
        )
        .unwrap();
        let v = build(&d, &a, &[]).unwrap();
        let root = &v.dataset.root;
        let names: Vec<_> = root.dims.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["lat", "maxStrlen64", "time"]);
        assert_eq!(root.vars[1].nc_type, NcType::Short);
        assert_eq!(root.vars[2].dims.len(), 2);
        let g: Vec<_> = root.attrs.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(g, ["n", "dimensions.time", "dimensions.lat"]);
        assert_eq!(root.vars[0].attrs[0].values, Values::Float(vec![-999.0]));
    }

    #[test]
    fn grids_give_their_maps_once() {
        let d = dds::parse(
            "Dataset { Float32 lat[lat = 2]; Grid { ARRAY: Float32 air[time = 1][lat = 2]; MAPS: Float64 time[time = 1]; Float32 lat[lat = 2]; } air; } x;",
        )
        .unwrap();
        let a = das::parse("Attributes { DODS_EXTRA { String Unlimited_Dimension \"time\"; } }").unwrap();
        let v = build(&d, &a, &[]).unwrap();
        let names: Vec<_> = v.vars.iter().map(|m| m.projection.as_str()).collect();
        assert_eq!(names, ["lat", "air.air", "air.time"]);
        assert!(v.dataset.root.dims.iter().any(|d| d.name == "time" && d.unlimited));
    }

    #[test]
    fn structures_are_refused_naming_them() {
        let d = dds::parse("Dataset { Structure { Int32 a; } s%20t; } x;").unwrap();
        assert_eq!(build(&d, &[], &[]).unwrap_err().0, "s t");
    }
}
