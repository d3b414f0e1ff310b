//! A file in memory for the tests of the readers of netCDF-4 files.

use std::sync::Mutex;

use super::heap::lock;
use crate::store::{ReadAt, StoreError};

/// A file in memory that counts its reads and records what it is asked to prefetch.
pub(super) struct Memory {
    bytes: Vec<u8>,
    reads: std::sync::atomic::AtomicUsize,
    pub(super) prefetched: Mutex<Vec<Vec<(u64, u64)>>>,
}

impl Memory {
    pub(super) fn new(bytes: Vec<u8>) -> Memory {
        Memory {
            bytes,
            reads: Default::default(),
            prefetched: Default::default(),
        }
    }

    pub(super) fn reads(&self) -> usize {
        self.reads.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl ReadAt for Memory {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), StoreError> {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let at = offset as usize;
        let b = self
            .bytes
            .get(at..at + buf.len())
            .ok_or(StoreError::NotFound {
                location: format!("{offset}"),
            })?;
        buf.copy_from_slice(b);
        Ok(())
    }

    fn prefetch(&self, ranges: &[(u64, u64)]) -> std::result::Result<(), StoreError> {
        lock(&self.prefetched).push(ranges.to_vec());
        Ok(())
    }

    fn location(&self) -> String {
        "memory".into()
    }
}
