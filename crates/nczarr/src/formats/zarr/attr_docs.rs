//! The metadata documents that hold a Zarr store's attributes, as they read after an
//! edit of the attributes alone: each changed group's or array's `.zattrs` (Zarr v2,
//! NCZarr) or `zarr.json` `attributes` (Zarr v3), the netCDF types NCZarr records
//! beside them (`_nczarr_attr`, 4.9.0's `_NCZARR_ATTR`, or our v3 writer's record in
//! the group's `_nczarr_arrays`), and the consolidated copies (`.zmetadata`, a v3
//! root's `consolidated_metadata`). Everything else in the documents stays as it was,
//! whoever wrote them; no chunk is read or written.

use std::collections::BTreeMap;

use super::conventions::ARRAYS_INFO;
use super::doc_set::{consolidated_entries, node, Docs, Move};
use super::v2::values_json;
use super::write::{attrs::attr_dtype, Layout, WriteOptions};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::{Attr, Dataset, Group};
use crate::store::{ReadStore, StoreKey};

/// One document's change: its key, its bytes before (empty when it was not there;
/// for a node a rename moves, as at its old key) and after.
#[derive(Debug, Clone)]
pub(crate) struct DocChange {
    pub key: StoreKey,
    pub old: Vec<u8>,
    pub new: Vec<u8>,
}

/// The documents to write so that the Zarr store `store` (of version 3 when `zarr3`)
/// holds the attributes of `new` where it holds those of `old` (its model as read, and
/// that model edited: the same groups and variables). In the order to write them:
/// arrays', then groups', then the consolidated metadata, the root's last. With
/// them, how many groups and variables have their attributes changed.
///
/// A store with consolidated metadata is edited as it was read: a node's document is
/// taken from the consolidated copy (as the model was, and as zarr-python does), not
/// asked of the store again.
///
/// # Errors
/// [`Error::Unsupported`] for a change to an attribute the store does not keep as an
/// attribute (an array's fill value read as `_FillValue`, a type's marker) or to a
/// name NCZarr reserves; [`Error::Metadata`] naming a document that is not JSON;
/// store errors.
pub(crate) fn attribute_docs(
    store: &dyn ReadStore,
    zarr3: bool,
    old: &Dataset,
    new: &Dataset,
) -> Result<EditedDocs> {
    let moves = super::rename_docs::moves(old, new)?;
    let mut docs = Docs {
        store,
        loaded: BTreeMap::new(),
        changed: Vec::new(),
        consolidated: consolidated_entries(store, zarr3)?,
        zarr3,
        holders: 0,
        moves: moves.clone(),
    };
    let mut arrays = Vec::new();
    walk(
        &mut docs,
        zarr3,
        &old.root,
        &new.root,
        &mut Vec::new(),
        &mut arrays,
    )?;
    let holders = docs.holders;
    super::rename_docs::rename_names(&mut docs, zarr3, &old.root, &new.root, &mut Vec::new())?;
    consolidate(&mut docs, zarr3)?;
    let mut out: Vec<DocChange> = docs
        .changed
        .iter()
        .filter_map(|key| {
            let (old, json) = docs.loaded.get(key)?;
            Some(DocChange {
                key: key.clone(),
                old: old.clone(),
                new: json.to_text().into_bytes(),
            })
        })
        .filter(|c| c.old != c.new)
        .collect();
    out.sort_by_key(|c| (rank(&c.key, &arrays), c.key.clone()));
    Ok(EditedDocs {
        changes: out,
        holders,
        moves,
    })
}

/// What an edit writes into a Zarr store (see [`attribute_docs`]).
#[derive(Debug)]
pub(crate) struct EditedDocs {
    /// The documents, in the order to write them, at their keys after the moves.
    pub changes: Vec<DocChange>,
    /// How many groups and variables have their attributes changed.
    pub holders: usize,
    /// The keys that move first (renamed variables and groups), in order.
    pub moves: Vec<Move>,
}

/// When a document is written: arrays', then groups' below the root, then the root's
/// attributes, the consolidated metadata, and the root's opening document last.
fn rank(key: &StoreKey, arrays: &[StoreKey]) -> u8 {
    match key.as_str() {
        _ if arrays.contains(key) => 0,
        ".zgroup" | "zarr.json" => 4,
        ".zmetadata" => 3,
        ".zattrs" => 2,
        _ => 1,
    }
}

/// Each group and variable under `old` (at `path`) whose attributes `new` changes.
fn walk(
    docs: &mut Docs<'_>,
    zarr3: bool,
    old: &Group,
    new: &Group,
    path: &mut Vec<String>,
    arrays: &mut Vec<StoreKey>,
) -> Result<()> {
    let group = node(path)?;
    if !same_list(&old.attrs, &new.attrs) {
        let shown = if path.is_empty() {
            "the global attributes".to_string()
        } else {
            format!("group '/{}'", path.join("/"))
        };
        edit_holder(docs, zarr3, &group, None, &old.attrs, &new.attrs, &shown)?;
    }
    for (o, n) in old.vars.iter().zip(&new.vars) {
        if same_list(&o.attrs, &n.attrs) {
            continue;
        }
        let key = group.join(&n.name)?;
        let shown = format!("variable '{}'", key.as_str());
        let doc = edit_holder(
            docs,
            zarr3,
            &key,
            Some((&group, &n.name)),
            &o.attrs,
            &n.attrs,
            &shown,
        )?;
        arrays.push(doc);
    }
    for (o, n) in old.groups.iter().zip(&new.groups) {
        path.push(n.name.clone());
        walk(docs, zarr3, o, n, path, arrays)?;
        path.pop();
    }
    Ok(())
}

/// Write `new` in place of `old` as the attributes of the node at `key` (an array
/// named `array.1` in the group at `array.0`, or a group); its document's key.
fn edit_holder(
    docs: &mut Docs<'_>,
    zarr3: bool,
    key: &StoreKey,
    array: Option<(&StoreKey, &str)>,
    old: &[Attr],
    new: &[Attr],
    shown: &str,
) -> Result<StoreKey> {
    let refuse = |message: String| Error::Unsupported(format!("{shown}: {message}"));
    docs.holders += 1;
    let doc_key = key.join(if zarr3 { "zarr.json" } else { ".zattrs" })?;
    let doc = docs
        .edit(&doc_key, !zarr3)?
        .ok_or_else(|| Error::metadata(doc_key.clone(), "missing"))?;
    let attributes = if zarr3 {
        if doc.get("attributes").is_none() {
            doc.set("attributes", Json::Object(Vec::new()));
        }
        doc.get_mut("attributes")
            .ok_or_else(|| Error::metadata(doc_key.clone(), "no attributes object"))?
    } else {
        doc
    };
    let Json::Object(members) = attributes else {
        return Err(Error::metadata(
            doc_key.clone(),
            "attributes are not an object",
        ));
    };
    let stored = |name: &str| members.iter().any(|(k, _)| k == name);
    let find = |list: &[Attr], name: &str| list.iter().find(|a| a.name == name).cloned();
    let unchanged = |name: &str| match (find(old, name), find(new, name)) {
        (Some(a), Some(b)) => same(&a, &b),
        (None, None) => true,
        _ => false,
    };
    // What the model reads from elsewhere (a fill value, a type's marker) is not an
    // attribute here: it cannot be changed as one.
    for a in old {
        if !stored(&a.name) && !unchanged(&a.name) {
            return Err(refuse(format!(
                "'{}' is not kept as an attribute in this store (it is read from the array's own metadata): not edited in place yet",
                a.name
            )));
        }
    }
    for a in new {
        if reserved(&a.name) && !unchanged(&a.name) {
            return Err(refuse(format!(
                "'{}' is a name NCZarr keeps for itself",
                a.name
            )));
        }
    }
    let is_old = |name: &str| old.iter().any(|a| a.name == name);
    let mut edited: Vec<(String, Json)> = Vec::new();
    for (k, v) in members.iter() {
        match find(new, k) {
            // Not an attribute of the model (a record of NCZarr's or xarray's), or
            // one the edit leaves as it is: kept as written (a v3 float _FillValue in
            // base64, a number's spelling).
            _ if !is_old(k) => edited.push((k.clone(), v.clone())),
            Some(_) if unchanged(k) => edited.push((k.clone(), v.clone())),
            Some(a) => edited.push((k.clone(), values_json(&a.values))),
            None => {}
        }
    }
    for a in new.iter().filter(|a| !stored(&a.name)) {
        edited.push((a.name.clone(), values_json(&a.values)));
    }
    *members = edited;
    // The netCDF types, where NCZarr records them: beside the attributes, or (our v3
    // writer, for an array) in its group's record of its arrays.
    let changes: Vec<(&str, Option<&Attr>)> = old
        .iter()
        .map(|a| a.name.as_str())
        .chain(new.iter().map(|a| a.name.as_str()))
        .filter(|n| !unchanged(n))
        .map(|n| (n, new.iter().find(|a| a.name == n)))
        .collect();
    if set_types(attributes, &changes) {
        return Ok(doc_key);
    }
    if let (true, Some((group, name))) = (zarr3, array) {
        let group_key = group.join("zarr.json")?;
        if let Some(group_doc) = docs.edit(&group_key, false)? {
            if let Some(info) = group_doc
                .get_mut("attributes")
                .and_then(|a| a.get_mut(ARRAYS_INFO))
                .and_then(|a| a.get_mut(name))
            {
                set_types(info, &changes);
            }
        }
    }
    Ok(doc_key)
}

/// The same attribute: name, type and values bit for bit (a NaN is the same NaN: `==`
/// would see every NaN attribute, xarray's float fills among them, as changed).
fn same(a: &Attr, b: &Attr) -> bool {
    if a.name != b.name || a.user != b.user {
        return false;
    }
    match (a.values.as_ne_bytes(), b.values.as_ne_bytes()) {
        (Some(x), Some(y)) => a.values.nc_type() == b.values.nc_type() && x == y,
        _ => a.values == b.values,
    }
}

/// The same attributes in the same order (see [`same`]).
fn same_list(a: &[Attr], b: &[Attr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// Names NCZarr and xarray keep for their own records among the attributes.
fn reserved(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("_nczarr") || name == "_ARRAY_DIMENSIONS" || name == "_NCProperties"
}

/// Record the netCDF type of each changed attribute (`None`: deleted) in the types
/// record under `holder` (`_nczarr_attr.types`, or 4.9.0's `_NCZARR_ATTR.types`);
/// false when `holder` has none.
fn set_types(holder: &mut Json, changes: &[(&str, Option<&Attr>)]) -> bool {
    let (record, layout) = if holder.get("_NCZARR_ATTR").is_some() {
        ("_NCZARR_ATTR", Layout::Netcdf490)
    } else {
        ("_nczarr_attr", Layout::Current)
    };
    let opts = WriteOptions {
        layout,
        ..WriteOptions::default()
    };
    let Some(Json::Object(types)) = holder.get_mut(record).and_then(|r| r.get_mut("types")) else {
        return false;
    };
    for (name, attr) in changes {
        types.retain(|(k, _)| k != name);
        if let Some(a) = attr {
            types.push((
                (*name).to_string(),
                Json::String(attr_dtype(&a.values, &opts)),
            ));
        }
    }
    true
}

/// The consolidated metadata's entries in its document `doc`.
fn doc_entries(doc: &mut Json, zarr3: bool) -> Option<&mut Json> {
    if zarr3 {
        doc.get_mut("consolidated_metadata")
            .and_then(|c| c.get_mut("metadata"))
    } else {
        doc.get_mut("metadata")
    }
    .filter(|m| matches!(m, Json::Object(_)))
}

/// Copy the changed documents into the consolidated metadata, where there is one.
fn consolidate(docs: &mut Docs<'_>, zarr3: bool) -> Result<()> {
    let changed: Vec<(StoreKey, Json)> = docs
        .changed
        .iter()
        .filter_map(|k| docs.loaded.get(k).map(|(_, j)| (k.clone(), j.clone())))
        .collect();
    let moves = docs.moves.clone();
    let key = StoreKey::new(if zarr3 { "zarr.json" } else { ".zmetadata" })?;
    let Some(doc) = docs.edit(&key, false)? else {
        docs.changed.retain(|k| k != &key);
        return Ok(());
    };
    let Some(Json::Object(members)) = doc_entries(doc, zarr3) else {
        return Ok(());
    };
    // Entries of renamed nodes under their new names (v2: `T/.zarray`; v3: `T`).
    for m in &moves {
        for (k, _) in members.iter_mut() {
            if let Some(moved) = StoreKey::new(k).ok().and_then(|key| m.forward(&key)) {
                *k = moved.as_str().to_string();
            }
        }
    }
    let entries = doc_entries(doc, zarr3);
    let Some(entries) = entries else {
        return Ok(());
    };
    for (k, json) in changed {
        if zarr3 {
            // A node's entry under its path (its whole document); the root is the
            // document itself.
            let path = k
                .as_str()
                .trim_end_matches("zarr.json")
                .trim_end_matches('/');
            if path.is_empty() {
                continue;
            }
            if entries.get(path).is_some() {
                entries.set(path, json);
            }
        } else {
            entries.set(k.as_str(), json);
        }
    }
    Ok(())
}
