//! [`Strings`]: a block of netCDF strings in one buffer.
//!
//! A variable of strings is read a slab of hundreds of thousands at a time; a `Vec`
//! per string made reading, printing and freeing a slab cost an allocation (and a
//! free, often on another thread) per value. Here a block is two allocations: the
//! strings' bytes end to end, and where each ends.

use std::fmt;

/// Marks a NIL string (netCDF's null `char *`) in [`Strings::ends`].
const NIL: u64 = 1 << 63;

/// Strings, each a byte string or NIL, in order.
///
/// Every string's bytes follow the previous one's with no gap, so two blocks holding
/// the same strings are equal field by field.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Strings {
    bytes: Vec<u8>,
    /// Where string `i` ends in `bytes`, with [`NIL`] set for a NIL string (which holds
    /// no bytes).
    ends: Vec<u64>,
}

/// Bytes [`extend_short`] copies at once.
const SHORT: usize = 32;

/// Append the first `len` bytes of `from` to `out`: as one copy of 32 bytes when there
/// are as many to copy from and room for them (the bytes past `len` are dropped again),
/// not a call to `memcpy`, which for the few bytes of most strings costs more than the
/// copy. (At 16 bytes, a string dump's strings of 17 to 24 bytes still made a call
/// each: an eighth of its reading thread's time.)
///
/// # Panics
/// If `from` is shorter than `len`, as slicing would.
#[inline(always)]
pub(crate) fn extend_short(out: &mut Vec<u8>, from: &[u8], len: usize) {
    let at = out.len();
    match from.first_chunk::<SHORT>() {
        Some(window) if len <= SHORT && out.capacity() - at >= SHORT => {
            out.extend_from_slice(window);
            out.truncate(at + len);
        }
        _ => extend_long(out, &from[..len]),
    }
}

/// [`extend_short`]'s other case, a call of its own: inlined, the compiler made both
/// cases one `memcpy` call of a variable length, which undid the short copy.
#[cold]
#[inline(never)]
fn extend_long(out: &mut Vec<u8>, from: &[u8]) {
    out.extend_from_slice(from);
}

impl Strings {
    /// No strings.
    pub fn new() -> Strings {
        Strings::default()
    }

    /// No strings yet, with room for `n` strings of `bytes` bytes in all.
    pub fn with_capacity(n: usize, bytes: usize) -> Strings {
        Strings {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(n),
        }
    }

    /// No strings yet, in the memory of `spare` (strings no longer needed), with room
    /// for `n` strings of `bytes` bytes in all.
    ///
    /// # Errors
    /// [`TooLarge`] when that room cannot be had.
    pub fn reusing(spare: Strings, n: usize, bytes: u64) -> Result<Strings, TooLarge> {
        let Strings {
            bytes: mut data,
            mut ends,
        } = spare;
        data.clear();
        ends.clear();
        let room = usize::try_from(bytes)
            .ok()
            .filter(|_| bytes < NIL)
            .ok_or(TooLarge(bytes))?;
        // Memory too small is given up rather than grown: growing copies all of it,
        // though none of it is in use. New memory has room to spare: the next slabs'
        // strings differ in length by a little, and memory that fits them all is
        // reused by each (fresh memory is cleared page by page by the system, which
        // cost more than the strings' reading).
        if data.capacity() < room {
            data = crate::mem::fresh_with_slack(room).ok_or(TooLarge(bytes))?;
        }
        if ends.capacity() < n {
            ends = crate::mem::fresh_with_slack(n).ok_or(TooLarge(bytes))?;
        }
        Ok(Strings { bytes: data, ends })
    }

    /// Bytes of strings this block has room for before it must grow: of spare blocks,
    /// the roomiest is the one to reuse.
    pub(crate) fn room(&self) -> usize {
        self.bytes.capacity()
    }

    /// Room past the strings' bytes that [`Strings::push_from`] copies into.
    pub(crate) const PUSH_ROOM: usize = SHORT;

    /// Add the first `len` bytes of `from` at the end (see [`extend_short`]).
    ///
    /// # Panics
    /// If `from` is shorter than `len`, as slicing would.
    pub(crate) fn push_from(&mut self, from: &[u8], len: usize) {
        extend_short(&mut self.bytes, from, len);
        self.ends.push(self.bytes.len() as u64);
    }

    /// String `i` as [`Strings::value`] gives it, with the bytes that follow it in the
    /// block: `(bytes, len)`, the string being `bytes[..len]` (for [`extend_short`]).
    ///
    /// # Panics
    /// If `i` is not below [`Strings::len`], as indexing a slice would.
    pub(crate) fn value_and_after(&self, i: usize) -> Option<(&[u8], usize)> {
        let end = self.ends[i];
        if end & NIL != 0 {
            return None;
        }
        let start = self.start(i);
        Some((&self.bytes[start..], end as usize - start))
    }

    /// `n` copies of `s`.
    pub fn repeat(s: Option<&[u8]>, n: usize) -> Strings {
        let mut out = Strings::with_capacity(n, s.map_or(0, <[u8]>::len).saturating_mul(n));
        for _ in 0..n {
            out.push(s);
        }
        out
    }

    /// How many strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn start(&self, i: usize) -> usize {
        start_of(&self.ends, i)
    }

    /// The bytes strings `range` hold together.
    ///
    /// # Panics
    /// If the range is out of bounds, as indexing a slice would.
    pub fn byte_len(&self, range: std::ops::Range<usize>) -> usize {
        if range.is_empty() {
            return 0;
        }
        self.start(range.end) - self.start(range.start)
    }

    /// String `i` (`None` when NIL).
    ///
    /// # Panics
    /// If `i` is not below [`Strings::len`], as indexing a slice would.
    pub fn value(&self, i: usize) -> Option<&[u8]> {
        let end = self.ends[i];
        if end & NIL != 0 {
            return None;
        }
        Some(&self.bytes[self.start(i)..end as usize])
    }

    /// String `i` as [`Strings::value`] gives it, or `None` past the end (as a slice's
    /// `get`).
    pub fn get(&self, i: usize) -> Option<Option<&[u8]>> {
        (i < self.len()).then(|| self.value(i))
    }

    /// The first string: `None` when there are none, `Some(None)` when it is NIL.
    pub fn first(&self) -> Option<Option<&[u8]>> {
        self.get(0)
    }

    /// The strings in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<&[u8]>> + '_ {
        (0..self.len()).map(|i| self.value(i))
    }

    /// Add `s` at the end.
    pub fn push(&mut self, s: Option<&[u8]>) {
        match s {
            Some(s) => {
                self.bytes.extend_from_slice(s);
                self.ends.push(self.bytes.len() as u64);
            }
            None => self.ends.push(self.bytes.len() as u64 | NIL),
        }
    }

    /// Add all of `other` at the end.
    pub fn extend_from(&mut self, other: &Strings) {
        let base = self.bytes.len() as u64;
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|&e| e + base));
    }

    /// Strings `range` as a new block.
    ///
    /// # Panics
    /// If the range is out of bounds.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Strings {
        let ends = &self.ends[range.clone()];
        if range.is_empty() {
            return Strings::new();
        }
        let (from, to) = (self.start(range.start), self.start(range.end));
        Strings {
            bytes: self.bytes[from..to].to_vec(),
            ends: ends.iter().map(|&e| e - from as u64).collect(),
        }
    }

    /// Strings `start..start + other.len()` replaced by `other`: the bytes after them
    /// move only when the replaced strings' bytes differ in size from `other`'s.
    ///
    /// # Panics
    /// If the range does not fit.
    pub fn write_at(&mut self, start: usize, other: &Strings) {
        let end = start + other.len();
        assert!(
            end <= self.len(),
            "strings {start}..{end} of {}",
            self.len()
        );
        let (from, to) = (self.start(start), self.start(end));
        self.bytes.splice(from..to, other.bytes.iter().copied());
        for (mine, &e) in self.ends[start..end].iter_mut().zip(&other.ends) {
            *mine = ((e & !NIL) + from as u64) | (e & NIL);
        }
        let (old, new) = ((to - from) as u64, other.bytes.len() as u64);
        if old != new {
            for e in &mut self.ends[end..] {
                *e = ((*e & !NIL) + new - old) | (*e & NIL);
            }
        }
    }

    /// Each string as a vector of its own.
    pub fn to_vec(&self) -> Vec<Option<Vec<u8>>> {
        self.iter().map(|s| s.map(<[u8]>::to_vec)).collect()
    }
}

/// Strings whose bytes add up to more than memory can be asked for (of so many bytes;
/// `u64::MAX` past what a count holds): a damaged file's lengths, or references
/// repeating one large object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge(pub u64);

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "strings of {} bytes in all: more than memory allows",
            self.0
        )
    }
}

impl std::error::Error for TooLarge {}

/// Where string `i` starts, by the ends of those before it.
fn start_of(ends: &[u64], i: usize) -> usize {
    match i {
        0 => 0,
        _ => (ends[i - 1] & !NIL) as usize,
    }
}

impl<S: AsRef<[u8]>> FromIterator<Option<S>> for Strings {
    fn from_iter<I: IntoIterator<Item = Option<S>>>(iter: I) -> Strings {
        let iter = iter.into_iter();
        let mut out = Strings::with_capacity(iter.size_hint().0, 0);
        for s in iter {
            out.push(s.as_ref().map(AsRef::as_ref));
        }
        out
    }
}

impl<S: AsRef<[u8]>> From<Vec<Option<S>>> for Strings {
    fn from(v: Vec<Option<S>>) -> Strings {
        v.into_iter().collect()
    }
}

impl fmt::Debug for Strings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|s| s.map(String::from_utf8_lossy)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(list: &[Option<&str>]) -> Strings {
        list.iter().map(|s| s.map(str::as_bytes)).collect()
    }

    #[test]
    fn strings_nil_and_empty_are_kept_apart() {
        let s = block(&[Some("ab"), None, Some(""), Some("xyz")]);
        assert_eq!(s.len(), 4);
        assert_eq!(s.value(0), Some(&b"ab"[..]));
        assert_eq!(s.value(1), None);
        assert_eq!(s.value(2), Some(&b""[..]));
        assert_eq!(s.value(3), Some(&b"xyz"[..]));
        assert_eq!(s.get(3), Some(Some(&b"xyz"[..])));
        assert_eq!(s.get(4), None);
        assert_eq!(s.first(), Some(Some(&b"ab"[..])));
        assert_eq!(Strings::new().first(), None);
        assert_ne!(block(&[None]), block(&[Some("")]));
    }

    #[test]
    fn slices_appends_and_overwrites_stay_equal_to_the_same_strings_built_at_once() {
        let s = block(&[Some("a"), None, Some("bcd"), Some(""), Some("ef")]);
        assert_eq!(s.slice(1..4), block(&[None, Some("bcd"), Some("")]));
        assert_eq!(s.slice(2..2), Strings::new());
        let mut joined = s.slice(0..2);
        joined.extend_from(&s.slice(2..5));
        assert_eq!(joined, s);
        let mut w = s.clone();
        w.write_at(1, &block(&[Some("long one"), None]));
        assert_eq!(
            w,
            block(&[Some("a"), Some("long one"), None, Some(""), Some("ef")])
        );
        assert_eq!(
            Strings::repeat(Some(b"x"), 3),
            block(&[Some("x"), Some("x"), Some("x")])
        );
        assert_eq!(Strings::from(s.to_vec()), s);
    }

    #[test]
    fn strings_reusing_old_memory_hold_only_the_new_ones() {
        let old = Strings::from(vec![Some(b"old".to_vec()), None, Some(b"x".repeat(5000))]);
        let mut s = Strings::reusing(old, 2, 4).unwrap();
        assert!(s.is_empty());
        s.push(Some(b"new"));
        s.push(None);
        assert_eq!(s, Strings::from(vec![Some(b"new".to_vec()), None]));
        assert_eq!(Strings::reusing(s, 1, u64::MAX), Err(TooLarge(u64::MAX)));
        assert!(Strings::reusing(Strings::new(), 1, 1 << 62).is_err());
    }

    #[test]
    fn strings_pushed_from_longer_bytes_take_only_their_own() {
        let from = b"0123456789abcdefghij";
        let mut s = Strings::with_capacity(9, 200);
        s.push_from(from, 3);
        s.push_from(&from[10..], 0);
        s.push_from(from, 17);
        s.push_from(&from[15..], 5);
        s.push_from(b"0123456789abcdefghij0123456789abcdef", 20);
        s.push_from(b"0123456789abcdefghij0123456789abcdef", 32);
        s.push_from(b"0123456789abcdefghij0123456789abcdef", 33);
        s.push_from(from, 16);
        s.push_from(from, 0);
        let mut tight = Strings::new();
        tight.push_from(from, 2);
        // 31 bytes of room: no 32-byte copy, the same strings.
        let long = b"0123456789abcdefghij0123456789abcdef";
        let mut near = Strings::with_capacity(2, 33);
        near.push_from(long, 2);
        near.push_from(long, 1);
        assert_eq!(near, block(&[Some("01"), Some("0")]));
        let mut near = Strings::with_capacity(2, 17);
        near.push_from(from, 2);
        near.push_from(from, 1);
        assert_eq!(near, block(&[Some("01"), Some("0")]));
        let want = block(&[
            Some("012"),
            Some(""),
            Some("0123456789abcdefg"),
            Some("fghij"),
            Some("0123456789abcdefghij"),
            Some("0123456789abcdefghij0123456789ab"),
            Some("0123456789abcdefghij0123456789abc"),
            Some("0123456789abcdef"),
            Some(""),
        ]);
        assert_eq!(s, want);
        assert_eq!(tight, block(&[Some("01")]));
    }

    #[test]
    fn values_come_with_the_bytes_after_them() {
        let s = block(&[Some("ab"), None, Some(""), Some("cde")]);
        assert_eq!(s.value_and_after(0), Some((&b"abcde"[..], 2)));
        assert_eq!(s.value_and_after(1), None);
        assert_eq!(s.value_and_after(2), Some((&b"cde"[..], 0)));
        assert_eq!(s.value_and_after(3), Some((&b"cde"[..], 3)));
    }

    #[test]
    fn short_copies_take_only_their_own_bytes_whatever_the_room() {
        let from = b"0123456789abcdefghij0123456789abcdefXYZ";
        for room in [0, 31, 32, 64] {
            for len in [0, 1, 16, 31, 32, 33, from.len()] {
                for start in [0, from.len() - len] {
                    let mut out = Vec::with_capacity(room);
                    out.extend_from_slice(b"<");
                    extend_short(&mut out, &from[start..], len);
                    assert_eq!(out[1..], from[start..start + len], "{room} {len} {start}");
                }
            }
        }
    }

    #[test]
    fn overwrites_of_other_sizes_move_what_follows() {
        let mut s = block(&[Some("aa"), None, Some("bbb"), Some("c")]);
        s.write_at(0, &block(&[Some("x"), Some("yyyy")]));
        assert_eq!(s, block(&[Some("x"), Some("yyyy"), Some("bbb"), Some("c")]));
        s.write_at(2, &block(&[None, Some("")]));
        assert_eq!(s, block(&[Some("x"), Some("yyyy"), None, Some("")]));
        s.write_at(1, &block(&[Some("zzzz")]));
        assert_eq!(s, block(&[Some("x"), Some("zzzz"), None, Some("")]));
    }
}
