//! The words of DAP2's text documents (DDS and DAS): names, numbers, quoted strings
//! and the punctuation between them, each with the line it is on, so that a parse
//! error can say where.

/// One token of a DDS or DAS.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A name, keyword or number: anything DAP's `ID` lexeme allows.
    Word(String),
    /// A double-quoted string, its backslashes kept (`\"` is two characters).
    Quoted(String),
    /// One of `{ } [ ] ; = , :`.
    Punct(char),
}

/// A token and the line (from 1) it starts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: usize,
}

/// Characters of a word: DAP2's identifier characters, and what numbers hold.
fn is_word_byte(c: char) -> bool {
    c.is_alphanumeric() || "-+_/%.\\*!~'#@$^&|<>?()".contains(c)
}

/// The tokens of `text`. A `#` at the start of a word begins a comment to the end of
/// the line (libdap's DAS scanner). An unterminated string is an error naming its line.
pub(crate) fn tokens(text: &str) -> Result<Vec<Token>, (usize, String)> {
    let mut out = Vec::new();
    let mut line = 1usize;
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            '\n' => {
                line += 1;
                chars.next();
            }
            c if c.is_whitespace() => {
                chars.next();
            }
            '#' => {
                while let Some(&c) = chars.peek() {
                    if c == '\n' {
                        break;
                    }
                    chars.next();
                }
            }
            '{' | '}' | '[' | ']' | ';' | '=' | ',' | ':' => {
                out.push(Token {
                    tok: Tok::Punct(c),
                    line,
                });
                chars.next();
            }
            '"' => {
                let start = line;
                chars.next();
                let mut s = String::new();
                let mut closed = false;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => {
                            closed = true;
                            break;
                        }
                        // The backslash is kept with the character after it, as
                        // netcdf-c's scanner keeps it: escapes are expanded later, by
                        // the rules of what the string becomes.
                        '\\' => match chars.next() {
                            Some(e) => {
                                if e == '\n' {
                                    line += 1;
                                }
                                s.push('\\');
                                s.push(e);
                            }
                            None => break,
                        },
                        c => {
                            if c == '\n' {
                                line += 1;
                            }
                            s.push(c);
                        }
                    }
                }
                if !closed {
                    return Err((start, "a string is not closed".into()));
                }
                out.push(Token {
                    tok: Tok::Quoted(s),
                    line: start,
                });
            }
            c if is_word_byte(c) => {
                let mut s = String::new();
                while let Some(&c) = chars.peek() {
                    if !is_word_byte(c) {
                        break;
                    }
                    s.push(c);
                    chars.next();
                }
                out.push(Token {
                    tok: Tok::Word(s),
                    line,
                });
            }
            other => return Err((line, format!("unexpected character {other:?}"))),
        }
    }
    Ok(out)
}

/// A cursor over tokens for the two parsers.
pub(crate) struct Cursor {
    toks: Vec<Token>,
    at: usize,
    /// The line of the last token, for errors at the end of the text.
    last_line: usize,
}

impl Cursor {
    pub(crate) fn new(toks: Vec<Token>) -> Cursor {
        let last_line = toks.last().map_or(1, |t| t.line);
        Cursor {
            toks,
            at: 0,
            last_line,
        }
    }

    pub(crate) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.tok)
    }

    pub(crate) fn peek2(&self) -> Option<&Tok> {
        self.toks.get(self.at + 1).map(|t| &t.tok)
    }

    pub(crate) fn line(&self) -> usize {
        self.toks.get(self.at).map_or(self.last_line, |t| t.line)
    }

    pub(crate) fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).map(|t| t.tok.clone());
        if t.is_some() {
            self.at += 1;
        }
        t
    }

    pub(crate) fn at_end(&self) -> bool {
        self.at >= self.toks.len()
    }

    /// The punctuation `c`, or an error saying what came instead.
    pub(crate) fn expect(&mut self, c: char) -> Result<(), (usize, String)> {
        let line = self.line();
        match self.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            other => Err((
                line,
                format!("expected '{c}', found {}", shown(other.as_ref())),
            )),
        }
    }

    /// A word (a name or a number), or an error naming what was wanted.
    pub(crate) fn word(&mut self, what: &str) -> Result<String, (usize, String)> {
        let line = self.line();
        match self.next() {
            Some(Tok::Word(w)) => Ok(w),
            other => Err((
                line,
                format!("expected {what}, found {}", shown(other.as_ref())),
            )),
        }
    }

    /// True (and consumed) when the next token is the punctuation `c`.
    pub(crate) fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }
}

/// A token as an error shows it.
pub(crate) fn shown(t: Option<&Tok>) -> String {
    match t {
        None => "the end of the text".into(),
        Some(Tok::Word(w)) => format!("'{w}'"),
        Some(Tok::Quoted(s)) => format!("\"{s}\""),
        Some(Tok::Punct(c)) => format!("'{c}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_strings_and_lines() {
        let t = tokens("Int32 x[a = 3];\nString s \"q\\\"x\";").unwrap();
        assert_eq!(t[0].tok, Tok::Word("Int32".into()));
        assert_eq!(t[2].tok, Tok::Punct('['));
        let q = t.iter().find(|t| matches!(t.tok, Tok::Quoted(_))).unwrap();
        assert_eq!(q.tok, Tok::Quoted("q\\\"x".into()));
        assert_eq!(q.line, 2);
    }

    #[test]
    fn an_open_string_is_an_error_naming_its_line() {
        assert_eq!(tokens("a\n\"b").unwrap_err().0, 2);
    }
}
