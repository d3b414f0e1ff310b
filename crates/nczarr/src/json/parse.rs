//! The JSON reader: bytes to [`Json`], keeping number text, member order and the
//! bytes netcdf-c leaves raw in strings (see the module above).

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
    };
    p.skip_ws();
    let value = p.value()?;
    p.skip_ws();
    // netcdf-c's file map could leave stale bytes after a shorter rewrite; NUL padding
    // is tolerated, anything else is an error.
    while p.pos < p.s.len() && p.s[p.pos] == 0 {
        p.pos += 1;
    }
    if p.pos < p.s.len() {
        return Err(p.error("unexpected characters after the JSON value"));
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

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> JsonError {
        let upto = &self.s[..self.pos.min(self.s.len())];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = self.pos - upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        JsonError {
            line,
            column,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8, what: &str) -> Result<(), JsonError> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected {what}")))
        }
    }

    fn value(&mut self) -> Result<Json, JsonError> {
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

    fn nest(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("JSON nested too deeply"));
        }
        Ok(())
    }

    fn object(&mut self) -> Result<Json, JsonError> {
        self.nest()?;
        self.pos += 1;
        /// Members from which keys are looked up in a map instead of a scan.
        const INDEX_FROM: usize = 32;
        let mut members = Vec::new();
        let mut index: Option<std::collections::HashMap<String, usize>> = None;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Json::Object(members));
        }
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
        Ok(Json::Object(members))
    }

    fn array(&mut self) -> Result<Json, JsonError> {
        self.nest()?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            if self.list_ends(b']')? {
                break;
            }
        }
        self.depth -= 1;
        Ok(Json::Array(items))
    }

    /// After an element or member: true at the closing `close` (consumed), false at a
    /// `,` (consumed), an error otherwise.
    fn list_ends(&mut self, close: u8) -> Result<bool, JsonError> {
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

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .s
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("truncated \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("bad \\u escape"))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| self.error("bad \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
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
                other => out.push(other),
            }
        }
        // netcdf-c writes char attributes' bytes into the JSON as they are: bytes that
        // are not UTF-8 are kept (see crate::text) for the char values they are.
        Ok(crate::text::lossless(out))
    }

    fn number(&mut self) -> Result<Json, JsonError> {
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
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.pos += 1;
        }
        self.text(start, self.pos)
    }

    fn special_number(&mut self, text: &str) -> Result<Json, JsonError> {
        match parse_float_text(text) {
            Some(f) if !f.is_finite() => Ok(Json::Number(Number::from_f64(f))),
            _ => Err(self.error(&format!("unexpected word '{text}'"))),
        }
    }

    fn word(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        let word = self.take_word();
        match word.to_ascii_lowercase().as_str() {
            "true" => Ok(Json::Bool(true)),
            "false" => Ok(Json::Bool(false)),
            "null" => Ok(Json::Null),
            _ => {
                let r = self.special_number(&word);
                if r.is_err() {
                    self.pos = start;
                }
                r
            }
        }
    }
}
