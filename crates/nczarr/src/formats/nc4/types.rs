//! HDF5 datatypes as netCDF-4 uses them, and stored bytes as netCDF values.
//!
//! netCDF-4 writes each atomic type as one HDF5 type: integers and floats of the
//! type's size and byte order, `char` as a one-byte fixed-length string, `string` as
//! a variable-length string. Other writers' types are read as netcdf-c reads them:
//! half-precision floats as `float` (HDF5 converts them to the native float), and
//! fixed-length strings longer than one byte as `string` (each ends at its first
//! NUL). Anything else in a file is a user-defined type (compound, enum, opaque,
//! vlen), which the netCDF model here does not hold.

use hdf5_reader::{ByteOrder, Datatype, StringSize, VarLenKind};

use super::fault::Fault;
use crate::encoding::Endianness;
use crate::model::{NcType, Values};

/// How a variable's or attribute's elements are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StoredType {
    /// The netCDF type.
    pub nc_type: NcType,
    /// Byte order of numbers (`None` for one-byte types and strings).
    pub endian: Option<Endianness>,
    /// Bytes per fixed-length string element (`char` data and attributes, `string`
    /// data of other writers).
    pub fixed_string: Option<usize>,
    /// Stored as IEEE half precision (two bytes), read as `float`.
    pub half: bool,
}

/// The netCDF type of an HDF5 datatype, or what the type is when netCDF's atomic
/// types cannot hold it.
pub(super) fn stored_type(dt: &Datatype) -> Result<StoredType, Fault> {
    let order = |o: &ByteOrder| match o {
        ByteOrder::LittleEndian => Endianness::Little,
        ByteOrder::BigEndian => Endianness::Big,
    };
    let atomic = |nc_type: NcType, endian: Option<Endianness>| StoredType {
        nc_type,
        endian: endian.filter(|_| nc_type.size() > 1),
        fixed_string: None,
        half: false,
    };
    Ok(match dt {
        Datatype::FixedPoint {
            size,
            signed,
            byte_order,
        } => {
            let t = NcType::integer(usize::from(*size), *signed)
                .ok_or_else(|| format!("a {size}-byte integer type"))?;
            atomic(t, Some(order(byte_order)))
        }
        Datatype::FloatingPoint { size, byte_order } => match size {
            4 => atomic(NcType::Float, Some(order(byte_order))),
            8 => atomic(NcType::Double, Some(order(byte_order))),
            2 => StoredType {
                half: true,
                ..atomic(NcType::Float, Some(order(byte_order)))
            },
            _ => return Err(Fault::from(format!("a {size}-byte floating-point type"))),
        },
        Datatype::String {
            size: StringSize::Fixed(n),
            ..
        } => StoredType {
            nc_type: if *n == 1 {
                NcType::Char
            } else {
                NcType::String
            },
            endian: None,
            fixed_string: Some(*n as usize),
            half: false,
        },
        Datatype::String {
            size: StringSize::Variable,
            ..
        } => atomic(NcType::String, None),
        Datatype::VarLen {
            kind: VarLenKind::String,
            ..
        } => atomic(NcType::String, None),
        Datatype::VarLen { .. } => return Err("a user-defined vlen type".into()),
        Datatype::Compound { .. } => return Err("a user-defined compound type".into()),
        // An enum's values are its base integers (the names are the type's).
        Datatype::Enum { base, .. } => stored_type(base)?,
        Datatype::Opaque { .. } => return Err("a user-defined opaque type".into()),
        Datatype::Array { .. } => return Err("an HDF5 array type".into()),
        Datatype::Reference { .. } => return Err("an HDF5 reference type".into()),
        // netcdf-c has no use for bitfields and leaves them out; h5py reads them as
        // unsigned integers of their size, and so do we (with a note).
        Datatype::Bitfield { size, byte_order } => {
            let t = NcType::integer(usize::from(*size), false)
                .ok_or_else(|| format!("a {size}-byte bitfield type"))?;
            atomic(t, Some(order(byte_order)))
        }
    })
}

/// Values of type `t` from stored bytes in byte order `endian` (whole elements only).
pub(super) fn values_from_stored(t: NcType, raw: &[u8], endian: Option<Endianness>) -> Values {
    let size = t.size().max(1);
    let mut values = Values::zeroed(t, raw.len() / size);
    if let Some(out) = values.ne_bytes_mut() {
        out.copy_from_slice(&raw[..out.len()]);
        to_native(out, size, endian);
    }
    values
}

/// Floats from IEEE half-precision values stored in byte order `endian`.
pub(super) fn floats_from_halves(raw: &[u8], endian: Option<Endianness>) -> Vec<f32> {
    raw.chunks_exact(2)
        .map(|b| {
            let bits = match endian {
                Some(Endianness::Big) => u16::from_be_bytes([b[0], b[1]]),
                _ => u16::from_le_bytes([b[0], b[1]]),
            };
            half_to_f32(bits)
        })
        .collect()
}

/// One binary16 value as the f32 of the same value (every half is exactly a float).
fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let frac = u32::from(h & 0x3ff);
    let bits = match (exp, frac) {
        (0, 0) => sign,
        // Subnormal: frac * 2^-24, exact in f32.
        (0, _) => {
            let v = frac as f32 * f32::powi(2.0, -24);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000 | (frac << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (frac << 13),
    };
    f32::from_bits(bits)
}

/// The text of one fixed-length string element: up to its first NUL, as netcdf-c
/// reads it into a C string (space padding is kept, as ncdump shows it).
pub(super) fn fixed_text(raw: &[u8]) -> &[u8] {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    &raw[..end]
}

/// Turn items of `size` bytes in byte order `endian` into native order, in place.
pub(super) fn to_native(bytes: &mut [u8], size: usize, endian: Option<Endianness>) {
    if let Some(e) = endian {
        crate::codec::dtype::to_native(bytes, size, e == Endianness::Little);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdf5_reader::{StringEncoding, StringPadding};

    #[test]
    fn netcdf4_types_map_to_atomic_types() {
        let int = |size, signed| Datatype::FixedPoint {
            size,
            signed,
            byte_order: ByteOrder::BigEndian,
        };
        assert_eq!(stored_type(&int(2, false)).unwrap().nc_type, NcType::UShort);
        assert_eq!(
            stored_type(&int(4, true)).unwrap().endian,
            Some(Endianness::Big)
        );
        assert_eq!(stored_type(&int(1, true)).unwrap().endian, None);
        assert!(stored_type(&int(3, true)).is_err());
        let s = Datatype::String {
            size: StringSize::Fixed(1),
            encoding: StringEncoding::Ascii,
            padding: StringPadding::NullTerminate,
        };
        assert_eq!(stored_type(&s).unwrap().nc_type, NcType::Char);
        let s20 = Datatype::String {
            size: StringSize::Fixed(20),
            encoding: StringEncoding::Ascii,
            padding: StringPadding::NullPad,
        };
        assert_eq!(stored_type(&s20).unwrap().nc_type, NcType::String);
        assert_eq!(stored_type(&s20).unwrap().fixed_string, Some(20));
        let h = Datatype::FloatingPoint {
            size: 2,
            byte_order: ByteOrder::LittleEndian,
        };
        assert!(stored_type(&h).unwrap().half);
        let e = Datatype::Opaque {
            size: 3,
            tag: String::new(),
        };
        assert!(stored_type(&e).unwrap_err().to_string().contains("opaque"));
    }

    #[test]
    fn halves_are_read_as_the_floats_they_are() {
        // 1.5, -2, 65504 (largest), 2^-24 (smallest subnormal), inf, -0.
        let le: Vec<u8> = [0x3e00u16, 0xc000, 0x7bff, 0x0001, 0x7c00, 0x8000]
            .iter()
            .flat_map(|h| h.to_le_bytes())
            .collect();
        let f = floats_from_halves(&le, Some(Endianness::Little));
        assert_eq!(f[..4], [1.5, -2.0, 65504.0, f32::powi(2.0, -24)]);
        assert_eq!(f[4], f32::INFINITY);
        assert!(f[5] == 0.0 && f[5].is_sign_negative());
        let nan = floats_from_halves(&[0x7e, 0x00], Some(Endianness::Big));
        assert!(nan[0].is_nan());
        assert_eq!(fixed_text(b"ab\0\0x"), b"ab");
        assert_eq!(fixed_text(b"a  "), b"a  ");
    }

    #[test]
    fn stored_bytes_become_native_values() {
        let v = values_from_stored(NcType::Short, &[1, 2, 3, 4], Some(Endianness::Big));
        assert_eq!(v, Values::Short(vec![0x0102, 0x0304]));
        let v = values_from_stored(NcType::Short, &[1, 2, 3], Some(Endianness::Little));
        assert_eq!(v, Values::Short(vec![0x0201]));
    }
}
