//! The structure of two datasets compared: groups, dimensions, variables (type,
//! dimensions), attributes (`-m` for variables', `-g` for groups'), and with
//! `--storage` how each variable is stored. What the formats cannot all hold (an
//! unlimited dimension in pure Zarr) is storage, not structure.

use super::values::{compare as compare_values, Rules};
use super::{name_of, CompareOptions, DiffKind, Difference, Side};
use crate::model::{Attr, Dataset, Group, Values, VarPath};
use crate::source::DatasetSource;

/// Report each structural difference of `a` and `b` to `emit`.
pub(super) fn compare(
    a: &dyn DatasetSource,
    b: &dyn DatasetSource,
    options: &CompareOptions,
    emit: &mut dyn FnMut(Difference),
) {
    groups(
        &a.dataset().root,
        &b.dataset().root,
        &mut Vec::new(),
        options,
        emit,
    );
    if options.storage {
        storage(a, b, options, emit);
    }
}

fn meta(kind: DiffKind, what: String, a: Option<String>, b: Option<String>) -> Difference {
    Difference {
        kind,
        what,
        index: None,
        a,
        b,
        diff: None,
    }
}

fn groups(
    a: &Group,
    b: &Group,
    path: &mut Vec<String>,
    options: &CompareOptions,
    emit: &mut dyn FnMut(Difference),
) {
    let base = path.clone();
    let here = |name: &str| {
        let mut p = base.clone();
        p.push(name.to_string());
        p.join("/")
    };
    if options.metadata {
        for d in &a.dims {
            let what = here(&d.name);
            match b.dim(&d.name) {
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
        for d in b.dims.iter().filter(|d| a.dim(&d.name).is_none()) {
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
            &a.attrs,
            &b.attrs,
            &format!("{}:", path.join("/")),
            options,
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
            if o.nc_type != v.nc_type && !options.ignore_types {
                emit(meta(
                    DiffKind::Type,
                    what.clone(),
                    Some(v.nc_type.to_string()),
                    Some(o.nc_type.to_string()),
                ));
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
            attributes(&v.attrs, &o.attrs, &format!("{what}:"), options, emit);
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
            Some(o) => groups(g, o, path, options, emit),
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

/// The attributes of one owner (`prefix` names it, ncdump's `var:` or `:`), but for
/// those `-A` names.
fn attributes(
    a: &[Attr],
    b: &[Attr],
    prefix: &str,
    options: &CompareOptions,
    emit: &mut dyn FnMut(Difference),
) {
    let ignored = |n: &str| options.ignore_attrs.iter().any(|i| i == n);
    for x in a.iter().filter(|x| !ignored(&x.name)) {
        let what = format!("{prefix}{}", x.name);
        match b.iter().find(|y| y.name == x.name) {
            None => emit(meta(DiffKind::Attribute, what, Some(attr_text(x)), None)),
            Some(y) if !same_attr(x, y, options) => emit(meta(
                DiffKind::Attribute,
                what,
                Some(attr_text(x)),
                Some(attr_text(y)),
            )),
            Some(_) => {}
        }
    }
    for y in b
        .iter()
        .filter(|y| !ignored(&y.name) && !a.iter().any(|x| x.name == y.name))
    {
        emit(meta(
            DiffKind::Attribute,
            format!("{prefix}{}", y.name),
            None,
            Some(attr_text(y)),
        ));
    }
}

/// Equal attributes: text by content (a char attribute equals a one-string one),
/// numbers by value under the data rules when `--ignore-types`, else also by type.
fn same_attr(x: &Attr, y: &Attr, options: &CompareOptions) -> bool {
    if let (Some(p), Some(q)) = (text_of(&x.values), text_of(&y.values)) {
        return p == q;
    }
    if x.user != y.user {
        return false;
    }
    if x.values.nc_type() != y.values.nc_type() && !options.ignore_types {
        return false;
    }
    if x.values.len() != y.values.len() {
        return false;
    }
    let rules = Rules {
        nan_equal: true,
        ..Rules::default()
    };
    let mut same = true;
    compare_values(&x.values, &y.values, &rules, &mut |_| {
        same = false;
        false
    });
    same
}

/// The text of a char attribute or a one-string attribute, to its end or first NUL
/// (C's strings: NCO writes its `history` with a NUL that other formats do not keep).
fn text_of(v: &Values) -> Option<Vec<u8>> {
    let text = match v {
        Values::Char(t) => t.as_slice(),
        Values::String(s) if s.len() == 1 => s.value(0)?,
        _ => return None,
    };
    let end = text.iter().position(|&c| c == 0).unwrap_or(text.len());
    Some(text[..end].to_vec())
}

/// An attribute's values as CDL writes them, shortened.
fn attr_text(a: &Attr) -> String {
    if let Some(t) = text_of(&a.values) {
        return format!("{:?}", String::from_utf8_lossy(&t));
    }
    let items: Vec<String> = (0..a.values.len().min(8))
        .map(|i| super::values::number_text(&a.values, i))
        .collect();
    let more = if a.values.len() > 8 { ", ..." } else { "" };
    format!("{}{more}", items.join(", "))
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
