//! The base variables of a DDS as netcdf-c's DAP2 client finds them (`cdf.c`'s
//! `computevarnodes`): their netCDF names, their DAP paths for constraints, their
//! dimensions with those of the structures and sequences around them, and the maps
//! of grids (no variables, but what DAS tables may name); and the sequences whose
//! records are counted before a view is built.

use super::dds::{DapType, Decl, DimDecl};
use super::names::legal_name;
use crate::model::NcType;

/// One segment of a variable's path in a constraint expression: a DAP name (as the
/// DDS spells it) and how many of the variable's dimensions are its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    /// The name as the DDS spells it.
    pub(crate) name: String,
    /// The dimensions this segment's brackets hold.
    pub(crate) rank: usize,
    /// A sequence: its one dimension (its rows) is never written in brackets; its
    /// values are asked for whole and cut here.
    pub(crate) sequence: bool,
}

/// The netCDF type netcdf-c's classic view gives a DAP type.
pub(crate) fn nc_type(t: DapType) -> NcType {
    match t {
        DapType::Byte => NcType::Byte,
        DapType::Int16 | DapType::UInt16 => NcType::Short,
        DapType::Int32 | DapType::UInt32 => NcType::Int,
        DapType::Float32 => NcType::Float,
        DapType::Float64 => NcType::Double,
        DapType::String | DapType::Url => NcType::Char,
    }
}

/// One base variable of the DDS, before its dimensions are named.
pub(crate) struct Atomic {
    /// Its netCDF name (`S.f`, the grid's name for a grid's array).
    pub(crate) name: String,
    /// Its DAP name alone (what a DAS table may be named).
    pub(crate) dap_name: String,
    /// Its DAP path, containers included (`S.f`, `grid.array`).
    pub(crate) dap_full: String,
    pub(crate) segments: Vec<Segment>,
    pub(crate) ty: DapType,
    /// Dimensions of the structures around it, then its own.
    pub(crate) dims: Vec<DimDecl>,
    /// For a grid's array: its maps' names, one per dimension.
    pub(crate) map_names: Option<Vec<String>>,
    /// A grid's map: no variable, but a DAS table naming it is its (netcdf-c matches
    /// tables against every base variable of the DDS).
    pub(crate) map: bool,
}

/// A sequence netcdf-c shows (not inside another sequence, only scalar structures
/// around it): its DAP path, and the constraint whose answer's rows count its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SequenceCount {
    /// Its path of DAP names (`obs`, `S.obs`).
    pub(crate) path: String,
    /// The path of its first field that is not text (or its first field).
    pub(crate) count_by: String,
    /// That field's values in one record (an array field has several).
    pub(crate) per_row: u64,
}

/// The sequences of `decls` whose records must be counted before the view is built.
pub(crate) fn sequences(decls: &[Decl], prefix: &str, out: &mut Vec<SequenceCount>) {
    for d in decls {
        match d {
            Decl::Structure { name, fields, dims } if dims.is_empty() => {
                sequences(fields, &join(prefix, name), out);
            }
            Decl::Sequence { name, fields } => {
                let path = join(prefix, name);
                // Its first number field, through structures (else its first text
                // field): the rows of its answer count the records.
                if let Some((count_by, per_row)) =
                    first_field(fields, &path, false).or_else(|| first_field(fields, &path, true))
                {
                    out.push(SequenceCount {
                        count_by,
                        per_row,
                        path,
                    });
                }
            }
            _ => {}
        }
    }
}

/// The path of the first base field of `fields` (through scalar structures, never
/// another sequence), text ones only when `text`, and its values in one record.
fn first_field(fields: &[Decl], prefix: &str, text: bool) -> Option<(String, u64)> {
    fields.iter().find_map(|f| match f {
        Decl::Base { ty, name, dims } if text || !ty.is_text() => Some((
            join(prefix, name),
            dims.iter().map(|d| d.size).product::<u64>().max(1),
        )),
        Decl::Structure { name, fields, dims } if dims.is_empty() => {
            first_field(fields, &join(prefix, name), text)
        }
        _ => None,
    })
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// The base variables of `decls`, in netcdf-c's order: top-level ones, then grids'
/// arrays, then structures' and sequences' fields; `counts` the records of each
/// sequence ([`sequences`]; a sequence not counted is left out, fields and all). The
/// error is a variable's name and why.
pub(crate) fn atomics(
    decls: &[Decl],
    counts: &[(String, u64)],
) -> Result<Vec<Atomic>, (String, String)> {
    let mut top = Vec::new();
    let mut grids = Vec::new();
    let mut fields = Vec::new();
    let mut maps = Vec::new();
    let mut walker = Walker {
        counts,
        top: &mut top,
        grids: &mut grids,
        fields: &mut fields,
        maps: &mut maps,
    };
    walker.walk(decls, &[], &[], &[])?;
    top.extend(grids);
    top.extend(fields);
    top.extend(maps);
    Ok(top)
}

/// Where [`atomics`] puts what it finds.
struct Walker<'a> {
    counts: &'a [(String, u64)],
    top: &'a mut Vec<Atomic>,
    grids: &'a mut Vec<Atomic>,
    fields: &'a mut Vec<Atomic>,
    maps: &'a mut Vec<Atomic>,
}

impl Walker<'_> {
    fn walk(
        &mut self,
        decls: &[Decl],
        names: &[String],
        segments: &[Segment],
        dims: &[DimDecl],
    ) -> Result<(), (String, String)> {
        let joined = |more: &str| {
            let mut n = names.to_vec();
            n.push(legal_name(more));
            n.join(".")
        };
        let full = |more: &str| {
            let mut n: Vec<String> = segments.iter().map(|s| s.name.clone()).collect();
            n.push(more.to_string());
            n.join(".")
        };
        for d in decls {
            match d {
                Decl::Base {
                    ty,
                    name,
                    dims: own,
                } => {
                    let mut segs = segments.to_vec();
                    segs.push(Segment {
                        name: name.clone(),
                        rank: own.len(),
                        sequence: false,
                    });
                    let mut all = dims.to_vec();
                    all.extend(own.iter().cloned());
                    let a = Atomic {
                        name: joined(name),
                        dap_name: name.clone(),
                        dap_full: full(name),
                        segments: segs,
                        ty: *ty,
                        dims: all,
                        map_names: None,
                        map: false,
                    };
                    if names.is_empty() {
                        self.top.push(a);
                    } else {
                        self.fields.push(a);
                    }
                }
                Decl::Grid { name, array, maps } => {
                    if let Decl::Base {
                        ty,
                        name: aname,
                        dims: own,
                    } = array.as_ref()
                    {
                        let mut segs = segments.to_vec();
                        segs.push(Segment {
                            name: name.clone(),
                            rank: 0,
                            sequence: false,
                        });
                        segs.push(Segment {
                            name: aname.clone(),
                            rank: own.len(),
                            sequence: false,
                        });
                        // A valid grid (a 1-D map per dimension, names agreeing) names
                        // its dimensions after its maps.
                        let map_names = valid_grid(own, maps);
                        let mut all = dims.to_vec();
                        all.extend(own.iter().cloned());
                        self.grids.push(Atomic {
                            name: joined(name),
                            dap_name: aname.clone(),
                            dap_full: format!("{}.{aname}", full(name)),
                            segments: segs,
                            ty: *ty,
                            dims: all,
                            map_names,
                            map: false,
                        });
                        for m in maps {
                            if let Decl::Base {
                                ty,
                                name: mname,
                                dims: mdims,
                            } = m
                            {
                                self.maps.push(Atomic {
                                    name: joined(mname),
                                    dap_name: mname.clone(),
                                    dap_full: format!("{}.{mname}", full(name)),
                                    segments: Vec::new(),
                                    ty: *ty,
                                    dims: mdims.clone(),
                                    map_names: None,
                                    map: true,
                                });
                            }
                        }
                    }
                }
                Decl::Structure {
                    name,
                    fields: inner,
                    dims: own,
                } => {
                    let mut n = names.to_vec();
                    n.push(legal_name(name));
                    let mut segs = segments.to_vec();
                    segs.push(Segment {
                        name: name.clone(),
                        rank: own.len(),
                        sequence: false,
                    });
                    // Its dimensions come first in each field's (an anonymous one named
                    // after the field, as netcdf-c names it: never shared).
                    let mut all = dims.to_vec();
                    all.extend(own.iter().cloned());
                    self.walk(inner, &n, &segs, &all)?;
                }
                Decl::Sequence {
                    name,
                    fields: inner,
                } => {
                    // A sequence netcdf-c cannot show (in another sequence, or in an
                    // array of structures) is left out with its fields, as it leaves it.
                    let path = full(name);
                    let Some(&(_, rows)) = self.counts.iter().find(|(p, _)| *p == path) else {
                        continue;
                    };
                    if segments.iter().any(|s| s.sequence || s.rank > 0) {
                        continue;
                    }
                    let mut n = names.to_vec();
                    n.push(legal_name(name));
                    let mut segs = segments.to_vec();
                    segs.push(Segment {
                        name: name.clone(),
                        rank: 1,
                        sequence: true,
                    });
                    let mut all = dims.to_vec();
                    all.push(DimDecl {
                        name: Some(name.clone()),
                        size: rows,
                    });
                    let inner: Vec<Decl> = inner
                        .iter()
                        .filter(|f| !matches!(f, Decl::Sequence { .. }))
                        .cloned()
                        .collect();
                    self.walk(&inner, &n, &segs, &all)?;
                }
            }
        }
        Ok(())
    }
}

/// The maps' names of a grid whose every dimension has a 1-D map agreeing with it.
fn valid_grid(dims: &[DimDecl], maps: &[Decl]) -> Option<Vec<String>> {
    if dims.len() != maps.len() {
        return None;
    }
    let mut names = Vec::new();
    for (d, m) in dims.iter().zip(maps) {
        let Decl::Base {
            name, dims: mdims, ..
        } = m
        else {
            return None;
        };
        let [md] = mdims.as_slice() else {
            return None;
        };
        if md.size != d.size
            || d.name.as_ref().is_some_and(|n| n != name)
            || md.name.as_ref().is_some_and(|n| n != name)
        {
            return None;
        }
        names.push(legal_name(name));
    }
    Some(names)
}

impl Atomic {
    /// Its DAP type.
    pub(crate) fn ty(&self) -> DapType {
        self.ty
    }
}
