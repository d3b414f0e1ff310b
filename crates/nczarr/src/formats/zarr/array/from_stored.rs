//! Stored element bytes (any Zarr dtype, any byte order) to host-order netCDF values.

use crate::formats::zarr::v2::{Dtype, Endian};
use crate::model::NcType;

/// A decoded chunk in netCDF terms.
#[derive(Debug, Clone)]
pub(crate) enum ChunkData {
    /// Host-order elements of the netCDF type's size (1 byte per char).
    Fixed(Vec<u8>),
    /// Strings (`None` is NIL).
    Strings(Vec<Option<Vec<u8>>>),
}

/// Stored bytes and netCDF values that do not fit each other.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// A decoded chunk of the wrong length.
    #[error("chunk holds {got} bytes, expected {expected} ({items} elements of {dtype}); truncated or not written by a Zarr v2 writer")]
    Length {
        /// Bytes decoded.
        got: usize,
        /// Bytes a chunk holds.
        expected: usize,
        /// Elements in a chunk.
        items: usize,
        /// The stored dtype.
        dtype: String,
    },
    /// A chunk too large to count in bytes.
    #[error("chunk size overflows")]
    Overflow,
    /// A dtype whose elements cannot be read as values of the variable's type.
    #[error("cannot convert dtype {dtype} to {nc_type}")]
    ToValues {
        /// The stored dtype.
        dtype: String,
        /// The variable's type.
        nc_type: NcType,
    },
    /// Values of a type the dtype cannot hold.
    #[error("cannot store {nc_type} values as Zarr dtype {dtype}")]
    ToStored {
        /// The values' type.
        nc_type: NcType,
        /// The stored dtype.
        dtype: String,
    },
    /// A string longer than the dtype's fixed width: it is never cut.
    #[error("the string \"{text}\" ({len} {unit}) does not fit Zarr dtype {dtype} ({width} {unit}); strings are never cut")]
    TooLong {
        /// The string (its start, with its bytes escaped).
        text: String,
        /// Its length, in the dtype's unit.
        len: usize,
        /// The dtype's width, in the same unit.
        width: usize,
        /// `bytes` or `characters`.
        unit: &'static str,
        /// The stored dtype.
        dtype: String,
    },
    /// A string that is not UTF-8, for a dtype of Unicode characters.
    #[error("string {index} is not UTF-8 text ({text}), which Zarr dtype {dtype} cannot hold")]
    NotUtf8 {
        /// Its position among the values.
        index: usize,
        /// The string, with its bytes escaped.
        text: String,
        /// The stored dtype.
        dtype: String,
    },
}

// Here rather than in `error.rs`, which would otherwise import the layer it is
// imported by.
impl From<ConvertError> for crate::Error {
    fn from(e: ConvertError) -> crate::Error {
        crate::Error::Layer {
            layer: "zarr",
            source: Box::new(e),
        }
    }
}

/// Convert `n` stored elements of `dtype` into values of `nc_type`.
///
/// # Errors
/// [`ConvertError`] when the byte count does not match `n` elements or the dtype has
/// no such values.
pub(crate) fn convert(
    bytes: Vec<u8>,
    dtype: &Dtype,
    nc_type: NcType,
    n: usize,
) -> Result<ChunkData, ConvertError> {
    let size = dtype.item_size();
    let expect = n.checked_mul(size).ok_or(ConvertError::Overflow)?;
    if bytes.len() != expect {
        return Err(ConvertError::Length {
            got: bytes.len(),
            expected: expect,
            items: n,
            dtype: dtype.to_string(),
        });
    }
    Ok(match dtype {
        Dtype::Int { .. }
        | Dtype::Float { bytes: 4 | 8, .. }
        | Dtype::DateTime { .. }
        | Dtype::TimeDelta { .. }
            if nc_type.size() == size =>
        {
            ChunkData::Fixed(if dtype.endian().needs_swap() {
                swap(bytes, size)
            } else {
                bytes
            })
        }
        Dtype::Float { bytes: 2, endian } => {
            let mut out = Vec::with_capacity(n * 4);
            for c in bytes.chunks_exact(2) {
                let h = if *endian == Endian::Big {
                    u16::from_be_bytes([c[0], c[1]])
                } else {
                    u16::from_le_bytes([c[0], c[1]])
                };
                out.extend_from_slice(&half_to_f32(h).to_ne_bytes());
            }
            ChunkData::Fixed(out)
        }
        Dtype::Bool => ChunkData::Fixed(bytes.into_iter().map(|b| u8::from(b != 0)).collect()),
        Dtype::Bytes { len: 1, .. } if nc_type == NcType::Char => ChunkData::Fixed(bytes),
        Dtype::Bytes { len, .. } => ChunkData::Strings(
            bytes
                .chunks_exact(*len)
                .map(|s| {
                    let end = s.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                    Some(s[..end].to_vec())
                })
                .collect(),
        ),
        Dtype::Unicode { chars, endian } => ChunkData::Strings(
            bytes
                .chunks_exact(chars * 4)
                .map(|s| {
                    let text: String = s
                        .chunks_exact(4)
                        .map(|u| {
                            if *endian == Endian::Big {
                                u32::from_be_bytes([u[0], u[1], u[2], u[3]])
                            } else {
                                u32::from_le_bytes([u[0], u[1], u[2], u[3]])
                            }
                        })
                        .take_while(|&cp| cp != 0)
                        .map(|cp| char::from_u32(cp).unwrap_or('\u{FFFD}'))
                        .collect();
                    Some(text.into_bytes())
                })
                .collect(),
        ),
        other => {
            return Err(ConvertError::ToValues {
                dtype: other.to_string(),
                nc_type,
            })
        }
    })
}

/// When [`convert`] of `dtype` to `nc_type` changes no byte but perhaps the byte order:
/// `Some(swap)`, where `swap` says whether items of the dtype's size are reversed.
/// Such chunks can be read straight into the values they make.
pub(crate) fn same_bytes(dtype: &Dtype, nc_type: NcType) -> Option<bool> {
    match dtype {
        Dtype::Int { .. }
        | Dtype::Float { bytes: 4 | 8, .. }
        | Dtype::DateTime { .. }
        | Dtype::TimeDelta { .. }
            if nc_type != NcType::String && nc_type.size() == dtype.item_size() =>
        {
            Some(dtype.endian().needs_swap())
        }
        Dtype::Bytes { len: 1, .. } if nc_type == NcType::Char => Some(false),
        _ => None,
    }
}

fn swap(mut bytes: Vec<u8>, size: usize) -> Vec<u8> {
    crate::codec::dtype::swap_items(&mut bytes, size);
    bytes
}

/// IEEE 754 half to single precision.
pub(crate) fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let frac = u32::from(h & 0x3ff);
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, f) => {
            // Subnormal: normalise.
            let mut e = 127 - 15 + 1;
            let mut f = f;
            while f & 0x400 == 0 {
                f <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((f & 0x3ff) << 13)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 127 - 15) << 23) | (f << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_endian_ints_are_swapped() {
        let d = Dtype::parse(">i4").unwrap();
        let ChunkData::Fixed(b) =
            convert(vec![0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe], &d, NcType::Int, 2).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            crate::model::Values::from_ne_bytes(NcType::Int, &b),
            crate::model::Values::Int(vec![1, -2])
        );
    }

    #[test]
    fn halves() {
        assert_eq!(half_to_f32(0x3c00), 1.0);
        assert_eq!(half_to_f32(0xc100), -2.5);
        assert_eq!(half_to_f32(0x0001), 5.960_464_5e-8);
        assert!(half_to_f32(0x7e00).is_nan());
        assert_eq!(half_to_f32(0xfc00), f32::NEG_INFINITY);
    }

    #[test]
    fn strings_strip_nul_padding_and_unicode_decodes() {
        let d = Dtype::parse("|S3").unwrap();
        let ChunkData::Strings(s) =
            convert(b"ab\0xyz\0\0\0".to_vec(), &d, NcType::String, 3).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            s,
            vec![Some(b"ab".to_vec()), Some(b"xyz".to_vec()), Some(vec![])]
        );
        let d = Dtype::parse("<U2").unwrap();
        let bytes: Vec<u8> = [0x3a9u32, 0x61, 0x62, 0]
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .collect();
        let ChunkData::Strings(s) = convert(bytes, &d, NcType::String, 2).unwrap() else {
            panic!()
        };
        assert_eq!(s, vec![Some("Ωa".as_bytes().to_vec()), Some(b"b".to_vec())]);
    }

    #[test]
    fn truncated_chunk_is_an_error() {
        let d = Dtype::parse("<f8").unwrap();
        let e = convert(vec![0; 12], &d, NcType::Double, 2)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("chunk holds 12 bytes, expected 16"), "{e}");
    }
}
