//! A store decorator that remembers every whole value it read (and every key it found
//! missing) and answers a second read from memory: a job that reads a dataset's
//! documents to open it and then again to change them (an attribute edit) pays one
//! request per document, not two, on a remote store.
//!
//! Only for short jobs on metadata: what is remembered is never forgotten, and a value
//! another writer changed since is not seen.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::{ByteRange, GetResult, ListableStore, ReadStore, ReadableStore, StoreError, StoreKey};

/// Wraps a store and remembers the values read whole.
#[derive(Debug)]
pub struct MemoStore {
    inner: Box<dyn ReadStore>,
    seen: Mutex<HashMap<StoreKey, Option<Vec<u8>>>>,
}

impl MemoStore {
    /// Wrap `inner`.
    pub fn new(inner: Box<dyn ReadStore>) -> MemoStore {
        MemoStore {
            inner,
            seen: Mutex::new(HashMap::new()),
        }
    }

    fn remembered(&self, key: &StoreKey) -> Option<Option<Vec<u8>>> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    fn remember(&self, key: &StoreKey, got: &GetResult) {
        if let Ok(value) = got {
            self.seen
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key.clone(), value.clone());
        }
    }
}

impl ReadableStore for MemoStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        if let Some(value) = self.remembered(key) {
            return Ok(value);
        }
        let got = self.inner.get(key);
        self.remember(key, &got);
        got
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        match self.remembered(key) {
            Some(Some(value)) => Ok(Some(super::range_of(key, range, &value)?.to_vec())),
            Some(None) => Ok(None),
            None => self.inner.get_range(key, range),
        }
    }

    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        let mut out: Vec<Option<GetResult>> =
            keys.iter().map(|k| self.remembered(k).map(Ok)).collect();
        let unknown: Vec<StoreKey> = keys
            .iter()
            .zip(&out)
            .filter(|(_, o)| o.is_none())
            .map(|(k, _)| k.clone())
            .collect();
        let mut fetched = self.inner.get_many(&unknown).into_iter();
        for (key, slot) in keys.iter().zip(out.iter_mut()) {
            if slot.is_none() {
                let got = fetched.next().unwrap_or(Ok(None));
                self.remember(key, &got);
                *slot = Some(got);
            }
        }
        out.into_iter().map(|o| o.unwrap_or(Ok(None))).collect()
    }

    fn get_many_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Vec<GetResult> {
        self.inner.get_many_ranges(requests)
    }

    fn get_range_sized(
        &self,
        key: &StoreKey,
        range: &ByteRange,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        self.inner.get_range_sized(key, range)
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        match self.remembered(key) {
            Some(value) => Ok(value.map(|v| v.len() as u64)),
            None => self.inner.size(key),
        }
    }

    fn location(&self) -> String {
        self.inner.location()
    }

    fn reads_are_cheap(&self) -> bool {
        self.inner.reads_are_cheap()
    }
}

impl ListableStore for MemoStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        self.inner.list()
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        self.inner.search(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryStore, WritableStore};
    use std::sync::Arc;

    #[test]
    fn a_second_read_is_answered_from_memory() {
        let backing = Arc::new(MemoryStore::new());
        let key = StoreKey::new("a/.zattrs").unwrap();
        let gone = StoreKey::new("b/.zattrs").unwrap();
        backing.put(&key, b"{}").unwrap();
        let memo = MemoStore::new(Box::new(backing.clone()));
        assert_eq!(memo.get(&key).unwrap().as_deref(), Some(&b"{}"[..]));
        assert_eq!(
            memo.get_many(std::slice::from_ref(&gone))[0]
                .as_ref()
                .unwrap(),
            &None
        );
        // Changed behind its back: the memo still answers what it read.
        backing.put(&key, b"{\"x\": 1}").unwrap();
        backing.put(&gone, b"{}").unwrap();
        let again = memo.get_many(&[key.clone(), gone.clone()]);
        assert_eq!(again[0].as_ref().unwrap().as_deref(), Some(&b"{}"[..]));
        assert_eq!(again[1].as_ref().unwrap(), &None);
        assert_eq!(memo.size(&key).unwrap(), Some(2));
        assert_eq!(
            memo.get_range(&key, &ByteRange::Bounded(0..1))
                .unwrap()
                .as_deref(),
            Some(&b"{"[..])
        );
    }
}
