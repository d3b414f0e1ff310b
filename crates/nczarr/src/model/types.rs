//! The twelve netCDF-4 atomic types.

use std::fmt;

/// A netCDF atomic type. User-defined types are outside NCZarr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NcType {
    /// `byte`: signed 8-bit integer.
    Byte,
    /// `char`: one byte of text.
    Char,
    /// `short`: signed 16-bit integer.
    Short,
    /// `int`: signed 32-bit integer.
    Int,
    /// `float`: IEEE 32-bit.
    Float,
    /// `double`: IEEE 64-bit.
    Double,
    /// `ubyte`: unsigned 8-bit integer.
    UByte,
    /// `ushort`: unsigned 16-bit integer.
    UShort,
    /// `uint`: unsigned 32-bit integer.
    UInt,
    /// `int64`: signed 64-bit integer.
    Int64,
    /// `uint64`: unsigned 64-bit integer.
    UInt64,
    /// `string`: variable-length text (fixed-length in NCZarr storage).
    String,
}

impl NcType {
    /// The integer type of `bytes` bytes, signed or not; `None` for other sizes.
    pub fn integer(bytes: usize, signed: bool) -> Option<NcType> {
        Some(match (bytes, signed) {
            (1, true) => NcType::Byte,
            (1, false) => NcType::UByte,
            (2, true) => NcType::Short,
            (2, false) => NcType::UShort,
            (4, true) => NcType::Int,
            (4, false) => NcType::UInt,
            (8, true) => NcType::Int64,
            (8, false) => NcType::UInt64,
            _ => return None,
        })
    }

    /// All twelve types in netCDF type-id order (`NC_BYTE` = 1 ... `NC_STRING` = 12).
    pub const ALL: [NcType; 12] = [
        NcType::Byte,
        NcType::Char,
        NcType::Short,
        NcType::Int,
        NcType::Float,
        NcType::Double,
        NcType::UByte,
        NcType::UShort,
        NcType::UInt,
        NcType::Int64,
        NcType::UInt64,
        NcType::String,
    ];

    /// One of the six types of netCDF's classic model (byte, char, short, int, float,
    /// double).
    pub fn is_classic(self) -> bool {
        matches!(
            self,
            NcType::Byte
                | NcType::Char
                | NcType::Short
                | NcType::Int
                | NcType::Float
                | NcType::Double
        )
    }

    /// The CDL keyword for the type.
    pub fn cdl_name(self) -> &'static str {
        match self {
            NcType::Byte => "byte",
            NcType::Char => "char",
            NcType::Short => "short",
            NcType::Int => "int",
            NcType::Float => "float",
            NcType::Double => "double",
            NcType::UByte => "ubyte",
            NcType::UShort => "ushort",
            NcType::UInt => "uint",
            NcType::Int64 => "int64",
            NcType::UInt64 => "uint64",
            NcType::String => "string",
        }
    }

    /// Size in bytes of one element in memory (1 for char; strings have no fixed size and report 0).
    pub fn size(self) -> usize {
        match self {
            NcType::Byte | NcType::Char | NcType::UByte => 1,
            NcType::Short | NcType::UShort => 2,
            NcType::Int | NcType::UInt | NcType::Float => 4,
            NcType::Double | NcType::Int64 | NcType::UInt64 => 8,
            NcType::String => 0,
        }
    }

    /// The type with netCDF type id `id` (1..=12), as netCDF's NCZarr V1 `.nczattr` stores it.
    pub fn from_id(id: i64) -> Option<NcType> {
        let index = usize::try_from(id.checked_sub(1)?).ok()?;
        NcType::ALL.get(index).copied()
    }

    /// The type named by a CDL keyword (including ncgen's aliases).
    pub fn from_cdl_name(name: &str) -> Option<NcType> {
        Some(match name {
            "byte" => NcType::Byte,
            "char" => NcType::Char,
            "short" => NcType::Short,
            "int" | "long" | "integer" => NcType::Int,
            "float" | "real" => NcType::Float,
            "double" => NcType::Double,
            "ubyte" => NcType::UByte,
            "ushort" => NcType::UShort,
            "uint" | "ulong" | "uinteger" => NcType::UInt,
            "int64" => NcType::Int64,
            "uint64" => NcType::UInt64,
            "string" => NcType::String,
            _ => return None,
        })
    }

    /// True for the integer and floating-point types.
    pub fn is_numeric(self) -> bool {
        !matches!(self, NcType::Char | NcType::String)
    }

    /// True for the integer types (an enum's possible bases).
    pub fn is_integer(self) -> bool {
        self.is_numeric() && !matches!(self, NcType::Float | NcType::Double)
    }
}

impl fmt::Display for NcType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cdl_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_netcdf_numbering() {
        assert_eq!(NcType::from_id(2), Some(NcType::Char));
        assert_eq!(NcType::from_id(12), Some(NcType::String));
        assert_eq!(NcType::from_id(0), None);
        assert_eq!(NcType::from_id(13), None);
    }

    #[test]
    fn aliases() {
        assert_eq!(NcType::from_cdl_name("real"), Some(NcType::Float));
        assert_eq!(NcType::from_cdl_name("long"), Some(NcType::Int));
        assert_eq!(NcType::from_cdl_name("complex"), None);
    }
}
