//! How a row's loop writes numbers in place ([`NumberWriter`]): one value at a time,
//! or, for floats and doubles ([`FloatDigits`]), a block's digits found first and laid
//! out after. Found and laid out one value after the other, each step waited for the
//! one before; in two loops over a block, one value's work overlaps the next's (a
//! quarter less time per float in the benchmark).

use super::gtext::{g_digits, g_digits_float, g_layout, Digits};
use super::number;

/// Writes values' text in place, for `Layout::rows_with`.
pub(super) trait NumberWriter {
    /// Values `first..first + n` are written next, in order: a writer may work ahead.
    fn prepare(&mut self, first: usize, n: usize) {
        let _ = (first, n);
    }

    /// Value `i`'s text at the start of `out` (room for any number): its length, or
    /// `None` where the value is not written this way.
    fn write(&self, out: &mut [u8], i: usize) -> Option<usize>;
}

impl<F: Fn(&mut [u8], usize) -> Option<usize>> NumberWriter for F {
    fn write(&self, out: &mut [u8], i: usize) -> Option<usize> {
        self(out, i)
    }
}

/// The values [`FloatDigits`] writes: floats and doubles.
pub(super) trait Float: Copy {
    fn wide(self) -> f64;
    /// [`g_digits`] of the value, finite and not a fill value.
    fn digits(self, p: usize) -> Option<Digits>;
}

impl Float for f64 {
    fn wide(self) -> f64 {
        self
    }
    #[inline(always)]
    fn digits(self, p: usize) -> Option<Digits> {
        g_digits(self, p)
    }
}

impl Float for f32 {
    fn wide(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn digits(self, p: usize) -> Option<Digits> {
        g_digits_float(self, p)
    }
}

/// Values whose digits [`FloatDigits`] finds ahead at most: a block small enough to
/// stay in the first-level cache.
pub(super) const BLOCK: usize = 64;

/// C's `%.{p}g` of floats or doubles, the digits of a block of values found before
/// any is laid out. The fill value and values that are not finite are not written.
pub(super) struct FloatDigits<'a, T, F> {
    values: &'a [T],
    fill: Option<T>,
    /// Where a value can be the fill value at all (NaN bounds: nowhere): between half
    /// and twice a finite fill. Outside, no value goes through `is_fill`'s arithmetic.
    near_fill: (f64, f64),
    /// Known to the compiler (a call through a pointer per value cost a twentieth).
    is_fill: F,
    p: usize,
    /// The values `first..first + found` have their digits in `digits`, those laid
    /// out in registers (others: `None`).
    first: usize,
    found: usize,
    digits: [Option<Digits>; BLOCK],
}

impl<'a, T: Float, F: Fn(T, T) -> bool> FloatDigits<'a, T, F> {
    pub(super) fn new(values: &'a [T], fill: Option<T>, is_fill: F, p: usize) -> Self {
        let near_fill = match fill.map(T::wide) {
            Some(f) if f.is_finite() => (f.min(f * 0.5).min(f * 2.0), f.max(f * 0.5).max(f * 2.0)),
            _ => (f64::NAN, f64::NAN),
        };
        FloatDigits {
            values,
            fill,
            near_fill,
            is_fill,
            // As `number::format_g_into` takes it.
            p: p.max(1),
            first: 0,
            found: 0,
            digits: [None; BLOCK],
        }
    }

    /// Value `i` when it is written here.
    #[inline(always)]
    fn value(&self, i: usize) -> Option<T> {
        let x = self.values[i];
        let v = x.wide();
        // ncdump's comparison passes only values within a relative epsilon of a
        // finite fill, and never a finite value for one that is not finite.
        let (lo, hi) = self.near_fill;
        let fill = v >= lo && v <= hi && self.fill.is_some_and(|f| (self.is_fill)(f, x));
        (v.is_finite() && !fill).then_some(x)
    }
}

impl<T: Float, F: Fn(T, T) -> bool> NumberWriter for FloatDigits<'_, T, F> {
    fn prepare(&mut self, first: usize, n: usize) {
        let found = n.min(BLOCK).min(self.values.len().saturating_sub(first));
        for k in 0..found {
            self.digits[k] = self.value(first + k).and_then(|v| v.digits(self.p));
        }
        (self.first, self.found) = (first, found);
    }

    #[inline(always)]
    fn write(&self, out: &mut [u8], i: usize) -> Option<usize> {
        let found = i
            .checked_sub(self.first)
            .filter(|&k| k < self.found)
            .and_then(|k| self.digits[k]);
        match found {
            Some(digits) => Some(g_layout(out, digits, self.p)),
            // Past the registers' range, or not prepared: the whole way.
            None => number::format_g_into(out, self.value(i)?.wide(), self.p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value's text as `format_g_into` writes it, prepared in blocks of any
    /// size or not at all, fill values and values that are not finite left out.
    #[test]
    fn prepared_blocks_write_what_each_value_alone_writes() {
        let mut next = super::super::test_words(0x9e37_79b9_7f4a_7c15);
        let mut values: Vec<f64> = (0..300)
            .map(|k| {
                let w = next();
                let mag = 10f64.powi((w % 60) as i32 - 30);
                (w >> 11) as f64 / (1u64 << 53) as f64 * mag * if k % 3 == 0 { -1.0 } else { 1.0 }
            })
            .collect();
        values.extend([
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            -7.0,
            1e300,
            5e-324,
            280.125,
            // At and around the fill: within ncdump's relative epsilon (below), at the
            // edges of the band where a value may be one, and past them.
            -7.000_000_1,
            -6.999_999_9,
            -7.01,
            -3.5,
            -14.0,
            -3.499,
            -14.01,
            7.0,
        ]);
        check_blocks(&values, -7.0);
        // Floats go another way to their digits.
        let floats: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        check_blocks(&floats, -7.0);
    }

    /// A fill comparison of ncdump's kind: equal within a relative epsilon.
    fn is_fill<T: Float>(a: T, b: T) -> bool {
        let (a, b) = (a.wide(), b.wide());
        (a > 0.0) == (b > 0.0) && (a - b).abs() <= 1e-7 * b.abs()
    }

    fn check_blocks<T: Float + std::fmt::Debug>(values: &[T], fill: T) {
        for p in [1, 4, 7, 8, 9, 15, 16, 17] {
            let alone = |i: usize| -> Option<Vec<u8>> {
                let v = values[i];
                if !v.wide().is_finite() || is_fill(fill, v) {
                    return None;
                }
                let mut out = [0u8; number::NUM_ROOM];
                let n = number::format_g_into(&mut out, v.wide(), p)?;
                Some(out[..n].to_vec())
            };
            for block in [1, 5, BLOCK, 1000] {
                let mut w = FloatDigits::new(values, Some(fill), is_fill, p);
                let mut first = 0;
                while first < values.len() {
                    let n = block.min(values.len() - first);
                    w.prepare(first, n);
                    for (i, v) in values.iter().enumerate().skip(first).take(n) {
                        let mut out = [0u8; number::NUM_ROOM];
                        let got = w.write(&mut out, i).map(|n| out[..n].to_vec());
                        assert_eq!(got, alone(i), "p {p} block {block} value {v:?}");
                    }
                    first += n;
                }
                // Values outside the prepared block are written the whole way.
                let mut out = [0u8; number::NUM_ROOM];
                let got = w.write(&mut out, 3).map(|n| out[..n].to_vec());
                assert_eq!(got, alone(3), "p {p} unprepared");
            }
        }
    }
}
