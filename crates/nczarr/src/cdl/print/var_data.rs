//! A variable's data section: `vardata` from ncdump's `vardata.c`. Its slabs are read
//! (bounded memory), laid out by `data::Layout` in pieces of work on a few threads, and
//! written in order; a variable of one small slab is done on the calling thread.

use std::io::Write;
use std::sync::{mpsc, Arc};

use super::data::Layout;
use super::escape;
use super::line::Line;
use super::ordered::{self, Sink as _, Spare};
use super::values::{fill_for, format_for, format_slab, ValueFormat};
use super::PrintOptions;
use crate::cftime::TimeUnits;
use crate::chunking::{slabs, small_first, Region, SlabOrder};
use crate::error::{Error, Result};
use crate::model::{NcType, Values, Var, VarPath};
use crate::source::DataSource;

/// What the data section needs to know of a variable besides its values.
pub(crate) struct VarLayout<'a> {
    /// The variable.
    pub(crate) var: &'a Var,
    /// Its dimension lengths.
    pub(crate) shape: &'a [u64],
    /// Which of its dimensions are unlimited.
    pub(crate) unlimited: &'a [bool],
    /// How it is chunked (its shape when not chunked): slabs follow chunks.
    pub(crate) chunks: &'a [u64],
    /// With `-t`/`-i`: the time units its values print as dates with.
    pub(crate) time: Option<&'a TimeUnits>,
    /// Its reads cost a round trip each (a remote file or store): slabs as large as
    /// [`REMOTE_SLAB_FACTOR`] budgets, not pieces.
    pub(crate) remote: bool,
}

/// A remote variable's slab is this many slab budgets: each slab is a round of
/// requests, and a piece of two chunks a request, two in flight, took a remote dump of
/// 365 chunks 173 requests and 2.7 s at 20 ms a request.
const REMOTE_SLAB_FACTOR: u64 = 8;

/// Values a piece of whole rows holds at most (a row at least). Each piece costs a few
/// thread wake-ups (its worker, the writer, the formatter waiting for room): in pieces
/// of 16 Ki float values a dump switched threads 5,000 times in 0.2 s, a tenth of its
/// time in the scheduler (at 128 Ki: 20 fewer milliseconds, a tenth of a 20x dump; the
/// pieces in flight hold about 1.5 MB of text each).
const PIECE_VALUES: u64 = 1 << 17;

/// Pieces in flight at most, whatever the threads (each holds its text and its slab).
const WINDOW_MAX: usize = 16;

/// Slabs of a variable read at once while it is printed.
const READERS: usize = 2;

/// The first slab of a variable (not one small slab, done at once) is cut to about this
/// share of a slab (see [`small_first`]) when it holds more than this share of its slab
/// budget: its values are laid out while the rest of the slab is read.
const FIRST_SLAB_PARTS: u64 = 8;

/// Print the data of the variable at `path`.
pub(crate) fn print_var(
    out: &mut dyn Write,
    source: &dyn DataSource,
    path: &VarPath,
    var_layout: &VarLayout<'_>,
    indent: usize,
    opts: &PrintOptions,
) -> Result<()> {
    let VarLayout {
        var,
        shape,
        unlimited: _,
        chunks,
        time,
        remote,
    } = *var_layout;
    let rank = shape.len();
    let max = opts.max_line_len as i64 - 2;
    let spare = Spare::default();
    let (e, layout) = data_head(var_layout, indent, opts, 1 << 16);
    let fill = fill_for(var);
    let fmt = format_for(var, opts, time);
    let budget = if remote {
        opts.slab_elements_of(var.nc_type)
            .saturating_mul(REMOTE_SLAB_FACTOR)
    } else {
        slab_budget(opts.slab_elements_of(var.nc_type), shape, chunks)
    };
    let regions = slabs(shape, chunks, budget, SlabOrder::Output);
    // One small slab is done on this thread (below): no pipeline to start sooner.
    let one_small = matches!(&regions[..], [one] if one.len().is_some_and(|n| n <= PIECE_VALUES));
    let regions = if one_small {
        regions
    } else {
        small_first(regions, chunks, FIRST_SLAB_PARTS, budget / FIRST_SLAB_PARTS)
    };
    // Borrowed by the pieces of work, which outlive the formatting thread's loop.
    let v = VarText {
        layout: &layout,
        fmt: &fmt,
        fill: fill.as_ref(),
        spare: &spare,
        source,
        path,
        indent,
        max,
    };
    let v = &v;
    // Each slab is one piece of work, read by the worker that lays it out: no reader
    // and formatter threads to hand it over (three thread wake-ups a slab), and the
    // slab is laid out from the cache it was read into. A million-string dump (then in
    // slabs of 25,000 strings) took 7% less time than with two readers.
    let in_pieces =
        rank >= 2 && var.nc_type != NcType::Char && whole_row_pieces(&regions, layout.ncols);
    if one_small {
        let mut now = ordered::Now::new(out, &spare);
        return if in_pieces {
            v.read_in_pieces(&regions, e, &mut now)
        } else {
            v.lay_out(regions.iter().map(|r| source.read(path, r)), e, &mut now)
        };
    }
    let threads = threads();
    let window = (4 * threads).min(WINDOW_MAX);
    if in_pieces {
        let regions = &regions;
        return std::thread::scope(|scope| -> Result<()> {
            let (mut pieces, texts) = ordered::start(scope, threads, window);
            let formatter = scope.spawn(move || v.read_in_pieces(regions, e, &mut pieces));
            write_then_join(out, texts, &spare, formatter)
        });
    }
    std::thread::scope(|scope| -> Result<()> {
        // Two readers take the slabs in turn, each handing its slab over when the
        // formatter takes it: a slab is read while the one before is, not only while
        // it is printed (a string dump's reading, one thread's work, was its longest
        // path). One reader for a variable of one slab.
        let readers = regions.len().min(READERS);
        let mut slabs = Vec::with_capacity(readers);
        let mut reading = Vec::with_capacity(readers);
        for first in 0..readers {
            let (tx, rx) = mpsc::sync_channel::<Result<Values>>(0);
            slabs.push(rx);
            let regions = &regions;
            reading.push(scope.spawn(move || {
                for r in regions.iter().skip(first).step_by(readers) {
                    if tx.send(source.read(path, r)).is_err() {
                        break;
                    }
                }
            }));
        }
        // The slabs in order, from each reader in turn. A reader stops early only when
        // the formatter has stopped taking slabs, or when it panicked.
        let rx = (0..regions.len()).map(move |i| {
            slabs[i % readers]
                .recv()
                .unwrap_or_else(|_| Err(Error::Internal("the data reader failed".into())))
        });
        // Text is written on this thread, in order, while workers lay out what follows.
        let (mut pieces, texts) = ordered::start(scope, threads, window);
        let formatter = scope.spawn(move || v.lay_out(rx, e, &mut pieces));
        let result = write_then_join(out, texts, &spare, formatter);
        for reader in reading {
            let _ = reader.join();
        }
        result
    })
}

/// The start of a variable's data (`name = `, or `name =` and a new line for more
/// than one dimension) with the line position `vardata` sets after it, and the
/// variable's row layout.
pub(super) fn data_head<'a>(
    var_layout: &VarLayout<'a>,
    indent: usize,
    opts: &'a PrintOptions,
    room: usize,
) -> (Line, Layout<'a>) {
    let VarLayout {
        var,
        shape,
        unlimited,
        ..
    } = *var_layout;
    let rank = shape.len();
    let mut e = Line::new(
        0,
        opts.max_line_len as i64 - 2,
        indent,
        Vec::with_capacity(room),
    );
    e.raw(b"\n");
    e.raw(" ".repeat(indent).as_bytes());
    e.raw(b" ");
    e.raw(escape::escaped_name(&var.name).as_bytes());
    if rank <= 1 {
        e.raw(b" = ");
        e.linep = var.name.len() as i64 + 4 + indent as i64;
    } else {
        e.raw(b" =\n  ");
        e.linep = 2 + indent as i64;
    }
    let layout = Layout {
        var,
        shape,
        unlimited,
        opts,
        rank,
        ncols: if rank == 0 { 1 } else { shape[rank - 1] },
    };
    (e, layout)
}

/// What the text of a variable's data borrows, from its pieces of work too.
struct VarText<'a> {
    layout: &'a Layout<'a>,
    fmt: &'a ValueFormat,
    fill: Option<&'a Values>,
    spare: &'a Spare,
    source: &'a dyn DataSource,
    path: &'a VarPath,
    indent: usize,
    max: i64,
}

impl<'a> VarText<'a> {
    /// Each of `regions` (whole rows, see [`whole_row_pieces`]) read and laid out by
    /// one piece of work, after the text `e` holds.
    fn read_in_pieces(
        &'a self,
        regions: &'a [Region],
        mut e: Line,
        to: &mut impl ordered::Sink<'a>,
    ) -> Result<()> {
        let ncols = self.layout.ncols;
        e.hand(to, self.spare)?;
        let mut first_row = 0u64;
        for r in regions {
            let rows = r.len().unwrap_or(0) / ncols;
            to.job(Box::new(move || {
                let values = self.source.read(self.path, r)?;
                if values.len() as u64 != rows * ncols {
                    return Err(Error::Internal(format!(
                        "{} values read for a slab of {}",
                        values.len(),
                        rows * ncols
                    )));
                }
                let text = self.rows_text(&values, 0, first_row, rows);
                self.source.recycle(values);
                Ok(text)
            }))?;
            first_row += rows;
        }
        Ok(())
    }

    /// The text of `n` whole rows from row `first`, whose values start at `offset` of
    /// `values` (each row starts a line: rows after the variable's name and ` =` do).
    fn rows_text(&self, values: &Values, offset: u64, first: u64, n: u64) -> Vec<u8> {
        let ncols = self.layout.ncols;
        let start = (2 + self.indent as i64, self.max, self.indent);
        let buf = self.spare.take(text_room(values, offset, n * ncols));
        self.layout.rows(
            values,
            offset as usize,
            first,
            n,
            self.fmt,
            self.fill,
            start,
            buf,
        )
    }

    /// The variable's `slabs`, in order, laid out after the text `e` holds: whole rows
    /// in pieces of work, single rows and rows cut by a slab here.
    fn lay_out(
        &'a self,
        slabs: impl Iterator<Item = Result<Values>>,
        mut e: Line,
        to: &mut impl ordered::Sink<'a>,
    ) -> Result<()> {
        let VarText {
            layout,
            fmt,
            fill,
            spare,
            source,
            indent,
            ..
        } = *self;
        let (rank, ncols) = (layout.rank, layout.ncols);
        let text_mode = layout.var.nc_type == NcType::Char;
        let mut element: u64 = 0;
        let mut row_text: Vec<u8> = Vec::new();
        for values in slabs {
            let values = Arc::new(values?);
            let n = values.len() as u64;
            if text_mode {
                let Values::Char(bytes) = &*values else {
                    continue;
                };
                for &b in bytes {
                    let col = element % ncols;
                    let row = element / ncols;
                    if col == 0 {
                        layout.row_start(&mut e, row);
                        row_text.clear();
                    }
                    row_text.push(b);
                    if col == ncols - 1 {
                        escape::char_row(&mut e.buf, &row_text);
                        layout.row_end(&mut e, row, b"");
                    }
                    element += 1;
                }
            } else if rank >= 2 && element.is_multiple_of(ncols) && n.is_multiple_of(ncols) {
                // Whole rows: each row starts a line, so rows are laid out in parallel,
                // in pieces of about PIECE_VALUES values.
                let first_row = element / ncols;
                let rows = n / ncols;
                let per = (PIECE_VALUES / ncols).max(1);
                e.hand(to, spare)?;
                for r in (0..rows).step_by(per as usize) {
                    let k = per.min(rows - r);
                    let values = Arc::clone(&values);
                    to.job(Box::new(move || {
                        let text = self.rows_text(&values, r * ncols, first_row + r, k);
                        give_back(source, values);
                        Ok(text)
                    }))?;
                }
                e.linep = indent as i64;
                element += n;
            } else {
                // A single row (rank 0 or 1) or rows cut by a slab: values are formatted
                // in parallel, then laid out in order.
                let texts = format_slab(&values, fmt, fill);
                let mut col = element % ncols;
                let mut row = element / ncols;
                for t in &texts {
                    let mut start = 0;
                    for &end in &t.ends {
                        let v = &t.text[start..end];
                        start = end;
                        if col == 0 {
                            layout.row_start(&mut e, row);
                        }
                        if col + 1 < ncols {
                            layout.value(&mut e, row, col, v);
                            col += 1;
                        } else {
                            layout.row_end(&mut e, row, v);
                            col = 0;
                            row += 1;
                        }
                    }
                    if e.buf.len() > 1 << 20 {
                        e.hand(to, spare)?;
                    }
                }
                element += n;
            }
            give_back(source, values);
            e.hand(to, spare)?;
        }
        e.hand(to, spare)
    }
}

/// The processors to lay out text on: asked once (the standard library reads the
/// cgroup's quota files at each asking, and a dataset has thousands of variables).
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(2, usize::from))
}

/// Write `texts` to `out` as they come, each buffer given back once written, then wait
/// for the `formatter` that hands them in: the first error of either.
fn write_then_join(
    out: &mut dyn Write,
    mut texts: impl Iterator<Item = Result<Vec<u8>>>,
    spare: &Spare,
    formatter: std::thread::ScopedJoinHandle<'_, Result<()>>,
) -> Result<()> {
    let mut now = ordered::Now::new(out, spare);
    let written = texts.try_for_each(|t| now.text(t?));
    // A failed write closes the channel, which stops the formatter.
    drop(texts);
    let formatted = formatter
        .join()
        .unwrap_or_else(|_| Err(Error::Internal("the data formatter failed".into())));
    written?;
    formatted
}

/// Elements a slab holds at most, of `budget` for its type: a piece's when a variable
/// of rank 2 or more is in chunks of whole rows (full along every dimension but the
/// first) no larger than that, so that each slab of whole chunks is whole rows and one
/// piece of work, read by the worker that lays it out (see [`whole_row_pieces`]): 7%
/// off a dump of 64,800-value chunks, 12% with `-b c`. Other chunks keep `budget`: a
/// chunk is decoded once per slab it meets (narrower chunks would be met by four times
/// as many slabs), and a row longer than a piece must not be cut.
fn slab_budget(budget: u64, shape: &[u64], chunks: &[u64]) -> u64 {
    let chunk = chunks.iter().fold(1u64, |a, &c| a.saturating_mul(c.max(1)));
    let whole_rows = shape.len() >= 2
        && chunks.len() == shape.len()
        && chunks[1..].iter().zip(&shape[1..]).all(|(c, s)| c >= s);
    if whole_rows && chunk <= PIECE_VALUES {
        budget.min(PIECE_VALUES)
    } else {
        budget
    }
}

/// True when each of `regions` is whole rows of `ncols` values (the whole last
/// dimension, every step), no more than a piece's.
fn whole_row_pieces(regions: &[Region], ncols: u64) -> bool {
    ncols > 0
        && regions.iter().all(|r| {
            r.count.last() == Some(&ncols)
                && r.start.last() == Some(&0)
                && r.stride.last() == Some(&1)
                && r.len().is_some_and(|n| n > 0 && n <= PIECE_VALUES)
        })
}

/// Room for the text of values `first..first + n`: numbers take about 12 bytes with
/// their separator; strings their bytes and 6 (quotes, separator, a line's share). A
/// guess short of the text costs a copy of all of it into fresh memory.
fn text_room(values: &Values, first: u64, n: u64) -> usize {
    match values {
        Values::String(s) => s.byte_len(first as usize..(first + n) as usize) + n as usize * 6,
        _ => n as usize * 12,
    }
}

/// The slab `values` to its source once the last piece of work holding it is done.
fn give_back(source: &dyn DataSource, values: Arc<Values>) {
    // Exactly one holder gets the values, however the last ones race.
    if let Some(values) = Arc::into_inner(values) {
        source.recycle(values);
    }
}

impl Line {
    /// Hand the text laid out so far to the writer (none: the buffer is kept).
    fn hand<'a>(&mut self, to: &mut impl ordered::Sink<'a>, spare: &Spare) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        // Room for as much text again: not the buffer's capacity, which a new buffer's
        // slack would grow by an eighth at every hand-off, past any buffer given back.
        let len = self.buf.len();
        to.text(std::mem::replace(&mut self.buf, spare.take(len)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabs_are_a_piece_only_for_small_chunks_of_whole_rows() {
        let budget = 1 << 19;
        // Chunks of whole rows no larger than a piece: slabs of a piece.
        assert_eq!(
            slab_budget(budget, &[365, 180, 360], &[1, 180, 360]),
            PIECE_VALUES
        );
        assert_eq!(
            slab_budget(budget, &[1000, 1000], &[100, 1000]),
            PIECE_VALUES
        );
        // A smaller budget (strings) stays.
        assert_eq!(slab_budget(1 << 16, &[1000, 1000], &[100, 1000]), 1 << 16);
        // Chunks narrower than a row, chunks larger than a piece, vectors: the budget.
        assert_eq!(slab_budget(budget, &[4096, 4096], &[256, 256]), budget);
        assert_eq!(slab_budget(budget, &[10, 200_000], &[1, 100_000]), budget);
        assert_eq!(
            slab_budget(budget, &[100, 1000, 1000], &[1, 1000, 1000]),
            budget
        );
        assert_eq!(slab_budget(budget, &[1 << 20], &[1000]), budget);
    }

    #[test]
    fn only_regions_of_whole_rows_up_to_a_piece_are_pieces() {
        let rows = |start: u64, n: u64| Region::block(vec![start, 0], vec![n, 10]);
        assert!(whole_row_pieces(&[rows(0, 3), rows(3, 7)], 10));
        // A cut inside a row, a row of a stride, more than a piece, no columns.
        assert!(!whole_row_pieces(
            &[Region::block(vec![0, 0], vec![1, 5])],
            10
        ));
        let mut strided = rows(0, 2);
        strided.stride = vec![1, 2];
        assert!(!whole_row_pieces(&[strided], 10));
        assert!(!whole_row_pieces(&[rows(0, PIECE_VALUES / 10 + 1)], 10));
        assert!(!whole_row_pieces(&[rows(0, 1)], 0));
    }
}
