//! The progress bar of a copy, on stderr: drawn on a terminal; with `--progress` off a
//! terminal (a batch job's log), a line per variable, a line at least every
//! [`LINE_EVERY`] while one is copied, and a last line of totals instead; nothing with
//! `--quiet`.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
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

/// How often a log gets a progress line while a variable is copied (seconds in
/// `NCZCOPY_PROGRESS_EVERY` change it).
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// [`LINE_EVERY`], or what `NCZCOPY_PROGRESS_EVERY` says (seconds, at least 0.1).
fn line_every() -> Duration {
    std::env::var("NCZCOPY_PROGRESS_EVERY")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite())
        .map_or(LINE_EVERY, |s| Duration::from_secs_f64(s.max(0.1)))
}

/// Bytes copied, chunks written, the current variable.
pub struct Bar {
    bar: ProgressBar,
    /// Print lines rather than draw (`--progress` off a terminal).
    lines: bool,
    counts: Arc<Counts>,
    /// What stops the thread that prints a line every [`LINE_EVERY`] (lines only).
    ticker: Option<Arc<Ticker>>,
}

/// The stop of the thread that prints progress lines, and its wake-up.
#[derive(Default)]
struct Ticker {
    stopped: Mutex<bool>,
    wake: std::sync::Condvar,
}

/// What the lines say, shared with the ticker.
struct Counts {
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
        let counts = Arc::new(Counts {
            chunks: AtomicU64::new(0),
            total_chunks: AtomicU64::new(0),
            var: Mutex::new(String::new()),
        });
        let ticker = lines.then(|| {
            let ticker = Arc::new(Ticker::default());
            let (bar, counts, t) = (bar.clone(), Arc::clone(&counts), Arc::clone(&ticker));
            let every = line_every();
            std::thread::spawn(move || {
                let mut stopped = t
                    .stopped
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                while !*stopped {
                    let (s, timeout) = t
                        .wake
                        .wait_timeout(stopped, every)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    stopped = s;
                    if timeout.timed_out() && !*stopped {
                        eprintln!("nczcopy: progress: {}", counts.line(&bar));
                    }
                }
            });
            ticker
        });
        Bar {
            bar,
            lines,
            counts,
            ticker,
        }
    }

    fn message(&self) {
        let var = self
            .counts
            .var
            .lock()
            .map(|v| v.clone())
            .unwrap_or_default();
        self.bar.set_message(format!(
            "chunks {}/{} {var}",
            self.counts.chunks.load(Ordering::Relaxed),
            self.counts.total_chunks.load(Ordering::Relaxed)
        ));
    }

    /// Clear the bar; with lines, say the totals.
    pub fn finish(&self) {
        if let Some(t) = &self.ticker {
            *t.stopped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
            t.wake.notify_all();
        }
        if self.lines {
            // The totals are the copy's, not the last variable's.
            if let Ok(mut v) = self.counts.var.lock() {
                v.clear();
            }
            eprintln!("nczcopy: progress: done: {}", self.counts.line(&self.bar));
        }
        self.bar.finish_and_clear();
    }
}

impl Counts {
    /// `/v: 120 of 400 bytes (30%), 3 of 10 chunks, 12.0 s`.
    fn line(&self, bar: &ProgressBar) -> String {
        let var = self.var.lock().map(|v| v.clone()).unwrap_or_default();
        let (done, total) = (bar.position(), bar.length().unwrap_or(0));
        format!(
            "{var}{}{done} of {total} bytes ({:.0}%), {} of {} chunks, {:.1} s",
            if var.is_empty() { "" } else { ": " },
            if total > 0 {
                done as f64 * 100.0 / total as f64
            } else {
                100.0
            },
            self.chunks.load(Ordering::Relaxed),
            self.total_chunks.load(Ordering::Relaxed),
            bar.elapsed().as_secs_f64()
        )
    }
}

impl Progress for Bar {
    fn start(&self, bytes: u64, chunks: u64) {
        self.bar.set_length(bytes);
        self.counts.total_chunks.store(chunks, Ordering::Relaxed);
        self.message();
    }

    fn variable(&self, var: &VarPath) {
        if let Ok(mut v) = self.counts.var.lock() {
            *v = var.to_string();
        }
        if self.lines {
            eprintln!("nczcopy: progress: {var}");
        }
        self.message();
    }

    fn advance(&self, bytes: u64, chunks: u64) {
        self.bar.inc(bytes);
        self.counts.chunks.fetch_add(chunks, Ordering::Relaxed);
        self.message();
    }
}
