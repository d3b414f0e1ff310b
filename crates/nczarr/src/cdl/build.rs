//! From a CDL syntax tree to a dataset: scoping, attribute types, special
//! attributes, and data laid out as ncgen lays it out (fill for short lists,
//! unlimited lengths from the data, ncgen's rules for char arrays).

use std::collections::HashMap;

use super::ast::{
    item_count, items, AttrDecl, CdlFile, Datum, GroupDecl, Item, Ref, TypeRef, Value,
};
use super::parse::CdlError;
use crate::json::{self, Json};
use crate::model::{Attr, Dataset, Dim, DimRef, Group, NcType, Values, Var};
use crate::nczarr::write::EncodingRequest;
use crate::zarr::Endian;

/// A compiled CDL file: the dataset, per-variable storage requests and data.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The name after `netcdf`.
    pub name: String,
    /// Groups, dimensions, variables (no storage encoding yet) and attributes.
    pub dataset: Dataset,
    /// Storage requests and data, by variable path (`/g/v`).
    pub vars: HashMap<String, VarPlan>,
    /// `_Format`, if given.
    pub format: Option<String>,
    /// `_nczarr_default_maxstrlen` of the root group.
    pub default_maxstrlen: Option<usize>,
    /// Non-fatal remarks (data truncated, out-of-range integers cast).
    pub warnings: Vec<CdlError>,
}

/// One variable's storage request and data.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VarPlan {
    /// From special attributes.
    /// How it asks to be stored, from its special attributes (`_ChunkSizes`,
    /// `_Storage`, `_Filter`, `_Codecs`, `_DeflateLevel`, `_Shuffle`, `_Fletcher32`,
    /// `_Endianness`, `_NoFill`, `_FillValue`, `_nczarr_maxstrlen`).
    pub spec: EncodingRequest,
    /// All values in C order (fill where the data section gave none), or `None` when
    /// the data section does not mention the variable.
    pub data: Option<Values>,
}

/// The full path of a variable in group `path`.
pub fn var_key(path: &[String], name: &str) -> String {
    let mut s = String::new();
    for p in path {
        s.push('/');
        s.push_str(p);
    }
    s.push('/');
    s.push_str(name);
    s
}

struct Builder<'t> {
    text: &'t str,
    root: Group,
    vars: HashMap<String, VarPlan>,
    /// Data lists, by variable path, in source order.
    data: Vec<(Vec<String>, String, &'t [Datum], usize)>,
    format: Option<String>,
    default_maxstrlen: Option<usize>,
    /// Interior mutability so value conversion (which only reads) can warn.
    warnings: std::cell::RefCell<Vec<CdlError>>,
    /// Out-of-range values reported so far (reports stop after a few).
    wrapped: std::cell::Cell<usize>,
    /// Variables whose codec chain `_Codecs` gave exactly.
    codecs_fixed: std::collections::HashSet<String>,
}

/// Build the dataset a CDL file describes.
///
/// # Errors
/// The first semantic error: undefined or duplicate names, user-defined types, values
/// that do not fit their type, malformed special attributes.
pub fn build<'t>(text: &'t str, file: &'t CdlFile) -> Result<Compiled, CdlError> {
    let mut b = Builder {
        text,
        root: Group::new(""),
        vars: HashMap::new(),
        data: Vec::new(),
        format: None,
        default_maxstrlen: None,
        warnings: std::cell::RefCell::new(Vec::new()),
        wrapped: std::cell::Cell::new(0),
        codecs_fixed: std::collections::HashSet::new(),
    };
    b.group(&file.root, &[])?;
    b.unlimited_lengths()?;
    b.place_data()?;
    Ok(Compiled {
        name: file.name.clone(),
        dataset: Dataset { root: b.root },
        vars: b.vars,
        format: b.format,
        default_maxstrlen: b.default_maxstrlen,
        warnings: b.warnings.into_inner(),
    })
}

fn group_mut<'a>(root: &'a mut Group, path: &[String]) -> &'a mut Group {
    let mut g = root;
    for name in path {
        let i = g.groups.iter().position(|c| &c.name == name).unwrap_or(0);
        g = &mut g.groups[i];
    }
    g
}

fn group_ref<'a>(root: &'a Group, path: &[String]) -> Option<&'a Group> {
    let mut g = root;
    for name in path {
        g = g.group(name)?;
    }
    Some(g)
}

impl<'t> Builder<'t> {
    fn err(&self, pos: usize, message: impl Into<String>) -> CdlError {
        CdlError::at(self.text, pos, message)
    }

    fn warn(&self, pos: usize, message: impl Into<String>) {
        let w = self.err(pos, message);
        self.warnings.borrow_mut().push(w);
    }

    /// Report an integer that does not fit its type (ncgen stores it wrapped, as a C
    /// cast does, without a word; the value is kept the same here but said aloud).
    fn warn_wrapped(&self, pos: usize, value: i128, t: NcType, stored: &Values) {
        const REPORTED: usize = 10;
        let n = self.wrapped.get() + 1;
        self.wrapped.set(n);
        if n <= REPORTED {
            let shown = match stored {
                Values::Byte(v) => v[0].to_string(),
                Values::UByte(v) => v[0].to_string(),
                Values::Short(v) => v[0].to_string(),
                Values::UShort(v) => v[0].to_string(),
                Values::Int(v) => v[0].to_string(),
                Values::UInt(v) => v[0].to_string(),
                Values::Int64(v) => v[0].to_string(),
                Values::UInt64(v) => v[0].to_string(),
                Values::Char(v) => v[0].to_string(),
                _ => String::new(),
            };
            self.warn(
                pos,
                format!("{value} is out of range for {t}; stored as {shown} (as ncgen)"),
            );
        } else if n == REPORTED + 1 {
            self.warn(pos, "more values out of range; not reported");
        }
    }

    fn group(&mut self, decl: &'t GroupDecl, path: &[String]) -> Result<(), CdlError> {
        for item in &decl.items {
            match item {
                Item::Type(t) => {
                    return Err(self.err(
                        t.pos,
                        format!(
                            "user-defined types ({} {}) are outside the NCZarr data model; NCZarr holds only the atomic types",
                            t.kind, t.name
                        ),
                    ))
                }
                Item::Dim(d) => {
                    let g = group_mut(&mut self.root, path);
                    if g.dim(&d.name).is_some() {
                        return Err(self.err(d.pos, format!("duplicate dimension declaration for {}", d.name)));
                    }
                    // As in netCDF's API, a dimension of length 0 is unlimited.
                    let unlimited = matches!(d.size, None | Some(0));
                    g.dims.push(Dim { name: d.name.clone(), len: d.size.unwrap_or(0), unlimited });
                }
                Item::Var(v) => {
                    let nc_type = match &v.typ {
                        TypeRef::Atomic(t) => *t,
                        TypeRef::Named(r) => {
                            return Err(self.err(r.pos, format!("undefined type {}: NCZarr has only atomic types", r.name)))
                        }
                    };
                    let mut dims = Vec::with_capacity(v.dims.len());
                    for r in &v.dims {
                        dims.push(self.resolve_dim(path, r)?);
                    }
                    let g = group_mut(&mut self.root, path);
                    if g.var(&v.name).is_some() {
                        return Err(self.err(v.pos, format!("duplicate variable declaration for {}", v.name)));
                    }
                    g.vars.push(Var { name: v.name.clone(), nc_type, dims, attrs: Vec::new(), encoding: None, notes: Vec::new() });
                    self.vars.insert(var_key(path, &v.name), VarPlan::default());
                }
                Item::Attr(a) => self.attr(a, path)?,
                Item::Data(d) => {
                    let (gpath, name) = self.resolve_var(path, &d.var)?;
                    self.data.push((gpath, name, &d.values, d.pos));
                }
            }
        }
        for sub in &decl.groups {
            let parent = group_mut(&mut self.root, path);
            if parent.group(&sub.name).is_some() {
                return Err(self.err(
                    sub.pos,
                    format!("duplicate group declaration for {}", sub.name),
                ));
            }
            parent.groups.push(Group::new(sub.name.clone()));
            let mut p = path.to_vec();
            p.push(sub.name.clone());
            self.group(sub, &p)?;
        }
        Ok(())
    }

    /// A dimension by name (searched up the ancestors) or absolute path.
    fn resolve_dim(&self, path: &[String], r: &Ref) -> Result<DimRef, CdlError> {
        match &r.groups {
            Some(gs) => match group_ref(&self.root, gs).and_then(|g| g.dim(&r.name)) {
                Some(_) => Ok(DimRef {
                    group: gs.clone(),
                    name: r.name.clone(),
                }),
                None => Err(self.err(
                    r.pos,
                    format!(
                        "undefined dimension {}",
                        crate::cdl::print::escape::escaped_name(&r.name)
                    ),
                )),
            },
            None => {
                for depth in (0..=path.len()).rev() {
                    if group_ref(&self.root, &path[..depth])
                        .is_some_and(|g| g.dim(&r.name).is_some())
                    {
                        return Ok(DimRef {
                            group: path[..depth].to_vec(),
                            name: r.name.clone(),
                        });
                    }
                }
                Err(self.err(
                    r.pos,
                    format!("undefined or forward referenced dimension: {}", r.name),
                ))
            }
        }
    }

    /// A variable by name (in the current group) or absolute path: (group path, name).
    fn resolve_var(&self, path: &[String], r: &Ref) -> Result<(Vec<String>, String), CdlError> {
        let gpath = r.groups.clone().unwrap_or_else(|| path.to_vec());
        match group_ref(&self.root, &gpath).and_then(|g| g.var(&r.name)) {
            Some(_) => Ok((gpath, r.name.clone())),
            None => Err(self.err(
                r.pos,
                format!("undefined or forward referenced variable: {}", r.name),
            )),
        }
    }

    fn attr(&mut self, a: &AttrDecl, path: &[String]) -> Result<(), CdlError> {
        let explicit = match &a.typ {
            None => None,
            Some(TypeRef::Atomic(t)) => Some(*t),
            Some(TypeRef::Named(r)) => {
                return Err(self.err(r.pos, format!("undefined type {}", r.name)))
            }
        };
        let Some(vref) = &a.var else {
            return self.global_attr(a, path, explicit);
        };
        let (gpath, vname) = self.resolve_var(path, vref)?;
        let key = var_key(&gpath, &vname);
        let var_type = group_ref(&self.root, &gpath)
            .and_then(|g| g.var(&vname))
            .map_or(NcType::Int, |v| v.nc_type);
        let var_rank = group_ref(&self.root, &gpath)
            .and_then(|g| g.var(&vname))
            .map_or(0, |v| v.dims.len());
        let spec_result = self.special(a, &key, var_type, var_rank)?;
        if spec_result {
            return Ok(());
        }
        let values = match (explicit, a.name.as_str()) {
            (Some(t), _) => self.convert_list(&a.values, t, a.pos)?,
            (None, "_FillValue") => self.convert_list(&a.values, var_type, a.pos)?,
            (None, _) => self.infer(a)?,
        };
        if a.name == "_FillValue" {
            if values.len() != 1 {
                return Err(self.err(a.pos, "_FillValue must be a single value"));
            }
            let fill = values
                .cast_to(var_type)
                .or_else(|| (values.nc_type() == var_type).then(|| values.clone()));
            if let Some(plan) = self.vars.get_mut(&key) {
                plan.spec.fill = fill;
            }
        }
        if a.name == "_nczarr_maxstrlen" {
            let n = values
                .get_i128(0)
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&n| n > 0);
            let n =
                n.ok_or_else(|| self.err(a.pos, "_nczarr_maxstrlen must be a positive integer"))?;
            if let Some(plan) = self.vars.get_mut(&key) {
                plan.spec.maxstrlen = Some(n);
            }
        }
        let g = group_mut(&mut self.root, &gpath);
        let Some(var) = g.vars.iter_mut().find(|v| v.name == vname) else {
            return Ok(());
        };
        match var.attrs.iter_mut().find(|x| x.name == a.name) {
            // A repeated attribute replaces the earlier one (ncgen keeps the last).
            Some(existing) => existing.values = values,
            None => var.attrs.push(Attr::new(a.name.clone(), values)),
        }
        Ok(())
    }

    fn global_attr(
        &mut self,
        a: &AttrDecl,
        path: &[String],
        explicit: Option<NcType>,
    ) -> Result<(), CdlError> {
        match a.name.as_str() {
            "_Format" => {
                let text = self.text_value(a)?;
                if !path.is_empty() {
                    return Err(self.err(a.pos, "_Format is allowed only in the root group"));
                }
                self.format = Some(text);
                return Ok(());
            }
            // Written by ncdump -s; describe the file, not its content.
            "_NCProperties" | "_IsNetcdf4" | "_SuperblockVersion" => return Ok(()),
            _ => {}
        }
        let values = match explicit {
            Some(t) => self.convert_list(&a.values, t, a.pos)?,
            None => self.infer(a)?,
        };
        if a.name == "_nczarr_default_maxstrlen" && path.is_empty() {
            let n = values
                .get_i128(0)
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&n| n > 0);
            self.default_maxstrlen = Some(n.ok_or_else(|| {
                self.err(
                    a.pos,
                    "_nczarr_default_maxstrlen must be a positive integer",
                )
            })?);
        }
        let g = group_mut(&mut self.root, path);
        match g.attrs.iter_mut().find(|x| x.name == a.name) {
            Some(existing) => existing.values = values,
            None => g.attrs.push(Attr::new(a.name.clone(), values)),
        }
        Ok(())
    }

    /// The single string of a special attribute.
    fn text_value(&self, a: &AttrDecl) -> Result<String, CdlError> {
        match a.values.as_slice() {
            [Datum {
                value: Value::Text(t),
                ..
            }] => Ok(String::from_utf8_lossy(t).into_owned()),
            _ => Err(self.err(a.name_pos, format!("{} must be a string", a.name))),
        }
    }

    /// A boolean special (`"true"`, `"false"`, `"1"`, `"0"`, or an integer).
    fn bool_value(&self, a: &AttrDecl) -> Result<bool, CdlError> {
        match a.values.as_slice() {
            [Datum {
                value: Value::Text(t),
                ..
            }] => match String::from_utf8_lossy(t).to_ascii_lowercase().as_str() {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                other => Err(self.err(
                    a.name_pos,
                    format!("{} must be \"true\" or \"false\", not \"{other}\"", a.name),
                )),
            },
            [Datum {
                value: Value::Int { value, .. },
                ..
            }] => Ok(value.get() != 0),
            _ => Err(self.err(
                a.name_pos,
                format!("{} must be \"true\" or \"false\"", a.name),
            )),
        }
    }

    fn int_values(&self, a: &AttrDecl) -> Result<Vec<i128>, CdlError> {
        a.values
            .iter()
            .map(|d| match d.value {
                Value::Int { value, .. } => Ok(value.get()),
                _ => Err(self.err(d.pos, format!("{} takes integers", a.name))),
            })
            .collect()
    }

    /// Handle a special variable attribute; `Ok(true)` when it was one (and is not
    /// stored as an attribute).
    fn special(
        &mut self,
        a: &AttrDecl,
        key: &str,
        var_type: NcType,
        var_rank: usize,
    ) -> Result<bool, CdlError> {
        let name = a.name.as_str();
        if !matches!(
            name,
            "_Storage"
                | "_ChunkSizes"
                | "_Fletcher32"
                | "_DeflateLevel"
                | "_Shuffle"
                | "_Endianness"
                | "_NoFill"
                | "_Filter"
                | "_Codecs"
        ) && !name.starts_with("_Quantize")
        {
            return Ok(false);
        }
        let mut spec = self
            .vars
            .get(key)
            .map(|p| p.spec.clone())
            .unwrap_or_default();
        match name {
            "_Storage" => match self.text_value(a)?.as_str() {
                "chunked" => spec.contiguous = false,
                "contiguous" | "compact" => spec.contiguous = true,
                other => return Err(self.err(a.name_pos, format!("_Storage must be \"chunked\", \"contiguous\" or \"compact\", not \"{other}\""))),
            },
            "_ChunkSizes" => {
                let sizes = self.int_values(a)?;
                let mut out = Vec::with_capacity(sizes.len());
                for (s, d) in sizes.iter().zip(&a.values) {
                    match u64::try_from(*s) {
                        Ok(v) if v > 0 => out.push(v),
                        _ => return Err(self.err(d.pos, "chunk sizes must be positive")),
                    }
                }
                if out.len() != var_rank {
                    return Err(self.err(
                        a.name_pos,
                        format!("_ChunkSizes has {} values, the variable has {var_rank} dimensions", out.len()),
                    ));
                }
                spec.chunks = Some(out);
                spec.contiguous = false;
            }
            "_Fletcher32" => {
                if self.bool_value(a)? {
                    push_codec(&mut spec.codecs, crate::codec::hdf5::codec_of(3, &[]).unwrap_or(Json::Null));
                }
            }
            "_Shuffle" => {
                if self.bool_value(a)? {
                    let size = var_type.size().max(1) as i64;
                    let c = Json::Object(vec![
                        ("id".into(), Json::String("shuffle".into())),
                        ("elementsize".into(), Json::Number(json::Number::from_i64(size))),
                    ]);
                    // Shuffle goes before any compressor.
                    if !spec.codecs.iter().any(|x| codec_id(x) == "shuffle") {
                        spec.codecs.insert(0, c);
                    }
                }
            }
            "_DeflateLevel" => {
                let level = self.int_values(a)?.first().copied().unwrap_or(-1);
                if !(0..=9).contains(&level) {
                    return Err(self.err(a.name_pos, format!("_DeflateLevel must be 0..9, not {level}")));
                }
                let c = crate::codec::hdf5::codec_of(1, &[level as u32]).unwrap_or(Json::Null);
                spec.codecs.retain(|x| codec_id(x) != "zlib");
                let at = spec.codecs.iter().position(|x| codec_id(x) == "fletcher32").unwrap_or(spec.codecs.len());
                spec.codecs.insert(at, c);
            }
            "_Endianness" => {
                spec.endian = match self.text_value(a)?.to_ascii_lowercase().as_str() {
                    "little" => Some(Endian::Little),
                    "big" => Some(Endian::Big),
                    "native" => None,
                    other => return Err(self.err(a.name_pos, format!("_Endianness must be \"little\" or \"big\", not \"{other}\""))),
                }
            }
            "_NoFill" => spec.no_fill = self.bool_value(a)?,
            "_Filter" => {
                let text = self.text_value(a)?;
                let elem = var_type.size().max(1) as i64;
                for c in parse_filter_spec(&text).map_err(|m| self.err(a.name_pos, format!("_Filter: {m}")))? {
                    let c = match codec_id(&c).as_str() {
                        "shuffle" => Json::Object(vec![
                            ("id".into(), Json::String("shuffle".into())),
                            ("elementsize".into(), Json::Number(json::Number::from_i64(elem))),
                        ]),
                        _ => c,
                    };
                    let id = codec_id(&c);
                    spec.codecs.retain(|x| codec_id(x) != id);
                    push_codec(&mut spec.codecs, c);
                }
            }
            "_Codecs" => {
                // The exact chain as ncdump -s prints it; it describes everything the
                // other filter attributes describe, so it replaces them.
                let text = self.text_value(a)?;
                let parsed = json::parse_str(&text).map_err(|e| self.err(a.name_pos, format!("_Codecs is not valid JSON: {e}")))?;
                let Json::Array(items) = parsed else {
                    return Err(self.err(a.name_pos, "_Codecs must be a JSON array of codec objects"));
                };
                if let Err(e) = crate::codec::Pipeline::new(&items, None) {
                    return Err(self.err(a.name_pos, format!("_Codecs: {e}")));
                }
                for c in &items {
                    if c.get("id").and_then(Json::as_str).is_none() {
                        return Err(self.err(a.name_pos, format!("_Codecs entry {} has no \"id\"", c.to_text())));
                    }
                }
                spec.codecs = items;
                self.vars.entry(key.to_string()).or_default().spec = spec;
                self.codecs_fixed.insert(key.to_string());
                return Ok(true);
            }
            _ => {
                self.warn(a.name_pos, format!("{name} is not supported by NCZarr writers; ignored"));
            }
        }
        if self.codecs_fixed.contains(key) {
            // _Codecs already fixed the chain; keep it.
            let fixed = self
                .vars
                .get(key)
                .map(|p| p.spec.codecs.clone())
                .unwrap_or_default();
            spec.codecs = fixed;
        }
        self.vars.entry(key.to_string()).or_default().spec = spec;
        Ok(true)
    }
}

fn codec_id(c: &Json) -> String {
    c.get("id").and_then(Json::as_str).unwrap_or("").to_string()
}

/// Add a codec to a chain, keeping checksums last (a checksum guards the stored bytes).
fn push_codec(chain: &mut Vec<Json>, c: Json) {
    let id = codec_id(&c);
    chain.retain(|x| codec_id(x) != id);
    if id == "fletcher32" {
        chain.push(c);
    } else {
        let at = chain
            .iter()
            .position(|x| codec_id(x) == "fletcher32")
            .unwrap_or(chain.len());
        chain.insert(at, c);
    }
}

/// Parse netCDF's `_Filter` syntax: `id,p1,p2|id2,...` (numeric HDF5 filter ids;
/// parameters as unsigned integers, with netcdf-c's `b s l u` suffixes tolerated).
fn parse_filter_spec(text: &str) -> Result<Vec<Json>, String> {
    let mut out = Vec::new();
    for part in text.split('|').map(str::trim).filter(|p| !p.is_empty()) {
        let mut fields = part.split(',').map(str::trim);
        let id_text = fields.next().unwrap_or("");
        let id: u32 = id_text
            .parse()
            .map_err(|_| format!("filter id '{id_text}' is not a number (netCDF's _Filter takes numeric HDF5 filter ids)"))?;
        let mut params = Vec::new();
        for f in fields {
            let digits = f.trim_end_matches(['b', 'B', 's', 'S', 'l', 'L', 'u', 'U']);
            let v: i64 = digits
                .parse()
                .map_err(|_| format!("filter parameter '{f}' is not an integer"))?;
            params.push(v as u32);
        }
        out.push(crate::codec::hdf5::codec_of(id, &params)?);
    }
    if out.is_empty() {
        return Err("empty filter specification".into());
    }
    Ok(out)
}

/// Integer types in ncgen's inference order (`signedtype`): byte < short < int < int64.
fn signed_rank(t: NcType) -> u8 {
    match t {
        NcType::Byte | NcType::UByte => 1,
        NcType::Short | NcType::UShort => 3,
        NcType::Int | NcType::UInt => 4,
        _ => 10,
    }
}

impl Builder<'_> {
    /// ncgen's `inferattributetype`: all text is char; else any double makes double,
    /// any float float; else the integer type by ncgen's ordering.
    fn infer(&self, a: &AttrDecl) -> Result<Values, CdlError> {
        if a.values.is_empty() {
            return Ok(Values::Char(Vec::new()));
        }
        let mut textual = 0;
        let mut t: Option<NcType> = None;
        let (mut any_double, mut any_float) = (false, false);
        for d in &a.values {
            match &d.value {
                Value::Text(_) => textual += 1,
                // A quoted character is a byte constant in CDL ('\0' makes a byte attribute).
                Value::Char(c) => {
                    let typ = NcType::Byte;
                    let _ = c;
                    t = Some(match t {
                        None => typ,
                        Some(prior) if signed_rank(prior) <= signed_rank(typ) => typ,
                        Some(prior) => prior,
                    })
                }
                Value::Double(_) => any_double = true,
                Value::Float(_) => any_float = true,
                Value::Int { typ, .. } => {
                    t = Some(match t {
                        None => *typ,
                        Some(prior) if prior == *typ => *typ,
                        Some(prior) if signed_rank(prior) <= signed_rank(*typ) => *typ,
                        Some(prior) => prior,
                    })
                }
                Value::Fill => {
                    return Err(self.err(d.pos, "'_' (fill) is not allowed in an attribute"))
                }
                Value::Nil => return Err(self.err(
                    d.pos,
                    "NIL is allowed only in string attributes; give the type: string var:att = NIL",
                )),
                Value::List(_) | Value::Run(_) => {
                    return Err(self.err(d.pos, "braces are not allowed in an attribute"))
                }
                Value::Opaque(_) | Value::Ident(_) | Value::Call(..) => {
                    return Err(self.err(
                        d.pos,
                        "opaque, enum and function values are outside the NCZarr data model",
                    ))
                }
            }
        }
        if textual > 0 {
            if textual < a.values.len() {
                return Err(self.err(a.pos, format!("non-simple list of values for untyped attribute: {} mixes text and numbers", a.name)));
            }
            return self.convert_list(&a.values, NcType::Char, a.pos);
        }
        // A uint64 beyond int64 forces uint64 (ncgen's forceuint64).
        if !any_double && !any_float && a.values.iter().any(|d| matches!(d.value, Value::Int { value, typ: NcType::UInt64 } if value.get() > i128::from(i64::MAX))) {
            return self.convert_list(&a.values, NcType::UInt64, a.pos);
        }
        let target = if any_double {
            NcType::Double
        } else if any_float {
            NcType::Float
        } else {
            t.unwrap_or(NcType::Int)
        };
        self.convert_list(&a.values, target, a.pos)
    }

    /// Convert a flat list of constants to type `t` (attributes).
    fn convert_list(&self, list: &[Datum], t: NcType, pos: usize) -> Result<Values, CdlError> {
        if t == NcType::Char {
            // Char attributes concatenate all their text.
            let mut bytes = Vec::new();
            for d in list {
                match &d.value {
                    Value::Text(s) => bytes.extend_from_slice(s),
                    Value::Char(c) => bytes.push(*c),
                    Value::Int { value, .. } => bytes.push(value.get() as u8),
                    _ => {
                        return Err(self.err(d.pos, "a char attribute takes strings or characters"))
                    }
                }
            }
            return Ok(Values::Char(bytes));
        }
        if list.is_empty() {
            return Err(self.err(
                pos,
                format!("empty data list: only char attributes may be empty (this one is {t})"),
            ));
        }
        let mut out = Values::with_capacity(t, list.len());
        for d in list {
            self.convert_into(d, t, None, &mut out)?;
        }
        Ok(out)
    }

    /// One constant as type `t`, appended to `out` (of type `t`); `fill` is what `_`
    /// means (for data). Appending rather than returning keeps large data sections
    /// free of a small allocation per value.
    fn convert_into(
        &self,
        d: &Datum,
        t: NcType,
        fill: Option<&Values>,
        out: &mut Values,
    ) -> Result<(), CdlError> {
        let bad = |what: &str| self.err(d.pos, format!("cannot convert {what} to {t}"));
        if let Values::String(out) = out {
            out.push(match &d.value {
                Value::Text(s) => Some(s.clone()),
                Value::Char(c) => Some(vec![*c]),
                Value::Nil => None,
                Value::Fill => match fill {
                    Some(Values::String(f)) => f.first().cloned().flatten(),
                    _ => Some(Vec::new()),
                },
                Value::Int { .. } | Value::Float(_) | Value::Double(_) => {
                    return Err(bad("a number"))
                }
                _ => return Err(bad("this value")),
            });
            return Ok(());
        }
        let as_f64 = |v: &Value| -> Option<f64> {
            match v {
                Value::Int { value, .. } => Some(value.get() as f64),
                Value::Float(f) => Some(f64::from(*f)),
                Value::Double(f) => Some(*f),
                Value::Char(c) => Some(f64::from(*c as i8)),
                _ => None,
            }
        };
        let as_int = |v: &Value| -> Option<i128> {
            match v {
                Value::Int { value, .. } => Some(value.get()),
                // A hex (opaque) constant in a numeric context: its value, as ncgen converts it.
                Value::Opaque(hex) => {
                    let digits = hex.trim_start_matches("0x").trim_start_matches("0X");
                    let tail = &digits[digits.len().saturating_sub(16)..];
                    u64::from_str_radix(tail, 16).ok().map(i128::from)
                }
                Value::Char(c) => Some(i128::from(*c as i8)),
                // C's cast truncates toward zero; out-of-range values saturate here.
                Value::Float(f) => Some(*f as i128),
                Value::Double(f) => Some(*f as i128),
                _ => None,
            }
        };
        match &d.value {
            Value::Fill => {
                match fill {
                    Some(f) if f.nc_type() == t => out.append(f.clone()),
                    _ => out.append(Values::default_fill(t)),
                }
                return Ok(());
            }
            Value::Nil => {
                return Err(self.err(
                    d.pos,
                    "NIL data can only be assigned to variables or attributes of type string",
                ))
            }
            Value::Text(_) => return Err(bad("a string")),
            Value::List(_) | Value::Run(_) => return Err(self.err(d.pos, "unexpected braces")),
            Value::Opaque(_) if matches!(t, NcType::Float | NcType::Double) => {
                return Err(bad("a hex constant"))
            }
            Value::Ident(_) | Value::Call(..) => {
                return Err(self.err(
                    d.pos,
                    "enum constants and functions are outside the NCZarr data model",
                ))
            }
            _ => {}
        }
        if let Values::Float(o) = out {
            o.push(as_f64(&d.value).ok_or_else(|| bad("this value"))? as f32);
            return Ok(());
        }
        if let Values::Double(o) = out {
            o.push(as_f64(&d.value).ok_or_else(|| bad("this value"))?);
            return Ok(());
        }
        let v = as_int(&d.value).ok_or_else(|| bad("this value"))?;
        // As ncgen (C casts): out-of-range values wrap.
        match out {
            Values::Char(o) => o.push(v as u8),
            Values::Byte(o) => o.push(v as i8),
            Values::UByte(o) => o.push(v as u8),
            Values::Short(o) => o.push(v as i16),
            Values::UShort(o) => o.push(v as u16),
            Values::Int(o) => o.push(v as i32),
            Values::UInt(o) => o.push(v as u32),
            Values::Int64(o) => o.push(v as i64),
            Values::UInt64(o) => o.push(v as u64),
            Values::Float(_) | Values::Double(_) | Values::String(_) => {}
        }
        if t != NcType::Char && !fits(v, t) {
            let stored = out.slice(out.len() - 1..out.len());
            self.warn_wrapped(d.pos, v, t, &stored);
        }
        Ok(())
    }
}

/// Whether integer `v` keeps its bits in integer type `t`: either signedness of the
/// type's width counts, because CDL routinely writes bit patterns such as 255 or
/// 0xFFFF into signed variables and means exactly the stored bits.
fn fits(v: i128, t: NcType) -> bool {
    let (lo, hi): (i128, i128) = match t {
        NcType::Byte | NcType::UByte => (i128::from(i8::MIN), i128::from(u8::MAX)),
        NcType::Short | NcType::UShort => (i128::from(i16::MIN), i128::from(u16::MAX)),
        NcType::Int | NcType::UInt => (i128::from(i32::MIN), i128::from(u32::MAX)),
        _ => (i128::from(i64::MIN), i128::from(u64::MAX)),
    };
    (lo..=hi).contains(&v)
}

/// The leaves of a data list in order, braces and runs removed, without collecting them.
struct Flat<'d> {
    stack: Vec<std::slice::Iter<'d, Datum>>,
}

impl<'d> Flat<'d> {
    fn new(list: &'d [Datum]) -> Flat<'d> {
        Flat {
            stack: vec![list.iter()],
        }
    }
}

impl<'d> Iterator for Flat<'d> {
    type Item = &'d Datum;

    fn next(&mut self) -> Option<&'d Datum> {
        loop {
            let top = self.stack.last_mut()?;
            match top.next() {
                None => {
                    self.stack.pop();
                }
                Some(Datum {
                    value: Value::List(inner) | Value::Run(inner),
                    ..
                }) => self.stack.push(inner.iter()),
                Some(d) => return Some(d),
            }
        }
    }
}

impl Builder<'_> {
    fn var_info(&self, gpath: &[String], name: &str) -> Option<(NcType, Vec<DimRef>)> {
        let v = group_ref(&self.root, gpath)?.var(name)?;
        Some((v.nc_type, v.dims.clone()))
    }

    fn dim_of(&self, r: &DimRef) -> Option<Dim> {
        group_ref(&self.root, &r.group)
            .and_then(|g| g.dim(&r.name))
            .cloned()
    }

    fn set_dim_len(&mut self, r: &DimRef, len: u64) {
        let g = group_mut(&mut self.root, &r.group);
        if let Some(d) = g.dims.iter_mut().find(|d| d.name == r.name) {
            d.len = d.len.max(len);
        }
    }

    /// ncgen's `processunlimiteddims`: an unlimited dimension is as long as the longest
    /// data given for it.
    fn unlimited_lengths(&mut self) -> Result<(), CdlError> {
        let data = std::mem::take(&mut self.data);
        for (gpath, name, list, pos) in &data {
            let Some((t, dims)) = self.var_info(gpath, name) else {
                continue;
            };
            if dims.is_empty() {
                continue;
            }
            let dims: Vec<Dim> = dims.iter().filter_map(|d| self.dim_of(d)).collect();
            let Some(first) = dims.iter().position(|d| d.unlimited) else {
                continue;
            };
            let refs = self
                .var_info(gpath, name)
                .map(|(_, r)| r)
                .unwrap_or_default();
            if first == 0 {
                self.unlimited_sizes(&refs, &dims, 0, list, t == NcType::Char, *pos)?;
            } else {
                for d in items(list) {
                    match &d.value {
                        Value::List(inner) => self.unlimited_sizes(
                            &refs,
                            &dims,
                            first,
                            inner,
                            t == NcType::Char,
                            d.pos,
                        )?,
                        _ => {
                            return Err(self.err(
                                d.pos,
                                "UNLIMITED dimension (other than first) must be enclosed in {}",
                            ))
                        }
                    }
                }
            }
        }
        self.data = data;
        Ok(())
    }

    fn unlimited_sizes(
        &mut self,
        refs: &[DimRef],
        dims: &[Dim],
        at: usize,
        list: &[Datum],
        is_char: bool,
        pos: usize,
    ) -> Result<(), CdlError> {
        let next = (at + 1..dims.len())
            .find(|&k| dims[k].unlimited)
            .unwrap_or(dims.len());
        let current = |k: usize, b: &Builder<'_>| b.dim_of(&refs[k]).map_or(0, |d| d.len);
        let xproduct: u64 = (at + 1..next)
            .map(|k| current(k, self))
            .product::<u64>()
            .max(1);
        if next < dims.len() {
            let n = item_count(list) as u64;
            self.set_dim_len(&refs[at], n.div_ceil(xproduct));
            for d in items(list) {
                match &d.value {
                    Value::List(inner) => {
                        self.unlimited_sizes(refs, dims, next, inner, is_char, d.pos)?
                    }
                    _ => {
                        return Err(self.err(
                            d.pos,
                            "UNLIMITED dimension (other than first) must be enclosed in {}",
                        ))
                    }
                }
            }
        } else {
            let length: u64 = Flat::new(list)
                .map(|d| match &d.value {
                    Value::Text(s) if is_char => s.len() as u64,
                    _ => 1,
                })
                .sum();
            let _ = pos;
            self.set_dim_len(&refs[at], length.div_ceil(xproduct));
        }
        Ok(())
    }

    /// Lay every data list out as its variable's values.
    fn place_data(&mut self) -> Result<(), CdlError> {
        let data = std::mem::take(&mut self.data);
        for (gpath, name, list, pos) in data {
            let Some((t, refs)) = self.var_info(&gpath, &name) else {
                continue;
            };
            let shape: Vec<u64> = refs
                .iter()
                .map(|r| self.dim_of(r).map_or(0, |d| d.len))
                .collect();
            let unlimited: Vec<bool> = refs
                .iter()
                .map(|r| self.dim_of(r).is_some_and(|d| d.unlimited))
                .collect();
            let key = var_key(&gpath, &name);
            let fill = self.fill_of(&key, t);
            let total: u64 = shape.iter().product();
            let total = usize::try_from(total)
                .map_err(|_| self.err(pos, "variable too large for data in CDL"))?;
            let values = if t == NcType::Char {
                self.char_data(list, &shape, &unlimited, &fill, total, pos)?
            } else {
                // Everything the data does not give is the fill value.
                let mut out = Values::repeat(&fill, total);
                self.place(list, &shape, &unlimited, 0, 0, t, &fill, &mut out, pos)?;
                out
            };
            self.vars.entry(key).or_default().data = Some(values);
        }
        Ok(())
    }

    /// What `_` and missing data mean for a variable: its `_FillValue`, or the default.
    fn fill_of(&self, key: &str, t: NcType) -> Values {
        self.vars
            .get(key)
            .and_then(|p| p.spec.fill.clone())
            .filter(|f| f.nc_type() == t && f.len() == 1)
            .unwrap_or_else(|| Values::default_fill(t))
    }

    /// Place the values of `list` (one instance of dimensions `at..`) starting at
    /// element `base`. Lists for non-first unlimited dimensions must be braced.
    #[allow(clippy::too_many_arguments)]
    fn place(
        &mut self,
        list: &[Datum],
        shape: &[u64],
        unlimited: &[bool],
        at: usize,
        base: usize,
        t: NcType,
        fill: &Values,
        out: &mut Values,
        pos: usize,
    ) -> Result<(), CdlError> {
        let rank = shape.len();
        let stride = |k: usize| -> usize { shape[k + 1..].iter().product::<u64>() as usize };
        let next = (at + 1..rank).find(|&k| unlimited[k]);
        match next {
            None => {
                let room = if rank == 0 {
                    1
                } else {
                    shape[at..].iter().product::<u64>() as usize
                };
                let mut run = Values::with_capacity(t, room);
                let mut given = 0;
                let mut first_extra = None;
                for d in Flat::new(list) {
                    if given < room {
                        self.convert_into(d, t, Some(fill), &mut run)?;
                    } else if first_extra.is_none() {
                        first_extra = Some(d.pos);
                    }
                    given += 1;
                }
                if let Some(p) = first_extra {
                    self.warn(
                        p,
                        format!("too many values: {given} given, {room} fit; the rest are ignored"),
                    );
                }
                out.write_at(base, &run);
            }
            Some(u) => {
                // Elements at this level are instances of dimension u, one per index of
                // dimensions at..u, in row-major order; each must be braced.
                let outer: usize = shape[at..u].iter().product::<u64>() as usize;
                for (k, d) in items(list).enumerate() {
                    if k >= outer {
                        self.warn(d.pos, "too many records; the rest are ignored");
                        break;
                    }
                    let Value::List(inner) = &d.value else {
                        return Err(self.err(
                            d.pos,
                            "UNLIMITED dimension (other than first) must be enclosed in {}",
                        ));
                    };
                    // Index k over dims at..u → element offset.
                    let mut rem = k;
                    let mut offset = base;
                    for j in (at..u).rev() {
                        let n = shape[j] as usize;
                        offset += (rem % n) * stride(j);
                        rem /= n;
                    }
                    self.place(inner, shape, unlimited, u, offset, t, fill, out, d.pos)?;
                }
                let _ = pos;
            }
        }
        Ok(())
    }

    /// ncgen's char array rules (`gen_chararray`): consecutive character constants form
    /// one string; each string is padded with the fill character to a multiple of the
    /// last dimension (rank ≥ 2, fixed last dimension); the whole is padded or cut to
    /// the variable's size.
    #[allow(clippy::too_many_arguments)]
    fn char_data(
        &mut self,
        list: &[Datum],
        shape: &[u64],
        unlimited: &[bool],
        fill: &Values,
        total: usize,
        pos: usize,
    ) -> Result<Values, CdlError> {
        let fillchar = match fill {
            Values::Char(c) => c.first().copied().unwrap_or(0),
            _ => 0,
        };
        let rank = shape.len();
        let unit = if rank >= 2 && !unlimited[rank - 1] {
            shape[rank - 1] as usize
        } else {
            1
        };
        // Runs of character constants become one string.
        let mut strings: Vec<(Vec<u8>, usize)> = Vec::new();
        let mut run: Option<(Vec<u8>, usize)> = None;
        for d in Flat::new(list) {
            match &d.value {
                Value::Char(c) => run.get_or_insert_with(|| (Vec::new(), d.pos)).0.push(*c),
                Value::Int {
                    value,
                    typ: NcType::Byte | NcType::UByte,
                } => run
                    .get_or_insert_with(|| (Vec::new(), d.pos))
                    .0
                    .push(value.get() as u8),
                other => {
                    if let Some(r) = run.take() {
                        strings.push(r);
                    }
                    match other {
                        Value::Text(s) => strings.push((s.clone(), d.pos)),
                        Value::Fill => strings.push((vec![fillchar], d.pos)),
                        _ => self.warn(
                            d.pos,
                            "a char variable takes strings and characters; value ignored",
                        ),
                    }
                }
            }
        }
        if let Some(r) = run.take() {
            strings.push(r);
        }
        let mut buf: Vec<u8> = Vec::with_capacity(total);
        for (s, _) in &strings {
            buf.extend_from_slice(s);
            if s.is_empty() || s.len() % unit != 0 {
                let pad = unit - (s.len() % unit);
                buf.extend(std::iter::repeat_n(fillchar, pad));
            }
        }
        if buf.len() > total && !(buf.len() == 1 && total == 0) {
            let p = strings.last().map_or(pos, |s| s.1);
            if total > 0 {
                self.warn(p, format!("character data list too long: {} characters for {} places; the rest are ignored", buf.len(), total));
            }
            buf.truncate(total);
        }
        buf.resize(total, fillchar);
        Ok(Values::Char(buf))
    }
}
