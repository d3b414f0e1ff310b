//! What a netCDF-4 file can hold of a planned dataset, decided before anything is
//! written: storage and codecs fitted to HDF5's rules (a warning for each change), and
//! a refusal naming the first thing it cannot hold.

use super::filters::filters_of;
use super::objects::is_unlimited;
use crate::chunking::netcdf4_default_chunks;
use crate::encoding::{Chunking, Plan};
use crate::error::{Error, Result};
use crate::model::{Dataset, Group, NcType};

/// Bytes of compact storage HDF5 holds (the layout message's size is two bytes, with
/// room for the rest of the message).
const MAX_COMPACT: u64 = 64_000;

/// Fit `plan` to a netCDF-4 file (the classic model when `classic_model`): returns a
/// warning for each change that keeps the values but not a property.
///
/// - Unlimited dimensions or codecs need chunks: a variable planned contiguous gets
///   netcdf-c's default chunks.
/// - A chunk longer than a fixed dimension is cut to it (HDF5 refuses it).
/// - A codec with no HDF5 filter that stores its bytes, or any codec of a variable
///   whose values have variable-length parts (strings, vlens), is left out.
/// - Compact storage over 64 kB becomes contiguous.
///
/// # Errors
/// [`Error::Unsupported`] naming, in the classic model, the first group, user-defined
/// type or second unlimited dimension the model does not have.
pub fn fit_plan(dataset: &Dataset, classic_model: bool, plan: &mut Plan) -> Result<Vec<String>> {
    check_group(&dataset.root, "/", classic_model)?;
    if classic_model {
        let unlimited = count_unlimited(&dataset.root);
        if unlimited > 1 {
            return Err(Error::Unsupported(format!(
                "{unlimited} unlimited dimensions: the netCDF-4 classic model has one (write -k nc4)"
            )));
        }
    }
    let mut warnings = Vec::new();
    for (path, var) in dataset.vars() {
        let Some(e) = plan.get_mut(&path) else {
            continue;
        };
        let shape = dataset.var_shape(var);
        let unlimited: Vec<bool> = var
            .dims
            .iter()
            .map(|d| dataset.dim(d).is_some_and(is_unlimited))
            .collect();
        let (item, has_vlen) = match &var.user_type {
            Some(id) => super::user::stored_item(dataset, id),
            None if var.nc_type == NcType::String => (16, true),
            None => (var.nc_type.size() as u64, false),
        };
        if shape.is_empty() {
            if e.chunking != Some(Chunking::Compact) {
                e.chunking = Some(Chunking::Contiguous);
            }
            e.codecs.clear();
            continue;
        }
        if has_vlen && !e.codecs.is_empty() {
            warnings.push(format!(
                "variable '{path}': codecs left out (HDF5 filters do not apply to strings and vlens)"
            ));
            e.codecs.clear();
        }
        let chunk_bytes =
            |c: &[u64]| (c.iter().product::<u64>() * item).min(u64::from(u32::MAX)) as u32;
        let planned_chunk = e.chunk_shape().map(<[u64]>::to_vec);
        let probe = planned_chunk.clone().unwrap_or_else(|| shape.clone());
        let kept: Vec<_> = e
            .codecs
            .iter()
            .filter(|c| {
                let ok =
                    filters_of(std::slice::from_ref(c), item as u32, chunk_bytes(&probe)).is_ok();
                if !ok {
                    warnings.push(format!(
                        "variable '{path}': codec '{}' left out (no HDF5 filter stores its bytes)",
                        crate::encoding::codec_id(c)
                    ));
                }
                ok
            })
            .cloned()
            .collect();
        e.codecs = kept;
        let needs_chunks = unlimited.contains(&true) || !e.codecs.is_empty();
        match &e.chunking {
            Some(Chunking::Chunked(c)) => {
                let cut: Vec<u64> = c
                    .iter()
                    .zip(shape.iter().zip(&unlimited))
                    .map(|(&c, (&len, &u))| if !u && len > 0 && c > len { len } else { c })
                    .collect();
                if cut != *c {
                    warnings.push(format!(
                        "variable '{path}': chunks {c:?} cut to {cut:?} (HDF5 chunks do not pass a fixed dimension's end)"
                    ));
                    e.chunking = Some(Chunking::Chunked(cut));
                }
            }
            _ if needs_chunks => {
                e.chunking = Some(Chunking::Chunked(netcdf4_default_chunks(
                    &shape, &unlimited, item,
                )));
            }
            Some(Chunking::Compact) if shape.iter().product::<u64>() * item > MAX_COMPACT => {
                warnings.push(format!(
                    "variable '{path}': stored contiguous (compact storage holds at most {MAX_COMPACT} bytes)"
                ));
                e.chunking = Some(Chunking::Contiguous);
            }
            _ => {}
        }
        if let Some(c) = e.chunk_shape() {
            if c.iter().product::<u64>() * item >= u64::from(u32::MAX) {
                return Err(Error::Unsupported(format!(
                    "variable '{path}': chunks {c:?} of 4 GiB or more (HDF5 stores a chunk's size in 32 bits)"
                )));
            }
        }
    }
    Ok(warnings)
}

fn check_group(group: &Group, path: &str, classic_model: bool) -> Result<()> {
    if let Some(t) = group.types.first().filter(|_| classic_model) {
        return Err(Error::Unsupported(format!(
            "group '{path}', type '{}': the netCDF-4 classic model has no user-defined types (write -k nc4)",
            t.name
        )));
    }
    if classic_model {
        if let Some(child) = group.groups.first() {
            return Err(Error::Unsupported(format!(
                "group '{}': the netCDF-4 classic model has no groups (write -k nc4)",
                child.name
            )));
        }
        for v in &group.vars {
            if !v.nc_type.is_classic() {
                return Err(Error::Unsupported(format!(
                    "variable '{}' of type {}: the netCDF-4 classic model has the classic types only (write -k nc4)",
                    v.name, v.nc_type
                )));
            }
        }
        for a in group
            .attrs
            .iter()
            .chain(group.vars.iter().flat_map(|v| &v.attrs))
        {
            if !a.values.nc_type().is_classic() {
                return Err(Error::Unsupported(format!(
                    "attribute '{}' of type {}: the netCDF-4 classic model has the classic types only (write -k nc4)",
                    a.name,
                    a.values.nc_type()
                )));
            }
        }
    }
    for child in &group.groups {
        let p = format!("{}{}/", path, child.name);
        check_group(child, &p, classic_model)?;
    }
    Ok(())
}

fn count_unlimited(group: &Group) -> usize {
    group.dims.iter().filter(|d| is_unlimited(d)).count()
        + group.groups.iter().map(count_unlimited).sum::<usize>()
}
