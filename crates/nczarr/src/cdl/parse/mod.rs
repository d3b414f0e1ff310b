//! The CDL parser (nom), following ncgen's grammar (`cdl-grammar/cdl.ebnf`).
//!
//! [`parse`] turns text into a syntax tree ([`crate::cdl::ast`]); errors carry the
//! line and column of the fault and say what was expected and what was found.

mod grammar;
mod lex;
mod refs;
mod type_decls;

use std::fmt;

use crate::cdl::ast::{CdlFile, Datum};

/// A CDL syntax or semantic error, with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdlError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// What is wrong (`expected X, found Y`, or a semantic message).
    pub message: String,
}

impl fmt::Display for CdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for CdlError {}

// Here rather than in `error.rs`, which would otherwise import the CDL layer it is
// imported by.
impl From<CdlError> for crate::Error {
    fn from(e: CdlError) -> crate::Error {
        crate::Error::Cdl {
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

impl CdlError {
    /// An error at byte `offset` of `text`.
    pub fn at(text: &str, offset: usize, message: impl Into<String>) -> CdlError {
        CdlError::located(&text, offset, message)
    }

    /// An error at `offset`, placed by `loc`.
    pub fn located(loc: &dyn Locate, offset: usize, message: impl Into<String>) -> CdlError {
        let (line, column) = loc.line_col(offset);
        CdlError {
            line,
            column,
            message: message.into(),
        }
    }
}

/// Where an offset of parsed text is in the file, as 1-based line and column (in
/// characters): the text itself when the whole file was parsed, a map back to the
/// file when the streaming compiler parsed the file with its large data lists cut out
/// (`generate`).
pub trait Locate {
    /// Line and column of byte `offset`.
    fn line_col(&self, offset: usize) -> (usize, usize);
}

impl Locate for &str {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(self, offset)
    }
}

/// A syntax error in a data list read by the streaming compiler: where (byte offset
/// in the text it was given), and what was expected or went wrong. The message is
/// made from the text at the fault, which may lie past what the compiler holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyntaxFault {
    /// Byte offset of the fault.
    pub(crate) offset: usize,
    /// What would have been accepted there.
    pub(crate) expected: Vec<&'static str>,
    /// A complete message instead.
    pub(crate) message: Option<String>,
}

impl SyntaxFault {
    /// `expected X, found Y`, as the parser says it, `at` being the text at the fault.
    pub(crate) fn message(&self, at: &str) -> String {
        lex::PError {
            at,
            expected: self.expected.clone(),
            message: self.message.clone(),
        }
        .message()
    }
}

/// One value of a data list (not a braced list) at the start of `text`, after
/// whitespace: its datum, positioned at `base` plus its offset in `text`, and how many
/// bytes of `text` it took.
pub(crate) fn data_value(text: &str, base: usize) -> Result<(Datum, usize), SyntaxFault> {
    let total = base + text.len();
    match grammar::data_leaf(text, total) {
        Ok((rest, d)) => Ok((d, text.len() - rest.len())),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(SyntaxFault {
            offset: text.len() - e.at.len(),
            expected: e.expected,
            message: e.message,
        }),
        Err(nom::Err::Incomplete(_)) => Err(SyntaxFault {
            offset: text.len(),
            expected: vec!["a value"],
            message: None,
        }),
    }
}

/// 1-based line and column (in characters) of byte `offset`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

/// Parse CDL text into a syntax tree.
///
/// # Errors
/// [`CdlError`] with the position of the first syntax error.
pub fn parse(text: &str) -> Result<CdlFile, CdlError> {
    parse_at(text).map_err(|(offset, message)| CdlError::at(text, offset, message))
}

/// [`parse`], with the error as the byte offset of the fault and the message.
pub(crate) fn parse_at(text: &str) -> Result<CdlFile, (usize, String)> {
    // A UTF-8 byte order mark is skipped, as ncgen does.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let skipped = text.len() - body.len();
    if let Some((offset, message)) = check_outside_text(text) {
        return Err((offset, message.to_string()));
    }
    match grammar::file(body) {
        Ok((_, f)) => Ok(f),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            Err((skipped + body.len() - e.at.len(), e.message()))
        }
        Err(nom::Err::Incomplete(_)) => Err((text.len(), "unexpected end of input".to_string())),
    }
}

/// Where a byte of the file that is not UTF-8 (see [`crate::cdl::source_text`]) stands
/// outside string and character literals and comments, if it does: ncgen takes such
/// bytes in text, but netCDF names are UTF-8.
fn check_outside_text(text: &str) -> Option<(usize, &'static str)> {
    #[derive(PartialEq)]
    enum In {
        Code,
        Str,
        Char,
        Comment,
    }
    /// Deeper than any real group tree or data list (a data list nests once per
    /// dimension at most).
    const MAX_NESTING: usize = 256;
    let mut state = In::Code;
    let mut depth = 0usize;
    let mut escaped = false;
    let mut prev = '\0';
    for (i, c) in text.char_indices() {
        match state {
            In::Code => match c {
                // An escaped quote in a name (`a\'b`) opens nothing.
                '"' | '\'' if prev == '\\' => {}
                '"' => state = In::Str,
                '\'' => state = In::Char,
                '/' if prev == '/' => state = In::Comment,
                c if crate::text::raw_byte(c).is_some() => {
                    return Some((i, "a byte that is not UTF-8 outside a string or comment: names must be valid UTF-8"))
                }
                // The grammar recurses on braces (groups, nested data lists): a limit
                // here keeps hostile nesting from overflowing the stack.
                '{' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Some((i, "braces nested more than 256 deep"));
                    }
                }
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
            In::Str | In::Char => {
                let close = if state == In::Str { '"' } else { '\'' };
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == close {
                    state = In::Code;
                }
            }
            In::Comment => {
                if c == '\n' {
                    state = In::Code;
                }
            }
        }
        prev = if state == In::Code { c } else { '\0' };
    }
    None
}

#[cfg(test)]
mod tests;
