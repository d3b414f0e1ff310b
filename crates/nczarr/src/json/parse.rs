//! The JSON reader: bytes to [`Json`], keeping number text, member order and the
//! bytes netcdf-c leaves raw in strings (see the module above).

use std::cell::Cell;

use super::{parse_float_text, Json, JsonError, Number};

/// Parse a JSON document.
///
/// # Errors
/// A [`JsonError`] with the line and column of the first fault: bad syntax, or
/// trailing characters after the value. Bytes in strings that are not UTF-8 are kept
/// as [`crate::text`] stand-ins, not refused (netcdf-c writes them).
pub fn parse(bytes: &[u8]) -> Result<Json, JsonError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut p = Parser {
        s: bytes,
        pos: 0,
        depth: 0,
        spare_items: Vec::new(),
        spare_members: Vec::new(),
        fault: Cell::new(None),
    };
    p.skip_ws();
    let value = p.value().map_err(|Fault| p.take_fault())?;
    p.skip_ws();
    // netcdf-c's file map could leave stale bytes after a shorter rewrite; NUL padding
    // is tolerated, anything else is an error.
    while p.pos < p.s.len() && p.s[p.pos] == 0 {
        p.pos += 1;
    }
    if p.pos < p.s.len() {
        let Fault = p.error("unexpected characters after the JSON value");
        return Err(p.take_fault());
    }
    Ok(value)
}

/// Parse a JSON document from text.
///
/// # Errors
/// As [`parse`].
pub fn parse_str(text: &str) -> Result<Json, JsonError> {
    parse(text.as_bytes())
}

const MAX_DEPTH: usize = 256;

/// True for number text in the plain grammar: an optional `-`, digits with at most one
/// `.` (a digit at least), and an optional exponent `e`/`E`, sign, digits. What it
/// accepts, Rust's float parser accepts too, and the text is kept as it is; anything
/// else takes the general path.
fn plain_number(t: &[u8]) -> bool {
    let t = t.strip_prefix(b"-").unwrap_or(t);
    let mantissa_end = t
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .unwrap_or(t.len());
    let (mantissa, exponent) = t.split_at(mantissa_end);
    let mut digits = 0;
    let mut dots = 0;
    for &b in mantissa {
        match b {
            b'0'..=b'9' => digits += 1,
            b'.' => dots += 1,
            _ => return false,
        }
    }
    if digits == 0 || dots > 1 {
        return false;
    }
    match exponent {
        [] => true,
        [_, rest @ ..] => {
            let rest = rest
                .strip_prefix(b"+")
                .or_else(|| rest.strip_prefix(b"-"))
                .unwrap_or(rest);
            !rest.is_empty() && rest.iter().all(u8::is_ascii_digit)
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
    /// Buffers arrays and objects are gathered in, one per level of nesting in use,
    /// so that each array or object is allocated once, at its size, instead of grown.
    spare_items: Vec<Vec<Json>>,
    spare_members: Vec<Vec<(String, Json)>>,
    /// The fault a [`Fault`] stands for.
    fault: Cell<Option<JsonError>>,
}

/// A fault, recorded in [`Parser::fault`]: the parser's results stay the size of a
/// [`Json`] (a `JsonError` inside each made every value move through the stack in
/// pieces, a tenth of the parse).
struct Fault;

impl Parser<'_> {
    /// The fault recorded, or a general one should none be (a bug, not bad input).
    fn take_fault(&self) -> JsonError {
        self.fault.take().unwrap_or_else(|| JsonError {
            line: 1,
            column: 1,
            message: "invalid JSON".into(),
        })
    }

    /// Record the first fault, at the current position, for [`parse`] to return.
    fn error(&self, message: &str) -> Fault {
        let upto = &self.s[..self.pos.min(self.s.len())];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = self.pos - upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        self.fault.set(Some(JsonError {
            line,
            column,
            message: message.to_string(),
        }));
        Fault
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8, what: &str) -> Result<(), Fault> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected {what}")))
        }
    }

    fn value(&mut self) -> Result<Json, Fault> {
        match self.peek() {
            None => Err(self.error("unexpected end of JSON text")),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b'-' | b'+' | b'0'..=b'9' | b'.') => self.number(),
            Some(c) if c.is_ascii_alphabetic() => self.word(),
            Some(_) => Err(self.error("expected a JSON value")),
        }
    }

    fn nest(&mut self) -> Result<(), Fault> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("JSON nested too deeply"));
        }
        Ok(())
    }

    fn object(&mut self) -> Result<Json, Fault> {
        self.nest()?;
        self.pos += 1;
        /// Members from which keys are looked up in a map instead of a scan.
        const INDEX_FROM: usize = 32;
        let mut index: Option<std::collections::HashMap<String, usize>> = None;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Json::Object(Vec::new()));
        }
        let mut members = self.spare_members.pop().unwrap_or_default();
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a string key"));
            }
            let key = self.string()?;
            self.skip_ws();
            self.expect(b':', "':'")?;
            self.skip_ws();
            let value = self.value()?;
            // A repeated key replaces the earlier value but keeps its position (as
            // Python's json keeps the last value). Past a few members the keys are
            // indexed: a scan per member made a 10^6-member object take hours.
            let at = match &mut index {
                Some(index) => index.get(&key).copied(),
                None => members.iter().position(|(k, _)| *k == key),
            };
            match at {
                Some(i) => members[i].1 = value,
                None => {
                    if let Some(index) = &mut index {
                        index.insert(key.clone(), members.len());
                    }
                    members.push((key, value));
                    if index.is_none() && members.len() == INDEX_FROM {
                        index = Some(
                            members
                                .iter()
                                .enumerate()
                                .map(|(i, (k, _))| (k.clone(), i))
                                .collect(),
                        );
                    }
                }
            }
            if self.list_ends(b'}')? {
                break;
            }
        }
        self.depth -= 1;
        let mut object = Vec::with_capacity(members.len());
        object.append(&mut members);
        self.spare_members.push(members);
        Ok(Json::Object(object))
    }

    fn array(&mut self) -> Result<Json, Fault> {
        self.nest()?;
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Json::Array(Vec::new()));
        }
        let mut items = self.spare_items.pop().unwrap_or_default();
        loop {
            self.skip_ws();
            items.push(self.value()?);
            if self.list_ends(b']')? {
                break;
            }
        }
        self.depth -= 1;
        let mut array = Vec::with_capacity(items.len());
        array.append(&mut items);
        self.spare_items.push(items);
        Ok(Json::Array(array))
    }

    /// After an element or member: true at the closing `close` (consumed), false at a
    /// `,` (consumed), an error otherwise.
    fn list_ends(&mut self, close: u8) -> Result<bool, Fault> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            _ => Err(self.error(if close == b'}' {
                "expected ',' or '}'"
            } else {
                "expected ',' or ']'"
            })),
        }
    }

    fn hex4(&mut self) -> Result<u32, Fault> {
        let digits = self
            .s
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("truncated \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("bad \\u escape"))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| self.error("bad \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, Fault> {
        self.pos += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            // Bytes up to the next quote or escape go in whole: most strings are one run.
            let Some(n) = self.s[self.pos..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\')
            else {
                self.pos = self.s.len();
                return Err(self.error("unterminated string"));
            };
            out.extend_from_slice(&self.s[self.pos..self.pos + n]);
            let b = self.s[self.pos + n];
            self.pos += n + 1;
            if b == b'"' {
                break;
            }
            // An escape.
            let Some(e) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            self.pos += 1;
            match e {
                b'"' => out.push(b'"'),
                b'\\' => out.push(b'\\'),
                b'/' => out.push(b'/'),
                b'b' => out.push(8),
                b'f' => out.push(12),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'u' => {
                    let mut cp = self.hex4()?;
                    if (0xD800..0xDC00).contains(&cp)
                        && self.s.get(self.pos..self.pos + 2) == Some(b"\\u")
                    {
                        let save = self.pos;
                        self.pos += 2;
                        let lo = self.hex4()?;
                        if (0xDC00..0xE000).contains(&lo) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        } else {
                            self.pos = save;
                        }
                    }
                    let c = char::from_u32(cp).unwrap_or('\u{FFFD}');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                // netcdf-c's writer never emits other escapes; keep the character.
                other => out.push(other),
            }
        }
        // netcdf-c writes char attributes' bytes into the JSON as they are: bytes that
        // are not UTF-8 are kept (see crate::text) for the char values they are.
        Ok(crate::text::lossless(out))
    }

    fn number(&mut self) -> Result<Json, Fault> {
        let start = self.pos;
        if let Some(b'-' | b'+') = self.peek() {
            self.pos += 1;
        }
        // -Infinity / -NaN spelled as words after a sign.
        if self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            let word = self.take_word();
            let text = format!("{}{}", &self.text(start, start + 1), word);
            return self.special_number(&text);
        }
        while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = self.peek() {
            self.pos += 1;
        }
        let raw = &self.s[start..self.pos];
        if plain_number(raw) {
            // ASCII by construction.
            let text = String::from_utf8_lossy(raw).into_owned();
            return Ok(Json::Number(Number(text)));
        }
        let text = self.text(start, self.pos);
        let valid = text
            .trim_start_matches('+')
            .parse::<f64>()
            .is_ok_and(|_| text.bytes().any(|b| b.is_ascii_digit()));
        if !valid {
            self.pos = start;
            return Err(self.error(&format!("malformed number '{text}'")));
        }
        Ok(Json::Number(Number(
            text.trim_start_matches('+').to_string(),
        )))
    }

    fn text(&self, from: usize, to: usize) -> String {
        String::from_utf8_lossy(&self.s[from..to]).into_owned()
    }

    fn take_word(&mut self) -> String {
        let start = self.pos;
        self.skip_word();
        self.text(start, self.pos)
    }

    fn skip_word(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.pos += 1;
        }
    }

    fn special_number(&mut self, text: &str) -> Result<Json, Fault> {
        match parse_float_text(text) {
            Some(f) if !f.is_finite() => Ok(Json::Number(Number::from_f64(f))),
            _ => Err(self.error(&format!("unexpected word '{text}'"))),
        }
    }

    fn word(&mut self) -> Result<Json, Fault> {
        let start = self.pos;
        self.skip_word();
        let word = &self.s[start..self.pos];
        for (text, value) in [
            (&b"null"[..], Json::Null),
            (b"true", Json::Bool(true)),
            (b"false", Json::Bool(false)),
        ] {
            if word.eq_ignore_ascii_case(text) {
                return Ok(value);
            }
        }
        let word = self.text(start, self.pos);
        let r = self.special_number(&word);
        if r.is_err() {
            self.pos = start;
        }
        r
    }
}
