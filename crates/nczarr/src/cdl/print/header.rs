//! The header: dimensions, variables, attributes (`pr_att`), special attributes
//! (`pr_att_specials`, `pr_att_hidden`), and the walk over groups.

use std::io::Write;

use super::dates;
use super::escape::{self, ByteWriter, KEYWORDS};
use super::number;
use super::user;
use super::var_data;
use super::{group_matches, var_matches, PrintOptions};
use crate::cftime::TimeUnits;
use crate::encoding::special::{special_attrs, SpecialValue};
use crate::encoding::{Chunking, Encoding};
use crate::error::Result;
use crate::model::{Attr, DimRef, Group, GroupPath, NcType, Values, Var, VarPath};
use crate::source::DatasetSource;

pub(crate) struct Printer<'a> {
    pub(crate) out: &'a mut dyn Write,
    pub(crate) source: &'a dyn DatasetSource,
    pub(crate) opts: &'a PrintOptions,
    /// Group nesting indent in spaces (2 per level).
    pub(crate) indent: usize,
    /// With `-t`/`-i`: the variable named by the last char `bounds` attribute printed
    /// (a variable's or a group's), with the time units of what named it. ncdump keeps
    /// only that one (`insert_bounds_info` in nctime0.c empties its `bounds_list` at
    /// every call, in 4.9.0 and every release since), matched by name alone, across
    /// groups: a file whose `lat` or `lon` names its bounds after `time` did prints
    /// `time_bnds` as numbers, not dates.
    pub(crate) bounds: Option<(String, Option<TimeUnits>)>,
    /// ncdump's `lput` line position, which enum declarations and attributes of
    /// user-defined types wrap by (it carries over from the last data printed).
    pub(crate) linep: i64,
}

impl Printer<'_> {
    /// Whether char attributes break after newlines: ncdump does so for the formats
    /// whose char attributes cannot be string lists (the classic ones and the
    /// netCDF-4 classic model), where the break cannot be mistaken for one.
    fn breaks_text_lines(&self) -> bool {
        matches!(
            self.source.format().kind.as_str(),
            "classic" | "64-bit offset" | "cdf5" | "netCDF-4 classic model"
        )
    }

    pub(crate) fn indent_str(&self) -> String {
        " ".repeat(self.indent)
    }

    /// Indent, text, newline.
    pub(crate) fn line(&mut self, text: &str) -> Result<()> {
        let ind = self.indent_str();
        self.out.write_all(ind.as_bytes())?;
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    pub(crate) fn group(&mut self, g: &Group, path: &mut Vec<String>) -> Result<()> {
        let is_root = path.is_empty();
        if !g.types.is_empty() {
            self.line("types:")?;
            let mut buf = Vec::new();
            let max = self.opts.max_line_len as i64 - 2;
            for t in &g.types {
                user::declaration(
                    &mut buf,
                    self.source.dataset(),
                    t,
                    path,
                    self.indent + 2,
                    &mut self.linep,
                    max,
                );
            }
            self.out.write_all(&buf)?;
        }
        if !g.dims.is_empty() {
            self.line("dimensions:")?;
        }
        for d in &g.dims {
            let text = if d.unlimited {
                format!(
                    "\t{} = UNLIMITED ; // ({} currently)",
                    escape::escaped_name(&d.name),
                    d.len
                )
            } else {
                format!("\t{} = {} ;", escape::escaped_name(&d.name), d.len)
            };
            self.line(&text)?;
        }
        if !g.vars.is_empty() {
            self.line("variables:")?;
        }
        for v in &g.vars {
            let type_name = match &v.user_type {
                Some(id) => user::type_name(self.source.dataset(), id, path),
                None => v.nc_type.cdl_name().to_string(),
            };
            let mut decl = format!("\t{type_name} {}", escape::escaped_name(&v.name));
            if !v.dims.is_empty() {
                decl.push('(');
                for (i, d) in v.dims.iter().enumerate() {
                    if i > 0 {
                        decl.push_str(", ");
                    }
                    decl.push_str(&self.dim_name(path, d));
                }
                decl.push(')');
            }
            decl.push_str(" ;");
            self.line(&decl)?;
            let time = self.opts.times.and_then(|_| TimeUnits::of_var(v));
            for a in &v.attrs {
                if a.user.is_some() {
                    self.user_attr(&v.name, a, path)?;
                    continue;
                }
                self.attr(&v.name, a, time.as_ref())?;
                if self.opts.times.is_some() && a.name == "bounds" {
                    if let Some(name) = bounds_name(&a.values) {
                        self.bounds = Some((name, time.clone()));
                    }
                }
            }
            if self.opts.special {
                self.specials(&VarPath::new(path, &v.name), v)?;
            }
            for note in &v.notes {
                self.line(&format!("\t\t// {}: {note}", v.name))?;
            }
        }
        if !g.attrs.is_empty() || self.opts.special {
            self.out.write_all(b"\n")?;
            self.line(if is_root {
                "// global attributes:"
            } else {
                "// group attributes:"
            })?;
        }
        for a in &g.attrs {
            if a.user.is_some() {
                self.user_attr("", a, path)?;
                continue;
            }
            self.attr("", a, None)?;
            // A group's `bounds` replaces the variable ncdump remembers too, with the
            // group's own `units` (ncdump reads them from NC_GLOBAL).
            if self.opts.times.is_some() && a.name == "bounds" {
                if let Some(name) = bounds_name(&a.values) {
                    let text = |n: &str| {
                        g.attr(n).and_then(|a| match &a.values {
                            Values::Char(t) => Some(t.as_slice()),
                            Values::String(s) => s.first().flatten(),
                            _ => None,
                        })
                    };
                    let units = text("units").and_then(|u| TimeUnits::parse(u, text("calendar")));
                    self.bounds = Some((name, units));
                }
            }
        }
        if is_root && self.opts.special {
            let format = self.source.format();
            if let Some(is_netcdf4) = format.is_netcdf4 {
                if let Some(p) = &format.nc_properties {
                    self.line(&format!("\t\t:_NCProperties = \"{p}\" ;"))?;
                }
                if let Some(v) = format.superblock_version {
                    self.line(&format!("\t\t:_SuperblockVersion = {v} ;"))?;
                }
                self.line(&format!("\t\t:_IsNetcdf4 = {} ;", u8::from(is_netcdf4)))?;
            }
            self.line(&format!("\t\t:_Format = \"{}\" ;", format.kind))?;
        }
        let group_wanted =
            self.opts.groups.is_empty() || self.opts.groups.iter().any(|s| group_matches(s, path));
        if !self.opts.header_only && group_wanted {
            if !g.vars.is_empty() {
                self.line("data:")?;
            }
            let printed: Vec<VarPath> = g
                .vars
                .iter()
                .filter(|v| {
                    (self.opts.vars.is_empty()
                        || self.opts.vars.iter().any(|s| var_matches(s, path, &v.name)))
                        && (!self.opts.coords_only || self.is_coord(g, path, v))
                        && v.user_type.is_none()
                })
                .map(|v| VarPath::new(path, &v.name))
                .collect();
            self.source.will_read(&printed);
            for v in &g.vars {
                if !self.opts.vars.is_empty()
                    && !self.opts.vars.iter().any(|s| var_matches(s, path, &v.name))
                {
                    continue;
                }
                if self.opts.coords_only && !self.is_coord(g, path, v) {
                    continue;
                }
                let ds = self.source.dataset();
                let shape = ds.var_shape(v);
                if shape.contains(&0) {
                    continue;
                }
                let unlimited: Vec<bool> = v
                    .dims
                    .iter()
                    .map(|d| ds.dim(d).is_some_and(|d| d.unlimited))
                    .collect();
                let vp = VarPath::new(path, &v.name);
                if v.user_type.is_some() {
                    user::print_var_data(
                        self.out,
                        self.source,
                        ds,
                        &vp,
                        v,
                        &shape,
                        &unlimited,
                        self.indent,
                        self.opts,
                    )?;
                    self.linep = self.indent as i64;
                    continue;
                }
                let chunks = self
                    .source
                    .encoding(&vp)
                    .and_then(|e| e.chunk_shape().map(<[u64]>::to_vec))
                    .filter(|c| c.len() == shape.len())
                    .unwrap_or_else(|| shape.clone());
                let time = self.opts.times.and_then(|_| self.data_time_units(v));
                let layout = var_data::VarLayout {
                    var: v,
                    shape: &shape,
                    unlimited: &unlimited,
                    chunks: &chunks,
                    time: time.as_ref(),
                    remote: !self.source.reads_are_cheap(),
                };
                var_data::print_var(self.out, self.source, &vp, &layout, self.indent, self.opts)?;
                self.linep = self.indent as i64;
            }
        }
        for c in &g.groups {
            self.out.write_all(b"\n")?;
            self.line(&format!("group: {} {{", escape::escaped_name(&c.name)))?;
            self.indent += 2;
            path.push(c.name.clone());
            self.group(c, path)?;
            path.pop();
            self.line(&format!("}} // group {}", escape::escaped_name(&c.name)))?;
            self.indent -= 2;
        }
        Ok(())
    }

    /// ncdump's rule: the simple name, unless another dimension of that name is
    /// visible first from the variable's group, or the dimension is not in an ancestor.
    fn dim_name(&self, path: &[String], d: &DimRef) -> String {
        let ds = self.source.dataset();
        let mut duplicate = false;
        for depth in (0..=path.len()).rev() {
            let ancestor = &path[..depth];
            if ds.group(ancestor).is_some_and(|g| g.dim(&d.name).is_some()) {
                if ancestor == d.group.as_slice() {
                    return if duplicate {
                        fqn_escaped(d)
                    } else {
                        escape::escaped_name(&d.name)
                    };
                }
                duplicate = true;
            }
        }
        fqn_escaped(d)
    }

    /// 1-D variable named like a dimension visible from its group.
    fn is_coord(&self, g: &Group, path: &[String], v: &Var) -> bool {
        let _ = g;
        v.dims.len() == 1
            && (0..=path.len()).any(|depth| {
                self.source
                    .dataset()
                    .group(&path[..depth])
                    .is_some_and(|g| g.dim(&v.name).is_some())
            })
    }

    /// The time units a variable's data prints with (`get_timeinfo`): those of the
    /// variable whose `bounds` names it, else its own.
    fn data_time_units(&self, v: &Var) -> Option<TimeUnits> {
        if !v.nc_type.is_numeric() {
            return None; // a char bounds variable prints as text
        }
        match &self.bounds {
            Some((name, time)) if *name == v.name => time.clone(),
            _ => TimeUnits::of_var(v),
        }
    }

    /// One attribute line (`pr_att`); with `-t`/`-i` and the time units of its
    /// variable, a numeric attribute's values also as dates in a comment.
    fn attr(&mut self, var_name: &str, a: &Attr, time: Option<&TimeUnits>) -> Result<()> {
        let typed = a.values.nc_type() == NcType::String
            || (self.opts.fill_type && !var_name.is_empty() && a.name == "_FillValue");
        let mut buf = self.attr_head(typed.then(|| a.values.nc_type().cdl_name()), var_name, a);
        attr_values(&mut buf, &a.values, self.opts, self.breaks_text_lines());
        buf.extend_from_slice(b" ;");
        if let (Some(units), Some(sep)) = (time, self.opts.times) {
            if a.values.nc_type().is_numeric() && !a.values.is_empty() {
                let indent = self.indent_str();
                dates::attr_comment(
                    &mut buf,
                    units,
                    &a.values,
                    sep,
                    &indent,
                    self.opts.max_line_len,
                );
            }
        }
        buf.push(b'\n');
        self.out.write_all(&buf)?;
        Ok(())
    }

    /// An attribute line up to its values: indent, the type where it is shown, the
    /// variable's name (a space after one that is a CDL keyword), `:name = `.
    fn attr_head(&self, type_name: Option<&str>, var_name: &str, a: &Attr) -> Vec<u8> {
        let mut buf: Vec<u8> = Vec::with_capacity(64);
        buf.extend_from_slice(self.indent_str().as_bytes());
        buf.extend_from_slice(b"\t\t");
        if let Some(t) = type_name {
            buf.extend_from_slice(t.as_bytes());
            buf.push(b' ');
        }
        buf.extend_from_slice(escape::escaped_name(var_name).as_bytes());
        if KEYWORDS.contains(&var_name) {
            buf.push(b' ');
        }
        buf.push(b':');
        buf.extend_from_slice(escape::escaped_name(&a.name).as_bytes());
        buf.extend_from_slice(b" = ");
        buf
    }

    /// An attribute of a user-defined type: its type's name first, always.
    fn user_attr(&mut self, var_name: &str, a: &Attr, path: &[String]) -> Result<()> {
        let Some(u) = &a.user else {
            return Ok(());
        };
        let ds = self.source.dataset();
        let ty = user::type_name(ds, &u.ty, path);
        let mut buf = self.attr_head(Some(&ty), var_name, a);
        let text = user::ValueText::new(ds, self.opts);
        let max = self.opts.max_line_len as i64 - 2;
        user::attr_values(&mut buf, &text, a, (&mut self.linep, self.indent, max));
        buf.extend_from_slice(b" ;\n");
        self.out.write_all(&buf)?;
        Ok(())
    }

    fn special(&mut self, var: &str, name: &str, value: &str) -> Result<()> {
        self.line(&format!(
            "\t\t{}:{name} = {value} ;",
            escape::escaped_name(var)
        ))
    }

    /// `pr_att_specials`: how the variable is stored, as special attributes.
    fn specials(&mut self, path: &VarPath, v: &Var) -> Result<()> {
        // ncdump 4.9.0 asks a CDF-5 file for chunking like a netCDF-4 one and prints
        // its answer; the classic formats say nothing else.
        let cdf5 = || {
            (self.source.format().kind == "cdf5").then(|| Encoding {
                chunking: Some(Chunking::Contiguous),
                ..Encoding::default()
            })
        };
        let Some(enc) = self.source.encoding(path).or_else(cdf5) else {
            return Ok(());
        };
        let codecs_attr = self.source.format().codecs_attr;
        for a in special_attrs(&enc, v.nc_type, self.opts.filter_atts) {
            if a.name == "_Codecs" && !codecs_attr {
                continue;
            }
            // ncdump shows a byte order for atomic types only (an enum has none).
            if a.name == "_Endianness" && v.user_type.is_some() {
                continue;
            }
            let value = match a.value {
                SpecialValue::Text(t) => format!("\"{}\"", escape::escaped_string(&t)),
                SpecialValue::Ints(n) => {
                    let n: Vec<String> = n.iter().map(u64::to_string).collect();
                    n.join(", ")
                }
                SpecialValue::Int(n) => n.to_string(),
            };
            self.special(&v.name, a.name, &value)?;
        }
        Ok(())
    }
}

/// The variable name a char `bounds` attribute holds. (ncdump 4.9.0 takes a string
/// attribute's pointer for its text, so a string `bounds` never matches there.)
fn bounds_name(values: &Values) -> Option<String> {
    match values {
        Values::Char(t) => Some(String::from_utf8_lossy(super::escape::c_string(t)).into_owned()),
        _ => None,
    }
}

fn fqn_escaped(d: &DimRef) -> String {
    let mut s = GroupPath(&d.group).to_string();
    if s != "/" {
        s.push('/');
    }
    escape::escaped_name(&s) + &escape::escaped_name(&d.name)
}

/// Attribute values the way `pr_att_valgs` prints them.
pub(crate) fn attr_values(
    buf: &mut Vec<u8>,
    values: &Values,
    opts: &PrintOptions,
    break_lines: bool,
) {
    use std::fmt::Write as _;
    let fd = opts.float_digits.unwrap_or(7);
    let dd = opts.double_digits.unwrap_or(15);
    if values.is_empty() {
        buf.extend_from_slice(b"\"\"");
        return;
    }
    if let Values::Char(text) = values {
        escape::char_attr_text(buf, text, break_lines);
        return;
    }
    let mut s = String::new();
    for i in 0..values.len() {
        if i > 0 {
            buf.extend_from_slice(b", ");
        }
        s.clear();
        match values {
            Values::Byte(v) => drop(write!(s, "{}b", v[i])),
            Values::Short(v) => drop(write!(s, "{}s", v[i])),
            Values::Int(v) => drop(write!(s, "{}", v[i])),
            Values::UByte(v) => drop(write!(s, "{}UB", v[i])),
            Values::UShort(v) => drop(write!(s, "{}US", v[i])),
            Values::UInt(v) => drop(write!(s, "{}U", v[i])),
            Values::Int64(v) => drop(write!(s, "{}LL", v[i])),
            Values::UInt64(v) => drop(write!(s, "{}ULL", v[i])),
            Values::Float(v) => number::float_attr(&mut s, v[i], fd),
            Values::Double(v) => number::double_attr(&mut s, v[i], dd),
            Values::String(v) => {
                escape::string_attr(buf, v.value(i));
                continue;
            }
            Values::Char(_) => {}
        }
        let _ = ByteWriter(buf).write_str(&s);
    }
}
