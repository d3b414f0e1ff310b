//! The vocabulary of netCDF-4's user-defined types: where one is defined ([`TypeId`]),
//! what it is ([`UserKind`]), and its values ([`UValue`]). The dataset's groups hold
//! them; what is done with them (fill values, views without them) is [`super::user`].

use super::{NcType, Values};

/// Where a user-defined type is defined: its group (names from the root) and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeId {
    /// Names of the groups from the root down to the type's group.
    pub group: Vec<String>,
    /// The type's name.
    pub name: String,
}

impl std::fmt::Display for TypeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        super::path::fmt_in_group(f, &self.group, &self.name)
    }
}

/// The type of a compound field or of a vlen's elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeRef {
    /// One of the atomic types.
    Atomic(NcType),
    /// A user-defined type.
    User(TypeId),
}

/// A field of a compound type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Byte offset in the compound's storage.
    pub offset: u64,
    /// Element type.
    pub ty: TypeRef,
    /// Array dimensions of the field (empty for one element).
    pub dims: Vec<u64>,
}

/// What a user-defined type is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserKind {
    /// A record of named fields.
    Compound {
        /// Bytes per value.
        size: u64,
        /// Fields in order.
        fields: Vec<Field>,
    },
    /// Named values of an integer base type.
    Enum {
        /// The base type (an integer type).
        base: NcType,
        /// Members in order: name and value.
        members: Vec<(String, i128)>,
    },
    /// Bytes of a fixed size.
    Opaque {
        /// Bytes per value.
        size: u64,
    },
    /// Lists of any length of one base type.
    Vlen {
        /// The elements' type.
        base: TypeRef,
    },
}

impl UserKind {
    /// `compound`, `enum`, `opaque` or `vlen`, for messages.
    pub fn class(&self) -> &'static str {
        match self {
            UserKind::Compound { .. } => "compound",
            UserKind::Enum { .. } => "enum",
            UserKind::Opaque { .. } => "opaque",
            UserKind::Vlen { .. } => "vlen",
        }
    }
}

/// A user-defined type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserType {
    /// Type name.
    pub name: String,
    /// What it is.
    pub kind: UserKind,
}

/// One value of a user-defined type, or of an atomic type inside one.
#[derive(Debug, Clone, PartialEq)]
pub enum UValue {
    /// One atomic value (a vector of one).
    Atomic(Values),
    /// A compound's field values in order (a field with dimensions is an `Array`).
    Compound(Vec<UValue>),
    /// The elements of a compound field with dimensions, in C order.
    Array(Vec<UValue>),
    /// An enum's value.
    Enum(i128),
    /// An opaque value's bytes.
    Opaque(Vec<u8>),
    /// A vlen's elements.
    Vlen(Vec<UValue>),
}

/// The values of an attribute of a user-defined type.
#[derive(Debug, Clone, PartialEq)]
pub struct UserAttr {
    /// The attribute's type.
    pub ty: TypeId,
    /// Its values.
    pub values: Vec<UValue>,
}
