//! DAP4's DMR: the dataset's description in XML (groups, shared dimensions,
//! enumerations, variables with their dimensions and maps, attributes), parsed into
//! what the view and the data walk need. Names are kept as written; fully qualified
//! names (`/g/dim`) are split with DAP4's `\` escapes honoured.

use super::xml::{self, Element};

/// DAP4's atomic types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Atomic {
    /// `Char`: one byte of text.
    Char,
    /// `Int8`.
    Int8,
    /// `Byte` and `UInt8`.
    UInt8,
    /// `Int16`.
    Int16,
    /// `UInt16`.
    UInt16,
    /// `Int32`.
    Int32,
    /// `UInt32`.
    UInt32,
    /// `Int64`.
    Int64,
    /// `UInt64`.
    UInt64,
    /// `Float32`.
    Float32,
    /// `Float64`.
    Float64,
    /// `String`.
    String,
    /// `URL` (a string).
    Url,
}

impl Atomic {
    /// The type named `name` in a DMR (an element or a `type=`/`basetype=` value).
    pub fn from_name(name: &str) -> Option<Atomic> {
        Some(match name {
            "Char" => Atomic::Char,
            "Int8" => Atomic::Int8,
            "Byte" | "UInt8" => Atomic::UInt8,
            "Int16" => Atomic::Int16,
            "UInt16" => Atomic::UInt16,
            "Int32" => Atomic::Int32,
            "UInt32" => Atomic::UInt32,
            "Int64" => Atomic::Int64,
            "UInt64" => Atomic::UInt64,
            "Float32" => Atomic::Float32,
            "Float64" => Atomic::Float64,
            "String" => Atomic::String,
            "URL" => Atomic::Url,
            _ => return None,
        })
    }

    /// Bytes per value in the data response; None for strings (counted).
    pub fn size(self) -> Option<usize> {
        Some(match self {
            Atomic::Char | Atomic::Int8 | Atomic::UInt8 => 1,
            Atomic::Int16 | Atomic::UInt16 => 2,
            Atomic::Int32 | Atomic::UInt32 | Atomic::Float32 => 4,
            Atomic::Int64 | Atomic::UInt64 | Atomic::Float64 => 8,
            Atomic::String | Atomic::Url => return None,
        })
    }

    /// The netCDF type it is shown as.
    pub fn nc_type(self) -> crate::model::NcType {
        use crate::model::NcType as T;
        match self {
            Atomic::Char => T::Char,
            Atomic::Int8 => T::Byte,
            Atomic::UInt8 => T::UByte,
            Atomic::Int16 => T::Short,
            Atomic::UInt16 => T::UShort,
            Atomic::Int32 => T::Int,
            Atomic::UInt32 => T::UInt,
            Atomic::Int64 => T::Int64,
            Atomic::UInt64 => T::UInt64,
            Atomic::Float32 => T::Float,
            Atomic::Float64 => T::Double,
            Atomic::String | Atomic::Url => T::String,
        }
    }
}

/// A variable's type.
#[derive(Debug, Clone, PartialEq)]
pub enum VarType {
    /// An atomic type.
    Atomic(Atomic),
    /// An enumeration, by its fully qualified name.
    Enum(String),
    /// A field's enumeration, resolved to its base type (what the data walk sizes;
    /// its values read as the enumeration's).
    EnumBase(Atomic),
    /// Bytes of any length per value.
    Opaque,
    /// A record of fields.
    Structure(Vec<Var>),
    /// Rows of fields, as many as the data says.
    Sequence(Vec<Var>),
}

/// A dimension of a variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DimUse {
    /// A shared dimension, by its fully qualified name.
    Named(String),
    /// An anonymous one: only its size.
    Anonymous(u64),
}

/// An attribute: its type name as written, its values as text, or the attributes it
/// contains (`Container`).
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    /// Its name.
    pub name: String,
    /// The type as written (`Int32`, `String`, `Container`, an enum's name...).
    pub ty: String,
    /// Its values as text.
    pub values: Vec<String>,
    /// The attributes inside a container.
    pub children: Vec<Attr>,
}

/// A variable (or a field of a structure or sequence).
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: VarType,
    /// Dimensions, outermost first.
    pub dims: Vec<DimUse>,
    /// Maps (coordinate variables), by fully qualified name.
    pub maps: Vec<String>,
    /// Attributes in order.
    pub attrs: Vec<Attr>,
    /// An opaque's declared size (netcdf-c's server: `_edu.ucar.opaque.size`).
    pub opaque_size: Option<u64>,
}

/// A shared dimension's declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimDecl {
    /// Its name.
    pub name: String,
    /// Its size.
    pub size: u64,
    /// netcdf-c's server marks a record dimension (`_edu.ucar.isunlimited="1"`).
    pub unlimited: bool,
}

/// An enumeration type.
#[derive(Debug, Clone, PartialEq)]
pub struct Enum {
    /// Its name.
    pub name: String,
    /// Its integer base type.
    pub base: Atomic,
    /// Its constants in order.
    pub consts: Vec<(String, i128)>,
}

/// A group (the dataset is the root group).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    /// Its name (the dataset's name for the root).
    pub name: String,
    /// Shared dimensions.
    pub dims: Vec<DimDecl>,
    /// Enumerations.
    pub enums: Vec<Enum>,
    /// Variables in order.
    pub vars: Vec<Var>,
    /// Attributes.
    pub attrs: Vec<Attr>,
    /// Subgroups.
    pub groups: Vec<Group>,
}

/// A fully qualified name split into its parts, `\` escapes undone; a leading `/`
/// (the root) is implied.
pub fn split_fqn(fqn: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = fqn.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '/' => {
                if !cur.is_empty() || !parts.is_empty() {
                    parts.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

type Fail = (usize, String);

fn need<'a>(el: &'a Element, key: &str) -> Result<&'a str, Fail> {
    el.attr(key)
        .ok_or_else(|| (el.line, format!("<{}> has no {key}=", el.name)))
}

fn attr(el: &Element) -> Result<Attr, Fail> {
    let name = need(el, "name")?.to_string();
    let ty = el.attr("type").unwrap_or("String").to_string();
    let mut values = Vec::new();
    let mut children = Vec::new();
    if let Some(v) = el.attr("value") {
        values.push(v.to_string());
    }
    for c in &el.children {
        match c.name.as_str() {
            "Value" => values.push(
                c.attr("value")
                    .map_or_else(|| c.text.clone(), str::to_string),
            ),
            "Attribute" => children.push(attr(c)?),
            // Other XML and anything a server adds is not an attribute's value.
            _ => {}
        }
    }
    Ok(Attr {
        name,
        ty,
        values,
        children,
    })
}

fn var(el: &Element) -> Result<Option<Var>, Fail> {
    let ty = match el.name.as_str() {
        "Enum" => VarType::Enum(need(el, "enum")?.to_string()),
        "Opaque" => VarType::Opaque,
        "Structure" | "Sequence" => {
            let mut fields = Vec::new();
            for c in &el.children {
                if let Some(f) = var(c)? {
                    fields.push(f);
                }
            }
            if el.name == "Structure" {
                VarType::Structure(fields)
            } else {
                VarType::Sequence(fields)
            }
        }
        n => match Atomic::from_name(n) {
            Some(a) => VarType::Atomic(a),
            None => return Ok(None),
        },
    };
    let mut v = Var {
        name: need(el, "name")?.to_string(),
        ty,
        dims: Vec::new(),
        maps: Vec::new(),
        attrs: Vec::new(),
        opaque_size: el
            .attr("_edu.ucar.opaque.size")
            .and_then(|s| s.trim().parse().ok()),
    };
    for c in &el.children {
        match c.name.as_str() {
            "Dim" => v.dims.push(match (c.attr("name"), c.attr("size")) {
                (Some(n), _) => DimUse::Named(n.to_string()),
                (None, Some(s)) => DimUse::Anonymous(
                    s.trim()
                        .parse()
                        .map_err(|_| (c.line, format!("<Dim size=\"{s}\">: not a size")))?,
                ),
                (None, None) => return Err((c.line, "<Dim> with neither name= nor size=".into())),
            }),
            "Map" => v.maps.push(need(c, "name")?.to_string()),
            "Attribute" => v.attrs.push(attr(c)?),
            _ => {}
        }
    }
    Ok(Some(v))
}

fn group(el: &Element) -> Result<Group, Fail> {
    let mut g = Group {
        name: need(el, "name")?.to_string(),
        ..Group::default()
    };
    for c in &el.children {
        match c.name.as_str() {
            "Dimension" => {
                let size = need(c, "size")?;
                let size = size
                    .trim()
                    .parse()
                    .map_err(|_| (c.line, format!("dimension size \"{size}\" is not a number")))?;
                g.dims.push(DimDecl {
                    name: need(c, "name")?.to_string(),
                    size,
                    unlimited: c
                        .attr("_edu.ucar.isunlimited")
                        .is_some_and(|u| u.trim() != "0"),
                });
            }
            "Enumeration" => {
                let base = need(c, "basetype")?;
                let base = Atomic::from_name(base)
                    .filter(|a| {
                        a.size().is_some()
                            && !matches!(a, Atomic::Char | Atomic::Float32 | Atomic::Float64)
                    })
                    .ok_or_else(|| {
                        (
                            c.line,
                            format!("enumeration base type \"{base}\" is not an integer type"),
                        )
                    })?;
                let mut consts = Vec::new();
                for k in c.children.iter().filter(|k| k.name == "EnumConst") {
                    let value = need(k, "value")?;
                    let n = value.trim().parse().map_err(|_| {
                        (
                            k.line,
                            format!("enum constant value \"{value}\" is not an integer"),
                        )
                    })?;
                    consts.push((need(k, "name")?.to_string(), n));
                }
                g.enums.push(Enum {
                    name: need(c, "name")?.to_string(),
                    base,
                    consts,
                });
            }
            "Group" => g.groups.push(group(c)?),
            "Attribute" => g.attrs.push(attr(c)?),
            _ => {
                if let Some(v) = var(c)? {
                    g.vars.push(v);
                }
            }
        }
    }
    Ok(g)
}

/// The dataset described by the DMR `text`, as its root group.
///
/// # Errors
/// The line and what is wrong: XML that does not parse, a root that is not a
/// `<Dataset>` (a DAP4 `<Error>` document's message is said), a dimension or
/// enumeration without what it needs.
pub fn parse(text: &str) -> Result<Group, Fail> {
    let root = xml::parse(text)?;
    match root.name.as_str() {
        "Dataset" => group(&root),
        "Error" => {
            let said = root
                .children
                .iter()
                .find(|c| c.name == "Message")
                .map_or_else(
                    || root.text.trim().to_string(),
                    |m| m.text.trim().to_string(),
                );
            Err((root.line, format!("the server's error: {said}")))
        }
        other => Err((
            root.line,
            format!("<{other}> where a DMR's <Dataset> was expected"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dmr_parsed() {
        let t = r#"<?xml version="1.0" encoding="UTF-8"?>
<Dataset name="x.nc" dapVersion="4.0" dmrVersion="1.0" xmlns="http://xml.opendap.org/ns/DAP/4.0#">
  <Dimension name="d2" size="2"/>
  <Enumeration name="e_t" basetype="Int8"><EnumConst name="A" value="0"/><EnumConst name="B" value="-1"/></Enumeration>
  <Int32 name="v"><Dim name="/d2"/><Dim size="3"/><Map name="/lat"/>
    <Attribute name="units" type="String"><Value>m</Value></Attribute>
    <Attribute name="c" type="Container"><Attribute name="n" type="Int16" value="3"/></Attribute>
  </Int32>
  <Enum name="e" enum="/e_t"/>
  <Structure name="s"><Float64 name="f"/><Dim name="/d2"/></Structure>
  <Group name="g"><Dimension name="d3" size="3"/><String name="t"/></Group>
</Dataset>"#;
        let g = parse(t).unwrap();
        assert_eq!(g.name, "x.nc");
        assert_eq!(g.dims[0].name, "d2");
        assert_eq!(g.dims[0].size, 2);
        assert_eq!(
            g.enums[0].consts,
            vec![("A".to_string(), 0), ("B".to_string(), -1)]
        );
        let v = &g.vars[0];
        assert_eq!(
            v.dims,
            vec![DimUse::Named("/d2".into()), DimUse::Anonymous(3)]
        );
        assert_eq!(v.maps, vec!["/lat".to_string()]);
        assert_eq!(v.attrs[0].values, vec!["m".to_string()]);
        assert_eq!(v.attrs[1].children[0].values, vec!["3".to_string()]);
        assert_eq!(g.vars[1].ty, VarType::Enum("/e_t".into()));
        assert!(matches!(&g.vars[2].ty, VarType::Structure(f) if f.len() == 1));
        assert_eq!(g.vars[2].dims.len(), 1);
        assert_eq!(g.groups[0].vars[0].ty, VarType::Atomic(Atomic::String));
    }

    #[test]
    fn names_split_with_escapes() {
        assert_eq!(split_fqn("/g/h/d"), vec!["g", "h", "d"]);
        assert_eq!(split_fqn("/a\\/b"), vec!["a/b"]);
        assert_eq!(split_fqn("d"), vec!["d"]);
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            parse("<Dataset name=\"a\">\n<Dimension name=\"d\" size=\"x\"/>\n</Dataset>")
                .unwrap_err()
                .0,
            2
        );
        let e =
            parse("<Error httpcode=\"404\"><Message>No such file</Message></Error>").unwrap_err();
        assert!(e.1.contains("No such file"));
        assert!(parse("<html/>").is_err());
    }
}
