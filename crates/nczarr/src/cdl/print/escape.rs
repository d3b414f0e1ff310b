//! ncdump's escapes for names, char attributes, char data and strings.

use std::fmt::Write as _;

use crate::model::extend_short;

/// CDL keywords after which ncdump puts a space before `:` in `var :att`.
pub(crate) const KEYWORDS: &[&str] = &["variables", "dimensions", "data", "group", "types"];

/// ncdump's `escaped_name`: a leading digit gets `\`, control bytes become `\%xx`,
/// and `` !"#$&'()*,:;<=>?[]\^`{|}~`` (and space) get a backslash. `/` and bytes
/// ≥ 0x80 are kept.
pub fn escaped_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    if name.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        out.push('\\');
    }
    for c in name.chars() {
        match c {
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\%{:02x}", c as u32);
            }
            ' ' | '!' | '"' | '#' | '$' | '&' | '\'' | '(' | ')' | '*' | ',' | ':' | ';' | '<'
            | '=' | '>' | '?' | '[' | ']' | '\\' | '^' | '`' | '{' | '|' | '}' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Push a byte that is not valid UTF-8 on its own: bytes are written as-is by ncdump,
/// and we keep output valid UTF-8 only when the input was.
fn push_raw(out: &mut Vec<u8>, b: u8) {
    out.push(b);
}

/// A char attribute's text, quoted (`pr_att_string` for netCDF-4): trailing NULs
/// dropped, `\b \f \n \r \t \v \\ \' \"` escaped, other control bytes as `\ooo`,
/// bytes ≥ 0x80 raw.
pub fn char_attr(out: &mut Vec<u8>, bytes: &[u8]) {
    char_attr_text(out, bytes, false);
}

/// As [`char_attr`], and with `break_lines` a newline also ends the quoted string and
/// starts another on the next line, as `pr_att_string` does for the classic formats
/// and the netCDF-4 classic model (even after a final newline, where an empty string
/// follows).
pub fn char_attr_text(out: &mut Vec<u8>, bytes: &[u8], break_lines: bool) {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    out.push(b'"');
    for &b in &bytes[..end] {
        match b {
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            b'\n' if break_lines => out.extend_from_slice(b"\\n\",\n\t\t\t\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            11 => out.extend_from_slice(b"\\v"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            b if b < 0x20 || b == 0x7f => {
                let _ = write!(ByteWriter(out), "\\{b:03o}");
            }
            b => push_raw(out, b),
        }
    }
    out.push(b'"');
}

/// A row of char data (`pr_tvals`): as [`char_attr`] but bytes ≥ 0x80 (not printable
/// in the C locale) are `\ooo`, and a newline also ends the quoted string and starts
/// a new one on the next line.
pub fn char_row(out: &mut Vec<u8>, bytes: &[u8]) {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    out.push(b'"');
    for &b in &bytes[..end] {
        match b {
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n\",\n    \""),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            11 => out.extend_from_slice(b"\\v"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            0x20..=0x7e => out.push(b),
            b => {
                let _ = write!(ByteWriter(out), "\\{b:03o}");
            }
        }
    }
    out.push(b'"');
}

/// A string value (`ncstring_typ_tostring`): quoted, `\b \f \n \r \t \\ \' \"` escaped,
/// `\v` printed as `\n` (ncdump's bug, kept for byte-identical output), other control
/// bytes as `\ooo`, bytes ≥ 0x80 raw; `None` is `NIL`.
pub fn string_value(out: &mut Vec<u8>, s: Option<&[u8]>) {
    string_value_from(out, s.map(|s| (s, s.len())));
}

/// [`string_value`] of the first `len` bytes of `from` (as
/// [`Strings::value_and_after`](crate::model::Strings::value_and_after) gives them):
/// the bytes after the string let its runs go into `out` in one short copy each, and
/// a short string be scanned as one word.
pub(crate) fn string_value_from(out: &mut Vec<u8>, s: Option<(&[u8], usize)>) {
    let Some((mut from, mut len)) = s else {
        out.extend_from_slice(b"NIL");
        return;
    };
    out.reserve(len + 2);
    out.push(b'"');
    // Runs of bytes printed as they are go in whole: most strings are one run. NUL is
    // one of the escaped bytes, so the scan that finds escapes also ends the C string.
    loop {
        let rest = &from[..len];
        let at = plain_run(from, len);
        extend_short(out, from, at);
        let Some(&b) = rest.get(at) else { break };
        match b {
            0 => break,
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            b'\n' | 11 => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            b => {
                let _ = write!(ByteWriter(out), "\\{b:03o}");
            }
        }
        from = &from[at + 1..];
        len -= at + 1;
    }
    out.push(b'"');
}

/// How many of the first `len` bytes of `from` [`string_value`] prints as they are
/// (before the first it escapes): sixteen at a time where the processor compares them
/// at once, else eight at a time as bit tricks on a word (a string's bytes were a fifth
/// of a string dump's time, scanned one by one). The bytes after the `len` are read
/// too where `from` has them, and never count: most strings are one such step.
fn plain_run(from: &[u8], len: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let mut i = 0;
        while let Some(w) = from.get(i..).and_then(<[u8]>::first_chunk::<16>) {
            let found = escaped16(w);
            if found != 0 || i + 16 >= len {
                return (i + found.trailing_zeros() as usize).min(len);
            }
            i += 16;
        }
        i + plain_run_words(&from[i..], len - i)
    }
    #[cfg(not(target_arch = "x86_64"))]
    plain_run_words(from, len)
}

/// Bit `k` set where byte `k` of `w` is one [`string_value`] escapes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn escaped16(w: &[u8; 16]) -> u32 {
    // SAFETY: SSE2 is part of every x86_64 processor (the target's baseline), which
    // is all `escaped16_sse2` asks of the caller.
    unsafe { escaped16_sse2(w) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn escaped16_sse2(w: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_set_epi64x,
    };
    let word = |k: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&w[k..k + 8]);
        i64::from_le_bytes(b)
    };
    let x = _mm_set_epi64x(word(8), word(0));
    let is = |b: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(b as i8));
    // Below 0x20: equal to its minimum with 0x1f.
    let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
    let quotes = _mm_or_si128(is(b'"'), is(b'\''));
    let others = _mm_or_si128(is(b'\\'), is(0x7f));
    let escaped = _mm_or_si128(control, _mm_or_si128(quotes, others));
    _mm_movemask_epi8(escaped) as u32
}

/// [`plain_run`] eight bytes at a time.
fn plain_run_words(from: &[u8], len: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `x` below `n` (n <= 128), or equal to zero; exact
    // for the lowest such byte (a borrow only marks bytes above a true one).
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    // The high bit of the first byte of `x` that is escaped (of others too, after it).
    let escaped = |x: u64| {
        below(x, 0x20)
            | below(x ^ (ONES * 0x7f), 1)
            | below(x ^ (ONES * u64::from(b'"')), 1)
            | below(x ^ (ONES * u64::from(b'\'')), 1)
            | below(x ^ (ONES * u64::from(b'\\')), 1)
    };
    let mut i = 0;
    // A word's lowest flagged byte is exact whatever bytes follow it, so a byte past
    // `len` (flagged or not) only ever gives `len`.
    while let Some(&w) = from.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let found = escaped(u64::from_le_bytes(w));
        if found != 0 || i + 8 >= len {
            return (i + (found.trailing_zeros() / 8) as usize).min(len);
        }
        i += 8;
    }
    let s = &from[..len];
    let left = s.len() - i;
    if left == 0 {
        return i;
    }
    // The last bytes: as the end of the string's last eight when it has them (the
    // bytes before moved out, plain bytes moved in), else one at a time.
    if let Some(&w) = s.last_chunk::<8>() {
        let shift = 8 * (8 - left) as u32;
        let x = (u64::from_le_bytes(w) >> shift) | (ONES * u64::from(b'a')) << (64 - shift);
        return i + ((escaped(x).trailing_zeros() / 8) as usize).min(left);
    }
    i + s[i..]
        .iter()
        .position(|&b| ESCAPED[usize::from(b)])
        .unwrap_or(left)
}

/// The bytes [`string_value`] escapes: control characters (NUL ends the string), DEL,
/// quotes, backslash.
const ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[0x7f] = true;
    t[b'\\' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'"' as usize] = true;
    t
};

/// Whether `s` as a C string is `c` (a C string already, or NIL): `c`'s bytes and then
/// the end or a NUL, without scanning all of `s` for its NUL (a test on every value).
pub(crate) fn same_c_string(c: Option<&[u8]>, s: Option<&[u8]>) -> bool {
    match (c, s) {
        (None, None) => true,
        // Byte by byte: fill values are short (most often empty), and a call to
        // `memcmp` per value cost more than the rest of the value's printing.
        (Some(c), Some(s)) => {
            s.len() >= c.len()
                && c.iter().zip(s).all(|(a, b)| a == b)
                && s.get(c.len()).is_none_or(|&b| b == 0)
        }
        _ => false,
    }
}

/// The bytes of a C string: up to its first NUL, as ncdump sees text.
pub(crate) fn c_string(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// A string attribute value (`pr_att_string` on each string): as [`char_attr`].
pub fn string_attr(out: &mut Vec<u8>, s: Option<&[u8]>) {
    match s {
        Some(s) => char_attr(out, c_string(s)),
        None => out.extend_from_slice(b"NIL"),
    }
}

/// ncdump's `escaped_string` (used for `_Codecs`): `"` gets a backslash, control
/// characters become `\%xx`.
pub fn escaped_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\%{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `fmt::Write` into a byte vector.
pub(crate) struct ByteWriter<'a>(pub(crate) &'a mut Vec<u8>);

impl std::fmt::Write for ByteWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl Fn(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        String::from_utf8_lossy(&v).into_owned()
    }

    /// [`string_value`] one byte at a time, as it was written before the word scan.
    fn string_value_bytewise(out: &mut Vec<u8>, s: &[u8]) {
        out.push(b'"');
        for &b in c_string(s) {
            match b {
                8 => out.extend_from_slice(b"\\b"),
                12 => out.extend_from_slice(b"\\f"),
                b'\n' | 11 => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                b'\\' | b'\'' | b'"' => out.extend_from_slice(&[b'\\', b]),
                b if b < 0x20 || b == 0x7f => {
                    out.extend_from_slice(format!("\\{b:03o}").as_bytes())
                }
                b => out.push(b),
            }
        }
        out.push(b'"');
    }

    #[test]
    fn c_strings_compare_as_their_bytes_to_the_first_nul() {
        let values: [Option<&[u8]>; 9] = [
            None,
            Some(b""),
            Some(b"\0"),
            Some(b"\0abc"),
            Some(b"ab"),
            Some(b"ab\0x"),
            Some(b"abc"),
            Some(b"a"),
            Some(b"ab\0"),
        ];
        for c in values {
            let c = c.map(c_string);
            for s in values {
                assert_eq!(same_c_string(c, s), c == s.map(c_string), "{c:?} {s:?}");
            }
        }
    }

    #[test]
    fn string_values_scanned_by_word_match_the_bytewise_scan() {
        // Every byte value at every position of strings of 0 to 40 bytes (scanned in
        // steps of 16 or 8 and the rest), among plain bytes and bytes at or above 0x80
        // (printed raw), and after other escapes.
        let mut next = super::super::test_words(0x2545_f491_4f6c_dd1d);
        for len in 0..=40usize {
            for at in 0..len.max(1) {
                for b in 0..=255u8 {
                    let mut s: Vec<u8> = (0..len)
                        .map(|_| match next() % 4 {
                            0 => 0x80 | (next() as u8),
                            _ => b'a' + (next() % 26) as u8,
                        })
                        .collect();
                    if at < len {
                        s[at] = b;
                    }
                    if next().is_multiple_of(8) && len > 0 {
                        let k = (next() as usize) % len;
                        s[k] = b"\"'\\\t\x7f"[(next() % 5) as usize];
                    }
                    let (mut fast, mut slow) = (Vec::new(), Vec::new());
                    string_value(&mut fast, Some(&s));
                    string_value_bytewise(&mut slow, &s);
                    assert_eq!(fast, slow, "{s:?}");
                    // With bytes after the string (a block's next strings: escaped,
                    // plain, NUL), scanned in words and copied in runs of 32 where the
                    // room allows: the same text.
                    let mut padded = s.clone();
                    let after = (next() % 40) as usize;
                    padded.extend((0..after).map(|_| b"\"\0a\x80\\\n"[(next() % 6) as usize]));
                    let mut from = Vec::with_capacity((next() % 80) as usize);
                    string_value_from(&mut from, Some((&padded, s.len())));
                    assert_eq!(from, slow, "{s:?} after {}", padded.len());
                }
            }
        }
    }

    #[test]
    fn names() {
        assert_eq!(escaped_name("a b"), "a\\ b");
        assert_eq!(escaped_name("1x"), "\\1x");
        assert_eq!(escaped_name("a/b:c"), "a/b\\:c");
        assert_eq!(escaped_name("tab\there"), "tab\\%09here");
        assert_eq!(escaped_name("é"), "é");
    }

    #[test]
    fn texts() {
        assert_eq!(
            s(|v| char_attr(v, b"tab\there \"q\" back\\slash\nnl\0\0")),
            r#""tab\there \"q\" back\\slash\nnl""#
        );
        assert_eq!(s(|v| char_attr(v, b"\x01")), r#""\001""#);
        assert_eq!(s(|v| char_row(v, b"a\nb")), "\"a\\n\",\n    \"b\"");
        assert_eq!(s(|v| char_row(v, b"ab\x01\x80")), r#""ab\001\200""#);
        assert_eq!(s(|v| string_value(v, Some(b"x\x01\x0by"))), r#""x\001\ny""#);
        assert_eq!(s(|v| string_value(v, None)), "NIL");
        assert_eq!(
            escaped_string(r#"[{"id": "zlib"}]"#),
            r#"[{\"id\": \"zlib\"}]"#
        );
    }
}
