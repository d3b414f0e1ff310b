//! Reading the NCZarr generations (V1, 4.9.0, 4.9.1–4.9.2, 4.9.3+): the group tree
//! comes from each group's `_nczarr_group` (or `.nczgroup`), dimensions are shared and
//! named, variables reference them by full path, attributes are typed.
//!
//! One tolerant reader serves every generation: each place netcdf-c has ever kept a
//! piece of metadata is looked at, newest first, and both key spellings are accepted
//! (`dimensions`/`dims`, `arrays`/`vars`, `dimension_references`/`dimrefs`).

use super::var::{self, VarSource};
use super::{Arrays, Generation, MetaSource, SCALAR_DIM};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::{Dataset, Dim, DimRef, Group, NcType, VarPath};
use crate::store::StoreKey;

/// Read the whole tree. Returns the root group, how each variable is stored, and the
/// root's `_NCProperties`.
pub(crate) fn read(
    src: &MetaSource<'_>,
    root: &StoreKey,
    generation: Generation,
    zgroup: Option<Json>,
    zattrs: Option<Json>,
    problems: &mut Vec<String>,
) -> Result<(Group, Arrays, Option<String>)> {
    let nc_properties = zattrs
        .as_ref()
        .and_then(|a| a.get("_NCProperties"))
        .and_then(Json::as_str)
        .map(str::to_string);
    let mut arrays = Arrays::new();
    let mut group = read_group(
        src,
        root,
        String::new(),
        &[],
        generation,
        (zgroup, zattrs),
        &mut arrays,
        problems,
    )?;
    check_dims(&mut group, &arrays, problems)?;
    if generation == Generation::UpperKeys && !uses_dim(&group, SCALAR_DIM) {
        group.dims.retain(|d| !(d.name == SCALAR_DIM && d.len == 1));
    }
    Ok((group, arrays, nc_properties))
}

/// Whether any variable in the tree uses the root dimension `name`.
fn uses_dim(g: &Group, name: &str) -> bool {
    g.vars
        .iter()
        .any(|v| v.dims.iter().any(|d| d.group.is_empty() && d.name == name))
        || g.groups.iter().any(|c| uses_dim(c, name))
}

/// A member of the NCZarr metadata, wherever this generation kept it.
fn member<'a>(docs: &[Option<&'a Json>], names: &[&str]) -> Option<&'a Json> {
    docs.iter().flatten().find_map(|d| d.get_any(names))
}

#[allow(clippy::too_many_arguments)]
fn read_group(
    src: &MetaSource<'_>,
    key: &StoreKey,
    name: String,
    path: &[String],
    generation: Generation,
    (zgroup, zattrs): (Option<Json>, Option<Json>),
    arrays: &mut Arrays,
    problems: &mut Vec<String>,
) -> Result<Group> {
    let v1 = if generation == Generation::V1 {
        let [g, a, a2] = src.docs(&[
            key.join(".nczgroup")?,
            key.join(".nczattr")?,
            key.join(".nczattrs")?,
        ])?;
        [g, a.or(a2)]
    } else {
        [None, None]
    };
    let docs = [zattrs.as_ref(), zgroup.as_ref()];
    let ginfo = member(&docs, &["_nczarr_group", "_NCZARR_GROUP"]).or(v1[0].as_ref()).ok_or_else(|| {
        Error::metadata(
            key.join(if generation == Generation::Attributes { ".zattrs" } else { ".zgroup" }).unwrap_or_default(),
            "group has no NCZarr group metadata (_nczarr_group); open with mode=zarr to read it as pure Zarr",
        )
    })?;
    let types = member(&docs, &["_nczarr_attr", "_NCZARR_ATTR"])
        .or(v1[1].as_ref())
        .and_then(|a| a.get("types"));

    let mut group = Group::new(name);
    group.attrs = var::read_attrs(zattrs.as_ref(), types, None, key, problems);

    let where_ = || {
        key.join(".zgroup")
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    if let Some(dims) = ginfo.get_any(&["dimensions", "dims"]) {
        let members = dims
            .as_object()
            .ok_or_else(|| Error::metadata(where_(), "group \"dimensions\" is not an object"))?;
        for (dname, d) in members {
            let (len, unlimited) = match d {
                Json::Object(_) => (
                    d.get("size").and_then(Json::as_i64_lenient),
                    d.get("unlimited")
                        .and_then(Json::as_i64_lenient)
                        .unwrap_or(0)
                        != 0,
                ),
                other => (other.as_i64_lenient(), false),
            };
            let len = len.and_then(|l| u64::try_from(l).ok()).ok_or_else(|| {
                Error::metadata(
                    where_(),
                    format!("dimension '{dname}' has no valid size: {}", d.to_text()),
                )
            })?;
            group.dims.push(Dim {
                name: dname.clone(),
                len,
                unlimited,
            });
        }
    }
    let names = |field: &[&str]| -> Result<Vec<String>> {
        match ginfo.get_any(field) {
            None | Some(Json::Null) => Ok(Vec::new()),
            Some(Json::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str().map(str::to_string).ok_or_else(|| {
                        Error::metadata(where_(), format!("\"{}\" lists a non-string", field[0]))
                    })
                })
                .collect(),
            Some(_) => Err(Error::metadata(
                where_(),
                format!("\"{}\" is not an array", field[0]),
            )),
        }
    };
    let var_names = names(&["arrays", "vars"])?;
    let group_names = names(&["groups"])?;

    // All variables' documents in one batch.
    let mut docs_iter = src
        .docs_vec(&var_doc_keys(key, &var_names, generation)?)?
        .into_iter();
    for v in &var_names {
        let vk = key.join(v)?;
        let zarray = docs_iter.next().flatten();
        let vattrs = docs_iter.next().flatten();
        let (nczarray, nczattr) = if generation == Generation::V1 {
            (docs_iter.next().flatten(), docs_iter.next().flatten())
        } else {
            (None, None)
        };
        let vdocs = [vattrs.as_ref(), zarray.as_ref()];
        let ainfo = member(&vdocs, &["_nczarr_array", "_NCZARR_ARRAY"]).or(nczarray.as_ref());
        let vtypes = member(&[vattrs.as_ref()], &["_nczarr_attr", "_NCZARR_ATTR"])
            .or(nczattr.as_ref())
            .and_then(|a| a.get("types"));
        let refs: Vec<String> =
            match ainfo.and_then(|a| a.get_any(&["dimension_references", "dimrefs"])) {
                Some(Json::Array(a)) => a
                    .iter()
                    .filter_map(|r| r.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
        let mut dims = Vec::with_capacity(refs.len());
        for r in &refs {
            let d = DimRef::parse_fqn(r)
                .or_else(|| {
                    (!r.contains('/') && !r.is_empty()).then(|| DimRef {
                        group: path.to_vec(),
                        name: r.clone(),
                    })
                })
                .ok_or_else(|| {
                    Error::metadata(
                        vk.join(".zarray").unwrap_or_default(),
                        format!("bad dimension reference '{r}'"),
                    )
                })?;
            dims.push(d);
        }
        // nczgen's 4.9.0 layout writes a scalar over the root dimension `_scalar_`
        // (4.9.0 crashes on arrays without dimensions): it is a scalar.
        if generation == Generation::UpperKeys
            && dims.len() == 1
            && dims[0].group.is_empty()
            && dims[0].name == SCALAR_DIM
        {
            dims.clear();
        }
        let scalar = dims.is_empty()
            && zarray
                .as_ref()
                .and_then(|z| z.get("shape"))
                .and_then(Json::as_array)
                .is_some_and(|s| s.len() <= 1);
        let built = var::build(
            VarSource {
                name: v,
                key: &vk,
                zarray: zarray.as_ref(),
                zattrs: vattrs.as_ref(),
                types: vtypes,
                dims,
                scalar,
                generation,
                netcdf_490: generation == Generation::UpperKeys,
                nctype: ainfo
                    .and_then(|a| a.get("nctype"))
                    .and_then(Json::as_str)
                    .and_then(NcType::from_cdl_name),
            },
            problems,
        );
        match built {
            Ok((var, stored)) => {
                arrays.insert(VarPath::new(path, v), stored);
                group.vars.push(var);
            }
            Err(e @ Error::Metadata { .. }) if zarray.is_some() => {
                problems.push(format!("{e}; variable skipped"));
            }
            Err(e) => return Err(e),
        }
    }

    // Subgroups, their documents in one batch.
    let mut docs_iter = src
        .docs_vec(&group_doc_keys(key, &group_names)?)?
        .into_iter();
    let mut children = Vec::with_capacity(group_names.len());
    for g in group_names {
        let gk = key.join(&g)?;
        let zg = docs_iter.next().flatten();
        let za = docs_iter.next().flatten();
        children.push((g, gk, zg, za));
    }
    if generation != Generation::V1 {
        // What the children will ask for (their variables' documents and their own
        // children's), in one batch: many small groups would be many round trips.
        let mut ahead = Vec::new();
        for (_, gk, zg, za) in &children {
            let (vars, groups) = listing(&[za.as_ref(), zg.as_ref()]);
            ahead.extend(var_doc_keys(gk, &vars, generation).unwrap_or_default());
            ahead.extend(group_doc_keys(gk, &groups).unwrap_or_default());
        }
        if !ahead.is_empty() {
            src.prefetch(ahead);
        }
    }
    for (g, gk, zg, za) in children {
        if zg.is_none() && generation != Generation::V1 {
            return Err(Error::metadata(
                gk.join(".zgroup")?,
                "missing: the group is listed in its parent's _nczarr_group",
            ));
        }
        let mut child_path = path.to_vec();
        child_path.push(g.clone());
        group.groups.push(read_group(
            src,
            &gk,
            g,
            &child_path,
            generation,
            (zg, za),
            arrays,
            problems,
        )?);
    }
    Ok(group)
}

/// The documents of variables `names` of the group at `key`.
fn var_doc_keys(key: &StoreKey, names: &[String], generation: Generation) -> Result<Vec<StoreKey>> {
    let mut keys = Vec::with_capacity(names.len() * 2);
    for v in names {
        let vk = key.join(v)?;
        keys.push(vk.join(".zarray")?);
        keys.push(vk.join(".zattrs")?);
        if generation == Generation::V1 {
            keys.push(vk.join(".nczarray")?);
            keys.push(vk.join(".nczattr")?);
        }
    }
    Ok(keys)
}

/// The documents of subgroups `names` of the group at `key`.
fn group_doc_keys(key: &StoreKey, names: &[String]) -> Result<Vec<StoreKey>> {
    let mut keys = Vec::with_capacity(names.len() * 2);
    for g in names {
        let gk = key.join(g)?;
        keys.push(gk.join(".zgroup")?);
        keys.push(gk.join(".zattrs")?);
    }
    Ok(keys)
}

/// The variables and subgroups a group's documents list, leniently (for fetching
/// ahead: [`read_group`] reports what is wrong with them).
fn listing(docs: &[Option<&Json>]) -> (Vec<String>, Vec<String>) {
    let names = |field: &[&str]| -> Vec<String> {
        member(docs, &["_nczarr_group", "_NCZARR_GROUP"])
            .and_then(|g| g.get_any(field))
            .and_then(Json::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Json::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    (names(&["arrays", "vars"]), names(&["groups"]))
}

/// Resolve every variable's dimension references: create dimensions that are
/// referenced but not declared, and check stored shapes against dimension lengths.
fn check_dims(root: &mut Group, arrays: &Arrays, problems: &mut Vec<String>) -> Result<()> {
    let mut ds = Dataset {
        root: std::mem::take(root),
    };
    let checked = check_dims_of(&mut ds, arrays, problems);
    *root = ds.root;
    checked
}

fn check_dims_of(ds: &mut Dataset, arrays: &Arrays, problems: &mut Vec<String>) -> Result<()> {
    // Collect (reference, stored length, variable path) first, then fix the tree.
    let mut uses: Vec<(DimRef, u64, VarPath)> = Vec::new();
    fn collect(
        g: &Group,
        path: &mut Vec<String>,
        arrays: &Arrays,
        uses: &mut Vec<(DimRef, u64, VarPath)>,
    ) {
        for v in &g.vars {
            let vp = VarPath::new(path, &v.name);
            if let Some(stored) = arrays.get(&vp) {
                for (d, len) in v.dims.iter().zip(&stored.shape) {
                    uses.push((d.clone(), *len, vp.clone()));
                }
            }
        }
        for c in &g.groups {
            path.push(c.name.clone());
            collect(c, path, arrays, uses);
            path.pop();
        }
    }
    collect(&ds.root, &mut Vec::new(), arrays, &mut uses);
    for (dref, len, var_path) in uses {
        let Some(group) = ds.group_mut(&dref.group) else {
            return Err(Error::Invalid(format!(
                "variable '{var_path}': dimension reference '{}' names a group that does not exist",
                dref.fqn()
            )));
        };
        match group.dims.iter_mut().find(|d| d.name == dref.name) {
            None => {
                problems.push(format!(
                    "variable '{var_path}': dimension '{}' is not declared; created with length {len}",
                    dref.fqn()
                ));
                group.dims.push(Dim {
                    name: dref.name.clone(),
                    len,
                    unlimited: false,
                });
            }
            Some(d) if d.unlimited && len > d.len => d.len = len,
            Some(d) if !d.unlimited && d.len != len => {
                return Err(Error::Invalid(format!(
                    "variable '{var_path}': its array has length {len} along dimension '{}', which has length {}",
                    dref.fqn(),
                    d.len
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}
