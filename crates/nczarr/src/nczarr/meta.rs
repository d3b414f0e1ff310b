//! Metadata documents: from `.zmetadata` when the store has one, else from the store,
//! fetched in batches so that remote stores need few round trips.

use crate::error::{Error, Result};
use crate::json::{self, Json};
use crate::store::{ReadStore, StoreKey, TraceSink};
use crate::zarr::Consolidated;

/// Reads and parses metadata documents.
pub(crate) struct MetaSource<'s> {
    pub(crate) store: &'s dyn ReadStore,
    consolidated: Option<Consolidated>,
    /// True when the store has a `.zmetadata`, usable or not.
    zmetadata_found: bool,
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

    /// As [`MetaSource::docs`] for any number of keys.
    pub(crate) fn docs_vec(&self, keys: &[StoreKey]) -> Result<Vec<Option<Json>>> {
        let mut out: Vec<Option<Json>> = vec![None; keys.len()];
        let mut missing = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            match self.consolidated.as_ref() {
                // Consolidated metadata is authoritative for Zarr documents; NCZarr V1
                // objects are never consolidated, so those still come from the store.
                Some(c) if !k.name().starts_with(".ncz") => out[i] = c.get(k.as_str()).cloned(),
                _ => missing.push(i),
            }
        }
        if !missing.is_empty() {
            let fetch: Vec<StoreKey> = missing.iter().map(|&i| keys[i].clone()).collect();
            for (i, got) in missing.into_iter().zip(self.store.get_many(&fetch)) {
                if let Some(bytes) = got? {
                    let doc = json::parse(&bytes).map_err(|error| Error::Json {
                        key: keys[i].to_string(),
                        error,
                    })?;
                    out[i] = Some(doc);
                }
            }
        }
        Ok(out)
    }
}
