//! Typed value vectors: attribute values, fill values and blocks of variable data.

use super::{NcType, Strings};

/// A vector of values of one netCDF type.
///
/// Char values are raw bytes; strings are byte strings (netCDF does not promise
/// UTF-8) and `None` is a NIL string.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// `byte`
    Byte(Vec<i8>),
    /// `char`
    Char(Vec<u8>),
    /// `short`
    Short(Vec<i16>),
    /// `int`
    Int(Vec<i32>),
    /// `float`
    Float(Vec<f32>),
    /// `double`
    Double(Vec<f64>),
    /// `ubyte`
    UByte(Vec<u8>),
    /// `ushort`
    UShort(Vec<u16>),
    /// `uint`
    UInt(Vec<u32>),
    /// `int64`
    Int64(Vec<i64>),
    /// `uint64`
    UInt64(Vec<u64>),
    /// `string`; `None` is NIL.
    String(Strings),
}

/// Apply `$body` to the inner vector of any variant, binding it as `$v`.
macro_rules! with_vec {
    ($values:expr, $v:ident => $body:expr) => {
        match $values {
            Values::Byte($v) => $body,
            Values::Char($v) => $body,
            Values::Short($v) => $body,
            Values::Int($v) => $body,
            Values::Float($v) => $body,
            Values::Double($v) => $body,
            Values::UByte($v) => $body,
            Values::UShort($v) => $body,
            Values::UInt($v) => $body,
            Values::Int64($v) => $body,
            Values::UInt64($v) => $body,
            Values::String($v) => $body,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use with_vec;

impl Values {
    /// An empty vector of type `t`.
    pub fn empty(t: NcType) -> Values {
        Values::with_capacity(t, 0)
    }

    /// An empty vector of type `t` with room for `n` values.
    pub fn with_capacity(t: NcType, n: usize) -> Values {
        match t {
            NcType::Byte => Values::Byte(Vec::with_capacity(n)),
            NcType::Char => Values::Char(Vec::with_capacity(n)),
            NcType::Short => Values::Short(Vec::with_capacity(n)),
            NcType::Int => Values::Int(Vec::with_capacity(n)),
            NcType::Float => Values::Float(Vec::with_capacity(n)),
            NcType::Double => Values::Double(Vec::with_capacity(n)),
            NcType::UByte => Values::UByte(Vec::with_capacity(n)),
            NcType::UShort => Values::UShort(Vec::with_capacity(n)),
            NcType::UInt => Values::UInt(Vec::with_capacity(n)),
            NcType::Int64 => Values::Int64(Vec::with_capacity(n)),
            NcType::UInt64 => Values::UInt64(Vec::with_capacity(n)),
            NcType::String => Values::String(Strings::with_capacity(n, 0)),
        }
    }

    /// A char value holding `text`.
    pub fn text(text: &str) -> Values {
        Values::Char(text.as_bytes().to_vec())
    }

    /// The type of the values.
    pub fn nc_type(&self) -> NcType {
        match self {
            Values::Byte(_) => NcType::Byte,
            Values::Char(_) => NcType::Char,
            Values::Short(_) => NcType::Short,
            Values::Int(_) => NcType::Int,
            Values::Float(_) => NcType::Float,
            Values::Double(_) => NcType::Double,
            Values::UByte(_) => NcType::UByte,
            Values::UShort(_) => NcType::UShort,
            Values::UInt(_) => NcType::UInt,
            Values::Int64(_) => NcType::Int64,
            Values::UInt64(_) => NcType::UInt64,
            Values::String(_) => NcType::String,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        with_vec!(self, v => v.len())
    }

    /// How many values the vector holds room for (strings: 0, never reused).
    pub fn capacity(&self) -> usize {
        match self {
            Values::String(_) => 0,
            Values::Byte(v) => v.capacity(),
            Values::Char(v) | Values::UByte(v) => v.capacity(),
            Values::Short(v) => v.capacity(),
            Values::UShort(v) => v.capacity(),
            Values::Int(v) => v.capacity(),
            Values::UInt(v) => v.capacity(),
            Values::Float(v) => v.capacity(),
            Values::Double(v) => v.capacity(),
            Values::Int64(v) => v.capacity(),
            Values::UInt64(v) => v.capacity(),
        }
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Values `range` as a new vector.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Values {
        match self {
            Values::Byte(v) => Values::Byte(v[range].to_vec()),
            Values::Char(v) => Values::Char(v[range].to_vec()),
            Values::Short(v) => Values::Short(v[range].to_vec()),
            Values::Int(v) => Values::Int(v[range].to_vec()),
            Values::Float(v) => Values::Float(v[range].to_vec()),
            Values::Double(v) => Values::Double(v[range].to_vec()),
            Values::UByte(v) => Values::UByte(v[range].to_vec()),
            Values::UShort(v) => Values::UShort(v[range].to_vec()),
            Values::UInt(v) => Values::UInt(v[range].to_vec()),
            Values::Int64(v) => Values::Int64(v[range].to_vec()),
            Values::UInt64(v) => Values::UInt64(v[range].to_vec()),
            Values::String(v) => Values::String(v.slice(range)),
        }
    }

    /// Value `i` converted to `f64` (strings and chars give their byte value or NaN).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Values::Byte(v) => f64::from(v[i]),
            Values::Char(v) => f64::from(v[i]),
            Values::Short(v) => f64::from(v[i]),
            Values::Int(v) => f64::from(v[i]),
            Values::Float(v) => f64::from(v[i]),
            Values::Double(v) => v[i],
            Values::UByte(v) => f64::from(v[i]),
            Values::UShort(v) => f64::from(v[i]),
            Values::UInt(v) => f64::from(v[i]),
            Values::Int64(v) => v[i] as f64,
            Values::UInt64(v) => v[i] as f64,
            Values::String(_) => f64::NAN,
        }
    }

    /// Value `i` as `i128` for integer types (exact); `None` for other types and past
    /// the end.
    pub fn get_i128(&self, i: usize) -> Option<i128> {
        Some(match self {
            Values::Byte(v) => i128::from(*v.get(i)?),
            Values::Char(v) => i128::from(*v.get(i)?),
            Values::Short(v) => i128::from(*v.get(i)?),
            Values::Int(v) => i128::from(*v.get(i)?),
            Values::UByte(v) => i128::from(*v.get(i)?),
            Values::UShort(v) => i128::from(*v.get(i)?),
            Values::UInt(v) => i128::from(*v.get(i)?),
            Values::Int64(v) => i128::from(*v.get(i)?),
            Values::UInt64(v) => i128::from(*v.get(i)?),
            Values::Float(_) | Values::Double(_) | Values::String(_) => return None,
        })
    }

    /// `n` zeros of type `t` (empty strings for `String`). The memory comes zeroed
    /// from the allocator, so pages not yet written cost nothing.
    pub fn zeroed(t: NcType, n: usize) -> Values {
        match t {
            NcType::Byte => Values::Byte(vec![0; n]),
            NcType::Char => Values::Char(vec![0; n]),
            NcType::Short => Values::Short(vec![0; n]),
            NcType::Int => Values::Int(vec![0; n]),
            NcType::Float => Values::Float(vec![0.0; n]),
            NcType::Double => Values::Double(vec![0.0; n]),
            NcType::UByte => Values::UByte(vec![0; n]),
            NcType::UShort => Values::UShort(vec![0; n]),
            NcType::UInt => Values::UInt(vec![0; n]),
            NcType::Int64 => Values::Int64(vec![0; n]),
            NcType::UInt64 => Values::UInt64(vec![0; n]),
            NcType::String => Values::String(Strings::repeat(Some(b""), n)),
        }
    }

    /// `n` values of type `t` in the memory of `self` where it holds that type (its
    /// old values kept where they are, zeros after them: for a reader that writes
    /// every value, without clearing or fresh memory), else [`Values::zeroed`].
    pub fn reused_as(self, t: NcType, n: usize) -> Values {
        macro_rules! reuse {
            ($($variant:ident),*) => {
                match self {
                    $(Values::$variant(mut v) if t == NcType::$variant => {
                        v.truncate(n);
                        v.resize(n, Default::default());
                        Values::$variant(v)
                    })*
                    _ => Values::zeroed(t, n),
                }
            };
        }
        reuse!(Byte, Char, Short, Int, Float, Double, UByte, UShort, UInt, Int64, UInt64)
    }

    /// The values as native-endian bytes (chars one byte each), without a copy;
    /// `None` for strings, which have no fixed-size form.
    pub fn as_ne_bytes(&self) -> Option<&[u8]> {
        Some(match self {
            Values::Byte(v) => bytemuck::cast_slice(v),
            Values::Char(v) | Values::UByte(v) => v,
            Values::Short(v) => bytemuck::cast_slice(v),
            Values::UShort(v) => bytemuck::cast_slice(v),
            Values::Int(v) => bytemuck::cast_slice(v),
            Values::UInt(v) => bytemuck::cast_slice(v),
            Values::Float(v) => bytemuck::cast_slice(v),
            Values::Double(v) => bytemuck::cast_slice(v),
            Values::Int64(v) => bytemuck::cast_slice(v),
            Values::UInt64(v) => bytemuck::cast_slice(v),
            Values::String(_) => return None,
        })
    }

    /// The values as mutable native-endian bytes; `None` for strings.
    pub fn ne_bytes_mut(&mut self) -> Option<&mut [u8]> {
        Some(match self {
            Values::Byte(v) => bytemuck::cast_slice_mut(v),
            Values::Char(v) | Values::UByte(v) => v,
            Values::Short(v) => bytemuck::cast_slice_mut(v),
            Values::UShort(v) => bytemuck::cast_slice_mut(v),
            Values::Int(v) => bytemuck::cast_slice_mut(v),
            Values::UInt(v) => bytemuck::cast_slice_mut(v),
            Values::Float(v) => bytemuck::cast_slice_mut(v),
            Values::Double(v) => bytemuck::cast_slice_mut(v),
            Values::Int64(v) => bytemuck::cast_slice_mut(v),
            Values::UInt64(v) => bytemuck::cast_slice_mut(v),
            Values::String(_) => return None,
        })
    }

    /// Decode values of type `t` from native-endian bytes (one byte per char; a
    /// trailing partial value is ignored; strings are not fixed-size and are handled by
    /// the caller).
    ///
    /// # Panics
    /// If `t` is `String`.
    pub fn from_ne_bytes(t: NcType, bytes: &[u8]) -> Values {
        assert!(t != NcType::String, "strings have no fixed-size byte form");
        let n = bytes.len() / t.size();
        let mut out = Values::zeroed(t, n);
        if let Some(dst) = out.ne_bytes_mut() {
            dst.copy_from_slice(&bytes[..dst.len()]);
        }
        out
    }

    /// Append native-endian bytes of the values to `out` (chars one byte each).
    /// Strings are skipped (no fixed-size form).
    pub fn extend_ne_bytes(&self, out: &mut Vec<u8>) {
        if let Some(bytes) = self.as_ne_bytes() {
            out.extend_from_slice(bytes);
        }
    }

    /// Append all values of `other` (same type) to `self`.
    ///
    /// # Panics
    /// If the types differ.
    pub fn append(&mut self, other: Values) {
        match (self, other) {
            (Values::Byte(a), Values::Byte(b)) => a.extend(b),
            (Values::Char(a), Values::Char(b)) => a.extend(b),
            (Values::Short(a), Values::Short(b)) => a.extend(b),
            (Values::Int(a), Values::Int(b)) => a.extend(b),
            (Values::Float(a), Values::Float(b)) => a.extend(b),
            (Values::Double(a), Values::Double(b)) => a.extend(b),
            (Values::UByte(a), Values::UByte(b)) => a.extend(b),
            (Values::UShort(a), Values::UShort(b)) => a.extend(b),
            (Values::UInt(a), Values::UInt(b)) => a.extend(b),
            (Values::Int64(a), Values::Int64(b)) => a.extend(b),
            (Values::UInt64(a), Values::UInt64(b)) => a.extend(b),
            (Values::String(a), Values::String(b)) => a.extend_from(&b),
            (a, b) => panic!("append {} to {}", b.nc_type(), a.nc_type()),
        }
    }

    /// `n` copies of the first value of `one` (empty when `one` is).
    pub fn repeat(one: &Values, n: usize) -> Values {
        match one {
            Values::Byte(v) => Values::Byte(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::Char(v) => Values::Char(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::Short(v) => Values::Short(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::Int(v) => Values::Int(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::Float(v) => Values::Float(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::Double(v) => Values::Double(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::UByte(v) => Values::UByte(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::UShort(v) => Values::UShort(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::UInt(v) => Values::UInt(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::Int64(v) => Values::Int64(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::UInt64(v) => Values::UInt64(v.first().map_or_else(Vec::new, |&x| vec![x; n])),
            Values::String(v) => Values::String(match v.first() {
                Some(s) => Strings::repeat(s, n),
                None => Strings::new(),
            }),
        }
    }

    /// Overwrite values `start..start + other.len()` with `other` (same type).
    ///
    /// # Panics
    /// If the types differ or the range does not fit.
    pub fn write_at(&mut self, start: usize, other: &Values) {
        let end = start + other.len();
        match (self, other) {
            (Values::Byte(a), Values::Byte(b)) => a[start..end].copy_from_slice(b),
            (Values::Char(a), Values::Char(b)) => a[start..end].copy_from_slice(b),
            (Values::Short(a), Values::Short(b)) => a[start..end].copy_from_slice(b),
            (Values::Int(a), Values::Int(b)) => a[start..end].copy_from_slice(b),
            (Values::Float(a), Values::Float(b)) => a[start..end].copy_from_slice(b),
            (Values::Double(a), Values::Double(b)) => a[start..end].copy_from_slice(b),
            (Values::UByte(a), Values::UByte(b)) => a[start..end].copy_from_slice(b),
            (Values::UShort(a), Values::UShort(b)) => a[start..end].copy_from_slice(b),
            (Values::UInt(a), Values::UInt(b)) => a[start..end].copy_from_slice(b),
            (Values::Int64(a), Values::Int64(b)) => a[start..end].copy_from_slice(b),
            (Values::UInt64(a), Values::UInt64(b)) => a[start..end].copy_from_slice(b),
            (Values::String(a), Values::String(b)) => a.write_at(start, b),
            (a, b) => panic!("write {} into {}", b.nc_type(), a.nc_type()),
        }
    }

    /// The netCDF default fill value of type `t` (`NC_FILL_*`), one element.
    pub fn default_fill(t: NcType) -> Values {
        match t {
            NcType::Byte => Values::Byte(vec![-127]),
            NcType::Char => Values::Char(vec![0]),
            NcType::Short => Values::Short(vec![-32767]),
            NcType::Int => Values::Int(vec![-2147483647]),
            NcType::Float => Values::Float(vec![9.969_21e36_f32]),
            NcType::Double => Values::Double(vec![9.969_209_968_386_869e36]),
            NcType::UByte => Values::UByte(vec![255]),
            NcType::UShort => Values::UShort(vec![65535]),
            NcType::UInt => Values::UInt(vec![4294967295]),
            NcType::Int64 => Values::Int64(vec![-9223372036854775806]),
            NcType::UInt64 => Values::UInt64(vec![18446744073709551614]),
            NcType::String => Values::String(Strings::repeat(Some(b""), 1)),
        }
    }

    /// Convert numeric values to type `t` the way C casts would (used for
    /// `_FillValue` attributes whose type differs from the variable's).
    /// Returns `None` for char/string conversions.
    pub fn cast_to(&self, t: NcType) -> Option<Values> {
        if self.nc_type() == t {
            return Some(self.clone());
        }
        if !t.is_numeric() || !self.nc_type().is_numeric() {
            return None;
        }
        let n = self.len();
        let ints: Option<Vec<i128>> = (0..n).map(|i| self.get_i128(i)).collect();
        Some(match (t, ints) {
            (NcType::Float, _) => Values::Float((0..n).map(|i| self.get_f64(i) as f32).collect()),
            (NcType::Double, _) => Values::Double((0..n).map(|i| self.get_f64(i)).collect()),
            (_, Some(ints)) => cast_ints(t, &ints),
            (_, None) => {
                let ints: Vec<i128> = (0..n).map(|i| self.get_f64(i) as i128).collect();
                cast_ints(t, &ints)
            }
        })
    }
}

fn cast_ints(t: NcType, ints: &[i128]) -> Values {
    match t {
        NcType::Byte => Values::Byte(ints.iter().map(|&x| x as i8).collect()),
        NcType::Short => Values::Short(ints.iter().map(|&x| x as i16).collect()),
        NcType::Int => Values::Int(ints.iter().map(|&x| x as i32).collect()),
        NcType::UByte => Values::UByte(ints.iter().map(|&x| x as u8).collect()),
        NcType::UShort => Values::UShort(ints.iter().map(|&x| x as u16).collect()),
        NcType::UInt => Values::UInt(ints.iter().map(|&x| x as u32).collect()),
        NcType::Int64 => Values::Int64(ints.iter().map(|&x| x as i64).collect()),
        NcType::UInt64 => Values::UInt64(ints.iter().map(|&x| x as u64).collect()),
        _ => Values::empty(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ne_bytes_round_trip() {
        let v = Values::Int(vec![1, -2, 300000]);
        let mut b = Vec::new();
        v.extend_ne_bytes(&mut b);
        assert_eq!(Values::from_ne_bytes(NcType::Int, &b), v);
    }

    #[test]
    fn cast_float_fill_to_short() {
        let v = Values::Float(vec![-999.0]);
        assert_eq!(v.cast_to(NcType::Short), Some(Values::Short(vec![-999])));
        assert_eq!(Values::Char(vec![1]).cast_to(NcType::Int), None);
    }
}
