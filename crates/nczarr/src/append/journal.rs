//! The metadata step of an append or an attribute edit, recorded before it starts: the documents to write,
//! old and new, under [`JOURNAL`]. A run killed while writing them (a few small
//! writes) leaves the record, and the next append to the dataset completes the step
//! first: the chunks the record's documents point at were durable before it was
//! written, so finishing it is always right.

use crate::error::{AppendError, Error, Result};
use crate::json::Json;
use crate::store::{ReadStore, StoreKey, WritableStore};

use super::docs::DocChange;
use crate::formats::zarr::doc_set::Move;

/// Where the record of an unfinished metadata step is kept.
pub const JOURNAL: &str = ".nczcopy/append.json";

fn journal_key() -> Result<StoreKey> {
    Ok(StoreKey::new(JOURNAL)?)
}

/// Write `changes`: recorded first, then each document in order, then the record
/// removed, with the store made durable between the steps.
///
/// # Errors
/// Store errors; a document that is not UTF-8 text.
pub(crate) fn write_docs(store: &dyn WritableStore, changes: &[DocChange]) -> Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    // Seen all at once at the commit: nothing to complete or undo.
    if store.transactional() {
        for c in changes {
            store.put(&c.key, &c.new)?;
        }
        return Ok(store.finish()?);
    }
    let record = Json::Object(vec![("docs".into(), Json::Array(docs_json(changes)?))]);
    store.put(&journal_key()?, record.to_text().as_bytes())?;
    store.finish()?;
    for c in changes {
        store.put(&c.key, &c.new)?;
    }
    store.finish()?;
    store.delete(&journal_key()?)?;
    store.finish()?;
    Ok(())
}

/// The record's entries of `changes`: each document's key, old and new text.
fn docs_json(changes: &[DocChange]) -> Result<Vec<Json>> {
    let text = |key: &StoreKey, bytes: &[u8]| -> Result<Json> {
        String::from_utf8(bytes.to_vec())
            .map(Json::String)
            .map_err(|_| Error::metadata(key.clone(), "not UTF-8 text"))
    };
    changes
        .iter()
        .map(|c| {
            Ok(Json::Object(vec![
                ("key".into(), Json::String(c.key.to_string())),
                ("old".into(), text(&c.key, &c.old)?),
                ("new".into(), text(&c.key, &c.new)?),
            ]))
        })
        .collect()
}

/// Rename nodes of the store and write `changes` (named as after the renames): the
/// record first (the moves and the documents), then every key copied to its new name
/// (hard links on a disk, the service's copy on an object store), the documents, the
/// keys under the old names removed, the record removed; the store made durable
/// between the steps. A run stopped anywhere is completed by the next one.
///
/// # Errors
/// [`Error::Unsupported`] when a new name already holds keys (nothing written then);
/// store errors; a document that is not UTF-8 text.
pub(crate) fn write_moves(
    read: &dyn ReadStore,
    store: &dyn WritableStore,
    moves: &[Move],
    changes: &[DocChange],
) -> Result<()> {
    if moves.is_empty() {
        return write_docs(store, changes);
    }
    let listed = read.list()?;
    for m in moves {
        if m.to.name() == "zarr.json" {
            return Err(Error::Unsupported(format!(
                "cannot rename '{}' to 'zarr.json' in a Zarr store: the name of Zarr version 3's documents",
                m.from
            )));
        }
        if let Some(other) = moves.iter().find(|o| o.from == m.to) {
            // Copies go before removals: a name freed in this run is still full.
            return Err(Error::Unsupported(format!(
                "'{}' would become '{}', and '{}' is renamed too in this run (a swap, or a freed name reused): in a Zarr store, run these renames one at a time",
                m.from, m.to, other.from
            )));
        }
        if let Some((k, _)) = listed
            .iter()
            .find(|(k, _)| m.forward(k).is_none() && under(k, &m.to))
        {
            // A key of no node the model knows (the model checked its own names).
            return Err(Error::Unsupported(format!(
                "cannot rename '{}' to '{}': the store already holds '{k}'",
                m.from, m.to
            )));
        }
    }
    let record = Json::Object(vec![
        (
            "moves".into(),
            Json::Array(moves.iter().map(move_json).collect()),
        ),
        ("docs".into(), Json::Array(docs_json(changes)?)),
    ]);
    store.put(&journal_key()?, record.to_text().as_bytes())?;
    store.finish()?;
    let mut left = Vec::new();
    for m in moves {
        left.extend(move_keys(read, store, m)?);
    }
    store.finish()?;
    for c in changes {
        store.put(&c.key, &c.new)?;
    }
    store.finish()?;
    store.delete_many(&documents_first(left))?;
    store.finish()?;
    store.delete(&journal_key()?)?;
    store.finish()?;
    Ok(())
}

/// True for `key` equal to `node` or under it.
fn under(key: &StoreKey, node: &StoreKey) -> bool {
    key.as_str()
        .strip_prefix(node.as_str())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Copy the keys under `m.from` to their names under `m.to` (nothing when none is left
/// there); the old keys, to remove once the documents are written. Until then a
/// reader sees the dataset as it was, whole.
fn move_keys(read: &dyn ReadStore, store: &dyn WritableStore, m: &Move) -> Result<Vec<StoreKey>> {
    let mut keys: Vec<StoreKey> = read
        .list()?
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| under(k, &m.from))
        .collect();
    if keys.is_empty() {
        return Ok(keys);
    }
    // Chunks first, the node's documents last: until those are there, the new name
    // is no node to a reader that lists.
    keys.sort_by_key(|k| (is_document(k), k.clone()));
    let pairs: Vec<(StoreKey, StoreKey)> = keys
        .iter()
        .filter_map(|k| m.forward(k).map(|to| (k.clone(), to)))
        .collect();
    if !store.copy_many(&pairs)? {
        for batch in pairs.chunks(64) {
            let from: Vec<StoreKey> = batch.iter().map(|(f, _)| f.clone()).collect();
            let mut items = Vec::with_capacity(batch.len());
            for ((f, t), got) in batch.iter().zip(read.get_many(&from)) {
                let value = got?.ok_or_else(|| {
                    Error::metadata(f.clone(), "listed, then missing while being moved")
                })?;
                items.push((t.clone(), value));
            }
            store.put_many(&items)?;
        }
    }
    Ok(keys)
}

/// `keys` (the old names of moved nodes) in the order to remove them: the documents
/// first, so that a reader that lists keys no longer finds the node while its chunks
/// go.
fn documents_first(mut keys: Vec<StoreKey>) -> Vec<StoreKey> {
    keys.sort_by_key(|k| !is_document(k));
    keys
}

/// True for a metadata document's key (`.zarray`, `zarr.json`...), not a chunk's.
fn is_document(key: &StoreKey) -> bool {
    let name = key.name();
    name.starts_with('.') || name == "zarr.json"
}

fn move_json(m: &Move) -> Json {
    Json::Object(vec![
        ("from".into(), Json::String(m.from.to_string())),
        ("to".into(), Json::String(m.to.to_string())),
    ])
}

/// True when an earlier append's metadata step is unfinished.
///
/// # Errors
/// Store errors.
pub(crate) fn is_interrupted(read: &dyn ReadStore) -> Result<bool> {
    Ok(read.size(&journal_key()?)?.is_some())
}

/// Complete the metadata step an earlier append was stopped in, if its record is
/// there; true when there was one.
///
/// # Errors
/// [`Error::Append`] when a document changed since the record was written (someone
/// else wrote the dataset since): nothing is written then; store errors.
pub(crate) fn complete_interrupted(
    read: &dyn ReadStore,
    write: &dyn WritableStore,
) -> Result<bool> {
    let key = journal_key()?;
    let Some(bytes) = read.get(&key)? else {
        return Ok(false);
    };
    let bad = |what: &str| Error::metadata(key.clone(), what.to_string());
    let record = crate::json::parse(&bytes).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let mut moves = Vec::new();
    for m in record.get("moves").and_then(Json::as_array).unwrap_or(&[]) {
        let field = |name: &str| -> Result<StoreKey> {
            let text = m
                .get(name)
                .and_then(Json::as_str)
                .ok_or_else(|| bad(&format!("a move without '{name}'")))?;
            Ok(StoreKey::new(text)?)
        };
        moves.push(Move {
            from: field("from")?,
            to: field("to")?,
        });
    }
    // The keys first: the documents are then where the record names them.
    let mut left = Vec::new();
    for m in &moves {
        left.extend(move_keys(read, write, m)?);
    }
    write.finish()?;
    let mut changes = Vec::new();
    for doc in record.get("docs").and_then(Json::as_array).unwrap_or(&[]) {
        let field = |name: &str| {
            doc.get(name)
                .and_then(Json::as_str)
                .ok_or_else(|| bad(&format!("an entry without '{name}'")))
        };
        let doc_key = StoreKey::new(field("key")?)?;
        let (old, new) = (field("old")?.as_bytes(), field("new")?.as_bytes());
        let now = read.get(&doc_key)?;
        match now.as_deref() {
            Some(n) if same_doc(n, new) => {}
            Some(n) if same_doc(n, old) => changes.push((doc_key, new.to_vec())),
            // A document the step creates (an edit's first `.zattrs`).
            None if old.is_empty() => changes.push((doc_key, new.to_vec())),
            _ => {
                return Err(AppendError::ChangedSince {
                    location: read.location(),
                    record: JOURNAL.to_string(),
                    doc: doc_key.to_string(),
                }
                .into())
            }
        }
    }
    for (k, v) in &changes {
        write.put(k, v)?;
    }
    write.finish()?;
    write.delete_many(&documents_first(left))?;
    write.finish()?;
    write.delete(&key)?;
    write.finish()?;
    Ok(true)
}

/// The same document: the same bytes, or the same JSON, members in any order and
/// numbers in any spelling (an edit
/// records a document as the consolidated metadata held it, written out again: its
/// spacing and order may differ from the store's).
fn same_doc(a: &[u8], b: &[u8]) -> bool {
    if a == b {
        return true;
    }
    match (crate::json::parse(a), crate::json::parse(b)) {
        (Ok(x), Ok(y)) => sorted(x) == sorted(y),
        _ => false,
    }
}

/// `json` with every object's members in key order.
fn sorted(json: Json) -> Json {
    match json {
        Json::Object(members) => {
            let mut members: Vec<(String, Json)> =
                members.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            members.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Object(members)
        }
        Json::Array(items) => Json::Array(items.into_iter().map(sorted).collect()),
        // A number as its value: `1e+20` and `1e20`, `-999.0` and `-999.0`.
        Json::Number(n) if !n.is_integer() => match n.as_f64() {
            Some(v) if v.is_finite() => Json::Number(crate::json::Number::from_f64(v)),
            _ => Json::Number(n),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::same_doc;

    #[test]
    fn a_document_is_the_same_in_any_spacing_order_and_number_spelling() {
        let store = br#"{"units": "K", "valid_range": [1e+20, -999.0], "n": 3}"#;
        assert!(same_doc(
            store,
            br#"{"n":3,"units":"K","valid_range":[1e20,-999.0]}"#
        ));
        assert!(!same_doc(
            store,
            br#"{"n":3,"units":"C","valid_range":[1e20,-999.0]}"#
        ));
        assert!(!same_doc(
            store,
            br#"{"n":4,"units":"K","valid_range":[1e20,-999.0]}"#
        ));
        assert!(!same_doc(store, b"not JSON"));
        assert!(same_doc(b"", b""));
    }
}
