//! The netCDF model of a netCDF-4 file, rebuilt from its HDF5 objects the way
//! netcdf-c's `libhdf5` reads them.
//!
//! netCDF-4's conventions on top of HDF5: a dimension is a dataset marked as a
//! dimension scale (`CLASS = "DIMENSION_SCALE"`), numbered by `_Netcdf4Dimid`; a
//! scale whose `NAME` begins "This is a netCDF dimension but not a netCDF variable"
//! is a dimension only, any other scale is also its coordinate variable. A variable
//! names its dimensions by references to their scales (`DIMENSION_LIST`); a
//! coordinate variable of several dimensions lists their ids in
//! `_Netcdf4Coordinates`. A scale that gives way to a variable of the same name is
//! stored as `_nc4_non_coord_<name>`. Objects and attributes are read in creation
//! order. The attributes of these conventions are hidden, as netcdf-c hides them.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use hdf5_reader::group::{Group as H5Group, LinkKind};
use hdf5_reader::messages::dataspace::DataspaceType;
use hdf5_reader::messages::HdfMessage;
use hdf5_reader::{Dataset as H5Dataset, Hdf5File, RawAttribute};

use super::attrs::{attr_values, find, int_values, text_of, user_attr};
use super::chunks::ChunkMap;
use super::fault::Fault;
use super::refs;
use super::types::{stored_type, StoredType};
use super::user::{self, UserTypes};
use crate::codec::hdf5 as filters;
use crate::codec::Pipeline;
use crate::encoding::{Chunking, Encoding};
use crate::json::Json;
use crate::model::{Attr, Dataset, Dim, DimRef, Group, NcType, Var, VarPath};

/// The attribute names netcdf-c 4.9.0 reserves (`NC_reserved`): never shown as
/// attributes, and each on a dataset counts towards `_IsNetcdf4` (`NC4_walk`), as a
/// dataset named `phony_dim` does. Checked one by one with ncdump 4.9.0 on h5py
/// files (`-h` hides each, `-s` counts each).
pub(crate) const RESERVED: [&str; 14] = [
    "CLASS",
    "DIMENSION_LIST",
    "NAME",
    "REFERENCE_LIST",
    "_ARRAY_DIMENSIONS",
    "_Codecs",
    "_Format",
    "_IsNetcdf4",
    "_NCProperties",
    "_NCZARR_ATTR",
    "_Netcdf4Coordinates",
    "_Netcdf4Dimid",
    "_SuperblockVersion",
    "_nc3_strict",
];

/// The `NAME` of a scale that is a dimension and not a variable starts so.
const DIM_ONLY: &str = "This is a netCDF dimension but not a netCDF variable";

/// The prefix of a scale's dataset name when a variable took the dimension's name.
const NON_COORD: &str = "_nc4_non_coord_";

/// How one variable is stored, for reading its values.
pub(super) struct VarInfo {
    /// The HDF5 dataset (its shape widened to the dimensions' lengths).
    pub ds: H5Dataset,
    /// The element type as stored.
    pub stored: StoredType,
    /// The encoding `ncdump -s` describes.
    pub encoding: Encoding,
    /// HDF5 filters in the pipeline with no decoder here (id and name).
    pub missing_filters: Vec<String>,
    /// Where its chunks are, read when a copy first asks for a chunk as stored.
    pub chunk_map: OnceLock<Result<ChunkMap, Fault>>,
    /// The codecs its chunks are decoded with when read as stored, built at the first
    /// such read (`None`: a chain this crate does not decode as Zarr codecs).
    pub codecs: OnceLock<Option<Pipeline>>,
    /// An HDF5 null dataspace: no element is stored, the variable (a scalar here)
    /// reads as its fill value.
    pub null_space: bool,
    /// The HDF5 datatype of a variable of a user-defined type other than an enum,
    /// whose elements are read as `UValue`s.
    pub user: Option<hdf5_reader::Datatype>,
    /// Every object's path by address, for a variable of object references (read as
    /// the paths, strings).
    pub object_refs: Option<Arc<HashMap<u64, String>>>,
}

/// What a netCDF-4 file holds.
pub(super) struct Meta {
    pub dataset: Dataset,
    pub vars: HashMap<VarPath, VarInfo>,
    pub problems: Vec<String>,
    /// `_NCProperties` of the root group.
    pub nc_properties: Option<String>,
    /// True for the netCDF-4 classic model (`_nc3_strict` on the root group).
    pub classic_model: bool,
    /// netcdf-c 4.9.0's `_IsNetcdf4` (`NC4_isnetcdf4`): no `_nc3_strict`, and at least
    /// two markers ([`RESERVED`]) on the datasets reached by hard links.
    pub is_netcdf4: bool,
}

/// The model of the file `file`.
///
/// # Errors
/// One line naming the object that could not be read.
pub(super) fn read(file: &Hdf5File) -> Result<Meta, Fault> {
    let root = file
        .root_group()
        .map_err(|e| Fault::from(e).context("root group"))?;
    let mut walk = Walk {
        file,
        vars: HashMap::new(),
        problems: Vec::new(),
        by_address: HashMap::new(),
        by_id: HashMap::new(),
        phony: HashMap::new(),
        next_dimid: 0,
        markers: 0,
        types: UserTypes::default(),
        transient_types: Vec::new(),
        object_paths: None,
    };
    let mut group = walk.group(&root, &[], true)?;
    group.name = String::new();
    walk.phony_dims(&mut group, &mut Vec::new());
    // The root's hidden attributes say what the file is (read again: the walk hides them).
    let root_attrs = root.raw_attributes().unwrap_or_default();
    // netcdf-c reads `_NCProperties` only as a string (`NC4_read_ncproperties`); any
    // other type is no provenance, and ncdump -s shows none.
    let nc_properties = find(&root_attrs, "_NCProperties")
        .filter(|a| matches!(a.message().datatype, hdf5_reader::Datatype::String { .. }))
        .map(text_of);
    let classic_model = find(&root_attrs, "_nc3_strict").is_some();
    let mut dataset = Dataset { root: group };
    walk.widen_unlimited(&mut dataset)?;
    Ok(Meta {
        is_netcdf4: !classic_model && walk.markers >= 2,
        dataset,
        vars: walk.vars,
        problems: walk.problems,
        nc_properties,
        classic_model,
    })
}

/// One dimension scale met in a group.
struct Scale {
    id: Option<i32>,
    dim: Dim,
    /// True when the scale is a dimension only, not a variable.
    dim_only: bool,
}

struct Walk<'f> {
    file: &'f Hdf5File,
    /// Every object's path by address, made when the first object reference is met.
    object_paths: Option<Arc<HashMap<u64, String>>>,
    vars: HashMap<VarPath, VarInfo>,
    problems: Vec<String>,
    /// Dimensions by the object address of their scale (`DIMENSION_LIST`).
    by_address: HashMap<u64, DimRef>,
    /// Dimensions by `_Netcdf4Dimid`, for each group's path (ids are per file in
    /// netcdf-c, but are looked up from the variable's group outwards).
    by_id: HashMap<(Vec<String>, i32), DimRef>,
    /// Variables without dimension scales, by path: for each axis its length and
    /// whether it is unlimited. Their dimensions are made once the walk is over.
    phony: HashMap<VarPath, Vec<(u64, bool)>>,
    /// netcdf-c's `next_dimid`: the id (and `phony_dim_N` number) of the next
    /// dimension made.
    next_dimid: i64,
    /// netCDF-4's markers ([`RESERVED`]) seen on datasets reached by hard links only.
    markers: usize,
    /// The user-defined types read so far.
    types: UserTypes,
    /// Types made for the variables of the group being read (see
    /// [`UserTypes::transient`]), added to it after each variable.
    transient_types: Vec<crate::model::UserType>,
}

impl Walk<'_> {
    /// The group `g` at `path`; `hard` when it and every group above it is reached by
    /// hard links, which is where netcdf-c looks for netCDF-4's markers.
    fn group(&mut self, g: &H5Group, path: &[String], hard: bool) -> Result<Group, Fault> {
        let here =
            |e: hdf5_reader::error::Error| Fault::from(e).context(format!("group {}", shown(path)));
        let (children, datasets) = g.members_with_links().map_err(here)?;
        // netcdf-c's NC4_walk passes over soft and external links
        // (H5Gget_objtype_by_idx calls them links); the model follows them.
        let counted = |kind: LinkKind| hard && kind == LinkKind::Hard;
        let mut group = Group::new(path.last().cloned().unwrap_or_default());
        // Types first: the group's attributes and variables may have them.
        for (name, dt) in g.committed_datatypes().map_err(here)? {
            let defined = self.types.define(path, &name, &dt);
            group.types.append(&mut self.types.take_made());
            match defined {
                Ok(Some(t)) => group.types.push(t),
                Ok(None) => {}
                Err(what) => self.problems.push(format!(
                    "type '{name}' of group {} skipped: {what}",
                    shown(path)
                )),
            }
        }
        let raw = self.in_creation_order(g.raw_attributes().map_err(here)?, g.address());
        group.attrs = self.attrs(&raw, path, None, &|r, n| {
            g.resolve_vlen_reference_bytes(r, n).map_err(Fault::from)
        });
        group.types.append(&mut self.transient_types);

        // Dimensions first: every variable of the group may use them.
        let mut scales: Vec<(usize, Scale)> = Vec::new();
        let mut ds_attrs = Vec::with_capacity(datasets.len());
        for (i, (ds, kind)) in datasets.iter().enumerate() {
            let attrs = ds.raw_attributes().map_err(|e| {
                Fault::from(e).context(format!("variable {}", shown_var(path, leaf(ds.name()))))
            })?;
            let attrs = self.in_creation_order(attrs, ds.address());
            if counted(*kind) {
                self.markers += usize::from(leaf(ds.name()) == "phony_dim")
                    + attrs
                        .iter()
                        .filter(|a| RESERVED.contains(&a.name()))
                        .count();
            }
            if let Some(scale) = scale_of(ds, &attrs) {
                let dim_ref = DimRef {
                    group: path.to_vec(),
                    name: scale.dim.name.clone(),
                };
                self.by_address.insert(ds.address(), dim_ref.clone());
                match scale.id {
                    Some(id) => {
                        self.by_id.insert((path.to_vec(), id), dim_ref);
                        self.next_dimid = self.next_dimid.max(i64::from(id) + 1);
                    }
                    None => self.next_dimid += 1,
                }
                scales.push((i, scale));
            }
            ds_attrs.push(attrs);
        }
        let mut ordered: Vec<&Scale> = scales.iter().map(|(_, s)| s).collect();
        ordered.sort_by_key(|s| s.id.unwrap_or(i32::MAX));
        group.dims = ordered.iter().map(|s| s.dim.clone()).collect();

        for (i, ((ds, _), attrs)) in datasets.iter().zip(&ds_attrs).enumerate() {
            let scale = scales.iter().find(|(j, _)| *j == i).map(|(_, s)| s);
            if scale.is_some_and(|s| s.dim_only) {
                continue;
            }
            // A variable that took a dimension's name from its scale is stored under
            // the prefix.
            let name = scale.map_or_else(
                || {
                    let leaf = leaf(ds.name());
                    leaf.strip_prefix(NON_COORD).unwrap_or(leaf).to_string()
                },
                |s| s.dim.name.clone(),
            );
            let var = self.var(ds, attrs, path, &name, scale.is_some());
            group.types.append(&mut self.transient_types);
            match var {
                Ok(Some((var, info))) => {
                    self.vars.insert(VarPath::new(path, &var.name), info);
                    group.vars.push(var);
                }
                Ok(None) => {}
                Err(e) => return Err(e.context(format!("variable {}", shown_var(path, &name)))),
            }
        }
        for (child, kind) in &children {
            let mut sub = path.to_vec();
            sub.push(leaf(child.name()).to_string());
            let g = self.group(child, &sub, counted(*kind))?;
            group.groups.push(g);
        }
        Ok(group)
    }

    /// Compact attributes sorted by their creation indexes, when the header has them.
    fn in_creation_order(&self, mut attrs: Vec<RawAttribute>, address: u64) -> Vec<RawAttribute> {
        let sb = self.file.superblock();
        let order = super::order::attribute_creation_order(
            self.file.storage(),
            address,
            sb.offset_size,
            sb.length_size,
        );
        if !order.is_empty() && attrs.iter().all(|a| order.contains_key(a.name())) {
            attrs.sort_by_key(|a| order.get(a.name()).copied());
        }
        attrs
    }

    /// The variable stored in `ds`, or `None` when it cannot be shown (said in
    /// `problems`).
    fn var(
        &mut self,
        ds: &H5Dataset,
        attrs: &[RawAttribute],
        path: &[String],
        name: &str,
        is_scale: bool,
    ) -> Result<Option<(Var, VarInfo)>, Fault> {
        let mut user_type = self.types.find(ds.dtype()).cloned();
        if user_type.is_none() {
            // A type of the dataset's own: netcdf-c names it and adds it to the group.
            let made = self.types.transient(path, ds.dtype());
            self.transient_types.append(&mut self.types.take_made());
            match made {
                Ok(Some(t)) => {
                    user_type = self.types.find(ds.dtype()).cloned();
                    self.transient_types.push(t);
                }
                Ok(None) => {}
                Err(what) => {
                    self.problems.push(format!(
                        "variable {} skipped: it has {what}, which the netCDF model here does not hold",
                        shown_var(path, name)
                    ));
                    return Ok(None);
                }
            }
        }
        let is_enum = matches!(ds.dtype(), hdf5_reader::Datatype::Enum { .. });
        let object_refs = refs::is_object_reference(ds.dtype()).then(|| self.object_paths());
        let stored = match stored_type(ds.dtype()) {
            _ if object_refs.is_some() => StoredType {
                nc_type: NcType::String,
                endian: None,
                fixed_string: None,
                half: false,
            },
            _ if user_type.is_some() && !is_enum => StoredType {
                nc_type: NcType::UByte,
                endian: None,
                fixed_string: None,
                half: false,
            },
            Ok(s) => s,
            Err(what) => {
                self.problems.push(format!(
                    "variable {} skipped: it has {what}, which the netCDF model here does not hold",
                    shown_var(path, name)
                ));
                return Ok(None);
            }
        };
        let shape = ds.shape().to_vec();
        let dims = if shape.is_empty() {
            Vec::new()
        } else if is_scale && shape.len() == 1 {
            vec![DimRef {
                group: path.to_vec(),
                name: name.to_string(),
            }]
        } else if let Some(a) = find(attrs, "_Netcdf4Coordinates").filter(|_| is_scale) {
            let ids = int_values(a)?;
            ids.iter()
                .map(|&id| self.dim_by_id(path, id))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            match find(attrs, "DIMENSION_LIST") {
                Some(a) => self.dimension_list(ds, a, shape.len())?,
                None => {
                    let max = ds.max_dims().unwrap_or_default();
                    let axes = shape
                        .iter()
                        .enumerate()
                        .map(|(d, &len)| (len, max.get(d) == Some(&u64::MAX)))
                        .collect();
                    self.phony.insert(VarPath::new(path, name), axes);
                    Vec::new()
                }
            }
        };
        let var_attrs = self.attrs(attrs, path, Some(name), &|r, n| {
            ds.resolve_vlen_reference_bytes(r, n).map_err(Fault::from)
        });
        let (encoding, missing_filters) = encoding_of(self.file, ds, &stored, &var_attrs)?;
        let null_space = ds.dataspace_type() == DataspaceType::Null;
        let var = Var {
            name: name.to_string(),
            nc_type: stored.nc_type,
            user_type: user_type.clone(),
            dims,
            attrs: var_attrs,
            notes: if null_space {
                vec!["an HDF5 null dataspace: no values are stored".to_string()]
            } else if object_refs.is_some() {
                vec![
                    "HDF5 object references, read as the paths of the objects (as h5py names them)"
                        .to_string(),
                ]
            } else if matches!(ds.dtype(), hdf5_reader::Datatype::Bitfield { .. }) {
                vec![
                    "an HDF5 bitfield type, read as unsigned integers as h5py reads it".to_string(),
                ]
            } else {
                Vec::new()
            },
        };
        let info = VarInfo {
            ds: ds.clone(),
            stored,
            encoding,
            missing_filters,
            chunk_map: OnceLock::new(),
            codecs: OnceLock::new(),
            null_space,
            user: user_type.filter(|_| !is_enum).map(|_| ds.dtype().clone()),
            object_refs,
        };
        Ok(Some((var, info)))
    }

    /// Every group's and dataset's path by address, made once, when the first object
    /// reference is met.
    fn object_paths(&mut self) -> Arc<HashMap<u64, String>> {
        let file = self.file;
        self.object_paths
            .get_or_insert_with(|| {
                Arc::new(
                    file.root_group()
                        .map(|root| refs::object_paths(&root))
                        .unwrap_or_default(),
                )
            })
            .clone()
    }

    fn dim_by_id(&self, path: &[String], id: i32) -> Result<DimRef, Fault> {
        (0..=path.len())
            .rev()
            .find_map(|n| self.by_id.get(&(path[..n].to_vec(), id)))
            .cloned()
            .ok_or_else(|| {
                Fault::from(format!(
                    "_Netcdf4Coordinates names dimension id {id}, which no group has"
                ))
            })
    }

    /// The dimensions a `DIMENSION_LIST` attribute refers to.
    fn dimension_list(
        &self,
        ds: &H5Dataset,
        a: &RawAttribute,
        rank: usize,
    ) -> Result<Vec<DimRef>, Fault> {
        let entry = ds.vlen_reference_size();
        let raw = &a.message().raw_data;
        if raw.len() < rank * entry {
            return Err(Fault::from(format!(
                "DIMENSION_LIST holds {} bytes, {rank} dimensions need {}",
                raw.len(),
                rank * entry
            )));
        }
        let offset_size = (entry - 8) as u8;
        raw.chunks_exact(entry)
            .take(rank)
            .enumerate()
            .map(|(axis, e)| {
                let heap = ds
                    .resolve_vlen_reference_bytes(e, usize::from(offset_size))
                    .map_err(|err| {
                        Fault::from(err).context(format!("DIMENSION_LIST entry {axis}"))
                    })?;
                let refs = hdf5_reader::reference::read_object_references(&heap, offset_size)
                    .map_err(|err| {
                        Fault::from(err).context(format!("DIMENSION_LIST entry {axis}"))
                    })?;
                // An axis with several scales attached takes the last: netcdf-c's
                // `dimscale_visitor` keeps each scale `H5DSiterate_scales` visits.
                let addr = refs
                    .last()
                    .ok_or_else(|| Fault::from(format!("DIMENSION_LIST entry {axis} is empty")))?;
                self.by_address.get(addr).cloned().ok_or_else(|| {
                    Fault::from(format!(
                        "DIMENSION_LIST entry {axis} refers to object {addr}, not a dimension"
                    ))
                })
            })
            .collect()
    }

    /// netcdf-c's dimensions for the datasets with no dimension scales, made as
    /// `rec_match_dimscales` makes them after reading the file: subgroups first, then
    /// the group's variables in order; an axis takes the first dimension of the group
    /// of its length and kind (unlimited or not) that the variable does not use yet,
    /// else a new `phony_dim_N`, N being the file's next dimension id (unlimited when
    /// its length is 0).
    fn phony_dims(&mut self, group: &mut Group, path: &mut Vec<String>) {
        for child in &mut group.groups {
            path.push(child.name.clone());
            self.phony_dims(child, path);
            path.pop();
        }
        for var in &mut group.vars {
            let Some(axes) = self.phony.get(&VarPath::new(path, &var.name)) else {
                continue;
            };
            for &(len, unlimited) in axes {
                let found = group.dims.iter().find(|d| {
                    d.len == len
                        && d.unlimited == unlimited
                        && !var.dims.iter().any(|used| used.name == d.name)
                });
                let name = match found {
                    Some(d) => d.name.clone(),
                    None => {
                        let name = format!("phony_dim_{}", self.next_dimid);
                        self.next_dimid += 1;
                        // A new dimension of length 0 is unlimited (`nc4_dim_list_add`
                        // reads 0 as NC_UNLIMITED), though the axis's maximum is fixed;
                        // later axes still match it by their own maximum, as above.
                        group.dims.push(Dim {
                            name: name.clone(),
                            len,
                            unlimited: unlimited || len == 0,
                        });
                        name
                    }
                };
                var.dims.push(DimRef {
                    group: path.clone(),
                    name,
                });
            }
        }
    }

    /// The visible attributes of an object, in creation order; an attribute of a
    /// type the model cannot hold is skipped and said in `problems`.
    fn attrs(
        &mut self,
        raw: &[RawAttribute],
        path: &[String],
        var: Option<&str>,
        resolve: &user::Resolve<'_>,
    ) -> Vec<Attr> {
        let mut out = Vec::new();
        for a in raw {
            if RESERVED.contains(&a.name()) {
                continue;
            }
            let dt = &a.message().datatype;
            if self.types.find(dt).is_none() {
                // An attribute's own (uncommitted) type, as h5py writes a record
                // attribute: named as a dataset's would be.
                if let Ok(Some(t)) = self.types.transient(path, dt) {
                    self.transient_types.append(&mut self.types.take_made());
                    self.transient_types.push(t);
                }
            }
            let got = match self.types.find(dt) {
                Some(id) => user_attr(a, id, resolve),
                None if refs::is_object_reference(dt) => {
                    refs::reference_attr(a, &self.object_paths())
                }
                None => attr_values(a, &|r| resolve(r, 1)),
            };
            match got {
                Ok(attr) => out.push(attr),
                Err(what) => {
                    let owner = match var {
                        Some(v) => format!("variable {}", shown_var(path, v)),
                        None => format!("group {}", shown(path)),
                    };
                    self.problems.push(format!(
                        "attribute '{}' of {owner} skipped: {what}",
                        a.name()
                    ));
                }
            }
        }
        out
    }

    /// Unlimited dimensions are as long as the longest variable along them; shorter
    /// variables read as fill past their end.
    fn widen_unlimited(&mut self, dataset: &mut Dataset) -> Result<(), Fault> {
        let mut longest: HashMap<DimRef, u64> = HashMap::new();
        for (path, v) in dataset.vars() {
            if let Some(info) = self.vars.get(&path) {
                for (d, &len) in v.dims.iter().zip(info.ds.shape()) {
                    let l = longest.entry(d.clone()).or_default();
                    *l = (*l).max(len);
                }
            }
        }
        widen_dims(&mut dataset.root, &mut Vec::new(), &longest);
        for (path, v) in dataset.vars() {
            let shape = dataset.var_shape(v);
            if let Some(info) = self.vars.get_mut(&path) {
                if info.ds.shape() != shape.as_slice() {
                    info.ds = info
                        .ds
                        .clone()
                        .with_padded_shape(&shape)
                        .map_err(|e| Fault::from(e).context(format!("variable {path}")))?;
                }
            }
        }
        Ok(())
    }
}

fn widen_dims(g: &mut Group, path: &mut Vec<String>, longest: &HashMap<DimRef, u64>) {
    for d in &mut g.dims {
        let r = DimRef {
            group: path.clone(),
            name: d.name.clone(),
        };
        if let Some(&l) = longest.get(&r) {
            if d.unlimited {
                d.len = d.len.max(l);
            }
        }
    }
    for sub in &mut g.groups {
        path.push(sub.name.clone());
        widen_dims(sub, path, longest);
        path.pop();
    }
}

/// The dimension a dataset defines, if it is a dimension scale.
fn scale_of(ds: &H5Dataset, attrs: &[RawAttribute]) -> Option<Scale> {
    let class = find(attrs, "CLASS")?;
    if text_of(class) != "DIMENSION_SCALE" {
        return None;
    }
    let leaf_name = leaf(ds.name());
    let name = leaf_name.strip_prefix(NON_COORD).unwrap_or(leaf_name);
    let dim_only = find(attrs, "NAME").is_some_and(|a| text_of(a).starts_with(DIM_ONLY));
    let id = find(attrs, "_Netcdf4Dimid")
        .and_then(|a| int_values(a).ok())
        .and_then(|v| v.first().copied());
    let len = ds.shape().first().copied().unwrap_or(0);
    // netcdf-c's `nc4_dim_list_add` takes a length of 0 for NC_UNLIMITED, whatever
    // the maximum: an empty dimension is unlimited.
    let unlimited = len == 0
        || ds
            .max_dims()
            .and_then(|m| m.first())
            .is_some_and(|&m| m == u64::MAX);
    Some(Scale {
        id,
        dim: Dim {
            name: name.to_string(),
            len,
            unlimited,
        },
        dim_only,
    })
}

/// The encoding of a dataset: layout, filters, fill, byte order; and the filters
/// with no decoder here.
fn encoding_of(
    file: &Hdf5File,
    ds: &H5Dataset,
    stored: &StoredType,
    attrs: &[Attr],
) -> Result<(Encoding, Vec<String>), Fault> {
    let header = file
        .get_or_parse_header(ds.address())
        .map_err(Fault::from)?;
    let compact = header.messages.iter().any(|m| {
        matches!(m, HdfMessage::DataLayout(l) if matches!(l.layout, hdf5_reader::messages::layout::DataLayout::Compact { .. }))
    });
    let mut enc = Encoding {
        chunking: Some(match ds.chunks() {
            Some(c) if !ds.shape().is_empty() => {
                Chunking::Chunked(c.iter().map(|&n| u64::from(n)).collect())
            }
            _ if compact => Chunking::Compact,
            _ => Chunking::Contiguous,
        }),
        endian: stored.endian,
        ..Encoding::default()
    };
    if stored.nc_type == NcType::Char {
        enc.endian = None;
    }
    enc.fill = attrs
        .iter()
        .find(|a| a.name == "_FillValue")
        .map(|a| a.values.clone())
        .filter(|v| v.len() == 1 && v.nc_type() == stored.nc_type);
    // netcdf-c (`get_fill_info`): a dataset without a user-defined fill value in its
    // creation properties has no fill.
    enc.no_fill = !header.messages.iter().any(|m| {
        matches!(m, HdfMessage::FillValue(f) if f.defined && f.value.as_ref().is_some_and(|v| !v.is_empty()))
    });
    let mut missing = Vec::new();
    for f in pipeline(&header) {
        let id = u32::from(f.id);
        let codec = match id {
            filters::SHUFFLE => filters::codec_of(id, &[])
                .map(|c| with_elementsize(c, f.client_data.first().copied(), stored)),
            filters::SZIP => Ok(crate::codec::obj(vec![
                ("id", Json::String("szip".into())),
                (
                    "mask",
                    crate::codec::num(i64::from(f.client_data.first().copied().unwrap_or(0))),
                ),
                (
                    "pixels-per-block",
                    crate::codec::num(i64::from(f.client_data.get(1).copied().unwrap_or(0))),
                ),
            ])),
            _ => filters::codec_of(id, &f.client_data),
        };
        match codec {
            Ok(c) => enc.codecs.push(c),
            Err(_) => missing.push(match &f.name {
                Some(n) if !n.is_empty() => format!("{id} ({n})"),
                _ => id.to_string(),
            }),
        }
    }
    Ok((enc, missing))
}

/// Shuffle's codec with the element size its chunks were shuffled by: the filter's
/// parameter, which libhdf5 unshuffles by (PyTables wrote 8 for 16-byte vlen
/// elements); the stored type's size only where the file gives none.
fn with_elementsize(mut c: Json, param: Option<u32>, stored: &StoredType) -> Json {
    if let Json::Object(m) = &mut c {
        let size = match param {
            Some(n) if n > 0 => n as usize,
            _ => stored.fixed_string.unwrap_or(stored.nc_type.size()).max(1),
        };
        for (k, v) in m.iter_mut() {
            if k == "elementsize" {
                *v = crate::codec::num(size as i64);
            }
        }
    }
    c
}

/// The dataset's filter pipeline, in the order the filters were applied.
fn pipeline(
    header: &hdf5_reader::object_header::ObjectHeader,
) -> Vec<hdf5_reader::messages::filter_pipeline::FilterDescription> {
    header
        .messages
        .iter()
        .find_map(|m| match m {
            HdfMessage::FilterPipeline(p) => Some(p.filters.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

fn leaf(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

fn shown(path: &[String]) -> String {
    crate::model::GroupPath(path).to_string()
}

fn shown_var(path: &[String], name: &str) -> String {
    VarPath::new(path, name).to_string()
}
