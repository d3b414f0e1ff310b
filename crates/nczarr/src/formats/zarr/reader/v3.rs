//! Reading Zarr version 3 (zarr-python 3, xarray, and our own `zarr3` output) into the
//! netCDF model.
//!
//! Groups and arrays come from the consolidated metadata inside the root `zarr.json`
//! when it has them, else by listing (children with a `zarr.json`, in byte order).
//! `dimension_names` play the part of xarray's `_ARRAY_DIMENSIONS` with the same
//! sharing rules (`pure`); null names give `_Anonymous_Dim_<len>`. Attributes are typed
//! from JSON as for pure Zarr v2, or by `_nczarr_attr` where we wrote it; xarray's
//! base64 `_FillValue` attributes are decoded. What netCDF has and v3 lacks (unlimited
//! and unused dimensions, char, attribute types) is read back from the `_nczarr_group`,
//! `_nczarr_array` and `_nczarr_attr` attributes our writer adds (`docs/formats.md`).

use std::collections::{BTreeMap, HashMap};

use super::super::conventions::ARRAYS_INFO;
use super::pure::{self, Pending};
use super::var::{is_default_fill, nc_type_of, read_attrs};
use super::{Arrays, Generation, ReadOptions, ZarrSource};
use crate::error::{Error, Result};
use crate::formats::zarr::v2::Dtype;
use crate::formats::zarr::v3::{ArrayMeta3, NodeMeta, ZARR_JSON};
use crate::json::{self, Json};
use crate::model::{Attr, Dataset, Dim, Group, NcType, Values, Var, VarPath};
use crate::source::FormatInfo;
use crate::store::{ReadStore, StoreKey};

/// Where documents come from: the consolidated metadata of the root, or the store.
struct Docs<'s> {
    store: &'s dyn ReadStore,
    consolidated: Option<HashMap<String, Json>>,
}

impl Docs<'_> {
    /// The parsed `zarr.json` of each node path (`""` is the root); `None` when absent.
    /// The nodes at `paths`, each with its own result: a damaged `zarr.json` is that
    /// node's error (the caller skips it), a store that cannot be read everyone's.
    fn nodes(&self, paths: &[String]) -> Result<Vec<Result<Option<NodeMeta>>>> {
        let keys: Vec<StoreKey> = paths.iter().map(|p| node_key(p)).collect::<Result<_>>()?;
        let docs: Vec<Result<Option<Json>>> = match &self.consolidated {
            Some(c) => paths
                .iter()
                .map(|p| Ok(c.get(p.as_str()).cloned()))
                .collect(),
            None => {
                let mut out = Vec::with_capacity(keys.len());
                for (k, got) in keys.iter().zip(self.store.get_many(&keys)) {
                    out.push(got?.map(|bytes| parse(k, &bytes)).transpose());
                }
                out
            }
        };
        Ok(docs
            .into_iter()
            .zip(&keys)
            .map(|(d, k)| {
                d?.map(|d| NodeMeta::from_json(&d, k.as_str()).map_err(Error::from))
                    .transpose()
            })
            .collect())
    }

    /// The names of the children of the group at `path`, sorted.
    fn children(&self, path: &str) -> Result<Vec<String>> {
        let mut names: Vec<String> = match &self.consolidated {
            Some(c) => c
                .keys()
                .filter_map(|k| {
                    let rest = if path.is_empty() {
                        Some(k.as_str())
                    } else {
                        k.strip_prefix(path).and_then(|r| r.strip_prefix('/'))
                    }?;
                    (!rest.is_empty() && !rest.contains('/')).then(|| rest.to_string())
                })
                .collect(),
            None => {
                let prefix = if path.is_empty() {
                    StoreKey::root()
                } else {
                    StoreKey::new(path)?
                };
                self.store.search(&prefix)?
            }
        };
        names.retain(|n| n != ZARR_JSON && !n.starts_with('.'));
        names.sort();
        names.dedup();
        Ok(names)
    }
}

fn node_key(path: &str) -> Result<StoreKey> {
    Ok(if path.is_empty() {
        StoreKey::new(ZARR_JSON)?
    } else {
        StoreKey::new(path)?.join(ZARR_JSON)?
    })
}

fn parse(key: &StoreKey, bytes: &[u8]) -> Result<Json> {
    json::parse(bytes).map_err(|error| Error::Json {
        key: key.to_string(),
        error,
    })
}

/// Read the Zarr v3 dataset whose root `zarr.json` is `root_doc`.
///
/// # Errors
/// Metadata errors naming the `zarr.json`; store errors.
pub(crate) fn read(
    store: Box<dyn ReadStore>,
    root_doc: &Json,
    options: &ReadOptions,
) -> Result<ZarrSource> {
    let trace = |m: &str| {
        if let Some(t) = &options.trace {
            t(m);
        }
    };
    let root = NodeMeta::from_json(root_doc, ZARR_JSON)?;
    let mut problems = Vec::new();
    let mut facts = Vec::new();
    let (group, arrays, root_array, ours) = match root {
        NodeMeta::Array(meta) => {
            // A store that is one array: one variable, named after the store.
            let name = array_name(&store.location());
            let mut pending = Pending {
                group: Group::new(String::new()),
                dim_names: Vec::new(),
                stored: Vec::new(),
                children: Vec::new(),
            };
            let (v, st, names) = build_var(&name, &StoreKey::root(), &meta, None, &mut problems)?;
            pending.group.vars.push(v);
            pending.stored.push(st);
            pending.dim_names.push(names);
            let (g, a) = finish(pending, BTreeMap::new(), &mut problems);
            (g, a, Some(VarPath::new(&[], &name)), false)
        }
        NodeMeta::Group {
            attributes,
            consolidated,
        } => {
            let docs = Docs {
                store: store.as_ref(),
                consolidated: consolidated.map(|c| {
                    c.into_iter()
                        .map(|(k, v)| (k.trim_matches('/').to_string(), v))
                        .collect()
                }),
            };
            if docs.consolidated.is_some() {
                trace("using consolidated metadata (zarr.json)");
                facts.push("consolidated metadata: root zarr.json".to_string());
            }
            let ours = attributes.get("_nczarr_superblock").is_some();
            let mut declared = BTreeMap::new();
            let pending = read_group(
                &docs,
                "",
                String::new(),
                &attributes,
                &mut declared,
                &mut problems,
            )?;
            let (g, a) = finish(pending, declared, &mut problems);
            (g, a, None, ours)
        }
    };
    let nc_properties = None;
    let format = FormatInfo {
        kind: "netCDF-4".into(),
        detail: if ours {
            "Zarr version 3 with nczarr-tools netCDF attributes (_nczarr_*)".into()
        } else {
            "Zarr version 3".into()
        },
        nc_properties,
        superblock_version: Some(Generation::PureZarr.superblock_version()),
        is_netcdf4: Some(true),
        codecs_attr: true,
        attr_types: ours,
        zarr_version: Some(3),
        facts,
    };
    let source = ZarrSource::new(store, Dataset { root: group }, arrays, format, problems);
    let source = match root_array {
        Some(v) => source.with_root_array(v),
        None => source,
    };
    Ok(match options.batch_bytes {
        Some(b) => source.with_batch_bytes(b),
        None => source,
    })
}

/// A variable name for a store that is one array: its last path part without `.zarr`.
pub(super) fn array_name(location: &str) -> String {
    let last = location
        .trim_end_matches('/')
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("");
    let stem = last.strip_suffix(".zarr").unwrap_or(last);
    let stem = stem.split('#').next().unwrap_or("");
    if stem.is_empty() {
        "array".into()
    } else {
        stem.to_string()
    }
}

fn finish(
    pending: Pending,
    mut dims: BTreeMap<Vec<String>, Vec<Dim>>,
    problems: &mut Vec<String>,
) -> (Group, Arrays) {
    let mut arrays = Arrays::new();
    let mut group = pure::resolve(pending, &[], &mut dims, &mut arrays, problems);
    pure::attach_dims(&mut group, &[], &mut dims);
    (group, arrays)
}

fn read_group(
    docs: &Docs<'_>,
    path: &str,
    name: String,
    attributes: &Json,
    declared: &mut BTreeMap<Vec<String>, Vec<Dim>>,
    problems: &mut Vec<String>,
) -> Result<Pending> {
    let key = if path.is_empty() {
        StoreKey::root()
    } else {
        StoreKey::new(path)?
    };
    let types = attributes.get("_nczarr_attr").and_then(|a| a.get("types"));
    let mut group = Group::new(name);
    group.attrs = read_attrs(Some(attributes), types, None, &key, problems);
    let group_path: Vec<String> = if path.is_empty() {
        Vec::new()
    } else {
        path.split('/').map(str::to_string).collect()
    };
    if let Some(dims) = attributes
        .get("_nczarr_group")
        .and_then(|g| g.get("dimensions"))
        .and_then(Json::as_object)
    {
        let list = declared.entry(group_path).or_default();
        for (dname, d) in dims {
            let len = d
                .get("size")
                .and_then(Json::as_i64_lenient)
                .and_then(|l| u64::try_from(l).ok());
            let unlimited = d
                .get("unlimited")
                .and_then(Json::as_i64_lenient)
                .unwrap_or(0)
                != 0;
            match len {
                Some(len) => list.push(Dim {
                    name: dname.clone(),
                    len,
                    unlimited,
                }),
                None => problems.push(format!(
                    "key '{}': dimension '{dname}' in _nczarr_group has no valid size; ignored",
                    node_key(path)?
                )),
            }
        }
    }
    let names = docs.children(path)?;
    let paths: Vec<String> = names
        .iter()
        .map(|n| {
            if path.is_empty() {
                n.clone()
            } else {
                format!("{path}/{n}")
            }
        })
        .collect();
    let nodes = docs.nodes(&paths)?;
    let mut pending = Pending {
        group,
        dim_names: Vec::new(),
        stored: Vec::new(),
        children: Vec::new(),
    };
    let mut subgroups = Vec::new();
    for ((n, p), node) in names.iter().zip(&paths).zip(nodes) {
        let node = match node {
            Ok(node) => node,
            // A damaged zarr.json costs its node, not the dataset.
            Err(e @ (Error::Json { .. } | Error::Metadata { .. })) => {
                problems.push(format!("{e}; this array or group is left out"));
                continue;
            }
            Err(e) => return Err(e),
        };
        match node {
            Some(NodeMeta::Array(meta)) => {
                let info = attributes.get(ARRAYS_INFO).and_then(|a| a.get(n));
                match build_var(n, &StoreKey::new(p)?, &meta, info, problems) {
                    Ok((v, st, dn)) => {
                        pending.group.vars.push(v);
                        pending.stored.push(st);
                        pending.dim_names.push(dn);
                    }
                    Err(e @ Error::Metadata { .. }) => {
                        problems.push(format!("{e}; variable skipped"))
                    }
                    Err(e) => return Err(e),
                }
            }
            Some(NodeMeta::Group { attributes, .. }) => {
                subgroups.push((n.clone(), p.clone(), attributes))
            }
            None => {}
        }
    }
    // Our writer records netCDF's order of variables and groups; listings are sorted.
    let order = |key: &str| -> Option<Vec<String>> {
        let list = attributes.get("_nczarr_group")?.get(key)?.as_array()?;
        list.iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect()
    };
    let rank =
        |order: &[String], name: &str| order.iter().position(|n| n == name).unwrap_or(usize::MAX);
    if let Some(order) = order("arrays") {
        let mut vars: Vec<_> = std::mem::take(&mut pending.group.vars)
            .into_iter()
            .zip(std::mem::take(&mut pending.stored))
            .zip(std::mem::take(&mut pending.dim_names))
            .collect();
        vars.sort_by_key(|((v, _), _)| rank(&order, &v.name));
        for ((v, st), dn) in vars {
            pending.group.vars.push(v);
            pending.stored.push(st);
            pending.dim_names.push(dn);
        }
    }
    if let Some(order) = order("groups") {
        subgroups.sort_by_key(|(n, _, _)| rank(&order, n));
    }
    for (n, p, attrs) in subgroups {
        let child = read_group(docs, &p, n, &attrs, declared, problems)?;
        pending.children.push(child);
    }
    Ok(pending)
}

/// Where our writer kept a char variable's `_FillValue` among the array's attributes
/// before it kept it with the group ([`ARRAYS_INFO`]); still read.
const CHAR_FILL: &str = "_nczarr_FillValue";

/// One array as a variable: its type, fill, attributes, storage and dimension names.
/// `info` is what its group says of it ([`ARRAYS_INFO`]).
fn build_var(
    name: &str,
    key: &StoreKey,
    meta: &ArrayMeta3,
    info: Option<&Json>,
    problems: &mut Vec<String>,
) -> Result<(
    Var,
    crate::formats::zarr::array::StoredArray,
    Vec<Option<String>>,
)> {
    let doc_key = node_key(key.as_str())?;
    let merged = info.and_then(Json::as_object).map(|extra| {
        let mut members = meta
            .attributes
            .as_object()
            .map(<[(String, Json)]>::to_vec)
            .unwrap_or_default();
        members.extend(extra.iter().cloned());
        Json::Object(members)
    });
    let attributes = merged.as_ref().unwrap_or(&meta.attributes);
    let array_info = attributes.get("_nczarr_array");
    let (mut nc_type, note) = nc_type_of(&meta.stored.dtype, false);
    let nctype = array_info
        .and_then(|a| a.get("nctype"))
        .and_then(Json::as_str);
    if nctype == Some("char") && matches!(meta.stored.dtype, Dtype::Bytes { len: 1, .. }) {
        nc_type = NcType::Char;
    }
    if nctype == Some("string") && matches!(meta.stored.dtype, Dtype::Bytes { .. }) {
        nc_type = NcType::String;
    }
    let fill = meta
        .fill(nc_type)
        .map_err(|e| Error::metadata(&doc_key, e.to_string()))?;
    let types = attributes.get("_nczarr_attr").and_then(|a| a.get("types"));
    // xarray keeps CF's _FillValue apart from Zarr's fill_value, floats in base64.
    let renamed = rename_char_fill(attributes);
    let (plain, cf_fill) = split_base64_fill(renamed.as_ref().unwrap_or(attributes), nc_type);
    let mut attrs = read_attrs(Some(&plain), types, Some(nc_type), key, problems);
    if let Some(f) = cf_fill {
        attrs.insert(0, Attr::new("_FillValue", f));
    }
    // Zarr v3 always has a fill_value (zero unless set), so it is not taken as CF's
    // _FillValue: as in xarray, only a `_FillValue` attribute is. Missing chunks
    // still read as the fill_value, as zarr-python reads them.
    let no_fill = array_info
        .and_then(|a| a.get("nofill"))
        .is_some_and(|v| matches!(v, Json::Bool(true)));
    // A fill_value someone chose (not zarr-python's default zero, nor netCDF's default)
    // with no attribute beside it is the fill they meant: zarr-python reads it so.
    // (xarray writes its NaN fills as attributes too.)
    if attrs.iter().all(|a| a.name != "_FillValue") && nc_type != NcType::String && !no_fill {
        if let Some(f) = fill.as_ref().filter(|f| !is_default_fill(f) && !is_zero(f)) {
            attrs.insert(0, Attr::new("_FillValue", f.clone()));
        }
    }
    super::var::add_bool_attr(&meta.stored.dtype, &mut attrs);
    let rank = meta.stored.shape.len();
    let names = meta
        .dimension_names
        .clone()
        .unwrap_or_else(|| vec![None; rank]);
    let var = Var {
        name: name.to_string(),
        nc_type,
        user_type: None,
        dims: Vec::new(),
        attrs,
        notes: note.into_iter().collect(),
    };
    let mut stored = meta.stored.clone();
    stored.fill = if no_fill { None } else { fill };
    Ok((var, stored, names))
}

/// True for zarr-python's default fill: zero (`""` for strings).
fn is_zero(fill: &Values) -> bool {
    match fill {
        Values::Float(f) => f.first().is_some_and(|x| *x == 0.0),
        Values::Double(d) => d.first().is_some_and(|x| *x == 0.0),
        Values::String(_) => true,
        v => {
            let mut bytes = Vec::new();
            v.extend_ne_bytes(&mut bytes);
            bytes.iter().all(|&b| b == 0)
        }
    }
}

/// The attributes with a char variable's `_FillValue` under its own name again (our
/// writer keeps it as `_nczarr_FillValue`, which xarray leaves alone); `None` when
/// there is none.
fn rename_char_fill(attributes: &Json) -> Option<Json> {
    let members = attributes.as_object()?;
    members.iter().any(|(k, _)| k == CHAR_FILL).then(|| {
        let rename = |k: &String| {
            if k == CHAR_FILL {
                "_FillValue".to_string()
            } else {
                k.clone()
            }
        };
        Json::Object(
            members
                .iter()
                .map(|(k, v)| {
                    // The attribute types name it too.
                    let v = match (k.as_str(), v) {
                        ("_nczarr_attr", Json::Object(m)) => Json::Object(
                            m.iter()
                                .map(|(kk, vv)| match (kk.as_str(), vv) {
                                    ("types", Json::Object(t)) => (
                                        kk.clone(),
                                        Json::Object(
                                            t.iter().map(|(n, x)| (rename(n), x.clone())).collect(),
                                        ),
                                    ),
                                    _ => (kk.clone(), vv.clone()),
                                })
                                .collect(),
                        ),
                        _ => v.clone(),
                    };
                    (rename(k), v)
                })
                .collect(),
        )
    })
}

/// The attributes without a base64 `_FillValue` (xarray's spelling of float fills),
/// and that fill decoded as one value of `nc_type`.
fn split_base64_fill(attributes: &Json, nc_type: NcType) -> (Json, Option<Values>) {
    let Some(members) = attributes.as_object() else {
        return (attributes.clone(), None);
    };
    let text = match attributes.get("_FillValue") {
        Some(Json::String(s)) if matches!(nc_type, NcType::Float | NcType::Double) => s,
        _ => return (attributes.clone(), None),
    };
    let value = match crate::formats::zarr::v2::decode_base64(text) {
        Some(b) if b.len() == 8 => f64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        Some(b) if b.len() == 4 => f64::from(f32::from_le_bytes(b.try_into().unwrap_or([0; 4]))),
        _ => match json::parse_float_text(text) {
            Some(v) => v,
            None => return (attributes.clone(), None),
        },
    };
    let values = if nc_type == NcType::Float {
        Values::Float(vec![value as f32])
    } else {
        Values::Double(vec![value])
    };
    let rest = members
        .iter()
        .filter(|(k, _)| k != "_FillValue")
        .cloned()
        .collect();
    (Json::Object(rest), Some(values))
}
