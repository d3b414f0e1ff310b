//! NumPy dtype strings as Zarr v2 writes them: `<i4`, `>f8`, `|S1`, `<U8`, `|O`, `<M8[ns]`.

use std::fmt;

/// Byte order of a dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    /// `<`
    Little,
    /// `>`
    Big,
    /// `|` (or no prefix): byte order does not apply.
    NotApplicable,
}

impl Endian {
    fn prefix(self) -> char {
        match self {
            Endian::Little => '<',
            Endian::Big => '>',
            Endian::NotApplicable => '|',
        }
    }

    /// True when values must be byte-swapped to reach host order.
    pub fn needs_swap(self) -> bool {
        match self {
            Endian::Little => cfg!(target_endian = "big"),
            Endian::Big => cfg!(target_endian = "little"),
            Endian::NotApplicable => false,
        }
    }
}

/// A parsed Zarr v2 dtype.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// `|b1`
    Bool,
    /// `i1`..`i8`, `u1`..`u8`
    Int {
        /// Size in bytes (1, 2, 4, 8).
        bytes: usize,
        /// Signed (`i`) or unsigned (`u`).
        signed: bool,
        /// Byte order.
        endian: Endian,
    },
    /// `f2`, `f4`, `f8`
    Float {
        /// Size in bytes (2, 4, 8).
        bytes: usize,
        /// Byte order.
        endian: Endian,
    },
    /// `S<n>`: fixed-length byte strings. NCZarr writes `>S1` for char.
    Bytes {
        /// Length in bytes.
        len: usize,
        /// The prefix written (`>` marks NCZarr char).
        endian: Endian,
    },
    /// `U<n>`: fixed-length UTF-32 strings.
    Unicode {
        /// Length in characters.
        chars: usize,
        /// Byte order of the code units.
        endian: Endian,
    },
    /// `|O`: Python objects, with a `vlen-utf8` or `vlen-bytes` filter.
    Object,
    /// `M8[unit]`: datetime64, stored as int64.
    DateTime {
        /// The unit in brackets, e.g. `ns`, `D`.
        unit: String,
        /// Byte order.
        endian: Endian,
    },
    /// `m8[unit]`: timedelta64, stored as int64.
    TimeDelta {
        /// The unit in brackets.
        unit: String,
        /// Byte order.
        endian: Endian,
    },
}

/// A dtype string we cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsupported Zarr dtype '{text}': {reason}")]
pub struct DtypeError {
    /// The dtype as written.
    pub text: String,
    /// Why it is not supported.
    pub reason: &'static str,
}

impl Dtype {
    /// Parse a dtype string.
    ///
    /// # Errors
    /// [`DtypeError`] for malformed strings and for kinds netCDF cannot hold
    /// (complex, structured, void, Python objects other than strings).
    pub fn parse(text: &str) -> Result<Dtype, DtypeError> {
        let err = |reason| DtypeError {
            text: text.to_string(),
            reason,
        };
        let (endian, rest) = match text.chars().next() {
            Some('<') => (Endian::Little, &text[1..]),
            Some('>') => (Endian::Big, &text[1..]),
            Some('|') => (Endian::NotApplicable, &text[1..]),
            Some('=') => (
                if cfg!(target_endian = "little") {
                    Endian::Little
                } else {
                    Endian::Big
                },
                &text[1..],
            ),
            _ => (Endian::NotApplicable, text),
        };
        let mut chars = rest.chars();
        let kind = chars.next().ok_or_else(|| err("empty dtype"))?;
        let tail = chars.as_str();
        let size = || tail.parse::<usize>().map_err(|_| err("bad size"));
        let unit = |t: &str| -> Result<String, DtypeError> {
            let u = t
                .strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .ok_or_else(|| err("missing [unit]"))?;
            if u.is_empty() || !u.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(err("bad datetime unit"));
            }
            Ok(u.to_string())
        };
        match kind {
            'b' => match size()? {
                1 => Ok(Dtype::Bool),
                _ => Err(err("bool must be 1 byte")),
            },
            'i' | 'u' => match size()? {
                n @ (1 | 2 | 4 | 8) => Ok(Dtype::Int {
                    bytes: n,
                    signed: kind == 'i',
                    endian: if n == 1 {
                        Endian::NotApplicable
                    } else {
                        endian
                    },
                }),
                _ => Err(err("integer size must be 1, 2, 4 or 8")),
            },
            'f' => match size()? {
                n @ (2 | 4 | 8) => Ok(Dtype::Float { bytes: n, endian }),
                _ => Err(err("float size must be 2, 4 or 8")),
            },
            'S' | 'a' => match size()? {
                0 => Err(err("zero-length byte strings hold nothing")),
                n => Ok(Dtype::Bytes { len: n, endian }),
            },
            'U' => match size()? {
                0 => Err(err("zero-length unicode strings hold nothing")),
                n => Ok(Dtype::Unicode { chars: n, endian }),
            },
            'O' if tail.is_empty() => Ok(Dtype::Object),
            'M' if tail.starts_with('8') => Ok(Dtype::DateTime {
                unit: unit(&tail[1..])?,
                endian,
            }),
            'm' if tail.starts_with('8') => Ok(Dtype::TimeDelta {
                unit: unit(&tail[1..])?,
                endian,
            }),
            'c' => Err(err("complex numbers have no netCDF type")),
            'V' => Err(err("raw void/structured data has no netCDF type")),
            _ => Err(err("unknown kind")),
        }
    }

    /// Bytes per stored element (0 for `|O`, whose elements have no fixed size).
    pub fn item_size(&self) -> usize {
        match self {
            Dtype::Bool => 1,
            Dtype::Int { bytes, .. } | Dtype::Float { bytes, .. } => *bytes,
            Dtype::Bytes { len, .. } => *len,
            Dtype::Unicode { chars, .. } => chars.saturating_mul(4),
            Dtype::Object => 0,
            Dtype::DateTime { .. } | Dtype::TimeDelta { .. } => 8,
        }
    }

    /// The byte order values are stored in.
    pub fn endian(&self) -> Endian {
        match self {
            Dtype::Int { endian, .. }
            | Dtype::Float { endian, .. }
            | Dtype::DateTime { endian, .. }
            | Dtype::TimeDelta { endian, .. } => *endian,
            Dtype::Unicode { endian, .. } => *endian,
            Dtype::Bool | Dtype::Bytes { .. } | Dtype::Object => Endian::NotApplicable,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtype::Bool => f.write_str("|b1"),
            Dtype::Int {
                bytes,
                signed,
                endian,
            } => {
                write!(
                    f,
                    "{}{}{}",
                    endian.prefix(),
                    if *signed { 'i' } else { 'u' },
                    bytes
                )
            }
            Dtype::Float { bytes, endian } => write!(f, "{}f{}", endian.prefix(), bytes),
            Dtype::Bytes { len, endian } => write!(f, "{}S{}", endian.prefix(), len),
            Dtype::Unicode { chars, endian } => write!(f, "{}U{}", endian.prefix(), chars),
            Dtype::Object => f.write_str("|O"),
            Dtype::DateTime { unit, endian } => write!(f, "{}M8[{}]", endian.prefix(), unit),
            Dtype::TimeDelta { unit, endian } => write!(f, "{}m8[{}]", endian.prefix(), unit),
        }
    }
}

/// Reverse each item of `size` bytes in place: values from one byte order to the other.
pub fn swap_items(bytes: &mut [u8], size: usize) {
    // Word swaps for the sizes of numbers: the compiler turns these loops into vector
    // shuffles, where a reverse of each item of a size known only at run time went a
    // byte at a time (a quarter of a copy into a classic file).
    macro_rules! swap_words {
        ($t:ty, $n:literal) => {
            for item in bytes.chunks_exact_mut($n) {
                if let Ok(word) = <&mut [u8; $n]>::try_from(item) {
                    *word = <$t>::from_ne_bytes(*word).swap_bytes().to_ne_bytes();
                }
            }
        };
    }
    match size {
        0 | 1 => {}
        2 => swap_words!(u16, 2),
        4 => swap_words!(u32, 4),
        8 => swap_words!(u64, 8),
        _ => {
            for item in bytes.chunks_exact_mut(size) {
                item.reverse();
            }
        }
    }
}

/// Items of `size` bytes stored little-endian (`little`) or big-endian, into this
/// machine's order, in place. Every reader's byte order conversion is this one.
pub fn to_native(bytes: &mut [u8], size: usize, little: bool) {
    if little != cfg!(target_endian = "little") {
        swap_items(bytes, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for t in [
            "<i4", ">f8", "|u1", "|b1", ">S1", "|S128", "<U8", "|O", "<M8[ns]", ">m8[D]", "<f2",
            "<u8",
        ] {
            assert_eq!(Dtype::parse(t).unwrap().to_string(), t, "{t}");
        }
        // netcdf-c writes "<i1"; one-byte integers have no byte order.
        assert_eq!(Dtype::parse("<i1").unwrap(), Dtype::parse("|i1").unwrap());
        assert_eq!(
            Dtype::parse("i4").unwrap(),
            Dtype::Int {
                bytes: 4,
                signed: true,
                endian: Endian::NotApplicable
            }
        );
        assert_eq!(Dtype::parse("<U1").unwrap().item_size(), 4);
    }

    #[test]
    fn rejects() {
        for (t, why) in [
            ("<c8", "complex"),
            ("|V8", "void"),
            ("<i3", "integer size"),
            ("<f16", "float size"),
            ("", "empty"),
            ("<x4", "unknown"),
            ("<M8", "unit"),
            ("|S0", "zero-length"),
        ] {
            let e = Dtype::parse(t).unwrap_err();
            assert!(e.reason.contains(why), "{t}: {}", e.reason);
            assert!(e
                .to_string()
                .starts_with(&format!("unsupported Zarr dtype '{t}'")));
        }
    }
}
