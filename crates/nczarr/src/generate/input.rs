//! The bytes of a CDL file, read by position: a file is read where it lies, standard
//! input is held in memory when small and spooled to an unnamed temporary file when
//! not (the streaming compiler reads the file twice: once to find its large data
//! lists, once to convert them). Also where a byte offset is as line and column,
//! computed by reading the file again, which only errors and warnings ask for.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read, Write};

/// Standard input up to this size is held in memory.
const STDIN_IN_MEMORY: usize = 16 << 20;

/// How much is read at a time when counting lines.
const BLOCK: usize = 1 << 20;

/// A CDL file being compiled.
#[derive(Debug)]
pub struct CdlInput {
    source: Source,
    len: u64,
    /// For tests: how far the second pass has read data lists.
    #[cfg(test)]
    pub(crate) list_read: std::sync::atomic::AtomicU64,
}

#[derive(Debug)]
enum Source {
    File(File),
    Memory(Vec<u8>),
}

impl CdlInput {
    /// The file at `path`.
    ///
    /// # Errors
    /// Opening or inspecting the file.
    pub fn open(path: &std::path::Path) -> io::Result<CdlInput> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(CdlInput {
            source: Source::File(file),
            len,
            #[cfg(test)]
            list_read: Default::default(),
        })
    }

    /// All of `reader` (standard input): in memory up to 16 MiB, beyond that in an
    /// unnamed temporary file (removed when closed).
    ///
    /// # Errors
    /// Reading, or writing the temporary file.
    pub fn read_all(reader: &mut dyn Read) -> io::Result<CdlInput> {
        CdlInput::read_all_within(reader, STDIN_IN_MEMORY)
    }

    /// [`CdlInput::read_all`], in memory up to `in_memory` bytes.
    fn read_all_within(reader: &mut dyn Read, in_memory: usize) -> io::Result<CdlInput> {
        let mut head = Vec::new();
        reader.take(in_memory as u64 + 1).read_to_end(&mut head)?;
        if head.len() <= in_memory {
            return Ok(CdlInput::from_bytes(head));
        }
        let mut spool = tempfile::tempfile()?;
        spool.write_all(&head)?;
        drop(head);
        io::copy(reader, &mut spool)?;
        let len = spool.metadata()?.len();
        Ok(CdlInput {
            source: Source::File(spool),
            len,
            #[cfg(test)]
            list_read: Default::default(),
        })
    }

    /// Text held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> CdlInput {
        CdlInput {
            len: bytes.len() as u64,
            source: Source::Memory(bytes),
            #[cfg(test)]
            list_read: Default::default(),
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Read up to `buf.len()` bytes at `offset`; fewer only at the end.
    ///
    /// # Errors
    /// Reading the file.
    pub(crate) fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        match &self.source {
            Source::Memory(bytes) => {
                let start = usize::try_from(offset)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                let n = buf.len().min(bytes.len() - start);
                buf[..n].copy_from_slice(&bytes[start..start + n]);
                Ok(n)
            }
            Source::File(f) => {
                let mut done = 0;
                while done < buf.len() {
                    match read_file_at(f, &mut buf[done..], offset + done as u64) {
                        Ok(0) => break,
                        Ok(n) => done += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(done)
            }
        }
    }

    /// The bytes `start..end` (clamped to the end of the input).
    ///
    /// # Errors
    /// Reading the file.
    pub(crate) fn bytes(&self, start: u64, end: u64) -> io::Result<Vec<u8>> {
        let end = end.min(self.len);
        let n = usize::try_from(end.saturating_sub(start))
            .map_err(|_| io::Error::other("a range of the input too large for memory"))?;
        let mut buf = vec![0; n];
        let got = self.read_at(&mut buf, start)?;
        buf.truncate(got);
        Ok(buf)
    }
}

#[cfg(unix)]
fn read_file_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, offset)
}

#[cfg(windows)]
fn read_file_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, offset)
}

/// Line and column of byte offsets of a [`CdlInput`], as [`crate::cdl::parse::line_col`]
/// counts them in its text: columns in characters, each byte that is not UTF-8 one
/// character. Reads forward from the last offset asked for (they mostly come in
/// order), from the start otherwise.
pub(crate) struct InputLines<'i> {
    input: &'i CdlInput,
    /// An offset already counted: its line, and where that line starts.
    cursor: RefCell<(u64, usize, u64)>,
}

impl<'i> InputLines<'i> {
    pub(crate) fn new(input: &'i CdlInput) -> InputLines<'i> {
        InputLines {
            input,
            cursor: RefCell::new((0, 1, 0)),
        }
    }

    /// Line and column of byte `offset` (clamped to the input), or of the input's
    /// start when the input cannot be read again.
    pub(crate) fn at(&self, offset: u64) -> (usize, usize) {
        let offset = offset.min(self.input.len());
        let mut cursor = self.cursor.borrow_mut();
        if cursor.0 > offset {
            *cursor = (0, 1, 0);
        }
        let (mut at, mut line, mut line_start) = *cursor;
        let mut buf = vec![0u8; BLOCK];
        while at < offset {
            let want = usize::try_from(offset - at).unwrap_or(BLOCK).min(BLOCK);
            let Ok(n) = self.input.read_at(&mut buf[..want], at) else {
                return (1, 1);
            };
            if n == 0 {
                break;
            }
            for (k, &b) in buf[..n].iter().enumerate() {
                if b == b'\n' {
                    line += 1;
                    line_start = at + k as u64 + 1;
                }
            }
            at += n as u64;
        }
        *cursor = (at, line, line_start);
        drop(cursor);
        (line, self.chars(line_start, offset) + 1)
    }

    /// Characters in `start..end`, which holds no line break.
    fn chars(&self, start: u64, end: u64) -> usize {
        let mut count = 0;
        let mut at = start;
        let mut buf = vec![0u8; BLOCK + 4];
        let mut carried = 0;
        while at < end {
            let want = usize::try_from(end - at).unwrap_or(BLOCK).min(BLOCK);
            let Ok(n) = self.input.read_at(&mut buf[carried..carried + want], at) else {
                break;
            };
            if n == 0 {
                break;
            }
            at += n as u64;
            let held = carried + n;
            let (c, rest) = count_chars(&buf[..held], at >= end);
            count += c;
            // A character cut by the block's end is counted with the next block.
            buf.copy_within(held - rest..held, 0);
            carried = rest;
        }
        count
    }
}

/// Characters of `bytes` as lossless text counts them (valid UTF-8 characters, and
/// each byte that is not UTF-8), and how many bytes at the end may start a character
/// that continues past them (0 when `last`).
fn count_chars(bytes: &[u8], last: bool) -> (usize, usize) {
    let mut count = 0;
    let mut chunks = bytes.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        count += chunk.valid().chars().count();
        let invalid = chunk.invalid();
        if chunks.peek().is_none() && !last && !invalid.is_empty() && invalid.len() < 4 {
            // Possibly an incomplete character: decided with the next block.
            let lead = invalid[0];
            let need = match lead {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 0,
            };
            if need > invalid.len() {
                return (count, invalid.len());
            }
        }
        count += invalid.len();
    }
    (count, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_input_is_spooled_and_read_back_alike() {
        let bytes: Vec<u8> = (0..100_000u32).map(|k| (k % 251) as u8).collect();
        for limit in [10, 1 << 20] {
            let input = CdlInput::read_all_within(&mut bytes.as_slice(), limit).unwrap();
            assert_eq!(matches!(input.source, Source::File(_)), limit == 10);
            assert_eq!(input.len(), bytes.len() as u64);
            assert_eq!(input.bytes(0, u64::MAX).unwrap(), bytes);
            assert_eq!(input.bytes(99_990, 100_010).unwrap(), &bytes[99_990..]);
        }
    }

    #[test]
    fn lines_and_columns_match_the_text_counting() {
        let text = "ab\ncaf\u{e9} x\n\n  y";
        let input = CdlInput::from_bytes(text.as_bytes().to_vec());
        let lines = InputLines::new(&input);
        for offset in [0, 1, 3, 8, 9, 10, 12, 13, 14, text.len()] {
            assert_eq!(
                lines.at(offset as u64),
                crate::cdl::parse::line_col(text, offset),
                "{offset}"
            );
        }
        // Backwards too.
        assert_eq!(lines.at(1), (1, 2));
    }

    #[test]
    fn bytes_not_utf8_count_one_character_each() {
        let bytes = b"x\n\xe9t\xe9 \xc3\xa9 z".to_vec();
        let input = CdlInput::from_bytes(bytes.clone());
        let lines = InputLines::new(&input);
        let text = crate::text::lossless(bytes.clone());
        let end = bytes.len() as u64;
        let (line, col) = crate::cdl::parse::line_col(&text, text.len());
        assert_eq!(lines.at(end), (line, col));
    }

    #[test]
    fn characters_cut_by_blocks_are_counted_once() {
        let mut bytes = vec![b'a'; BLOCK - 1];
        bytes.extend_from_slice("\u{e9}\u{20ac}".as_bytes());
        let (n, rest) = count_chars(&bytes[..BLOCK], false);
        assert_eq!((n, rest), (BLOCK - 1, 1));
        let input = CdlInput::from_bytes(bytes.clone());
        let lines = InputLines::new(&input);
        assert_eq!(lines.at(bytes.len() as u64), (1, BLOCK + 2));
    }
}
