//! The second pass: read one cut data list (see `scan.rs`) from the file in blocks,
//! with the parser's grammar for data lists (`data_list` in `parse/grammar.rs`: items
//! separated by commas, braces, an empty list) and its errors, handing each value to
//! a [`Visit`]. Plain decimal numbers, nearly every value of a large data section, are
//! read here directly; every other value goes to the parser's own `data_leaf`, so that
//! both read values alike.

use std::io;

use super::input::CdlInput;
use super::scan::Cut;
use crate::cdl::ast::Datum;
use crate::cdl::parse::{data_value, SyntaxFault};

/// How much of a list is held at a time.
const BLOCK: usize = 4 << 20;
/// Runs of at least this many bytes are offered to [`Visit::run`].
const RUN_BYTES: usize = 1 << 20;

/// A plain decimal constant, as the parser reads it: an integer without a type tag,
/// leading zero or more than 18 digits, or a floating-point constant without a tag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Plain {
    /// An integer (its CDL type does not change how it converts).
    Int(i64),
    /// A double.
    Double(f64),
}

/// What reading a list can stop at.
#[derive(Debug)]
pub(crate) enum ListError {
    /// A syntax error at a file offset.
    Syntax(SyntaxFault),
    /// Anything else (the visitor's), already placed.
    Other(super::GenError),
}

impl From<io::Error> for ListError {
    fn from(e: io::Error) -> Self {
        ListError::Other(super::GenError::Read(e))
    }
}

/// What is done with the values of a list, in order.
pub(crate) trait Visit {
    /// A plain decimal at file offset `pos`.
    ///
    /// # Errors
    /// The visitor's.
    fn plain(&mut self, value: Plain, pos: usize) -> Result<(), ListError>;

    /// Any other value (positions are file offsets).
    ///
    /// # Errors
    /// The visitor's.
    fn datum(&mut self, datum: Datum) -> Result<(), ListError>;

    /// Take the values of `run` (values separated by commas, starting and ending
    /// with a value, no braces) at once, when it can: false to have them read one by
    /// one instead, which the reader then does (so only the common case need be
    /// handled here).
    ///
    /// # Errors
    /// The visitor's.
    fn run(&mut self, run: &[u8]) -> Result<bool, ListError> {
        let _ = run;
        Ok(false)
    }
}

/// Counts values: the first pass over lists that size an unlimited dimension, and
/// the syntax check.
#[derive(Default)]
pub(crate) struct Count(pub(crate) u64);

impl Visit for Count {
    fn plain(&mut self, _: Plain, _: usize) -> Result<(), ListError> {
        self.0 += 1;
        Ok(())
    }

    fn datum(&mut self, _: Datum) -> Result<(), ListError> {
        self.0 += 1;
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// After `{` (or at the list's start): a value, `{`, or the end of the list.
    First,
    /// After `,`: a value or `{`.
    Next,
    /// After a value: `,` or the end of the enclosing list.
    Separator,
}

pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0c)
}

fn is_delimiter(b: u8) -> bool {
    is_space(b) || matches!(b, b',' | b'{' | b'}')
}

/// Read the list `cut` of `input`, handing its values to `visit`.
///
/// # Errors
/// The first syntax error (as a file offset and what was expected), read errors and
/// the visitor's errors.
pub(crate) fn read_list<V: Visit + ?Sized>(
    input: &CdlInput,
    cut: &Cut,
    visit: &mut V,
) -> Result<(), ListError> {
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK);
    // File offset of buf[0], and how far the list has been read into buf.
    let mut base = cut.start;
    let mut read_to = cut.start;
    let mut p = 0usize;
    let mut depth = 0usize;
    let mut expect = Expect::First;
    // Runs are not offered again before the end of one the visitor did not take.
    let mut runs_from = 0u64;
    let fault = |offset: u64, what: &'static str| {
        ListError::Syntax(SyntaxFault {
            offset: offset as usize,
            expected: vec![what],
            message: None,
        })
    };
    loop {
        while p < buf.len() && is_space(buf[p]) {
            p += 1;
        }
        let at_end = read_to >= cut.end;
        if p == buf.len() {
            if at_end {
                break;
            }
            refill(input, cut, &mut buf, &mut base, &mut read_to, &mut p, 0)?;
            continue;
        }
        let b = buf[p];
        let here = base + p as u64;
        match expect {
            Expect::Separator => match b {
                b',' => {
                    expect = Expect::Next;
                    p += 1;
                }
                b'}' if depth > 0 => {
                    depth -= 1;
                    p += 1;
                }
                _ if depth == 0 => return Err(fault(here, "',' or ';'")),
                _ => return Err(fault(here, "',' or '}'")),
            },
            Expect::First | Expect::Next => {
                if here >= runs_from && depth == 0 && buf.len() - p >= RUN_BYTES {
                    // Up to the last comma of what is held: values and commas only,
                    // if the visitor can take them so.
                    if let Some(q) = buf[p..].iter().rposition(|&c| c == b',') {
                        if q > 0 && visit.run(&buf[p..p + q])? {
                            p += q;
                            expect = Expect::Separator;
                            continue;
                        }
                        runs_from = here + q as u64;
                    }
                }
                if b == b'{' {
                    depth += 1;
                    expect = Expect::First;
                    p += 1;
                    continue;
                }
                if expect == Expect::First && b == b'}' {
                    if depth == 0 {
                        return Err(fault(here, "',' or ';'"));
                    }
                    depth -= 1;
                    expect = Expect::Separator;
                    p += 1;
                    continue;
                }
                let pos = here as usize;
                // Plain decimals, read here, end at a delimiter.
                let rest = &buf[p..];
                match plain_prefix(rest) {
                    Some((v, n)) if n < rest.len() && is_delimiter(rest[n]) => {
                        visit.plain(v, pos)?;
                        p += n;
                        expect = Expect::Separator;
                        continue;
                    }
                    Some((_, n)) if n == rest.len() && !at_end => {
                        refill(input, cut, &mut buf, &mut base, &mut read_to, &mut p, n)?;
                        continue;
                    }
                    _ => {}
                }
                // Any other value: its token ends at the next delimiter.
                let mut e = p;
                while e < buf.len() && !is_delimiter(buf[e]) {
                    e += 1;
                }
                if e == buf.len() && !at_end {
                    let partial = e - p;
                    refill(
                        input,
                        cut,
                        &mut buf,
                        &mut base,
                        &mut read_to,
                        &mut p,
                        partial,
                    )?;
                    continue;
                }
                let token = &buf[p..e];
                match plain(token) {
                    Some(v) => {
                        visit.plain(v, pos)?;
                        p = e;
                    }
                    None => {
                        // Cuts hold ASCII only.
                        let text = std::str::from_utf8(token).unwrap_or("");
                        match data_value(text, pos) {
                            Ok((d, used)) => {
                                visit.datum(d)?;
                                p += used;
                            }
                            Err(mut f) => {
                                f.offset += pos;
                                return Err(ListError::Syntax(f));
                            }
                        }
                    }
                }
                expect = Expect::Separator;
            }
        }
    }
    match (expect, depth) {
        (Expect::Next, _) => Err(fault(cut.end, "a value")),
        (_, 0) => Ok(()),
        _ => Err(fault(cut.end, "',' or '}'")),
    }
}

/// Drop what is read of `buf` (before `p`), and read the next block of the list, at
/// least enough to finish a token of `partial` bytes.
fn refill(
    input: &CdlInput,
    cut: &Cut,
    buf: &mut Vec<u8>,
    base: &mut u64,
    read_to: &mut u64,
    p: &mut usize,
    partial: usize,
) -> io::Result<()> {
    buf.drain(..*p);
    *base += *p as u64;
    *p = 0;
    let want = BLOCK.max(partial * 2);
    let left = usize::try_from(cut.end - *read_to).unwrap_or(usize::MAX);
    let n = want.min(left);
    let old = buf.len();
    buf.resize(old + n, 0);
    let got = input.read_at(&mut buf[old..], *read_to)?;
    buf.truncate(old + got);
    if got == 0 && n > 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the CDL file became shorter while it was read",
        ));
    }
    *read_to += got as u64;
    #[cfg(test)]
    input
        .list_read
        .fetch_max(*read_to, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// Powers of ten a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `token` as a plain decimal, when it is one and its value is found exactly by one
/// multiplication or division (Clinger's fast path: mantissa and power of ten both
/// exact, so the one rounding gives what `str::parse::<f64>` gives). `None` sends the
/// token to the parser.
pub(crate) fn plain(token: &[u8]) -> Option<Plain> {
    plain_prefix(token)
        .filter(|&(_, n)| n == token.len())
        .map(|(v, _)| v)
}

/// The plain decimal `text` starts with, and its length (see [`plain`]).
#[inline]
pub(crate) fn plain_prefix(text: &[u8]) -> Option<(Plain, usize)> {
    let (negative, sign, s) = match text.first()? {
        b'-' => (true, 1, &text[1..]),
        b'+' => (false, 1, &text[1..]),
        _ => (false, 0, text),
    };
    let mut i = 0;
    let mut mantissa: u64 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        mantissa = mantissa
            .wrapping_mul(10)
            .wrapping_add(u64::from(s[i] - b'0'));
        i += 1;
    }
    let int_digits = i;
    let mut frac_digits = 0;
    let mut float = false;
    if i < s.len() && s[i] == b'.' {
        float = true;
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            mantissa = mantissa
                .wrapping_mul(10)
                .wrapping_add(u64::from(s[i] - b'0'));
            i += 1;
            frac_digits += 1;
        }
    }
    let digits = int_digits + frac_digits;
    // More digits might not fit the mantissa (the parser handles them).
    if digits == 0 || digits > 18 {
        return None;
    }
    let mut exponent: i64 = 0;
    if i < s.len() && matches!(s[i], b'e' | b'E') {
        let mut j = i + 1;
        let minus = match s.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let start = j;
        while j < s.len() && s[j].is_ascii_digit() && j - start < 6 {
            exponent = exponent * 10 + i64::from(s[j] - b'0');
            j += 1;
        }
        if j == start {
            return None;
        }
        if minus {
            exponent = -exponent;
        }
        float = true;
        i = j;
    }
    let len = sign + i;
    if !float {
        // A leading zero makes an octal constant (the parser's rule).
        if int_digits > 1 && s[0] == b'0' {
            return None;
        }
        let v = i64::try_from(mantissa).ok()?;
        return Some((Plain::Int(if negative { -v } else { v }), len));
    }
    let e10 = exponent - frac_digits as i64;
    let m = mantissa as f64;
    let v = if mantissa == 0 {
        0.0
    } else if mantissa > 1 << 53 {
        return None;
    } else if (0..=22).contains(&e10) {
        m * POW10[e10 as usize]
    } else if (-22..0).contains(&e10) {
        m / POW10[(-e10) as usize]
    } else {
        return None;
    };
    Some((Plain::Double(if negative { -v } else { v }), len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_decimals_read_as_the_parser_reads_them() {
        for t in [
            "0",
            "7",
            "-12",
            "+5",
            "123456789012345678",
            "1.5",
            "-0.0",
            "250.123",
            ".5",
            "5.",
            "1e3",
            "1.5E-7",
            "-2.25e+2",
            "0.1",
            "3.14159265358979",
            "1e22",
            "9e-22",
            "00.5",
        ] {
            let got = plain(t.as_bytes()).unwrap_or_else(|| panic!("{t}"));
            match got {
                Plain::Int(v) => assert_eq!(i128::from(v), t.parse::<i128>().unwrap(), "{t}"),
                Plain::Double(v) => {
                    let want = t.parse::<f64>().unwrap();
                    assert_eq!(v.to_bits(), want.to_bits(), "{t}");
                }
            }
        }
    }

    #[test]
    fn everything_else_goes_to_the_parser() {
        for t in [
            "",
            "-",
            ".",
            "012",
            "0x1F",
            "1.5f",
            "3b",
            "2s",
            "7u",
            "1e",
            "1e+",
            "NaN",
            "_",
            "1234567890123456789",
            "1e400",
            "1-2",
            "1.5.5",
            "9007199254740993.0",
            "1e-30",
        ] {
            assert_eq!(plain(t.as_bytes()), None, "{t}");
        }
    }

    /// Every value and syntax error as the parser gives them.
    fn read(text: &str) -> Result<Vec<String>, (usize, String)> {
        struct Collect(Vec<String>);
        impl Visit for Collect {
            fn plain(&mut self, v: Plain, _: usize) -> Result<(), ListError> {
                self.0.push(match v {
                    Plain::Int(i) => i.to_string(),
                    Plain::Double(d) => format!("{d:?}"),
                });
                Ok(())
            }
            fn datum(&mut self, d: Datum) -> Result<(), ListError> {
                self.0.push(format!("{:?}", d.value));
                Ok(())
            }
        }
        let full = format!("{text};");
        let input = CdlInput::from_bytes(full.clone().into_bytes());
        let cut = Cut {
            start: 0,
            end: text.len() as u64,
            newline: false,
        };
        let mut c = Collect(Vec::new());
        match read_list(&input, &cut, &mut c) {
            Ok(()) => Ok(c.0),
            Err(ListError::Syntax(f)) => Err((f.offset, f.message(&full[f.offset..]))),
            Err(ListError::Other(e)) => panic!("{e}"),
        }
    }

    #[test]
    fn lists_read_with_braces_and_values_of_every_kind() {
        assert_eq!(
            read(" {1, 2.5}, {}, _, NaN, 0x1Fs , -Infinityf ").unwrap(),
            [
                "1",
                "2.5",
                "Fill",
                "Double(NaN)",
                "Int { value: Wide { hi: 0, lo: 31 }, typ: UShort }",
                "Float(-inf)"
            ]
        );
        assert_eq!(read("  ").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn syntax_errors_are_the_parsers() {
        let cases = [
            ("1 2", 2, "expected ',' or ';', found '2'"),
            ("1, , 2", 3, "expected a value, found ','"),
            ("1,", 2, "expected a value, found ';'"),
            ("{1 2}", 3, "expected ',' or '}', found '2'"),
            ("1x", 0, "bad number '1x'"),
            ("1-2", 1, "expected ',' or ';', found '-'"),
            ("{1}}", 3, "expected ',' or ';', found '}'"),
            ("float", 0, "expected a value, found 'float'"),
        ];
        for (text, offset, message) in cases {
            assert_eq!(read(text), Err((offset, message.to_string())), "{text}");
        }
    }
}
