//! A file in memory for the tests of the readers of netCDF-4 files.

use std::sync::Mutex;

use crate::store::{ReadAt, StoreError};

/// A file in memory that counts its reads and records what it is asked to prefetch.
pub(super) struct Memory {
    bytes: Vec<u8>,
    reads: std::sync::atomic::AtomicUsize,
    /// Every read fails from now on, as a remote file's do when requests fail.
    failing: std::sync::atomic::AtomicBool,
    pub(super) prefetched: Mutex<Vec<Vec<(u64, u64)>>>,
}

impl Memory {
    pub(super) fn new(bytes: Vec<u8>) -> Memory {
        Memory {
            bytes,
            reads: Default::default(),
            failing: Default::default(),
            prefetched: Default::default(),
        }
    }

    pub(super) fn reads(&self) -> usize {
        self.reads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Make every read from now on fail with a store error.
    pub(super) fn fail_reads(&self) {
        self.failing
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl ReadAt for Memory {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), StoreError> {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if self.failing.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(StoreError::Io {
                location: "memory".into(),
                source: std::io::Error::other("connection reset"),
            });
        }
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
        self.prefetched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(ranges.to_vec());
        Ok(())
    }

    fn location(&self) -> String {
        "memory".into()
    }
}
