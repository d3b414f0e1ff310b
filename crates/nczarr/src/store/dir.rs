//! A directory tree as a store: each key is a file, each prefix a directory.
//!
//! Plain `std::fs`, not object_store's local backend: that one skips names ending in
//! `#<digits>` and percent-encodes some characters, which would rename keys.

use std::fs;
use std::io::{ErrorKind, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{ByteRange, GetResult, GotInto, ListableStore, ReadableStore, StoreError, StoreKey};

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
            let file_type = entry.file_type().map_err(|e| self.io_error(&path, e))?;
            if file_type.is_symlink() && !self.link_leads_inward(&path, dir) {
                continue;
            }
            let meta = fs::metadata(&path).map_err(|e| self.io_error(&path, e))?;
            if meta.is_dir() {
                self.walk(&path, &key_text, out)?;
            } else if meta.is_file() {
                out.push((StoreKey::new(&key_text)?, meta.len()));
            }
        }
        Ok(())
    }

    /// True for a link (at `path`, in directory `dir`) that a listing follows: to a
    /// file or directory inside the store that is not `dir` or above it. Links out of
    /// the store, dangling links and loops are left out, so a listing ends and never
    /// shows what is outside.
    fn link_leads_inward(&self, path: &Path, dir: &Path) -> bool {
        let (Ok(real), Ok(root), Ok(here)) = (
            fs::canonicalize(path),
            fs::canonicalize(&self.root),
            fs::canonicalize(dir),
        ) else {
            return false;
        };
        real.starts_with(&root) && !here.starts_with(&real)
    }

    /// What is at the path of `key`, as a reader may use it: nothing, a directory, or a
    /// regular file of some length. A link is followed only to a place inside the store
    /// (a dataset must not read `/etc/...` or `~/.ssh` into its values, nor a copy upload
    /// them); a named pipe, device or socket is refused (reading one would block or
    /// never end).
    fn entry(&self, path: &Path) -> Result<Entry, StoreError> {
        let missing =
            |e: &std::io::Error| matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory);
        let meta = match fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if missing(&e) => return Ok(Entry::Missing),
            Err(e) => return Err(self.io_error(path, e)),
        };
        let meta = if meta.file_type().is_symlink() {
            let real = match fs::canonicalize(path) {
                Ok(r) => r,
                Err(e) if missing(&e) => return Ok(Entry::Missing),
                Err(e) => return Err(self.io_error(path, e)),
            };
            let root = fs::canonicalize(&self.root).map_err(|e| self.io_error(&self.root, e))?;
            if !real.starts_with(&root) {
                return Err(self.io_error(
                    path,
                    std::io::Error::new(
                        ErrorKind::PermissionDenied,
                        format!(
                            "a symbolic link out of the dataset (to {}), not followed",
                            real.display()
                        ),
                    ),
                ));
            }
            fs::metadata(&real).map_err(|e| self.io_error(path, e))?
        } else {
            meta
        };
        if meta.is_dir() {
            Ok(Entry::Dir)
        } else if meta.is_file() {
            Ok(Entry::File)
        } else {
            Err(self.io_error(
                path,
                std::io::Error::new(
                    ErrorKind::InvalidInput,
                    "not a regular file (a named pipe, device or socket), not read",
                ),
            ))
        }
    }
}

/// True for the key of a metadata document (`.zarray`, `zarr.json`...), which is a file
/// in every dataset.
fn is_document(key: &StoreKey) -> bool {
    let name = key.name();
    name.starts_with('.') || name == "zarr.json"
}

/// What a key's path holds (see [`DirStore::entry`]).
enum Entry {
    Missing,
    Dir,
    File,
}

/// True when `dir` holds at least one file somewhere below it.
fn has_content(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    // Links count as content without being followed: a link loop must not make a
    // search endless.
    entries.flatten().any(|e| match e.file_type() {
        Ok(t) if t.is_dir() => has_content(&e.path()),
        Ok(_) => true,
        Err(_) => false,
    })
}

impl DirStore {
    /// The file holding `key` (at `path`), open, and its length; `None` when missing.
    fn open_key(&self, key: &StoreKey, path: &Path) -> Result<Option<(fs::File, u64)>, StoreError> {
        if key.is_root() {
            return Ok(None);
        }
        match open_plain(path) {
            Plain::File(file, len) => return Ok(Some((file, len))),
            Plain::Missing => return Ok(None),
            Plain::Other => {}
        }
        match self.entry(path)? {
            Entry::File => {}
            // A metadata document that is a directory is a damaged dataset, not a
            // missing document (chunk keys may be directories of nested chunks).
            Entry::Dir if is_document(key) => {
                return Err(self.io_error(
                    path,
                    std::io::Error::new(
                        ErrorKind::IsADirectory,
                        "a metadata document that is a directory",
                    ),
                ))
            }
            Entry::Dir | Entry::Missing => return Ok(None),
        }
        let file = match fs::File::open(path) {
            Ok(f) => f,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(None)
            }
            Err(e) => return Err(self.io_error(path, e)),
        };
        let len = file.metadata().map_err(|e| self.io_error(path, e))?.len();
        Ok(Some((file, len)))
    }
}

impl ReadableStore for DirStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        let path = self.path_of(key);
        let Some((mut file, len)) = self.open_key(key, &path)? else {
            return Ok(None);
        };
        let mut buf = vec![0u8; usize::try_from(len).unwrap_or(usize::MAX)];
        match file.read_exact(&mut buf) {
            Ok(()) => Ok(Some(buf)),
            Err(e) => Err(self.io_error(&path, e)),
        }
    }

    fn get_into(&self, key: &StoreKey, buf: &mut [u8]) -> Result<GotInto, StoreError> {
        let path = self.path_of(key);
        let Some((mut file, len)) = self.open_key(key, &path)? else {
            return Ok(GotInto::Missing);
        };
        if len != buf.len() as u64 {
            let mut value = Vec::new();
            return match file.read_to_end(&mut value) {
                Ok(_) => Ok(GotInto::Other(value)),
                Err(e) => Err(self.io_error(&path, e)),
            };
        }
        match file.read_exact(buf) {
            Ok(()) => Ok(GotInto::Filled),
            Err(e) => Err(self.io_error(&path, e)),
        }
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        let path = self.path_of(key);
        let Some((file, len)) = self.open_key(key, &path)? else {
            return Ok(None);
        };
        let r = range.resolve(len).map_err(|source| StoreError::Range {
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

    fn reads_are_cheap(&self) -> bool {
        true
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

/// What opening a key's file in one call found.
enum Plain {
    /// A regular file, not through a link, and its length: what nearly every key is.
    File(fs::File, u64),
    Missing,
    /// Anything else (a link, a directory, a pipe, an error): [`DirStore::entry`]'s
    /// checks decide, with their messages.
    Other,
}

/// Open `path` without following a link or blocking on a pipe, and look at what was
/// opened: one `open` and one `fstat` for a plain file, where checking the path first
/// and then opening it took two more system calls per key (a dataset's metadata is
/// thousands of small files).
#[cfg(target_os = "linux")]
fn open_plain(path: &Path) -> Plain {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    match opened {
        Ok(file) => match file.metadata() {
            Ok(meta) if meta.is_file() => Plain::File(file, meta.len()),
            _ => Plain::Other,
        },
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            Plain::Missing
        }
        Err(_) => Plain::Other,
    }
}

#[cfg(not(target_os = "linux"))]
fn open_plain(_: &Path) -> Plain {
    Plain::Other
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
