//! The syntax tree of a CDL file, as parsed; positions are byte offsets into the text.

use crate::model::NcType;

/// A parsed CDL file.
#[derive(Debug, Clone, PartialEq)]
pub struct CdlFile {
    /// The name after `netcdf` (whitespace removed, as ncgen does).
    pub name: String,
    /// The root group.
    pub root: GroupDecl,
}

/// A group: its declarations in order.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDecl {
    /// Group name (empty for the root).
    pub name: String,
    /// Where the group starts.
    pub pos: usize,
    /// Declarations in source order.
    pub items: Vec<Item>,
    /// Subgroups in source order.
    pub groups: Vec<GroupDecl>,
}

/// One declaration inside a group.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A user-defined type (netCDF-4 only).
    Type(TypeDecl),
    /// A dimension.
    Dim(DimDecl),
    /// A variable.
    Var(VarDecl),
    /// An attribute (global or of a variable).
    Attr(AttrDecl),
    /// Data for a variable.
    Data(DataDecl),
}

/// A user-defined type declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDecl {
    /// The type's name.
    pub name: String,
    /// Where it starts.
    pub pos: usize,
    /// What it is.
    pub body: TypeBody,
}

impl TypeDecl {
    /// `enum`, `compound`, `vlen` or `opaque`.
    pub fn kind(&self) -> &'static str {
        match self.body {
            TypeBody::Enum { .. } => "enum",
            TypeBody::Compound { .. } => "compound",
            TypeBody::Vlen { .. } => "vlen",
            TypeBody::Opaque { .. } => "opaque",
        }
    }
}

/// The body of a user-defined type declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeBody {
    /// `TYPE enum name { member = value, ... }`.
    Enum {
        /// The base (integer) type.
        base: NcType,
        /// Members in order: name, value, where.
        members: Vec<(String, i128, usize)>,
    },
    /// `compound name { TYPE field(dims), ... ; ... }`.
    Compound {
        /// Fields in order.
        fields: Vec<FieldDecl>,
    },
    /// `TYPE(*) name`.
    Vlen {
        /// The elements' type.
        base: TypeRef,
    },
    /// `opaque(size) name`.
    Opaque {
        /// Bytes per value.
        size: u64,
    },
}

/// A field of a compound type.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDecl {
    /// Its type.
    pub typ: TypeRef,
    /// Its name.
    pub name: String,
    /// Array dimensions (constants; empty for one element).
    pub dims: Vec<u64>,
    /// Where it starts.
    pub pos: usize,
}

/// `name = size` or `name = UNLIMITED`.
#[derive(Debug, Clone, PartialEq)]
pub struct DimDecl {
    /// Dimension name.
    pub name: String,
    /// Length; `None` for UNLIMITED.
    pub size: Option<u64>,
    /// Where it starts.
    pub pos: usize,
}

/// A name, or an absolute path `/g/sub/name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ref {
    /// Group names for an absolute path (`None` for a plain name).
    pub groups: Option<Vec<String>>,
    /// The last name.
    pub name: String,
    /// Where it starts.
    pub pos: usize,
}

/// A type named in a declaration: atomic, or a user-defined type's name.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeRef {
    /// An atomic type keyword.
    Atomic(NcType),
    /// A name (a user-defined type).
    Named(Ref),
}

/// `type name(dim, ...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct VarDecl {
    /// The element type.
    pub typ: TypeRef,
    /// Variable name.
    pub name: String,
    /// Dimension references.
    pub dims: Vec<Ref>,
    /// Where it starts.
    pub pos: usize,
}

/// An attribute declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct AttrDecl {
    /// An explicit type (`string v:a = ...`).
    pub typ: Option<TypeRef>,
    /// The variable (`None` for a global/group attribute).
    pub var: Option<Ref>,
    /// Attribute name.
    pub name: String,
    /// The values.
    pub values: Vec<Datum>,
    /// Where it starts.
    pub pos: usize,
    /// Where the attribute name is.
    pub name_pos: usize,
}

/// `var = values ;` in the data section.
#[derive(Debug, Clone, PartialEq)]
pub struct DataDecl {
    /// The variable.
    pub var: Ref,
    /// The values.
    pub values: Vec<Datum>,
    /// Where it starts.
    pub pos: usize,
    /// Where its data list starts (just after the `=`): how a list the streaming
    /// compiler cut out of the text (`generate`) is found again.
    pub list_pos: usize,
}

/// An integer constant's value. CDL integers span `i64::MIN..=u64::MAX`; kept as two
/// 8-byte halves rather than an `i128` (16-byte aligned), which would make every datum
/// of a data section twice as large.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wide {
    hi: i64,
    lo: u64,
}

impl Wide {
    /// Hold `v`.
    pub fn new(v: i128) -> Wide {
        Wide {
            hi: (v >> 64) as i64,
            lo: v as u64,
        }
    }

    /// The value.
    pub fn get(self) -> i128 {
        (i128::from(self.hi) << 64) | i128::from(self.lo)
    }
}

/// One item of a data list.
#[derive(Debug, Clone, PartialEq)]
pub struct Datum {
    /// What it is.
    pub value: Value,
    /// Where it is.
    pub pos: usize,
}

/// A constant, a fill marker, or a braced sub-list.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer with the type its tag (or its size) gives it.
    Int {
        /// The value.
        value: Wide,
        /// Its type.
        typ: NcType,
    },
    /// A `float` constant (`1.5f`, `NaNf`).
    Float(f32),
    /// A `double` constant (`1.5`, `1e3`, `NaN`).
    Double(f64),
    /// A single-quoted character constant: a byte.
    Char(u8),
    /// A double-quoted string, escapes removed.
    Text(Vec<u8>),
    /// `0x...`: an opaque constant (hex digits).
    Opaque(String),
    /// `_`: the fill value.
    Fill,
    /// `NIL`: a null string.
    Nil,
    /// An identifier (an enum constant in netCDF-4 CDL).
    Ident(Box<Ref>),
    /// `name(args)`: a function call.
    Call(Box<(String, Vec<Datum>)>),
    /// `{ ... }`.
    List(Vec<Datum>),
    /// Consecutive items of the enclosing list, kept together as they were parsed (a
    /// large list is parsed in pieces, in parallel, and not copied into one). Not a
    /// brace level: [`items`] yields its items in its place.
    Run(Vec<Datum>),
}

/// The items of a list, with [`Value::Run`]s replaced by their items.
pub fn items(list: &[Datum]) -> impl Iterator<Item = &Datum> {
    list.iter().flat_map(|d| match &d.value {
        Value::Run(inner) => inner.as_slice(),
        _ => std::slice::from_ref(d),
    })
}

/// How many items [`items`] yields.
pub fn item_count(list: &[Datum]) -> usize {
    list.iter()
        .map(|d| match &d.value {
            Value::Run(inner) => inner.len(),
            _ => 1,
        })
        .sum()
}
