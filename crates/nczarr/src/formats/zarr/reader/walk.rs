//! Reading the NCZarr generations (V1, 4.9.0, 4.9.1–4.9.2, 4.9.3+): the group tree
//! comes from each group's `_nczarr_group` (or `.nczgroup`), dimensions are shared and
//! named, variables reference them by full path, attributes are typed.
//!
//! One tolerant reader serves every generation: each place netcdf-c has ever kept a
//! piece of metadata is looked at, newest first, and both key spellings are accepted
//! (`dimensions`/`dims`, `arrays`/`vars`, `dimension_references`/`dimrefs`).

use std::collections::HashMap;

use rayon::prelude::*;

use super::meta::{parse_raw, RawDoc, PARALLEL_BATCH};
use super::var::{self, VarSource};
use super::{Arrays, Generation, MetaSource, SCALAR_DIM};
use crate::error::{Error, Result};
use crate::formats::zarr::array::StoredArray;
use crate::json::Json;
use crate::model::{Dim, DimRef, Group, NcType, Var, VarPath};
use crate::store::StoreKey;

/// Read the whole tree. Returns the root group, how each variable is stored, and the
/// root's `_NCProperties`.
///
/// Two passes: the group tree first (each level's documents in one batch), then every
/// variable of the tree at once, parsed and built on every core (a dataset of thousands
/// of variables is mostly variables; see [`build_vars`] for how their documents are
/// read).
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
    let mut tree = Tree::default();
    let mut group_problems = Vec::new();
    let top = Place {
        key: root.clone(),
        path: Vec::new(),
        at: Vec::new(),
    };
    let mut group = read_group(
        src,
        top,
        String::new(),
        generation,
        (zgroup, zattrs),
        &mut tree,
        &mut group_problems,
    )?;
    let mut built = build_vars(src, generation, &tree)?.into_iter();
    let mut arrays = Arrays::with_capacity(tree.vars.len());
    let mut uses = Vec::new();
    let mut group_problems = group_problems.into_iter();
    let mut said = 0;
    for info in &tree.groups {
        // Problems in the order a depth-first read meets them: a group's own, then its
        // variables', then its subgroups'.
        problems.extend(group_problems.by_ref().take(info.problems_end - said));
        said = info.problems_end;
        let target = group_at(&mut group, &info.place.at);
        target.vars.reserve(info.vars.len());
        for (entry, b) in tree.vars[info.vars.clone()].iter().zip(built.by_ref()) {
            problems.extend(b.problems);
            if let Some((var, stored)) = b.var {
                uses.extend(
                    (0..var.dims.len().min(stored.shape.len())).map(|dim| DimUse {
                        place: &info.place,
                        var: target.vars.len(),
                        dim,
                        len: stored.shape[dim],
                    }),
                );
                arrays.insert(VarPath::new(&info.place.path, &entry.name), stored);
                target.vars.push(var);
            }
        }
    }
    problems.extend(group_problems);
    let places = tree
        .groups
        .iter()
        .map(|g| (g.place.path.as_slice(), g.place.at.as_slice()))
        .collect();
    check_dims(&mut group, &uses, &places, problems)?;
    if generation == Generation::UpperKeys && !uses_dim(&group, SCALAR_DIM) {
        group.dims.retain(|d| !(d.name == SCALAR_DIM && d.len == 1));
    }
    Ok((group, arrays, nc_properties))
}

/// Where a group is: its key, its path of names, and its path of child indices.
#[derive(Clone)]
struct Place {
    key: StoreKey,
    path: Vec<String>,
    at: Vec<usize>,
}

/// What the group pass found: every group in depth-first order, and every variable
/// to build, each group's variables together.
#[derive(Default)]
struct Tree {
    groups: Vec<GroupInfo>,
    vars: Vec<VarEntry>,
}

struct GroupInfo {
    place: Place,
    /// The group's variables in [`Tree::vars`].
    vars: std::ops::Range<usize>,
    /// How many of the group pass's problems were found up to this group's own.
    problems_end: usize,
}

struct VarEntry {
    /// The variable's group in [`Tree::groups`].
    group: usize,
    name: String,
}

/// A variable built, or skipped with a problem, and the problems met building it.
struct Built {
    var: Option<(Var, StoredArray)>,
    problems: Vec<String>,
}

/// The group at child indices `at` below `root`.
fn group_at<'g>(root: &'g mut Group, at: &[usize]) -> &'g mut Group {
    let mut g = root;
    for &i in at {
        g = &mut g.groups[i];
    }
    g
}

/// The group at child indices `at` below `root`, to look at.
fn group_at_ref<'g>(root: &'g Group, at: &[usize]) -> &'g Group {
    let mut g = root;
    for &i in at {
        g = &g.groups[i];
    }
    g
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

/// The group at `place` and its subgroups, without variables: those are listed in
/// `tree` for [`build_vars`].
fn read_group(
    src: &MetaSource<'_>,
    place: Place,
    name: String,
    generation: Generation,
    (zgroup, zattrs): (Option<Json>, Option<Json>),
    tree: &mut Tree,
    problems: &mut Vec<String>,
) -> Result<Group> {
    let key = &place.key;
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

    let index = tree.groups.len();
    let first = tree.vars.len();
    tree.vars.extend(
        var_names
            .into_iter()
            .map(|name| VarEntry { group: index, name }),
    );
    tree.groups.push(GroupInfo {
        place: place.clone(),
        vars: first..tree.vars.len(),
        problems_end: problems.len(),
    });

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
        // The children's own children's documents, in one batch: many small groups
        // would be many round trips.
        let mut ahead = Vec::new();
        for (_, gk, zg, za) in &children {
            let groups = listing(&[za.as_ref(), zg.as_ref()]);
            ahead.extend(group_doc_keys(gk, &groups).unwrap_or_default());
        }
        if !ahead.is_empty() {
            src.prefetch(ahead);
        }
    }
    for (i, (g, gk, zg, za)) in children.into_iter().enumerate() {
        if zg.is_none() && generation != Generation::V1 {
            return Err(Error::metadata(
                gk.join(".zgroup")?,
                "missing: the group is listed in its parent's _nczarr_group",
            ));
        }
        let mut child = place.clone();
        child.key = gk;
        child.path.push(g.clone());
        child.at.push(i);
        group.groups.push(read_group(
            src,
            child,
            g,
            generation,
            (zg, za),
            tree,
            problems,
        )?);
    }
    Ok(group)
}

/// Every variable `tree` lists, in its order, parsed and built on every core when there
/// are many. From a store whose reads are cheap, each variable's documents are read by
/// the thread that builds it: file reads do not run faster on two threads (the kernel
/// serialises a process's opens and closes), so one thread's parsing overlaps the other's
/// reading (400 variables: 2.65-2.83 -> 2.40-2.47 ms). Otherwise their documents come in
/// one batch first (concurrent requests on a remote store).
fn build_vars(src: &MetaSource<'_>, generation: Generation, tree: &Tree) -> Result<Vec<Built>> {
    let var_keys = tree
        .vars
        .iter()
        .map(|v| tree.groups[v.group].place.key.join(&v.name))
        .collect::<std::result::Result<Vec<StoreKey>, _>>()?;
    let doc_keys = var_doc_keys_of(&var_keys, generation)?;
    let per = docs_per_var(generation);
    let build = |(i, docs): (usize, &mut [Result<RawDoc>])| -> Result<Built> {
        let entry = &tree.vars[i];
        let mut parsed = [None, None, None, None];
        let mut problems = Vec::new();
        for (j, (slot, raw)) in parsed.iter_mut().zip(docs.iter_mut()).enumerate() {
            match parse_raw(
                &doc_keys[i * per + j],
                std::mem::replace(raw, Ok(RawDoc::Missing)),
            ) {
                Ok(doc) => *slot = doc,
                // A damaged document costs its variable, not the dataset (as an
                // invalid one does): the rest is read.
                Err(e @ Error::Json { .. }) => {
                    problems.push(format!("{e}; variable skipped"));
                    return Ok(Built {
                        var: None,
                        problems,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        let [zarray, vattrs, nczarray, nczattr] = parsed;
        let var = build_var(
            VarDocs {
                name: &entry.name,
                key: &var_keys[i],
                path: &tree.groups[entry.group].place.path,
                zarray,
                vattrs,
                nczarray,
                nczattr,
            },
            generation,
            &mut problems,
        )?;
        Ok(Built { var, problems })
    };
    // Each variable's result kept, then the first error in tree order: rayon's own
    // collect into a `Result` returns whichever error a thread met first.
    let parallel = tree.vars.len() >= PARALLEL_BATCH;
    let built: Vec<Result<Built>> = if src.store.reads_are_cheap() {
        let read_and_build = |i: usize| {
            let mut docs = src.fetch_raw(&doc_keys[i * per..(i + 1) * per]);
            build((i, &mut docs))
        };
        if parallel {
            (0..var_keys.len())
                .into_par_iter()
                .map(read_and_build)
                .collect()
        } else {
            (0..var_keys.len()).map(read_and_build).collect()
        }
    } else {
        let mut raw = src.fetch_raw(&doc_keys);
        if parallel {
            raw.par_chunks_mut(per).enumerate().map(build).collect()
        } else {
            raw.chunks_mut(per).enumerate().map(build).collect()
        }
    };
    built.into_iter().collect()
}

/// One variable's documents and where it is.
struct VarDocs<'a> {
    name: &'a str,
    key: &'a StoreKey,
    path: &'a [String],
    zarray: Option<Json>,
    vattrs: Option<Json>,
    /// NCZarr V1's separate objects.
    nczarray: Option<Json>,
    nczattr: Option<Json>,
}

/// The variable and how it is stored; `None` when a problem in its metadata skips it
/// (the problem is in `problems`).
fn build_var(
    docs: VarDocs<'_>,
    generation: Generation,
    problems: &mut Vec<String>,
) -> Result<Option<(Var, StoredArray)>> {
    let VarDocs {
        name: v,
        key: vk,
        path,
        zarray,
        vattrs,
        nczarray,
        nczattr,
    } = docs;
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
            key: vk,
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
            default_fill: ainfo.and_then(|a| a.get("fill")).and_then(Json::as_str)
                == Some("default"),
        },
        problems,
    );
    match built {
        Ok(b) => Ok(Some(b)),
        Err(e @ Error::Metadata { .. }) if zarray.is_some() => {
            problems.push(format!("{e}; variable skipped"));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// How many documents [`var_doc_keys_of`] lists for each variable.
fn docs_per_var(generation: Generation) -> usize {
    if generation == Generation::V1 {
        4
    } else {
        2
    }
}

/// The documents of the variables at `keys`, [`docs_per_var`] each.
fn var_doc_keys_of(keys: &[StoreKey], generation: Generation) -> Result<Vec<StoreKey>> {
    let mut out = Vec::with_capacity(keys.len() * docs_per_var(generation));
    for vk in keys {
        out.push(vk.join(".zarray")?);
        out.push(vk.join(".zattrs")?);
        if generation == Generation::V1 {
            out.push(vk.join(".nczarray")?);
            out.push(vk.join(".nczattr")?);
        }
    }
    Ok(out)
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

/// The subgroups a group's documents list, leniently (for fetching ahead:
/// [`read_group`] reports what is wrong with them).
fn listing(docs: &[Option<&Json>]) -> Vec<String> {
    member(docs, &["_nczarr_group", "_NCZARR_GROUP"])
        .and_then(|g| g.get("groups"))
        .and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Metadata of the variable at `var` that contradicts the dataset's other metadata: a
/// damaged dataset, where the variable's array is.
fn inconsistent(var: &VarPath, message: String) -> Error {
    Error::Damaged {
        file: var.to_string(),
        offset: None,
        message,
    }
}

/// A variable's use of a dimension: the variable (its group's place and its index
/// there), which of its dimensions, and the length its stored array has along it.
struct DimUse<'t> {
    place: &'t Place,
    var: usize,
    dim: usize,
    len: u64,
}

/// Resolve every variable's dimension references (`uses`, in the tree's depth-first
/// order): create dimensions that are referenced but not declared, and check stored
/// shapes against dimension lengths. Each use reads the tree through indices, then
/// changes it; later uses see the dimensions earlier ones created or grew. (Copies of
/// every reference and variable path, gathered first, were half the time of a
/// 5,000-variable header dump's check.)
fn check_dims(
    root: &mut Group,
    uses: &[DimUse<'_>],
    places: &HashMap<&[String], &[usize]>,
    problems: &mut Vec<String>,
) -> Result<()> {
    for u in uses {
        let var = &group_at_ref(root, &u.place.at).vars[u.var];
        let dref = &var.dims[u.dim];
        let var_path = || VarPath::new(&u.place.path, &var.name);
        // Groups by their place in the tree: thousands of references to groups with
        // many siblings would each search the siblings by name.
        let Some(&at) = places.get(dref.group.as_slice()) else {
            return Err(inconsistent(
                &var_path(),
                format!(
                    "variable '{}': dimension reference '{}' names a group that does not exist",
                    var_path(),
                    dref.fqn()
                ),
            ));
        };
        let found = group_at_ref(root, at)
            .dims
            .iter()
            .position(|d| d.name == dref.name);
        let Some(found) = found else {
            problems.push(format!(
                "variable '{}': dimension '{}' is not declared; created with length {}",
                var_path(),
                dref.fqn(),
                u.len
            ));
            let name = dref.name.clone();
            group_at(root, at).dims.push(Dim {
                name,
                len: u.len,
                unlimited: false,
            });
            continue;
        };
        let declared = &group_at_ref(root, at).dims[found];
        if !declared.unlimited && declared.len != u.len {
            return Err(inconsistent(
                &var_path(),
                format!(
                    "variable '{}': its array has length {} along dimension '{}', which has length {}",
                    var_path(),
                    u.len,
                    dref.fqn(),
                    declared.len
                ),
            ));
        }
        if declared.unlimited && u.len > declared.len {
            group_at(root, at).dims[found].len = u.len;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
