//! netCDF's atomic types and enums as HDF5 datatypes, and fixed-size values as a file
//! stores them.

use super::encode::H5Type;
use crate::codec::dtype::swap_items;
use crate::model::{NcType, Values};

/// The HDF5 type of netCDF type `t`, big-endian when `big`.
pub(super) fn h5type(t: NcType, big: bool) -> H5Type {
    let int = |size: u8, signed: bool| H5Type::Int { size, signed, big };
    match t {
        NcType::Byte => int(1, true),
        NcType::UByte => int(1, false),
        NcType::Short => int(2, true),
        NcType::UShort => int(2, false),
        NcType::Int => int(4, true),
        NcType::UInt => int(4, false),
        NcType::Int64 => int(8, true),
        NcType::UInt64 => int(8, false),
        NcType::Float => H5Type::Float { size: 4, big },
        NcType::Double => H5Type::Float { size: 8, big },
        NcType::Char => H5Type::Fixed {
            size: 1,
            utf8: false,
        },
        NcType::String => H5Type::VlenString,
    }
}

/// Fixed-size values as stored: native bytes, swapped when `big` differs from this
/// machine's order. `None` for strings.
pub(super) fn stored_bytes(values: &Values, big: bool) -> Option<Vec<u8>> {
    let mut bytes = values.as_ne_bytes()?.to_vec();
    if big != cfg!(target_endian = "big") {
        swap_items(&mut bytes, values.nc_type().size());
    }
    Some(bytes)
}

/// The HDF5 type of an enum over `base` with `members`.
pub(super) fn enum_type(base: NcType, members: &[(String, i128)]) -> H5Type {
    let size = base.size();
    H5Type::Enum {
        base: Box::new(h5type(base, false)),
        members: members
            .iter()
            // Two's complement, little-endian, cut to the base's size.
            .map(|(name, v)| (name.clone(), (*v as u128).to_le_bytes()[..size].to_vec()))
            .collect(),
    }
}
