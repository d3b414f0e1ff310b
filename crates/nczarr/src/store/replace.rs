//! A directory store whose every write replaces its file at once: the new bytes go to
//! a temporary file beside it, which is renamed over the old one. What an append
//! writes into a dataset in place (the partial last chunk, metadata documents) is
//! then seen whole or not at all, by a reader now and after a crash.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::durable::{durable, start_writeback, sync_path};
use super::{DirStore, StoreError, StoreKey, WritableStore};

/// A [`DirStore`] written by replacing files (see the module's note). With
/// [`durable`], each file's data is on disk before its rename, and
/// [`WritableStore::finish`] syncs the directories whose entries changed.
#[derive(Debug)]
pub struct ReplacingDirStore {
    dir: DirStore,
    /// Directories whose entries were renamed into (synced by `finish`).
    touched: Mutex<BTreeSet<PathBuf>>,
}

impl ReplacingDirStore {
    /// A replacing writer of the dataset at `root` (an existing directory).
    pub fn new(root: &Path) -> ReplacingDirStore {
        ReplacingDirStore {
            dir: DirStore::at(root),
            touched: Mutex::new(BTreeSet::new()),
        }
    }

    /// Where `path`'s new bytes are written before the rename: hidden, and the same
    /// name in every run, so that what a killed run left is written over and renamed
    /// by the next one that writes `path` (appends to one dataset run one at a time).
    fn temp_of(path: &Path) -> PathBuf {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        path.with_file_name(format!(".{name}.append"))
    }

    /// Write `value` to the temporary file of `path` (its directory made when
    /// missing), writeback started.
    fn write_temp(path: &Path, value: &[u8]) -> Result<(PathBuf, fs::File), StoreError> {
        let temp = Self::temp_of(path);
        let io = |source| StoreError::Io {
            location: temp.display().to_string(),
            source,
        };
        let mut f = match fs::File::create(&temp) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(parent) = temp.parent() {
                    fs::create_dir_all(parent).map_err(io)?;
                }
                fs::File::create(&temp).map_err(io)?
            }
            other => other.map_err(io)?,
        };
        f.write_all(value).map_err(io)?;
        start_writeback(&f);
        Ok((temp, f))
    }

    /// Replace the files of `items`: all written first (their writeback overlapping),
    /// then each made durable and renamed into place. On an error the temporary files
    /// not yet renamed are removed.
    fn replace(&self, items: &[(&StoreKey, &[u8])]) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        let mut written: Vec<(PathBuf, PathBuf, fs::File)> = Vec::with_capacity(items.len());
        let result = (|| {
            for (key, value) in items {
                let path = self.dir.path_of(key);
                let (temp, file) = Self::write_temp(&path, value)?;
                written.push((path, temp, file));
            }
            crate::store::check_cancelled()?;
            while let Some((path, temp, file)) = written.pop() {
                let io = |p: &Path, source| StoreError::Io {
                    location: p.display().to_string(),
                    source,
                };
                if durable() {
                    file.sync_data().map_err(|e| io(&temp, e))?;
                }
                drop(file);
                if let Err(e) = fs::rename(&temp, &path) {
                    let _ = fs::remove_file(&temp);
                    return Err(io(&path, e));
                }
                if let (Some(parent), Ok(mut t)) = (path.parent(), self.touched.lock()) {
                    t.insert(parent.to_path_buf());
                }
            }
            Ok(())
        })();
        for (_, temp, _) in written {
            let _ = fs::remove_file(temp);
        }
        result
    }
}

impl WritableStore for ReplacingDirStore {
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        self.replace(&[(key, value)])
    }

    fn put_many(&self, items: &[(StoreKey, Vec<u8>)]) -> Result<(), StoreError> {
        let items: Vec<(&StoreKey, &[u8])> = items.iter().map(|(k, v)| (k, &v[..])).collect();
        self.replace(&items)
    }

    /// The renames are entries of their directories: synced here, once each.
    fn finish(&self) -> Result<(), StoreError> {
        if !durable() {
            return Ok(());
        }
        let dirs = match self.touched.lock() {
            Ok(mut t) => std::mem::take(&mut *t),
            Err(_) => BTreeSet::new(),
        };
        dirs.iter().try_for_each(|d| sync_path(d))
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.dir.delete(key)
    }

    /// Hard links (a copy where the file system has none): no byte is copied, the
    /// old names stay readable until they are removed, and what is at a new name is
    /// replaced (a stopped run's copy made again).
    fn copy_many(&self, pairs: &[(StoreKey, StoreKey)]) -> Result<bool, StoreError> {
        for (from, to) in pairs {
            crate::store::check_cancelled()?;
            let (old, new) = (self.dir.path_of(from), self.dir.path_of(to));
            let io = |source: std::io::Error| StoreError::Io {
                location: new.display().to_string(),
                source,
            };
            if let Some(parent) = new.parent() {
                fs::create_dir_all(parent).map_err(io)?;
                if let Ok(mut t) = self.touched.lock() {
                    t.insert(parent.to_path_buf());
                }
            }
            match fs::remove_file(&new) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
                _ => {}
            }
            if fs::hard_link(&old, &new).is_err() {
                fs::copy(&old, &new).map_err(io)?;
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ReadableStore;

    #[test]
    fn a_replaced_file_holds_the_new_bytes_and_no_temporary_is_left() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ReplacingDirStore::new(tmp.path());
        let key = StoreKey::new("a/0.0").unwrap();
        store.put(&key, b"old").unwrap();
        store
            .put_many(&[
                (key.clone(), b"new".to_vec()),
                (StoreKey::new("b").unwrap(), b"x".to_vec()),
            ])
            .unwrap();
        store.finish().unwrap();
        let read = DirStore::open(tmp.path()).unwrap();
        assert_eq!(read.get(&key).unwrap().unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(tmp.path().join("a"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["0.0"]);
    }

    #[test]
    fn a_failed_replacement_keeps_the_old_file() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ReplacingDirStore::new(tmp.path());
        let key = StoreKey::new("a").unwrap();
        store.put(&key, b"old").unwrap();
        // A directory where the second file's parent should be: its write fails.
        fs::write(tmp.path().join("blocker"), b"").unwrap();
        let bad = StoreKey::new("blocker/c").unwrap();
        assert!(store
            .put_many(&[(key.clone(), b"new".to_vec()), (bad, b"y".to_vec())])
            .is_err());
        assert_eq!(fs::read(tmp.path().join("a")).unwrap(), b"old");
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 2);
    }
}
