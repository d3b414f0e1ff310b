//! Tokens of CDL, as ncgen's lexer (`ncgen.l`) defines them: whitespace and comments,
//! identifiers with backslash escapes, paths, numbers with type tags, strings,
//! character constants and the special words.

use nom::error::{ContextError, ErrorKind, ParseError};
use nom::IResult;

use crate::model::NcType;

/// A parse error: where, and what was expected there.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PError<'a> {
    /// The input at the fault.
    pub(crate) at: &'a str,
    /// Descriptions of what would have been accepted.
    pub(crate) expected: Vec<&'static str>,
    /// A complete message instead (bad constants and the like).
    pub(crate) message: Option<String>,
}

pub(crate) type PResult<'a, T> = IResult<&'a str, T, PError<'a>>;

impl<'a> PError<'a> {
    pub(crate) fn expected(at: &'a str, what: &'static str) -> nom::Err<PError<'a>> {
        nom::Err::Error(PError {
            at,
            expected: vec![what],
            message: None,
        })
    }

    pub(crate) fn fail(at: &'a str, message: String) -> nom::Err<PError<'a>> {
        nom::Err::Failure(PError {
            at,
            expected: Vec::new(),
            message: Some(message),
        })
    }

    /// `expected X or Y, found Z`.
    pub(crate) fn message(&self) -> String {
        if let Some(m) = &self.message {
            return m.clone();
        }
        let mut exp: Vec<&str> = Vec::new();
        for e in &self.expected {
            if !exp.contains(e) {
                exp.push(e);
            }
        }
        let what = match exp.len() {
            0 => "something else".to_string(),
            1 => exp[0].to_string(),
            n => format!("{} or {}", exp[..n - 1].join(", "), exp[n - 1]),
        };
        format!("expected {what}, found {}", describe(self.at))
    }
}

impl<'a> ParseError<&'a str> for PError<'a> {
    fn from_error_kind(input: &'a str, _: ErrorKind) -> Self {
        PError {
            at: input,
            expected: Vec::new(),
            message: None,
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        // Keep the error that got furthest; merge expectations at the same place.
        match self.at.len().cmp(&other.at.len()) {
            std::cmp::Ordering::Less => self,
            std::cmp::Ordering::Greater => other,
            std::cmp::Ordering::Equal => {
                let mut e = self;
                if e.message.is_none() {
                    e.message = other.message;
                }
                e.expected.extend(other.expected);
                e
            }
        }
    }
}

impl<'a> ContextError<&'a str> for PError<'a> {
    fn add_context(input: &'a str, ctx: &'static str, mut other: Self) -> Self {
        // The innermost description wins; an outer one applies only where nothing more
        // specific was said at the same place.
        if other.expected.is_empty()
            && other.message.is_none()
            && other.at.len() == skip_ws_lenient(input).len()
        {
            other.expected.push(ctx);
        }
        other
    }
}

/// What the input at an error starts with, for messages.
pub(crate) fn describe(at: &str) -> String {
    let at = skip_ws_lenient(at);
    let Some(c) = at.chars().next() else {
        return "end of input".to_string();
    };
    if c == '"' {
        let body: String = at[1..]
            .chars()
            .take_while(|&c| c != '"' && c != '\n')
            .take(20)
            .collect();
        return format!("string \"{body}\"");
    }
    if is_ident_start(c) || c.is_ascii_digit() || c == '\\' {
        let word: String = at
            .chars()
            .take_while(|&c| is_ident_char(c) || c == '\\')
            .take(40)
            .collect();
        return format!("'{word}'");
    }
    format!("'{c}'")
}

fn skip_ws_lenient(mut i: &str) -> &str {
    loop {
        let t = i.trim_start_matches([' ', '\t', '\r', '\n', '\x0c']);
        if let Some(rest) = t.strip_prefix("//") {
            i = rest.find('\n').map_or("", |p| &rest[p..]);
        } else if let Some(rest) = t.strip_prefix("/*") {
            i = rest.find("*/").map_or("", |p| &rest[p + 2..]);
        } else {
            return t;
        }
    }
}

/// Skip whitespace and comments (`// ...` and `/* ... */`).
pub(crate) fn ws(i: &str) -> PResult<'_, ()> {
    // Most calls (between the values of a data list) meet a token at once, or after
    // one space: answer those without the general loop.
    let b = i.as_bytes();
    let skip = usize::from(b.first() == Some(&b' '));
    match b.get(skip) {
        Some(c) if !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'/') => {
            return Ok((&i[skip..], ()))
        }
        _ => {}
    }
    let mut i = i;
    loop {
        let t = i.trim_start_matches([' ', '\t', '\r', '\n', '\x0c']);
        if let Some(rest) = t.strip_prefix("//") {
            i = rest.find('\n').map_or("", |p| &rest[p..]);
        } else if let Some(rest) = t.strip_prefix("/*") {
            match rest.find("*/") {
                Some(p) => i = &rest[p + 2..],
                None => return Err(PError::fail(t, "unterminated /* comment".into())),
            }
        } else {
            return Ok((t, ()));
        }
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

/// `%` is no identifier character of ncgen's, but ncdump prints it bare in names (its
/// `escaped_name` leaves it alone) and nowhere else in CDL can it stand.
fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@' | '+' | '-' | '%') || !c.is_ascii()
}

/// Characters a name may start with beyond ncgen's: ncdump prints `.specloc` (NWB),
/// `-x`, `+x`, `@x` bare, as `escaped_name` leaves `_.@+-` alone, and ncgen cannot
/// read them in any spelling. Where a name stands no value can, so [`ident`] takes
/// them; a value is read as a number first.
fn is_name_start(c: char) -> bool {
    is_ident_start(c) || matches!(c, '.' | '@' | '+' | '-')
}

/// Characters that may follow a backslash in an identifier.
const ID_ESCAPABLE: &str = " !\"#$%&'()*,:;<=>?[\\]^`{|}~";

/// A single punctuation character, after whitespace.
pub(crate) fn sym<'a>(c: char, what: &'static str) -> impl Fn(&'a str) -> PResult<'a, usize> {
    move |i: &'a str| {
        let (i, ()) = ws(i)?;
        // Punctuation is ASCII: a byte comparison (strip_prefix(char) costs a memcmp).
        if c.is_ascii() && i.as_bytes().first() == Some(&(c as u8)) {
            Ok((&i[1..], i.len()))
        } else {
            Err(PError::expected(i, what))
        }
    }
}

/// The raw text of the next word (identifier characters and escapes), no whitespace skipped.
fn raw_word(i: &str) -> Option<(&str, &str)> {
    raw_word_from(i, is_ident_start)
}

/// [`raw_word`] of a name, which may also start as [`is_name_start`] says.
fn raw_name(i: &str) -> Option<(&str, &str)> {
    raw_word_from(i, is_name_start)
}

/// A word whose first character `start` allows (or an escape).
fn raw_word_from(i: &str, start: fn(char) -> bool) -> Option<(&str, &str)> {
    let mut chars = i.char_indices().peekable();
    let mut end = 0;
    let mut first = true;
    while let Some(&(p, c)) = chars.peek() {
        if c == '\\' {
            chars.next();
            match chars.next() {
                Some((q, e)) if ID_ESCAPABLE.contains(e) || (first && e.is_ascii_digit()) => {
                    end = q + e.len_utf8();
                }
                _ => break,
            }
        } else if (first && start(c))
            || (!first && is_ident_char(c))
            // A byte that is not UTF-8 is taken into the word, for `ident` to refuse.
            || crate::text::raw_byte(c).is_some()
        {
            chars.next();
            end = p + c.len_utf8();
        } else {
            break;
        }
        first = false;
    }
    (end > 0).then(|| (&i[..end], &i[end..]))
}

/// Words the lexer turns into tokens of their own, so they are never identifiers.
const RESERVED: &[&str] = &[
    "char",
    "byte",
    "short",
    "int",
    "float",
    "double",
    "ubyte",
    "ushort",
    "uint",
    "int64",
    "uint64",
    "string",
    "real",
    "long",
    "integer",
    "ulong",
    "uinteger",
    "compound",
    "struct",
    "structure",
    "enum",
    "opaque",
    "unlimited",
    "UNLIMITED",
    "netcdf",
    "NETCDF",
    "netCDF",
    "DoubleInf",
    "Infinity",
    "NaN",
    "nan",
    "FloatInf",
    "Infinityf",
    "Inff",
    "NaNf",
    "nanf",
    "NIL",
    "nil",
    "Nil",
];

/// netCDF's special attribute names: tokens of their own in ncgen.
pub(crate) const SPECIALS: &[&str] = &[
    "_FillValue",
    "_Format",
    "_Storage",
    "_ChunkSizes",
    "_Fletcher32",
    "_DeflateLevel",
    "_Shuffle",
    "_Endianness",
    "_NoFill",
    "_NCProperties",
    "_IsNetcdf4",
    "_SuperblockVersion",
    "_Filter",
    "_Codecs",
    "_QuantizeBitGroomNumberOfSignificantDigits",
    "_QuantizeGranularBitRoundNumberOfSignificantDigits",
    "_QuantizeBitRoundNumberOfSignificantDigits",
    "_QuantizeBitRoundNumberOfSignificantBits",
];

/// Remove identifier escapes: `\c` is `c`.
fn unescape_ident(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(e) = chars.next() {
                out.push(e);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The next word as written (identifier or keyword), after whitespace; `None` if
/// the input does not start with one. Returns (word, rest, position of the word).
pub(crate) fn peek_word(i: &str) -> Option<(&str, &str)> {
    let (i, ()) = ws(i).ok()?;
    raw_word(i)
}

/// An identifier (not a keyword or special name), escapes removed. `_` is a name
/// here (ncdump prints an attribute `_` bare); as a value it is the fill, which
/// values read before names.
pub(crate) fn ident(i: &str) -> PResult<'_, (String, usize)> {
    let (i, ()) = ws(i)?;
    match raw_name(i) {
        Some((w, rest)) if !RESERVED.contains(&w) && !SPECIALS.contains(&w) => {
            // "dimensions:" and the other section keywords include their colon.
            if is_section_keyword(w) && rest.starts_with(':') {
                return Err(PError::expected(i, "a name"));
            }
            if w.chars().any(|c| crate::text::raw_byte(c).is_some()) {
                return Err(PError::fail(
                    i,
                    "a name must be valid UTF-8 (netCDF names are UTF-8 text)".into(),
                ));
            }
            Ok((rest, (unescape_ident(w), i.len())))
        }
        _ => Err(PError::expected(i, "a name")),
    }
}

fn is_section_keyword(w: &str) -> bool {
    matches!(w, "types" | "dimensions" | "variables" | "data" | "group")
}

/// An attribute name: an identifier or one of the special names.
pub(crate) fn attr_name(i: &str) -> PResult<'_, (String, usize)> {
    let (j, ()) = ws(i)?;
    if let Some((w, rest)) = raw_word(j) {
        if SPECIALS.contains(&w) {
            return Ok((rest, (w.to_string(), j.len())));
        }
    }
    ident(i).map_err(|_| PError::expected(j, "an attribute name"))
}

/// A keyword (whole word), after whitespace.
pub(crate) fn keyword<'a>(kw: &'static str) -> impl Fn(&'a str) -> PResult<'a, usize> {
    move |i: &'a str| {
        let (i, ()) = ws(i)?;
        match raw_word(i) {
            Some((w, rest)) if w == kw => Ok((rest, i.len())),
            _ => Err(PError::expected(i, kw)),
        }
    }
}

/// A section keyword with its colon attached (`dimensions:`).
pub(crate) fn section<'a>(
    name: &'static str,
    what: &'static str,
) -> impl Fn(&'a str) -> PResult<'a, usize> {
    move |i: &'a str| {
        let (i, ()) = ws(i)?;
        match raw_word(i) {
            Some((w, rest)) if w == name && rest.starts_with(':') => Ok((&rest[1..], i.len())),
            _ => Err(PError::expected(i, what)),
        }
    }
}

/// An atomic type keyword (with ncgen's aliases).
pub(crate) fn atomic_type(i: &str) -> PResult<'_, (NcType, usize)> {
    let (i, ()) = ws(i)?;
    match raw_word(i) {
        Some((w, rest)) => match NcType::from_cdl_name(w) {
            Some(t) => Ok((rest, (t, i.len()))),
            None => Err(PError::expected(i, "a type")),
        },
        None => Err(PError::expected(i, "a type")),
    }
}

/// `/g/sub/name` (or `/`): group names and the last name.
pub(crate) fn path(i: &str) -> PResult<'_, (Vec<String>, usize)> {
    let (i, ()) = ws(i)?;
    let start = i.len();
    let Some(mut rest) = i.strip_prefix('/') else {
        return Err(PError::expected(i, "a path"));
    };
    let mut parts = Vec::new();
    while let Some((w, r)) = raw_name(rest) {
        parts.push(unescape_ident(w));
        match r.strip_prefix('/') {
            Some(r2) if raw_name(r2).is_some() => rest = r2,
            _ => {
                rest = r;
                break;
            }
        }
    }
    Ok((rest, (parts, start)))
}

/// A double-quoted string: its bytes with escapes removed.
pub(crate) fn string(i: &str) -> PResult<'_, (Vec<u8>, usize)> {
    let (i, ()) = ws(i)?;
    let start = i.len();
    let Some(body) = i.strip_prefix('"') else {
        return Err(PError::expected(i, "a string"));
    };
    let b = body.as_bytes();
    let mut out = Vec::with_capacity(b.len().min(64));
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'"' => return Ok((&body[k + 1..], (out, start))),
            b'\\' => {
                let Some(&e) = b.get(k + 1) else { break };
                k += 2;
                match e {
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'v' => out.push(11),
                    b'?' => out.push(0x7f),
                    b'x' | b'X' => {
                        let hex: String = body[k..]
                            .chars()
                            .take(2)
                            .take_while(char::is_ascii_hexdigit)
                            .collect();
                        if hex.is_empty() {
                            return Err(PError::fail(
                                &body[k - 2..],
                                "bad \\x escape: two hex digits must follow".into(),
                            ));
                        }
                        k += hex.len();
                        out.push(u8::from_str_radix(&hex, 16).unwrap_or(0));
                    }
                    b'0'..=b'7' => {
                        let oct: String = body[k - 1..]
                            .chars()
                            .take(3)
                            .take_while(|c| ('0'..='7').contains(c))
                            .collect();
                        k += oct.len() - 1;
                        let v = u32::from_str_radix(&oct, 8).unwrap_or(0);
                        out.push((v & 0xff) as u8);
                    }
                    other => out.push(other),
                }
            }
            // A byte of the file that was not UTF-8 (see `cdl::source_text`): the byte.
            0xf4 => {
                let raw = body[k..].chars().next().and_then(crate::text::raw_byte);
                match raw {
                    Some(byte) => {
                        out.push(byte);
                        k += 4;
                    }
                    None => {
                        out.push(0xf4);
                        k += 1;
                    }
                }
            }
            c => {
                out.push(c);
                k += 1;
            }
        }
    }
    Err(PError::fail(i, "unterminated string".into()))
}

/// A single-quoted character constant: a byte.
pub(crate) fn char_const(i: &str) -> PResult<'_, (u8, usize)> {
    let (i, ()) = ws(i)?;
    let start = i.len();
    let Some(body) = i.strip_prefix('\'') else {
        return Err(PError::expected(i, "a character constant"));
    };
    let bad = || PError::fail(i, "bad character constant".into());
    let b = body.as_bytes();
    let (value, len) = match b.first() {
        Some(b'\\') => match b.get(1) {
            Some(b'0'..=b'7')
                if b.len() >= 4 && b[1..4].iter().all(|c| (b'0'..=b'7').contains(c)) =>
            {
                (u8::from_str_radix(&body[1..4], 8).map_err(|_| bad())?, 4)
            }
            Some(b'x' | b'X') if b.len() >= 4 && b[2..4].iter().all(u8::is_ascii_hexdigit) => {
                (u8::from_str_radix(&body[2..4], 16).map_err(|_| bad())?, 4)
            }
            Some(&e) => (
                match e {
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    b'0' => 0,
                    b'?' => 0x7f,
                    other => other,
                },
                2,
            ),
            None => return Err(bad()),
        },
        Some(&c) if c.is_ascii() && c != b'\'' => (c, 1),
        _ => return Err(bad()),
    };
    match body[len..].strip_prefix('\'') {
        Some(rest) => Ok((rest, (value, start))),
        None => Err(bad()),
    }
}

/// A numeric constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    Int(i128, NcType),
    Float(f32),
    Double(f64),
    /// `0x...` without a tag.
    Opaque,
}

/// A number, or one of the special floating-point words; also `0x...` hex.
pub(crate) fn number(i: &str) -> PResult<'_, (Number, usize, &str)> {
    let (i, ()) = ws(i)?;
    let start = i.len();
    let special = |w: &str| -> Option<Number> {
        Some(match w {
            "NaN" | "nan" => Number::Double(f64::NAN),
            "Infinity" | "DoubleInf" => Number::Double(f64::INFINITY),
            "-Infinity" => Number::Double(f64::NEG_INFINITY),
            "NaNf" | "nanf" => Number::Float(f32::NAN),
            "Infinityf" | "Inff" | "FloatInf" => Number::Float(f32::INFINITY),
            "-Infinityf" | "-Inff" => Number::Float(f32::NEG_INFINITY),
            _ => return None,
        })
    };
    // Special words, with an optional leading '-'.
    let (sign, body) = match i.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", i),
    };
    // Only a letter can start one of the words (checked first: this runs per value).
    let word = body
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic());
    if let Some((w, rest)) = word.then(|| raw_word(body)).flatten() {
        if let Some(n) = special(&format!("{sign}{w}")) {
            return Ok((rest, (n, start, &i[..i.len() - rest.len()])));
        }
    }
    let b = i.as_bytes();
    let mut k = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        k += 1;
    }
    // Hex: 0x... with an optional s, l or ll tag.
    if b.get(k) == Some(&b'0')
        && matches!(b.get(k + 1), Some(b'x' | b'X'))
        && b.get(k + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        let digits_start = k + 2;
        let mut e = digits_start;
        while b.get(e).is_some_and(u8::is_ascii_hexdigit) {
            e += 1;
        }
        let hex = &i[digits_start..e];
        let tag_len = if i[e..].starts_with("ll") || i[e..].starts_with("LL") {
            2
        } else if matches!(b.get(e), Some(b's' | b'S' | b'l' | b'L')) {
            1
        } else {
            0
        };
        let rest = &i[e + tag_len..];
        let text = &i[..e + tag_len];
        if tag_len == 0 {
            return Ok((rest, (Number::Opaque, start, text)));
        }
        let tail = if hex.len() > 16 {
            &hex[hex.len() - 16..]
        } else {
            hex
        };
        let v = u64::from_str_radix(tail, 16)
            .map_err(|_| PError::fail(i, format!("bad hex constant '{text}'")))?;
        let t = match &i[e..e + tag_len] {
            "s" | "S" => NcType::UShort,
            "l" | "L" => NcType::UInt,
            _ => NcType::UInt64,
        };
        // ncgen keeps all 64 bits of a hex constant except with the short tag.
        let v = match t {
            NcType::UShort => i128::from(v as u16),
            _ => i128::from(v),
        };
        let t = if t == NcType::UInt && v > i128::from(u32::MAX) {
            NcType::UInt64
        } else {
            t
        };
        return Ok((rest, (Number::Int(v, t), start, text)));
    }
    let int_start = k;
    while b.get(k).is_some_and(u8::is_ascii_digit) {
        k += 1;
    }
    let int_digits = k - int_start;
    let mut frac_digits = 0;
    let mut is_float = false;
    if b.get(k) == Some(&b'.') {
        is_float = true;
        k += 1;
        while b.get(k).is_some_and(u8::is_ascii_digit) {
            k += 1;
            frac_digits += 1;
        }
    }
    if int_digits + frac_digits == 0 {
        return Err(PError::expected(i, "a number"));
    }
    if matches!(b.get(k), Some(b'e' | b'E')) {
        let mut e = k + 1;
        if matches!(b.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        if b.get(e).is_some_and(u8::is_ascii_digit) {
            while b.get(e).is_some_and(u8::is_ascii_digit) {
                e += 1;
            }
            k = e;
            is_float = true;
        }
    }
    if is_float {
        let text = &i[..k];
        let (n, len) = match b.get(k) {
            Some(b'f' | b'F') => (text.parse::<f32>().map(Number::Float), 1),
            Some(b'd' | b'D' | b'l' | b'L') => (text.parse::<f64>().map(Number::Double), 1),
            _ => (text.parse::<f64>().map(Number::Double), 0),
        };
        let n = n.map_err(|_| PError::fail(i, format!("bad floating-point constant '{text}'")))?;
        return Ok((&i[k + len..], (n, start, &i[..k + len])));
    }
    // Integer with an optional tag: b s l ll, u before or after, or u alone.
    let digits = &i[int_start..k];
    let mut t = k;
    while t < b.len() && b"BbSsLlUu".contains(&b[t]) && t - k < 3 {
        t += 1;
    }
    let tag = &i[k..t];
    let text = &i[..t];
    let rest = &i[t..];
    if b.get(t).is_some_and(|c| c.is_ascii_alphanumeric()) {
        let end = t + i[t..].bytes().take_while(u8::is_ascii_alphanumeric).count();
        return Err(PError::fail(i, format!("bad number '{}'", &i[..end])));
    }
    let negative = i.starts_with('-');
    let radix = if digits.len() > 1 && digits.starts_with('0') {
        8
    } else {
        10
    };
    let magnitude = u64::from_str_radix(digits, radix)
        .map_err(|_| PError::fail(i, format!("integer constant out of range: {text}")))?;
    let lower = tag.to_ascii_lowercase();
    let unsigned = lower.starts_with('u') || lower.ends_with('u');
    let core = lower.trim_matches('u');
    if unsigned && negative {
        return Err(PError::fail(
            i,
            format!("unsigned integer cannot be negative: {text}"),
        ));
    }
    let value: i128 = if negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    let typ = match (core, unsigned) {
        ("", false) if tag.is_empty() => {
            // No tag: the smallest of int, uint, int64, uint64 that holds it (ncgen's rule).
            if i32::try_from(value).is_ok() {
                NcType::Int
            } else if u32::try_from(value).is_ok() {
                NcType::UInt
            } else if value < 0 {
                NcType::Int64
            } else {
                NcType::UInt64
            }
        }
        ("", true) => NcType::UInt,
        ("b", false) => NcType::Byte,
        ("b", true) => NcType::UByte,
        ("s", false) => NcType::Short,
        ("s", true) => NcType::UShort,
        ("l", false) => NcType::Int,
        ("l", true) => NcType::UInt,
        ("ll", false) => NcType::Int64,
        ("ll", true) => NcType::UInt64,
        _ => {
            return Err(PError::fail(
                i,
                format!("illegal integer suffix '{tag}' in '{text}'"),
            ))
        }
    };
    if typ == NcType::Int64 && i64::try_from(value).is_err() {
        return Err(PError::fail(
            i,
            format!("integer constant out of range: {text}"),
        ));
    }
    Ok((rest, (Number::Int(value, typ), start, text)))
}

/// The `netcdf` keyword and the dataset name up to `{` (whitespace removed).
pub(crate) fn dataset_header(i: &str) -> PResult<'_, String> {
    let (i, ()) = ws(i)?;
    let rest = ["netcdf", "NETCDF", "netCDF"]
        .iter()
        .find_map(|kw| {
            i.strip_prefix(kw)
                .filter(|r| !r.starts_with(|c: char| is_ident_char(c)))
        })
        .ok_or_else(|| PError::expected(i, "'netcdf'"))?;
    match rest.find('{') {
        Some(p) => {
            let name: String = rest[..p].chars().filter(|&c| c > ' ').collect();
            if name.is_empty() {
                return Err(PError::expected(rest, "a dataset name"));
            }
            Ok((&rest[p..], name))
        }
        None => Err(PError::expected(rest.trim_end(), "'{'")),
    }
}

/// Turn a recoverable error into a failure: the production is committed.
pub(crate) fn cut<'a, T>(r: PResult<'a, T>) -> PResult<'a, T> {
    r.map_err(|e| match e {
        nom::Err::Error(e) => nom::Err::Failure(e),
        other => other,
    })
}
