//! An in-memory store, for tests and for building datasets before writing them.

use std::collections::BTreeMap;
use std::sync::RwLock;

use super::{
    children_of, range_of, ByteRange, GetResult, ListableStore, ReadableStore, StoreError, StoreKey,
};

/// Keys and values held in memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: RwLock<BTreeMap<StoreKey, Vec<u8>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// Store `value` under `key`, replacing any previous value.
    pub fn insert(&self, key: StoreKey, value: Vec<u8>) {
        self.map
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, value);
    }

    /// Store `value` under the key text `key`.
    ///
    /// # Errors
    /// When `key` breaks a key rule.
    pub fn insert_str(&self, key: &str, value: impl Into<Vec<u8>>) -> Result<(), StoreError> {
        self.insert(StoreKey::new(key)?, value.into());
        Ok(())
    }

    /// Remove `key`.
    pub fn remove(&self, key: &StoreKey) {
        self.map
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(key);
    }
}

impl ReadableStore for MemoryStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        Ok(self
            .map
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key)
            .cloned())
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        let map = self
            .map
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match map.get(key) {
            Some(value) => Ok(Some(range_of(key, range, value)?.to_vec())),
            None => Ok(None),
        }
    }

    fn location(&self) -> String {
        "memory".to_string()
    }

    fn reads_are_cheap(&self) -> bool {
        true
    }
}

impl ListableStore for MemoryStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        let map = self
            .map
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(map
            .iter()
            .map(|(k, v)| (k.clone(), v.len() as u64))
            .collect())
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        let map = self
            .map
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(children_of(map.keys(), prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conformance() {
        let s = MemoryStore::new();
        for (k, v) in super::super::conformance::FIXTURE {
            s.insert_str(k, *v).unwrap();
        }
        super::super::conformance::check_read_store(&s);
    }
}
