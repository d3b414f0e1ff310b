//! The CDL parser (nom), following ncgen's grammar (`cdl-grammar/cdl.ebnf`).
//!
//! [`parse`] turns text into a syntax tree ([`crate::cdl::ast`]); errors carry the
//! line and column of the fault and say what was expected and what was found.

mod grammar;
mod lex;

use std::fmt;

use crate::cdl::ast::CdlFile;

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

impl CdlError {
    /// An error at byte `offset` of `text`.
    pub fn at(text: &str, offset: usize, message: impl Into<String>) -> CdlError {
        let (line, column) = line_col(text, offset);
        CdlError {
            line,
            column,
            message: message.into(),
        }
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
    // A UTF-8 byte order mark is skipped, as ncgen does.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let skipped = text.len() - body.len();
    if let Some((offset, message)) = check_outside_text(text) {
        return Err(CdlError::at(text, offset, message));
    }
    match grammar::file(body) {
        Ok((_, f)) => Ok(f),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            let offset = skipped + body.len() - e.at.len();
            Err(CdlError::at(text, offset, e.message()))
        }
        Err(nom::Err::Incomplete(_)) => {
            Err(CdlError::at(text, text.len(), "unexpected end of input"))
        }
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
