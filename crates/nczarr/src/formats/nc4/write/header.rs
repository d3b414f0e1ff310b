//! The metadata written after the values: the global heap of the attributes' strings
//! and `DIMENSION_LIST` references, each chunked dataset's B-tree, and the object
//! headers of datasets and groups, laid out end to end.
//!
//! Every structure has a size that does not depend on the addresses it holds, so the
//! layout is found by encoding once with no addresses, and the bytes by encoding again
//! with them.

use super::btree;
use super::dense::{self, DenseAt};
use super::encode::{self, kind, Alloc, H5Type, Layout, UNDEF, UNLIMITED};
use super::gheap::{descriptor, HeapBuilder, HeapId};
use super::objects::{AttrData, AttrPlan, FilePlan, Storage, DIM_WITHOUT_VARIABLE};
use super::user::Encoded;
use super::Written;

/// An attribute's values, with what the heap holds of them.
enum Payload {
    /// As stored.
    Bytes(Vec<u8>),
    /// Variable-length elements: item count and heap object (NIL: none).
    Vlen(Vec<(u32, Option<HeapId>)>),
    /// `REFERENCE_LIST`: (referring dataset, its dimension), 16 bytes each.
    References(Vec<(usize, i32)>),
    /// Values of a user-defined type, the heap's addresses still to set.
    Patched(super::user::Encoded),
}

/// An attribute ready to encode.
struct Attr {
    name: String,
    /// Of a named type (an index into the plan's types): the datatype is shared.
    committed: Option<usize>,
    datatype: Vec<u8>,
    dataspace: Vec<u8>,
    payload: Payload,
}

/// Where everything is.
#[derive(Default)]
struct Addresses {
    heap: Vec<u64>,
    datasets: Vec<u64>,
    groups: Vec<u64>,
    btrees: Vec<u64>,
    types: Vec<u64>,
    /// Each dataset's and group's dense attribute storage, if it has one.
    dense_datasets: Vec<Option<DenseAt>>,
    dense_groups: Vec<Option<DenseAt>>,
}

/// The metadata of `plan` whose values are `written`, placed at `start`: its bytes,
/// and the address of the root group's header.
///
/// # Errors
/// An attribute's values that are not of its user-defined type.
pub(super) fn metadata(
    plan: &FilePlan,
    mut written: Vec<Written>,
    start: u64,
) -> crate::error::Result<(Vec<u8>, u64)> {
    for w in &mut written {
        w.chunks.sort_unstable_by(|a, b| a.index.cmp(&b.index));
    }
    let mut heap = HeapBuilder::default();
    let mut dim_lists: Vec<Vec<HeapId>> = vec![Vec::new(); plan.datasets.len()];
    let dataset_attrs: Vec<Vec<Attr>> = (0..plan.datasets.len())
        .map(|i| dataset_attrs(plan, i, &mut heap, &mut dim_lists[i]))
        .collect::<Result<_, _>>()?;
    // Fill values whose variable-length parts live in the heap.
    let heap_fills: Vec<Option<Encoded>> = plan
        .datasets
        .iter()
        .map(|d| heap_fill(d, &mut heap))
        .collect::<Result<_, _>>()?;
    let group_attrs: Vec<Vec<Attr>> = plan
        .groups
        .iter()
        .map(|g| g.attrs.iter().map(|a| attr(a, &mut heap)).collect())
        .collect::<Result<_, _>>()?;

    // Sizes first, with no addresses.
    let mut addr = Addresses {
        heap: vec![0; heap.lens().len()],
        datasets: vec![0; plan.datasets.len()],
        groups: vec![0; plan.groups.len()],
        btrees: vec![UNDEF; plan.datasets.len()],
        types: vec![0; plan.types.len()],
        dense_datasets: vec![None; plan.datasets.len()],
        dense_groups: vec![None; plan.groups.len()],
    };
    let mut at = start + heap.lens().iter().sum::<u64>();
    for (i, d) in plan.datasets.iter().enumerate() {
        if let Storage::Chunked(c) = &d.storage {
            if !written[i].chunks.is_empty() {
                addr.btrees[i] = at;
                at += btree::index_len(written[i].chunks.len(), c.len());
            }
        }
    }
    for (k, t) in plan.types.iter().enumerate() {
        addr.types[k] = at;
        at += type_header(&t.h5type).len() as u64;
    }
    // Dense attribute storage: where each object's goes (its size does not depend on
    // the addresses inside it).
    let objects = dataset_attrs.iter().chain(&group_attrs);
    let mut dense_at = Vec::new();
    for attrs in objects {
        let bodies = attr_bodies(attrs, &addr);
        if needs_dense(&bodies) && !dense::fits(&bodies) {
            return Err(crate::error::Error::Unsupported(format!(
                "attribute '{}': its object has {} attributes, over the 65535 HDF5's dense storage holds",
                attrs.first().map_or("", |a| a.name.as_str()),
                bodies.len()
            )));
        }
        dense_at.push(needs_dense(&bodies).then(|| {
            let places = dense::places(&bodies, at);
            at += dense::len(&bodies);
            places
        }));
    }
    let (d, g) = dense_at.split_at(plan.datasets.len());
    addr.dense_datasets = d.to_vec();
    addr.dense_groups = g.to_vec();
    for i in 0..plan.datasets.len() {
        addr.datasets[i] = at;
        at += dataset_header(
            plan,
            i,
            &written[i],
            &dataset_attrs[i],
            heap_fills[i].as_ref(),
            &addr,
        )
        .len() as u64;
    }
    for (g, attrs) in group_attrs.iter().enumerate() {
        addr.groups[g] = at;
        at += group_header(plan, g, attrs, &addr).len() as u64;
    }

    // Then the bytes, with them.
    for (i, ids) in dim_lists.iter().enumerate() {
        for (k, id) in ids.iter().enumerate() {
            let scale = plan.dims[plan.datasets[i].dims[k]].scale;
            heap.replace(*id, &addr.datasets[scale].to_le_bytes());
        }
    }
    let (mut out, heap_at) = heap.encode(start);
    addr.heap = heap_at;
    for (i, d) in plan.datasets.iter().enumerate() {
        if let Storage::Chunked(c) = &d.storage {
            if addr.btrees[i] != UNDEF {
                debug_assert_eq!(start + out.len() as u64, addr.btrees[i]);
                out.extend(btree::encode(&written[i].chunks, c, addr.btrees[i]));
            }
        }
    }
    for t in &plan.types {
        out.extend(type_header(&t.h5type));
    }
    let dense_places = addr.dense_datasets.iter().chain(&addr.dense_groups);
    for (attrs, place) in dataset_attrs.iter().chain(&group_attrs).zip(dense_places) {
        if let Some(place) = place {
            let names: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
            let (bytes, places) = dense::encode(&attr_bodies(attrs, &addr), &names, place.heap);
            debug_assert_eq!((start + out.len() as u64, places), (place.heap, *place));
            out.extend(bytes);
        }
    }
    for i in 0..plan.datasets.len() {
        out.extend(dataset_header(
            plan,
            i,
            &written[i],
            &dataset_attrs[i],
            heap_fills[i].as_ref(),
            &addr,
        ));
    }
    for (g, attrs) in group_attrs.iter().enumerate() {
        out.extend(group_header(plan, g, attrs, &addr));
    }
    debug_assert_eq!(start + out.len() as u64, at);
    Ok((out, addr.groups[0]))
}

/// The fill value of dataset `d` of a string or user-defined type, its variable-length
/// parts added to the heap: a string's is netcdf-c's "", an empty heap object; a user-defined type's
/// its `_FillValue`, else netcdf-c's default, zeros with empty vlens and strings.
fn heap_fill(
    d: &super::objects::DatasetPlan,
    heap: &mut HeapBuilder,
) -> crate::error::Result<Option<Encoded>> {
    if d.no_fill || !(d.user || d.nc_type == crate::model::NcType::String) {
        return Ok(None);
    }
    let fill = d
        .attrs
        .iter()
        .find(|a| a.name == "_FillValue")
        .and_then(|a| match &a.data {
            AttrData::User { values, .. } => values.first(),
            _ => None,
        });
    let encoded = match fill {
        Some(v) if d.user => super::user::encode(&d.h5type, std::slice::from_ref(v), heap)
            .map_err(|e| crate::error::Error::Invalid(format!("_FillValue: {e}")))?,
        _ => super::user::zero(&d.h5type, heap),
    };
    Ok(Some(encoded))
}

/// A planned attribute, its strings and variable-length values added to the heap.
fn attr(a: &AttrPlan, heap: &mut HeapBuilder) -> crate::error::Result<Attr> {
    let payload = match &a.data {
        AttrData::User { h5type, values } => {
            Payload::Patched(super::user::encode(h5type, values, heap).map_err(|e| {
                crate::error::Error::Invalid(format!("attribute '{}': {e}", a.name))
            })?)
        }
        AttrData::Bytes(b) => Payload::Bytes(b.clone()),
        AttrData::Strings(s) => Payload::Vlen(
            s.iter()
                .map(|s| match s {
                    Some(s) => (s.len() as u32, Some(heap.add(s))),
                    None => (0, None),
                })
                .collect(),
        ),
    };
    Ok(Attr {
        name: a.name.clone(),
        committed: a.committed,
        datatype: a.datatype.clone(),
        dataspace: a.dataspace.clone(),
        payload,
    })
}

fn plain(a: AttrPlan) -> Attr {
    let AttrData::Bytes(b) = a.data else {
        unreachable!("netCDF's own attributes are fixed-size")
    };
    Attr {
        name: a.name,
        committed: None,
        datatype: a.datatype,
        dataspace: a.dataspace,
        payload: Payload::Bytes(b),
    }
}

/// A dataset's attributes: the user's, then netCDF's and the dimension scale API's.
fn dataset_attrs(
    plan: &FilePlan,
    i: usize,
    heap: &mut HeapBuilder,
    dim_list: &mut Vec<HeapId>,
) -> crate::error::Result<Vec<Attr>> {
    let d = &plan.datasets[i];
    let mut out: Vec<Attr> = d
        .attrs
        .iter()
        .map(|a| attr(a, heap))
        .collect::<Result<_, _>>()?;
    let int_array = |name: &str, values: &[i32]| Attr {
        name: name.into(),
        committed: None,
        datatype: super::types::h5type(crate::model::NcType::Int, false).encode(),
        dataspace: encode::dataspace(Some(&[values.len() as u64]), None),
        payload: Payload::Bytes(values.iter().flat_map(|v| v.to_le_bytes()).collect()),
    };
    if d.var.is_some() && !d.dims.is_empty() {
        let ids: Vec<i32> = d.dims.iter().map(|&k| plan.dims[k].id).collect();
        out.push(int_array("_Netcdf4Coordinates", &ids));
    }
    match d.scale_of {
        Some(k) => {
            let dim = &plan.dims[k];
            out.push(plain(super::objects::text_attr("CLASS", "DIMENSION_SCALE")));
            let name = if d.var.is_some() {
                dim.name.clone()
            } else {
                format!("{DIM_WITHOUT_VARIABLE}{:10}", dim.len)
            };
            out.push(plain(super::objects::text_attr("NAME", &name)));
            out.push(plain(super::objects::int_attr("_Netcdf4Dimid", dim.id)));
            let refs: Vec<(usize, i32)> = plan
                .datasets
                .iter()
                .enumerate()
                .filter(|(_, o)| o.scale_of.is_none())
                .flat_map(|(j, o)| {
                    o.dims
                        .iter()
                        .enumerate()
                        .filter(move |(_, &dk)| dk == k)
                        .map(move |(pos, _)| (j, pos as i32))
                })
                .collect();
            if !refs.is_empty() {
                out.push(Attr {
                    name: "REFERENCE_LIST".into(),
                    committed: None,
                    datatype: H5Type::Compound {
                        size: 16,
                        members: vec![
                            ("dataset".into(), 0, H5Type::ObjectRef),
                            (
                                "dimension".into(),
                                8,
                                super::types::h5type(crate::model::NcType::Int, false),
                            ),
                        ],
                    }
                    .encode(),
                    dataspace: encode::dataspace(Some(&[refs.len() as u64]), None),
                    payload: Payload::References(refs),
                });
            }
        }
        None if !d.dims.is_empty() => {
            let ids: Vec<(u32, Option<HeapId>)> = d
                .dims
                .iter()
                .map(|_| {
                    let id = heap.add(&[0; 8]);
                    dim_list.push(id);
                    (1, Some(id))
                })
                .collect();
            out.push(Attr {
                name: "DIMENSION_LIST".into(),
                committed: None,
                datatype: H5Type::Vlen(Box::new(H5Type::ObjectRef)).encode(),
                dataspace: encode::dataspace(Some(&[ids.len() as u64]), None),
                payload: Payload::Vlen(ids),
            });
        }
        None => {}
    }
    Ok(out)
}

/// The attribute info message, then the attribute messages (`bodies`) unless they
/// are in dense storage at `dense`.
fn attr_messages(bodies: Vec<Vec<u8>>, dense: Option<DenseAt>, messages: &mut Vec<(u8, Vec<u8>)>) {
    // Attribute info: creation order tracked and indexed.
    let mut info = vec![0, 0x03];
    info.extend_from_slice(&(bodies.len() as u16).to_le_bytes());
    let at = dense.map_or([UNDEF; 3], |d| [d.heap, d.names, d.order]);
    for a in at {
        info.extend_from_slice(&a.to_le_bytes());
    }
    messages.push((kind::ATTRIBUTE_INFO, info));
    if dense.is_none() {
        messages.extend(bodies.into_iter().map(|b| (kind::ATTRIBUTE, b)));
    }
}

/// Whether an object's attribute messages `bodies` need dense storage: one is too
/// large for a header.
fn needs_dense(bodies: &[Vec<u8>]) -> bool {
    bodies.iter().any(|b| b.len() > encode::MAX_MESSAGE)
}

/// The attribute message bodies of `attrs`.
fn attr_bodies(attrs: &[Attr], addr: &Addresses) -> Vec<Vec<u8>> {
    let mut bodies = Vec::with_capacity(attrs.len());
    for a in attrs {
        let data = match &a.payload {
            Payload::Bytes(b) => b.clone(),
            Payload::Vlen(items) => {
                let mut out = Vec::with_capacity(items.len() * 16);
                for (len, id) in items {
                    descriptor(&mut out, *len, *id, &addr.heap);
                }
                out
            }
            Payload::Patched(e) => {
                let mut bytes = e.bytes.clone();
                super::gheap::apply(&mut bytes, &e.patches, &addr.heap);
                bytes
            }
            Payload::References(refs) => {
                let mut out = Vec::with_capacity(refs.len() * 16);
                for (j, pos) in refs {
                    out.extend_from_slice(&addr.datasets[*j].to_le_bytes());
                    out.extend_from_slice(&pos.to_le_bytes());
                    out.extend_from_slice(&[0; 4]);
                }
                out
            }
        };
        let attr = match a.committed {
            Some(k) => {
                let shared = encode::shared_type(addr.types[k]);
                encode::attribute(&a.name, &shared, true, &a.dataspace, &data)
            }
            None => encode::attribute(&a.name, &a.datatype, false, &a.dataspace, &data),
        };
        bodies.push(attr);
    }
    bodies
}

/// Attributes an edit in place writes into existing object headers, planned as a
/// new file's are; their strings go in heap collections the edit places itself.
pub(super) struct Added(Vec<Attr>);

impl Added {
    /// Plan `attrs`, their strings added to `heap`; `None` when one is of a
    /// user-defined type (its datatype would be a committed type to find in the file)
    /// or is one this writer writes itself.
    pub(super) fn plan(attrs: &[&crate::model::Attr], heap: &mut HeapBuilder) -> Option<Added> {
        let mut out = Vec::with_capacity(attrs.len());
        for a in attrs {
            if a.user.is_some() || super::objects::OWN_ATTRS.contains(&a.name.as_str()) {
                return None;
            }
            out.push(attr(&super::objects::attr_plan(a), heap).ok()?);
        }
        Some(Added(out))
    }

    /// The attribute message bodies, `heap` holding the addresses of the heap
    /// collections (in the order [`HeapBuilder::encode`] gives them).
    pub(super) fn bodies(&self, heap: Vec<u64>) -> Vec<Vec<u8>> {
        let addr = Addresses {
            heap,
            ..Addresses::default()
        };
        attr_bodies(&self.0, &addr)
    }
}

fn dataset_header(
    plan: &FilePlan,
    i: usize,
    w: &Written,
    attrs: &[Attr],
    heap_fill: Option<&Encoded>,
    addr: &Addresses,
) -> Vec<u8> {
    let d = &plan.datasets[i];
    let item = d.item() as u64;
    let total = d.shape.iter().product::<u64>() * item;
    let dataspace = match &d.max {
        _ if d.shape.is_empty() => encode::dataspace(None, None),
        // A variable reaches along an unlimited dimension as far as it was written.
        Some(max) if d.var.is_some() => {
            let current: Vec<u64> = (0..d.shape.len())
                .map(|k| match max[k] {
                    UNLIMITED => w.extent.get(k).copied().unwrap_or(0),
                    _ => d.shape[k],
                })
                .collect();
            encode::dataspace(Some(&current), Some(max))
        }
        max => encode::dataspace(Some(&d.shape), max.as_deref()),
    };
    let compact;
    let (layout, alloc) = match &d.storage {
        Storage::Compact => {
            compact = w
                .compact
                .clone()
                .unwrap_or_else(|| d.pad_item().repeat((total / item.max(1)) as usize));
            (Layout::Compact(&compact).encode(), Alloc::Early)
        }
        Storage::Contiguous => (
            Layout::Contiguous {
                at: w.at.unwrap_or(UNDEF),
                len: total,
            }
            .encode(),
            Alloc::Late,
        ),
        Storage::Chunked(c) => (
            Layout::Chunked {
                btree: addr.btrees[i],
                chunk: c,
                item: item as u32,
            }
            .encode(),
            Alloc::Incremental,
        ),
    };
    let fill = match heap_fill {
        Some(e) => {
            let mut b = e.bytes.clone();
            super::gheap::apply(&mut b, &e.patches, &addr.heap);
            Some(b)
        }
        None => d.fill.clone(),
    };
    let datatype = match d.committed {
        Some(k) => (kind::SHARED_DATATYPE, encode::shared_type(addr.types[k])),
        None => (kind::DATATYPE, d.h5type.encode()),
    };
    let mut messages = vec![
        datatype,
        (kind::DATASPACE, dataspace),
        (
            kind::FILL_VALUE,
            encode::fill_value(alloc, fill.as_deref(), d.no_fill),
        ),
        (kind::LAYOUT, layout),
    ];
    if !d.filters.is_empty() {
        messages.push((kind::FILTERS, encode::filter_pipeline(&d.filters)));
    }
    attr_messages(
        attr_bodies(attrs, addr),
        addr.dense_datasets[i],
        &mut messages,
    );
    encode::object_header(&messages)
}

/// The object header of a named (committed) datatype.
fn type_header(t: &H5Type) -> Vec<u8> {
    encode::object_header(&[(kind::DATATYPE, t.encode())])
}

fn group_header(plan: &FilePlan, g: usize, attrs: &[Attr], addr: &Addresses) -> Vec<u8> {
    let group = &plan.groups[g];
    let links: Vec<(&str, u64)> = group
        .types
        .iter()
        .map(|&k| (plan.types[k].name.as_str(), addr.types[k]))
        .chain(
            group
                .datasets
                .iter()
                .map(|&i| (plan.datasets[i].name.as_str(), addr.datasets[i])),
        )
        .chain(
            group
                .groups
                .iter()
                .map(|&c| (plan.groups[c].name.as_str(), addr.groups[c])),
        )
        .collect();
    let mut messages = vec![
        (kind::LINK_INFO, encode::link_info(links.len() as u64)),
        (kind::GROUP_INFO, encode::group_info()),
    ];
    attr_messages(
        attr_bodies(attrs, addr),
        addr.dense_groups[g],
        &mut messages,
    );
    for (order, (name, at)) in links.iter().enumerate() {
        messages.push((kind::LINK, encode::link(name, *at, order as u64)));
    }
    encode::object_header(&messages)
}
