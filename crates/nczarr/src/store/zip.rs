//! A zip archive as a read-only store.
//!
//! The central directory is indexed once at open; each `get` reads the entry's bytes
//! by offset (`pread`), so many chunks can be read at once from one file handle.
//! Stored and deflated entries are supported, and every entry's CRC-32 is checked when
//! it is read whole. A byte range of a stored entry is read in place; of a deflated
//! entry, the entry is inflated whole and cut (deflate streams cannot be entered in
//! the middle).
//!
//! Two layouts exist in the wild and both are read: zarr-python's `ZipStore` puts the
//! Zarr keys at the archive root; netcdf-c (and `zip -r x.zip dir`) puts everything
//! under one top-level directory. If the root holds a Zarr marker (`.zgroup`,
//! `.zarray`, `.zmetadata`, `.nczarr`) the root is the dataset; otherwise a single
//! top-level directory holding a marker is.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{
    children_of, range_of, ByteRange, GetResult, ListableStore, ReadableStore, StoreError, StoreKey,
};

/// Keys whose presence marks the root of a Zarr (or NCZarr V1) dataset.
const ROOT_MARKERS: &[&str] = &[".zgroup", ".zarray", ".zmetadata", ".nczarr", "zarr.json"];

/// How an entry's bytes are kept, found when the archive is indexed; entries this
/// reader cannot read are said to be so when they are read, not when it opens.
#[derive(Debug, Clone)]
enum Method {
    Stored,
    Deflated,
    Encrypted,
    Unsupported(zip::CompressionMethod),
}

#[derive(Debug, Clone)]
struct Entry {
    header_start: u64,
    compressed_size: u64,
    size: u64,
    crc32: u32,
    method: Method,
}

/// A read-only store over a zip archive.
#[derive(Debug)]
pub struct ZipStore {
    path: PathBuf,
    file: File,
    entries: BTreeMap<StoreKey, Entry>,
    prefix: String,
}

impl ZipStore {
    /// Open the archive at `path` and find the dataset root inside it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if the file is missing, [`StoreError::Archive`] if it is not
    /// a readable zip, is empty, or holds no Zarr dataset.
    pub fn open(path: &Path) -> Result<ZipStore, StoreError> {
        let location = path.display().to_string();
        let file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StoreError::NotFound {
                location: location.clone(),
            },
            _ => StoreError::Io {
                location: location.clone(),
                source: e,
            },
        })?;
        let archive_err = |message: String| StoreError::Archive {
            location: location.clone(),
            message,
        };
        let archive = zip::ZipArchive::new(file.try_clone().map_err(|e| StoreError::Io {
            location: location.clone(),
            source: e,
        })?)
        .map_err(|e| archive_err(format!("not a readable zip archive: {e}")))?;

        let mut all: Vec<(String, Entry)> = Vec::new();
        for i in 0..archive.len() {
            let entry = archive
                .by_index_data(i)
                .map_err(|e| archive_err(format!("damaged central directory: {e}")))?;
            if entry.is_dir() {
                continue;
            }
            let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
            let method = if entry.encrypted() {
                Method::Encrypted
            } else {
                match entry.compression() {
                    zip::CompressionMethod::Stored => Method::Stored,
                    zip::CompressionMethod::Deflated => Method::Deflated,
                    other => Method::Unsupported(other),
                }
            };
            all.push((
                name,
                Entry {
                    header_start: entry.header_start(),
                    compressed_size: entry.compressed_size(),
                    size: entry.size(),
                    crc32: entry.crc32(),
                    method,
                },
            ));
        }
        if all.is_empty() {
            return Err(archive_err("empty zip archive: it holds no files".into()));
        }
        let prefix = find_root(all.iter().map(|(n, _)| n.as_str()))
            .ok_or_else(|| archive_err("not a Zarr dataset: no .zgroup, .zarray, .zmetadata or zarr.json at the archive root or under a single top-level directory".into()))?;
        let mut entries = BTreeMap::new();
        for (name, entry) in all {
            // A name that climbs out of the archive (zip slip) or is absolute marks an
            // archive made to attack extractors: refused whole, before a copy could
            // write anything it holds.
            if name.starts_with('/') || name.split(['/', '\\']).any(|s| s == "..") {
                return Err(archive_err(format!(
                    "entry '{}' leads out of the archive (an absolute name or '..'): refused",
                    name.escape_default()
                )));
            }
            let Some(rest) = name.strip_prefix(&prefix) else {
                continue;
            };
            // Other names that are not valid keys (empty segments, control characters)
            // cannot be addressed: skipped.
            if let Ok(key) = StoreKey::new(rest) {
                if !key.is_root() && entries.insert(key, entry).is_some() {
                    return Err(archive_err(format!(
                        "entry '{}' appears twice: which one holds the data is not known",
                        name.escape_default()
                    )));
                }
            }
        }
        Ok(ZipStore {
            path: path.to_path_buf(),
            file,
            entries,
            prefix,
        })
    }

    /// The directory inside the archive that holds the dataset (`""` for the root).
    pub fn prefix(&self) -> &str {
        self.prefix.trim_end_matches('/')
    }

    fn io_error(&self, source: std::io::Error) -> StoreError {
        StoreError::Io {
            location: self.path.display().to_string(),
            source,
        }
    }

    /// Where entry `e`'s (compressed) bytes start in the archive, checked to lie
    /// inside it.
    fn data_start(&self, key: &StoreKey, e: &Entry) -> Result<u64, StoreError> {
        let corrupt = |message: String| StoreError::Corrupt {
            key: key.to_string(),
            message,
        };
        let io = |source| self.io_error(source);
        let mut header = [0u8; 30];
        self.file
            .read_exact_at(&mut header, e.header_start)
            .map_err(io)?;
        if header[..4] != [0x50, 0x4b, 0x03, 0x04] {
            return Err(corrupt("bad local file header in the zip archive".into()));
        }
        let name_len = u64::from(u16::from_le_bytes([header[26], header[27]]));
        let extra_len = u64::from(u16::from_le_bytes([header[28], header[29]]));
        let data_start = e.header_start + 30 + name_len + extra_len;
        let file_len = self.file.metadata().map_err(io)?.len();
        if data_start.saturating_add(e.compressed_size) > file_len {
            return Err(corrupt(
                "zip entry extends past the end of the archive (truncated file?)".into(),
            ));
        }
        Ok(data_start)
    }

    fn read_entry(&self, key: &StoreKey, e: &Entry) -> Result<Vec<u8>, StoreError> {
        let corrupt = |message: String| StoreError::Corrupt {
            key: key.to_string(),
            message,
        };
        match &e.method {
            Method::Encrypted => return Err(corrupt("entry is encrypted".into())),
            Method::Unsupported(m) => {
                return Err(corrupt(format!("unsupported zip compression method {m:?}")))
            }
            Method::Stored | Method::Deflated => {}
        }
        let io = |source| self.io_error(source);
        let data_start = self.data_start(key, e)?;
        let compressed_len = usize::try_from(e.compressed_size)
            .map_err(|_| corrupt(format!("entry of {} bytes is too large", e.compressed_size)))?;
        let mut raw = vec![0u8; compressed_len];
        self.file.read_exact_at(&mut raw, data_start).map_err(io)?;
        let data = match e.method {
            Method::Deflated => {
                let cap = usize::try_from(e.size.min(1 << 32)).unwrap_or(0);
                let mut out = Vec::with_capacity(cap);
                flate2::read::DeflateDecoder::new(&raw[..])
                    .take(e.size.saturating_add(1))
                    .read_to_end(&mut out)
                    .map_err(|err| corrupt(format!("cannot inflate zip entry: {err}")))?;
                out
            }
            _ => raw,
        };
        if data.len() as u64 != e.size {
            return Err(corrupt(format!(
                "zip entry holds {} bytes, its header says {}",
                data.len(),
                e.size
            )));
        }
        if crc32fast::hash(&data) != e.crc32 {
            return Err(corrupt(
                "CRC-32 mismatch in zip entry (damaged archive)".into(),
            ));
        }
        Ok(data)
    }
}

/// Where the dataset starts inside an archive with entries `names`.
fn find_root<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Option<String> {
    if names.clone().any(|n| ROOT_MARKERS.contains(&n)) {
        return Some(String::new());
    }
    let mut tops = names
        .clone()
        .filter_map(|n| n.split_once('/').map(|(top, _)| top));
    let first = tops.next()?;
    if tops.any(|t| t != first) || names.clone().any(|n| !n.contains('/')) {
        return None;
    }
    let prefix = format!("{first}/");
    names
        .clone()
        .any(|n| {
            n.strip_prefix(&prefix)
                .is_some_and(|rest| ROOT_MARKERS.contains(&rest))
        })
        .then_some(prefix)
}

impl ReadableStore for ZipStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        match self.entries.get(key) {
            Some(e) => self.read_entry(key, e).map(Some),
            None => Ok(None),
        }
    }

    /// A stored entry is read in place, without its CRC-32 check (which needs the
    /// whole entry); a deflated one cannot be entered in the middle, so it is inflated
    /// whole (and checked), then cut.
    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        let Some(e) = self.entries.get(key) else {
            return Ok(None);
        };
        if !matches!(e.method, Method::Stored) {
            let value = self.read_entry(key, e)?;
            return Ok(Some(range_of(key, range, &value)?.to_vec()));
        }
        let r = range.resolve(e.size).map_err(|source| StoreError::Range {
            key: key.to_string(),
            source,
        })?;
        let start = self.data_start(key, e)?;
        let n = usize::try_from(r.end - r.start).map_err(|_| StoreError::Corrupt {
            key: key.to_string(),
            message: format!("range of {} bytes is too large", r.end - r.start),
        })?;
        let mut buf = vec![0u8; n];
        self.file
            .read_exact_at(&mut buf, start + r.start)
            .map_err(|source| self.io_error(source))?;
        Ok(Some(buf))
    }

    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        keys.par_iter().map(|k| self.get(k)).collect()
    }

    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn reads_are_cheap(&self) -> bool {
        true
    }
}

impl ListableStore for ZipStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        Ok(self
            .entries
            .iter()
            .map(|(k, e)| (k.clone(), e.size))
            .collect())
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        Ok(children_of(self.entries.keys(), prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn make_zip(path: &Path, top: &str, method: zip::CompressionMethod, fixture: &[(&str, &[u8])]) {
        let mut w = zip::ZipWriter::new(File::create(path).unwrap());
        let opts = SimpleFileOptions::default().compression_method(method);
        if !top.is_empty() {
            w.add_directory(top, opts).unwrap();
        }
        for (k, v) in fixture {
            w.start_file(format!("{top}{k}"), opts).unwrap();
            w.write_all(v).unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn conformance_stored_deflated_and_both_layouts() {
        let tmp = tempfile::tempdir().unwrap();
        for (top, method) in [
            ("", zip::CompressionMethod::Stored),
            ("ds.zarr/", zip::CompressionMethod::Stored),
            ("", zip::CompressionMethod::Deflated),
            ("x/", zip::CompressionMethod::Deflated),
        ] {
            let p = tmp.path().join("t.zip");
            make_zip(&p, top, method, super::super::conformance::FIXTURE);
            let s = ZipStore::open(&p).unwrap();
            assert_eq!(s.prefix(), top.trim_end_matches('/'));
            super::super::conformance::check_read_store(&s);
        }
    }

    #[test]
    fn empty_and_non_zarr_archives_are_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("e.zip");
        make_zip(&p, "", zip::CompressionMethod::Stored, &[]);
        let e = ZipStore::open(&p).unwrap_err().to_string();
        assert!(e.ends_with("empty zip archive: it holds no files"), "{e}");
        make_zip(
            &p,
            "",
            zip::CompressionMethod::Stored,
            &[("a.txt", b"x"), ("b/c", b"y")],
        );
        assert!(ZipStore::open(&p)
            .unwrap_err()
            .to_string()
            .contains("not a Zarr dataset"));
        std::fs::write(&p, b"this is not a zip").unwrap();
        assert!(ZipStore::open(&p)
            .unwrap_err()
            .to_string()
            .contains("not a readable zip"));
        assert!(matches!(
            ZipStore::open(&tmp.path().join("none.zip")),
            Err(StoreError::NotFound { .. })
        ));
    }

    #[test]
    fn damaged_entry_is_reported_with_its_key() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("d.zip");
        make_zip(
            &p,
            "",
            zip::CompressionMethod::Stored,
            &[(".zgroup", b"{\"zarr_format\": 2}"), ("v/0", b"ABCDEFGH")],
        );
        let mut bytes = std::fs::read(&p).unwrap();
        let at = bytes.windows(8).position(|w| w == b"ABCDEFGH").unwrap();
        bytes[at] = b'Z';
        std::fs::write(&p, bytes).unwrap();
        let s = ZipStore::open(&p).unwrap();
        let e = s
            .get(&StoreKey::new("v/0").unwrap())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "key 'v/0': CRC-32 mismatch in zip entry (damaged archive)"
        );
    }
}
