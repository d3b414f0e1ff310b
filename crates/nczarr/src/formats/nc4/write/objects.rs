//! A dataset as netcdf-c 4.9 lays it out in HDF5: a group per group, a dataset per
//! variable, and the dimension scales that carry the dimensions.
//!
//! - A dimension with a coordinate variable (a variable of its name in its group whose
//!   first dimension it is) is that variable's dataset, marked a scale (`CLASS`,
//!   `NAME`); any other dimension is a dataset of its name holding no values, of type
//!   big-endian float, `NAME`d "This is a netCDF dimension but not a netCDF
//!   variable." and its length. Each scale has `_Netcdf4Dimid`, the dimension's id
//!   (numbered through the file as defined, group by group).
//! - Every variable with dimensions has `_Netcdf4Coordinates` (its dimension ids); a
//!   variable that is not a scale has `DIMENSION_LIST` (a reference to each
//!   dimension's scale), and each scale a `REFERENCE_LIST` back: readers that do not
//!   know netCDF (h5py, h5netcdf) find the dimensions there.
//! - A variable named like a dimension it is not the coordinate variable of is stored
//!   as `_nc4_non_coord_<name>`, as netcdf-c does, and read back under its name.

use std::collections::HashMap;

use super::encode::{Filter, H5Type};
use super::filters::filters_of;
use super::types::{h5type, stored_bytes};
use crate::encoding::{Chunking, Encoding, Endianness, Plan};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::user::UserKind;
use crate::model::{Attr, Dataset, Group, NcType, Values, VarPath};

/// What netcdf-c names a dimension's scale that is no variable.
pub(super) const DIM_WITHOUT_VARIABLE: &str =
    "This is a netCDF dimension but not a netCDF variable.";

/// The prefix of a variable stored under another name (see the module's notes).
pub const NON_COORD_PREFIX: &str = "_nc4_non_coord_";

/// Attributes this writer writes itself, not taken from a dataset.
pub(super) const OWN_ATTRS: &[&str] = &[
    "_NCProperties",
    "_IsNetcdf4",
    "_SuperblockVersion",
    "_Format",
    "_Netcdf4Dimid",
    "_Netcdf4Coordinates",
    "_nc3_strict",
    "DIMENSION_LIST",
    "REFERENCE_LIST",
];

/// Whether `dim` is unlimited in a netCDF-4 file: a fixed length of 0 is too, as
/// netcdf-c reads it (its `NC_UNLIMITED` is 0), so that every reader sees one kind.
pub(super) fn is_unlimited(dim: &crate::model::Dim) -> bool {
    dim.unlimited || dim.len == 0
}

/// How a dataset's values are stored.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Storage {
    /// Inside its header.
    Compact,
    /// One piece.
    Contiguous,
    /// Chunks of this shape.
    Chunked(Vec<u64>),
}

/// One attribute: its datatype and dataspace messages and its values.
#[derive(Debug, Clone)]
pub(super) struct AttrPlan {
    /// The name.
    pub(super) name: String,
    /// The datatype message.
    pub(super) datatype: Vec<u8>,
    /// The dataspace message.
    pub(super) dataspace: Vec<u8>,
    /// The values.
    pub(super) data: AttrData,
    /// Of this named type (an index into [`FilePlan::types`]): `datatype` is then
    /// shared with it.
    pub(super) committed: Option<usize>,
}

/// An attribute's values.
#[derive(Debug, Clone)]
pub(super) enum AttrData {
    /// As stored.
    Bytes(Vec<u8>),
    /// Variable-length strings (NIL as `None`), stored in the global heap.
    Strings(Vec<Option<Vec<u8>>>),
    /// Values of a user-defined type (other than an enum) of HDF5 type `h5type`.
    User {
        h5type: H5Type,
        values: Vec<crate::model::UValue>,
    },
}

/// One HDF5 dataset.
#[derive(Debug, Clone)]
pub(super) struct DatasetPlan {
    /// Its link name.
    pub(super) name: String,
    /// The variable it stores; `None` for a dimension's scale with no variable.
    pub(super) var: Option<VarPath>,
    /// The netCDF type of its values.
    pub(super) nc_type: NcType,
    /// The HDF5 type.
    pub(super) h5type: H5Type,
    /// Current lengths; empty for a scalar.
    pub(super) shape: Vec<u64>,
    /// Maximum lengths when a dimension is unlimited.
    pub(super) max: Option<Vec<u64>>,
    /// How the values are stored.
    pub(super) storage: Storage,
    /// The codec chain chunks are encoded with, in encode order.
    pub(super) codecs: Vec<Json>,
    /// The same as HDF5 filters.
    pub(super) filters: Vec<Filter>,
    /// The fill value as stored (`None`: HDF5's default, zeros).
    pub(super) fill: Option<Vec<u8>>,
    /// `_NoFill`.
    pub(super) no_fill: bool,
    /// Values stored big-endian.
    pub(super) big: bool,
    /// Of this named type (an index into [`FilePlan::types`]), shared with it.
    pub(super) committed: Option<usize>,
    /// Of a user-defined type other than an enum: values come as
    /// [`crate::model::UValue`]s.
    pub(super) user: bool,
    /// Its own attributes, in order.
    pub(super) attrs: Vec<AttrPlan>,
    /// The dimension it is the scale of (an index into [`FilePlan::dims`]).
    pub(super) scale_of: Option<usize>,
    /// Its dimensions (indexes into [`FilePlan::dims`]).
    pub(super) dims: Vec<usize>,
}

impl DatasetPlan {
    /// Bytes of one element as stored.
    pub(super) fn item(&self) -> usize {
        self.h5type.size() as usize
    }

    /// What fills the parts of a chunk no value reaches: the fill value, else zeros.
    pub(super) fn pad_item(&self) -> Vec<u8> {
        self.fill.clone().unwrap_or_else(|| vec![0; self.item()])
    }
}

/// One dimension.
#[derive(Debug, Clone)]
pub(super) struct DimPlan {
    /// Its id (`_Netcdf4Dimid`).
    pub(super) id: i32,
    /// The dataset that is its scale.
    pub(super) scale: usize,
    /// Its name (the scale's `NAME` when the scale is a variable).
    pub(super) name: String,
    /// Its length.
    pub(super) len: u64,
}

/// One group.
#[derive(Debug, Clone)]
pub(super) struct GroupPlan {
    /// Its name (empty for the root).
    pub(super) name: String,
    /// Its attributes, in order.
    pub(super) attrs: Vec<AttrPlan>,
    /// Its datasets, in the order they are linked.
    pub(super) datasets: Vec<usize>,
    /// Its subgroups, in order.
    pub(super) groups: Vec<usize>,
    /// The named types it defines (indexes into [`FilePlan::types`]), linked first.
    pub(super) types: Vec<usize>,
}

/// A named (committed) datatype: a user-defined type of netCDF-4.
#[derive(Debug, Clone)]
pub(super) struct TypePlan {
    /// Its name.
    pub(super) name: String,
    /// The type.
    pub(super) h5type: H5Type,
    /// Not an enum: values of it are [`crate::model::UValue`]s.
    pub(super) user: bool,
}

/// The named types by where they are defined (group path, name).
type TypeIndex = HashMap<(Vec<String>, String), usize>;

/// Everything a netCDF-4 file holds but the values.
#[derive(Debug, Clone)]
pub(super) struct FilePlan {
    /// The groups, the root first.
    pub(super) groups: Vec<GroupPlan>,
    /// The datasets.
    pub(super) datasets: Vec<DatasetPlan>,
    /// The dimensions, by id.
    pub(super) dims: Vec<DimPlan>,
    /// The named types.
    pub(super) types: Vec<TypePlan>,
}

/// An attribute as netcdf-c stores it: text as one fixed-length string (a scalar), no
/// values as a null dataspace, anything else a one-dimensional array.
pub(super) fn attr_plan(attr: &Attr) -> AttrPlan {
    let n = attr.values.len() as u64;
    let (datatype, dataspace, data) = match &attr.values {
        Values::Char(text) => (
            H5Type::Fixed {
                size: text.len().max(1) as u32,
                utf8: false,
            },
            if text.is_empty() {
                super::encode::null_dataspace()
            } else {
                super::encode::dataspace(None, None)
            },
            AttrData::Bytes(text.clone()),
        ),
        Values::String(strings) => (
            H5Type::VlenString,
            super::encode::dataspace(Some(&[n]), None),
            AttrData::Strings(strings.iter().map(|s| s.map(<[u8]>::to_vec)).collect()),
        ),
        v => (
            h5type(v.nc_type(), false),
            if n == 0 {
                super::encode::null_dataspace()
            } else {
                super::encode::dataspace(Some(&[n]), None)
            },
            AttrData::Bytes(stored_bytes(v, false).unwrap_or_default()),
        ),
    };
    AttrPlan {
        name: attr.name.clone(),
        datatype: datatype.encode(),
        dataspace,
        data,
        committed: None,
    }
}

/// A fixed-length string attribute of `text` with its terminating null (as the
/// dimension scale API writes `CLASS` and `NAME`).
pub(super) fn text_attr(name: &str, text: &str) -> AttrPlan {
    fixed_text_attr(name, format!("{text}\0").into_bytes())
}

/// A fixed-length string attribute of `text`, no terminating null (`_NCProperties`).
pub(super) fn text_attr_unterminated(name: &str, text: &str) -> AttrPlan {
    fixed_text_attr(name, text.as_bytes().to_vec())
}

/// A scalar fixed-length string attribute holding `bytes`.
fn fixed_text_attr(name: &str, bytes: Vec<u8>) -> AttrPlan {
    AttrPlan {
        name: name.into(),
        datatype: H5Type::Fixed {
            size: bytes.len() as u32,
            utf8: false,
        }
        .encode(),
        dataspace: super::encode::dataspace(None, None),
        data: AttrData::Bytes(bytes),
        committed: None,
    }
}

/// A scalar int attribute.
pub(super) fn int_attr(name: &str, value: i32) -> AttrPlan {
    AttrPlan {
        name: name.into(),
        datatype: h5type(NcType::Int, false).encode(),
        dataspace: super::encode::dataspace(None, None),
        data: AttrData::Bytes(value.to_le_bytes().to_vec()),
        committed: None,
    }
}

/// The user's attributes of an object, without those this writer writes itself.
fn user_attrs(attrs: &[Attr], types: &TypeIndex, planned: &[TypePlan]) -> Vec<AttrPlan> {
    attrs
        .iter()
        .filter(|a| !OWN_ATTRS.contains(&a.name.as_str()))
        .map(|a| {
            let mut p = attr_plan(a);
            let Some(u) = &a.user else {
                return p;
            };
            p.committed = types.get(&(u.ty.group.clone(), u.ty.name.clone())).copied();
            if let Some(t) = p.committed.map(|k| &planned[k]).filter(|t| t.user) {
                let n = u.values.len() as u64;
                p.datatype = t.h5type.encode();
                p.dataspace = if n == 0 {
                    super::encode::null_dataspace()
                } else {
                    super::encode::dataspace(Some(&[n]), None)
                };
                p.data = AttrData::User {
                    h5type: t.h5type.clone(),
                    values: u.values.clone(),
                };
            }
            p
        })
        .collect()
}

/// Lay `dataset` out as planned in `plan` (already fitted by `fit_plan`).
///
/// # Errors
/// [`Error::Invalid`] for a variable without an encoding or a dangling dimension.
pub(super) fn file_plan(
    dataset: &Dataset,
    plan: &Plan,
    extra_root_attrs: Vec<AttrPlan>,
) -> Result<FilePlan> {
    let mut out = FilePlan {
        groups: Vec::new(),
        datasets: Vec::new(),
        dims: Vec::new(),
        types: Vec::new(),
    };
    let mut dim_index: HashMap<(Vec<String>, String), usize> = HashMap::new();
    add_group(
        dataset,
        &dataset.root,
        &mut Vec::new(),
        plan,
        &mut out,
        &mut dim_index,
        &mut TypeIndex::new(),
    )?;
    out.groups[0].attrs.splice(0..0, extra_root_attrs);
    Ok(out)
}

fn add_group(
    dataset: &Dataset,
    group: &Group,
    path: &mut Vec<String>,
    plan: &Plan,
    out: &mut FilePlan,
    dim_index: &mut HashMap<(Vec<String>, String), usize>,
    types: &mut TypeIndex,
) -> Result<usize> {
    let g = out.groups.len();
    out.groups.push(GroupPlan {
        name: path.last().cloned().unwrap_or_default(),
        attrs: Vec::new(),
        datasets: Vec::new(),
        groups: Vec::new(),
        types: Vec::new(),
    });
    // Named types first: attributes and variables here and below may be of them.
    for t in &group.types {
        let h5type = {
            let named = |id: &crate::model::TypeId| {
                types
                    .get(&(id.group.clone(), id.name.clone()))
                    .map(|&k| &out.types[k].h5type)
            };
            super::user::user_h5type(&t.kind, &named).map_err(|e| {
                Error::Invalid(format!(
                    "type {}: {e}",
                    crate::model::TypeId {
                        group: path.clone(),
                        name: t.name.clone()
                    }
                ))
            })?
        };
        let k = out.types.len();
        out.types.push(TypePlan {
            name: t.name.clone(),
            h5type,
            user: !matches!(t.kind, UserKind::Enum { .. }),
        });
        types.insert((path.clone(), t.name.clone()), k);
        out.groups[g].types.push(k);
    }
    out.groups[g].attrs = user_attrs(&group.attrs, types, &out.types);
    let coord_var = |dim: &str| {
        group.vars.iter().find(|v| {
            v.name == dim
                && v.user_type.is_none()
                && v.dims
                    .first()
                    .is_some_and(|d| d.name == dim && d.group == *path)
        })
    };
    // Dimensions first: each gets its id and, without a coordinate variable, its scale.
    let mut pending_coords = Vec::new();
    for dim in &group.dims {
        let d = out.dims.len();
        dim_index.insert((path.clone(), dim.name.clone()), d);
        out.dims.push(DimPlan {
            id: d as i32,
            scale: usize::MAX,
            name: dim.name.clone(),
            len: dim.len,
        });
        if coord_var(&dim.name).is_some() {
            pending_coords.push(d);
            continue;
        }
        let s = out.datasets.len();
        out.dims[d].scale = s;
        out.datasets.push(DatasetPlan {
            name: dim.name.clone(),
            var: None,
            nc_type: NcType::Float,
            h5type: h5type(NcType::Float, true),
            shape: vec![dim.len],
            max: is_unlimited(dim).then(|| vec![super::encode::UNLIMITED]),
            storage: if is_unlimited(dim) {
                Storage::Chunked(vec![1])
            } else {
                Storage::Contiguous
            },
            codecs: Vec::new(),
            filters: Vec::new(),
            fill: None,
            no_fill: false,
            big: true,
            committed: None,
            user: false,
            attrs: Vec::new(),
            scale_of: Some(d),
            dims: Vec::new(),
        });
        out.groups[g].datasets.push(s);
    }
    for var in &group.vars {
        let vp = VarPath::new(path, &var.name);
        let enc = plan
            .get(&vp)
            .ok_or_else(|| Error::Invalid(format!("variable '{vp}' has no encoding")))?;
        let mut dims = Vec::new();
        let mut unlimited = false;
        for r in &var.dims {
            let d = *dim_index
                .get(&(r.group.clone(), r.name.clone()))
                .ok_or_else(|| {
                    Error::Invalid(format!(
                        "variable '{vp}': dimension '{}' is not defined above it",
                        r.fqn()
                    ))
                })?;
            unlimited |= dataset.dim(r).is_some_and(is_unlimited);
            dims.push(d);
        }
        let is_coord = coord_var(&var.name).is_some_and(|c| std::ptr::eq(c, var));
        let scale_of = is_coord.then(|| dims[0]);
        let name = if !is_coord && group.dims.iter().any(|d| d.name == var.name) {
            format!("{NON_COORD_PREFIX}{}", var.name)
        } else {
            var.name.clone()
        };
        let shape = dataset.var_shape(var);
        let max = unlimited.then(|| {
            var.dims
                .iter()
                .zip(&shape)
                .map(|(r, &len)| {
                    if dataset.dim(r).is_some_and(is_unlimited) {
                        super::encode::UNLIMITED
                    } else {
                        len
                    }
                })
                .collect()
        });
        let s = out.datasets.len();
        let committed = var
            .user_type
            .as_ref()
            .and_then(|id| types.get(&(id.group.clone(), id.name.clone())))
            .map(|&k| (k, &out.types[k]));
        let mut d = dataset_of_var(
            name,
            vp,
            var.nc_type,
            committed.map(|(_, t)| &t.h5type),
            shape,
            max,
            enc,
            user_attrs(&var.attrs, types, &out.types),
            scale_of,
            dims,
        );
        if let Some((k, t)) = committed {
            d.committed = Some(k);
            d.user = t.user;
            if t.user {
                d.fill = user_fill(&d);
            }
        }
        out.datasets.push(d);
        if let Some(d) = scale_of {
            out.dims[d].scale = s;
        }
        out.groups[g].datasets.push(s);
    }
    debug_assert!(pending_coords
        .iter()
        .all(|&d| out.dims[d].scale != usize::MAX));
    for child in &group.groups {
        path.push(child.name.clone());
        let c = add_group(dataset, child, path, plan, out, dim_index, types)?;
        path.pop();
        out.groups[g].groups.push(c);
    }
    Ok(g)
}

/// The fill value of a dataset of a user-defined type, from its `_FillValue`, when
/// its bytes stand alone (no variable-length parts, which would live in the heap):
/// otherwise HDF5's default, zeros (empty vlens), with `_FillValue` kept as the
/// attribute netcdf-c reads the fill from.
fn user_fill(d: &DatasetPlan) -> Option<Vec<u8>> {
    let a = d.attrs.iter().find(|a| a.name == "_FillValue")?;
    let AttrData::User { h5type, values } = &a.data else {
        return None;
    };
    let mut heap = super::gheap::HeapBuilder::default();
    let e = super::user::encode(h5type, values.get(..1)?, &mut heap).ok()?;
    (e.patches.is_empty() && heap.is_empty()).then_some(e.bytes)
}

#[allow(clippy::too_many_arguments)]
fn dataset_of_var(
    name: String,
    var: VarPath,
    nc_type: NcType,
    user_type: Option<&H5Type>,
    shape: Vec<u64>,
    max: Option<Vec<u64>>,
    enc: &Encoding,
    attrs: Vec<AttrPlan>,
    scale_of: Option<usize>,
    dims: Vec<usize>,
) -> DatasetPlan {
    let big = enc.endian == Some(Endianness::Big)
        && nc_type.size() > 1
        && nc_type != NcType::String
        && user_type.is_none();
    let h5type = user_type.cloned().unwrap_or_else(|| h5type(nc_type, big));
    let storage = match &enc.chunking {
        _ if shape.is_empty() && enc.chunking == Some(Chunking::Compact) => Storage::Compact,
        _ if shape.is_empty() => Storage::Contiguous,
        Some(Chunking::Chunked(c)) => Storage::Chunked(c.clone()),
        Some(Chunking::Compact) => Storage::Compact,
        _ => Storage::Contiguous,
    };
    let item = h5type.size();
    let chunk_bytes = match &storage {
        Storage::Chunked(c) => {
            (c.iter().product::<u64>() * u64::from(item)).min(u64::from(u32::MAX)) as u32
        }
        _ => 0,
    };
    let codecs = if matches!(storage, Storage::Chunked(_)) {
        enc.codecs.clone()
    } else {
        Vec::new()
    };
    let filters = filters_of(&codecs, item, chunk_bytes).unwrap_or_default();
    let fill = match nc_type {
        // A string's fill is netCDF's "" whatever HDF5 holds: left undefined.
        NcType::String => None,
        _ => enc
            .fill
            .as_ref()
            .filter(|f| f.nc_type() == nc_type && f.len() == 1)
            .and_then(|f| stored_bytes(f, big)),
    };
    DatasetPlan {
        name,
        var: Some(var),
        nc_type,
        h5type,
        shape,
        max,
        storage,
        codecs,
        filters,
        fill,
        no_fill: enc.no_fill,
        big,
        committed: None,
        user: false,
        attrs,
        scale_of,
        dims,
    }
}
