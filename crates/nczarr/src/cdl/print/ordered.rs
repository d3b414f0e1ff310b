//! Text made in parallel, written in order: pieces of work go to a few worker threads
//! and their texts to the writer in the order the pieces were handed in. Unlike a
//! fork-join per slab, the workers never wait for the slowest piece of a slab before
//! starting on the next one, and the writer writes while they work. A bounded number
//! of pieces is in flight, which bounds memory. [`Now`] takes the same pieces and
//! does each at once on the calling thread, for text too small to be worth threads.

use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::Scope;

use crate::error::{Error, Result};

/// A piece of work: it makes one text.
pub(super) type Job<'a> = Box<dyn FnOnce() -> Result<Vec<u8>> + Send + 'a>;

/// Where pieces are handed in (see [`start`]).
pub(super) struct Pieces<'a> {
    jobs: SyncSender<(Job<'a>, SyncSender<Result<Vec<u8>>>)>,
    order: SyncSender<Receiver<Result<Vec<u8>>>>,
}

/// Where a variable's text goes, in the order it is handed in: [`Pieces`] (made by
/// workers, written by the thread that called [`start`]) or [`Now`].
pub(super) trait Sink<'a> {
    /// Hand in `job`; its text goes after every text handed in before.
    fn job(&mut self, job: Job<'a>) -> Result<()>;

    /// Hand in text already made, to go in its turn.
    fn text(&mut self, text: Vec<u8>) -> Result<()>;
}

impl<'a> Sink<'a> for Pieces<'a> {
    fn job(&mut self, job: Job<'a>) -> Result<()> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.order.send(rx).map_err(|_| closed())?;
        self.jobs.send((job, tx)).map_err(|_| closed())
    }

    fn text(&mut self, text: Vec<u8>) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        let (tx, rx) = mpsc::sync_channel(1);
        // The receiver is still here: this send cannot fail.
        let _ = tx.send(Ok(text));
        self.order.send(rx).map_err(|_| closed())
    }
}

/// Pieces made and written at once, on the calling thread: for a variable of one
/// small slab, whose text costs less than starting threads to make it (a file of
/// 2,000 variables of 20 values started 6,000 threads, and took longer than ncdump).
pub(super) struct Now<'w> {
    out: &'w mut dyn std::io::Write,
    spare: &'w Spare,
}

impl<'w> Now<'w> {
    /// Text written to `out`, its buffers given back to `spare`.
    pub(super) fn new(out: &'w mut dyn std::io::Write, spare: &'w Spare) -> Now<'w> {
        Now { out, spare }
    }
}

impl<'a> Sink<'a> for Now<'_> {
    fn job(&mut self, job: Job<'a>) -> Result<()> {
        let text = job()?;
        self.text(text)
    }

    fn text(&mut self, text: Vec<u8>) -> Result<()> {
        self.out.write_all(&text)?;
        self.spare.give(text);
        Ok(())
    }
}

/// Text buffers written and given back, for the next pieces: a buffer freshly
/// allocated per piece cost a zeroed page per 4 KiB each time (and a free on the
/// writer's thread of memory a worker allocated).
#[derive(Default)]
pub(super) struct Spare(Mutex<Vec<Vec<u8>>>);

/// Buffers kept at most (the pieces in flight are fewer).
const SPARE_MAX: usize = 64;

impl Spare {
    /// An empty buffer with room for `capacity` bytes: the smallest kept one that has
    /// it, or else a new one (with [`with_slack`](crate::mem::with_slack)'s room to
    /// spare) in place of the largest. Ask for the room the text needs, never for a
    /// buffer's capacity: that would grow by the slack at each turn. (Any buffer taken
    /// grew small ones to the size of large ones, in new memory each time, and the
    /// sizes of pieces differ. Growing an empty buffer also copied all its old bytes.)
    pub(super) fn take(&self, capacity: usize) -> Vec<u8> {
        let kept = self.0.lock().ok().and_then(|mut s| {
            let fits = |b: &&Vec<u8>| b.capacity() >= capacity;
            let at = match s.iter().filter(fits).map(Vec::capacity).min() {
                Some(c) => s.iter().position(|b| b.capacity() == c),
                None => (0..s.len()).max_by_key(|&i| s[i].capacity()),
            };
            at.map(|i| s.swap_remove(i))
        });
        match kept {
            Some(buf) if buf.capacity() >= capacity => buf,
            _ => Vec::with_capacity(crate::mem::with_slack(capacity)),
        }
    }

    /// A buffer whose text is written, to be taken again.
    pub(super) fn give(&self, mut buf: Vec<u8>) {
        buf.clear();
        if let Ok(mut s) = self.0.lock() {
            if s.len() < SPARE_MAX {
                s.push(buf);
            }
        }
    }
}

fn closed() -> Error {
    Error::Internal("output closed".into())
}

/// Start `threads` workers in `scope`; `window` pieces at most are in flight. Returns
/// where to hand pieces in, and the texts in order (ending when the [`Pieces`] is
/// dropped and every piece is done).
pub(super) fn start<'scope, 'env>(
    scope: &'scope Scope<'scope, 'env>,
    threads: usize,
    window: usize,
) -> (Pieces<'env>, impl Iterator<Item = Result<Vec<u8>>> + 'env)
where
    'env: 'scope,
{
    let (jobs, job_rx) = mpsc::sync_channel::<(Job<'env>, SyncSender<Result<Vec<u8>>>)>(window);
    let (order, order_rx) = mpsc::sync_channel::<Receiver<Result<Vec<u8>>>>(window);
    let job_rx = Arc::new(Mutex::new(job_rx));
    for _ in 0..threads.max(1) {
        let job_rx = Arc::clone(&job_rx);
        scope.spawn(move || loop {
            // The lock is held only to take a piece, not while working on it.
            let next = match job_rx.lock() {
                Ok(rx) => rx.recv(),
                Err(_) => return,
            };
            let Ok((job, done)) = next else { return };
            // The writer gone (it failed) is reported by the writer.
            let _ = done.send(job());
        });
    }
    // A worker that panicked drops its sender: that piece's text is an error.
    let texts = order_rx.into_iter().map(|rx| {
        rx.recv()
            .map_err(|_| Error::Internal("the data formatter failed".into()))
            .and_then(|text| text)
    });
    (Pieces { jobs, order }, texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spares_are_taken_smallest_fitting_first_else_largest_replaced() {
        let spare = Spare::default();
        for n in [10, 1000, 100] {
            spare.give(Vec::with_capacity(n));
        }
        let b = spare.take(50);
        assert!((100..1000).contains(&b.capacity()), "{}", b.capacity());
        let b = spare.take(5000);
        assert!(b.capacity() >= 5000);
        // Only the smallest is left, and a new buffer once none is.
        assert!(spare.take(1).capacity() >= 10);
        assert!(spare.take(20).capacity() >= 20);
    }

    #[test]
    fn buffers_handed_on_and_given_back_turn_after_turn_stay_the_same_size() {
        // As a line hands on its text: filled, swapped for a spare of as much room,
        // written (two in flight), given back. A new buffer's slack must not compound.
        let spare = Spare::default();
        let mut line = spare.take(1 << 20);
        let mut written = std::collections::VecDeque::new();
        for _ in 0..200 {
            line.resize(1 << 20, b'x');
            let len = line.len();
            written.push_back(std::mem::replace(&mut line, spare.take(len)));
            if written.len() > 2 {
                spare.give(written.pop_front().unwrap());
            }
            assert!(
                line.capacity() <= crate::mem::with_slack(1 << 20),
                "{}",
                line.capacity()
            );
        }
    }
}
