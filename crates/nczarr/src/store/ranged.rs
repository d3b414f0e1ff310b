//! A file read by position, wherever it is: on a local disk, or whole in one object of
//! a store (S3, a web server) read by byte ranges, as netcdf-c's `#mode=bytes` reads
//! it. The netCDF file readers read through [`ReadAt`] and never know which.
//!
//! A remote file is read through a cache of fetched extents: a small read that misses
//! fetches at least [`READ_AHEAD`] bytes, so the many small reads of a netCDF header or
//! of HDF5's object headers and B-trees become a few requests; readers that know what
//! they will read next (the chunks of a region, the runs of a hyperslab) say so with
//! [`ReadAt::prefetch`], which fetches them all at once, concurrently.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use super::{ByteRange, ReadStore, StoreError, StoreKey};

/// A file read by position.
pub trait ReadAt: Send + Sync {
    /// The file's length in bytes.
    fn len(&self) -> u64;

    /// True for an empty file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fill `buf` with the bytes from `offset` on.
    ///
    /// # Errors
    /// [`StoreError`] when the bytes cannot be read (past the end, I/O, a request).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), StoreError>;

    /// The byte ranges `(offset, len)` about to be read: a remote file fetches them
    /// now, concurrently. A local file ignores the hint.
    ///
    /// # Errors
    /// As [`ReadAt::read_at`].
    fn prefetch(&self, ranges: &[(u64, u64)]) -> Result<(), StoreError> {
        let _ = ranges;
        Ok(())
    }

    /// Where the file is, for messages.
    fn location(&self) -> String;
}

/// A local file.
pub struct LocalFile {
    file: File,
    len: u64,
    path: String,
    /// Its first [`HEAD_BYTES`], read at the first read that falls in them (`None`
    /// when that read failed: each read is then its own).
    head: std::sync::OnceLock<Option<Box<[u8]>>>,
}

/// Reads that fall in this many bytes at the start of a local file are answered from
/// one read of them: HDF5's readers parse a netCDF-4 file's object headers in many
/// small reads (a daily file of netCDF4-python: 88 reads of its first 12 KiB, a fifth
/// of the time to open it), and its metadata mostly sits there.
const HEAD_BYTES: u64 = 16 << 10;

impl LocalFile {
    /// Open the file at `path`.
    ///
    /// # Errors
    /// [`StoreError::Io`] when it cannot be opened.
    pub fn open(path: &Path) -> Result<LocalFile, StoreError> {
        let io = |source| StoreError::Io {
            location: path.display().to_string(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        Ok(LocalFile {
            file,
            len,
            path: path.display().to_string(),
            head: std::sync::OnceLock::new(),
        })
    }

    /// The file's first bytes, read once.
    fn head(&self) -> Option<&[u8]> {
        self.head
            .get_or_init(|| {
                let mut head = vec![0u8; self.len.min(HEAD_BYTES) as usize];
                self.file
                    .read_exact_at(&mut head, 0)
                    .ok()
                    .map(|()| head.into_boxed_slice())
            })
            .as_deref()
    }
}

impl ReadAt for LocalFile {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), StoreError> {
        let end = offset.saturating_add(buf.len() as u64);
        if end <= HEAD_BYTES.min(self.len) {
            if let Some(head) = self.head() {
                buf.copy_from_slice(&head[offset as usize..end as usize]);
                return Ok(());
            }
        }
        self.file
            .read_exact_at(buf, offset)
            .map_err(|source| StoreError::Io {
                location: self.path.clone(),
                source,
            })
    }

    fn location(&self) -> String {
        self.path.clone()
    }
}

/// A small read that misses the cache fetches at least this much (from where it starts).
pub const READ_AHEAD: u64 = 1 << 20;

/// Bytes of fetched extents kept: beside the readers' own bounds, what a remote file
/// adds to memory.
const CACHE_BYTES: u64 = 64 << 20;

/// Prefetched ranges closer than this are fetched as one request.
const MERGE_GAP: u64 = 256 << 10;

/// The largest request a merge of prefetched ranges makes.
const MAX_MERGED: u64 = 16 << 20;

/// Extents fetched, by where they start; the oldest is dropped first.
#[derive(Default)]
struct Extents {
    by_start: BTreeMap<u64, Arc<Vec<u8>>>,
    order: VecDeque<u64>,
    bytes: u64,
}

impl Extents {
    /// The extent holding all of `offset..offset + len`.
    fn covering(&self, offset: u64, len: u64) -> Option<(u64, Arc<Vec<u8>>)> {
        let (&start, data) = self.by_start.range(..=offset).next_back()?;
        (start + data.len() as u64 >= offset + len).then(|| (start, Arc::clone(data)))
    }

    fn insert(&mut self, start: u64, data: Arc<Vec<u8>>) {
        let n = data.len() as u64;
        if let Some(old) = self.by_start.insert(start, data) {
            self.bytes -= old.len() as u64;
            self.order.retain(|&s| s != start);
        }
        self.order.push_back(start);
        self.bytes += n;
        while self.bytes > CACHE_BYTES && self.order.len() > 1 {
            if let Some(s) = self.order.pop_front() {
                if let Some(old) = self.by_start.remove(&s) {
                    self.bytes -= old.len() as u64;
                }
            }
        }
    }
}

/// A file that is one object of a store (the store's root key), read by byte ranges.
pub struct RangedFile {
    store: Box<dyn ReadStore>,
    key: StoreKey,
    len: u64,
    extents: Mutex<Extents>,
}

impl RangedFile {
    /// The object at `store`'s root as a file of `len` bytes (the store is rooted at
    /// the object: an S3 store at the object's key, an HTTP store at its URL).
    pub fn new(store: Box<dyn ReadStore>, len: u64) -> RangedFile {
        RangedFile {
            store,
            key: StoreKey::root(),
            len,
            extents: Mutex::new(Extents::default()),
        }
    }

    /// [`RangedFile::new`], with the file's first bytes already read (`head`: the
    /// first `READ_AHEAD` bytes, or all of a shorter file; anything else is not kept).
    pub fn with_head(store: Box<dyn ReadStore>, len: u64, head: Vec<u8>) -> RangedFile {
        let file = RangedFile::new(store, len);
        if !head.is_empty() && head.len() as u64 == len.min(READ_AHEAD) {
            file.extents().insert(0, Arc::new(head));
        }
        file
    }

    fn extents(&self) -> std::sync::MutexGuard<'_, Extents> {
        self.extents.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What a request for `start..end` answered, checked to be all of it.
    fn checked(
        &self,
        start: u64,
        end: u64,
        got: Result<Option<Vec<u8>>, StoreError>,
    ) -> Result<Vec<u8>, StoreError> {
        let bytes = got?.ok_or_else(|| StoreError::NotFound {
            location: self.store.location(),
        })?;
        if bytes.len() as u64 != end - start {
            return Err(StoreError::Corrupt {
                key: self.store.location(),
                message: format!(
                    "asked for bytes {start}..{end}, the server sent {} bytes (has the file changed?)",
                    bytes.len()
                ),
            });
        }
        Ok(bytes)
    }

    fn past_end(&self, offset: u64, len: u64) -> StoreError {
        StoreError::Corrupt {
            key: self.store.location(),
            message: format!(
                "bytes {offset}..{} are past the end of the file ({} bytes)",
                offset.saturating_add(len),
                self.len
            ),
        }
    }
}

impl ReadAt for RangedFile {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), StoreError> {
        let len = buf.len() as u64;
        if len == 0 {
            return Ok(());
        }
        let end = offset
            .checked_add(len)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| self.past_end(offset, len))?;
        if let Some((start, data)) = self.extents().covering(offset, len) {
            let at = (offset - start) as usize;
            buf.copy_from_slice(&data[at..at + buf.len()]);
            return Ok(());
        }
        // A miss: fetch at least READ_AHEAD bytes, so that the reads that follow (a
        // header's next object, the next record) are answered from this one. Near the
        // end of the file the bytes fetched are the last READ_AHEAD: writers that
        // stream the data first put the metadata there, and read backwards from its
        // last object it took a request per object (three of a point read's six).
        let start = offset.min(self.len.saturating_sub(READ_AHEAD));
        let fetch_end = end.max(start.saturating_add(READ_AHEAD)).min(self.len);
        let got = self
            .store
            .get_range(&self.key, &ByteRange::Bounded(start..fetch_end));
        let data = self.checked(start, fetch_end, got)?;
        let at = (offset - start) as usize;
        buf.copy_from_slice(&data[at..at + buf.len()]);
        // A large read is the caller's to keep; the cache holds what reads share.
        if data.len() as u64 <= CACHE_BYTES / 4 {
            self.extents().insert(start, Arc::new(data));
        }
        Ok(())
    }

    fn prefetch(&self, ranges: &[(u64, u64)]) -> Result<(), StoreError> {
        let mut wanted: Vec<(u64, u64)> = {
            let extents = self.extents();
            ranges
                .iter()
                .filter(|&&(o, n)| n > 0 && o.saturating_add(n) <= self.len)
                .filter(|&&(o, n)| extents.covering(o, n).is_none())
                .map(|&(o, n)| (o, o + n))
                .collect()
        };
        wanted.sort_unstable();
        // Neighbours become one request; the bytes between them cost less than a
        // round trip.
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (s, e) in wanted {
            match merged.last_mut() {
                Some(last) if s <= last.1.saturating_add(MERGE_GAP) && e - last.0 <= MAX_MERGED => {
                    last.1 = last.1.max(e);
                }
                _ => merged.push((s, e)),
            }
        }
        // No more than half the cache: what is fetched must stay until it is read (the
        // rest is read on demand).
        let mut batch = Vec::new();
        let mut batch_bytes = 0u64;
        for r in merged {
            if batch_bytes + (r.1 - r.0) > CACHE_BYTES / 2 {
                break;
            }
            batch_bytes += r.1 - r.0;
            batch.push(r);
        }
        let requests: Vec<(StoreKey, ByteRange)> = batch
            .iter()
            .map(|&(s, e)| (self.key.clone(), ByteRange::Bounded(s..e)))
            .collect();
        let results = self.store.get_many_ranges(&requests);
        for (&(s, e), got) in batch.iter().zip(results) {
            let data = self.checked(s, e, got)?;
            self.extents().insert(s, Arc::new(data));
        }
        Ok(())
    }

    fn location(&self) -> String {
        self.store.location()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ReadableStore;

    /// Reads in the head, across its end, past it and past the file's end give the
    /// file's bytes or an error, as positional reads do.
    #[test]
    fn local_reads_in_and_past_the_head_give_the_files_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        for len in [10usize, HEAD_BYTES as usize + 1000] {
            let path = tmp.path().join(format!("f{len}"));
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            let file = LocalFile::open(&path).unwrap();
            for (at, n) in [
                (0, 4),
                (3, 7),
                (len - 5, 5),
                (len / 2, len / 2 - 1),
                (0, len),
            ] {
                let mut buf = vec![0u8; n];
                file.read_at(at as u64, &mut buf).unwrap();
                assert_eq!(buf, bytes[at..at + n], "{len}: {at}+{n}");
            }
            let mut past = vec![0u8; 4];
            assert!(file.read_at(len as u64 - 2, &mut past).is_err());
        }
    }

    /// A remote file: its first bytes and its length in one request, the metadata
    /// objects at its end (read backwards) in one more, each read its file's bytes.
    #[test]
    fn remote_reads_take_the_head_and_the_tail_in_a_request_each() {
        let len = 3 * READ_AHEAD as usize + 12_345;
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 253) as u8).collect();
        let memory = crate::store::MemoryStore::new();
        memory.insert(StoreKey::root(), bytes.clone());
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = Arc::clone(&lines);
        let traced = crate::store::TracingStore::new(
            Box::new(memory),
            Arc::new(move |l: &str| seen.lock().unwrap().push(l.to_string())),
        );
        let (head, n) = traced
            .get_range_sized(&StoreKey::root(), &ByteRange::Bounded(0..READ_AHEAD))
            .unwrap()
            .unwrap();
        assert_eq!((head.len(), n), (READ_AHEAD as usize, len as u64));
        let file = RangedFile::with_head(Box::new(traced), n, head);
        let requests = || lines.lock().unwrap().len();
        let before = requests();
        let read = |at: usize, n: usize| {
            let mut buf = vec![0u8; n];
            file.read_at(at as u64, &mut buf).unwrap();
            assert_eq!(buf, bytes[at..at + n], "{at}+{n}");
        };
        read(0, 8);
        read(1000, 50_000);
        assert_eq!(requests(), before, "the head was read with the length");
        for (at, n) in [(len - 276, 276), (len - 2196, 1920), (len - 46_020, 43_824)] {
            read(at, n);
        }
        assert_eq!(requests(), before + 1, "the tail in one request");
        read(len / 2, 10);
        assert_eq!(requests(), before + 2);
        // A short head (not the first READ_AHEAD bytes) is not kept: reads stay right.
        let memory = crate::store::MemoryStore::new();
        memory.insert(StoreKey::root(), bytes.clone());
        let file = RangedFile::with_head(Box::new(memory), len as u64, bytes[..10].to_vec());
        let mut buf = vec![0u8; 100];
        file.read_at(5, &mut buf).unwrap();
        assert_eq!(buf, bytes[5..105]);
    }
}
