//! Making what a run wrote durable before it is put in place, at a cost proportional
//! to what this run wrote, not to what other programs are writing to the same disk.
//!
//! `NCZARR_FSYNC` chooses: unset or `1`, the cheaper of the two ways below for each
//! tree; `files`, a sync of each file and directory; `fs`, one `syncfs(2)`; `0`, none
//! (scratch copies).
//!
//! What each step guarantees (the power-loss reasoning of `docs/reliability.md`):
//! - [`start_writeback`] as a file is closed guarantees nothing; it only starts the
//!   disk's work early so that the waits below find most of it done.
//! - `fdatasync` of a file returns once its data, and the metadata needed to read
//!   them back (its size, its blocks), are on stable storage.
//! - `fsync` of a directory returns once its entries (the names of the files and
//!   directories in it) are on stable storage.
//! - `syncfs` of a file system returns once every dirty page and inode of it, and its
//!   journal, are on stable storage: a superset of the two above, paid for every
//!   program's writes to that file system, not only ours.
//!
//! Either way every file and directory of the tree is durable before the caller's
//! rename puts the tree in place, and the rename is made durable by a sync of the
//! parent directory after it ([`sync_path`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::StoreError;

/// Files at least this large start their write-out as they are closed: under it the
/// extra request per file costs more than the overlap saves (5,840 files of 16 KiB:
/// 1.9 -> 2.4 s to write them).
pub(super) const WRITEBACK_FROM: usize = 128 * 1024;

/// Trees of fewer files are always synced file by file: a few waits on the disk.
const FEW_FILES: usize = 64;

/// How many files are synced at once: each sync waits on the disk, not on a core,
/// and the file system joins concurrent waits into one journal commit.
const SYNC_THREADS: usize = 16;

/// What a sync of one small file costs, as the disk time of this many more bytes: a
/// disk request and a wait of its own (5,840 files of 16 KiB synced one by one took
/// 0.49 s, one `syncfs` of them 0.07 s). A `syncfs` is chosen while the other programs'
/// unwritten bytes it would also wait for are under this much per file of ours.
const SYNC_COST_PER_FILE: u64 = 32 << 10;

/// Whether what is written is made durable before it is put in place
/// (`NCZARR_FSYNC=0`: not, for scratch copies).
pub fn durable() -> bool {
    std::env::var("NCZARR_FSYNC").map_or(true, |v| v != "0")
}

/// How a tree is made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    /// Each file's data, then each directory.
    EachFile,
    /// One `syncfs` of the tree's file system.
    FileSystem,
}

/// Start writing what was written to `file` to the disk, not waiting for it (when
/// [`durable`]): the commit's flush then finds most of the file on disk already, so
/// the disk's time overlaps the copy's instead of following it (a 90 MiB file: 0.20 s
/// to 0.12 s).
pub fn start_writeback(file: &fs::File) {
    #[cfg(target_os = "linux")]
    if durable() {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the call; offset 0 and length 0 ask for
        // the whole file; the call only starts writeback, it changes no data.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// `fsync` one file or directory.
pub(super) fn sync_path(p: &Path) -> Result<(), StoreError> {
    fs::File::open(p)
        .and_then(|f| f.sync_all())
        .map_err(|source| io_error(p, source))
}

/// `fdatasync` one file: its data and what is needed to read them back.
fn sync_file_data(p: &Path) -> Result<(), StoreError> {
    fs::File::open(p)
        .and_then(|f| f.sync_data())
        .map_err(|source| io_error(p, source))
}

fn io_error(p: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io {
        location: p.display().to_string(),
        source,
    }
}

/// Make a tree, or one file, durable (see the module's note for what that means).
pub(super) fn sync_tree(root: &Path) -> Result<(), StoreError> {
    let meta = fs::metadata(root).map_err(|e| io_error(root, e))?;
    if meta.is_file() {
        return sync_file_data(root);
    }
    let tree = Tree::walk(root)?;
    match method(&tree) {
        Method::EachFile => sync_each(&tree),
        Method::FileSystem => sync_file_system(root, &tree),
    }
}

/// Each file's data, then each directory's entries.
fn sync_each(tree: &Tree) -> Result<(), StoreError> {
    in_parallel(&tree.files, sync_file_data)?;
    in_parallel(&tree.dirs, sync_path)
}

/// The files and directories of a tree, and the bytes its files hold.
struct Tree {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
    bytes: u64,
}

impl Tree {
    fn walk(root: &Path) -> Result<Tree, StoreError> {
        let mut tree = Tree {
            files: Vec::new(),
            dirs: Vec::new(),
            bytes: 0,
        };
        let mut todo = vec![root.to_path_buf()];
        while let Some(dir) = todo.pop() {
            let entries = fs::read_dir(&dir).map_err(|e| io_error(&dir, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| io_error(&dir, e))?;
                let kind = entry.file_type().map_err(|e| io_error(&entry.path(), e))?;
                if kind.is_dir() {
                    todo.push(entry.path());
                } else if kind.is_file() {
                    tree.bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
                    tree.files.push(entry.path());
                }
            }
            tree.dirs.push(dir);
        }
        Ok(tree)
    }
}

/// The method `NCZARR_FSYNC` asks for, else the cheaper: one `syncfs` for many files
/// when the system holds few unwritten bytes besides ours, a sync per file otherwise.
/// The other programs' bytes are estimated as the system's unwritten bytes less all of
/// ours (some of ours may be on disk already): a writer that keeps writing makes a
/// sync per file the choice, and its bytes are never waited for (a 365-file copy
/// beside a program rewriting 1 GiB: 0.21 s file by file, 0.27-0.60 s with `syncfs`).
fn method(tree: &Tree) -> Method {
    match std::env::var("NCZARR_FSYNC").as_deref() {
        Ok("files") => return Method::EachFile,
        #[cfg(target_os = "linux")]
        Ok("fs") => return Method::FileSystem,
        _ => {}
    }
    if tree.files.len() < FEW_FILES {
        return Method::EachFile;
    }
    let files = tree.files.len() as u64;
    match system_dirty_bytes() {
        Some(dirty) if dirty.saturating_sub(tree.bytes) <= files * SYNC_COST_PER_FILE => {
            Method::FileSystem
        }
        _ => Method::EachFile,
    }
}

/// The bytes written by every program and not yet on disk (Linux's `Dirty` and
/// `Writeback` of /proc/meminfo): an upper bound of what a `syncfs` may wait for.
fn system_dirty_bytes() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    dirty_in_meminfo(&text)
}

fn dirty_in_meminfo(text: &str) -> Option<u64> {
    let mut total = None;
    for line in text.lines() {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        if name == "Dirty" || name == "Writeback" {
            let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
            total = Some(total.unwrap_or(0) + kib * 1024);
        }
    }
    total
}

/// Run `sync` on every path, [`SYNC_THREADS`] at a time; the first error is returned
/// once all have run.
fn in_parallel(
    paths: &[PathBuf],
    sync: fn(&Path) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let next = AtomicUsize::new(0);
    let first_error = Mutex::new(None);
    let threads = SYNC_THREADS.min(paths.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(p) = paths.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = sync(p) {
                        if let Ok(mut slot) = first_error.lock() {
                            slot.get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    match first_error.into_inner() {
        Ok(Some(e)) => Err(e),
        _ => Ok(()),
    }
}

#[cfg(target_os = "linux")]
fn sync_file_system(root: &Path, _: &Tree) -> Result<(), StoreError> {
    use std::os::fd::AsRawFd;
    let f = fs::File::open(root).map_err(|e| io_error(root, e))?;
    // SAFETY: `f` is an open descriptor for the whole call; syncfs reads nothing else.
    let rc = unsafe { libc::syncfs(f.as_raw_fd()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io_error(root, std::io::Error::last_os_error()))
    }
}

/// Elsewhere there is no `syncfs`: each file and directory.
#[cfg(not(target_os = "linux"))]
fn sync_file_system(_: &Path, tree: &Tree) -> Result<(), StoreError> {
    sync_each(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_tree_syncs_files_and_directories_and_names_what_fails() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("d/a/b")).unwrap();
        fs::write(tmp.path().join("d/a/b/0.0"), b"x").unwrap();
        fs::write(tmp.path().join("d/.zgroup"), b"{}").unwrap();
        sync_tree(&tmp.path().join("d")).unwrap();
        sync_tree(&tmp.path().join("d/.zgroup")).unwrap();
        let missing = tmp.path().join("nothing");
        let err = sync_tree(&missing).unwrap_err().to_string();
        assert!(err.contains("nothing"), "{err}");
    }

    #[test]
    fn a_tree_is_walked_whole_and_synced_by_either_method() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..(FEW_FILES + 3) {
            let dir = tmp.path().join(format!("v/{}", i % 5));
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(i.to_string()), vec![7u8; i]).unwrap();
        }
        let tree = Tree::walk(tmp.path()).unwrap();
        assert_eq!(tree.files.len(), FEW_FILES + 3);
        // The root, v and its five directories.
        assert_eq!(tree.dirs.len(), 7);
        let n = (FEW_FILES + 3) as u64;
        assert_eq!(tree.bytes, n * (n - 1) / 2);
        sync_each(&tree).unwrap();
        sync_file_system(tmp.path(), &tree).unwrap();
        // Of paths that fail, one error is returned, naming one of them.
        let gone = [tmp.path().join("x"), tmp.path().join("y")];
        let err = in_parallel(&gone, sync_path).unwrap_err().to_string();
        assert!(err.contains("/x") || err.contains("/y"), "{err}");
    }

    #[test]
    fn the_dirty_bytes_are_read_from_meminfo() {
        let text = "MemTotal: 100 kB\nDirty:          1204 kB\nWriteback:        16 kB\n\
                    WritebackTmp: 9 kB\n";
        assert_eq!(dirty_in_meminfo(text), Some(1220 * 1024));
        assert_eq!(dirty_in_meminfo("MemTotal: 1 kB\n"), None);
        assert_eq!(dirty_in_meminfo("Dirty: lots\n"), None);
    }
}
