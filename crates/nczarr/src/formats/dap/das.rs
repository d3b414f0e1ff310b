//! DAP2's Dataset Attribute Structure: the attributes of the dataset and of each
//! variable, parsed from the text `URL.das` answers. Values are kept as the server
//! wrote them; their netCDF types are decided where the dataset is built (`view`).

use super::dds::DapType;
use super::lex::{shown, tokens, Cursor, Tok};

/// One attribute: its DAP type, name and values as written (strings unquoted).
#[derive(Debug, Clone, PartialEq)]
pub struct DasAttr {
    /// Its type.
    pub ty: DapType,
    /// Its name.
    pub name: String,
    /// Its values, in order.
    pub values: Vec<String>,
}

/// An item of a table: an attribute, or a table of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum DasItem {
    /// An attribute.
    Attr(DasAttr),
    /// A nested table (a variable's attributes, or a container).
    Table(DasTable),
}

/// A named table of attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct DasTable {
    /// Its name.
    pub name: String,
    /// What it holds, in order.
    pub items: Vec<DasItem>,
}

/// Parse a DAS: the items inside `Attributes { ... }`.
///
/// # Errors
/// A text that is not a DAS: the line and what was found.
pub fn parse(text: &str) -> Result<Vec<DasItem>, (usize, String)> {
    let mut c = Cursor::new(tokens(text)?);
    let line = c.line();
    match c.next() {
        Some(Tok::Word(w)) if w.eq_ignore_ascii_case("attributes") => {}
        other => {
            return Err((
                line,
                format!("expected 'Attributes', found {}", shown(other.as_ref())),
            ))
        }
    }
    c.expect('{')?;
    let items = items(&mut c, 0)?;
    c.expect('}')?;
    if !c.at_end() {
        let line = c.line();
        return Err((
            line,
            format!("unexpected {} after the attributes", shown(c.peek())),
        ));
    }
    Ok(items)
}

fn items(c: &mut Cursor, depth: usize) -> Result<Vec<DasItem>, (usize, String)> {
    let mut out = Vec::new();
    loop {
        match (c.peek(), c.peek2()) {
            (Some(Tok::Word(_)), Some(Tok::Punct('{'))) => {
                if depth >= super::dds::MAX_DEPTH {
                    let line = c.line();
                    return Err((
                        line,
                        format!("tables nested more than {} deep", super::dds::MAX_DEPTH),
                    ));
                }
                let name = c.word("a name")?;
                c.expect('{')?;
                let inner = items(c, depth + 1)?;
                c.expect('}')?;
                out.push(DasItem::Table(DasTable { name, items: inner }));
            }
            (Some(Tok::Word(w)), _) if w.eq_ignore_ascii_case("alias") => {
                // `Alias new old;`: another name for an attribute; not part of
                // netCDF's model, skipped as netcdf-c does.
                while let Some(t) = c.next() {
                    if t == Tok::Punct(';') {
                        break;
                    }
                }
            }
            (Some(Tok::Word(_)), _) => out.push(DasItem::Attr(attribute(c)?)),
            _ => return Ok(out),
        }
    }
}

fn attribute(c: &mut Cursor) -> Result<DasAttr, (usize, String)> {
    let line = c.line();
    let ty_word = c.word("a type")?;
    let ty = DapType::parse(&ty_word)
        .ok_or_else(|| (line, format!("'{ty_word}' is not a DAP2 attribute type")))?;
    let name = match c.next() {
        Some(Tok::Word(w) | Tok::Quoted(w)) => w,
        other => {
            return Err((
                line,
                format!(
                    "expected an attribute's name, found {}",
                    shown(other.as_ref())
                ),
            ))
        }
    };
    let mut values = Vec::new();
    loop {
        let line = c.line();
        match c.next() {
            Some(Tok::Word(w) | Tok::Quoted(w)) => values.push(w),
            other => {
                return Err((
                    line,
                    format!(
                        "attribute '{name}': expected a value, found {}",
                        shown(other.as_ref())
                    ),
                ))
            }
        }
        if c.eat(';') {
            return Ok(DasAttr { ty, name, values });
        }
        let line = c.line();
        if !c.eat(',') {
            return Err((
                line,
                format!(
                    "attribute '{name}': expected ',' or ';', found {}",
                    shown(c.peek())
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_attributes_and_values() {
        let das = parse(
            "Attributes {\n dimensions { Int32 time 2; }\n Int32 n 5;\n tas {\n  Float32 _FillValue -999;\n  String units \"K\", \"a \\\"b\\\"\";\n }\n NC_GLOBAL { Alias x y; }\n}",
        )
        .unwrap();
        assert_eq!(das.len(), 4);
        let DasItem::Table(t) = &das[2] else { panic!() };
        assert_eq!(t.name, "tas");
        let DasItem::Attr(a) = &t.items[1] else {
            panic!()
        };
        // Backslashes are kept: what they mean is decided where the text is used.
        assert_eq!(a.values, vec!["K".to_string(), "a \\\"b\\\"".to_string()]);
        let DasItem::Table(g) = &das[3] else { panic!() };
        assert!(g.items.is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("Attributes {\n x {\n  String note \"x\ny\"q\";\n }\n}").unwrap_err();
        assert_eq!(e.0, 4);
        assert!(parse("Error { code = 1; message = \"no\"; }").is_err());
        let deep = format!(
            "Attributes {{ {} }}",
            "a { ".repeat(100_000) + &"} ".repeat(100_000)
        );
        assert!(parse(&deep).unwrap_err().1.contains("nested"));
    }
}
