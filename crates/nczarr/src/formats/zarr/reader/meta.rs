//! Metadata documents: from `.zmetadata` when the store has one, else from the store,
//! fetched in batches so that remote stores need few round trips.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::formats::zarr::v2::Consolidated;
use crate::json::{self, Json};
use crate::store::{GetResult, ReadStore, StoreKey, TraceSink};

/// Reads and parses metadata documents.
pub(crate) struct MetaSource<'s> {
    pub(crate) store: &'s dyn ReadStore,
    consolidated: Option<Consolidated>,
    /// True when the store has a `.zmetadata`, usable or not.
    zmetadata_found: bool,
    /// Documents fetched ahead of the walk (see [`MetaSource::prefetch`]), each given
    /// out once, with the error its parse met if any. Behind a lock only so that the
    /// source can be shared with the threads that read variables' documents.
    prefetched: Mutex<HashMap<StoreKey, Result<Option<Json>>>>,
}

impl<'s> MetaSource<'s> {
    /// Look for `.zmetadata` and remember it when usable.
    pub(crate) fn open(
        store: &'s dyn ReadStore,
        trace: Option<TraceSink>,
    ) -> Result<MetaSource<'s>> {
        let key = StoreKey::new(".zmetadata")?;
        let found = store.get(&key)?;
        let zmetadata_found = found.is_some();
        let consolidated = match found {
            Some(bytes) => {
                let doc = json::parse(&bytes).map_err(|error| Error::Json {
                    key: key.to_string(),
                    error,
                })?;
                let c = Consolidated::from_json(&doc);
                if let Some(t) = &trace {
                    t(if c.is_some() {
                        "using consolidated metadata (.zmetadata)"
                    } else {
                        "ignoring unusable .zmetadata"
                    });
                }
                c
            }
            None => None,
        };
        Ok(MetaSource {
            store,
            consolidated,
            zmetadata_found,
            prefetched: Mutex::new(HashMap::new()),
        })
    }

    /// True when the store has a `.zmetadata` object, usable or not.
    pub(crate) fn zmetadata_found(&self) -> bool {
        self.zmetadata_found
    }

    /// True when documents come from `.zmetadata`.
    pub(crate) fn is_consolidated(&self) -> bool {
        self.consolidated.is_some()
    }

    /// The keys `.zmetadata` lists, if consolidated.
    pub(crate) fn consolidated_keys(&self) -> Option<Vec<String>> {
        self.consolidated
            .as_ref()
            .map(|c| c.keys().map(str::to_string).collect())
    }

    /// Fetch and parse documents; `None` for missing keys. One batch request for
    /// whatever `.zmetadata` does not hold.
    pub(crate) fn docs<const N: usize>(&self, keys: &[StoreKey; N]) -> Result<[Option<Json>; N]> {
        let v = self.docs_vec(keys)?;
        Ok(v.try_into()
            .unwrap_or_else(|_| std::array::from_fn(|_| None)))
    }

    /// As [`MetaSource::docs_vec`], each document's own result: a damaged one does
    /// not hide the others.
    pub(crate) fn each_doc(&self, keys: &[StoreKey]) -> Vec<Result<Option<Json>>> {
        let mut out: Vec<Option<Result<Option<Json>>>> = (0..keys.len()).map(|_| None).collect();
        let mut missing = Vec::new();
        {
            let mut prefetched = self
                .prefetched
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            for (i, k) in keys.iter().enumerate() {
                match prefetched.remove(k) {
                    Some(doc) => out[i] = Some(doc),
                    None => missing.push(i),
                }
            }
        }
        let fetch: Vec<StoreKey> = missing.iter().map(|&i| keys[i].clone()).collect();
        for (i, doc) in missing.into_iter().zip(self.fetch(&fetch)) {
            out[i] = Some(doc);
        }
        out.into_iter().map(|d| d.unwrap_or(Ok(None))).collect()
    }

    /// As [`MetaSource::docs`] for any number of keys.
    pub(crate) fn docs_vec(&self, keys: &[StoreKey]) -> Result<Vec<Option<Json>>> {
        self.each_doc(keys).into_iter().collect()
    }

    /// Fetch documents the walk will ask for soon, in one batch with others: a
    /// group's children are read one after another, but all their documents can be
    /// fetched (and parsed) at once. Errors wait until the document is asked for.
    pub(crate) fn prefetch(&self, keys: Vec<StoreKey>) {
        let docs = self.fetch(&keys);
        self.prefetched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(keys.into_iter().zip(docs));
    }

    /// Documents of `keys` from `.zmetadata` or from the store in one batch, parsed
    /// in parallel.
    fn fetch(&self, keys: &[StoreKey]) -> Vec<Result<Option<Json>>> {
        let raw = self.fetch_raw(keys);
        let parse = |(key, raw): (&StoreKey, Result<RawDoc>)| parse_raw(key, raw);
        // Small batches are not worth handing to other threads.
        if raw.len() >= PARALLEL_BATCH {
            keys.par_iter()
                .zip(raw.into_par_iter())
                .map(parse)
                .collect()
        } else {
            keys.iter().zip(raw).map(parse).collect()
        }
    }

    /// The store's reads of the documents `keys`. A few from a store whose reads are
    /// cheap are read on this thread: a document is a few microseconds to read, less
    /// than handing the format probe's five keys (or a variable's documents, read by a
    /// thread already at work) to other threads and waiting for them. Chunks, large,
    /// keep the store's own batches.
    fn read(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        if self.store.reads_are_cheap() && keys.len() < PARALLEL_BATCH {
            keys.iter().map(|k| self.store.get(k)).collect()
        } else {
            self.store.get_many(keys)
        }
    }

    /// Documents of `keys` as fetched, not yet parsed: from `.zmetadata` when it holds
    /// them, else from the store in one batch (concurrent requests on a remote store).
    pub(crate) fn fetch_raw(&self, keys: &[StoreKey]) -> Vec<Result<RawDoc>> {
        let as_raw = |got: GetResult| {
            got.map(|b| b.map_or(RawDoc::Missing, RawDoc::Bytes))
                .map_err(Error::from)
        };
        if self.consolidated.is_none() {
            // Every document from the store: the keys as given, not copied into a batch
            // of their own (a header dump asks for each variable's documents apart).
            return self.read(keys).into_iter().map(as_raw).collect();
        }
        let mut out: Vec<Result<RawDoc>> = Vec::with_capacity(keys.len());
        let mut missing = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            match self.consolidated.as_ref() {
                // Consolidated metadata is authoritative for Zarr documents; NCZarr V1
                // objects are never consolidated, so those still come from the store.
                Some(c) if !k.name().starts_with(".ncz") => out.push(Ok(c
                    .get(k.as_str())
                    .map_or(RawDoc::Missing, |d| RawDoc::Parsed(d.clone())))),
                _ => {
                    missing.push(i);
                    out.push(Ok(RawDoc::Missing));
                }
            }
        }
        if missing.is_empty() {
            return out;
        }
        let fetch: Vec<StoreKey> = missing.iter().map(|&i| keys[i].clone()).collect();
        for (i, got) in missing.into_iter().zip(self.read(&fetch)) {
            out[i] = as_raw(got);
        }
        out
    }
}

/// Batches at least this long are parsed (and built) on every core.
pub(crate) const PARALLEL_BATCH: usize = 32;

/// A document as fetched.
#[derive(Default)]
pub(crate) enum RawDoc {
    #[default]
    Missing,
    /// Read from the store, to be parsed.
    Bytes(Vec<u8>),
    /// From `.zmetadata`, parsed already.
    Parsed(Json),
}

/// The document `key` fetched as `raw`, parsed; `None` when missing.
pub(crate) fn parse_raw(key: &StoreKey, raw: Result<RawDoc>) -> Result<Option<Json>> {
    match raw? {
        RawDoc::Missing => Ok(None),
        RawDoc::Parsed(doc) => Ok(Some(doc)),
        RawDoc::Bytes(bytes) => json::parse(&bytes).map(Some).map_err(|error| Error::Json {
            key: key.to_string(),
            error,
        }),
    }
}
