//! The zmap: a small key/value store interface and its backends.
//!
//! Capability traits rather than one trait with stubs: every backend can read
//! ([`ReadableStore`]) and list ([`ListableStore`]); some can write ([`WritableStore`]).
//! A missing key is `Ok(None)`, never an error: in Zarr a missing chunk means "fill".
//!
//! Local backends: [`DirStore`] (a directory tree, plain `std::fs`), [`ZipStore`] (a zip
//! archive, entries read by offset), [`MemoryStore`] (tests), files read by range
//! ([`RangedFile`]). [`TracingStore`] wraps any store to report requests when
//! `NCTRACING` is set; a [`Target`] is a dataset being written, staged. The clouds' and
//! web servers' stores are in [`crate::cloud`]; [`crate::place`] picks a store for a name.

mod dir;
mod durable;
pub mod existing;
mod key;
mod memo;
mod memory;
mod range;
mod ranged;
mod replace;
mod target;
mod trace;
mod write;
mod zip;

#[cfg(test)]
pub(crate) mod conformance;

pub use dir::DirStore;
pub use durable::{durable, start_writeback};
pub use existing::{examine_file_path, examine_path, followed_metadata, is_netcdf_magic, Existing};
pub use key::{KeyError, StoreKey, MAX_KEY_BYTES};
pub use memo::MemoStore;
pub use memory::MemoryStore;
pub use range::{ByteRange, RangeError};
pub use ranged::{LocalFile, RangedFile, ReadAt, READ_AHEAD};
pub use replace::ReplacingDirStore;
pub use target::{Completion, Target};
pub use trace::{TraceSink, TracingStore};
pub use write::{Staged, ZipWriterStore};
pub use zip::ZipStore;

use std::fmt::Debug;

/// `Err(StoreError::Cancelled)` once [`crate::cancel::cancel`] was called: every write
/// checks it before a step that would be hard to undo.
pub(crate) fn check_cancelled() -> Result<(), StoreError> {
    if crate::cancel::is_cancelled() {
        Err(StoreError::Cancelled)
    } else {
        Ok(())
    }
}

/// An error from a store backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A key breaks a key rule.
    #[error(transparent)]
    InvalidKey(#[from] KeyError),
    /// The dataset itself does not exist.
    #[error("no such file or directory")]
    NotFound {
        /// Path or URL of the dataset.
        location: String,
    },
    /// An I/O error on a path.
    #[error("{location}: {source}")]
    Io {
        /// The file or directory.
        location: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// An archive (or remote dataset) that cannot be read.
    #[error("{message}")]
    Archive {
        /// The archive path.
        location: String,
        /// What is wrong with it.
        message: String,
    },
    /// A remote store's settings cannot be decided (profile, region, credentials,
    /// endpoint), or its client cannot be built from them: no request was made.
    #[error("{message}")]
    Settings {
        /// The URL of the dataset.
        location: String,
        /// What is missing or wrong.
        message: String,
    },
    /// A request to a remote store failed (refused, unreachable, not authorised).
    #[error("{location}: {message}")]
    Remote {
        /// The object or bucket, as `s3://bucket/key`.
        location: String,
        /// What the server said, or why it could not be reached.
        message: String,
    },
    /// A byte range that does not fit the stored value.
    #[error("key '{key}': {source}")]
    Range {
        /// The key.
        key: String,
        /// The range and the value's length.
        source: RangeError,
    },
    /// A write the backend cannot do.
    #[error("key '{key}': {message}")]
    Refused {
        /// The key.
        key: String,
        /// Why.
        message: String,
    },
    /// A reference file's reference that [`crate::reach`]'s rules refuse: nothing was
    /// requested from where it leads.
    #[error("key '{key}': {refusal}")]
    ReferenceRefused {
        /// The key whose reference it is (the first naming that file).
        key: String,
        /// The rule that refuses it (boxed: a rare error, kept out of every result's
        /// size).
        refusal: Box<crate::reach::Refusal>,
    },
    /// The run was asked to stop ([`crate::cancel::cancel`]) before this write.
    #[error("stopped before the dataset was complete")]
    Cancelled,
    /// A stored object is damaged.
    #[error("key '{key}': {message}")]
    Corrupt {
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// Result of one read: the bytes, or `None` if the key does not exist.
pub type GetResult = Result<Option<Vec<u8>>, StoreError>;

/// What [`ReadableStore::get_into`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum GotInto {
    /// The value, exactly as long as the buffer, is in it.
    Filled,
    /// The key does not exist; the buffer is untouched.
    Missing,
    /// A value of another length, returned as [`ReadableStore::get`] would; the buffer
    /// is untouched.
    Other(Vec<u8>),
}

/// A store whose values can be read.
pub trait ReadableStore: Send + Sync + Debug {
    /// Retrieve the value (bytes) associated with `key`.
    /// Returns [`None`] if the key is not found.
    ///
    /// # Errors
    /// [`StoreError`] when the backend fails (I/O error, damaged archive).
    fn get(&self, key: &StoreKey) -> GetResult;

    /// Read the value of `key` into `buf` when it is exactly `buf.len()` bytes long: a
    /// reader that knows how long a value must be (an uncompressed chunk) puts it where
    /// it goes, with no buffer of its own to allocate, fault in and copy out of.
    ///
    /// The default reads the value with [`ReadableStore::get`] and copies it; backends
    /// that read into a given buffer (a directory of files) override it.
    ///
    /// # Errors
    /// As [`ReadableStore::get`].
    fn get_into(&self, key: &StoreKey, buf: &mut [u8]) -> Result<GotInto, StoreError> {
        Ok(match self.get(key)? {
            None => GotInto::Missing,
            Some(value) if value.len() == buf.len() => {
                buf.copy_from_slice(&value);
                GotInto::Filled
            }
            Some(value) => GotInto::Other(value),
        })
    }

    /// Retrieve the bytes `range` selects of the value of `key` (HTTP's rules, see
    /// [`ByteRange`]). Returns [`None`] if the key is not found.
    ///
    /// The default reads the whole value and cuts it; backends that can read part of a
    /// value (a file, a stored zip entry, S3) override it.
    ///
    /// # Errors
    /// [`StoreError::Range`] when the range does not fit the value; backend errors.
    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        match self.get(key)? {
            Some(value) => Ok(Some(range_of(key, range, &value)?.to_vec())),
            None => Ok(None),
        }
    }

    /// Retrieve many values, results in the order of `keys`. Backends that can overlap
    /// requests override this; the default reads one after another.
    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        keys.iter().map(|k| self.get(k)).collect()
    }

    /// Retrieve parts of many values (as [`ReadableStore::get_range`]), results in the
    /// order of `requests`. Backends that can overlap requests override this.
    fn get_many_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Vec<GetResult> {
        requests.iter().map(|(k, r)| self.get_range(k, r)).collect()
    }

    /// The bytes `range` selects of the value of `key` and the value's whole length, or
    /// `None` when there is no such key: what opening a remote file needs first. The
    /// default asks for the size, then the range; remote backends do both in one
    /// request, whose answer to a range gives the object's length (`Content-Range`).
    ///
    /// # Errors
    /// As [`ReadableStore::get_range`] and [`ReadableStore::size`].
    fn get_range_sized(
        &self,
        key: &StoreKey,
        range: &ByteRange,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        let Some(len) = self.size(key)? else {
            return Ok(None);
        };
        let within = range.resolve(len).map_err(|e| StoreError::Range {
            key: key.to_string(),
            source: e,
        })?;
        Ok(self
            .get_range(key, &ByteRange::Bounded(within))?
            .map(|bytes| (bytes, len)))
    }

    /// The size in bytes of the value of `key`, or `None` when there is none. The
    /// default reads the value; remote backends ask for the size alone.
    ///
    /// # Errors
    /// Backend errors.
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        Ok(self.get(key)?.map(|v| v.len() as u64))
    }

    /// A short description of where the store is, for messages (`/data/x.zarr`).
    fn location(&self) -> String;

    /// True when a read costs about a system call (a local file, an archive, memory)
    /// rather than a request whose latency is worth hiding: a caller may then read keys
    /// one at a time on the threads that use them instead of gathering them into one
    /// [`ReadableStore::get_many`] first.
    fn reads_are_cheap(&self) -> bool {
        false
    }
}

/// A store whose keys can be listed.
pub trait ListableStore: Send + Sync {
    /// Every content-bearing key with its size in bytes, sorted by key.
    ///
    /// # Errors
    /// [`StoreError`] when the listing fails.
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError>;

    /// The names `n` such that `prefix/n` leads to content (the immediate children of
    /// `prefix`), sorted by byte order like netcdf-c's `nczmap_search`.
    ///
    /// # Errors
    /// [`StoreError`] when the listing fails.
    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError>;
}

/// A shared store reads as the store it shares (a writer and a reader of one memory
/// store, in tests).
impl<T: ReadableStore + ?Sized> ReadableStore for std::sync::Arc<T> {
    fn get(&self, key: &StoreKey) -> GetResult {
        (**self).get(key)
    }

    fn get_into(&self, key: &StoreKey, buf: &mut [u8]) -> Result<GotInto, StoreError> {
        (**self).get_into(key, buf)
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        (**self).get_range(key, range)
    }

    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        (**self).get_many(keys)
    }

    fn get_many_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Vec<GetResult> {
        (**self).get_many_ranges(requests)
    }

    fn get_range_sized(
        &self,
        key: &StoreKey,
        range: &ByteRange,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        (**self).get_range_sized(key, range)
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        (**self).size(key)
    }

    fn location(&self) -> String {
        (**self).location()
    }

    fn reads_are_cheap(&self) -> bool {
        (**self).reads_are_cheap()
    }
}

impl<T: ListableStore + ?Sized> ListableStore for std::sync::Arc<T> {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        (**self).list()
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        (**self).search(prefix)
    }
}

/// A store that can be written.
pub trait WritableStore: Send + Sync {
    /// Store `value` under `key`, replacing any previous value.
    ///
    /// # Errors
    /// [`StoreError`] when the backend fails.
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError>;

    /// Store many values; backends that can overlap requests override this.
    ///
    /// # Errors
    /// The first [`StoreError`].
    fn put_many(&self, items: &[(StoreKey, Vec<u8>)]) -> Result<(), StoreError> {
        items.iter().try_for_each(|(k, v)| self.put(k, v))
    }

    /// Make everything written durable and readable (close an archive).
    ///
    /// # Errors
    /// [`StoreError`] when the backend fails.
    fn finish(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Remove `key` (nothing happens when it does not exist).
    ///
    /// # Errors
    /// [`StoreError::Refused`] where values cannot be removed (a zip archive being
    /// written); backend errors.
    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        Err(StoreError::Refused {
            key: key.to_string(),
            message: "this store cannot remove values".into(),
        })
    }

    /// True when nothing written is seen by readers until one commit makes all of it
    /// visible at once (an Icechunk session): writers then need no record of their
    /// own to complete or undo a step a killed run left half done.
    fn transactional(&self) -> bool {
        false
    }

    /// Remove many keys; backends that can remove them in batches override this.
    ///
    /// # Errors
    /// As [`WritableStore::delete`].
    fn delete_many(&self, keys: &[StoreKey]) -> Result<(), StoreError> {
        keys.iter().try_for_each(|k| self.delete(k))
    }

    /// Copy each value `from` to `to` where the values are, without reading them here
    /// (an object store's server-side copy); false when this store cannot, and the
    /// caller reads and writes them.
    ///
    /// # Errors
    /// Backend errors; a missing `from`.
    fn copy_many(&self, pairs: &[(StoreKey, StoreKey)]) -> Result<bool, StoreError> {
        let _ = pairs;
        Ok(false)
    }
}

impl<T: WritableStore + ?Sized> WritableStore for std::sync::Arc<T> {
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        (**self).put(key, value)
    }

    fn put_many(&self, items: &[(StoreKey, Vec<u8>)]) -> Result<(), StoreError> {
        (**self).put_many(items)
    }

    fn finish(&self) -> Result<(), StoreError> {
        (**self).finish()
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        (**self).delete(key)
    }

    fn transactional(&self) -> bool {
        (**self).transactional()
    }

    fn delete_many(&self, keys: &[StoreKey]) -> Result<(), StoreError> {
        (**self).delete_many(keys)
    }

    fn copy_many(&self, pairs: &[(StoreKey, StoreKey)]) -> Result<bool, StoreError> {
        (**self).copy_many(pairs)
    }
}

/// A store that can be read and listed: what a dataset reader needs.
pub trait ReadStore: ReadableStore + ListableStore {}

impl<T: ReadableStore + ListableStore> ReadStore for T {}

/// The bytes `range` selects of `value`, the value of `key`.
pub(crate) fn range_of<'a>(
    key: &StoreKey,
    range: &ByteRange,
    value: &'a [u8],
) -> Result<&'a [u8], StoreError> {
    range.slice(value).map_err(|source| StoreError::Range {
        key: key.to_string(),
        source,
    })
}

/// Names of the immediate children of `prefix` among `keys` (shared by backends
/// that hold a flat key list).
pub(crate) fn children_of<'a>(
    keys: impl Iterator<Item = &'a StoreKey>,
    prefix: &StoreKey,
) -> Vec<String> {
    let mut names: Vec<String> = keys
        .filter_map(|k| k.strip_prefix(prefix))
        .filter(|rest| !rest.is_empty())
        .map(|rest| rest.split('/').next().unwrap_or(rest).to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}
