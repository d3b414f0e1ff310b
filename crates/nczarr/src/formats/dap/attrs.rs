//! Where netcdf-c's DAP2 client puts the DAS's attributes (`ocddsdasmerge`), and the
//! values it makes of their text (`dapcvtattrval`, `buildattribute`).
//!
//! Tables are taken inner first (post-order), the DAS's own attributes last:
//! - a table named `...global` (any case) holds dataset attributes, so does the
//!   DAS's top level: their attributes under their own names;
//! - a table named `DODS...` gives dataset attributes named `<table>.<name>`;
//! - any other table with attributes of its own gives them to every variable whose
//!   DAP name, or path, it names (a grid's array by the array's name);
//! - a table naming no variable gives dataset attributes named by its path
//!   (`dimensions.time`), its inner tables' too (`a.b.name`).
//!
//! Dataset attributes are in that order: global tables, DODS tables, the others. A
//! name given twice keeps its first place and takes the last value.

use super::atomics::{nc_type, Atomic};
use super::das::{DasAttr, DasItem, DasTable};
use super::dds::DapType;
use super::names::{dap_decode, expand_escapes};
use crate::model::{Attr, NcType, Values};

/// Every table of `items` with its path (names from the top), inner tables first.
fn tables<'a>(items: &'a [DasItem], path: &[String], out: &mut Vec<(Vec<String>, &'a DasTable)>) {
    for item in items {
        if let DasItem::Table(t) = item {
            let mut p = path.to_vec();
            p.push(dap_decode(&t.name));
            tables(&t.items, &p, out);
            out.push((p, t));
        }
    }
}

fn direct(t: &DasTable) -> impl Iterator<Item = &DasAttr> {
    t.items.iter().filter_map(|i| match i {
        DasItem::Attr(a) => Some(a),
        DasItem::Table(_) => None,
    })
}

fn is_global(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with("global")
}

fn is_dods(name: &str) -> bool {
    name.starts_with("DODS")
}

/// True when the table at `path` gives its attributes to `a`.
fn names_var(path: &[String], a: &Atomic) -> bool {
    let full = path.join(".");
    let name = path.last().map_or("", String::as_str);
    let dap_full = dap_decode(&a.dap_full);
    full == dap_full || name == dap_full || name == dap_decode(&a.dap_name)
}

/// True for a table whose attributes go to variables (or, naming none, to the dataset).
fn is_var_table(path: &[String], t: &DasTable) -> bool {
    let name = path.last().map_or("", String::as_str);
    !is_global(name) && !is_dods(name) && direct(t).next().is_some()
}

/// `DODS_EXTRA.Unlimited_Dimension` (or `DODS.`): the record dimension's DAP name.
pub(crate) fn unlimited_dim(das: &[DasItem]) -> Option<String> {
    let mut all = Vec::new();
    tables(das, &[], &mut all);
    all.iter().find_map(|(path, t)| {
        let name = path.last()?;
        if name != "DODS_EXTRA" && name != "DODS" {
            return None;
        }
        direct(t)
            .find(|a| a.name == "Unlimited_Dimension")
            .and_then(|a| a.values.first().cloned())
    })
}

/// A string length a variable's own table sets (`DODS.strlen` or `DODS_EXTRA.strlen`).
pub(crate) fn dods_strlen(das: &[DasItem], a: &Atomic) -> Option<u64> {
    let mut all = Vec::new();
    tables(das, &[], &mut all);
    all.iter()
        .filter(|(p, t)| is_var_table(p, t) && names_var(p, a))
        .flat_map(|(_, t)| direct(t))
        .find(|x| x.name == "DODS.strlen" || x.name == "DODS_EXTRA.strlen")
        .and_then(|x| x.values.first()?.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
}

/// The attributes of the variable `a`; a `_FillValue` of another type than the
/// variable's is made the variable's (netcdf-c's default `fillmismatch`).
pub(crate) fn of_var(das: &[DasItem], a: &Atomic) -> Vec<Attr> {
    let mut all = Vec::new();
    tables(das, &[], &mut all);
    let mut out = Vec::new();
    for (path, t) in &all {
        if !is_var_table(path, t) || !names_var(path, a) {
            continue;
        }
        for x in direct(t) {
            let as_type = if x.name == "_FillValue" && !a.ty().is_text() {
                a.ty()
            } else {
                x.ty
            };
            put(&mut out, attr(x, as_type, &dap_decode(&x.name)));
        }
    }
    out
}

/// The dataset's attributes; `vars` are the variables of the unconstrained DDS.
pub(crate) fn global(das: &[DasItem], vars: &[Atomic]) -> Vec<Attr> {
    let mut all = Vec::new();
    tables(das, &[], &mut all);
    let mut out = Vec::new();
    for (path, t) in &all {
        if path.last().is_some_and(|n| is_global(n)) {
            for x in direct(t) {
                put(&mut out, attr(x, x.ty, &dap_decode(&x.name)));
            }
        }
    }
    for item in das {
        if let DasItem::Attr(x) = item {
            put(&mut out, attr(x, x.ty, &dap_decode(&x.name)));
        }
    }
    for (path, t) in &all {
        if let Some(name) = path.last().filter(|n| is_dods(n)) {
            for x in direct(t) {
                put(
                    &mut out,
                    attr(x, x.ty, &format!("{name}.{}", dap_decode(&x.name))),
                );
            }
        }
    }
    for (path, t) in &all {
        if is_var_table(path, t) && !vars.iter().any(|a| names_var(path, a)) {
            orphan(t, path, vars, &mut out);
        }
    }
    out
}

/// A table naming no variable: its attributes and its inner tables' under its path
/// (an inner table that names a variable gave its attributes to it instead).
fn orphan(t: &DasTable, path: &[String], vars: &[Atomic], out: &mut Vec<Attr>) {
    let prefix = path.join(".");
    for item in &t.items {
        match item {
            DasItem::Attr(x) => put(
                out,
                attr(x, x.ty, &format!("{prefix}.{}", dap_decode(&x.name))),
            ),
            DasItem::Table(inner) => {
                let mut p = path.to_vec();
                p.push(dap_decode(&inner.name));
                if !(is_var_table(&p, inner) && vars.iter().any(|a| names_var(&p, a))) {
                    orphan(inner, &p, vars, out);
                }
            }
        }
    }
}

/// Add `a`, or give an attribute of its name its value where it stands.
fn put(out: &mut Vec<Attr>, a: Attr) {
    match out.iter_mut().find(|x| x.name == a.name) {
        Some(have) => *have = a,
        None => out.push(a),
    }
}

/// A number of DAS text as netcdf-c reads it: an integer when the whole text is one
/// (`%lld`), else a double (`%lg`), else the integer its start spells (0 for none).
enum Number {
    Int(i64),
    Float(f64),
}

fn number(text: &str) -> Number {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Number::Int(i);
    }
    if let Ok(f) = t.parse::<f64>() {
        return Number::Float(f);
    }
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    Number::Int(t[..end].parse::<i64>().unwrap_or(0))
}

/// The values of `x` as a netCDF attribute of the type netcdf-c gives DAP type `ty`:
/// integers wrapped to the width, doubles cut toward zero into integers, text joined
/// with newlines and its escapes expanded (empty text is one NUL, as netcdf-c stores it).
fn attr(x: &DasAttr, ty: DapType, name: &str) -> Attr {
    let values = match nc_type(ty) {
        NcType::Char => {
            let mut text = expand_escapes(&x.values.join("\n"));
            if text.is_empty() {
                text.push(0);
            }
            Values::Char(text)
        }
        t => {
            let nums: Vec<Number> = x.values.iter().map(|v| number(v)).collect();
            let as_int = |n: &Number| match n {
                Number::Int(i) => *i,
                Number::Float(f) => *f as i64,
            };
            let as_f64 = |n: &Number| match n {
                Number::Int(i) => *i as f64,
                Number::Float(f) => *f,
            };
            match t {
                NcType::Byte => Values::Byte(nums.iter().map(|n| as_int(n) as i8).collect()),
                NcType::Short => Values::Short(nums.iter().map(|n| as_int(n) as i16).collect()),
                NcType::Int => Values::Int(nums.iter().map(|n| as_int(n) as i32).collect()),
                NcType::Float => Values::Float(nums.iter().map(|n| as_f64(n) as f32).collect()),
                _ => Values::Double(nums.iter().map(as_f64).collect()),
            }
        }
    };
    Attr::new(name, values)
}

#[cfg(test)]
mod tests {
    use super::super::{atomics, das, dds};
    use super::*;

    fn globals(das_text: &str, dds_text: &str) -> Vec<(String, Values)> {
        let d = dds::parse(dds_text).unwrap();
        let vars = atomics::atomics(&d.decls, &[]).unwrap();
        global(&das::parse(das_text).unwrap(), &vars)
            .into_iter()
            .map(|a| (a.name, a.values))
            .collect()
    }

    #[test]
    fn where_netcdf_c_puts_them() {
        let g = globals(
            "Attributes { Int32 n 1; NC_GLOBAL { String title \"t\"; sub { Int16 k 2; } } DODS_EXTRA { String Unlimited_Dimension \"time\"; } Facility { String PI \"Mark\", \"Ph.D\"; } x { Int32 a 1; } b31 { class { text { String long_name \"a\"; } String long_name \"b\"; } } }",
            "Dataset { Int32 x; } d;",
        );
        let names: Vec<_> = g.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "title",
                "n",
                "DODS_EXTRA.Unlimited_Dimension",
                "NC_GLOBAL.sub.k",
                "Facility.PI",
                "b31.class.text.long_name",
                "b31.class.long_name"
            ]
        );
        assert_eq!(g[4].1, Values::Char(b"Mark\nPh.D".to_vec()));
    }

    #[test]
    fn values_as_netcdf_c_reads_them() {
        let d = das::parse("Attributes { Byte b 128, 1.9; UInt16 u 65535; Float32 f 1e40, nan; String e \"\"; String q \"a \\\"b\\\"\"; }").unwrap();
        let g = global(&d, &[]);
        assert_eq!(g[0].values, Values::Byte(vec![-128, 1]));
        assert_eq!(g[1].values, Values::Short(vec![-1]));
        assert!(matches!(&g[2].values, Values::Float(v) if v[0].is_infinite() && v[1].is_nan()));
        assert_eq!(g[3].values, Values::Char(vec![0]));
        assert_eq!(g[4].values, Values::Char(b"a \"b\"".to_vec()));
    }
}
