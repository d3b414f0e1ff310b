//! From a CDL syntax tree to a dataset: scoping (this file), attribute types and
//! special attributes (`attrs.rs`), and data laid out as ncgen lays it out (`data.rs`:
//! fill for short lists, unlimited lengths from the data, ncgen's rules for char
//! arrays).
//!
//! The result, [`Compiled`], is a dataset source held in memory
//! (`cdl::memory`): what nczgen plans and writes, and what the round-trip tests print.

mod attrs;
mod data;

use std::collections::{HashMap, HashSet};

use super::ast::{CdlFile, Datum, GroupDecl, Item, Ref, TypeRef};
use super::parse::CdlError;
use crate::encoding::Encoding;
use crate::model::{Dataset, Dim, DimRef, Group, GroupPath, NcType, Values, Var, VarPath};

/// A compiled CDL file: the dataset, how each variable asks to be stored, and data.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The name after `netcdf`.
    pub name: String,
    /// Groups, dimensions, variables and attributes.
    pub dataset: Dataset,
    /// How each variable asks to be stored, from its special attributes
    /// (`_ChunkSizes`, `_Storage`, `_Filter`, `_Codecs`, `_DeflateLevel`, `_Shuffle`,
    /// `_Fletcher32`, `_Endianness`, `_NoFill`, `_FillValue`, `_nczarr_maxstrlen`).
    pub encodings: HashMap<VarPath, Encoding>,
    /// All values of each variable the data section mentions, in C order (fill where
    /// it gave none).
    pub data: HashMap<VarPath, Values>,
    /// `_Format`, if given.
    pub format: Option<String>,
    /// `_nczarr_default_maxstrlen` of the root group.
    pub default_maxstrlen: Option<usize>,
    /// Non-fatal remarks (data truncated, out-of-range integers cast).
    pub warnings: Vec<CdlError>,
}

/// A data list waiting for the unlimited lengths: the variable, its values, where.
type PendingData<'t> = (VarPath, &'t [Datum], usize);

struct Builder<'t> {
    text: &'t str,
    ds: Dataset,
    encodings: HashMap<VarPath, Encoding>,
    values: HashMap<VarPath, Values>,
    /// Data lists in source order.
    data: Vec<PendingData<'t>>,
    format: Option<String>,
    default_maxstrlen: Option<usize>,
    /// Interior mutability so value conversion (which only reads) can warn.
    warnings: std::cell::RefCell<Vec<CdlError>>,
    /// Out-of-range values reported so far (reports stop after a few).
    wrapped: std::cell::Cell<usize>,
    /// Variables whose codec chain `_Codecs` gave exactly.
    codecs_fixed: HashSet<VarPath>,
    /// The time units of the variable whose data is being laid out: its date strings
    /// become numbers in them.
    data_time: Option<crate::cftime::TimeUnits>,
}

/// Build the dataset a CDL file describes.
///
/// # Errors
/// The first semantic error: undefined or duplicate names, user-defined types, values
/// that do not fit their type, malformed special attributes.
pub fn compile<'t>(text: &'t str, file: &'t CdlFile) -> Result<Compiled, CdlError> {
    let mut b = Builder {
        text,
        ds: Dataset::default(),
        encodings: HashMap::new(),
        values: HashMap::new(),
        data: Vec::new(),
        format: None,
        default_maxstrlen: None,
        warnings: std::cell::RefCell::new(Vec::new()),
        wrapped: std::cell::Cell::new(0),
        codecs_fixed: HashSet::new(),
        data_time: None,
    };
    b.group(&file.root, &[])?;
    b.unlimited_lengths()?;
    b.place_data()?;
    b.string_widths();
    Ok(Compiled {
        name: file.name.clone(),
        dataset: b.ds,
        encodings: b.encodings,
        data: b.values,
        format: b.format,
        default_maxstrlen: b.default_maxstrlen,
        warnings: b.warnings.into_inner(),
    })
}

impl<'t> Builder<'t> {
    fn err(&self, pos: usize, message: impl Into<String>) -> CdlError {
        CdlError::at(self.text, pos, message)
    }

    /// The group at `path`, which the walk has declared.
    fn group_mut(&mut self, path: &[String], pos: usize) -> Result<&mut Group, CdlError> {
        let text = self.text;
        self.ds
            .group_mut(path)
            .ok_or_else(|| CdlError::at(text, pos, format!("no group {}", GroupPath(path))))
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
                    let g = self.group_mut(path, d.pos)?;
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
                    if self.ds.group(path).and_then(|g| g.var(&v.name)).is_some() {
                        return Err(self.err(v.pos, format!("duplicate variable declaration for {}", v.name)));
                    }
                    let g = self.group_mut(path, v.pos)?;
                    g.vars.push(Var { name: v.name.clone(), nc_type, dims, attrs: Vec::new(), notes: Vec::new() });
                    self.encodings.insert(VarPath::new(path, &v.name), Encoding::default());
                }
                Item::Attr(a) => self.attr(a, path)?,
                Item::Data(d) => {
                    let var = self.resolve_var(path, &d.var)?;
                    self.data.push((var, &d.values, d.pos));
                }
            }
        }
        for sub in &decl.groups {
            let parent = self.group_mut(path, sub.pos)?;
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
            Some(gs) => match self.ds.group(gs).and_then(|g| g.dim(&r.name)) {
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
                    if self
                        .ds
                        .group(&path[..depth])
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

    /// The width each string variable is stored at, unless it says
    /// (`_nczarr_maxstrlen`): the dataset's `_nczarr_default_maxstrlen`, else its
    /// longest string, so nothing is cut.
    fn string_widths(&mut self) {
        for (path, var) in self.ds.vars() {
            if var.nc_type != NcType::String {
                continue;
            }
            let longest = match self.values.get(&path) {
                Some(Values::String(s)) => {
                    Some(s.iter().flatten().map(Vec::len).max().unwrap_or(1))
                }
                _ => None,
            };
            let enc = self.encodings.entry(path).or_default();
            enc.string_width = enc.string_width.or(self.default_maxstrlen).or(longest);
        }
    }

    /// A variable by name (in the current group) or absolute path.
    fn resolve_var(&self, path: &[String], r: &Ref) -> Result<VarPath, CdlError> {
        let var = VarPath::new(r.groups.as_deref().unwrap_or(path), &r.name);
        match self.ds.var(&var) {
            Some(_) => Ok(var),
            None => Err(self.err(
                r.pos,
                format!("undefined or forward referenced variable: {}", r.name),
            )),
        }
    }
}

#[cfg(test)]
mod tests;
