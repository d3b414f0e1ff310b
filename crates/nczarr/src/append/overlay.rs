//! A store read as it will be once some of its documents are replaced: an append
//! opens the dataset through it before writing them, to check that every reader's
//! path (consolidated metadata or the documents themselves) will see the new length.

use std::collections::HashMap;
use std::sync::Arc;

use crate::store::{
    ByteRange, GetResult, ListableStore, ReadStore, ReadableStore, StoreError, StoreKey,
};

/// `base` with the documents of `docs` replaced (`None`: as if absent).
#[derive(Debug)]
pub(super) struct Overlay {
    pub base: Arc<dyn ReadStore>,
    pub docs: HashMap<StoreKey, Option<Vec<u8>>>,
}

impl ReadableStore for Overlay {
    fn get(&self, key: &StoreKey) -> GetResult {
        match self.docs.get(key) {
            Some(doc) => Ok(doc.clone()),
            None => self.base.get(key),
        }
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        match self.docs.get(key) {
            Some(Some(doc)) => Ok(Some(crate::store::range_of(key, range, doc)?.to_vec())),
            Some(None) => Ok(None),
            None => self.base.get_range(key, range),
        }
    }

    fn location(&self) -> String {
        self.base.location()
    }

    fn reads_are_cheap(&self) -> bool {
        self.base.reads_are_cheap()
    }
}

impl ListableStore for Overlay {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        let mut keys = self.base.list()?;
        keys.retain(|(k, _)| !matches!(self.docs.get(k), Some(None)));
        for (k, size) in &mut keys {
            if let Some(Some(doc)) = self.docs.get(k) {
                *size = doc.len() as u64;
            }
        }
        Ok(keys)
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        let mut names = self.base.search(prefix)?;
        names.retain(|n| {
            prefix
                .join(n)
                .map_or(true, |k| !matches!(self.docs.get(&k), Some(None)))
        });
        Ok(names)
    }
}
