//! DAP2's Dataset Descriptor Structure: the variables a server offers, their types and
//! shapes, parsed from the text `URL.dds` answers (and that starts a `.dods` answer).

use super::lex::{shown, tokens, Cursor, Tok};

/// DAP2's base types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DapType {
    /// Unsigned 8-bit.
    Byte,
    /// Signed 16-bit.
    Int16,
    /// Unsigned 16-bit.
    UInt16,
    /// Signed 32-bit.
    Int32,
    /// Unsigned 32-bit.
    UInt32,
    /// IEEE 32-bit.
    Float32,
    /// IEEE 64-bit.
    Float64,
    /// Text of any length.
    String,
    /// A URL: text.
    Url,
}

impl DapType {
    /// The type a DDS or DAS word names, in any case.
    pub fn parse(word: &str) -> Option<DapType> {
        Some(match word.to_ascii_lowercase().as_str() {
            "byte" => DapType::Byte,
            "int16" => DapType::Int16,
            "uint16" => DapType::UInt16,
            "int32" => DapType::Int32,
            "uint32" => DapType::UInt32,
            "float32" => DapType::Float32,
            "float64" => DapType::Float64,
            "string" => DapType::String,
            "url" => DapType::Url,
            _ => return None,
        })
    }

    /// True for String and Url.
    pub fn is_text(self) -> bool {
        matches!(self, DapType::String | DapType::Url)
    }
}

/// One dimension of an array: `[name = 3]` or `[3]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimDecl {
    /// The name, when the DDS gives one.
    pub name: Option<String>,
    /// The length.
    pub size: u64,
}

/// A declaration in a DDS.
#[derive(Debug, Clone, PartialEq)]
pub enum Decl {
    /// A scalar or an array of a base type.
    Base {
        /// Its type.
        ty: DapType,
        /// Its name (DAP's `%XX` escapes kept).
        name: String,
        /// Its dimensions (none for a scalar).
        dims: Vec<DimDecl>,
    },
    /// A structure (possibly an array of them).
    Structure {
        /// Its name.
        name: String,
        /// Its fields.
        fields: Vec<Decl>,
        /// Its dimensions.
        dims: Vec<DimDecl>,
    },
    /// A sequence: rows of its fields, their number unknown.
    Sequence {
        /// Its name.
        name: String,
        /// The fields of each row.
        fields: Vec<Decl>,
    },
    /// A grid: an array and one map vector per dimension.
    Grid {
        /// Its name.
        name: String,
        /// The array (a `Base`).
        array: Box<Decl>,
        /// The maps (`Base` vectors).
        maps: Vec<Decl>,
    },
}

impl Decl {
    /// The declaration's name.
    pub fn name(&self) -> &str {
        match self {
            Decl::Base { name, .. }
            | Decl::Structure { name, .. }
            | Decl::Sequence { name, .. }
            | Decl::Grid { name, .. } => name,
        }
    }
}

/// A parsed DDS.
#[derive(Debug, Clone, PartialEq)]
pub struct Dds {
    /// The dataset's name (after the closing brace).
    pub name: String,
    /// Its variables, in order.
    pub decls: Vec<Decl>,
}

/// Containers (structures, sequences, grids) nested deeper than this are damage: a
/// parser that followed them would run out of stack.
pub const MAX_DEPTH: usize = 64;

/// Parse a DDS. The error is the line and what is wrong there.
///
/// # Errors
/// A text that is not a DDS: the line and what was found.
pub fn parse(text: &str) -> Result<Dds, (usize, String)> {
    let mut c = Cursor::new(tokens(text)?);
    let line = c.line();
    match c.next() {
        Some(Tok::Word(w)) if w.eq_ignore_ascii_case("dataset") => {}
        other => {
            return Err((
                line,
                format!("expected 'Dataset', found {}", shown(other.as_ref())),
            ))
        }
    }
    c.expect('{')?;
    let decls = declarations(&mut c, 0)?;
    c.expect('}')?;
    // The dataset's name may be missing in some servers' answers.
    let name = match c.peek() {
        Some(Tok::Word(_)) => c.word("the dataset's name")?,
        _ => String::new(),
    };
    c.eat(';');
    if !c.at_end() {
        let line = c.line();
        return Err((
            line,
            format!("unexpected {} after the dataset", shown(c.peek())),
        ));
    }
    Ok(Dds { name, decls })
}

fn declarations(c: &mut Cursor, depth: usize) -> Result<Vec<Decl>, (usize, String)> {
    let mut out = Vec::new();
    while matches!(c.peek(), Some(Tok::Word(_))) {
        out.push(declaration(c, depth)?);
    }
    Ok(out)
}

fn declaration(c: &mut Cursor, depth: usize) -> Result<Decl, (usize, String)> {
    let line = c.line();
    if depth > MAX_DEPTH {
        return Err((
            line,
            format!("containers nested more than {MAX_DEPTH} deep"),
        ));
    }
    let kw = c.word("a type")?;
    let lower = kw.to_ascii_lowercase();
    let decl = match lower.as_str() {
        "structure" | "sequence" => {
            c.expect('{')?;
            let fields = declarations(c, depth + 1)?;
            c.expect('}')?;
            let name = c.word("a name")?;
            let dims = dims(c)?;
            if lower == "sequence" {
                Decl::Sequence { name, fields }
            } else {
                Decl::Structure { name, fields, dims }
            }
        }
        "grid" => {
            c.expect('{')?;
            section(c, "array")?;
            let array = declaration(c, depth + 1)?;
            section(c, "maps")?;
            let maps = declarations(c, depth + 1)?;
            c.expect('}')?;
            let name = c.word("a name")?;
            if !matches!(array, Decl::Base { .. })
                || maps.iter().any(|m| !matches!(m, Decl::Base { .. }))
            {
                return Err((
                    line,
                    format!("grid '{name}': its array and maps must be of base types"),
                ));
            }
            Decl::Grid {
                name,
                array: Box::new(array),
                maps,
            }
        }
        _ => {
            let ty =
                DapType::parse(&kw).ok_or_else(|| (line, format!("'{kw}' is not a DAP2 type")))?;
            let name = c.word("a name")?;
            let dims = dims(c)?;
            Decl::Base { ty, name, dims }
        }
    };
    c.expect(';')?;
    Ok(decl)
}

/// `Array:` or `Maps:` inside a grid (the colon after the word).
fn section(c: &mut Cursor, which: &str) -> Result<(), (usize, String)> {
    let line = c.line();
    let w = c.word(&format!("'{which}:'"))?;
    if !w.eq_ignore_ascii_case(which) {
        return Err((line, format!("expected '{which}:', found '{w}'")));
    }
    c.expect(':')
}

fn dims(c: &mut Cursor) -> Result<Vec<DimDecl>, (usize, String)> {
    let mut out = Vec::new();
    while c.eat('[') {
        let line = c.line();
        let first = c.word("a dimension")?;
        let (name, size) = if c.eat('=') {
            (Some(first), c.word("a dimension's size")?)
        } else {
            (None, first)
        };
        let size = size
            .parse::<u64>()
            .map_err(|_| (line, format!("'{size}' is not a dimension's size")))?;
        c.expect(']')?;
        out.push(DimDecl { name, size });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_grid_structure_sequence() {
        let dds = parse(
            "Dataset {\n  Float32 tas[time = 2][lat = 3];\n  Int16 x[4];\n  Float64 s;\n  Grid {\n   ARRAY:\n    Int32 g[y = 2][x = 2];\n   MAPS:\n    Float64 y[y = 2];\n    Float64 x[x = 2];\n  } g;\n  Structure { Int32 a; String b; } st;\n  Sequence { Int32 a; } seq;\n} t1%2Enc;",
        )
        .unwrap();
        assert_eq!(dds.name, "t1%2Enc");
        assert_eq!(dds.decls.len(), 6);
        assert_eq!(
            dds.decls[1],
            Decl::Base {
                ty: DapType::Int16,
                name: "x".into(),
                dims: vec![DimDecl {
                    name: None,
                    size: 4
                }]
            }
        );
        assert!(matches!(&dds.decls[3], Decl::Grid { maps, .. } if maps.len() == 2));
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("Dataset {\n Int33 x;\n} d;").unwrap_err();
        assert_eq!(e.0, 2);
        assert!(e.1.contains("Int33"));
        assert!(parse("<html>").is_err());
        assert!(parse("Dataset { Int32 x[a = -1]; } d;").is_err());
        let deep = format!(
            "Dataset {{ {} Int32 x; {} }} d;",
            "Structure {".repeat(100_000),
            "} s;".repeat(100_000)
        );
        assert!(parse(&deep).unwrap_err().1.contains("nested"));
    }
}
