//! HDF5 datatypes as netCDF-4 uses them, and stored bytes as netCDF values.
//!
//! netCDF-4 writes each atomic type as one HDF5 type: integers and floats of the
//! type's size and byte order, `char` as a one-byte fixed-length string, `string` as
//! a variable-length string. Anything else in a file is a user-defined type (compound,
//! enum, opaque, vlen), which the netCDF model here does not hold.

use hdf5_reader::{ByteOrder, Datatype, StringSize, VarLenKind};

use crate::encoding::Endianness;
use crate::model::{NcType, Values};

/// How a variable's or attribute's elements are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StoredType {
    /// The netCDF type.
    pub nc_type: NcType,
    /// Byte order of numbers (`None` for one-byte types and strings).
    pub endian: Option<Endianness>,
    /// Bytes per fixed-length string element (`char` data and attributes).
    pub fixed_string: Option<usize>,
}

/// The netCDF type of an HDF5 datatype, or what the type is when netCDF's atomic
/// types cannot hold it.
pub(super) fn stored_type(dt: &Datatype) -> Result<StoredType, String> {
    let order = |o: &ByteOrder| match o {
        ByteOrder::LittleEndian => Endianness::Little,
        ByteOrder::BigEndian => Endianness::Big,
    };
    let atomic = |nc_type: NcType, endian: Option<Endianness>| StoredType {
        nc_type,
        endian: endian.filter(|_| nc_type.size() > 1),
        fixed_string: None,
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
            _ => return Err(format!("a {size}-byte floating-point type")),
        },
        Datatype::String {
            size: StringSize::Fixed(n),
            ..
        } => StoredType {
            nc_type: NcType::Char,
            endian: None,
            fixed_string: Some(*n as usize),
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
        Datatype::Enum { .. } => return Err("a user-defined enum type".into()),
        Datatype::Opaque { .. } => return Err("a user-defined opaque type".into()),
        Datatype::Array { .. } => return Err("an HDF5 array type".into()),
        Datatype::Reference { .. } => return Err("an HDF5 reference type".into()),
        Datatype::Bitfield { .. } => return Err("an HDF5 bitfield type".into()),
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

/// Turn items of `size` bytes in byte order `endian` into native order, in place.
pub(super) fn to_native(bytes: &mut [u8], size: usize, endian: Option<Endianness>) {
    let native = if cfg!(target_endian = "little") {
        Endianness::Little
    } else {
        Endianness::Big
    };
    if size > 1 && endian.is_some_and(|e| e != native) {
        for item in bytes.chunks_exact_mut(size) {
            item.reverse();
        }
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
        let e = Datatype::Opaque {
            size: 3,
            tag: String::new(),
        };
        assert!(stored_type(&e).unwrap_err().contains("opaque"));
    }

    #[test]
    fn stored_bytes_become_native_values() {
        let v = values_from_stored(NcType::Short, &[1, 2, 3, 4], Some(Endianness::Big));
        assert_eq!(v, Values::Short(vec![0x0102, 0x0304]));
        let v = values_from_stored(NcType::Short, &[1, 2, 3], Some(Endianness::Little));
        assert_eq!(v, Values::Short(vec![0x0201]));
    }
}
