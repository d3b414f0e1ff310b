//! `nczdump --json`: the header, and the data the print options select, as one JSON
//! document (schema: `docs/json.md`, version [`JSON_VERSION`]). Data are written as
//! they are read, slab by slab, as nested arrays: no variable is held whole, as
//! values or as text.

use std::io::Write;

use serde_json::{Map, Value};

use super::values::{fill_for, is_fill};
use super::{group_matches, var_matches, PrintOptions};
use crate::chunking::{slabs, SlabOrder};
use crate::error::Result;
use crate::model::{Attr, Group, NcType, Values, Var, VarPath};
use crate::source::DatasetSource;

/// The version of the document's schema (`"version"`), raised when a field changes
/// meaning or goes away (new fields do not raise it).
pub const JSON_VERSION: u64 = 1;

/// How data values equal to the fill value are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonFill {
    /// As the value itself.
    #[default]
    Value,
    /// As `null`.
    Null,
}

/// Print the dataset `source` holds as JSON to `out`.
///
/// # Errors
/// Data read errors, and I/O errors writing `out`.
pub fn print_json(
    out: &mut dyn Write,
    source: &dyn DatasetSource,
    opts: &PrintOptions,
    fill: JsonFill,
) -> Result<()> {
    let format = source.format();
    write!(
        out,
        "{{\"schema\": \"nczarr-tools/dump\", \"version\": {JSON_VERSION}, \"name\": {}, \"format\": {}, \"root\": ",
        text(&opts.name),
        Value::from(Map::from_iter([
            ("kind".to_string(), Value::from(format.kind.clone())),
            ("detail".to_string(), Value::from(format.detail.clone())),
        ]))
    )?;
    let mut p = JsonPrinter {
        out,
        source,
        opts,
        fill,
    };
    p.group(&source.dataset().root, &mut Vec::new())?;
    p.out.write_all(b"}\n")?;
    Ok(())
}

struct JsonPrinter<'a> {
    out: &'a mut dyn Write,
    source: &'a dyn DatasetSource,
    opts: &'a PrintOptions,
    fill: JsonFill,
}

/// A JSON string.
fn text(s: &str) -> String {
    Value::from(s).to_string()
}

/// One number as JSON; non-finite floats as the strings `"NaN"`, `"Infinity"`,
/// `"-Infinity"` (JSON has no such numbers).
fn float(x: f64) -> Value {
    if x.is_nan() {
        Value::from("NaN")
    } else if x.is_infinite() {
        Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        Value::from(x)
    }
}

/// Element `i` of `values` as JSON (char as a one-character string).
fn element(values: &Values, i: usize) -> Value {
    match values {
        Values::Byte(v) => v[i].into(),
        Values::UByte(v) => v[i].into(),
        Values::Short(v) => v[i].into(),
        Values::UShort(v) => v[i].into(),
        Values::Int(v) => v[i].into(),
        Values::UInt(v) => v[i].into(),
        Values::Int64(v) => v[i].into(),
        Values::UInt64(v) => v[i].into(),
        // The shortest decimal that reads back as the same float, not the float's
        // widening to double (24.063692, not 24.063692092895508).
        Values::Float(v) => float(format!("{}", v[i]).parse().unwrap_or(f64::from(v[i]))),
        Values::Double(v) => float(v[i]),
        Values::Char(v) => Value::from(String::from_utf8_lossy(&v[i..=i]).into_owned()),
        Values::String(v) => v.value(i).map_or(Value::Null, |s| {
            Value::from(String::from_utf8_lossy(s).into_owned())
        }),
    }
}

/// Element `i` of `values` as JSON text, straight into `buf` (the data path: no
/// `Value` per element). Numbers through serde_json's own formatters.
fn write_element(buf: &mut Vec<u8>, values: &Values, i: usize) {
    // Writing a number into a Vec cannot fail.
    match values {
        Values::Byte(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::UByte(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::Short(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::UShort(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::Int(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::UInt(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::Int64(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::UInt64(v) => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        // serde_json writes an f32 as its own shortest decimal.
        Values::Float(v) if v[i].is_finite() => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        Values::Double(v) if v[i].is_finite() => {
            let _ = serde_json::to_writer(&mut *buf, &v[i]);
        }
        other => buf.extend_from_slice(element(other, i).to_string().as_bytes()),
    }
}

/// All of `values` as JSON: char as one string, the rest as an array.
fn values_json(values: &Values) -> Value {
    match values {
        Values::Char(v) => Value::from(String::from_utf8_lossy(v).into_owned()),
        v => Value::Array((0..v.len()).map(|i| element(v, i)).collect()),
    }
}

fn attrs_json(attrs: &[Attr]) -> Value {
    Value::Array(
        attrs
            .iter()
            .map(|a| {
                Value::from(Map::from_iter([
                    ("name".to_string(), Value::from(a.name.clone())),
                    (
                        "type".to_string(),
                        Value::from(a.values.nc_type().cdl_name()),
                    ),
                    ("values".to_string(), values_json(&a.values)),
                ]))
            })
            .collect(),
    )
}

impl JsonPrinter<'_> {
    fn group(&mut self, g: &Group, path: &mut Vec<String>) -> Result<()> {
        let name = if path.is_empty() {
            "/"
        } else {
            g.name.as_str()
        };
        let dims: Vec<Value> = g
            .dims
            .iter()
            .map(|d| {
                Value::from(Map::from_iter([
                    ("name".to_string(), Value::from(d.name.clone())),
                    ("length".to_string(), Value::from(d.len)),
                    ("unlimited".to_string(), Value::from(d.unlimited)),
                ]))
            })
            .collect();
        write!(
            self.out,
            "{{\"name\": {}, \"dimensions\": {}, \"attributes\": {}, \"variables\": [",
            text(name),
            Value::Array(dims),
            attrs_json(&g.attrs)
        )?;
        for (i, v) in g.vars.iter().enumerate() {
            if i > 0 {
                self.out.write_all(b", ")?;
            }
            self.var(g, path, v)?;
        }
        self.out.write_all(b"], \"groups\": [")?;
        for (i, c) in g.groups.iter().enumerate() {
            if i > 0 {
                self.out.write_all(b", ")?;
            }
            path.push(c.name.clone());
            self.group(c, path)?;
            path.pop();
        }
        self.out.write_all(b"]}")?;
        Ok(())
    }

    /// Whether the options ask for `v`'s data (as the CDL printer decides).
    fn wants_data(&self, path: &[String], v: &Var) -> bool {
        let o = self.opts;
        let group = o.groups.is_empty() || o.groups.iter().any(|s| group_matches(s, path));
        let listed = o.vars.is_empty() || o.vars.iter().any(|s| var_matches(s, path, &v.name));
        let coord = v.dims.len() == 1
            && (0..=path.len()).any(|depth| {
                self.source
                    .dataset()
                    .group(&path[..depth])
                    .is_some_and(|g| g.dim(&v.name).is_some())
            });
        !o.header_only && group && listed && (!o.coords_only || coord)
    }

    fn var(&mut self, g: &Group, path: &[String], v: &Var) -> Result<()> {
        let _ = g;
        let ds = self.source.dataset();
        let shape = ds.var_shape(v);
        let vp = VarPath::new(path, &v.name);
        let enc = self.source.encoding(&vp);
        let chunks = enc
            .as_ref()
            .and_then(|e| e.chunk_shape().map(<[u64]>::to_vec))
            .filter(|c| c.len() == shape.len());
        let codecs: Vec<Value> = enc
            .as_ref()
            .map(|e| e.codecs.iter().map(json_value).collect())
            .unwrap_or_default();
        let fill = fill_for(v);
        let mut m = Map::new();
        m.insert("name".into(), Value::from(v.name.clone()));
        m.insert("type".into(), Value::from(v.nc_type.cdl_name()));
        m.insert(
            "dimensions".into(),
            Value::Array(v.dims.iter().map(|d| Value::from(d.name.clone())).collect()),
        );
        m.insert("shape".into(), Value::from(shape.clone()));
        m.insert(
            "chunks".into(),
            chunks.clone().map_or(Value::Null, Value::from),
        );
        m.insert("codecs".into(), Value::Array(codecs));
        m.insert(
            "fill_value".into(),
            fill.as_ref().map_or(Value::Null, |f| element(f, 0)),
        );
        m.insert("attributes".into(), attrs_json(&v.attrs));
        let head = Value::from(m).to_string();
        if !self.wants_data(path, v) {
            self.out.write_all(head.as_bytes())?;
            return Ok(());
        }
        // The header object, opened again for its data.
        self.out.write_all(&head.as_bytes()[..head.len() - 1])?;
        self.out.write_all(b", \"data\": ")?;
        let chunks = chunks.unwrap_or_else(|| shape.clone());
        self.data(&vp, v, &shape, &chunks, fill.as_ref())?;
        self.out.write_all(b"}")?;
        Ok(())
    }

    /// The values of `vp` as nested arrays (char: strings along the last dimension; a
    /// scalar: one value), read slab by slab in C order.
    fn data(
        &mut self,
        vp: &VarPath,
        v: &Var,
        shape: &[u64],
        chunks: &[u64],
        fill: Option<&Values>,
    ) -> Result<()> {
        let char_text = v.nc_type == NcType::Char && !shape.is_empty();
        // Char values nest one level less: the last dimension makes the strings.
        let nest_shape: Vec<u64> = if char_text {
            shape[..shape.len() - 1].to_vec()
        } else {
            shape.to_vec()
        };
        if shape.contains(&0) {
            self.out.write_all(b"[]")?;
            return Ok(());
        }
        let string_len = if char_text { shape[shape.len() - 1] } else { 1 };
        let mut nest = Nest::new(nest_shape);
        let mut pending: Vec<u8> = Vec::new();
        let null_fill = self.fill == JsonFill::Null;
        let budget = self.opts.slab_elements_of(v.nc_type);
        for r in slabs(shape, chunks, budget, SlabOrder::Output) {
            let values = self.source.read(vp, &r)?;
            let mut buf = Vec::with_capacity(values.len() * 8);
            for i in 0..values.len() {
                if char_text {
                    if let Values::Char(c) = &values {
                        pending.push(c[i]);
                    }
                    if pending.len() as u64 == string_len {
                        // ncdump's text: up to the first NUL.
                        let end = pending
                            .iter()
                            .position(|&b| b == 0)
                            .unwrap_or(pending.len());
                        nest.before(&mut buf);
                        buf.extend_from_slice(
                            text(&String::from_utf8_lossy(&pending[..end])).as_bytes(),
                        );
                        nest.after(&mut buf);
                        pending.clear();
                    }
                    continue;
                }
                nest.before(&mut buf);
                if null_fill && fill.is_some_and(|f| is_fill(f, &values, i)) {
                    buf.extend_from_slice(b"null");
                } else {
                    write_element(&mut buf, &values, i);
                }
                nest.after(&mut buf);
            }
            self.out.write_all(&buf)?;
        }
        Ok(())
    }
}

/// The brackets and commas of nested arrays written one element at a time in C
/// order.
struct Nest {
    shape: Vec<u64>,
    index: Vec<u64>,
    first: bool,
}

impl Nest {
    fn new(shape: Vec<u64>) -> Nest {
        let index = vec![0; shape.len()];
        Nest {
            shape,
            index,
            first: true,
        }
    }

    /// Before an element: the separator and the arrays that open here.
    fn before(&mut self, out: &mut Vec<u8>) {
        let opening = if self.first {
            self.shape.len()
        } else {
            out.extend_from_slice(b", ");
            self.index.iter().rev().take_while(|&&i| i == 0).count()
        };
        self.first = false;
        out.extend(std::iter::repeat_n(b'[', opening));
    }

    /// After an element: the arrays that close here; then move to the next index.
    fn after(&mut self, out: &mut Vec<u8>) {
        let mut closing = 0;
        for d in (0..self.shape.len()).rev() {
            self.index[d] += 1;
            if self.index[d] < self.shape[d] {
                break;
            }
            self.index[d] = 0;
            closing += 1;
        }
        out.extend(std::iter::repeat_n(b']', closing));
    }
}

/// Our JSON (as a store holds it) as serde_json's: every codec is shown, none dropped.
/// The numbers JSON cannot hold (`NaN`, `Infinity`, `-Infinity`, which zarr-python
/// writes) become strings of that text, as zarr-python's own JSON spells fill values.
fn json_value(j: &crate::json::Json) -> Value {
    use crate::json::Json;
    match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => serde_json::from_str::<serde_json::Number>(n.text())
            .map_or_else(|_| Value::String(n.text().to_string()), Value::Number),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(json_value).collect()),
        Json::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), json_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_is_shown_even_with_numbers_json_cannot_hold() {
        let codec = crate::json::parse_str(
            r#"{"id": "fixedscaleoffset", "offset": NaN, "scale": 1e3, "dtype": "<f8", "n": [1, -Infinity]}"#,
        )
        .unwrap();
        let v = json_value(&codec);
        assert_eq!(v["id"], "fixedscaleoffset");
        assert_eq!(v["offset"], "NaN");
        assert_eq!(v["scale"], 1000.0);
        assert_eq!(v["n"][1], "-Infinity");
    }

    #[test]
    fn nested_arrays_open_and_close_where_indices_turn() {
        let mut n = Nest::new(vec![2, 3]);
        let mut out = Vec::new();
        for i in 0..6 {
            n.before(&mut out);
            out.extend_from_slice(i.to_string().as_bytes());
            n.after(&mut out);
        }
        assert_eq!(String::from_utf8(out).unwrap(), "[[0, 1, 2], [3, 4, 5]]");
        let mut n = Nest::new(vec![]);
        let mut out = Vec::new();
        n.before(&mut out);
        out.extend_from_slice(b"7");
        n.after(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "7");
        let mut n = Nest::new(vec![2, 1, 2]);
        let mut out = Vec::new();
        for i in 0..4 {
            n.before(&mut out);
            out.extend_from_slice(i.to_string().as_bytes());
            n.after(&mut out);
        }
        assert_eq!(String::from_utf8(out).unwrap(), "[[[0, 1]], [[2, 3]]]");
    }

    #[test]
    fn non_finite_floats_are_strings() {
        assert_eq!(float(f64::NAN), Value::from("NaN"));
        assert_eq!(float(f64::NEG_INFINITY), Value::from("-Infinity"));
        assert_eq!(float(1.5), Value::from(1.5));
        let f = Values::Float(vec![24.063692, f32::INFINITY]);
        assert_eq!(element(&f, 0).to_string(), "24.063692");
        assert_eq!(element(&f, 1), Value::from("Infinity"));
        let mut buf = Vec::new();
        for i in 0..2 {
            write_element(&mut buf, &f, i);
            buf.push(b' ');
        }
        write_element(&mut buf, &Values::UInt64(vec![u64::MAX]), 0);
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "24.063692 \"Infinity\" 18446744073709551615"
        );
    }
}
