//! A line of CDL text being laid out: ncdump's `lput` (in `vardata.c`) and its line
//! position, which decides where a value wraps.

use super::batch::NumberWriter;
use super::number::{self, NUM_ROOM};

/// Text with ncdump's line-position bookkeeping.
///
/// Laid out in this order, the line position away from the buffer's length: next to
/// each other, the compiler added to both in one 16-byte step right after the length
/// was stored on its own, a load the processor cannot forward from the store and
/// waits for (a third of a string row's layout time).
#[repr(C)]
pub(super) struct Line {
    pub(super) linep: i64,
    pub(super) max: i64,
    pub(super) indent: usize,
    pub(super) buf: Vec<u8>,
}

/// Bytes of room made per number to come in [`Line::lput_numbers_comma`]: about a
/// float's text and its separator.
const TYPICAL: usize = 16;

/// The continuation indent after a wrap (spaces only: [`Line::break_before`] relies on it).
pub(super) const LINEPIND: &[u8] = b"    ";

impl Line {
    pub(super) fn new(linep: i64, max: i64, indent: usize, buf: Vec<u8>) -> Line {
        Line {
            buf,
            linep,
            max,
            indent,
        }
    }

    /// `lput`: wrap before `s` if it would pass the line limit.
    pub(super) fn lput(&mut self, s: &[u8]) {
        let at = self.buf.len();
        self.buf.extend_from_slice(s);
        let nn = s.len() as i64;
        if self.wraps(nn) {
            self.break_before(at);
        }
        if s.last() == Some(&b'\n') {
            self.linep = self.indent as i64;
        } else {
            self.linep += nn;
        }
    }

    /// `lput` of a value followed by `", "`, without building the joined string.
    pub(super) fn lput_comma(&mut self, v: &[u8]) {
        let at = self.buf.len();
        self.buf.extend_from_slice(v);
        self.comma_after(at);
    }

    /// [`Line::lput_comma`] of values `first..first + n` in turn, as long as `number`
    /// writes them in place: how many it wrote. Room is made as the values come, and
    /// the positions are kept in registers (per value, the buffer's length and the line
    /// position went through memory, and the writer was a call).
    pub(super) fn lput_numbers_comma<N: NumberWriter>(
        &mut self,
        number: &N,
        first: usize,
        n: usize,
    ) -> usize {
        let brk = 1 + self.indent + LINEPIND.len();
        // A value writes NUM_ROOM bytes at most, and moves on by its text, ", " and
        // a line break at most: room for that is made before each value, as room for
        // a typical value per value to come (room for the most each cleared three
        // times the bytes the text took, 2% of a float dump).
        let most = NUM_ROOM + 2 + brk;
        let (mut at, mut linep, mut done) = (self.buf.len(), self.linep, 0);
        'room: while done < n {
            self.buf.resize(at + (n - done) * TYPICAL + most, 0);
            let buf = &mut self.buf[..];
            while done < n && at + most <= buf.len() {
                let Some(len) = number.write(&mut buf[at..], first + done) else {
                    break 'room;
                };
                let nn = len as i64 + 2;
                // `wraps` and `break_before`, on the value already in place.
                if nn + linep > self.max && nn > 2 {
                    move_by(buf, at, len, brk);
                    buf[at] = b'\n';
                    buf[at + 1..at + brk].fill(b' ');
                    at += brk;
                    linep = (LINEPIND.len() + self.indent) as i64;
                }
                buf[at + len] = b',';
                buf[at + len + 1] = b' ';
                at += len + 2;
                linep += nn;
                done += 1;
            }
        }
        self.buf.truncate(at);
        self.linep = linep;
        done
    }

    /// [`Line::lput_comma`] of text `write` appends to the line, written in place.
    pub(super) fn lput_appended_comma(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let at = self.buf.len();
        write(&mut self.buf);
        self.comma_after(at);
    }

    /// The text from `at` on is a value: `lput` it (already in place) with `", "`.
    pub(super) fn comma_after(&mut self, at: usize) {
        let nn = (self.buf.len() - at) as i64 + 2;
        if self.wraps(nn) {
            self.break_before(at);
        }
        self.buf.extend_from_slice(b", ");
        self.linep += nn;
    }

    /// Whether `lput` of `nn` bytes starts a new line first.
    pub(super) fn wraps(&self, nn: i64) -> bool {
        nn + self.linep > self.max && nn > 2
    }

    /// `lput`'s line break (`"\n"`, the indent, [`LINEPIND`]) put before the text from
    /// `at` on, which moves after it (once a line).
    pub(super) fn break_before(&mut self, at: usize) {
        let end = self.buf.len();
        let brk = 1 + self.indent + LINEPIND.len();
        if end - at <= NUM_ROOM && brk <= NUM_ROOM {
            // A short value (most are): fixed-size copies, not calls to `memmove` and
            // `memset` of run-time lengths (4% of a string dump). The value is taken
            // out, spaces put where it was, the value after them and the newline
            // first; what the copies wrote past the end is cut off.
            self.buf.extend_from_slice(&[b' '; 2 * NUM_ROOM]);
            let buf = &mut self.buf[at..];
            let mut value = [0u8; NUM_ROOM];
            value.copy_from_slice(&buf[..NUM_ROOM]);
            buf[..NUM_ROOM].copy_from_slice(&[b' '; NUM_ROOM]);
            buf[brk..brk + NUM_ROOM].copy_from_slice(&value);
            buf[0] = b'\n';
            self.buf.truncate(end + brk);
        } else {
            self.buf.resize(end + brk, b' ');
            self.buf.copy_within(at..end, at + brk);
            self.buf[at] = b'\n';
            self.buf[at + 1..at + brk].fill(b' ');
        }
        self.linep = LINEPIND.len() as i64 + self.indent as i64;
    }

    /// `printf`: no line bookkeeping.
    pub(super) fn raw(&mut self, s: &[u8]) {
        self.buf.extend_from_slice(s);
    }

    /// [`Line::raw`] of a number `write` writes in place; false (and nothing written)
    /// when it does not.
    pub(super) fn raw_number(&mut self, write: impl FnOnce(&mut [u8]) -> Option<usize>) -> bool {
        let at = number::make_room(&mut self.buf);
        let n = write(&mut self.buf[at..]);
        self.buf.truncate(at + n.unwrap_or(0));
        n.is_some()
    }
}

/// Move the `len` bytes at `at` on by `by`: as one copy of [`NUM_ROOM`] bytes (a few
/// loads and stores) where the buffer has room for it, as it has in
/// [`Line::lput_numbers_comma`]: `copy_within` of a length known only at run time was a
/// call to `memmove` per line (3% of a float dump).
#[inline(always)]
fn move_by(buf: &mut [u8], at: usize, len: usize, by: usize) {
    let whole = buf
        .get(at..at + NUM_ROOM)
        .and_then(|b| <[u8; NUM_ROOM]>::try_from(b).ok());
    match (whole, buf.get_mut(at + by..at + by + NUM_ROOM)) {
        (Some(bytes), Some(to)) if len <= NUM_ROOM => to.copy_from_slice(&bytes),
        _ => buf.copy_within(at..at + len, at + by),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers of 1 to 30 digits laid out in place wrap exactly where `lput_comma`
    /// of each one wraps them, at any indent and line limit.
    #[test]
    fn numbers_in_place_wrap_as_values_put_one_by_one() {
        let mut next = super::super::test_words(0x5851_f42d_4c95_7f2d);
        let lens: Vec<usize> = (0..500).map(|_| 1 + (next() % 30) as usize).collect();
        let write = |out: &mut [u8], i: usize| {
            let len = lens[i];
            for (k, b) in out[..len].iter_mut().enumerate() {
                *b = b'0' + ((i + k) % 10) as u8;
            }
            Some(len)
        };
        for (max, indent) in [(78, 0), (78, 8), (40, 2), (12, 0)] {
            let mut one_by_one = Line::new(3, max, indent, Vec::new());
            for i in 0..lens.len() {
                let mut text = [0u8; NUM_ROOM];
                let n = write(&mut text, i).unwrap_or(0);
                one_by_one.lput_comma(&text[..n]);
            }
            let mut in_place = Line::new(3, max, indent, Vec::new());
            let mut first = 0;
            while first < lens.len() {
                let n = 64.min(lens.len() - first);
                assert_eq!(in_place.lput_numbers_comma(&write, first, n), n);
                first += n;
            }
            assert_eq!(in_place.buf, one_by_one.buf, "max {max} indent {indent}");
            assert_eq!(in_place.linep, one_by_one.linep);
        }
    }

    #[test]
    fn a_break_goes_before_a_value_of_any_length_at_any_indent() {
        for indent in [0, 3, 27, 28, 40] {
            for len in 0..45 {
                let value: Vec<u8> = (0..len).map(|k| b'a' + (k % 26) as u8).collect();
                let mut line = Line::new(0, 80, indent, b"head, ".to_vec());
                line.buf.extend_from_slice(&value);
                line.break_before(6);
                let mut want = b"head, \n".to_vec();
                want.extend(std::iter::repeat_n(b' ', indent + LINEPIND.len()));
                want.extend_from_slice(&value);
                assert_eq!(line.buf, want, "indent {indent} len {len}");
                assert_eq!(line.linep, (indent + LINEPIND.len()) as i64);
            }
        }
    }

    #[test]
    fn a_move_near_the_end_of_the_buffer_moves_only_the_text() {
        let mut buf = *b"abcdefgh";
        move_by(&mut buf, 1, 3, 2);
        assert_eq!(&buf, b"abcbcdgh");
        let mut long = [7u8; NUM_ROOM + 10];
        long[..5].copy_from_slice(b"12345");
        move_by(&mut long, 0, 5, 10);
        assert_eq!(&long[10..15], b"12345");
    }
}
