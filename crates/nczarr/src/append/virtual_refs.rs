//! `nczcopy --append --virtual`: a day's files added to a virtual repository as one
//! snapshot. The append's plan is the ordinary append's (the join's checks, the new
//! length, the documents that say it); what differs is how each growing variable gets
//! its new chunks: those the files store as they are go in as references to the files
//! (shifted along the growing dimension by the chunks the repository holds), set in
//! the session when the grown document comes; the others (small coordinates inlined
//! as values) are written as values by the append itself.
//!
//! A referenced variable must keep its array's storage: the same data type, chunk
//! shape and codecs as the new files' chunks, and a whole number of chunks along the
//! dimension so far (a partial last chunk cannot be completed by a reference). Either
//! refused in one line naming the variable, before anything is written.

use std::collections::{HashMap, HashSet};

use icechunk::format::manifest::ChunkPayload;

use crate::error::{Error, Result};
use crate::formats::zarr::ZarrSource;
use crate::json::Json;
use crate::kerchunk::Virtual;
use crate::model::{DimRef, VarPath};
use crate::place::icechunk::{chunk_of, IcechunkStore};
use crate::store::{ListableStore, ReadableStore, StoreKey};

/// What of an array's `zarr.json` must agree for its chunks to be referenced.
fn storage_of(doc: &Json) -> String {
    ["data_type", "chunk_grid", "codecs"]
        .iter()
        .map(|k| doc.get(k).map(Json::to_text).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ")
}

fn doc_of(bytes: Option<Vec<u8>>, key: &StoreKey) -> Result<Json> {
    let bytes = bytes.ok_or_else(|| Error::metadata(key.clone(), "missing"))?;
    crate::json::parse(&bytes).map_err(|e| Error::metadata(key.clone(), e.to_string()))
}

/// Put the references (and the inlined chunks) of `v`, the new files, for the
/// variables of `source` (the repository, `old_len` long along `dim`) that grow along
/// it, into `store`'s session as chunks waiting for their grown documents. The
/// variables so handled, which the append then writes no values of.
///
/// # Errors
/// [`Error::Unsupported`] naming a variable whose storage differs from the files' or
/// whose last chunk along `dim` is partial; store errors.
pub(crate) fn add_references(
    store: &IcechunkStore,
    source: &ZarrSource,
    dim: &DimRef,
    old_len: u64,
    v: &Virtual,
) -> Result<HashSet<VarPath>> {
    let dataset = crate::source::DatasetSource::dataset(source);
    // Array key -> (variable, its axis along `dim`).
    let mut arrays: HashMap<String, (VarPath, usize)> = HashMap::new();
    for (path, var) in dataset.vars() {
        if let Some(axis) = var.dims.iter().position(|d| d == dim) {
            let key = crate::formats::zarr::array_key_of(&path)?;
            arrays.insert(key.to_string(), (path, axis));
        }
    }
    let array_of = |chunk_key: &str| -> Option<(String, &(VarPath, usize))> {
        let (path, _) = chunk_of(chunk_key)?;
        let key = path.as_str().trim_start_matches('/').to_string();
        arrays.get(&key).map(|a| (key, a))
    };
    // The variables whose new chunks are references: checked first, nothing set yet.
    let mut referenced: HashMap<String, u64> = HashMap::new();
    for (key, ..) in &v.ranges {
        let Some((array, (path, axis))) = array_of(key) else {
            continue;
        };
        if referenced.contains_key(&array) {
            continue;
        }
        let doc_key = StoreKey::new(&array)?.join("zarr.json")?;
        let theirs = storage_of(&doc_of(v.memory.get(&doc_key)?, &doc_key)?);
        let ours = storage_of(&doc_of(store.get(&doc_key)?, &doc_key)?);
        if theirs != ours {
            return Err(Error::Unsupported(format!(
                "variable '{path}': the files store it otherwise than the repository (data type, chunks or codecs: {theirs} against {ours}); --virtual adds references only to chunks stored alike (copy the values with --append alone)"
            )));
        }
        let (_, stored) = source.stored_array(path).ok_or_else(|| {
            Error::Unsupported(format!("variable '{path}': not stored as an array"))
        })?;
        let chunk = stored.chunks.get(*axis).copied().unwrap_or(1).max(1);
        if !old_len.is_multiple_of(chunk) {
            return Err(Error::Unsupported(format!(
                "variable '{path}': its last chunk along '{}' is partial ({old_len} is not a multiple of its chunk length {chunk}); references cannot complete it",
                dim.name
            )));
        }
        referenced.insert(array, old_len / chunk);
    }
    let shifted = |key: &str,
                   array: &str,
                   axis: usize|
     -> Option<(icechunk::format::Path, icechunk::format::ChunkIndices)> {
        let (path, mut coords) = chunk_of(key)?;
        let shift = referenced.get(array)?;
        let c = coords.0.get_mut(axis)?;
        *c = c.checked_add(u32::try_from(*shift).ok()?)?;
        Some((path, coords))
    };
    let files = crate::kerchunk::icechunk::FileRefs::of(v);
    let mut pending = Vec::new();
    for (key, file, offset, len) in &v.ranges {
        let Some((array, (_, axis))) = array_of(key) else {
            continue;
        };
        let Some((path, coords)) = shifted(key, &array, *axis) else {
            continue;
        };
        let chunk = files
            .chunk_ref(*file, *offset, *len)
            .map_err(Error::Unsupported)?;
        pending.push((path, coords, ChunkPayload::Virtual(chunk)));
    }
    // The chunks of referenced variables the files store otherwise, as encoded values.
    for (key, _) in v.memory.list()? {
        let k = key.as_str();
        let Some((array, (_, axis))) = array_of(k) else {
            continue;
        };
        if k.ends_with("zarr.json") || !referenced.contains_key(&array) {
            continue;
        }
        let Some((path, coords)) = shifted(k, &array, *axis) else {
            continue;
        };
        let bytes = v.memory.get(&key)?.unwrap_or_default();
        let payload = store.upload(&key, &bytes)?;
        pending.push((path, coords, payload));
    }
    store.add_pending(pending);
    Ok(arrays
        .into_iter()
        .filter(|(k, _)| referenced.contains_key(k))
        .map(|(_, (p, _))| p)
        .collect())
}
