//! The progress bar of a copy, on stderr: drawn on a terminal; with `--progress` off a
//! terminal, a line per variable and a last line of totals instead; nothing with
//! `--quiet`.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nczarr::copy::Progress;
use nczarr::model::VarPath;

/// When to show progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// On a terminal only.
    Auto,
    /// Also off a terminal (`--progress`), as lines.
    Always,
    /// Never (`--quiet`).
    Never,
}

/// Bytes copied, chunks written, the current variable.
pub struct Bar {
    bar: ProgressBar,
    /// Print lines rather than draw (`--progress` off a terminal).
    lines: bool,
    chunks: AtomicU64,
    total_chunks: AtomicU64,
    var: Mutex<String>,
}

impl Bar {
    /// A bar shown as `show` says.
    pub fn new(show: Show) -> Bar {
        let tty = std::io::stderr().is_terminal();
        let (target, lines) = match show {
            Show::Never => (ProgressDrawTarget::hidden(), false),
            Show::Always if !tty => (ProgressDrawTarget::hidden(), true),
            _ => (ProgressDrawTarget::stderr(), false),
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta} {msg}",
        ) {
            bar.set_style(style);
        }
        if !bar.is_hidden() {
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        Bar {
            bar,
            lines,
            chunks: AtomicU64::new(0),
            total_chunks: AtomicU64::new(0),
            var: Mutex::new(String::new()),
        }
    }

    fn message(&self) {
        let var = self.var.lock().map(|v| v.clone()).unwrap_or_default();
        self.bar.set_message(format!(
            "chunks {}/{} {var}",
            self.chunks.load(Ordering::Relaxed),
            self.total_chunks.load(Ordering::Relaxed)
        ));
    }

    /// Clear the bar; with lines, say the totals.
    pub fn finish(&self) {
        if self.lines {
            eprintln!(
                "nczcopy: progress: {} of {} bytes, {} of {} chunks, {:.1} s",
                self.bar.position(),
                self.bar.length().unwrap_or(0),
                self.chunks.load(Ordering::Relaxed),
                self.total_chunks.load(Ordering::Relaxed),
                self.bar.elapsed().as_secs_f64()
            );
        }
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn start(&self, bytes: u64, chunks: u64) {
        self.bar.set_length(bytes);
        self.total_chunks.store(chunks, Ordering::Relaxed);
        self.message();
    }

    fn variable(&self, var: &VarPath) {
        if let Ok(mut v) = self.var.lock() {
            *v = var.to_string();
        }
        if self.lines {
            eprintln!("nczcopy: progress: {var}");
        }
        self.message();
    }

    fn advance(&self, bytes: u64, chunks: u64) {
        self.bar.inc(bytes);
        self.chunks.fetch_add(chunks, Ordering::Relaxed);
        self.message();
    }
}
