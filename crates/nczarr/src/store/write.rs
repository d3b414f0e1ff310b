//! Writing: the local stores' [`WritableStore`] (the trait is in `store`, beside the
//! other capabilities), and staging a new dataset beside its final place so that a
//! failed run never leaves a half-written dataset there nor damages the one it replaces.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::durable::{durable, start_writeback, sync_path, sync_tree, WRITEBACK_FROM};
use super::{DirStore, MemoryStore, StoreError, StoreKey, WritableStore};

impl WritableStore for MemoryStore {
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        self.insert(key.clone(), value.to_vec());
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        self.remove(key);
        Ok(())
    }
}

impl WritableStore for DirStore {
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        let path = self.path_of(key);
        let io = |source| StoreError::Io {
            location: path.display().to_string(),
            source,
        };
        // Always truncate: netcdf-c's file map rewrote in place and left stale bytes.
        // The directory is made only when missing: a mkdir per chunk would take the
        // parent directory's lock for every file of a copy.
        let mut f = match fs::File::create(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent).map_err(io)?;
                }
                fs::File::create(&path).map_err(io)?
            }
            other => other.map_err(io)?,
        };
        f.write_all(value).map_err(io)?;
        if value.len() >= WRITEBACK_FROM {
            start_writeback(&f);
        }
        Ok(())
    }

    /// Directories the removal leaves empty go too, as keys that no longer lead to
    /// content.
    fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        let path = self.path_of(key);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => {
                return Err(StoreError::Io {
                    location: path.display().to_string(),
                    source,
                })
            }
        }
        let mut dir = path.parent();
        while let Some(d) = dir.filter(|d| *d != self.root()) {
            if fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }
}

/// The file under a zip archive being written, which goes quiet once the archive is
/// abandoned: the zip crate finishes an archive it is dropped with, and prints the
/// error when that fails (a full disk), a debug dump before our own one-line message.
/// An abandoned archive's file is removed anyway, so its last writes go nowhere: only
/// a position is kept, as the zip crate checks where its writes ended.
struct ZipFile {
    file: fs::File,
    abandoned: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Once abandoned: the position and end of the writes that went nowhere.
    idle: Option<(u64, u64)>,
}

impl ZipFile {
    /// The position and end to move, once the archive is abandoned.
    fn idle(&mut self) -> Option<&mut (u64, u64)> {
        if self.idle.is_none() && self.abandoned.load(std::sync::atomic::Ordering::SeqCst) {
            use std::io::Seek;
            let pos = self.file.stream_position().unwrap_or(0);
            let end = self.file.metadata().map_or(pos, |m| m.len().max(pos));
            self.idle = Some((pos, end));
        }
        self.idle.as_mut()
    }
}

impl Write for ZipFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.idle() {
            Some((pos, end)) => {
                *pos += buf.len() as u64;
                *end = (*end).max(*pos);
                Ok(buf.len())
            }
            None => self.file.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.idle() {
            Some(_) => Ok(()),
            None => self.file.flush(),
        }
    }
}

impl std::io::Seek for ZipFile {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        match self.idle() {
            Some((pos, end)) => {
                let base = match to {
                    std::io::SeekFrom::Start(n) => Some(n),
                    std::io::SeekFrom::Current(d) => pos.checked_add_signed(d),
                    std::io::SeekFrom::End(d) => end.checked_add_signed(d),
                };
                *pos = base.ok_or_else(|| {
                    std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before start")
                })?;
                Ok(*pos)
            }
            None => self.file.seek(to),
        }
    }
}

impl std::io::Read for ZipFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.idle() {
            Some(_) => Ok(0),
            None => self.file.read(buf),
        }
    }
}

/// A zip archive being written: entries are appended in order, stored uncompressed
/// (chunks are compressed by their codecs already), under an optional top directory.
/// An entry cannot be replaced once written, so writing a key twice is refused.
pub struct ZipWriterStore {
    writer: Mutex<Option<zip::ZipWriter<ZipFile>>>,
    abandoned: std::sync::Arc<std::sync::atomic::AtomicBool>,
    written: Mutex<std::collections::HashSet<StoreKey>>,
    prefix: String,
    path: PathBuf,
}

impl ZipWriterStore {
    /// Create the archive at `path`; keys go under `top/` when `top` is given
    /// (netcdf-c's layout), else at the root (zarr-python's).
    ///
    /// # Errors
    /// [`StoreError::Io`] when the file cannot be created.
    pub fn create(path: &Path, top: Option<&str>) -> Result<ZipWriterStore, StoreError> {
        let file = fs::File::create(path).map_err(|source| StoreError::Io {
            location: path.display().to_string(),
            source,
        })?;
        let abandoned = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut w = zip::ZipWriter::new(ZipFile {
            file,
            abandoned: std::sync::Arc::clone(&abandoned),
            idle: None,
        });
        let prefix = match top {
            Some(t) => {
                let opts = zip::write::SimpleFileOptions::default();
                w.add_directory(format!("{t}/"), opts)
                    .map_err(|e| StoreError::Archive {
                        location: path.display().to_string(),
                        message: e.to_string(),
                    })?;
                format!("{t}/")
            }
            None => String::new(),
        };
        Ok(ZipWriterStore {
            writer: Mutex::new(Some(w)),
            abandoned,
            written: Mutex::new(std::collections::HashSet::new()),
            prefix,
            path: path.to_path_buf(),
        })
    }

    /// The error `e`, with the archive abandoned: nothing more is written to it.
    fn fail(&self, e: impl std::fmt::Display) -> StoreError {
        self.abandon();
        StoreError::Archive {
            location: self.path.display().to_string(),
            message: e.to_string(),
        }
    }
}

impl ZipWriterStore {
    fn abandon(&self) {
        self.abandoned
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for ZipWriterStore {
    /// An archive dropped unfinished is abandoned (its staging file is removed).
    fn drop(&mut self) {
        self.abandon();
    }
}

impl WritableStore for ZipWriterStore {
    fn put(&self, key: &StoreKey, value: &[u8]) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        let fresh = self
            .written
            .lock()
            .map_err(|_| self.fail("zip writer poisoned"))?
            .insert(key.clone());
        if !fresh {
            return Err(StoreError::Refused {
                key: key.to_string(),
                message: "written twice; an entry of a zip archive cannot be replaced".into(),
            });
        }
        let mut guard = self
            .writer
            .lock()
            .map_err(|_| self.fail("zip writer poisoned"))?;
        let w = guard
            .as_mut()
            .ok_or_else(|| self.fail("zip archive already finished"))?;
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(value.len() as u64 >= u64::from(u32::MAX));
        w.start_file(format!("{}{}", self.prefix, key), opts)
            .map_err(|e| self.fail(e))?;
        w.write_all(value).map_err(|e| self.fail(e))?;
        Ok(())
    }

    fn finish(&self) -> Result<(), StoreError> {
        let mut guard = self
            .writer
            .lock()
            .map_err(|_| self.fail("zip writer poisoned"))?;
        if let Some(w) = guard.take() {
            let file = w.finish().map_err(|e| self.fail(e))?;
            file.file.sync_all().map_err(|e| self.fail(e))?;
        }
        Ok(())
    }
}

/// A dataset being written beside its destination; [`Staged::commit`] puts it in place.
#[derive(Debug)]
pub struct Staged {
    /// Where the dataset will be.
    pub target: PathBuf,
    /// Where it is being written.
    pub temp: PathBuf,
    committed: bool,
    /// Kept when dropped uncommitted: the staging of a copy in parts, which several
    /// runs fill before one commits it.
    keep: bool,
}

impl Staged {
    /// A staging place next to `target` (same directory, so the final rename is
    /// atomic), named `.<name>.tmp-<pid>`.
    ///
    /// # Errors
    /// [`StoreError::Io`] when the parent directory does not exist.
    pub fn beside(target: &Path) -> Result<Staged, StoreError> {
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(StoreError::Io {
                location: parent.display().to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "output directory does not exist",
                ),
            });
        }
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dataset".into());
        clean_stale(&parent);
        let temp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        remove_path(&temp);
        crate::cancel::stage(&temp);
        Ok(Staged {
            target: target.to_path_buf(),
            temp,
            committed: false,
            keep: false,
        })
    }

    /// The staging of a copy in parts, `.<name>.parts` beside `target`: made anew (and
    /// emptied) when `fresh`, else found where an earlier run made it. It stays when
    /// dropped; the run that finishes the copy commits it.
    ///
    /// # Errors
    /// [`StoreError::Io`] when the parent directory does not exist, or (not `fresh`)
    /// when there is no staging to resume.
    pub fn for_parts(target: &Path, fresh: bool) -> Result<Staged, StoreError> {
        let mut staged = Staged::beside(target)?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dataset".into());
        crate::cancel::unstage(&staged.temp);
        staged.temp = staged.temp.with_file_name(format!(".{name}.parts"));
        staged.keep = true;
        let io = |source| StoreError::Io {
            location: staged.temp.display().to_string(),
            source,
        };
        if fresh {
            remove_path(&staged.temp);
            fs::create_dir_all(&staged.temp).map_err(io)?;
        } else if !staged.temp.is_dir() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no copy in parts started here (run --metadata-only first)",
            )));
        }
        Ok(staged)
    }

    /// Replace whatever is at the target with the staged dataset. The old dataset is
    /// moved aside first and removed only after the new one is in place.
    ///
    /// # Errors
    /// [`StoreError::Io`] naming the path when a rename fails; the old dataset is then
    /// put back.
    pub fn commit(mut self) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        let io = |p: &Path, source| StoreError::Io {
            location: p.display().to_string(),
            source,
        };
        let old = self.temp.with_file_name(format!(
            ".{}.old-{}",
            self.target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        // Durable before it is in place: a crash after the swap must not leave a
        // complete-looking dataset whose chunks never reached the disk.
        if durable() {
            sync_tree(&self.temp)?;
        }
        let swapping = crate::cancel::hold_swaps();
        crate::store::check_cancelled()?;
        let existed = fs::symlink_metadata(&self.target).is_ok();
        if existed {
            fs::rename(&self.target, &old).map_err(|e| io(&self.target, e))?;
        }
        if let Err(e) = fs::rename(&self.temp, &self.target) {
            if existed {
                let _ = fs::rename(&old, &self.target);
            }
            return Err(io(&self.target, e));
        }
        self.committed = true;
        crate::cancel::unstage(&self.temp);
        drop(swapping);
        // The renames themselves are entries of the parent directory.
        if let Some(parent) = self.target.parent().filter(|p| !p.as_os_str().is_empty()) {
            if durable() {
                sync_path(parent)?;
            }
        }
        if existed {
            if fs::metadata(&old).map(|m| m.is_dir()).unwrap_or(false) {
                let _ = fs::remove_dir_all(&old);
            } else {
                let _ = fs::remove_file(&old);
            }
        }
        Ok(())
    }
}

/// Remove a file or a directory tree, whichever is there (if anything).
fn remove_path(p: &Path) {
    let _ = fs::remove_dir_all(p);
    let _ = fs::remove_file(p);
}

/// Whether process `pid` is running; `None` when this system cannot tell.
fn process_alive(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    proc.is_dir().then(|| proc.join(pid.to_string()).exists())
}

/// What killed runs left in `parent`, for any dataset written there (a run killed with
/// `kill -9` cannot clean up; the next run of any tool writing into the same directory
/// does): a staging area `.<name>.tmp-<pid>` is removed; an old dataset moved aside for
/// the swap, `.<name>.old-<pid>`, is put back if `<name>` is missing (the run died
/// between the two renames), removed otherwise. Runs that are still going, and copies
/// in parts (`.<name>.parts`, resumed by later runs), are left alone.
fn clean_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some((name, kind, pid)) = file.to_str().and_then(stale_name) else {
            continue;
        };
        if pid == std::process::id() || process_alive(pid) != Some(false) {
            continue;
        }
        let path = entry.path();
        let target = parent.join(name);
        if kind == "old" && fs::symlink_metadata(&target).is_err() {
            let _ = fs::rename(&path, &target);
        } else {
            remove_path(&path);
        }
    }
}

/// `.<name>.tmp-<pid>` or `.<name>.old-<pid>` as (name, "tmp" or "old", pid).
fn stale_name(file: &str) -> Option<(&str, &str, u32)> {
    let rest = file.strip_prefix('.')?;
    let (head, pid) = rest.rsplit_once('-')?;
    let (name, kind) = head.rsplit_once('.')?;
    let pid = pid.parse().ok()?;
    (matches!(kind, "tmp" | "old") && !name.is_empty()).then_some((name, kind, pid))
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed && !self.keep {
            // A failed or abandoned write leaves nothing behind.
            let _ = fs::remove_dir_all(&self.temp);
            let _ = fs::remove_file(&self.temp);
            crate::cancel::unstage(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ListableStore, ReadableStore, ZipStore};

    #[test]
    fn staged_directory_replaces_only_on_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("d.zarr");
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("old"), b"1").unwrap();
        {
            let staged = Staged::beside(&target).unwrap();
            let s = DirStore::at(&staged.temp);
            s.put(&StoreKey::new("a/b").unwrap(), b"x").unwrap();
            // Dropped without commit: the old dataset stays, the temp goes.
        }
        assert!(target.join("old").exists());
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
        let staged = Staged::beside(&target).unwrap();
        let s = DirStore::at(&staged.temp);
        s.put(&StoreKey::new("a/b").unwrap(), b"x").unwrap();
        staged.commit().unwrap();
        assert!(!target.join("old").exists());
        assert_eq!(fs::read(target.join("a/b")).unwrap(), b"x");
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn put_and_overwrite_in_memory_and_directories() {
        crate::store::conformance::check_put_and_overwrite(&MemoryStore::new());
        let tmp = tempfile::tempdir().unwrap();
        crate::store::conformance::check_put_and_overwrite(&DirStore::at(tmp.path()));
    }

    #[test]
    fn what_a_killed_run_left_is_cleaned_or_put_back() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("d.zarr");
        // A pid that no process has (above Linux's pid_max).
        let dead = 4_194_305 + 17;
        fs::create_dir_all(tmp.path().join(format!(".d.zarr.tmp-{dead}/v"))).unwrap();
        fs::create_dir_all(tmp.path().join(format!(".d.zarr.old-{dead}"))).unwrap();
        fs::write(
            tmp.path().join(format!(".d.zarr.old-{dead}/.zgroup")),
            b"{}",
        )
        .unwrap();
        drop(Staged::beside(&target).unwrap());
        // The old dataset, moved aside when the run died, is back; the temp is gone.
        assert!(target.join(".zgroup").exists());
        let left: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["d.zarr"]);
        // With the target in place, a stale old copy is removed.
        fs::create_dir_all(tmp.path().join(format!(".d.zarr.old-{dead}"))).unwrap();
        drop(Staged::beside(&target).unwrap());
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
        // What a killed run left for another dataset goes too (its old copy back in
        // place); running processes' files, copies in parts and anything not named
        // as ours are left alone.
        fs::create_dir_all(tmp.path().join(format!(".e.zarr.tmp-{dead}"))).unwrap();
        fs::create_dir_all(tmp.path().join(format!(".f.zip.old-{dead}"))).unwrap();
        fs::create_dir_all(tmp.path().join(".d.zarr.tmp-1")).unwrap();
        fs::create_dir_all(tmp.path().join(".g.zarr.parts")).unwrap();
        fs::create_dir_all(tmp.path().join(format!(".h.tmp{dead}"))).unwrap();
        drop(Staged::beside(&target).unwrap());
        let mut left: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let expected = [
            ".d.zarr.tmp-1".to_string(),
            ".g.zarr.parts".into(),
            format!(".h.tmp{dead}"),
            "d.zarr".into(),
            "f.zip".into(),
        ];
        assert_eq!(left, expected);
    }

    #[test]
    fn stale_names_are_parsed_strictly() {
        assert_eq!(stale_name(".a.zarr.tmp-12"), Some(("a.zarr", "tmp", 12)));
        assert_eq!(stale_name(".x-y.old-7"), Some(("x-y", "old", 7)));
        for other in [
            ".a.tmp-",
            ".tmp-3",
            "a.zarr.tmp-3",
            ".a.zarr.parts",
            ".a.new-3",
        ] {
            assert_eq!(stale_name(other), None, "{other}");
        }
    }

    #[test]
    fn zip_writer_layouts_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        for top in [None, Some("ds")] {
            let p = tmp.path().join("x.zip");
            let w = ZipWriterStore::create(&p, top).unwrap();
            w.put(&StoreKey::new(".zgroup").unwrap(), b"{\"zarr_format\": 2}")
                .unwrap();
            w.put(&StoreKey::new("v/0").unwrap(), b"abc").unwrap();
            w.finish().unwrap();
            let r = ZipStore::open(&p).unwrap();
            assert_eq!(
                r.get(&StoreKey::new("v/0").unwrap()).unwrap().unwrap(),
                b"abc"
            );
            assert_eq!(r.list().unwrap().len(), 2);
        }
    }
}
