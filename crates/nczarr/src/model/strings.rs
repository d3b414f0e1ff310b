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

    /// All the strings' bytes, end to end.
    pub fn total_bytes(&self) -> usize {
        self.bytes.len()
    }

    fn start(&self, i: usize) -> usize {
        start_of(&self.ends, i)
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

    /// Strings `start..start + other.len()` replaced by `other`.
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
        let mut out = Strings::with_capacity(self.len(), self.bytes.len());
        out.extend_from(&self.slice(0..start));
        out.extend_from(other);
        out.extend_from(&self.slice(end..self.len()));
        *self = out;
    }

    /// Strings of the lengths `lens` gives (NIL where `None`), whose bytes `fill`
    /// writes: `fill(i, bytes)` gets string `i`'s bytes to write, all of them. Parts
    /// of the block are filled on every core.
    ///
    /// # Errors
    /// The first error `fill` returns.
    pub fn fill_parallel<E: Send>(
        lens: impl ExactSizeIterator<Item = Option<usize>>,
        fill: impl Fn(usize, &mut [u8]) -> Result<(), E> + Sync,
    ) -> Result<Strings, E> {
        use rayon::prelude::*;
        let n = lens.len();
        let mut ends = Vec::with_capacity(n);
        let mut end = 0u64;
        for len in lens {
            ends.push(match len {
                Some(len) => {
                    end += len as u64;
                    end
                }
                None => end | NIL,
            });
        }
        let mut out = Strings {
            bytes: vec![0; end as usize],
            ends,
        };
        // Parts of about 1 MiB or 64K strings, cut at string boundaries, each a slice
        // of its own.
        let mut parts = Vec::new();
        let ends = &out.ends;
        let (mut rest, mut first, mut at) = (&mut out.bytes[..], 0usize, 0usize);
        while first < n {
            let mut last = first;
            while last < n && last - first < 1 << 16 && start_of(ends, last + 1) - at < 1 << 20 {
                last += 1;
            }
            let last = last.max(first + 1).min(n);
            let to = start_of(ends, last);
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(to - at);
            parts.push((first..last, at, part));
            (rest, first, at) = (tail, last, to);
        }
        parts.into_par_iter().try_for_each(|(range, at, part)| {
            let mut from = 0;
            for i in range {
                if ends[i] & NIL != 0 {
                    continue;
                }
                let to = ends[i] as usize - at;
                fill(i, &mut part[from..to])?;
                from = to;
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Each string as a vector of its own.
    pub fn to_vec(&self) -> Vec<Option<Vec<u8>>> {
        self.iter().map(|s| s.map(<[u8]>::to_vec)).collect()
    }
}

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
    fn filled_in_parallel_as_pushed_one_by_one() {
        let list: Vec<Option<Vec<u8>>> = (0..300_000usize)
            .map(|i| (i % 7 != 3).then(|| vec![b'a' + (i % 26) as u8; i % 13]))
            .collect();
        let lens: Vec<_> = list.iter().map(|s| s.as_ref().map(Vec::len)).collect();
        let filled = Strings::fill_parallel(lens.iter().copied(), |i, b| {
            b.copy_from_slice(list[i].as_deref().ok_or(i)?);
            Ok::<_, usize>(())
        })
        .unwrap();
        assert_eq!(filled, Strings::from(list.clone()));
        let failed =
            Strings::fill_parallel(
                lens.into_iter(),
                |i, _| if i == 200_001 { Err(i) } else { Ok(()) },
            );
        assert_eq!(failed, Err(200_001));
    }
}
