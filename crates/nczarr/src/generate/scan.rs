//! The first pass: find the large data lists of a CDL file without parsing it, and
//! make the skeleton, the file with those lists cut out, which the ordinary parser
//! reads (it is small: declarations, attributes and small data lists).
//!
//! A list is cut only when the scan is sure of it: the values of a data statement in
//! a data section (from just after `=` to just before the `;` that ends the
//! statement), made only of bytes that cannot change how the rest of the file is read
//! (digits, letters, `.+-_,{}` and white space: no string, character constant or
//! comment, nothing that is not ASCII), braces balanced and nested at most
//! [`MAX_CUT_DEPTH`] deep. Anything else stays in the skeleton and is compiled as
//! before. In a cut, a list has exactly the tokens the parser would see there, so the
//! second pass reads it with the same rules (`list.rs`).

use std::io;

use super::input::CdlInput;
use crate::cdl::parse::Locate;

/// Braces nested deeper than this inside a list keep it in the skeleton (a list nests
/// once per dimension at most; the parser's own limit is 256 in all).
const MAX_CUT_DEPTH: usize = 32;
/// Groups nested deeper than this keep their lists in the skeleton (with the list's
/// own braces, the file's nesting stays far below the parser's limit of 256).
const MAX_GROUP_DEPTH: usize = 64;
const BLOCK: usize = 4 << 20;

/// A data list cut out of the file: its bytes `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Whether it holds a line break (the skeleton keeps one in its place, see
    /// [`skeleton`]).
    pub(crate) newline: bool,
}

/// Byte classes of the list scan.
const PLAIN: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const END: u8 = 3;
const OTHER: u8 = 4;

static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-' | b'_' | b',') {
            t[b] = PLAIN;
        }
        b += 1;
    }
    t[b' ' as usize] = PLAIN;
    t[b'\t' as usize] = PLAIN;
    t[b'\r' as usize] = PLAIN;
    t[0x0c] = PLAIN;
    t[b'\n' as usize] = PLAIN;
    t[b'{' as usize] = OPEN;
    t[b'}' as usize] = CLOSE;
    t[b';' as usize] = END;
    t
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    Str,
    Char,
    LineComment,
    BlockComment,
}

/// The parser's identifier characters (`lex.rs`, ncgen's and `%`): a keyword must not
/// continue a word.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'@' | b'+' | b'-' | b'%') || b >= 0x80
}

/// The input read forward in blocks, with a little lookahead.
struct Window<'i> {
    input: &'i CdlInput,
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    base: u64,
    eof: bool,
}

impl Window<'_> {
    /// Make at least `need` bytes from `at` (a file offset) available when the input
    /// has them; bytes before `at` may be dropped.
    fn ensure(&mut self, at: u64, need: usize) -> io::Result<()> {
        let have = (self.base + self.buf.len() as u64).saturating_sub(at);
        if have >= need as u64 || self.eof {
            return Ok(());
        }
        let drop = usize::try_from(at - self.base).unwrap_or(self.buf.len());
        self.buf.drain(..drop.min(self.buf.len()));
        self.base += drop as u64;
        let old = self.buf.len();
        self.buf.resize(old + BLOCK, 0);
        let n = self
            .input
            .read_at(&mut self.buf[old..], self.base + old as u64)?;
        self.buf.truncate(old + n);
        if n == 0 {
            self.eof = true;
        }
        Ok(())
    }

    fn get(&self, at: u64) -> Option<u8> {
        let k = usize::try_from(at.checked_sub(self.base)?).ok()?;
        self.buf.get(k).copied()
    }

    fn starts_with(&self, at: u64, word: &[u8]) -> bool {
        (0..word.len()).all(|k| self.get(at + k as u64) == Some(word[k]))
    }
}

/// Find the data lists of at least `min_bytes` that can be cut (see the module's
/// documentation).
///
/// # Errors
/// Reading the input.
pub(crate) fn find_cuts(input: &CdlInput, min_bytes: u64) -> io::Result<Vec<Cut>> {
    let mut w = Window {
        input,
        buf: Vec::new(),
        base: 0,
        eof: false,
    };
    let mut cuts = Vec::new();
    let mut state = State::Code;
    let mut depth = 0usize;
    // The brace depth of the data section being read, if one is.
    let mut data_depth: Option<usize> = None;
    // Inside the values of a data statement (from `=` to `;`).
    let mut in_list = false;
    let mut prev_word = false;
    let mut at = 0u64;
    loop {
        w.ensure(at, 16)?;
        let Some(b) = w.get(at) else { break };
        match state {
            State::Code => {
                match b {
                    b'"' => state = State::Str,
                    b'\'' => state = State::Char,
                    b'\\' => {
                        // An escaped character of a name.
                        at += 2;
                        prev_word = true;
                        continue;
                    }
                    b'/' if w.get(at + 1) == Some(b'/') => state = State::LineComment,
                    b'/' if w.get(at + 1) == Some(b'*') => {
                        state = State::BlockComment;
                        at += 2;
                        prev_word = false;
                        continue;
                    }
                    b'{' => depth += 1,
                    b'}' => {
                        depth = depth.saturating_sub(1);
                        if data_depth.is_some_and(|d| depth < d) {
                            data_depth = None;
                            in_list = false;
                        }
                    }
                    b';' if data_depth == Some(depth) => in_list = false,
                    b'd' if !prev_word && w.starts_with(at, b"data:") => {
                        data_depth = Some(depth);
                        in_list = false;
                        at += 5;
                        prev_word = false;
                        continue;
                    }
                    b'g' | b't' | b'v'
                        if !prev_word
                            && (w.starts_with(at, b"group:")
                                || w.starts_with(at, b"types:")
                                || w.starts_with(at, b"dimensions:")
                                || w.starts_with(at, b"variables:")) =>
                    {
                        data_depth = None;
                        in_list = false;
                    }
                    b'=' if data_depth == Some(depth) && !in_list => {
                        in_list = true;
                        at += 1;
                        prev_word = false;
                        if depth <= MAX_GROUP_DEPTH {
                            let (end, cut) = scan_list(&mut w, at)?;
                            if let Some(c) = cut.filter(|c| c.end - c.start >= min_bytes.max(1)) {
                                cuts.push(c);
                            }
                            at = end;
                        }
                        continue;
                    }
                    _ => {}
                }
                prev_word = word_byte(b);
            }
            State::Str | State::Char => match b {
                b'\\' => {
                    at += 2;
                    continue;
                }
                b'"' if state == State::Str => state = State::Code,
                b'\'' if state == State::Char => state = State::Code,
                _ => {}
            },
            State::LineComment => {
                if b == b'\n' {
                    state = State::Code;
                }
            }
            State::BlockComment => {
                if b == b'*' && w.get(at + 1) == Some(b'/') {
                    state = State::Code;
                    at += 2;
                    continue;
                }
            }
        }
        at += 1;
    }
    Ok(cuts)
}

/// Read a data list from `start` (just after its `=`) while it can be cut: returns
/// where the ordinary scan goes on (the `;` that ends it, or the first byte that
/// keeps it in the skeleton) and the cut when it can be made.
fn scan_list(w: &mut Window<'_>, start: u64) -> io::Result<(u64, Option<Cut>)> {
    let mut at = start;
    let mut depth = 0usize;
    let mut newline = false;
    let mut content = false;
    loop {
        w.ensure(at, 1)?;
        let Some(k) = at.checked_sub(w.base).and_then(|k| usize::try_from(k).ok()) else {
            return Ok((at, None));
        };
        if k >= w.buf.len() {
            // The file ends inside the list: the parser says so.
            return Ok((at, None));
        }
        // The bytes of a large list are nearly all plain: skip them at once.
        let bytes = &w.buf[k..];
        let j = plain_len(bytes);
        content |= bytes[..j].iter().any(|b| !b.is_ascii_whitespace());
        newline |= !newline && bytes[..j].contains(&b'\n');
        at += j as u64;
        if j == bytes.len() {
            continue;
        }
        match CLASS[usize::from(bytes[j])] {
            OPEN => {
                depth += 1;
                content = true;
                if depth > MAX_CUT_DEPTH {
                    return Ok((at, None));
                }
            }
            CLOSE if depth == 0 => return Ok((at, None)),
            CLOSE => depth -= 1,
            END if depth == 0 => {
                let cut = content.then_some(Cut {
                    start,
                    end: at,
                    newline,
                });
                return Ok((at, cut));
            }
            _ => return Ok((at, None)),
        }
        at += 1;
    }
}

/// How many bytes `bytes` starts with are plain: on all cores when there are many,
/// as in the large lists this scan is for.
fn plain_len(bytes: &[u8]) -> usize {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 16;
    let serial = |b: &[u8]| {
        b.iter()
            .position(|&c| CLASS[usize::from(c)] != PLAIN)
            .unwrap_or(b.len())
    };
    if bytes.len() < 8 * PIECE {
        return serial(bytes);
    }
    match bytes
        .par_chunks(PIECE)
        .position_first(|c| c.iter().any(|&b| CLASS[usize::from(b)] != PLAIN))
    {
        None => bytes.len(),
        Some(k) => k * PIECE + serial(&bytes[k * PIECE..]),
    }
}

/// The skeleton: the text of the file with each of `cuts` replaced by one white space
/// character (a line break where the list held one, so that a `//` comment the
/// parser's first check might see open before it ends there as it would have).
#[derive(Debug)]
pub(crate) struct Skeleton {
    pub(crate) text: String,
    segments: Vec<Segment>,
    /// The skeleton offset of each cut's stand-in, in the order of `cuts`.
    pub(crate) cut_at: Vec<usize>,
}

#[derive(Debug)]
struct Segment {
    /// Where it starts in the skeleton.
    skel_start: usize,
    /// Where it starts in the file.
    file_start: u64,
    /// Kept text that held bytes that are not UTF-8 (see [`crate::text::lossless`]).
    raw: bool,
}

/// Make the skeleton of `input` without `cuts` (in file order).
///
/// # Errors
/// Reading the input.
pub(crate) fn skeleton(input: &CdlInput, cuts: &[Cut]) -> io::Result<Skeleton> {
    let mut text = String::new();
    let mut segments = Vec::new();
    let mut cut_at = Vec::new();
    let mut from = 0u64;
    let keep = |from: u64, to: u64, text: &mut String, segments: &mut Vec<Segment>| {
        let bytes = input.bytes(from, to)?;
        let kept = crate::text::lossless(bytes);
        let raw = kept.len() as u64 != to - from;
        segments.push(Segment {
            skel_start: text.len(),
            file_start: from,
            raw,
        });
        text.push_str(&kept);
        io::Result::Ok(())
    };
    for c in cuts {
        keep(from, c.start, &mut text, &mut segments)?;
        cut_at.push(text.len());
        segments.push(Segment {
            skel_start: text.len(),
            file_start: c.start,
            raw: false,
        });
        text.push(if c.newline { '\n' } else { ' ' });
        from = c.end;
    }
    keep(from, input.len(), &mut text, &mut segments)?;
    Ok(Skeleton {
        text,
        segments,
        cut_at,
    })
}

impl Skeleton {
    /// The file offset of skeleton offset `at`.
    pub(crate) fn file_offset(&self, at: usize) -> u64 {
        let k = self
            .segments
            .partition_point(|s| s.skel_start <= at)
            .saturating_sub(1);
        let Some(seg) = self.segments.get(k) else {
            return at as u64;
        };
        let end = self
            .segments
            .get(k + 1)
            .map_or(self.text.len(), |s| s.skel_start);
        let within = at.min(end) - seg.skel_start;
        if !seg.raw {
            return seg.file_start + within as u64;
        }
        // Each stand-in for a byte that is not UTF-8 was one byte of the file.
        let text = &self.text[seg.skel_start..];
        let mut n = 0u64;
        for (i, c) in text.char_indices() {
            if i >= within {
                break;
            }
            n += if crate::text::raw_byte(c).is_some() {
                1
            } else {
                c.len_utf8() as u64
            };
        }
        seg.file_start + n
    }
}

/// Positions of the skeleton's syntax tree placed in the file.
pub(crate) struct SkeletonLines<'a> {
    pub(crate) skeleton: &'a Skeleton,
    pub(crate) lines: &'a super::input::InputLines<'a>,
}

impl Locate for SkeletonLines<'_> {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines.at(self.skeleton.file_offset(offset))
    }
}

/// Positions that are file offsets (the values of cut lists).
impl Locate for super::input::InputLines<'_> {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        self.at(offset as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuts_of(text: &str, min: u64) -> Vec<String> {
        let input = CdlInput::from_bytes(text.as_bytes().to_vec());
        find_cuts(&input, min)
            .unwrap()
            .iter()
            .map(|c| text[c.start as usize..c.end as usize].to_string())
            .collect()
    }

    #[test]
    fn data_lists_are_cut_and_nothing_else() {
        let text = "netcdf x { // data: v = 9 ;\ndimensions:\n n = 3 ;\nvariables:\n int v(n) ;\n v:a = 1, 2, 3 ;\ndata:\n v = 1, 2, 3 ;\n w = {1, 2}, {3} ;\n s = \"a;b\", \"c\" ;\n c = 1, 2 // x\n ;\ngroup: g {\nvariables:\n int u ;\n u:b = 4, 5 ;\ndata:\n u = -1.5e3 ;\n}\n}\n";
        assert_eq!(
            cuts_of(text, 1),
            vec![" 1, 2, 3 ", " {1, 2}, {3} ", " -1.5e3 "]
        );
        assert_eq!(cuts_of(text, 10), vec![" {1, 2}, {3} "]);
    }

    #[test]
    fn keywords_inside_names_strings_and_comments_are_not_sections() {
        let text = "netcdf x {\nvariables:\n int mydata ;\n mydata:a = \"data: v = 1 ;\" ;\n /* data: w = 2 ; */\n int a\\ data ;\n}\n";
        assert!(cuts_of(text, 1).is_empty());
    }

    #[test]
    fn unbalanced_or_unfinished_lists_stay() {
        assert!(cuts_of("netcdf x {\ndata:\n v = 1, 2 }\n", 1).is_empty());
        assert!(cuts_of("netcdf x {\ndata:\n v = 1, 2", 1).is_empty());
        assert!(cuts_of("netcdf x {\ndata:\n v = ;\n}", 1).is_empty());
    }

    #[test]
    fn long_lists_are_scanned_whole() {
        let values: Vec<String> = (0..400_000).map(|k| k.to_string()).collect();
        for (sep, newline) in [(", ", false), (",\n ", true)] {
            let list = values.join(sep);
            for tail in ["", " // end", " \"x\""] {
                let text = format!("netcdf x {{\ndata:\n v = {list}{tail} ;\n}}\n");
                let input = CdlInput::from_bytes(text.clone().into_bytes());
                let cuts = find_cuts(&input, 1).unwrap();
                if tail.is_empty() {
                    assert_eq!(cuts.len(), 1);
                    assert_eq!(cuts[0].newline, newline);
                    assert_eq!(
                        &text[cuts[0].start as usize..cuts[0].end as usize],
                        format!(" {list} ")
                    );
                } else {
                    assert!(cuts.is_empty(), "{tail}");
                }
            }
        }
    }

    #[test]
    fn the_skeleton_maps_back_to_the_file() {
        let text = "netcdf x {\ndata:\n v = 1,\n 2 ; w = 3 ;\n}\n";
        let input = CdlInput::from_bytes(text.as_bytes().to_vec());
        let cuts = find_cuts(&input, 1).unwrap();
        let sk = skeleton(&input, &cuts).unwrap();
        assert_eq!(sk.text, "netcdf x {\ndata:\n v =\n; w = ;\n}\n");
        let semi = sk.text.find("; w").unwrap();
        assert_eq!(sk.file_offset(semi), text.find("; w").unwrap() as u64);
        let brace = sk.text.rfind('}').unwrap();
        assert_eq!(sk.file_offset(brace), text.rfind('}').unwrap() as u64);
        assert_eq!(sk.file_offset(sk.cut_at[0]), cuts[0].start);
    }
}
