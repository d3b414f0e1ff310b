//! The metadata documents that give a dimension's length, as they read after an
//! append: each grown array's shape, the NCZarr group record of the dimension, and
//! the consolidated copies of both (`.zmetadata`; in Zarr v3 the root `zarr.json`'s
//! `consolidated_metadata`). Everything else in them is kept as it was, whoever wrote
//! it (zarr-python, xarray, netcdf-c): only the numbers that say the length change.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::json::{Json, Number};
use crate::model::DimRef;
use crate::store::{ReadStore, StoreKey};

pub(crate) use crate::formats::zarr::attr_docs::DocChange;

/// A grown array: where it is, and which of its axes is the dimension.
#[derive(Debug, Clone)]
pub(super) struct Grown {
    pub key: StoreKey,
    pub axis: usize,
}

/// When a document is written, so that the one readers open by is written last:
/// arrays, then groups below the root, then the root's own documents, the
/// consolidated metadata and finally the root's opening document.
fn rank(key: &StoreKey, arrays: &[StoreKey]) -> u8 {
    match key.as_str() {
        _ if arrays.contains(key) => 0,
        ".zgroup" | "zarr.json" => 4,
        ".zmetadata" => 3,
        ".zattrs" | ".nczgroup" => 2,
        _ => 1,
    }
}

/// The documents to write so that the store says `dim` is `len` long and each of
/// `grown` has that length on its axis: each changed document once, in the order to
/// write them (see `rank`).
///
/// # Errors
/// [`Error::Metadata`] naming the key of a document that cannot be parsed or has no
/// `shape` where a grown array's should be; store errors.
pub(super) fn grown_docs(
    store: &dyn ReadStore,
    zarr3: bool,
    dim: &DimRef,
    len: u64,
    grown: &[Grown],
) -> Result<Vec<DocChange>> {
    let mut docs: BTreeMap<StoreKey, (Vec<u8>, Json)> = BTreeMap::new();
    let mut load = |key: StoreKey| -> Result<Option<StoreKey>> {
        if docs.contains_key(&key) {
            return Ok(Some(key));
        }
        let Some(bytes) = store.get(&key)? else {
            return Ok(None);
        };
        let json = crate::json::parse(&bytes)
            .map_err(|e| Error::metadata(key.clone(), format!("not JSON: {e}")))?;
        docs.insert(key.clone(), (bytes, json));
        Ok(Some(key))
    };
    let mut edits: Vec<(StoreKey, Edit)> = Vec::new();
    let mut arrays = Vec::new();
    for g in grown {
        let key = g.key.join(if zarr3 { "zarr.json" } else { ".zarray" })?;
        let key = load(key.clone())?
            .ok_or_else(|| Error::metadata(key, "the array's metadata is missing"))?;
        arrays.push(key.clone());
        edits.push((key, Edit::Shape(g.axis)));
    }
    let mut group = StoreKey::root();
    for name in &dim.group {
        group = group.join(name)?;
    }
    let group_docs: &[&str] = if zarr3 {
        &["zarr.json"]
    } else {
        &[".zgroup", ".zattrs", ".nczgroup"]
    };
    for name in group_docs {
        if let Some(key) = load(group.join(name)?)? {
            edits.push((key, Edit::Dims));
        }
    }
    // The consolidated copies, by the key (v2) or path (v3) each stands for.
    let consolidated = StoreKey::new(if zarr3 { "zarr.json" } else { ".zmetadata" })?;
    if let Some(key) = load(consolidated)? {
        let inner: Vec<(String, Edit)> = edits
            .iter()
            .map(|(k, e)| {
                let name = if zarr3 {
                    k.as_str()
                        .trim_end_matches("zarr.json")
                        .trim_end_matches('/')
                        .to_string()
                } else {
                    k.to_string()
                };
                (name, e.clone())
            })
            .collect();
        edits.push((key, Edit::Consolidated(inner)));
    }
    let mut changed = Vec::new();
    for (key, edit) in edits {
        let Some((_, json)) = docs.get_mut(&key) else {
            continue;
        };
        if edit.apply(json, &dim.name, len, zarr3, &key)? && !changed.contains(&key) {
            changed.push(key);
        }
    }
    let mut out: Vec<DocChange> = changed
        .into_iter()
        .filter_map(|key| {
            let (old, json) = docs.remove(&key)?;
            Some(DocChange {
                new: json.to_text().into_bytes(),
                key,
                old,
            })
        })
        .collect();
    out.sort_by_key(|c| (rank(&c.key, &arrays), c.key.clone()));
    Ok(out)
}

/// What changes in one document.
#[derive(Debug, Clone)]
enum Edit {
    /// An array's shape, on this axis.
    Shape(usize),
    /// A group's NCZarr record of its dimensions.
    Dims,
    /// The consolidated metadata: these edits of the documents it copies, by the
    /// name it holds each under.
    Consolidated(Vec<(String, Edit)>),
}

impl Edit {
    /// Apply the edit to `doc` (the document at `key`); true when it changed.
    fn apply(
        &self,
        doc: &mut Json,
        dim: &str,
        len: u64,
        zarr3: bool,
        key: &StoreKey,
    ) -> Result<bool> {
        match self {
            Edit::Shape(axis) => set_shape(doc, *axis, len).map(|()| true).ok_or_else(|| {
                Error::metadata(
                    key.clone(),
                    format!("no shape with an axis {axis} to grow to {len}"),
                )
            }),
            Edit::Dims => Ok(set_dim(doc, dim, len)),
            Edit::Consolidated(inner) => {
                let Some(meta) = consolidated_entries(doc, zarr3) else {
                    return Ok(false);
                };
                let mut changed = false;
                for (name, edit) in inner {
                    if let Some(entry) = meta.get_mut(name) {
                        changed |= match edit {
                            Edit::Shape(axis) => set_shape(entry, *axis, len).is_some(),
                            Edit::Dims => set_dim(entry, dim, len),
                            Edit::Consolidated(_) => false,
                        };
                    }
                }
                Ok(changed)
            }
        }
    }
}

/// The object of consolidated entries in `doc`: `.zmetadata`'s `metadata`, or a v3
/// group's `consolidated_metadata.metadata`.
fn consolidated_entries(doc: &mut Json, zarr3: bool) -> Option<&mut Json> {
    let doc = if zarr3 {
        doc.get_mut("consolidated_metadata")?
    } else {
        doc
    };
    doc.get_mut("metadata")
        .filter(|m| matches!(m, Json::Object(_)))
}

fn number(n: u64) -> Json {
    Json::Number(Number::from_u64(n))
}

/// Set axis `axis` of `doc`'s `shape` to `len`; `None` when there is no such axis.
fn set_shape(doc: &mut Json, axis: usize, len: u64) -> Option<()> {
    match doc.get_mut("shape")? {
        Json::Array(shape) => {
            *shape.get_mut(axis)? = number(len);
            Some(())
        }
        _ => None,
    }
}

/// Set the length of dimension `dim` where NCZarr records a group's dimensions: in
/// `_nczarr_group` (netcdf-c 4.9.3 and later, in `.zattrs` or a v3 group's
/// `attributes`), `_NCZARR_GROUP` (4.9.0, in `.zgroup`) or `.nczgroup` (4.8), under
/// `dims` or `dimensions`, as a number or an object's `size`. True when it was there.
fn set_dim(doc: &mut Json, dim: &str, len: u64) -> bool {
    let mut changed = false;
    let own = doc.get("dims").is_some();
    let mut records: Vec<&mut Json> = Vec::new();
    if own {
        records.push(doc);
    } else {
        let Json::Object(members) = doc else {
            return false;
        };
        for (name, value) in members.iter_mut() {
            match name.as_str() {
                "_nczarr_group" | "_NCZARR_GROUP" => records.push(value),
                "attributes" => {
                    if let Some(g) = value.get_mut("_nczarr_group") {
                        records.push(g);
                    }
                }
                _ => {}
            }
        }
    }
    for record in records {
        for field in ["dims", "dimensions"] {
            let Some(entry) = record.get_mut(field).and_then(|d| d.get_mut(dim)) else {
                continue;
            };
            match entry {
                Json::Number(_) => {
                    *entry = number(len);
                    changed = true;
                }
                Json::Object(_) if entry.get("size").is_some() => {
                    entry.set("size", number(len));
                    changed = true;
                }
                _ => {}
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryStore, WritableStore};

    fn doc(store: &MemoryStore, key: &str, text: &str) {
        store
            .put(&StoreKey::new(key).unwrap(), text.as_bytes())
            .unwrap();
    }

    fn time() -> DimRef {
        DimRef {
            group: Vec::new(),
            name: "time".into(),
        }
    }

    #[test]
    fn nczarr_v2_shapes_group_record_and_consolidated_copies_change_in_order() {
        let s = MemoryStore::new();
        doc(
            &s,
            "t/.zarray",
            r#"{"shape":[4,3],"chunks":[2,3],"zarr_format":2}"#,
        );
        doc(
            &s,
            ".zattrs",
            r#"{"_nczarr_group":{"dimensions":{"time":{"size":4,"unlimited":1},"x":3}},"title":"dimensions"}"#,
        );
        doc(&s, ".zgroup", r#"{"zarr_format":2}"#);
        doc(
            &s,
            ".zmetadata",
            r#"{"metadata":{".zattrs":{"_nczarr_group":{"dimensions":{"time":{"size":4,"unlimited":1}}}},"t/.zarray":{"shape":[4,3]}},"zarr_consolidated_format":1}"#,
        );
        let grown = [Grown {
            key: StoreKey::new("t").unwrap(),
            axis: 0,
        }];
        let docs = grown_docs(&s, false, &time(), 9, &grown).unwrap();
        let keys: Vec<&str> = docs.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["t/.zarray", ".zattrs", ".zmetadata"]);
        let text = |i: usize| {
            String::from_utf8(docs[i].new.clone())
                .unwrap()
                .replace(' ', "")
        };
        assert!(text(0).contains(r#""shape":[9,3]"#), "{}", text(0));
        assert!(text(1).contains(r#""time":{"size":9,"unlimited":1}"#));
        assert!(text(1).contains(r#""x":3"#) && text(1).contains(r#""title":"dimensions""#));
        assert!(text(2).contains(r#""shape":[9,3]"#) && text(2).contains(r#""size":9"#));
    }

    #[test]
    fn netcdf_4_9_0_and_zarr_v3_consolidated_metadata() {
        let s = MemoryStore::new();
        doc(&s, "t/.zarray", r#"{"shape":[4]}"#);
        doc(
            &s,
            ".zgroup",
            r#"{"zarr_format":2,"_NCZARR_GROUP":{"dims":{"time":4}}}"#,
        );
        let grown = [Grown {
            key: StoreKey::new("t").unwrap(),
            axis: 0,
        }];
        let docs = grown_docs(&s, false, &time(), 5, &grown).unwrap();
        assert_eq!(docs[1].key.as_str(), ".zgroup");
        assert!(String::from_utf8_lossy(&docs[1].new)
            .replace(' ', "")
            .contains(r#""time":5"#));

        let s = MemoryStore::new();
        doc(
            &s,
            "g/t/zarr.json",
            r#"{"node_type":"array","shape":[2,4]}"#,
        );
        doc(
            &s,
            "zarr.json",
            r#"{"node_type":"group","consolidated_metadata":{"kind":"inline","metadata":{"g/t":{"shape":[2,4]}}}}"#,
        );
        let grown = [Grown {
            key: StoreKey::new("g/t").unwrap(),
            axis: 1,
        }];
        let docs = grown_docs(&s, true, &time(), 6, &grown).unwrap();
        let keys: Vec<&str> = docs.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["g/t/zarr.json", "zarr.json"]);
        assert!(String::from_utf8_lossy(&docs[1].new)
            .replace(' ', "")
            .contains(r#""g/t":{"shape":[2,6]}"#));
    }

    #[test]
    fn a_missing_array_document_is_named() {
        let s = MemoryStore::new();
        let grown = [Grown {
            key: StoreKey::new("t").unwrap(),
            axis: 0,
        }];
        let e = grown_docs(&s, false, &time(), 5, &grown).unwrap_err();
        assert!(e.to_string().contains("t/.zarray"), "{e}");
    }
}
