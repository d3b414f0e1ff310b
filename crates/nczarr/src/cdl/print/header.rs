//! The header: dimensions, variables, attributes (`pr_att`), special attributes
//! (`pr_att_specials`, `pr_att_hidden`), and the walk over groups.

use std::io::Write;

use super::data::{self, DataSource};
use super::escape::{self, ByteWriter, KEYWORDS};
use super::number;
use super::{group_matches, var_matches, PrintOptions};
use crate::codec::hdf5;
use crate::error::Result;
use crate::json::Json;
use crate::model::{Attr, DimRef, Group, NcType, Values, Var};
use crate::nczarr::DatasetInfo;
use crate::zarr::Endian;

pub(crate) struct Printer<'a> {
    pub(crate) out: &'a mut dyn Write,
    pub(crate) info: &'a DatasetInfo,
    pub(crate) opts: &'a PrintOptions,
    /// Group nesting indent in spaces (2 per level).
    pub(crate) indent: usize,
}

impl Printer<'_> {
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

    pub(crate) fn group(
        &mut self,
        g: &Group,
        path: &mut Vec<String>,
        source: &dyn DataSource,
    ) -> Result<()> {
        let is_root = path.is_empty();
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
            let mut decl = format!(
                "\t{} {}",
                v.nc_type.cdl_name(),
                escape::escaped_name(&v.name)
            );
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
            for a in &v.attrs {
                self.attr(&v.name, a, v.nc_type)?;
            }
            if self.opts.special {
                self.specials(v)?;
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
            self.attr("", a, NcType::Char)?;
        }
        if is_root && self.opts.special {
            if let Some(p) = &self.info.nc_properties {
                self.line(&format!("\t\t:_NCProperties = \"{p}\" ;"))?;
            }
            self.line(&format!(
                "\t\t:_SuperblockVersion = {} ;",
                self.info.superblock_version()
            ))?;
            self.line("\t\t:_IsNetcdf4 = 1 ;")?;
            self.line("\t\t:_Format = \"netCDF-4\" ;")?;
        }
        let group_wanted =
            self.opts.groups.is_empty() || self.opts.groups.iter().any(|s| group_matches(s, path));
        if !self.opts.header_only && group_wanted {
            if !g.vars.is_empty() {
                self.line("data:")?;
            }
            for v in &g.vars {
                if !self.opts.vars.is_empty()
                    && !self.opts.vars.iter().any(|s| var_matches(s, path, &v.name))
                {
                    continue;
                }
                if self.opts.coords_only && !self.is_coord(g, path, v) {
                    continue;
                }
                let shape = self.info.dataset.var_shape(v);
                if shape.contains(&0) {
                    continue;
                }
                let unlimited: Vec<bool> = v
                    .dims
                    .iter()
                    .map(|d| self.info.dataset.dim(d).is_some_and(|d| d.unlimited))
                    .collect();
                data::print_var(
                    self.out,
                    path,
                    v,
                    &shape,
                    &unlimited,
                    self.indent,
                    self.opts,
                    source,
                )?;
            }
        }
        for c in &g.groups {
            self.out.write_all(b"\n")?;
            self.line(&format!("group: {} {{", escape::escaped_name(&c.name)))?;
            self.indent += 2;
            path.push(c.name.clone());
            self.group(c, path, source)?;
            path.pop();
            self.line(&format!("}} // group {}", escape::escaped_name(&c.name)))?;
            self.indent -= 2;
        }
        Ok(())
    }

    /// ncdump's rule: the simple name, unless another dimension of that name is
    /// visible first from the variable's group, or the dimension is not in an ancestor.
    fn dim_name(&self, path: &[String], d: &DimRef) -> String {
        let ds = &self.info.dataset;
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
                self.info
                    .dataset
                    .group(&path[..depth])
                    .is_some_and(|g| g.dim(&v.name).is_some())
            })
    }

    fn attr(&mut self, var_name: &str, a: &Attr, var_type: NcType) -> Result<()> {
        let _ = var_type;
        let mut buf: Vec<u8> = Vec::with_capacity(64);
        buf.extend_from_slice(self.indent_str().as_bytes());
        buf.extend_from_slice(b"\t\t");
        let typed = a.values.nc_type() == NcType::String
            || (self.opts.fill_type && !var_name.is_empty() && a.name == "_FillValue");
        if typed {
            buf.extend_from_slice(a.values.nc_type().cdl_name().as_bytes());
            buf.push(b' ');
        }
        buf.extend_from_slice(escape::escaped_name(var_name).as_bytes());
        if KEYWORDS.contains(&var_name) {
            buf.push(b' ');
        }
        buf.push(b':');
        buf.extend_from_slice(escape::escaped_name(&a.name).as_bytes());
        buf.extend_from_slice(b" = ");
        attr_values(&mut buf, &a.values, self.opts);
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

    /// `pr_att_specials` for an NCZarr variable.
    fn specials(&mut self, v: &Var) -> Result<()> {
        let Some(enc) = &v.encoding else {
            return Ok(());
        };
        if v.dims.is_empty() {
            // A scalar is one value in one chunk: netcdf-c 4.9.2 and HDF5 call that
            // contiguous (HEAD prints a broken, empty _ChunkSizes line instead).
            self.special(&v.name, "_Storage", "\"contiguous\"")?;
        } else {
            self.special(&v.name, "_Storage", "\"chunked\"")?;
            let sizes: Vec<String> = enc.chunks.iter().map(u64::to_string).collect();
            self.special(&v.name, "_ChunkSizes", &sizes.join(", "))?;
        }
        let chain: Vec<&Json> = enc.codec_chain().collect();
        let id_of = |c: &&Json| c.get("id").and_then(Json::as_str).unwrap_or("").to_string();
        if !self.opts.filter_atts {
            if chain.iter().any(|c| id_of(c) == "fletcher32") {
                self.special(&v.name, "_Fletcher32", "\"true\"")?;
            }
            if chain.iter().any(|c| id_of(c) == "shuffle") {
                self.special(&v.name, "_Shuffle", "\"true\"")?;
            }
            if let Some(z) = chain.iter().find(|c| id_of(c) == "zlib") {
                let level = z.get("level").and_then(Json::as_i64_lenient).unwrap_or(1);
                self.special(&v.name, "_DeflateLevel", &level.to_string())?;
            }
        }
        let filters: Vec<String> = chain
            .iter()
            .filter_map(|c| hdf5::filter_of(c))
            .filter(|(id, _)| {
                self.opts.filter_atts
                    || !matches!(*id, hdf5::DEFLATE | hdf5::SHUFFLE | hdf5::FLETCHER32)
            })
            .map(|(id, params)| {
                let mut s = id.to_string();
                for p in params {
                    s.push(',');
                    s.push_str(&p.to_string());
                }
                s
            })
            .collect();
        if !filters.is_empty() {
            self.special(&v.name, "_Filter", &format!("\"{}\"", filters.join("|")))?;
        }
        if !chain.is_empty() {
            let json: Vec<String> = chain.iter().map(|c| c.to_text()).collect();
            let text = format!("[{}]", json.join(","));
            self.special(
                &v.name,
                "_Codecs",
                &format!("\"{}\"", escape::escaped_string(&text)),
            )?;
        }
        if v.nc_type.size() > 1 {
            match enc.dtype.endian() {
                Endian::Little => self.special(&v.name, "_Endianness", "\"little\"")?,
                Endian::Big => self.special(&v.name, "_Endianness", "\"big\"")?,
                Endian::NotApplicable => {}
            }
        }
        if enc.fill.is_none() {
            self.special(&v.name, "_NoFill", "\"true\"")?;
        }
        Ok(())
    }
}

fn fqn_escaped(d: &DimRef) -> String {
    let mut s = super::group_fqn(&d.group);
    if s != "/" {
        s.push('/');
    }
    escape::escaped_name(&s) + &escape::escaped_name(&d.name)
}

/// Attribute values the way `pr_att_valgs` prints them.
pub(crate) fn attr_values(buf: &mut Vec<u8>, values: &Values, opts: &PrintOptions) {
    use std::fmt::Write as _;
    let fd = opts.float_digits.unwrap_or(7);
    let dd = opts.double_digits.unwrap_or(15);
    if values.is_empty() {
        buf.extend_from_slice(b"\"\"");
        return;
    }
    if let Values::Char(text) = values {
        escape::char_attr(buf, text);
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
                escape::string_attr(buf, v[i].as_deref());
                continue;
            }
            Values::Char(_) => {}
        }
        let _ = ByteWriter(buf).write_str(&s);
    }
}
