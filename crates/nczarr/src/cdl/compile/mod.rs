//! From a CDL syntax tree to a dataset: scoping (this file), attribute types and
//! special attributes (`attrs.rs`), and data laid out as ncgen lays it out (`data.rs`:
//! fill for short lists, unlimited lengths from the data, ncgen's rules for char
//! arrays).
//!
//! The result, [`Compiled`], is a dataset source held in memory
//! (`cdl::compiled_source`): what nczgen plans and writes, and what the round-trip tests print.

mod attrs;
mod data;
pub(crate) mod datums;
mod user;

use std::collections::{HashMap, HashSet};

use super::ast::{CdlFile, Datum, GroupDecl, Item, Ref, TypeRef};
use super::parse::{CdlError, Locate};
use crate::encoding::Encoding;
use crate::model::{Dataset, Dim, DimRef, Group, GroupPath, NcType, UValue, Values, Var, VarPath};
use datums::Converter;

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
    /// it gave none); an enum variable's as its base integers.
    pub data: HashMap<VarPath, Values>,
    /// The same for the variables of the other user-defined types.
    pub user_data: HashMap<VarPath, Vec<UValue>>,
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
    /// Conversion of constants, and the warnings (see [`Builder::deref`]).
    conv: Converter<'t>,
    ds: Dataset,
    encodings: HashMap<VarPath, Encoding>,
    values: HashMap<VarPath, Values>,
    /// Values of variables of user-defined types other than enums.
    user_values: HashMap<VarPath, Vec<UValue>>,
    /// Every user-defined type of the file.
    declared: user::Declared,
    /// Data lists in source order.
    data: Vec<PendingData<'t>>,
    format: Option<String>,
    default_maxstrlen: Option<usize>,
    /// Variables whose codec chain `_Codecs` gave exactly.
    codecs_fixed: HashSet<VarPath>,
    /// The time units of the variable whose data is being laid out: its date strings
    /// become numbers in them.
    data_time: Option<crate::cftime::TimeUnits>,
    /// Where the data lists cut out of the text start (see [`Staged`]).
    cut_at: HashSet<usize>,
    /// The data statements whose lists were cut, in order.
    cut: Vec<CutList>,
}

/// Build the dataset a CDL file describes.
///
/// # Errors
/// The first semantic error: undefined or duplicate names, values that do not fit
/// their type, malformed special attributes.
pub fn compile<'t>(text: &'t str, file: &'t CdlFile) -> Result<Compiled, CdlError> {
    let staged = Staged::new(&text, file, &HashSet::new())?;
    let (compiled, _, _) = staged.finish(&HashMap::new())?;
    Ok(compiled)
}

/// A data list the streaming compiler cut out of the text (`generate`), found
/// again by where it starts ([`crate::cdl::ast::DataDecl::list_pos`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CutList {
    /// The variable it is data for.
    pub(crate) var: VarPath,
    /// Where the list starts in the parsed text.
    pub(crate) list_pos: usize,
    /// Where the data statement starts.
    pub(crate) pos: usize,
}

/// What the streaming compiler needs to lay out a cut list as its variable's values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StreamTarget {
    /// The list.
    pub(crate) list: CutList,
    /// The variable's type.
    pub(crate) nc_type: NcType,
    /// Its shape, unlimited lengths known.
    pub(crate) shape: Vec<u64>,
    /// What `_` and values not given are.
    pub(crate) fill: Values,
    /// CF time units, for date strings in the data.
    pub(crate) time: Option<crate::cftime::TimeUnits>,
    /// False when a later data statement gives the variable's data (the last one
    /// wins, as in ncgen): the list is read and converted, for its errors and
    /// warnings, and not written.
    pub(crate) last: bool,
}

/// A CDL file compiled up to its data: declarations, attributes and encodings done,
/// data lists collected, cut lists known by variable. [`Staged::finish`] sizes the
/// unlimited dimensions and lays out the data lists held in the syntax tree.
pub(crate) struct Staged<'t> {
    b: Builder<'t>,
    name: String,
    cut: Vec<CutList>,
}

impl<'t> Staged<'t> {
    /// Walk `file`'s declarations; data lists starting at a position in `cut` are
    /// the streaming compiler's (the syntax tree holds none of their values).
    ///
    /// # Errors
    /// As [`compile`], for everything before the data.
    pub(crate) fn new(
        loc: &'t dyn Locate,
        file: &'t CdlFile,
        cut: &HashSet<usize>,
    ) -> Result<Staged<'t>, CdlError> {
        let mut b = Builder {
            conv: Converter::new(loc),
            ds: Dataset::default(),
            encodings: HashMap::new(),
            values: HashMap::new(),
            user_values: HashMap::new(),
            declared: user::Declared::default(),
            data: Vec::new(),
            format: None,
            default_maxstrlen: None,
            codecs_fixed: HashSet::new(),
            data_time: None,
            cut_at: cut.clone(),
            cut: Vec::new(),
        };
        b.declare_types(&file.root)?;
        b.ds.root.types = b.declared.of_group(&[]);
        b.group(&file.root, &[])?;
        let cut = std::mem::take(&mut b.cut);
        Ok(Staged {
            b,
            name: file.name.clone(),
            cut,
        })
    }

    /// The cut lists, in the order of the text.
    pub(crate) fn cut(&self) -> &[CutList] {
        &self.cut
    }

    /// The dataset as declared (unlimited dimensions not yet sized).
    pub(crate) fn dataset(&self) -> &Dataset {
        &self.b.ds
    }

    /// Size the unlimited dimensions (`values` gives how many values each cut list
    /// holds, by its position, for those whose variable has one), lay out the data
    /// lists of the syntax tree, and say how to lay out each cut list.
    ///
    /// # Errors
    /// As [`compile`].
    pub(crate) fn finish(
        mut self,
        values: &HashMap<usize, u64>,
    ) -> Result<(Compiled, Converter<'t>, Vec<StreamTarget>), CdlError> {
        let b = &mut self.b;
        b.unlimited_lengths()?;
        for c in &self.cut {
            if let Some(&n) = values.get(&c.list_pos) {
                b.first_unlimited_length(&c.var, n);
            }
        }
        // The last data statement of a variable gives its data.
        let mut last: HashMap<&VarPath, usize> = HashMap::new();
        for (var, _, pos) in &b.data {
            last.insert(var, *pos);
        }
        for c in &self.cut {
            last.insert(&c.var, c.pos);
        }
        let last: HashMap<VarPath, usize> = last.into_iter().map(|(v, p)| (v.clone(), p)).collect();
        b.place_data()?;
        b.values.retain(|var, _| {
            !self
                .cut
                .iter()
                .any(|c| &c.var == var && last.get(var) == Some(&c.pos))
        });
        b.string_widths();
        let mut targets = Vec::with_capacity(self.cut.len());
        for c in &self.cut {
            let v =
                b.ds.var(&c.var)
                    .ok_or_else(|| b.err(c.pos, format!("no variable {}", c.var)))?;
            let nc_type = v.nc_type;
            let shape = b.ds.var_shape(v);
            b.data_size(&c.var, &shape, nc_type, c.pos)?;
            targets.push(StreamTarget {
                nc_type,
                shape,
                fill: b.fill_of(&c.var, nc_type),
                time: b.time_units_of(&c.var),
                last: last.get(&c.var) == Some(&c.pos),
                list: c.clone(),
            });
        }
        let b = self.b;
        let warnings = b.conv.take_warnings();
        let compiled = Compiled {
            name: self.name,
            dataset: b.ds,
            encodings: b.encodings,
            data: b.values,
            user_data: b.user_values,
            format: b.format,
            default_maxstrlen: b.default_maxstrlen,
            warnings,
        };
        Ok((compiled, b.conv, targets))
    }
}

/// Conversion is the builder's: `self.err`, `self.warn` and `self.convert_into` read
/// as they did before conversion moved to [`Converter`], which the streaming compiler
/// keeps once the builder is done.
impl<'t> std::ops::Deref for Builder<'t> {
    type Target = Converter<'t>;

    fn deref(&self) -> &Converter<'t> {
        &self.conv
    }
}

impl<'t> Builder<'t> {
    /// The group at `path`, which the walk has declared.
    fn group_mut(&mut self, path: &[String], pos: usize) -> Result<&mut Group, CdlError> {
        let loc = self.conv.loc;
        self.ds
            .group_mut(path)
            .ok_or_else(|| CdlError::located(loc, pos, format!("no group {}", GroupPath(path))))
    }

    fn group(&mut self, decl: &'t GroupDecl, path: &[String]) -> Result<(), CdlError> {
        for item in &decl.items {
            match item {
                // Declared before the walk (`declare_types`).
                Item::Type(_) => {}
                Item::Dim(d) => {
                    let g = self.group_mut(path, d.pos)?;
                    if g.dim(&d.name).is_some() {
                        return Err(self.err(
                            d.pos,
                            format!("duplicate dimension declaration for {}", d.name),
                        ));
                    }
                    // As in netCDF's API, a dimension of length 0 is unlimited.
                    let unlimited = matches!(d.size, None | Some(0));
                    g.dims.push(Dim {
                        name: d.name.clone(),
                        len: d.size.unwrap_or(0),
                        unlimited,
                    });
                }
                Item::Var(v) => {
                    let (nc_type, user_type) = match &v.typ {
                        TypeRef::Atomic(t) => (*t, None),
                        TypeRef::Named(r) => {
                            let id = self.resolve_type(path, r)?;
                            // An enum reads as its base integers; the other kinds as
                            // values of the type (`UByte` only holds the place).
                            let base = match self.declared.kind(&id) {
                                Some(crate::model::UserKind::Enum { base, .. }) => *base,
                                _ => NcType::UByte,
                            };
                            (base, Some(id))
                        }
                    };
                    let mut dims = Vec::with_capacity(v.dims.len());
                    for r in &v.dims {
                        dims.push(self.resolve_dim(path, r)?);
                    }
                    if self.ds.group(path).and_then(|g| g.var(&v.name)).is_some() {
                        return Err(self.err(
                            v.pos,
                            format!("duplicate variable declaration for {}", v.name),
                        ));
                    }
                    let g = self.group_mut(path, v.pos)?;
                    g.vars.push(Var {
                        name: v.name.clone(),
                        nc_type,
                        user_type,
                        dims,
                        attrs: Vec::new(),
                        notes: Vec::new(),
                    });
                    self.encodings
                        .insert(VarPath::new(path, &v.name), Encoding::default());
                }
                Item::Attr(a) => self.attr(a, path)?,
                Item::Data(d) => {
                    let var = self.resolve_var(path, &d.var)?;
                    if self.cut_at.contains(&d.list_pos) {
                        self.cut.push(CutList {
                            var,
                            list_pos: d.list_pos,
                            pos: d.pos,
                        });
                    } else {
                        self.data.push((var, &d.values, d.pos));
                    }
                }
            }
        }
        for sub in &decl.groups {
            let mut p = path.to_vec();
            p.push(sub.name.clone());
            let mut g = Group::new(sub.name.clone());
            g.types = self.declared.of_group(&p);
            let parent = self.group_mut(path, sub.pos)?;
            if parent.group(&sub.name).is_some() {
                return Err(self.err(
                    sub.pos,
                    format!("duplicate group declaration for {}", sub.name),
                ));
            }
            parent.groups.push(g);
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

    /// The width each string variable is stored at: what it says (`_nczarr_maxstrlen`),
    /// else the dataset's `_nczarr_default_maxstrlen`, else its longest string; never
    /// less than its longest string or its fill value, so nothing is cut (netcdf-c
    /// cuts strings longer than the width it is told).
    fn string_widths(&mut self) {
        for (path, var) in self.ds.vars() {
            if var.nc_type != NcType::String {
                continue;
            }
            let longest_of = |v: Option<&Values>| match v {
                Some(Values::String(s)) => s.iter().flatten().map(<[u8]>::len).max(),
                _ => None,
            };
            let longest = longest_of(self.values.get(&path));
            let enc = self.encodings.entry(path).or_default();
            let fill = longest_of(enc.fill.as_ref());
            let least = longest.max(fill);
            enc.string_width = match enc.string_width.or(self.default_maxstrlen) {
                Some(w) => Some(least.map_or(w, |l| w.max(l))),
                None => longest.map(|l| l.max(fill.unwrap_or(1)).max(1)).or(least),
            };
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
