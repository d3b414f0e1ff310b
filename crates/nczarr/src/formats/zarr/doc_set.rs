//! The metadata documents an edit of a Zarr store changes, as it changes them: each
//! read once (from the consolidated copy when the store has one, else from the
//! store), by its key after the edit's renames ([`Move`]), and which were changed.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::json::Json;
use crate::store::{ReadStore, StoreKey};

/// Every key under `from` (a node of the store) to have the same name under `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Move {
    pub from: StoreKey,
    pub to: StoreKey,
}

impl Move {
    /// `key` as named after this move (unchanged when not under `from`).
    pub(crate) fn forward(&self, key: &StoreKey) -> Option<StoreKey> {
        rebase(key, &self.from, &self.to)
    }

    /// `key` as named before this move.
    pub(crate) fn back(&self, key: &StoreKey) -> Option<StoreKey> {
        rebase(key, &self.to, &self.from)
    }
}

/// `key` with its leading `from` replaced by `to`; `None` when `key` is not `from` or
/// under it.
fn rebase(key: &StoreKey, from: &StoreKey, to: &StoreKey) -> Option<StoreKey> {
    let k = key.as_str();
    let f = from.as_str();
    let rest = k.strip_prefix(f)?;
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    StoreKey::new(&format!("{}{rest}", to.as_str())).ok()
}

/// The nodes' documents in the consolidated metadata of `store`, by path (v2: the
/// document's key, `T/.zattrs`; v3: the node's path, `T`); `None` without one.
pub(super) fn consolidated_entries(store: &dyn ReadStore, zarr3: bool) -> Result<Option<Json>> {
    let key = StoreKey::new(if zarr3 { "zarr.json" } else { ".zmetadata" })?;
    let Some(bytes) = store.get(&key)? else {
        return Ok(None);
    };
    let Ok(doc) = crate::json::parse(&bytes) else {
        return Ok(None);
    };
    let entries = if zarr3 {
        doc.get("consolidated_metadata")
            .and_then(|c| c.get("metadata"))
    } else {
        doc.get("metadata")
    };
    Ok(entries.filter(|m| matches!(m, Json::Object(_))).cloned())
}

/// The documents read so far (bytes as read, JSON as edited) and those changed, by
/// their keys after the edit's moves.
pub(crate) struct Docs<'s> {
    pub(super) store: &'s dyn ReadStore,
    pub(super) loaded: BTreeMap<StoreKey, (Vec<u8>, Json)>,
    pub(super) changed: Vec<StoreKey>,
    /// The consolidated metadata's entries (see [`consolidated_entries`]).
    pub(super) consolidated: Option<Json>,
    pub(super) zarr3: bool,
    /// The groups and variables whose attributes change.
    pub(super) holders: usize,
    /// The keys renamed (see [`super::rename_docs::moves`]).
    pub(super) moves: Vec<Move>,
}

impl Docs<'_> {
    /// The document at `key`, to change; an empty object when it is not there and
    /// `create` (a `.zattrs` not yet written), else `None`.
    pub(super) fn edit(&mut self, key: &StoreKey, create: bool) -> Result<Option<&mut Json>> {
        if !self.loaded.contains_key(key) {
            let from = self.before_moves(key);
            if let Some(found) = self.consolidated_doc(&from) {
                let (bytes, json) = match found {
                    Some(json) => (json.to_text().into_bytes(), json),
                    None if create => (Vec::new(), Json::Object(Vec::new())),
                    None => return Ok(None),
                };
                self.loaded.insert(key.clone(), (bytes, json));
            }
        }
        if !self.loaded.contains_key(key) {
            let (bytes, json) = match self.store.get(&self.before_moves(key))? {
                Some(bytes) => {
                    let json = crate::json::parse(&bytes)
                        .map_err(|e| Error::metadata(key.clone(), format!("not JSON: {e}")))?;
                    (bytes, json)
                }
                None if create => (Vec::new(), Json::Object(Vec::new())),
                None => return Ok(None),
            };
            self.loaded.insert(key.clone(), (bytes, json));
        }
        if !self.changed.contains(key) {
            self.changed.push(key.clone());
        }
        Ok(self.loaded.get_mut(key).map(|(_, j)| j))
    }
}

impl Docs<'_> {
    /// The key `key` (named as after the edit) has in the store now.
    fn before_moves(&self, key: &StoreKey) -> StoreKey {
        self.moves
            .iter()
            .rev()
            .fold(key.clone(), |k, m| m.back(&k).unwrap_or(k))
    }

    /// The document `key` as the consolidated metadata has it: `Some(None)` when that
    /// says there is none; `None` when it does not say (no consolidated metadata, or
    /// the root's own document, which holds it).
    fn consolidated_doc(&self, key: &StoreKey) -> Option<Option<Json>> {
        let entries = self.consolidated.as_ref()?;
        if self.zarr3 {
            let path = key.as_str().strip_suffix("/zarr.json")?;
            Some(entries.get(path).cloned())
        } else if key.as_str() == ".zmetadata" {
            None
        } else {
            Some(entries.get(key.as_str()).cloned())
        }
    }
}

/// The store key of the node at `path` (`""` for the root).
pub(super) fn node(path: &[String]) -> Result<StoreKey> {
    let mut key = StoreKey::root();
    for p in path {
        key = key.join(p)?;
    }
    Ok(key)
}
