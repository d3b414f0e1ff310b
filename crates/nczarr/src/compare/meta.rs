//! The structure of two datasets compared: groups, dimensions, variables (type,
//! dimensions), attributes (`-m` for variables', `-g` for groups'), and with
//! `--storage` how each variable is stored. What the formats cannot all hold (an
//! unlimited dimension in pure Zarr) is storage, not structure.

use super::attrs::attributes;
use super::pair::{meta, Pair};
use super::user::{self, type_text};
use super::{name_of, CompareOptions, DiffKind, Difference, Side};
use crate::model::{Dataset, Group, VarPath};
use crate::source::DatasetSource;

/// Report each structural difference of `a` and `b` to `emit`.
pub(super) fn compare(
    a: &dyn DatasetSource,
    b: &dyn DatasetSource,
    options: &CompareOptions,
    emit: &mut dyn FnMut(Difference),
) {
    let pair = Pair { a, b, options };
    groups(
        &a.dataset().root,
        &b.dataset().root,
        &mut Vec::new(),
        &pair,
        emit,
    );
    if options.storage {
        storage(a, b, options, emit);
    }
}

fn groups(
    a: &Group,
    b: &Group,
    path: &mut Vec<String>,
    pair: &Pair<'_>,
    emit: &mut dyn FnMut(Difference),
) {
    let options = pair.options;
    let base = path.clone();
    let here = |name: &str| {
        let mut p = base.clone();
        p.push(name.to_string());
        p.join("/")
    };
    if options.metadata {
        // A dimension that pure Zarr put in another group is the same dimension.
        let moved = |other: &Dataset, d: &crate::model::Dim| {
            pair.dims_placeless() && !options.storage && has_dim(&other.root, &d.name, d.len)
        };
        for d in &a.dims {
            let what = here(&d.name);
            match b.dim(&d.name) {
                None if moved(pair.b.dataset(), d) => {}
                None => emit(meta(
                    DiffKind::Dimension,
                    what,
                    Some(d.len.to_string()),
                    None,
                )),
                Some(o) if o.len != d.len => emit(meta(
                    DiffKind::Dimension,
                    what,
                    Some(d.len.to_string()),
                    Some(o.len.to_string()),
                )),
                Some(_) => {}
            }
        }
        for d in b
            .dims
            .iter()
            .filter(|d| a.dim(&d.name).is_none() && !moved(pair.a.dataset(), d))
        {
            emit(meta(
                DiffKind::Dimension,
                here(&d.name),
                None,
                Some(d.len.to_string()),
            ));
        }
    }
    if options.global {
        attributes(
            pair,
            (&a.attrs, &b.attrs),
            None,
            &format!("{}:", path.join("/")),
            emit,
        );
    }
    for v in a
        .vars
        .iter()
        .filter(|v| options.selects(&VarPath::new(path, &v.name)))
    {
        let what = here(&v.name);
        let Some(o) = b.var(&v.name) else {
            emit(meta(
                DiffKind::Variable,
                what,
                Some(v.nc_type.to_string()),
                None,
            ));
            continue;
        };
        if options.metadata {
            // A user-defined type by its definition (two enums of one name with other
            // members are other types).
            let (ta, tb) = (
                type_text(pair.a.dataset(), v),
                type_text(pair.b.dataset(), o),
            );
            // --ignore-types compares numbers as numbers (an enum's are its base
            // integers); records are compared only as the same type.
            let records = user::reads_by_element(pair.a.dataset(), v)
                || user::reads_by_element(pair.b.dataset(), o);
            if ta != tb && (records || !options.ignore_types) {
                emit(meta(DiffKind::Type, what.clone(), Some(ta), Some(tb)));
            }
            let dims = |x: &crate::model::Var| {
                let names: Vec<&str> = x.dims.iter().map(|d| d.name.as_str()).collect();
                format!("({})", names.join(", "))
            };
            if dims(v) != dims(o) {
                emit(meta(
                    DiffKind::Shape,
                    what.clone(),
                    Some(dims(v)),
                    Some(dims(o)),
                ));
            }
            attributes(
                pair,
                (&v.attrs, &o.attrs),
                Some(&VarPath::new(path, &v.name)),
                &format!("{what}:"),
                emit,
            );
        }
    }
    for v in b
        .vars
        .iter()
        .filter(|v| a.var(&v.name).is_none() && options.selects(&VarPath::new(path, &v.name)))
    {
        emit(meta(
            DiffKind::Variable,
            here(&v.name),
            None,
            Some(v.nc_type.to_string()),
        ));
    }
    for g in &a.groups {
        path.push(g.name.clone());
        match b.group(&g.name) {
            Some(o) => groups(g, o, path, pair, emit),
            None => only_in_one(g, path, Side::A, options, emit),
        }
        path.pop();
    }
    for g in b.groups.iter().filter(|g| a.group(&g.name).is_none()) {
        path.push(g.name.clone());
        only_in_one(g, path, Side::B, options, emit);
        path.pop();
    }
}

/// A group (at `path`) that only the dataset `side` has: a difference itself, but with
/// `-v` only the variables selected in it are (one line each), so that `-v tas` says
/// nothing of a group that holds no `tas`.
fn only_in_one(
    g: &Group,
    path: &mut Vec<String>,
    side: Side,
    options: &CompareOptions,
    emit: &mut dyn FnMut(Difference),
) {
    let sides = |text: String| match side {
        Side::A => (Some(text), None),
        Side::B => (None, Some(text)),
    };
    if options.include.is_empty() {
        let (a, b) = sides("group".into());
        emit(meta(DiffKind::Group, path.join("/"), a, b));
        return;
    }
    for v in g
        .vars
        .iter()
        .filter(|v| options.selects(&VarPath::new(path, &v.name)))
    {
        let (a, b) = sides(v.nc_type.to_string());
        emit(meta(
            DiffKind::Variable,
            name_of(&VarPath::new(path, &v.name)),
            a,
            b,
        ));
    }
    for c in &g.groups {
        path.push(c.name.clone());
        only_in_one(c, path, side, options, emit);
        path.pop();
    }
}

/// `--storage`: the format, and per variable the chunk shape, codecs and byte order.
fn storage(
    a: &dyn DatasetSource,
    b: &dyn DatasetSource,
    options: &CompareOptions,
    emit: &mut dyn FnMut(Difference),
) {
    let (fa, fb) = (a.format(), b.format());
    if fa.kind != fb.kind || fa.zarr_version != fb.zarr_version {
        let text = |f: &crate::source::FormatInfo| match f.zarr_version {
            Some(v) => format!("{} (Zarr v{v})", f.kind),
            None => f.kind.clone(),
        };
        emit(meta(
            DiffKind::Storage,
            "format".into(),
            Some(text(fa)),
            Some(text(fb)),
        ));
    }
    let both = |ds: &Dataset| -> Vec<VarPath> { ds.vars().into_iter().map(|(p, _)| p).collect() };
    for path in both(a.dataset()) {
        if !options.selects(&path) || b.dataset().var(&path).is_none() {
            continue;
        }
        let (Some(x), Some(y)) = (a.encoding(&path), b.encoding(&path)) else {
            continue;
        };
        let what = name_of(&path);
        let chunks = |e: &crate::encoding::Encoding| match e.chunk_shape() {
            Some(c) => format!("{c:?}"),
            None => "contiguous".into(),
        };
        if chunks(&x) != chunks(&y) {
            emit(meta(
                DiffKind::Storage,
                format!("{what} chunks"),
                Some(chunks(&x)),
                Some(chunks(&y)),
            ));
        }
        let codecs = |e: &crate::encoding::Encoding| {
            let c: Vec<String> = e.codecs.iter().map(crate::json::Json::to_text).collect();
            format!("[{}]", c.join(", "))
        };
        if codecs(&x) != codecs(&y) {
            emit(meta(
                DiffKind::Storage,
                format!("{what} codecs"),
                Some(codecs(&x)),
                Some(codecs(&y)),
            ));
        }
        if x.endian != y.endian {
            emit(meta(
                DiffKind::Storage,
                format!("{what} byte order"),
                Some(format!("{:?}", x.endian)),
                Some(format!("{:?}", y.endian)),
            ));
        }
    }
}

/// Whether `g` or a group under it has a dimension `name` of `len`.
fn has_dim(g: &Group, name: &str, len: u64) -> bool {
    g.dims.iter().any(|d| d.name == name && d.len == len)
        || g.groups.iter().any(|c| has_dim(c, name, len))
}
