//! C's `%.{p}g` text of data values laid out in registers: the digits become ASCII
//! all at once (SWAR: lanes of one integer split 8 digits into 4+4, 2+2, 1+1), the
//! trailing zeros are counted rather than looped over, the point is inserted by
//! shifting, and the text is stored with wide writes.

use super::digits::{digits_exact, digits_float};

/// The 4-digit ASCII text (leading zeros) of every number below 10,000, the first digit
/// in the lowest byte.
static ASCII4: [u32; 10_000] = {
    let mut t = [0u32; 10_000];
    let mut i = 0;
    while i < 10_000 {
        let d = [i / 1000, i / 100 % 10, i / 10 % 10, i % 10];
        t[i] = u32::from_le_bytes([
            b'0' + d[0] as u8,
            b'0' + d[1] as u8,
            b'0' + d[2] as u8,
            b'0' + d[3] as u8,
        ]);
        i += 1;
    }
    t
};

/// `x` (< 10^8) as 8 ASCII digits, the first digit in the lowest byte: two loads from a
/// table of 40 KB that a dump keeps in cache, in place of five multiplications.
#[inline]
pub(super) fn ascii8(x: u64) -> u64 {
    let (hi, lo) = ((x / 10_000) as usize, (x % 10_000) as usize);
    u64::from(ASCII4[hi]) | (u64::from(ASCII4[lo]) << 32)
}

/// `d` (< 10^16) as 16 ASCII digits with leading zeros, the first in the lowest byte.
#[inline]
fn ascii16(d: u64) -> u128 {
    u128::from(ascii8(d / 100_000_000)) | (u128::from(ascii8(d % 100_000_000)) << 64)
}

/// The digits of one number as bytes of an integer, first digit lowest: a `u64` holds
/// up to 8 (`float`'s 7), a `u128` up to 16 (`double`'s 15).
trait Word:
    Copy
    + std::ops::Shl<usize, Output = Self>
    + std::ops::Shr<usize, Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
    + From<u8>
{
    const BYTES: usize;
    /// `d` (< 10^BYTES) as ASCII digits with leading zeros.
    fn ascii(d: u64) -> Self;
    /// The lowest `n` bytes.
    fn low_bytes(self, n: usize) -> Self;
    /// Byte `i`.
    fn byte(self, i: usize) -> u8;
    fn leading_zeros(self) -> u32;
    /// Every byte `b'0'`.
    fn zeros() -> Self;
    /// Store all `BYTES` bytes at the start of `out`.
    fn store(self, out: &mut [u8]);
}

/// The parts of [`Word`] that are the same for both widths.
macro_rules! word {
    ($t:ty, $bytes:expr, $ascii:expr) => {
        impl Word for $t {
            const BYTES: usize = $bytes;
            fn ascii(d: u64) -> $t {
                $ascii(d)
            }
            fn low_bytes(self, n: usize) -> $t {
                if n >= $bytes {
                    self
                } else {
                    self & ((1 << (8 * n)) - 1)
                }
            }
            fn byte(self, i: usize) -> u8 {
                (self >> (8 * i)) as u8
            }
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
            fn zeros() -> $t {
                <$t>::from_le_bytes([b'0'; $bytes])
            }
            /// As 8-byte writes: a `u128` copied as bytes goes through the stack as
            /// two halves read back with one 16-byte load, which the processor cannot
            /// forward from the two stores (a stall on every value).
            fn store(self, out: &mut [u8]) {
                for (i, part) in out[..$bytes].chunks_exact_mut(8).enumerate() {
                    part.copy_from_slice(&((self >> (64 * i)) as u64).to_le_bytes());
                }
            }
        }
    };
}

word!(u64, 8, ascii8);
word!(u128, 16, ascii16);

/// `%.{p}g` of finite `v` written into `out` (at least [`super::number::NUM_ROOM`]
/// bytes) for `p <= 16` and the magnitudes [`digits_exact`] takes; the length written.
/// Bytes past that length may be overwritten.
#[inline]
pub(crate) fn g_into(out: &mut [u8], v: f64, p: usize) -> Option<usize> {
    Some(g_layout(out, g_digits(v, p)?, p))
}

/// The digits of finite `v` that [`g_layout`] lays out as `%.{p}g`: [`g_into`] in two
/// steps, for a caller to find many values' digits first and lay them out after (the
/// two loops overlap one value's work with the next's; one step after the other per
/// value, each waited for the last).
#[derive(Clone, Copy)]
pub(crate) struct Digits {
    /// For `p <= 8`, the digits already as the ASCII word [`layout`] takes (where they
    /// are found many at a time, the conversion overlaps too); above, the integer.
    d: u64,
    e: i32,
    neg: bool,
}

impl Digits {
    #[inline(always)]
    fn new(d: u64, e: i32, neg: bool, p: usize) -> Digits {
        let d = if p <= 8 { ascii_word::<u64>(d, p) } else { d };
        Digits { d, e, neg }
    }
}

/// The `p` digits `d` as ASCII in the lowest `p` bytes of a word, the first lowest.
#[inline(always)]
fn ascii_word<W: Word>(d: u64, p: usize) -> W {
    W::ascii(d) >> (8 * (W::BYTES - p))
}

/// [`Digits`] of `v` for `p <= 16` and the magnitudes [`digits_exact`] takes.
#[inline(always)]
pub(crate) fn g_digits(v: f64, p: usize) -> Option<Digits> {
    found(p, v.is_sign_negative(), |p| digits_exact(v.abs(), p))
}

/// [`g_digits`] of a float's value, found by [`digits_float`].
#[inline(always)]
pub(crate) fn g_digits_float(v: f32, p: usize) -> Option<Digits> {
    found(p, v.is_sign_negative(), |p| digits_float(v.abs(), p))
}

/// [`Digits`] of the digits and exponent `find` gives at precision `p` (at most 16,
/// what the layout takes).
#[inline(always)]
fn found(p: usize, neg: bool, find: impl FnOnce(u32) -> Option<(u64, i32)>) -> Option<Digits> {
    if p > 16 {
        return None;
    }
    let (d, e) = find(p as u32)?;
    Some(Digits::new(d, e, neg, p))
}

/// The text of `digits` (of the same `p`) into `out`, as [`g_into`] writes it.
#[inline(always)]
pub(crate) fn g_layout(out: &mut [u8], digits: Digits, p: usize) -> usize {
    let Digits { d, e, neg } = digits;
    if p <= 8 {
        layout::<u64>(out, neg, d, e, p)
    } else {
        layout::<u128>(out, neg, ascii_word(d, p), e, p)
    }
}

/// The text of the `p` digits in `word` (see [`ascii_word`]) with the first at
/// exponent `e`.
#[inline(always)]
fn layout<W: Word>(out: &mut [u8], neg: bool, word: W, e: i32, p: usize) -> usize {
    // Significant digits: p less the trailing zeros (the first digit is never 0).
    let values = (word ^ W::zeros()).low_bytes(p);
    let n = W::BYTES - values.leading_zeros() as usize / 8;
    let at = usize::from(neg);
    out[0] = b'-';
    let body = &mut out[at..];
    let len = if e < -4 || e >= p as i32 {
        return exponential(out, at, word, n, e);
    } else if e < 0 {
        // 0.000ddd: at most 3 zeros after the point, then the digits (the word's
        // zeros after them fall past the length).
        let zeros = (-e - 1) as usize;
        body[..8].copy_from_slice(b"0.000000");
        word.store(&mut body[2 + zeros..]);
        2 + zeros + n
    } else {
        let int_len = e as usize + 1;
        if n <= int_len {
            // An integer: its trailing zeros are digits.
            word.store(body);
            int_len
        } else {
            // The point inserted after the integer digits: those below it stay, those
            // above move up a byte (the zeros past the last significant one fall past
            // the length); a word full of digits has its last moved past it.
            let int = word.low_bytes(int_len);
            let text = int | (W::from(b'.') << (8 * int_len)) | ((word ^ int) << 8);
            text.store(body);
            body[W::BYTES] = word.byte(W::BYTES - 1);
            n + 1
        }
    };
    at + len
}

/// `d.ddde+XX` of the `n` significant digits in `word` at `out[at..]`.
fn exponential<W: Word>(out: &mut [u8], at: usize, word: W, n: usize, e: i32) -> usize {
    let mut i = at;
    word.store(&mut out[i..]);
    i += 1;
    if n > 1 {
        out[i] = b'.';
        (word >> 8).low_bytes(n - 1).store(&mut out[i + 1..]);
        i += n;
    }
    out[i] = b'e';
    out[i + 1] = if e < 0 { b'-' } else { b'+' };
    i += 2;
    let x = e.unsigned_abs();
    if x >= 100 {
        out[i] = b'0' + (x / 100) as u8;
        i += 1;
    }
    out[i] = b'0' + (x / 10 % 10) as u8;
    out[i + 1] = b'0' + (x % 10) as u8;
    i + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_digits() {
        assert_eq!(&ascii8(12_345_678).to_le_bytes(), b"12345678");
        assert_eq!(&ascii8(0).to_le_bytes(), b"00000000");
        assert_eq!(&ascii8(99_999_999).to_le_bytes(), b"99999999");
        assert_eq!(
            &ascii16(1_234_567_890_123_456).to_le_bytes(),
            b"1234567890123456"
        );
        assert_eq!(&ascii16(7).to_le_bytes(), b"0000000000000007");
    }

    #[test]
    fn layouts() {
        let g = |v: f64, p: usize| {
            let mut out = [0u8; 40];
            let n = g_into(&mut out, v, p).unwrap();
            String::from_utf8(out[..n].to_vec()).unwrap()
        };
        assert_eq!(g(280.125, 7), "280.125");
        assert_eq!(g(-280.0, 7), "-280");
        assert_eq!(g(1234567.0, 7), "1234567");
        assert_eq!(g(12345678.0, 7), "1.234568e+07");
        assert_eq!(g(0.000123, 7), "0.000123");
        assert_eq!(g(-0.00001234, 7), "-1.234e-05");
        assert_eq!(g(1e-20, 15), "1e-20");
        assert_eq!(g(1e30, 16), "1e+30");
        assert_eq!(g(0.5, 1), "0.5");
        // The point in the word's last byte, one fractional digit past it.
        assert_eq!(g(1234567.75, 8), "1234567.8");
        assert_eq!(g(-123456789012345.6, 16), "-123456789012345.6");
        assert_eq!(g(9.5, 1), "1e+01");
        assert_eq!(g(1.0 / 3.0, 16), "0.3333333333333333");
        assert_eq!(g(-123456.7890123, 15), "-123456.7890123");
        assert!(g_into(&mut [0u8; 40], 1.0, 17).is_none());
    }
}
