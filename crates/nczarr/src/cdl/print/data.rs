//! The data section: `vardata`/`print_rows`/`lput` from ncdump's `vardata.c`.
//!
//! Values are read slab by slab (bounded memory) on a second thread while the
//! previous slab is printed; numbers are formatted in parallel, then laid out on
//! lines by one sequential pass that reproduces `lput`'s wrapping exactly.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::{mpsc, Arc};

use super::batch::{FloatDigits, NumberWriter, BLOCK};
use super::escape;
use super::line::Line;
use super::number::{self, Texts16, NUM_ROOM};
use super::ordered::{self, Spare};
use super::values::{
    double_is_fill, fill_for, float_is_fill, format_for, format_slab, format_value, number_text,
    ValueFormat,
};
use super::{IndexStyle, PrintOptions};
use crate::cftime::TimeUnits;
use crate::chunking::{slabs, small_first, SlabOrder};
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
}

/// The comment `-f` puts after each value of a row (see [`Layout::annotation`]).
struct Annotation {
    prefix: Vec<u8>,
    first: u64,
    suffix: Vec<u8>,
}

impl Annotation {
    /// The comment after value `iel` of the row.
    fn put(&self, e: &mut Line, iel: u64) {
        e.raw(&self.prefix);
        let mut n = [0u8; NUM_ROOM];
        let len = number::unsigned_into(&mut n, self.first + iel);
        e.raw(&n[..len]);
        e.raw(&self.suffix);
    }
}

/// Per-variable layout facts for the row walk.
struct Layout<'a> {
    var: &'a Var,
    shape: &'a [u64],
    unlimited: &'a [bool],
    opts: &'a PrintOptions,
    rank: usize,
    ncols: u64,
}

impl Layout<'_> {
    /// Multi-index of row `r` (dimensions before the last), last index 0.
    fn corner(&self, row: u64) -> Vec<u64> {
        let mut cor = vec![0u64; self.rank.max(1)];
        let mut r = row;
        for d in (0..self.rank.saturating_sub(1)).rev() {
            cor[d] = r % self.shape[d];
            r /= self.shape[d];
        }
        cor
    }

    fn lastrow(&self, cor: &[u64]) -> bool {
        (0..self.rank.saturating_sub(1)).all(|j| cor[j] == self.shape[j] - 1)
    }

    /// `{` opened before this row: levels 1.. with an unlimited dimension whose inner
    /// indices (before the last dimension) are all zero.
    fn opens(&self, cor: &[u64]) -> usize {
        (1..self.rank)
            .filter(|&l| self.unlimited[l] && (l..self.rank - 1).all(|j| cor[j] == 0))
            .count()
    }

    /// `}` closed after this row.
    fn closes(&self, cor: &[u64]) -> usize {
        (1..self.rank)
            .filter(|&l| {
                self.unlimited[l] && (l..self.rank - 1).all(|j| cor[j] == self.shape[j] - 1)
            })
            .count()
    }

    fn name(&self) -> String {
        escape::escaped_name(&self.var.name)
    }

    fn annotate_brief(&self, e: &mut Line, cor: &[u64], style: IndexStyle) {
        let mut s = format!("// {}(", self.name());
        let last = self.shape[self.rank - 1];
        match style {
            IndexStyle::C => {
                for c in &cor[..self.rank - 1] {
                    let _ = write!(s, "{c},");
                }
                if last == 1 {
                    s.push('0');
                } else {
                    let _ = write!(s, " 0-{}", last - 1);
                }
            }
            IndexStyle::Fortran => {
                if last == 1 {
                    s.push('1');
                } else {
                    let _ = write!(s, "1-{} ", last);
                }
                for d in (0..self.rank - 1).rev() {
                    let _ = write!(s, ",{}", 1 + cor[d]);
                }
            }
        }
        s.push_str(")\n");
        e.raw(s.as_bytes());
        e.raw(" ".repeat(e.indent).as_bytes());
        e.raw(b"    ");
        e.linep = 4 + e.indent as i64;
    }

    /// `-f`'s comment after value `iel` of the row at `cor`: `  // name(` and the
    /// indices before the one that varies along the row, that index's value for the
    /// row's first element, and what follows it up to the next line's indent.
    fn annotation(&self, cor: &[u64], style: IndexStyle) -> Annotation {
        let last = self.rank.saturating_sub(1);
        let mut prefix = format!("  // {}(", self.name());
        let mut suffix = String::new();
        let first = match style {
            IndexStyle::C => {
                for c in &cor[..last] {
                    let _ = write!(prefix, "{c},");
                }
                cor[last]
            }
            IndexStyle::Fortran => {
                for d in (0..last).rev() {
                    let _ = write!(suffix, ",{}", 1 + cor[d]);
                }
                cor[last] + 1
            }
        };
        suffix.push_str(")\n    ");
        Annotation {
            prefix: prefix.into_bytes(),
            first,
            suffix: suffix.into_bytes(),
        }
    }

    fn annotate(&self, e: &mut Line, cor: &[u64], iel: u64, style: IndexStyle) {
        self.annotation(cor, style).put(e, iel);
    }

    /// Everything printed before the first value of row `row`.
    fn row_start(&self, e: &mut Line, row: u64) {
        let cor = self.corner(row);
        for _ in 0..self.opens(&cor) {
            e.lput(b"{");
        }
        if let Some(style) = self.opts.brief {
            if self.rank > 1 && self.ncols > 0 {
                self.annotate_brief(e, &cor, style);
            }
        }
    }

    /// The last value of row `row` (already formatted in `last`) and the row's end.
    fn row_end(&self, e: &mut Line, row: u64, last: &[u8]) {
        let cor = self.corner(row);
        let lastrow = self.lastrow(&cor);
        let mut sb = last.to_vec();
        sb.extend(std::iter::repeat_n(b'}', self.closes(&cor)));
        if let Some(style) = self.opts.full {
            e.raw(&sb);
            e.raw(if lastrow { b";" } else { b"," });
            self.annotate(e, &cor, self.ncols.saturating_sub(1), style);
        } else {
            e.lput(&sb);
            if lastrow {
                e.lput(b" ;");
                e.lput(b"\n");
            } else {
                e.lput(b",\n");
                e.lput(b"  ");
            }
        }
    }
}

impl Layout<'_> {
    /// One value that is not the last of its row.
    fn value(&self, e: &mut Line, row: u64, col: u64, v: &[u8]) {
        match self.opts.full {
            Some(style) => {
                e.raw(v);
                e.raw(b", ");
                self.annotate(e, &self.corner(row), col, style);
            }
            None => e.lput_comma(v),
        }
    }

    /// Whole rows `first..first + n` of `values` (starting at `offset`), each laid out
    /// from the line position a row always starts at, into `buf`.
    #[allow(clippy::too_many_arguments)]
    fn rows(
        &self,
        values: &Values,
        offset: usize,
        first: u64,
        n: u64,
        fmt: &ValueFormat,
        fill: Option<&Values>,
        start: (i64, i64, usize),
        buf: Vec<u8>,
    ) -> Vec<u8> {
        let rows = Rows {
            values,
            offset,
            first,
            n,
            fmt,
            fill,
            start,
        };
        // Floats and doubles in the default format get a loop of their own, with the
        // type and fill value decided once rather than per value.
        macro_rules! floats {
            ($variant:ident, $digits:ident, $is_fill:expr) => {
                if let (Values::$variant(v), ValueFormat::Default { $digits, .. }) = (values, fmt) {
                    let fill = match fill {
                        Some(Values::$variant(f)) => f.first().copied(),
                        _ => None,
                    };
                    return self.rows_with(
                        &rows,
                        buf,
                        Some(FloatDigits::new(v, fill, $is_fill, *$digits)),
                        None::<&ValueText>,
                    );
                }
            };
        }
        floats!(Float, float_digits, float_is_fill);
        floats!(Double, double_digits, double_is_fill);
        // Strings: the fill value (as a C string) decided once, no number to try.
        if let (Values::String(v), ValueFormat::Default { .. }) = (values, fmt) {
            let fill = match fill {
                Some(Values::String(f)) => f.first().map(|s| s.map(escape::c_string)),
                _ => None,
            };
            let text = |out: &mut Vec<u8>, i: usize| {
                let s = v.value_and_after(i);
                if fill.is_some_and(|f| escape::same_c_string(f, s.map(|(s, len)| &s[..len]))) {
                    out.push(b'_');
                } else {
                    escape::string_value_from(out, s);
                }
            };
            return self.rows_with(&rows, buf, None::<fn(&mut [u8], usize) -> _>, Some(&text));
        }
        // Integers likewise: the fill value is compared as the variable's own type.
        macro_rules! integers {
            ($($variant:ident => $text:expr),*) => {
                match (values, fmt) {
                    $((Values::$variant(v), ValueFormat::Default { .. }) => {
                        let fill = match fill {
                            Some(Values::$variant(f)) => f.first().copied(),
                            _ => None,
                        };
                        // The one value not written in place is the fill value.
                        return self.rows_with(&rows, buf, Some(|out: &mut [u8], i: usize| {
                            let x = v[i];
                            (fill != Some(x)).then(|| $text(out, x))
                        }), Some(&|out: &mut Vec<u8>, _| out.push(b'_')));
                    })*
                    _ => {}
                }
            };
        }
        let signed = |out: &mut [u8], x: i64| number::signed_into(out, x);
        integers!(
            Byte => |out, x: i8| Texts16::signed().put(out, x as i16 as u16),
            Short => |out, x: i16| Texts16::signed().put(out, x as u16),
            Int => |out, x: i32| signed(out, x.into()),
            Int64 => signed,
            UByte => |out, x: u8| Texts16::unsigned().put(out, x.into()),
            UShort => |out, x: u16| Texts16::unsigned().put(out, x),
            UInt => |out, x: u32| number::unsigned_into(out, x.into()),
            UInt64 => number::unsigned_into
        );
        self.rows_with(
            &rows,
            buf,
            Some(|out: &mut [u8], i| number_text(out, values, i, fmt, fill)),
            None::<&ValueText>,
        )
    }

    /// [`Layout::rows`] with `number` writing value `i` in place where it can (see
    /// [`number_text`]), and `other` (or [`format_value`]) appending it where there
    /// is no `number` or it does not write. Both are known to the compiler here (no
    /// call through a pointer per value, nothing tried for strings).
    fn rows_with<N, O>(
        &self,
        rows: &Rows<'_>,
        buf: Vec<u8>,
        mut number: Option<N>,
        other: Option<&O>,
    ) -> Vec<u8>
    where
        N: NumberWriter,
        O: Fn(&mut Vec<u8>, usize) + ?Sized,
    {
        let Rows {
            values,
            offset,
            first,
            n,
            fmt,
            fill,
            start,
        } = *rows;
        let ncols = self.ncols as usize;
        let mut line = Line::new(start.0, start.1, start.2, buf);
        let mut text = Vec::with_capacity(32);
        let mut scratch = String::new();
        // Value `i`'s text into `text`, by `number` where it can.
        let mut text_of = |number: Option<&N>, text: &mut Vec<u8>, i: usize| {
            text.clear();
            if let Some(number) = number {
                number::make_room(text);
                if let Some(n) = number.write(text, i) {
                    text.truncate(n);
                    return;
                }
                text.clear();
            }
            match other {
                Some(other) => other(text, i),
                None => format_value(text, values, i, fmt, fill, &mut scratch),
            }
        };
        for r in 0..n {
            let row = first + r;
            if r > 0 {
                // After ",\n" and "  ": where every row but the first starts.
                line.linep = 2 + start.2 as i64;
            }
            self.row_start(&mut line, row);
            let base = offset + r as usize * ncols;
            let annotation = self
                .opts
                .full
                .map(|style| self.annotation(&self.corner(row), style));
            let mut c = 0;
            while c < ncols {
                if c % BLOCK == 0 {
                    if let Some(number) = number.as_mut() {
                        number.prepare(base + c, BLOCK.min(ncols - c));
                    }
                }
                let number = number.as_ref();
                if c + 1 < ncols {
                    if let Some(a) = &annotation {
                        // `-f`: no wrapping; the value, ", " and its comment.
                        let written =
                            number.is_some_and(|n| line.raw_number(|out| n.write(out, base + c)));
                        if !written {
                            text_of(number, &mut text, base + c);
                            line.raw(&text);
                        }
                        line.raw(b", ");
                        a.put(&mut line, c as u64);
                        c += 1;
                        continue;
                    }
                    if let Some(number) = number {
                        // The rest of the block but the row's last value, while the
                        // writer takes them; a value it does not goes on below.
                        let run = (BLOCK - c % BLOCK).min(ncols - 1 - c);
                        let done = line.lput_numbers_comma(number, base + c, run);
                        c += done;
                        if done == run {
                            continue;
                        }
                    }
                    if let Some(other) = other {
                        line.lput_appended_comma(|out| other(out, base + c));
                        c += 1;
                        continue;
                    }
                }
                text_of(number, &mut text, base + c);
                if c + 1 < ncols {
                    self.value(&mut line, row, c as u64, &text);
                } else {
                    self.row_end(&mut line, row, &text);
                }
                c += 1;
            }
        }
        line.buf
    }
}

/// Appends the text of value `i` (for the values a number writer does not take).
type ValueText<'a> = dyn Fn(&mut Vec<u8>, usize) + 'a;

/// Whole rows of a slab to lay out: `n` rows from row `first`, whose values start at
/// `offset` of `values`; `start` is the line position, limit and indent of the first.
#[derive(Clone, Copy)]
struct Rows<'a> {
    values: &'a Values,
    offset: usize,
    first: u64,
    n: u64,
    fmt: &'a ValueFormat,
    fill: Option<&'a Values>,
    start: (i64, i64, usize),
}

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

/// The first slab of a variable is cut to about this share of a slab (see
/// [`small_first`]) when it holds more than this share of the slab elements its type
/// has: its values are formatted while the rest of the slab is read (a variable read
/// in one small slab gains nothing from a second read).
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
        unlimited,
        chunks,
        time,
    } = *var_layout;
    let rank = shape.len();
    let max = opts.max_line_len as i64 - 2;
    let spare = Spare::default();
    let mut e = Line::new(0, max, indent, Vec::with_capacity(1 << 16));
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
    let fill = fill_for(var);
    let fmt = format_for(var, opts, time);
    let budget = slab_budget(opts.slab_elements_of(var.nc_type), chunks);
    let regions = small_first(
        slabs(shape, chunks, budget, SlabOrder::Output),
        chunks,
        FIRST_SLAB_PARTS,
        budget / FIRST_SLAB_PARTS,
    );
    let text_mode = var.nc_type == NcType::Char;
    let ncols = layout.ncols;
    // Borrowed by the pieces of work, which outlive the formatting thread's loop.
    let (layout, fmt, fill, spare) = (&layout, &fmt, fill.as_ref(), &spare);
    let threads = std::thread::available_parallelism().map_or(2, usize::from);

    if rank >= 2 && !text_mode && whole_row_pieces(&regions, ncols) {
        // Each slab is one piece of work, read by the worker that lays it out: no
        // reader and formatter threads to hand it over (three thread wake-ups a slab),
        // and the slab is laid out from the cache it was read into. A million-string
        // dump (slabs of 25,000) took 7% less time than with two readers.
        let regions = &regions;
        return std::thread::scope(|scope| -> Result<()> {
            let (pieces, texts) = ordered::start(scope, threads, (4 * threads).min(WINDOW_MAX));
            let formatter = scope.spawn(move || -> Result<()> {
                e.hand(&pieces, spare)?;
                let mut first_row = 0u64;
                for r in regions {
                    let rows = r.len().unwrap_or(0) / ncols;
                    let st = if first_row == 0 {
                        (e.linep, max, indent)
                    } else {
                        (2 + indent as i64, max, indent)
                    };
                    pieces.job(Box::new(move || {
                        let values = source.read(path, r)?;
                        let buf = spare.take(text_room(&values, 0, rows * ncols));
                        let text = layout.rows(&values, 0, first_row, rows, fmt, fill, st, buf);
                        source.recycle(values);
                        Ok(text)
                    }))?;
                    first_row += rows;
                }
                e.linep = indent as i64;
                e.hand(&pieces, spare)
            });
            write_then_join(out, texts, spare, formatter)
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
                .unwrap_or_else(|_| Err(Error::Invalid("the data reader failed".into())))
        });
        // Text is written on this thread, in order, while workers lay out what follows.
        let (pieces, texts) = ordered::start(scope, threads, (4 * threads).min(WINDOW_MAX));
        let formatter = scope.spawn(move || -> Result<()> {
            let mut element: u64 = 0;
            let mut row_text: Vec<u8> = Vec::new();
            for values in rx {
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
                            let mut quoted = Vec::with_capacity(row_text.len() + 2);
                            escape::char_row(&mut quoted, &row_text);
                            e.raw(&quoted);
                            layout.row_end(&mut e, row, b"");
                        }
                        element += 1;
                    }
                } else if rank >= 2 && element.is_multiple_of(ncols) && n.is_multiple_of(ncols) {
                    // Whole rows: each row starts from a known line position, so rows are
                    // laid out in parallel, in pieces of about PIECE_VALUES values.
                    let first_row = element / ncols;
                    let rows = n / ncols;
                    let per = (PIECE_VALUES / ncols).max(1);
                    let start = (
                        if first_row == 0 {
                            e.linep
                        } else {
                            2 + indent as i64
                        },
                        max,
                        indent,
                    );
                    e.hand(&pieces, spare)?;
                    for r in (0..rows).step_by(per as usize) {
                        let k = per.min(rows - r);
                        let st = if r == 0 {
                            start
                        } else {
                            (2 + indent as i64, max, indent)
                        };
                        let values = Arc::clone(&values);
                        pieces.job(Box::new(move || {
                            let buf = spare.take(text_room(&values, r * ncols, k * ncols));
                            let text = layout.rows(
                                &values,
                                (r * ncols) as usize,
                                first_row + r,
                                k,
                                fmt,
                                fill,
                                st,
                                buf,
                            );
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
                            e.hand(&pieces, spare)?;
                        }
                    }
                    element += n;
                }
                give_back(source, values);
                e.hand(&pieces, spare)?;
            }
            e.hand(&pieces, spare)
        });
        let result = write_then_join(out, texts, spare, formatter);
        for reader in reading {
            let _ = reader.join();
        }
        result
    })
}

/// Write `texts` to `out` as they come, each buffer given back once written, then wait
/// for the `formatter` that hands them in: the first error of either.
fn write_then_join(
    out: &mut dyn Write,
    mut texts: impl Iterator<Item = Result<Vec<u8>>>,
    spare: &Spare,
    formatter: std::thread::ScopedJoinHandle<'_, Result<()>>,
) -> Result<()> {
    let written = texts.try_for_each(|t| {
        let t = t?;
        out.write_all(&t)?;
        spare.give(t);
        Ok::<_, Error>(())
    });
    // A failed write closes the channel, which stops the formatter.
    drop(texts);
    let formatted = formatter
        .join()
        .unwrap_or_else(|_| Err(Error::Invalid("the data formatter failed".into())));
    written?;
    formatted
}

/// Elements a slab holds at most, of `budget` for its type: a piece's when chunks are
/// no larger, so that a slab of whole rows is one piece of work, read by the worker
/// that lays it out (see [`whole_row_pieces`]): 7% off a dump of 64,800-value chunks,
/// 12% with `-b c`. Larger chunks keep `budget`: a chunk is decoded once per slab it
/// meets.
fn slab_budget(budget: u64, chunks: &[u64]) -> u64 {
    let chunk = chunks.iter().fold(1u64, |a, &c| a.saturating_mul(c.max(1)));
    if chunk <= PIECE_VALUES {
        budget.min(PIECE_VALUES)
    } else {
        budget
    }
}

/// True when each of `regions` (in output order) is whole rows of `ncols` values, no
/// more than a piece's.
fn whole_row_pieces(regions: &[crate::chunking::Region], ncols: u64) -> bool {
    ncols > 0
        && regions.iter().all(|r| {
            r.len()
                .is_some_and(|n| n > 0 && n.is_multiple_of(ncols) && n <= PIECE_VALUES)
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
    fn hand(&mut self, to: &ordered::Pieces<'_>, spare: &Spare) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        // Room for as much text again: not the buffer's capacity, which a new buffer's
        // slack would grow by an eighth at every hand-off, past any buffer given back.
        let len = self.buf.len();
        to.text(std::mem::replace(&mut self.buf, spare.take(len)))
    }
}
