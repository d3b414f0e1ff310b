//! Reading pure Zarr v2 (zarr-python, xarray, netcdf-c `mode=zarr`).
//!
//! Groups and arrays are found by listing (or from `.zmetadata`); each child is a
//! group if it has `.zgroup`, an array if it has `.zarray`; both come in byte order,
//! like netcdf-c. Dimensions come from xarray's `_ARRAY_DIMENSIONS`: a name is looked
//! up in the array's group, then in its ancestors with the same length, and created
//! in the array's group if not found. Arrays without `_ARRAY_DIMENSIONS` get netcdf-c's
//! anonymous dimensions `_Anonymous_Dim_<len>` in the root group.

use std::collections::BTreeMap;

use super::var::{self, VarSource};
use super::{Arrays, Generation, MetaSource, ReadOptions};
use crate::error::{Error, Result};
use crate::formats::zarr::array::StoredArray;
use crate::json::Json;
use crate::model::{Dim, DimRef, Group, Var, VarPath};
use crate::store::StoreKey;

/// What every group of one read shares.
struct Ctx<'a> {
    listing: Option<&'a [String]>,
    options: &'a ReadOptions,
    netcdf_490: bool,
}

/// A group before dimensions are resolved.
pub(crate) struct Pending {
    pub(crate) group: Group,
    /// Per variable, per dimension: the `_ARRAY_DIMENSIONS` name, or `None` for anonymous.
    pub(crate) dim_names: Vec<Vec<Option<String>>>,
    /// Per variable, how it is stored.
    pub(crate) stored: Vec<StoredArray>,
    pub(crate) children: Vec<Pending>,
}

/// Read the tree rooted at `root`. Returns the root group, how each variable is
/// stored, and the root's `_NCProperties`.
pub(crate) fn read(
    src: &MetaSource<'_>,
    root: &StoreKey,
    zattrs: Option<Json>,
    options: &ReadOptions,
    problems: &mut Vec<String>,
) -> Result<(Group, Arrays, Option<String>)> {
    let nc_properties = zattrs
        .as_ref()
        .and_then(|a| a.get("_NCProperties"))
        .and_then(Json::as_str)
        .map(str::to_string);
    let listing = src.consolidated_keys();
    // netcdf-c 4.9.0's pure-Zarr output has its byte-order and char quirks too.
    let netcdf_490 = nc_properties
        .as_deref()
        .is_some_and(|p| p.contains("netcdf=4.9.0") || p.contains("netcdf=4.8."));
    let ctx = Ctx {
        listing: listing.as_deref(),
        options,
        netcdf_490,
    };
    let pending = read_group(src, root, String::new(), zattrs, &ctx, problems)?;
    let mut dims: BTreeMap<Vec<String>, Vec<Dim>> = BTreeMap::new();
    let mut arrays = Arrays::new();
    let mut group = resolve(pending, &[], &mut dims, &mut arrays, problems);
    attach_dims(&mut group, &[], &mut dims);
    Ok((group, arrays, nc_properties))
}

/// A store whose root is one array (what zarr-python's `open_array` writes): a dataset
/// of that one variable, named `name`, as the Zarr v3 reader reads one.
///
/// # Errors
/// As for any array: its `.zarray` not valid.
pub(crate) fn read_root_array(
    zarray: &Json,
    zattrs: Option<&Json>,
    name: &str,
    options: &ReadOptions,
    problems: &mut Vec<String>,
) -> Result<(Group, Arrays)> {
    let ctx = Ctx {
        listing: None,
        options,
        netcdf_490: false,
    };
    let (v, st, names) = read_array(name, &StoreKey::root(), zarray, zattrs, &ctx, problems)?;
    let mut pending = Pending {
        group: Group::new(String::new()),
        dim_names: vec![names],
        stored: vec![st],
        children: Vec::new(),
    };
    pending.group.vars.push(v);
    let mut dims: BTreeMap<Vec<String>, Vec<Dim>> = BTreeMap::new();
    let mut arrays = Arrays::new();
    let mut group = resolve(pending, &[], &mut dims, &mut arrays, problems);
    attach_dims(&mut group, &[], &mut dims);
    Ok((group, arrays))
}

/// The names directly under `prefix`, from `.zmetadata` keys or by listing.
fn children(
    src: &MetaSource<'_>,
    prefix: &StoreKey,
    listing: Option<&[String]>,
) -> Result<Vec<String>> {
    let mut names: Vec<String> = match listing {
        Some(keys) => keys
            .iter()
            .filter_map(|k| StoreKey::new(k).ok())
            .filter_map(|k| {
                k.strip_prefix(prefix)
                    .map(|rest| rest.split('/').next().unwrap_or("").to_string())
            })
            .filter(|n| !n.is_empty())
            .collect(),
        None => src.store.search(prefix)?,
    };
    names.retain(|n| !n.starts_with('.'));
    names.sort();
    names.dedup();
    Ok(names)
}

fn read_group(
    src: &MetaSource<'_>,
    key: &StoreKey,
    name: String,
    zattrs: Option<Json>,
    ctx: &Ctx<'_>,
    problems: &mut Vec<String>,
) -> Result<Pending> {
    let types = zattrs
        .as_ref()
        .and_then(|a| a.get_any(&["_nczarr_attr", "_NCZARR_ATTR"]))
        .and_then(|a| a.get("types"))
        .cloned();
    let mut group = Group::new(name);
    group.attrs = var::read_attrs(zattrs.as_ref(), types.as_ref(), None, key, problems);

    let names = children(src, key, ctx.listing)?;
    let mut keys = Vec::with_capacity(names.len() * 3);
    for n in &names {
        let ck = key.join(n)?;
        keys.push(ck.join(".zarray")?);
        keys.push(ck.join(".zattrs")?);
        keys.push(ck.join(".zgroup")?);
    }
    // Each document on its own: a damaged one skips its variable (or attributes, or
    // group) with a problem, not the dataset.
    let mut docs = Vec::with_capacity(keys.len());
    for (k, doc) in keys.iter().zip(src.each_doc(&keys)) {
        match doc {
            Ok(d) => docs.push(d),
            Err(e @ Error::Json { .. }) => {
                let what = if k.name() == ".zattrs" {
                    "attributes skipped"
                } else if k.name() == ".zarray" {
                    "variable skipped"
                } else {
                    "group skipped"
                };
                problems.push(format!("{e}; {what}"));
                docs.push(None);
            }
            Err(e) => return Err(e),
        }
    }
    let mut dim_names = Vec::new();
    let mut stored = Vec::new();
    let mut subgroups = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let (zarray, cattrs, zgroup) = (&docs[3 * i], &docs[3 * i + 1], &docs[3 * i + 2]);
        let ck = key.join(n)?;
        if let Some(zarray) = zarray {
            match read_array(n, &ck, zarray, cattrs.as_ref(), ctx, problems) {
                Ok((v, st, names)) => {
                    group.vars.push(v);
                    stored.push(st);
                    dim_names.push(names);
                }
                Err(e @ Error::Metadata { .. }) => problems.push(format!("{e}; variable skipped")),
                Err(e) => return Err(e),
            }
        } else if zgroup.is_some() {
            subgroups.push((n.clone(), ck, cattrs.clone()));
        }
    }
    let mut kids = Vec::new();
    for (n, ck, cattrs) in subgroups {
        kids.push(read_group(src, &ck, n, cattrs, ctx, problems)?);
    }
    Ok(Pending {
        group,
        dim_names,
        stored,
        children: kids,
    })
}

fn read_array(
    name: &str,
    key: &StoreKey,
    zarray: &Json,
    zattrs: Option<&Json>,
    ctx: &Ctx<'_>,
    problems: &mut Vec<String>,
) -> Result<(Var, StoredArray, Vec<Option<String>>)> {
    let options = ctx.options;
    let rank = zarray
        .get("shape")
        .and_then(Json::as_array)
        .map_or(0, <[Json]>::len);
    let xdims: Option<Vec<String>> = if options.ignore_xarray_dims {
        None
    } else {
        zattrs
            .and_then(|a| a.get("_ARRAY_DIMENSIONS"))
            .and_then(|d| {
                let names: Option<Vec<String>> = d
                    .as_array()?
                    .iter()
                    .map(|n| n.as_str().map(str::to_string))
                    .collect();
                names
            })
    };
    // netcdf-c writes a scalar in pure mode as shape [1] on a dimension named "_scalar_"
    // (4.9.1+) or with no dimension names at all (4.9.0).
    let scalar = rank == 0
        || (rank == 1 && matches!(xdims.as_deref(), Some([only]) if only == "_scalar_"))
        || (rank == 1 && xdims.as_ref().is_some_and(Vec::is_empty) && ctx.netcdf_490);
    let names: Vec<Option<String>> = match xdims {
        _ if scalar => Vec::new(),
        Some(d) if d.len() == rank && d.iter().all(|n| !n.is_empty() && !n.contains('/')) => {
            d.into_iter().map(Some).collect()
        }
        Some(d) => {
            problems.push(format!(
                "key '{}': _ARRAY_DIMENSIONS {:?} does not match the array's {} dimensions; anonymous dimensions used",
                key.join(".zattrs").map(|k| k.to_string()).unwrap_or_default(),
                d,
                rank
            ));
            vec![None; rank]
        }
        None => vec![None; rank],
    };
    let types = zattrs
        .and_then(|a| a.get_any(&["_nczarr_attr", "_NCZARR_ATTR"]))
        .and_then(|a| a.get("types"));
    let placeholder = vec![
        DimRef {
            group: Vec::new(),
            name: String::new()
        };
        names.len()
    ];
    let (v, stored) = var::build(
        VarSource {
            name,
            key,
            zarray: Some(zarray),
            zattrs,
            types,
            dims: placeholder,
            scalar,
            generation: Generation::PureZarr,
            netcdf_490: ctx.netcdf_490,
            nctype: None,
            default_fill: false,
        },
        problems,
    )?;
    Ok((v, stored, names))
}

/// Give every variable its dimension references, creating dimensions as netcdf-c does
/// (`dims` may hold dimensions declared beforehand, by group path).
pub(crate) fn resolve(
    pending: Pending,
    path: &[String],
    dims: &mut BTreeMap<Vec<String>, Vec<Dim>>,
    arrays: &mut Arrays,
    problems: &mut Vec<String>,
) -> Group {
    let Pending {
        mut group,
        dim_names,
        stored,
        children,
    } = pending;
    let mut kept = Vec::with_capacity(group.vars.len());
    let vars = std::mem::take(&mut group.vars);
    for ((mut v, names), st) in vars.into_iter().zip(dim_names).zip(stored) {
        let vpath = VarPath::new(path, &v.name);
        let shape = st.shape.clone();
        let mut refs = Vec::with_capacity(names.len());
        let mut conflict = None;
        for (name, &len) in names.iter().zip(&shape) {
            match name {
                None => {
                    let anon = format!("_Anonymous_Dim_{len}");
                    let root = dims.entry(Vec::new()).or_default();
                    if !root.iter().any(|d| d.name == anon) {
                        root.push(Dim {
                            name: anon.clone(),
                            len,
                            unlimited: false,
                        });
                    }
                    refs.push(DimRef {
                        group: Vec::new(),
                        name: anon,
                    });
                }
                Some(n) => {
                    let own = dims.entry(path.to_vec()).or_default();
                    if let Some(d) = own.iter().find(|d| &d.name == n) {
                        if d.len != len {
                            conflict = Some(format!(
                                "variable '{vpath}': dimension '{n}' has length {len} here but {} in another array of the group; variable skipped",
                                d.len
                            ));
                            break;
                        }
                        refs.push(DimRef {
                            group: path.to_vec(),
                            name: n.clone(),
                        });
                        continue;
                    }
                    // An ancestor's dimension with the same name and length is the one meant.
                    let inherited = (0..path.len()).rev().find(|&i| {
                        dims.get(&path[..i])
                            .is_some_and(|ds| ds.iter().any(|d| &d.name == n && d.len == len))
                    });
                    match inherited {
                        Some(i) => refs.push(DimRef {
                            group: path[..i].to_vec(),
                            name: n.clone(),
                        }),
                        None => {
                            dims.entry(path.to_vec()).or_default().push(Dim {
                                name: n.clone(),
                                len,
                                unlimited: false,
                            });
                            refs.push(DimRef {
                                group: path.to_vec(),
                                name: n.clone(),
                            });
                        }
                    }
                }
            }
        }
        match conflict {
            Some(m) => problems.push(m),
            None => {
                v.dims = refs;
                kept.push(v);
                arrays.insert(vpath, st);
            }
        }
    }
    group.vars = kept;
    for child in children {
        let mut child_path = path.to_vec();
        child_path.push(child.group.name.clone());
        let g = resolve(child, &child_path, dims, arrays, problems);
        group.groups.push(g);
    }
    group
}

pub(crate) fn attach_dims(
    group: &mut Group,
    path: &[String],
    dims: &mut BTreeMap<Vec<String>, Vec<Dim>>,
) {
    group.dims = dims.remove(path).unwrap_or_default();
    for child in &mut group.groups {
        let mut p = path.to_vec();
        p.push(child.name.clone());
        attach_dims(child, &p, dims);
    }
}
