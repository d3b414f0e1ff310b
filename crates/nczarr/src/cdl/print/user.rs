//! netCDF-4's user-defined types as ncdump prints them: the `types:` section
//! (`print_ud_type`, `print_enum_type`), type names (`print_type_name`), attributes
//! of those types (`pr_att`), and values (`*_typ_tostring` in `dumplib.c`).
//!
//! Some of ncdump's text goes through `lput`, whose line position is kept across
//! calls (an enum declaration, a compound or vlen attribute wrap by it), so the
//! printer keeps it too ([`super::header::Printer::linep`]).

use super::escape;
use super::line::LINEPIND;
use super::values::{double_is_fill, float_is_fill, format_value, ValueFormat};
use super::var_data::{data_head, VarLayout};
use super::PrintOptions;
use crate::chunking::Region;
use crate::error::Result;
use crate::model::user::TypeRef;
use crate::model::{Attr, Dataset, TypeId, UValue, UserKind, UserType, Values, Var, VarPath};
use crate::source::DataSource;

/// ncdump's `print_type_name`: the simple name when a type of that name is defined
/// in the group at `from` or one of its ancestors, else the group's path and name.
pub(super) fn type_name(ds: &Dataset, id: &TypeId, from: &[String]) -> String {
    let inherited = (0..=from.len()).rev().any(|depth| {
        ds.group(&from[..depth])
            .is_some_and(|g| g.types.iter().any(|t| t.name == id.name))
    });
    let name = escape::escaped_name(&id.name);
    if inherited || id.group.is_empty() {
        return name;
    }
    let mut s = String::new();
    for g in &id.group {
        s.push('/');
        s.push_str(&escape::escaped_name(g));
    }
    s + "/" + &name
}

/// The name of a field's or vlen's element type.
fn ref_name(ds: &Dataset, ty: &TypeRef, from: &[String]) -> String {
    match ty {
        TypeRef::Atomic(t) => t.cdl_name().to_string(),
        TypeRef::User(id) => type_name(ds, id, from),
    }
}

/// ncdump's `lput` against a kept line position: a newline, the indent and the
/// continuation indent first when `s` would pass the line's end.
pub(super) fn lput(out: &mut Vec<u8>, linep: &mut i64, indent: usize, max: i64, s: &str) {
    let nn = s.len() as i64;
    if nn + *linep > max && nn > 2 {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', indent));
        out.extend_from_slice(LINEPIND);
        *linep = (LINEPIND.len() + indent) as i64;
    }
    out.extend_from_slice(s.as_bytes());
    if s.ends_with('\n') {
        *linep = indent as i64;
    } else {
        *linep += nn;
    }
}

/// The declaration of `t` (defined in the group at `path`) in a `types:` section
/// indented by `indent`.
pub(super) fn declaration(
    out: &mut Vec<u8>,
    ds: &Dataset,
    t: &UserType,
    path: &[String],
    indent: usize,
    linep: &mut i64,
    max: i64,
) {
    let pad = " ".repeat(indent);
    let id = TypeId {
        group: path.to_vec(),
        name: t.name.clone(),
    };
    let name = type_name(ds, &id, path);
    match &t.kind {
        UserKind::Vlen { base } => {
            let base = ref_name(ds, base, path);
            out.extend_from_slice(format!("{pad}{base}(*) {name} ;\n").as_bytes());
        }
        UserKind::Opaque { size } => {
            out.extend_from_slice(format!("{pad}opaque({size}) {name} ;\n").as_bytes());
        }
        UserKind::Enum { base, members } => {
            out.extend_from_slice(pad.as_bytes());
            let head = format!(
                "{} enum {} {{",
                base.cdl_name(),
                escape::escaped_name(&t.name)
            );
            lput(out, linep, indent, max, &head);
            for (i, (m, v)) in members.iter().enumerate() {
                let delim = if i + 1 == members.len() {
                    "} ;\n"
                } else {
                    ", "
                };
                let text = format!("{} = {v}{delim}", escape::escaped_name(m));
                lput(out, linep, indent, max, &text);
            }
        }
        UserKind::Compound { fields, .. } => {
            out.extend_from_slice(format!("{pad}compound {name} {{\n").as_bytes());
            for f in fields {
                let mut line = format!(
                    "{pad}  {} {}",
                    ref_name(ds, &f.ty, path),
                    escape::escaped_name(&f.name)
                );
                if !f.dims.is_empty() {
                    let dims: Vec<String> = f.dims.iter().map(u64::to_string).collect();
                    line.push_str(&format!("({})", dims.join(", ")));
                }
                line.push_str(" ;\n");
                out.extend_from_slice(line.as_bytes());
            }
            out.extend_from_slice(format!("{pad}}}; // {name}\n").as_bytes());
        }
    }
}

/// How values of user-defined types become text.
pub(super) struct ValueText<'a> {
    ds: &'a Dataset,
    fmt: ValueFormat,
}

impl<'a> ValueText<'a> {
    pub(super) fn new(ds: &'a Dataset, opts: &PrintOptions) -> ValueText<'a> {
        ValueText {
            ds,
            fmt: ValueFormat::Default {
                float_digits: opts.float_digits.unwrap_or(7),
                double_digits: opts.double_digits.unwrap_or(15),
            },
        }
    }

    /// `v`, a value of type `ty`, appended to `out` (`*_typ_tostring`).
    pub(super) fn text(&self, out: &mut Vec<u8>, ty: &TypeRef, v: &UValue) {
        match v {
            UValue::Atomic(values) => {
                let mut scratch = String::new();
                format_value(out, values, 0, &self.fmt, None, &mut scratch);
            }
            UValue::Enum(x) => out.extend_from_slice(self.enum_name(ty, *x).as_bytes()),
            UValue::Opaque(bytes) => opaque_hex(out, bytes),
            UValue::Vlen(items) => {
                let base = match self.kind(ty) {
                    Some(UserKind::Vlen { base }) => base.clone(),
                    _ => TypeRef::Atomic(crate::model::NcType::Int),
                };
                out.push(b'{');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    self.text(out, &base, item);
                }
                out.push(b'}');
            }
            UValue::Compound(values) => {
                let fields = match self.kind(ty) {
                    Some(UserKind::Compound { fields, .. }) => fields.as_slice(),
                    _ => &[],
                };
                out.push(b'{');
                for (i, (f, v)) in fields.iter().zip(values).enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    let is_char = f.ty == TypeRef::Atomic(crate::model::NcType::Char);
                    match v {
                        UValue::Array(items) => {
                            out.push(b'{');
                            if is_char {
                                // Char rows print as strings (`chars_tostring`).
                                let row = f.dims.last().copied().unwrap_or(1).max(1) as usize;
                                let bytes: Vec<u8> = items.iter().map(char_of).collect();
                                for (j, r) in bytes.chunks(row).enumerate() {
                                    if j > 0 {
                                        out.extend_from_slice(b", ");
                                    }
                                    chars_text(out, r);
                                }
                            } else {
                                for (j, item) in items.iter().enumerate() {
                                    if j > 0 {
                                        out.extend_from_slice(b", ");
                                    }
                                    self.text(out, &f.ty, item);
                                }
                            }
                            out.push(b'}');
                        }
                        _ if is_char => chars_text(out, &[char_of(v)]),
                        _ => self.text(out, &f.ty, v),
                    }
                }
                out.push(b'}');
            }
            UValue::Array(items) => {
                out.push(b'{');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    self.text(out, ty, item);
                }
                out.push(b'}');
            }
        }
    }

    fn kind(&self, ty: &TypeRef) -> Option<&'a UserKind> {
        match ty {
            TypeRef::User(id) => self.ds.user_type(id).map(|t| &t.kind),
            TypeRef::Atomic(_) => None,
        }
    }

    /// `nc_inq_enum_ident`: the member's name; a value no member has is
    /// `_UNDEFINED` when 0 (netcdf-c's name for it), else its number.
    fn enum_name(&self, ty: &TypeRef, x: i128) -> String {
        match self.kind(ty) {
            Some(UserKind::Enum { members, .. }) => members
                .iter()
                .find(|(_, v)| *v == x)
                .map(|(n, _)| n.clone())
                .unwrap_or_else(|| {
                    if x == 0 {
                        "_UNDEFINED".into()
                    } else {
                        x.to_string()
                    }
                }),
            _ => x.to_string(),
        }
    }
}

/// The byte of a char value.
fn char_of(v: &UValue) -> u8 {
    match v {
        UValue::Atomic(Values::Char(c)) => c.first().copied().unwrap_or(0),
        _ => 0,
    }
}

/// ncdump's `chars_tostring`: quoted, trailing NULs dropped, escapes as it makes
/// them (a backslash before the character itself, octal for other unprintables).
fn chars_text(out: &mut Vec<u8>, bytes: &[u8]) {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    out.push(b'"');
    for &b in &bytes[..end] {
        match b {
            0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b | b'\\' | b'\'' | b'"' => {
                out.push(b'\\');
                out.push(b);
            }
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    out.push(b'"');
}

/// `ncopaque_val_as_hex`: `0X` and two upper-case hex digits per byte.
fn opaque_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(b"0X");
    for b in bytes {
        out.extend_from_slice(format!("{b:02X}").as_bytes());
    }
}

/// `sizeof(nc_vlen_t)`: the bytes of one vlen value in netcdf-c's memory.
const VLEN_SIZE: u64 = 16;

impl ValueText<'_> {
    /// ncdump's `*_val_equals` for a value of type `ty` against the fill value:
    /// floats within epsilon, strings as C strings, a compound field by field where
    /// an array field is compared by its first element only (`nccomp_val_equals`
    /// looks at the field type's ranks, which atomic types do not have).
    ///
    /// A vlen (`ncvlen_val_equals`) steps through both lists by the vlen type's own
    /// size, 16 bytes, not its base type's: where the base is narrower, every
    /// element after the first is read past the values, so a vlen of two or more
    /// such elements never equals the fill and ncdump prints it (`{1, 2}`, not `_`).
    /// A base as wide or wider stays in bounds and is compared here element by
    /// element.
    fn equals(&self, ty: &TypeRef, fill: &UValue, v: &UValue) -> bool {
        match (fill, v) {
            (UValue::Atomic(a), UValue::Atomic(b)) => match (a, b) {
                (Values::Float(f), Values::Float(x)) => float_is_fill(f[0], x[0]),
                (Values::Double(f), Values::Double(x)) => double_is_fill(f[0], x[0]),
                _ => super::values::is_fill(a, b, 0),
            },
            (UValue::Compound(a), UValue::Compound(b)) => {
                let Some(UserKind::Compound { fields, .. }) = self.kind(ty) else {
                    return false;
                };
                a.len() == b.len()
                    && fields.len() == a.len()
                    && fields
                        .iter()
                        .zip(a.iter().zip(b))
                        .all(|(f, (x, y))| match (x, y) {
                            (UValue::Array(p), UValue::Array(q)) => match (p.first(), q.first()) {
                                (Some(p), Some(q)) => self.equals(&f.ty, p, q),
                                (p, q) => p.is_none() && q.is_none(),
                            },
                            _ => self.equals(&f.ty, x, y),
                        })
            }
            (UValue::Vlen(a), UValue::Vlen(b)) => {
                let Some(UserKind::Vlen { base }) = self.kind(ty) else {
                    return false;
                };
                a.len() == b.len()
                    && (a.len() <= 1 || self.memory_size(base) >= VLEN_SIZE)
                    && a.iter().zip(b).all(|(x, y)| self.equals(base, x, y))
            }
            (UValue::Array(a), UValue::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.equals(ty, x, y))
            }
            (UValue::Enum(a), UValue::Enum(b)) => a == b,
            (UValue::Opaque(a), UValue::Opaque(b)) => a == b,
            _ => false,
        }
    }

    /// Bytes of one value of `ty` in netcdf-c's memory: a string is a pointer, a
    /// user-defined type its size ([`Dataset::user_item_size`]).
    fn memory_size(&self, ty: &TypeRef) -> u64 {
        match ty {
            TypeRef::Atomic(crate::model::NcType::String) => 8,
            TypeRef::Atomic(t) => t.size() as u64,
            TypeRef::User(id) => self.ds.user_item_size(id).unwrap_or(0),
        }
    }
}

/// The values of an attribute of a user-defined type, after ` = ` (`pr_att`):
/// opaque and enum values joined on one line, vlen and compound ones by `lput`.
pub(super) fn attr_values(
    out: &mut Vec<u8>,
    text: &ValueText<'_>,
    a: &Attr,
    lines: (&mut i64, usize, i64),
) {
    let Some(user) = &a.user else {
        return;
    };
    let (linep, indent, max) = lines;
    let ty = TypeRef::User(user.ty.clone());
    let by_lput = matches!(
        text.kind(&ty),
        Some(UserKind::Vlen { .. } | UserKind::Compound { .. })
    );
    let n = user.values.len();
    for (i, v) in user.values.iter().enumerate() {
        let mut s = Vec::new();
        match v {
            UValue::Enum(x) => {
                s.extend_from_slice(escape::escaped_name(&text.enum_name(&ty, *x)).as_bytes())
            }
            _ => text.text(&mut s, &ty, v),
        }
        if i + 1 < n {
            s.extend_from_slice(b", ");
        }
        if by_lput {
            lput(out, linep, indent, max, &String::from_utf8_lossy(&s));
        } else {
            out.extend_from_slice(&s);
        }
    }
}

/// The data of a variable of a user-defined type (an enum's too), as `vardata`
/// prints it: each value's text laid out in rows like any other, `_` for the fill.
#[allow(clippy::too_many_arguments)]
pub(super) fn print_var_data(
    out: &mut dyn std::io::Write,
    source: &dyn DataSource,
    ds: &Dataset,
    path: &VarPath,
    var: &Var,
    shape: &[u64],
    unlimited: &[bool],
    indent: usize,
    opts: &PrintOptions,
) -> Result<()> {
    let Some(id) = &var.user_type else {
        return Ok(());
    };
    let ty = TypeRef::User(id.clone());
    let text = ValueText::new(ds, opts);
    let region = Region::whole(shape);
    let is_enum = matches!(
        ds.user_type(id).map(|t| &t.kind),
        Some(UserKind::Enum { .. })
    );
    // The fill value: `_FillValue` of the variable's own type (no default fill for
    // user-defined types).
    let fill = var
        .attr("_FillValue")
        .and_then(|a| a.user.as_ref())
        .filter(|u| u.ty == *id && u.values.len() == 1)
        .map(|u| u.values[0].clone());
    let values: Vec<UValue> = if is_enum {
        let v = source.read(path, &region)?;
        (0..v.len())
            .map(|i| UValue::Enum(v.get_i128(i).unwrap_or(0)))
            .collect()
    } else {
        source.read_user(path, &region)?
    };
    let var_layout = VarLayout {
        var,
        shape,
        unlimited,
        chunks: shape,
        time: None,
        remote: false,
    };
    let (mut e, layout) = data_head(&var_layout, indent, opts, 4096);
    let ncols = layout.ncols.max(1) as usize;
    let mut t = Vec::new();
    for (row, chunk) in values.chunks(ncols).enumerate() {
        let row = row as u64;
        if row > 0 {
            e.linep = 2 + indent as i64;
        }
        layout.row_start(&mut e, row);
        for (col, v) in chunk.iter().enumerate() {
            t.clear();
            if fill.as_ref().is_some_and(|f| text.equals(&ty, f, v)) {
                t.push(b'_');
            } else {
                text.text(&mut t, &ty, v);
            }
            if col + 1 < chunk.len() {
                layout.value(&mut e, row, col as u64, &t);
            } else {
                layout.row_end(&mut e, row, &t);
            }
        }
    }
    out.write_all(&e.buf)?;
    Ok(())
}
