//! A DMR's XML as a small tree of elements: what the DMR reader walks. quick-xml (in
//! the build already, for object_store's S3 listings) does the parsing; a DMR is a few
//! kilobytes, so a tree costs nothing and keeps the reader a plain walk.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// Elements nested deeper than this are refused: a DMR a server wrote is a few
/// levels deep, and a hostile one must not exhaust the stack of the walk.
pub const MAX_DEPTH: usize = 64;

/// One element: its local name (prefix dropped), attributes in order, child
/// elements and its text (character data directly inside it, entities resolved).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Element {
    /// The name without a namespace prefix (`Dataset`, `Int32`, ...).
    pub name: String,
    /// Attributes as (local name, value).
    pub attrs: Vec<(String, String)>,
    /// Child elements in order.
    pub children: Vec<Element>,
    /// The text directly inside.
    pub text: String,
    /// The 1-based line the element starts on, for messages.
    pub line: usize,
}

impl Element {
    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn local(name: &[u8]) -> String {
    let name = match name.iter().rposition(|&b| b == b':') {
        Some(i) => &name[i + 1..],
        None => name,
    };
    String::from_utf8_lossy(name).into_owned()
}

fn line_of(text: &str, at: u64) -> usize {
    let at = usize::try_from(at).unwrap_or(text.len()).min(text.len());
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn start(e: &BytesStart<'_>, line: usize) -> Result<Element, String> {
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| format!("bad attribute: {err}"))?;
        let key = local(a.key.as_ref());
        // xmlns declarations are no attributes of the DMR's model.
        if key == "xmlns" || a.key.as_ref().starts_with(b"xmlns:") {
            continue;
        }
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| format!("attribute {key}: {err}"))?;
        attrs.push((key, value.into_owned()));
    }
    Ok(Element {
        name: local(e.name().as_ref()),
        attrs,
        children: Vec::new(),
        text: String::new(),
        line,
    })
}

fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => None,
    }
}

/// The root element of `text`, or the line and what is wrong.
///
/// # Errors
/// Malformed XML, elements left open, nesting past [`MAX_DEPTH`], no root element.
pub fn parse(text: &str) -> Result<Element, (usize, String)> {
    let mut reader = Reader::from_str(text);
    let mut open: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let at = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| (line_of(text, reader.error_position()), e.to_string()))?;
        let line = line_of(text, at);
        match event {
            Event::Start(e) => {
                if open.len() >= MAX_DEPTH {
                    return Err((line, format!("elements nested deeper than {MAX_DEPTH}")));
                }
                open.push(start(&e, line).map_err(|m| (line, m))?);
            }
            Event::Empty(e) => {
                let el = start(&e, line).map_err(|m| (line, m))?;
                match open.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None if root.is_none() => root = Some(el),
                    None => return Err((line, "a second root element".into())),
                }
            }
            Event::End(_) => {
                let Some(el) = open.pop() else {
                    return Err((line, "a closing tag with nothing open".into()));
                };
                match open.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None if root.is_none() => root = Some(el),
                    None => return Err((line, "a second root element".into())),
                }
            }
            Event::Text(t) => {
                if let Some(el) = open.last_mut() {
                    let s = t.decode().map_err(|e| (line, e.to_string()))?;
                    el.text.push_str(&s);
                }
            }
            Event::CData(t) => {
                if let Some(el) = open.last_mut() {
                    el.text.push_str(&String::from_utf8_lossy(&t.into_inner()));
                }
            }
            Event::GeneralRef(r) => {
                let c = if r.is_char_ref() {
                    r.resolve_char_ref().ok().flatten()
                } else {
                    r.decode().ok().and_then(|n| entity(&n))
                };
                let Some(c) = c else {
                    let name = r.decode().map(|n| n.into_owned()).unwrap_or_default();
                    return Err((line, format!("unknown entity &{name};")));
                };
                if let Some(el) = open.last_mut() {
                    el.text.push(c);
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
    if let Some(el) = open.last() {
        return Err((
            line_of(text, reader.buffer_position()),
            format!("<{}> is not closed", el.name),
        ));
    }
    root.ok_or_else(|| (1, "no XML element".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_with_entities_and_prefixes() {
        let t = "<?xml version=\"1.0\"?>\n<Dataset xmlns=\"x\" name=\"a&amp;b\">\n <dap:Int32 name=\"v\"><Value>1&lt;2&#65;</Value></dap:Int32>\n <Dimension name=\"d\" size=\"3\"/>\n</Dataset>";
        let root = parse(t).unwrap();
        assert_eq!(root.name, "Dataset");
        assert_eq!(root.attr("name"), Some("a&b"));
        assert_eq!(root.attrs.len(), 1);
        assert_eq!(root.children[0].name, "Int32");
        assert_eq!(root.children[0].line, 3);
        assert_eq!(root.children[0].children[0].text, "1<2A");
        assert_eq!(root.children[1].attr("size"), Some("3"));
    }

    #[test]
    fn bad_xml_says_the_line() {
        assert!(parse("<a>\n<b>\n</a>").unwrap_err().0 >= 2);
        assert!(parse("<a>\n<b/>").is_err());
        assert!(parse("").is_err());
        assert!(parse("<a>&bogus;</a>").is_err());
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert!(parse(&deep).unwrap_err().1.contains("deeper"));
    }
}
