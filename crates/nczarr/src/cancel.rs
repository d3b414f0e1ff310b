//! A run asked to stop (the binaries turn Ctrl-C, `SIGTERM` and `SIGHUP` into
//! [`cancel`]): writers check it before each object they write and fail with
//! `StoreError::Cancelled` (`store::check_cancelled`), so the run ends by its ordinary failure
//! path, which removes the staging beside the target and, on S3, the objects it wrote.
//!
//! The places being staged are also listed here, for the one case that path cannot
//! reach: a run blocked where nothing is written (reading a slow source) when it is told
//! to stop. The binary then removes them itself ([`remove_staged`]) before it exits.
//!
//! What this module does not do: catch signals (that is the binaries' job) or print.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static CANCELLED: AtomicBool = AtomicBool::new(false);

/// Staging places of this process that are not yet committed.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Held while a staged dataset is swapped into place (two renames), and by
/// [`remove_staged`]: a process that exits on a signal never exits between the two.
static SWAPPING: Mutex<()> = Mutex::new(());

/// Ask every write of this process to stop.
pub fn cancel() {
    CANCELLED.store(true, Ordering::SeqCst);
}

/// Whether [`cancel`] was called.
pub fn is_cancelled() -> bool {
    CANCELLED.load(Ordering::Relaxed)
}

/// Hold off [`remove_staged`] while a staged dataset is swapped in; check `store::check_cancelled`
/// after taking it, so that no swap begins once a stop was asked for.
pub(crate) fn hold_swaps() -> std::sync::MutexGuard<'static, ()> {
    SWAPPING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Note a staging place being written (a directory or a file).
pub(crate) fn stage(path: &Path) {
    STAGED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(path.to_path_buf());
}

/// Forget a staging place: committed, or removed by its owner.
pub(crate) fn unstage(path: &Path) {
    STAGED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .retain(|p| p != path);
}

/// Remove every staging place still listed, and return them. For a process about to
/// exit on a signal whose run did not get to its failure path in time; the
/// datasets at the targets are untouched (a staging place is only ever a new copy).
pub fn remove_staged() -> Vec<PathBuf> {
    let _no_swap = hold_swaps();
    let staged = std::mem::take(
        &mut *STAGED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    for p in &staged {
        // Writers still running may add files while the tree goes: try a few times.
        for _ in 0..5 {
            let _ = std::fs::remove_dir_all(p);
            let _ = std::fs::remove_file(p);
            if std::fs::symlink_metadata(p).is_err() {
                break;
            }
        }
    }
    staged
}
