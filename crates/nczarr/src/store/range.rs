//! Byte ranges of stored values: what Zarr v3 shard indexes and partial chunk reads
//! ask for. The rules are HTTP's (and `object_store`'s), so every backend answers the
//! same: a range may end past the value (it is cut there), but not start at or past
//! its end; a suffix longer than the value is the whole value.

use std::fmt;
use std::ops::Range;

/// Which bytes of a stored value to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByteRange {
    /// Bytes `start..end` (cut at the value's end).
    Bounded(Range<u64>),
    /// From `start` to the end.
    From(u64),
    /// The last `n` bytes (all of them when the value is shorter).
    Suffix(u64),
}

/// A range that does not fit the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte range {range} does not fit a value of {len} bytes")]
pub struct RangeError {
    /// The range asked for.
    pub range: ByteRange,
    /// The value's length.
    pub len: u64,
}

impl ByteRange {
    /// The byte positions this range selects in a value of `len` bytes.
    ///
    /// # Errors
    /// [`RangeError`] for an empty or reversed bounded range, and for a start at or
    /// past the end of the value.
    ///
    /// ```
    /// use nczarr::store::ByteRange;
    /// assert_eq!(ByteRange::Bounded(2..10).resolve(5), Ok(2..5));
    /// assert_eq!(ByteRange::Suffix(8).resolve(5), Ok(0..5));
    /// assert!(ByteRange::From(5).resolve(5).is_err());
    /// ```
    pub fn resolve(&self, len: u64) -> Result<Range<u64>, RangeError> {
        let fail = || RangeError {
            range: self.clone(),
            len,
        };
        match self {
            ByteRange::Bounded(r) if r.end <= r.start || r.start >= len => Err(fail()),
            ByteRange::Bounded(r) => Ok(r.start..r.end.min(len)),
            ByteRange::From(s) if *s >= len => Err(fail()),
            ByteRange::From(s) => Ok(*s..len),
            ByteRange::Suffix(n) => Ok(len.saturating_sub(*n)..len),
        }
    }

    /// The selected bytes of `value`.
    ///
    /// # Errors
    /// As [`ByteRange::resolve`].
    pub fn slice<'a>(&self, value: &'a [u8]) -> Result<&'a [u8], RangeError> {
        let r = self.resolve(value.len() as u64)?;
        // Both ends are at most value.len(), which is a usize.
        Ok(&value[r.start as usize..r.end as usize])
    }
}

impl fmt::Display for ByteRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ByteRange::Bounded(r) if r.end > r.start => {
                write!(f, "bytes={}-{}", r.start, r.end - 1)
            }
            ByteRange::Bounded(r) => write!(f, "bytes={}-{} (empty)", r.start, r.end),
            ByteRange::From(s) => write!(f, "bytes={s}-"),
            ByteRange::Suffix(n) => write!(f, "bytes=-{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_rules() {
        let v = b"0123456789";
        assert_eq!(ByteRange::Bounded(2..5).slice(v).unwrap(), b"234");
        assert_eq!(ByteRange::Bounded(8..50).slice(v).unwrap(), b"89");
        assert_eq!(ByteRange::From(7).slice(v).unwrap(), b"789");
        assert_eq!(ByteRange::Suffix(3).slice(v).unwrap(), b"789");
        assert_eq!(ByteRange::Suffix(30).slice(v).unwrap(), v);
        assert_eq!(ByteRange::Suffix(0).slice(v).unwrap(), b"");
        for bad in [
            ByteRange::Bounded(5..5),
            ByteRange::Bounded(std::ops::Range { start: 6, end: 2 }),
            ByteRange::Bounded(10..12),
            ByteRange::From(10),
        ] {
            assert!(bad.slice(v).is_err(), "{bad}");
        }
        assert_eq!(
            ByteRange::Bounded(10..12)
                .resolve(10)
                .unwrap_err()
                .to_string(),
            "byte range bytes=10-11 does not fit a value of 10 bytes"
        );
    }
}
