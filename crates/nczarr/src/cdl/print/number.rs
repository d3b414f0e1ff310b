//! C `printf` number formats, reproduced exactly: ncdump's `%.7g`/`%.15g` for data,
//! `%#.7g`/`%#.15g` trimmed by `tztrim` for attributes, and the single conversion a
//! `C_format` attribute may ask for.

use std::fmt::Write as _;
use std::sync::LazyLock;

/// The shortest round-trip digits of `a` (> 0) and the exponent of the first digit.
fn digits_shortest(a: f64) -> (u64, usize, i32) {
    let mut buf = StackBuf::new();
    let _ = write!(buf, "{a:e}");
    let s = buf.as_str();
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut d: u64 = 0;
    let mut n = 0usize;
    for c in mant.bytes().filter(u8::is_ascii_digit) {
        d = d.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        n += 1;
    }
    (d, n, exp.parse().unwrap_or(0))
}

/// A small fixed buffer for formatting without allocation.
struct StackBuf {
    buf: [u8; 64],
    len: usize,
}

impl StackBuf {
    fn new() -> StackBuf {
        StackBuf {
            buf: [0; 64],
            len: 0,
        }
    }
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let b = s.as_bytes();
        let end = (self.len + b.len()).min(self.buf.len());
        self.buf[self.len..end].copy_from_slice(&b[..end - self.len]);
        self.len = end;
        Ok(())
    }
}

/// The longest number text the in-place formatters write, and room for `", "` after it.
pub(crate) const NUM_ROOM: usize = 32;

/// Append [`NUM_ROOM`] bytes to `buf` for a number to be written in place; where they
/// start. As one constant-size copy: `resize` called `memset` for every value (2% of a
/// float dump).
#[inline(always)]
pub(crate) fn make_room(buf: &mut Vec<u8>) -> usize {
    let at = buf.len();
    buf.extend_from_slice(&[0; NUM_ROOM]);
    at
}

/// A number's text written in place into a slice of at least [`NUM_ROOM`] bytes (at
/// most 30 of them): the bytes go straight to where the output is assembled, with no
/// copy of a small buffer in between (a wide load of bytes just stored one by one
/// stalls the processor).
pub(crate) struct NumText<'a> {
    bytes: &'a mut [u8],
    len: usize,
}

impl NumText<'_> {
    fn new(bytes: &mut [u8]) -> NumText<'_> {
        NumText { bytes, len: 0 }
    }

    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    /// The decimal digits of `d` (at most 20).
    fn push_u64(&mut self, mut d: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (d % 10) as u8;
            d /= 10;
            if d == 0 {
                break;
            }
        }
        for &c in &digits[i..] {
            self.push(c);
        }
    }
}

/// `%d` of `v` into `out` (at least [`NUM_ROOM`] bytes); the length written.
#[inline]
pub(crate) fn unsigned_into(out: &mut [u8], v: u64) -> usize {
    if v < 100_000_000 {
        // Eight digits at once, the leading zeros shifted out (no branch on the
        // length, which random data mispredicts).
        let word = super::gtext::ascii8(v);
        let lead = ((word ^ 0x3030_3030_3030_3030).trailing_zeros() / 8).min(7) as usize;
        out[..8].copy_from_slice(&(word >> (8 * lead)).to_le_bytes());
        return 8 - lead;
    }
    let n = v.checked_ilog10().map_or(1, |l| l as usize + 1);
    write_digits(&mut out[..n], v);
    n
}

/// `%d` of `v` into `out` (at least [`NUM_ROOM`] bytes); the length written.
#[inline]
pub(crate) fn signed_into(out: &mut [u8], v: i64) -> usize {
    if v < 0 {
        out[0] = b'-';
        1 + unsigned_into(&mut out[1..], v.unsigned_abs())
    } else {
        unsigned_into(out, v.unsigned_abs())
    }
}

/// The `%d` texts of all 65,536 values of a 16-bit type, each packed in a word: the
/// text in its low bytes (six at most, `-32768`), its length in the top byte. A short
/// variable is printed a table load and one store a value, where the digits cost
/// several multiplications; 8-bit types use the same tables.
pub(crate) struct Texts16(Box<[u64]>);

impl Texts16 {
    fn of(value: impl Fn(u16) -> i64) -> Texts16 {
        Texts16(
            (0..=u16::MAX)
                .map(|b| {
                    let mut text = [0u8; NUM_ROOM];
                    let n = signed_into(&mut text, value(b));
                    let mut word = [0u8; 8];
                    word[..n].copy_from_slice(&text[..n]);
                    word[7] = n as u8;
                    u64::from_le_bytes(word)
                })
                .collect(),
        )
    }

    /// The texts of the signed values (`short`, `byte`), indexed by their bits.
    pub(crate) fn signed() -> &'static Texts16 {
        static T: LazyLock<Texts16> = LazyLock::new(|| Texts16::of(|b| i64::from(b as i16)));
        &T
    }

    /// The texts of the unsigned values (`ushort`, `ubyte`).
    pub(crate) fn unsigned() -> &'static Texts16 {
        static T: LazyLock<Texts16> = LazyLock::new(|| Texts16::of(i64::from));
        &T
    }

    /// `%d` of the value whose bits are `bits` into `out` (at least [`NUM_ROOM`]
    /// bytes: eight are written); the length of the text.
    #[inline]
    pub(crate) fn put(&self, out: &mut [u8], bits: u16) -> usize {
        let word = self.0[usize::from(bits)];
        out[..8].copy_from_slice(&word.to_le_bytes());
        (word >> 56) as usize
    }
}

/// Lay out `%g` from `n` significant digits `d` (first digit at exponent `e`).
/// `n <= 17` and `-330 < e < 330`, so the text stays within 30 bytes.
fn render_g(t: &mut NumText<'_>, neg: bool, mut d: u64, mut n: usize, e: i32, p: usize) {
    while n > 1 && d.is_multiple_of(10) {
        d /= 10;
        n -= 1;
    }
    if neg {
        t.push(b'-');
    }
    let int_len = usize::try_from(e).map_or(usize::MAX, |e| e + 1);
    if e < p as i32 && int_len < n {
        // The common case, `123.4567`: the digits go where they end up, written a pair
        // at a time from the right one place along, then the integer part moves back
        // one place for the point.
        let start = t.len;
        write_digits(&mut t.bytes[start + 1..start + 1 + n], d);
        for i in start..start + int_len {
            t.bytes[i] = t.bytes[i + 1];
        }
        t.bytes[start + int_len] = b'.';
        t.len = start + n + 1;
        return;
    }
    let mut digits = [0u8; 20];
    let mut i = n;
    while i >= 2 {
        let pair = (d % 100) as usize;
        d /= 100;
        digits[i - 2] = b'0' + (pair / 10) as u8;
        digits[i - 1] = b'0' + (pair % 10) as u8;
        i -= 2;
    }
    if i == 1 {
        digits[0] = b'0' + (d % 10) as u8;
    }
    let digits = &digits[..n];
    if e < -4 || e >= p as i32 {
        t.push(digits[0]);
        if n > 1 {
            t.push(b'.');
            for &c in &digits[1..] {
                t.push(c);
            }
        }
        t.push(b'e');
        t.push(if e < 0 { b'-' } else { b'+' });
        let x = e.unsigned_abs();
        if x < 10 {
            t.push(b'0');
        }
        t.push_u64(u64::from(x));
    } else if e >= 0 {
        let int_len = e as usize + 1;
        if n <= int_len {
            for &c in digits {
                t.push(c);
            }
            for _ in n..int_len {
                t.push(b'0');
            }
        } else {
            for &c in &digits[..int_len] {
                t.push(c);
            }
            t.push(b'.');
            for &c in &digits[int_len..] {
                t.push(c);
            }
        }
    } else {
        t.push(b'0');
        t.push(b'.');
        for _ in 0..(-e - 1) {
            t.push(b'0');
        }
        for &c in digits {
            t.push(c);
        }
    }
}

/// "00" to "99".
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The `out.len()` lowest decimal digits of `d` into `out`.
fn write_digits(out: &mut [u8], mut d: u64) {
    let mut i = out.len();
    while i >= 2 {
        let pair = (d % 100) as usize * 2;
        d /= 100;
        out[i - 2] = PAIRS[pair];
        out[i - 1] = PAIRS[pair + 1];
        i -= 2;
    }
    if i == 1 {
        out[0] = b'0' + (d % 10) as u8;
    }
}

/// C's `%.{prec}g` of a finite `v`, appended as bytes: the fast path for data.
pub fn format_g_bytes(out: &mut Vec<u8>, v: f64, prec: usize) {
    let at = make_room(out);
    match format_g_into(&mut out[at..], v, prec) {
        Some(n) => out.truncate(at + n),
        None => {
            out.truncate(at);
            let mut s = String::new();
            format_g(&mut s, v, prec.max(1), false, false);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// C's `%.{prec}g` of a finite `v` written into `out` (at least [`NUM_ROOM`] bytes)
/// when it can be built in place (at most 15 significant digits, which is what data
/// printing asks for); the length written, or `None`.
#[inline]
pub(crate) fn format_g_into(out: &mut [u8], v: f64, prec: usize) -> Option<usize> {
    let p = prec.max(1);
    if let Some(n) = super::gtext::g_into(out, v, p) {
        return Some(n);
    }
    format_g_general(out, v, p)
}

/// [`format_g_into`] of what the register layout does not take: apart, for the common
/// path to stay small.
#[cold]
#[inline(never)]
fn format_g_general(out: &mut [u8], v: f64, p: usize) -> Option<usize> {
    let neg = v.is_sign_negative();
    let a = v.abs();
    let mut t = NumText::new(out);
    if a == 0.0 {
        if neg {
            t.push(b'-');
        }
        t.push(b'0');
        return Some(t.len);
    }
    if let Some((d, e)) = super::digits::digits_exact(a, p as u32) {
        render_g(&mut t, neg, d, p, e, p);
        return Some(t.len);
    }
    if p <= 15 && a >= f64::MIN_POSITIVE {
        // Shortest digits that fit in p digits are the correctly rounded p digits:
        // a normal double's rounding interval is narrower than the spacing of 15-digit decimals.
        let (d, n, e) = digits_shortest(a);
        if n <= p {
            render_g(&mut t, neg, d, n, e, p);
            return Some(t.len);
        }
    }
    None
}

/// Append C's `%.{prec}g` (with `#` when `alt`) of a finite `v` to `out`.
pub fn format_g(out: &mut String, v: f64, prec: usize, alt: bool, upper: bool) {
    let p = prec.max(1);
    let mut sci = String::with_capacity(32);
    let _ = write!(sci, "{:.*e}", p - 1, v.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    if v.is_sign_negative() {
        out.push('-');
    }
    if x < -4 || x >= p as i32 {
        out.push_str(&digits[..1]);
        let mut frac = &digits[1..];
        if !alt {
            frac = frac.trim_end_matches('0');
        }
        if !frac.is_empty() || alt {
            out.push('.');
            out.push_str(frac);
        }
        out.push(if upper { 'E' } else { 'e' });
        out.push(if x < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", x.unsigned_abs());
    } else {
        let (int_part, frac_part) = if x >= 0 {
            let split = (x as usize + 1).min(digits.len());
            (digits[..split].to_string(), digits[split..].to_string())
        } else {
            (
                "0".to_string(),
                format!("{}{}", "0".repeat((-x - 1) as usize), digits),
            )
        };
        out.push_str(&int_part);
        let frac = if alt {
            frac_part.as_str()
        } else {
            frac_part.trim_end_matches('0')
        };
        if !frac.is_empty() || alt {
            out.push('.');
            out.push_str(frac);
        }
    }
}

/// Append C's `%.{prec}e` of a finite `v`.
pub fn format_e(out: &mut String, v: f64, prec: usize, alt: bool, upper: bool) {
    let mut sci = String::new();
    let _ = write!(sci, "{:.*e}", prec, v.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    if v.is_sign_negative() {
        out.push('-');
    }
    out.push_str(mant);
    if alt && prec == 0 {
        out.push('.');
    }
    out.push(if upper { 'E' } else { 'e' });
    out.push(if x < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", x.unsigned_abs());
}

/// Append C's `%.{prec}f` of a finite `v`.
pub fn format_f(out: &mut String, v: f64, prec: usize, alt: bool) {
    let _ = write!(out, "{:.*}", prec, v);
    if alt && prec == 0 {
        out.push('.');
    }
}

/// ncdump's `tztrim`: drop trailing zeros after the decimal point (keeping the point),
/// also before an exponent: `1.000000` gives `1.`, `1.500000e+10` gives `1.5e+10`.
pub fn tztrim(s: &mut String) {
    let bytes = s.as_bytes();
    let mut cp = usize::from(bytes.first() == Some(&b'-'));
    while cp < bytes.len() && (bytes[cp].is_ascii_digit() || bytes[cp] == b'.') {
        cp += 1;
    }
    // cp is one past the mantissa.
    if cp == 0 || bytes[cp - 1] == b'.' {
        return;
    }
    let ep = cp;
    let mut z = cp - 1;
    while z > 0 && bytes[z] == b'0' {
        z -= 1;
    }
    let keep = z + 1;
    if keep == ep {
        return;
    }
    // Only trim when the mantissa has a decimal point (C's %#g always has one).
    if !s[..ep].contains('.') {
        return;
    }
    s.replace_range(keep..ep, "");
}

/// A float attribute value the way ncdump prints it: `1.5f`, `1.f`, `NaNf`, `-Infinityf`.
pub fn float_attr(out: &mut String, v: f32, digits: usize) {
    if v.is_nan() {
        out.push_str("NaNf");
    } else if v.is_infinite() {
        out.push_str(if v < 0.0 { "-Infinityf" } else { "Infinityf" });
    } else {
        g_alt_trimmed(out, f64::from(v), digits);
        out.push('f');
    }
}

/// A double attribute value the way ncdump prints it: `2.5`, `1.`, `NaN`, `-Infinity`.
pub fn double_attr(out: &mut String, v: f64, digits: usize) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v < 0.0 { "-Infinity" } else { "Infinity" });
    } else {
        g_alt_trimmed(out, v, digits);
    }
}

/// `%#.{digits}g` of finite `v` after [`tztrim`]: the digits of `%.{digits}g` with the
/// point kept (`100.`, `1.e+20`). Built in place when [`format_g_into`] can, which is
/// most values: the general `%#g` costs a big-number division a value.
pub(crate) fn g_alt_trimmed(out: &mut String, v: f64, digits: usize) {
    let mut buf = [0u8; NUM_ROOM];
    if let Some(n) = format_g_into(&mut buf, v, digits) {
        let text = &buf[..n];
        let e = text.iter().position(|&b| b == b'e').unwrap_or(n);
        let (mantissa, exponent) = text.split_at(e);
        out.extend(mantissa.iter().map(|&b| char::from(b)));
        if !mantissa.contains(&b'.') {
            out.push('.');
        }
        out.extend(exponent.iter().map(|&b| char::from(b)));
        return;
    }
    let mut s = String::new();
    format_g(&mut s, v, digits, true, false);
    tztrim(&mut s);
    out.push_str(&s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_match_display_at_every_length() {
        let mut cases: Vec<i64> = vec![0, 1, -1, i64::MIN, i64::MAX, -32767, 255];
        for p in 0..19 {
            let t = 10i64.pow(p);
            cases.extend([t - 1, t, t + 1, -t, -(t - 1), 7 * t / 3]);
        }
        for v in cases {
            let mut out = [0u8; NUM_ROOM];
            let n = signed_into(&mut out, v);
            assert_eq!(std::str::from_utf8(&out[..n]).unwrap(), v.to_string());
        }
        for v in [u64::MAX, 99_999_999, 100_000_000, 12_345_678_901] {
            let mut out = [0u8; NUM_ROOM];
            let n = unsigned_into(&mut out, v);
            assert_eq!(std::str::from_utf8(&out[..n]).unwrap(), v.to_string());
        }
    }

    fn g(v: f64, p: usize) -> String {
        let mut s = String::new();
        format_g(&mut s, v, p, false, false);
        s
    }

    fn ga(v: f64, p: usize) -> String {
        let mut s = String::new();
        format_g(&mut s, v, p, true, false);
        s
    }

    #[test]
    fn attribute_texts_built_in_place_match_the_general_path() {
        let general = |v: f64, digits: usize| {
            let mut s = String::new();
            format_g(&mut s, v, digits, true, false);
            tztrim(&mut s);
            s
        };
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            -100.0,
            100.0,
            1e20,
            1.5e-7,
            1e-5,
            1e-4,
            123456.0,
            1234567.0,
            9.969209968386869e36,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            0.1,
            1.0 / 3.0,
            f64::from(0.1f32),
            f64::from(f32::MAX),
            299792458.0,
            6.02214076e23,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            let narrowed = f64::from(v as f32);
            values.extend([v, narrowed].into_iter().filter(|v| v.is_finite()));
            values.push((x % 100_000) as f64 / 8.0);
        }
        for &v in &values {
            for digits in [7, 9, 15, 17] {
                let mut fast = String::new();
                g_alt_trimmed(&mut fast, v, digits);
                assert_eq!(fast, general(v, digits), "{v:e} at {digits} digits");
            }
        }
    }

    #[test]
    fn percent_g_matches_c() {
        // Values checked against glibc printf.
        assert_eq!(g(30.123456789, 7), "30.12346");
        assert_eq!(g(-90.0, 7), "-90");
        assert_eq!(g(1.5, 15), "1.5");
        assert_eq!(g(9.969209968386869e36, 7), "9.96921e+36");
        assert_eq!(g(1e-5, 7), "1e-05");
        assert_eq!(g(0.0001, 7), "0.0001");
        assert_eq!(g(123456789.0, 7), "1.234568e+08");
        assert_eq!(g(1234567.0, 7), "1234567");
        assert_eq!(g(0.0, 7), "0");
        assert_eq!(g(-0.0, 7), "-0");
        assert_eq!(g(100.0, 1), "1e+02");
        assert_eq!(g(0.1, 15), "0.1");
        assert_eq!(g(f64::from(0.1f32), 7), "0.1");
        assert_eq!(g(1e100, 15), "1e+100");
        assert_eq!(g(1.23456789012345, 15), "1.23456789012345");
        assert_eq!(g(2.5e-310, 15), "2.50000000000002e-310");
    }

    #[test]
    fn fast_path_agrees_with_exact_path() {
        let mut next = super::super::test_words(0x2545_f491_4f6c_dd1d);
        for i in 0..200_000 {
            let bits = next();
            let v = if i % 2 == 0 {
                f64::from(f32::from_bits(bits as u32))
            } else {
                f64::from_bits(bits)
            };
            if !v.is_finite() {
                continue;
            }
            for p in [7, 15, 3, 9, 17] {
                let mut a = Vec::new();
                format_g_bytes(&mut a, v, p);
                let b = g(v, p);
                assert_eq!(String::from_utf8(a).unwrap(), b, "{v:e} p={p}");
            }
        }
        for v in [
            1.0, 0.5, 1e7, 9999999.5, 0.00001, 123456.75, 9.96921e36, -0.0, 1e-320, 2.5, 0.15,
        ] {
            for p in [1, 2, 7, 15] {
                let mut a = Vec::new();
                format_g_bytes(&mut a, v, p);
                assert_eq!(String::from_utf8(a).unwrap(), g(v, p), "{v} p={p}");
            }
        }
    }

    #[test]
    fn every_16_bit_text_is_printf_d() {
        let mut out = [0u8; NUM_ROOM];
        for b in 0..=u16::MAX {
            let n = Texts16::signed().put(&mut out, b);
            assert_eq!(&out[..n], (b as i16).to_string().as_bytes());
            let n = Texts16::unsigned().put(&mut out, b);
            assert_eq!(&out[..n], b.to_string().as_bytes());
        }
    }

    #[test]
    fn attribute_forms() {
        let f = |v: f32| {
            let mut s = String::new();
            float_attr(&mut s, v, 7);
            s
        };
        let d = |v: f64| {
            let mut s = String::new();
            double_attr(&mut s, v, 15);
            s
        };
        assert_eq!(f(1.5), "1.5f");
        assert_eq!(f(1.0), "1.f");
        assert_eq!(f(1.2345678), "1.234568f");
        assert_eq!(f(-0.5), "-0.5f");
        assert_eq!(f(1.5e10), "1.5e+10f");
        assert_eq!(f(1e10), "1.e+10f");
        assert_eq!(f(f32::NAN), "NaNf");
        assert_eq!(f(f32::NEG_INFINITY), "-Infinityf");
        assert_eq!(d(1.0), "1.");
        assert_eq!(d(2.5), "2.5");
        assert_eq!(d(1.23456789012345), "1.23456789012345");
        assert_eq!(d(9.969209968386869e36), "9.96920996838687e+36");
        assert_eq!(d(100.0), "100.");
        assert_eq!(d(0.0), "0.");
        assert_eq!(ga(123.0, 3), "123.");
    }
}
