//! The data section's rows: `print_rows`/`lput` from ncdump's `vardata.c`.
//!
//! A slab's rows are laid out on lines by one sequential pass that reproduces
//! `lput`'s wrapping exactly (numbers found a block at a time, see `batch`); how a
//! variable's slabs are read and their texts written is `var_data`'s.

use std::fmt::Write as _;

use super::batch::{FloatDigits, NumberWriter, BLOCK};
use super::escape;
use super::line::Line;
use super::number::{self, Texts16, NUM_ROOM};
use super::values::{double_is_fill, float_is_fill, format_value, number_text, ValueFormat};
use super::{IndexStyle, PrintOptions};
use crate::model::{Values, Var};

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
pub(super) struct Layout<'a> {
    pub(super) var: &'a Var,
    pub(super) shape: &'a [u64],
    pub(super) unlimited: &'a [bool],
    pub(super) opts: &'a PrintOptions,
    pub(super) rank: usize,
    pub(super) ncols: u64,
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
    pub(super) fn row_start(&self, e: &mut Line, row: u64) {
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
    pub(super) fn row_end(&self, e: &mut Line, row: u64, last: &[u8]) {
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
    pub(super) fn value(&self, e: &mut Line, row: u64, col: u64, v: &[u8]) {
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
    pub(super) fn rows(
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
