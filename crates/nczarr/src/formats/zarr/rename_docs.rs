//! What renaming a Zarr store's variables, dimensions and groups changes: the keys
//! that move (a renamed array's or group's, with everything under it) and the names
//! the documents hold: a group's NCZarr record of its dimensions, arrays and subgroups
//! (`_nczarr_group`, 4.9.0's `_NCZARR_GROUP`), our v3 writer's `_nczarr_arrays`, an
//! array's dimension names (xarray's `_ARRAY_DIMENSIONS`, v3's `dimension_names`,
//! NCZarr's `dimension_references`). The consolidated copies are re-keyed by
//! `attr_docs`.

use super::doc_set::{node, Docs, Move};
use crate::error::Result;
use crate::json::Json;
use crate::model::{Dataset, DimRef, Group, Var};
use crate::store::StoreKey;

/// The moves that rename the nodes `new` renames in `old` (the same groups and
/// variables in the same places), in the order to make them: a group before what is
/// under it, each named as the moves before it left it.
///
/// # Errors
/// A name that cannot be a key.
pub(crate) fn moves(old: &Dataset, new: &Dataset) -> Result<Vec<Move>> {
    let mut out = Vec::new();
    walk_moves(&old.root, &new.root, &StoreKey::root(), &mut out)?;
    Ok(out)
}

fn walk_moves(old: &Group, new: &Group, at: &StoreKey, out: &mut Vec<Move>) -> Result<()> {
    for (o, n) in old.vars.iter().zip(&new.vars) {
        if o.name != n.name {
            out.push(Move {
                from: at.join(&o.name)?,
                to: at.join(&n.name)?,
            });
        }
    }
    for (o, n) in old.groups.iter().zip(&new.groups) {
        if o.name != n.name {
            out.push(Move {
                from: at.join(&o.name)?,
                to: at.join(&n.name)?,
            });
        }
        walk_moves(o, n, &at.join(&n.name)?, out)?;
    }
    Ok(())
}

/// Change the names the documents of the group `new` (at `path`, named as after the
/// edit) and of everything under it hold, where `old` had other names.
///
/// # Errors
/// Documents that are not JSON; store errors.
pub(super) fn rename_names(
    docs: &mut Docs<'_>,
    zarr3: bool,
    old: &Group,
    new: &Group,
    path: &mut Vec<String>,
) -> Result<()> {
    let group = node(path)?;
    let pairs = |o: Vec<&str>, n: Vec<&str>| -> Vec<(String, String)> {
        o.into_iter()
            .zip(n)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    let vars = pairs(
        old.vars.iter().map(|v| v.name.as_str()).collect(),
        new.vars.iter().map(|v| v.name.as_str()).collect(),
    );
    let groups = pairs(
        old.groups.iter().map(|g| g.name.as_str()).collect(),
        new.groups.iter().map(|g| g.name.as_str()).collect(),
    );
    let dims = pairs(
        old.dims.iter().map(|d| d.name.as_str()).collect(),
        new.dims.iter().map(|d| d.name.as_str()).collect(),
    );
    if !(vars.is_empty() && groups.is_empty() && dims.is_empty()) {
        let names: &[&str] = if zarr3 {
            &["zarr.json"]
        } else {
            &[".zattrs", ".zgroup"]
        };
        for name in names {
            let Some(doc) = docs.edit(&group.join(name)?, false)? else {
                continue;
            };
            let holder = if zarr3 {
                doc.get_mut("attributes")
            } else {
                Some(doc)
            };
            let Some(holder) = holder else { continue };
            for record in ["_nczarr_group", "_NCZARR_GROUP"] {
                if let Some(r) = holder.get_mut(record) {
                    rename_in_list(r, &["arrays", "vars"], &vars);
                    rename_in_list(r, &["groups"], &groups);
                    rename_members(r, &["dimensions", "dims"], &dims);
                }
            }
            if let Some(info) = holder.get_mut(super::conventions::ARRAYS_INFO) {
                rename_keys(info, &vars);
            }
        }
    }
    for (o, n) in old.vars.iter().zip(&new.vars) {
        if o.dims != n.dims {
            rename_dims(docs, zarr3, &group, n)?;
        }
    }
    for (o, n) in old.groups.iter().zip(&new.groups) {
        path.push(n.name.clone());
        rename_names(docs, zarr3, o, n, path)?;
        path.pop();
    }
    Ok(())
}

/// Give the array of `var` (in the group at `group`) its dimensions' new names, in
/// each form its documents hold them.
fn rename_dims(docs: &mut Docs<'_>, zarr3: bool, group: &StoreKey, var: &Var) -> Result<()> {
    let short: Vec<Json> = var
        .dims
        .iter()
        .map(|d| Json::String(d.name.clone()))
        .collect();
    let full: Vec<Json> = var.dims.iter().map(|d| Json::String(fqn(d))).collect();
    let array = group.join(&var.name)?;
    let set_refs = |holder: &mut Json| {
        if holder.get("_ARRAY_DIMENSIONS").is_some() {
            holder.set("_ARRAY_DIMENSIONS", Json::Array(short.clone()));
        }
        for record in ["_nczarr_array", "_NCZARR_ARRAY"] {
            if let Some(r) = holder.get_mut(record) {
                for field in ["dimension_references", "dimrefs"] {
                    if r.get(field).is_some() {
                        r.set(field, Json::Array(full.clone()));
                    }
                }
            }
        }
    };
    if zarr3 {
        if let Some(doc) = docs.edit(&array.join("zarr.json")?, false)? {
            if doc.get("dimension_names").is_some() {
                doc.set("dimension_names", Json::Array(short.clone()));
            }
            if let Some(a) = doc.get_mut("attributes") {
                set_refs(a);
            }
        }
        if let Some(doc) = docs.edit(&group.join("zarr.json")?, false)? {
            if let Some(info) = doc
                .get_mut("attributes")
                .and_then(|a| a.get_mut(super::conventions::ARRAYS_INFO))
                .and_then(|i| i.get_mut(&var.name))
            {
                set_refs(info);
            }
        }
    } else {
        for name in [".zattrs", ".zarray"] {
            if let Some(doc) = docs.edit(&array.join(name)?, false)? {
                set_refs(doc);
            }
        }
    }
    Ok(())
}

/// A dimension's fully qualified name, as NCZarr records it (`/g/x`).
fn fqn(d: &DimRef) -> String {
    let mut s = String::new();
    for g in &d.group {
        s.push('/');
        s.push_str(g);
    }
    s.push('/');
    s.push_str(&d.name);
    s
}

/// In the list under the first of `fields` in `record`, each old name of `pairs` made
/// its new one.
fn rename_in_list(record: &mut Json, fields: &[&str], pairs: &[(String, String)]) {
    for field in fields {
        if let Some(Json::Array(items)) = record.get_mut(field) {
            for item in items.iter_mut() {
                if let Json::String(s) = item {
                    if let Some((_, new)) = pairs.iter().find(|(old, _)| old == s) {
                        *s = new.clone();
                    }
                }
            }
            return;
        }
    }
}

/// In the object under the first of `fields` in `record`, each member named by an old
/// name of `pairs` given its new one.
fn rename_members(record: &mut Json, fields: &[&str], pairs: &[(String, String)]) {
    for field in fields {
        if let Some(object) = record.get_mut(field) {
            rename_keys(object, pairs);
            return;
        }
    }
}

/// Each member of `object` named by an old name of `pairs` given its new one, in its
/// place.
fn rename_keys(object: &mut Json, pairs: &[(String, String)]) {
    if let Json::Object(members) = object {
        for (k, _) in members.iter_mut() {
            if let Some((_, new)) = pairs.iter().find(|(old, _)| old == k) {
                k.clone_from(new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_renames_its_node_and_what_is_under_it_only() {
        let k = |s: &str| StoreKey::new(s).unwrap();
        let m = Move {
            from: k("g/T"),
            to: k("g/tas"),
        };
        assert_eq!(m.forward(&k("g/T/0.0")), Some(k("g/tas/0.0")));
        assert_eq!(m.forward(&k("g/T")), Some(k("g/tas")));
        assert_eq!(m.forward(&k("g/T2/0.0")), None);
        assert_eq!(m.back(&k("g/tas/.zattrs")), Some(k("g/T/.zattrs")));
    }
}
