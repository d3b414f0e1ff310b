//! The productions of a `types:` section: user-defined type declarations
//! (`cdl-grammar/cdl.ebnf`'s `type_decl` and what it holds).

use super::lex::{cut, ident, keyword, number, sym, ws, Number, PError, PResult};
use super::refs::{type_ref, var_ref};
use crate::cdl::ast::{FieldDecl, TypeBody, TypeDecl, TypeRef};

/// `type_decl = enum_decl | compound_decl | vlen_decl | opaque_decl`.
pub(super) fn type_decl(i: &str, total: usize) -> PResult<'_, TypeDecl> {
    let (j, ()) = ws(i)?;
    let pos = total - j.len();
    let decl = |rest, name, body| Ok((rest, TypeDecl { name, pos, body }));
    // compound NAME { fields }
    for kw in ["compound", "struct", "structure"] {
        if let Ok((rest, _)) = keyword(kw)(j) {
            let (rest, (name, _)) = cut(ident(rest))?;
            let (rest, _) = cut(sym('{', "'{'")(rest))?;
            let (rest, fields) = cut(field_decls(rest, total))?;
            return decl(rest, name, TypeBody::Compound { fields });
        }
    }
    // opaque(N) NAME
    if let Ok((rest, _)) = keyword("opaque")(j) {
        let (rest, _) = cut(sym('(', "'('")(rest))?;
        let (rest, ()) = ws(rest)?;
        let (after, size) = match number(rest) {
            Ok((after, (Number::Int(v, _), _, _))) if v > 0 => (after, v),
            _ => {
                return Err(PError::fail(
                    rest,
                    "an opaque size must be a positive integer".into(),
                ))
            }
        };
        let size = u64::try_from(size)
            .map_err(|_| PError::fail(rest, "opaque size out of range".into()))?;
        let (rest, _) = cut(sym(')', "')'")(after))?;
        let (rest, (name, _)) = cut(ident(rest))?;
        return decl(rest, name, TypeBody::Opaque { size });
    }
    // TYPE enum NAME { ... }  or  TYPE(*) NAME  (TYPE may itself be a user type)
    let (rest, base) = match type_ref(j, total) {
        Ok(r) => r,
        Err(_) => {
            let (rest, r) = var_ref(j, total)?;
            sym('(', "'('")(rest)?;
            (rest, TypeRef::Named(r))
        }
    };
    if let Ok((rest, _)) = keyword("enum")(rest) {
        let base = match base {
            TypeRef::Atomic(t) if t.is_integer() => t,
            _ => {
                return Err(PError::fail(
                    j,
                    "an enum's base type must be an integer type".into(),
                ))
            }
        };
        let (rest, (name, _)) = cut(ident(rest))?;
        let (rest, _) = cut(sym('{', "'{'")(rest))?;
        let (rest, members) = cut(enum_members(rest, total))?;
        return decl(rest, name, TypeBody::Enum { base, members });
    }
    let (rest, _) = sym('(', "'('")(rest)?;
    let (rest, _) = sym('*', "'*'")(rest)?;
    let (rest, _) = cut(sym(')', "')'")(rest))?;
    let (rest, (name, _)) = cut(ident(rest))?;
    decl(rest, name, TypeBody::Vlen { base })
}

/// `enum_members = ident "=" integer { "," ident "=" integer } "}"`.
fn enum_members(mut i: &str, total: usize) -> PResult<'_, Vec<(String, i128, usize)>> {
    let mut members = Vec::new();
    loop {
        let (rest, (name, p)) = ident(i)?;
        let (rest, _) = cut(sym('=', "'='")(rest))?;
        let (rest, ()) = ws(rest)?;
        let (rest, value) = match number(rest) {
            Ok((after, (Number::Int(v, _), _, _))) => (after, v),
            _ => {
                return Err(nom::Err::Failure(PError {
                    at: rest,
                    expected: vec!["an integer"],
                    message: None,
                }))
            }
        };
        members.push((name, value, total - p));
        if let Ok((rest, _)) = sym(',', "','")(rest) {
            i = rest;
            continue;
        }
        let (rest, _) = cut(sym('}', "',' or '}'")(rest))?;
        return Ok((rest, members));
    }
}

/// `field_decls = { type_ref field_spec { "," field_spec } ";" } "}"`, where
/// `field_spec = ident [ "(" integer { "," integer } ")" ]`.
fn field_decls(mut i: &str, total: usize) -> PResult<'_, Vec<FieldDecl>> {
    let mut fields = Vec::new();
    loop {
        if let Ok((rest, _)) = sym('}', "'}'")(i) {
            return Ok((rest, fields));
        }
        let (rest, typ) = type_ref(i, total)?;
        let mut rest = rest;
        loop {
            let (r, (name, p)) = cut(ident(rest))?;
            let mut dims = Vec::new();
            let mut r = r;
            if let Ok((mut d, _)) = sym('(', "'('")(r) {
                loop {
                    let (after, ()) = ws(d)?;
                    match number(after) {
                        Ok((after, (Number::Int(v, _), _, _))) if v > 0 => {
                            let n = u64::try_from(v).map_err(|_| {
                                PError::fail(d, "field dimension out of range".into())
                            })?;
                            dims.push(n);
                            d = after;
                        }
                        _ => {
                            return Err(PError::fail(
                                after,
                                "a field's dimensions are positive integers".into(),
                            ))
                        }
                    }
                    match sym(',', "','")(d) {
                        Ok((after, _)) => d = after,
                        Err(_) => break,
                    }
                }
                let (after, _) = cut(sym(')', "',' or ')'")(d))?;
                r = after;
            }
            fields.push(FieldDecl {
                typ: typ.clone(),
                name,
                dims,
                pos: total - p,
            });
            match sym(',', "','")(r) {
                Ok((after, _)) => rest = after,
                Err(_) => {
                    rest = r;
                    break;
                }
            }
        }
        let (rest, _) = cut(sym(';', "',' or ';'")(rest))?;
        i = rest;
    }
}
