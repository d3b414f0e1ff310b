//! A directory tree as a store: each key is a file, each prefix a directory.
//!
//! Plain `std::fs`, not object_store's local backend: that one skips names ending in
//! `#<digits>` and percent-encodes some characters, which would rename keys.

use std::fs;
use std::io::{ErrorKind, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{ByteRange, GetResult, ListableStore, ReadableStore, StoreError, StoreKey};

/// A store rooted at a local directory.
#[derive(Debug, Clone)]
pub struct DirStore {
    root: PathBuf,
}

impl DirStore {
    /// Open the existing directory `root`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if it does not exist, [`StoreError::Io`] if it is not a
    /// directory or cannot be read.
    pub fn open(root: &Path) -> Result<DirStore, StoreError> {
        match fs::metadata(root) {
            Ok(m) if m.is_dir() => Ok(DirStore {
                root: root.to_path_buf(),
            }),
            Ok(_) => Err(StoreError::Io {
                location: root.display().to_string(),
                source: std::io::Error::new(ErrorKind::NotADirectory, "not a directory"),
            }),
            Err(e) if e.kind() == ErrorKind::NotFound => Err(StoreError::NotFound {
                location: root.display().to_string(),
            }),
            Err(e) => Err(StoreError::Io {
                location: root.display().to_string(),
                source: e,
            }),
        }
    }

    /// A store at `root` that need not exist yet (for writers).
    pub fn at(root: &Path) -> DirStore {
        DirStore {
            root: root.to_path_buf(),
        }
    }

    /// The directory this store is rooted at.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file path of `key`.
    pub fn path_of(&self, key: &StoreKey) -> PathBuf {
        let mut p = self.root.clone();
        for seg in key.segments() {
            p.push(seg);
        }
        p
    }

    fn io_error(&self, path: &Path, source: std::io::Error) -> StoreError {
        StoreError::Io {
            location: path.display().to_string(),
            source,
        }
    }

    fn walk(
        &self,
        dir: &Path,
        prefix: &str,
        out: &mut Vec<(StoreKey, u64)>,
    ) -> Result<(), StoreError> {
        let entries = fs::read_dir(dir).map_err(|e| self.io_error(dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| self.io_error(dir, e))?;
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                return Err(self.io_error(
                    &path,
                    std::io::Error::new(
                        ErrorKind::InvalidData,
                        "file name is not UTF-8, so it cannot be a key",
                    ),
                ));
            };
            let key_text = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let meta = fs::metadata(&path).map_err(|e| self.io_error(&path, e))?;
            if meta.is_dir() {
                self.walk(&path, &key_text, out)?;
            } else {
                out.push((StoreKey::new(&key_text)?, meta.len()));
            }
        }
        Ok(())
    }
}

/// True when `dir` holds at least one file somewhere below it.
fn has_content(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| match fs::metadata(e.path()) {
        Ok(m) if m.is_dir() => has_content(&e.path()),
        Ok(_) => true,
        Err(_) => false,
    })
}

impl ReadableStore for DirStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        if key.is_root() {
            return Ok(None);
        }
        let path = self.path_of(key);
        let mut file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(None)
            }
            Err(e) => return Err(self.io_error(&path, e)),
        };
        let mut buf = Vec::new();
        match file.read_to_end(&mut buf) {
            Ok(_) => Ok(Some(buf)),
            Err(e) if e.kind() == ErrorKind::IsADirectory => Ok(None),
            Err(e) => Err(self.io_error(&path, e)),
        }
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        if key.is_root() {
            return Ok(None);
        }
        let path = self.path_of(key);
        let file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(None)
            }
            Err(e) => return Err(self.io_error(&path, e)),
        };
        let meta = file.metadata().map_err(|e| self.io_error(&path, e))?;
        if meta.is_dir() {
            return Ok(None);
        }
        let r = range
            .resolve(meta.len())
            .map_err(|source| StoreError::Range {
                key: key.to_string(),
                source,
            })?;
        let n = usize::try_from(r.end - r.start).map_err(|_| {
            self.io_error(
                &path,
                std::io::Error::new(ErrorKind::OutOfMemory, "range too large"),
            )
        })?;
        let mut buf = vec![0u8; n];
        file.read_exact_at(&mut buf, r.start)
            .map_err(|e| self.io_error(&path, e))?;
        Ok(Some(buf))
    }

    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        keys.par_iter().map(|k| self.get(k)).collect()
    }

    fn get_many_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Vec<GetResult> {
        requests
            .par_iter()
            .map(|(k, r)| self.get_range(k, r))
            .collect()
    }

    fn location(&self) -> String {
        self.root.display().to_string()
    }
}

impl ListableStore for DirStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        let mut out = Vec::new();
        self.walk(&self.root, "", &mut out)?;
        out.sort();
        Ok(out)
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        let dir = self.path_of(prefix);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(Vec::new())
            }
            Err(e) => return Err(self.io_error(&dir, e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.io_error(&dir, e))?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let path = entry.path();
            let is_dir = fs::metadata(&path).map(|m| m.is_dir()).unwrap_or(false);
            if !is_dir || has_content(&path) {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conformance() {
        let tmp = tempfile::tempdir().unwrap();
        for (k, v) in super::super::conformance::FIXTURE {
            let p = tmp.path().join(k);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, v).unwrap();
        }
        // An empty directory leads to no content: search must not report it.
        fs::create_dir_all(tmp.path().join("g/empty/deeper")).unwrap();
        let s = DirStore::open(tmp.path()).unwrap();
        super::super::conformance::check_read_store(&s);
    }

    #[test]
    fn open_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("nope");
        assert!(matches!(
            DirStore::open(&missing),
            Err(StoreError::NotFound { .. })
        ));
        let file = tmp.path().join("f");
        fs::write(&file, b"x").unwrap();
        assert!(matches!(DirStore::open(&file), Err(StoreError::Io { .. })));
    }
}
