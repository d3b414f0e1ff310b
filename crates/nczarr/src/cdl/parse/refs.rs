//! References by name: to a type, a variable or a dimension (`cdl-grammar/cdl.ebnf`'s
//! `type_ref` and `var_ref`), shared by the declarations of every section.

use super::lex::{atomic_type, ident, path, ws, PError, PResult};
use crate::cdl::ast::{Ref, TypeRef};

/// `type_ref = atomic_type | ident | path` (named types are user-defined types).
/// A name is taken as a type only when another name follows it, as in a declaration
/// `obs_t obs(n)`; elsewhere a name is a variable.
pub(super) fn type_ref(i: &str, total: usize) -> PResult<'_, TypeRef> {
    if let Ok((rest, (t, _))) = atomic_type(i) {
        return Ok((rest, TypeRef::Atomic(t)));
    }
    let (j, ()) = ws(i)?;
    if let Ok((rest, r)) = var_ref(j, total) {
        if ident(rest).is_ok() || path(rest).is_ok() {
            return Ok((rest, TypeRef::Named(r)));
        }
    }
    Err(PError::expected(j, "a type"))
}

/// A reference to a variable, dimension or type: `ident | path`.
pub(super) fn var_ref(i: &str, total: usize) -> PResult<'_, Ref> {
    if let Ok((rest, (parts, p))) = path(i) {
        let mut parts = parts;
        let name = parts.pop().unwrap_or_default();
        return Ok((
            rest,
            Ref {
                groups: Some(parts),
                name,
                pos: total - p,
            },
        ));
    }
    let (rest, (name, p)) = ident(i)?;
    Ok((
        rest,
        Ref {
            groups: None,
            name,
            pos: total - p,
        },
    ))
}
