//! CDL productions, one function per production of `cdl-grammar/cdl.ebnf` (ncgen's
//! `ncgen.y`). Each takes the remaining input and returns the rest and its node;
//! once a production has seen enough to be sure it applies, later faults are
//! failures (nom's `cut`), so errors point at the real fault.

use super::lex::{
    attr_name, char_const, cut, dataset_header, ident, keyword, number, peek_word, section, string,
    sym, ws, Number, PError, PResult,
};
use super::refs::{type_ref, var_ref};
use crate::cdl::ast::{
    AttrDecl, CdlFile, DataDecl, Datum, DimDecl, GroupDecl, Item, Ref, TypeRef, Value, VarDecl,
    Wide,
};

/// `file = "netcdf" dataset_id "{" group_body { named_group } "}"`.
pub(crate) fn file(text: &str) -> PResult<'_, CdlFile> {
    let total = text.len();
    let pos = |rem: usize| total - rem;
    let (i, name) = dataset_header(text)?;
    let (i, open) = cut(sym('{', "'{'")(i))?;
    let (i, root) = group_contents(i, String::new(), pos(open), total)?;
    let (i, _) = cut(sym('}', "'}' or a declaration")(i))?;
    let (i, ()) = ws(i)?;
    if !i.is_empty() {
        return Err(nom::Err::Failure(PError {
            at: i,
            expected: vec!["end of input"],
            message: None,
        }));
    }
    Ok((i, CdlFile { name, root }))
}

/// `group_body { named_group }`: declarations of one group, then its subgroups.
fn group_contents(i: &str, name: String, pos: usize, total: usize) -> PResult<'_, GroupDecl> {
    let (mut i, mut items) = group_body(i, total)?;
    let mut groups = Vec::new();
    loop {
        match named_group(i, total) {
            Ok((rest, (g, trailing))) => {
                groups.push(g);
                // Attributes after a subgroup's '}' belong to the enclosing group.
                items.extend(trailing);
                i = rest;
            }
            Err(nom::Err::Error(_)) => break,
            Err(e) => return Err(e),
        }
    }
    Ok((
        i,
        GroupDecl {
            name,
            pos,
            items,
            groups,
        },
    ))
}

/// `group_body = attr_list [types_section] [dims_section] [vars_section] [data_section]`.
fn group_body(i: &str, total: usize) -> PResult<'_, Vec<Item>> {
    let (i, mut items) = attr_list(i, total)?;
    let (i, types) = opt_section(i, total, types_section)?;
    let (i, dims) = opt_section(i, total, dims_section)?;
    let (i, vars) = opt_section(i, total, vars_section)?;
    let (i, data) = opt_section(i, total, data_section)?;
    items.extend(types);
    items.extend(dims);
    items.extend(vars);
    items.extend(data);
    Ok((i, items))
}

type SectionFn = for<'a> fn(&'a str, usize) -> PResult<'a, Vec<Item>>;

fn opt_section(i: &str, total: usize, f: SectionFn) -> PResult<'_, Vec<Item>> {
    match f(i, total) {
        Ok(r) => Ok(r),
        Err(nom::Err::Error(e))
            if e.at.len() == ws(i).map(|(r, ())| r.len()).unwrap_or(i.len()) =>
        {
            Ok((i, Vec::new()))
        }
        Err(e) => Err(e),
    }
}

/// `attr_list = { attr_decl ";" }`.
fn attr_list(mut i: &str, total: usize) -> PResult<'_, Vec<Item>> {
    let mut items = Vec::new();
    while let Some((rest, item)) = attr_stmt(i, total)? {
        items.push(item);
        i = rest;
    }
    Ok((i, items))
}

/// `attr_decl ";"`, or `None` when no attribute declaration starts here.
fn attr_stmt(i: &str, total: usize) -> Result<Option<(&str, Item)>, nom::Err<PError<'_>>> {
    match attr_decl(i, total) {
        Ok((rest, a)) => {
            let (rest, _) = cut(sym(';', "';'")(rest))?;
            Ok(Some((rest, Item::Attr(a))))
        }
        Err(nom::Err::Error(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `named_group = "group:" ident "{" group_body { named_group } "}" attr_list`.
fn named_group(i: &str, total: usize) -> PResult<'_, (GroupDecl, Vec<Item>)> {
    let (i, p) = section("group", "'group:'")(i)?;
    let (i, (name, _)) = cut(ident(i))?;
    let (i, _) = cut(sym('{', "'{'")(i))?;
    let (i, g) = group_contents(i, name, total - p, total)?;
    let (i, _) = cut(sym('}', "'}' or a declaration")(i))?;
    let (i, trailing) = attr_list(i, total)?;
    Ok((i, (g, trailing)))
}

/// `types_section = "types:" { type_decl | attr_decl ";" }`.
fn types_section(i: &str, total: usize) -> PResult<'_, Vec<Item>> {
    let (mut i, _) = section("types", "'types:'")(i)?;
    let mut items = Vec::new();
    loop {
        if let Ok((rest, t)) = super::type_decls::type_decl(i, total) {
            items.push(Item::Type(t));
            i = rest;
            if let Ok((rest, _)) = sym(';', "';'")(i) {
                i = rest;
            }
            continue;
        }
        match attr_stmt(i, total)? {
            Some((rest, item)) => {
                items.push(item);
                i = rest;
            }
            None => return Ok((i, items)),
        }
    }
}

/// `dims_section = "dimensions:" { (dim_decl { "," dim_decl } | attr_decl) ";" }`.
fn dims_section(i: &str, total: usize) -> PResult<'_, Vec<Item>> {
    let (mut i, _) = section("dimensions", "'dimensions:'")(i)?;
    let mut items = Vec::new();
    loop {
        // A dimension starts with a name followed by '='.
        if let Ok((rest, _)) = ident(i) {
            if sym('=', "'='")(rest).is_ok() {
                let (mut rest, d) = dim_decl(i, total)?;
                items.push(Item::Dim(d));
                while let Ok((r, _)) = sym(',', "','")(rest) {
                    let (r, d) = cut(dim_decl(r, total))?;
                    items.push(Item::Dim(d));
                    rest = r;
                }
                let (rest, _) = cut(sym(';', "',' or ';'")(rest))?;
                i = rest;
                continue;
            }
        }
        match attr_stmt(i, total)? {
            Some((rest, item)) => {
                items.push(item);
                i = rest;
            }
            None => return Ok((i, items)),
        }
    }
}

/// `dim_decl = ident "=" (integer | "UNLIMITED")`.
fn dim_decl(i: &str, total: usize) -> PResult<'_, DimDecl> {
    let (i, (name, p)) = ident(i)?;
    let (i, _) = cut(sym('=', "'='")(i))?;
    if let Ok((rest, _)) = keyword("UNLIMITED")(i).or_else(|_| keyword("unlimited")(i)) {
        return Ok((
            rest,
            DimDecl {
                name,
                size: None,
                pos: total - p,
            },
        ));
    }
    let (j, ()) = ws(i)?;
    match number(j) {
        Ok((rest, (Number::Int(v, _), _, _))) if v >= 0 => match u64::try_from(v) {
            Ok(size) => Ok((
                rest,
                DimDecl {
                    name,
                    size: Some(size),
                    pos: total - p,
                },
            )),
            Err(_) => Err(PError::fail(j, "dimension size out of range".into())),
        },
        Ok((_, (Number::Int(..), _, _))) => Err(PError::fail(
            j,
            "a dimension size cannot be negative".into(),
        )),
        _ => Err(nom::Err::Failure(PError {
            at: j,
            expected: vec!["a dimension size or UNLIMITED"],
            message: None,
        })),
    }
}

/// `vars_section = "variables:" { (var_decl | attr_decl) ";" }`.
fn vars_section(i: &str, total: usize) -> PResult<'_, Vec<Item>> {
    let (mut i, _) = section("variables", "'variables:'")(i)?;
    let mut items = Vec::new();
    loop {
        match var_or_attr(i, total) {
            Ok((rest, mut new)) => {
                let (rest, _) = cut(sym(';', "';'")(rest))?;
                items.append(&mut new);
                i = rest;
            }
            Err(nom::Err::Error(_)) => return Ok((i, items)),
            Err(e) => return Err(e),
        }
    }
}

/// `var_decl | attr_decl`: a type followed by a name then `:` is a typed attribute.
fn var_or_attr(i: &str, total: usize) -> PResult<'_, Vec<Item>> {
    let (j, ()) = ws(i)?;
    let pos = total - j.len();
    if let Ok((rest, typ)) = type_ref(j, total) {
        if let Ok((after, _)) = sym(':', "':'")(rest) {
            let (after, a) = cut(attr_tail(after, Some(typ), None, pos, total))?;
            return Ok((after, vec![Item::Attr(a)]));
        }
        // `TYPE name :att = ...` (typed attribute) or `TYPE name(dims), ...` (variables).
        if let Ok((after, var)) = var_ref(rest, total) {
            if sym(':', "':'")(after).is_ok() {
                let (after, _) = sym(':', "':'")(after)?;
                let (after, a) = attr_tail(after, Some(typ), Some(var), pos, total)?;
                return Ok((after, vec![Item::Attr(a)]));
            }
        }
        if matches!(typ, TypeRef::Atomic(_)) || ident(rest).is_ok() {
            let (rest, vars) = cut(var_list(rest, typ, total))?;
            return Ok((rest, vars.into_iter().map(Item::Var).collect()));
        }
    }
    let (rest, a) = attr_decl(j, total)?;
    Ok((rest, vec![Item::Attr(a)]))
}

/// `var_list = var_spec { "," var_spec }`.
fn var_list(i: &str, typ: TypeRef, total: usize) -> PResult<'_, Vec<VarDecl>> {
    let (mut i, first) = var_spec(i, typ.clone(), total)?;
    let mut out = vec![first];
    while let Ok((rest, _)) = sym(',', "','")(i) {
        let (rest, v) = cut(var_spec(rest, typ.clone(), total))?;
        out.push(v);
        i = rest;
    }
    Ok((i, out))
}

/// `var_spec = ident [ "(" dim_ref { "," dim_ref } ")" ]`.
fn var_spec(i: &str, typ: TypeRef, total: usize) -> PResult<'_, VarDecl> {
    let (i, (name, p)) =
        ident(i).map_err(|_| PError::expected(ws(i).map_or(i, |(r, ())| r), "a variable name"))?;
    let mut dims = Vec::new();
    let mut i = i;
    if let Ok((rest, _)) = sym('(', "'('")(i) {
        let (rest, d) = cut(dim_ref(rest, total))?;
        dims.push(d);
        let mut rest = rest;
        while let Ok((r, _)) = sym(',', "','")(rest) {
            let (r, d) = cut(dim_ref(r, total))?;
            dims.push(d);
            rest = r;
        }
        let (rest, _) = cut(sym(')', "',' or ')'")(rest))?;
        i = rest;
    }
    Ok((
        i,
        VarDecl {
            typ,
            name,
            dims,
            pos: total - p,
        },
    ))
}

/// `dim_ref = ident | path`.
fn dim_ref(i: &str, total: usize) -> PResult<'_, Ref> {
    var_ref(i, total).map_err(|e| match e {
        nom::Err::Error(mut e) => {
            e.expected = vec!["a dimension name"];
            nom::Err::Error(e)
        }
        other => other,
    })
}

/// `attr_decl = ":" attr_name "=" data_list | [type_ref] var_ref ":" attr_name "=" data_list`.
fn attr_decl(i: &str, total: usize) -> PResult<'_, AttrDecl> {
    let (j, ()) = ws(i)?;
    let pos = total - j.len();
    if let Ok((rest, _)) = sym(':', "':'")(j) {
        return cut(attr_tail(rest, None, None, pos, total));
    }
    let (rest, typ) = match type_ref(j, total) {
        Ok((rest, t)) => (rest, Some(t)),
        Err(_) => (j, None),
    };
    // `TYPE :att = ...`: a typed global attribute (ncgen's `ambiguous_ref` may be a type).
    if typ.is_some() {
        if let Ok((after, _)) = sym(':', "':'")(rest) {
            return cut(attr_tail(after, typ, None, pos, total));
        }
    }
    let (rest, var) = var_ref(rest, total).map_err(|_| PError::expected(j, "a declaration"))?;
    let (rest, _) = if typ.is_some() {
        cut(sym(':', "':'")(rest))?
    } else {
        sym(':', "':'")(rest)
            .map_err(|_| PError::expected(ws(rest).map_or(rest, |(r, ())| r), "':' or '='"))?
    };
    cut(attr_tail(rest, typ, Some(var), pos, total))
}

/// The part of an attribute declaration after its `:`: `attr_name "=" data_list`.
fn attr_tail<'a>(
    i: &'a str,
    typ: Option<TypeRef>,
    var: Option<Ref>,
    pos: usize,
    total: usize,
) -> PResult<'a, AttrDecl> {
    let (i, (name, np)) = attr_name(i)?;
    let (i, _) = sym('=', "'='")(i)?;
    let (i, values) = data_list(i, total)?;
    Ok((
        i,
        AttrDecl {
            typ,
            var,
            name,
            values,
            pos,
            name_pos: total - np,
        },
    ))
}

/// `data_section = "data:" { data_decl ";" }`.
fn data_section(i: &str, total: usize) -> PResult<'_, Vec<Item>> {
    let (mut i, _) = section("data", "'data:'")(i)?;
    let mut items = Vec::new();
    loop {
        match data_decl(i, total) {
            Ok((rest, d)) => {
                let (rest, _) = cut(sym(';', "',' or ';'")(rest))?;
                items.push(Item::Data(d));
                i = rest;
            }
            Err(nom::Err::Error(_)) => return Ok((i, items)),
            Err(e) => return Err(e),
        }
    }
}

/// `data_decl = var_ref "=" data_list`.
fn data_decl(i: &str, total: usize) -> PResult<'_, DataDecl> {
    let (j, ()) = ws(i)?;
    let pos = total - j.len();
    let (rest, var) = var_ref(j, total)?;
    let (rest, _) = cut(sym('=', "'='")(rest))?;
    let list_pos = total - rest.len();
    let (rest, values) = match data_list_parallel(rest, total) {
        Some(parsed) => parsed,
        None => cut(data_list(rest, total))?,
    };
    Ok((
        rest,
        DataDecl {
            var,
            values,
            pos,
            list_pos,
        },
    ))
}

/// Lists longer than this are parsed in pieces on all cores.
const PARALLEL_LIST_BYTES: usize = 4 << 20;

/// A large data list parsed in parallel: split at top-level commas into pieces of
/// about 1 MiB, each parsed by [`data_list`] with positions as in the whole text.
/// `None` (the caller then parses sequentially, which also gives exact errors) when
/// the list is small, or any piece fails or is not fully consumed.
fn data_list_parallel(i: &str, total: usize) -> Option<(&str, Vec<Datum>)> {
    use rayon::prelude::*;
    if i.len() < PARALLEL_LIST_BYTES {
        return None;
    }
    let (end, commas) = list_extent(i.as_bytes(), 1 << 20)?;
    if commas.is_empty() {
        return None;
    }
    let mut bounds = Vec::with_capacity(commas.len() + 1);
    let mut start = 0;
    for &c in &commas {
        bounds.push((start, c));
        start = c + 1;
    }
    bounds.push((start, end));
    let pieces: Option<Vec<Vec<Datum>>> = bounds
        .par_iter()
        .map(|&(a, b)| {
            // Positions count from the end of the text: shift by what follows the piece.
            let piece_total = total - (i.len() - b);
            let (rest, items) = data_list(&i[a..b], piece_total).ok()?;
            let (rest, ()) = ws(rest).ok()?;
            (rest.is_empty() && !items.is_empty()).then_some(items)
        })
        .collect();
    // Each piece stays one run: copying millions of items into one vector would cost
    // as much as parsing them.
    let out = pieces?
        .into_iter()
        .zip(&bounds)
        .map(|(items, &(a, _))| Datum {
            value: Value::Run(items),
            pos: total - (i.len() - a),
        })
        .collect();
    Some((&i[end..], out))
}

/// Where a data list ends (the `;` or `}` that closes it, outside strings, character
/// constants, comments and braces), and top-level commas about `every` bytes apart.
/// `None` if the text ends first.
fn list_extent(b: &[u8], every: usize) -> Option<(usize, Vec<usize>)> {
    // Bytes that can change the state, with and without ','; the rest are skipped in
    // a tight loop (this scan is the serial part of a parallel parse).
    const fn table(comma: bool) -> [bool; 256] {
        let mut t = [false; 256];
        let special = b"\"'/{};";
        let mut k = 0;
        while k < special.len() {
            t[special[k] as usize] = true;
            k += 1;
        }
        t[b',' as usize] = comma;
        t
    }
    static WITHOUT_COMMA: [bool; 256] = table(false);
    static WITH_COMMA: [bool; 256] = table(true);
    let mut commas = Vec::new();
    let mut last = 0;
    let mut depth = 0usize;
    let mut k = 0;
    while k < b.len() {
        let want_comma = depth == 0 && k - last >= every;
        let (stop, limit) = if want_comma {
            (&WITH_COMMA, b.len())
        } else if depth == 0 {
            // Look again once a split is due.
            (&WITHOUT_COMMA, b.len().min(last + every))
        } else {
            (&WITHOUT_COMMA, b.len())
        };
        while k < limit && !stop[usize::from(b[k])] {
            k += 1;
        }
        if k >= b.len() {
            break;
        }
        if k == limit && !want_comma {
            continue;
        }
        match b[k] {
            b'"' | b'\'' => {
                let quote = b[k];
                k += 1;
                while k < b.len() && b[k] != quote {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(k + 1) == Some(&b'/') => {
                while k < b.len() && b[k] != b'\n' {
                    k += 1;
                }
            }
            b'/' if b.get(k + 1) == Some(&b'*') => {
                k += 2;
                while k + 1 < b.len() && !(b[k] == b'*' && b[k + 1] == b'/') {
                    k += 1;
                }
                k += 1;
            }
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some((k, commas)),
            b'}' => depth -= 1,
            b';' if depth == 0 => return Some((k, commas)),
            b',' if depth == 0 && k - last >= every => {
                commas.push(k);
                last = k;
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// `data_list = [ data_item { "," data_item } ]`.
fn data_list(i: &str, total: usize) -> PResult<'_, Vec<Datum>> {
    let mut out = Vec::new();
    let (mut i, first) = match data_item(i, total) {
        Ok((rest, d)) => (rest, d),
        // An empty list (ncgen allows `att = ;`).
        Err(nom::Err::Error(_)) if sym(';', "';'")(i).is_ok() || sym('}', "'}'")(i).is_ok() => {
            return Ok((i, out))
        }
        Err(e) => return cut(Err(e)),
    };
    out.push(first);
    while let Ok((rest, _)) = sym(',', "','")(i) {
        let (rest, d) = cut(data_item(rest, total))?;
        out.push(d);
        i = rest;
    }
    Ok((i, out))
}

/// The value of a number token (`text` is how it was written).
fn number_value(n: Number, text: &str) -> Value {
    match n {
        Number::Int(v, t) => Value::Int {
            value: Wide::new(v),
            typ: t,
        },
        Number::Float(f) => Value::Float(f),
        Number::Double(d) => Value::Double(d),
        Number::Opaque => Value::Opaque(text.trim_start_matches(['+', '-']).to_string()),
    }
}

/// `data_item = constant | "{" data_list "}"`.
fn data_item(i: &str, total: usize) -> PResult<'_, Datum> {
    let (j, ()) = ws(i)?;
    // A byte test first: a failed `sym` builds an error, and this runs once per value.
    if let Some(rest) = j.strip_prefix('{') {
        let pos = total - j.len();
        let (rest, inner) = data_list(rest, total)?;
        let (rest, _) = cut(sym('}', "',' or '}'")(rest))?;
        return Ok((
            rest,
            Datum {
                value: Value::List(inner),
                pos,
            },
        ));
    }
    data_leaf(j, total)
}

/// A `data_item` that is not a braced list: a constant. The streaming compiler
/// (`generate`) reads list structure itself and calls this for every value its
/// fast path for plain decimals does not take, so both read values alike.
pub(crate) fn data_leaf(i: &str, total: usize) -> PResult<'_, Datum> {
    let (j, ()) = ws(i)?;
    let pos = total - j.len();
    // Numbers, nearly every value of a large data section, go straight to the number
    // token (`constant` would first try words, strings and characters).
    if j.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        match number(j) {
            Ok((rest, (n, _, text))) => {
                return Ok((
                    rest,
                    Datum {
                        value: number_value(n, text),
                        pos,
                    },
                ))
            }
            Err(nom::Err::Failure(e)) => return Err(nom::Err::Failure(e)),
            Err(_) => {}
        }
    }
    let (rest, value) = constant(j, total)?;
    Ok((rest, Datum { value, pos }))
}

/// `constant = number | string | char_const | "_" | "NIL" | ident ["(" args ")"] | path`.
fn constant(i: &str, total: usize) -> PResult<'_, Value> {
    let (j, ()) = ws(i)?;
    if j.starts_with('"') {
        let (rest, (s, _)) = string(j)?;
        return Ok((rest, Value::Text(s)));
    }
    if j.starts_with('\'') {
        let (rest, (c, _)) = char_const(j)?;
        return Ok((rest, Value::Char(c)));
    }
    // Numbers (nearly every value of a large data section) cannot be words.
    let starts_number = j
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_digit() || *b == b'.');
    if let Some((w, rest)) = peek_word(j).filter(|_| !starts_number) {
        match w {
            "_" => return Ok((rest, Value::Fill)),
            "NIL" | "nil" | "Nil" => return Ok((rest, Value::Nil)),
            _ => {}
        }
    }
    match number(j) {
        Ok((rest, (n, _, text))) => return Ok((rest, number_value(n, text))),
        Err(nom::Err::Failure(e)) => return Err(nom::Err::Failure(e)),
        Err(_) => {}
    }
    if let Ok((rest, r)) = var_ref(j, total) {
        if r.groups.is_none() {
            if let Ok((after, _)) = sym('(', "'('")(rest) {
                let (after, args) = data_list(after, total)?;
                let (after, _) = cut(sym(')', "',' or ')'")(after))?;
                return Ok((after, Value::Call(Box::new((r.name, args)))));
            }
        }
        return Ok((rest, Value::Ident(Box::new(r))));
    }
    Err(PError::expected(j, "a value"))
}
