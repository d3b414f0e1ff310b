//! A classic-family file's header rewritten in place, as netcdf-c's `nc_enddef` does
//! when the header still fits before the first variable's values: an edit of
//! attributes and names that leaves every variable where it was changes the header's
//! bytes alone, not the gigabytes after it.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::super::header::{DimHeader, Header, VarHeader};
use super::super::source::read_header;
use super::encode::encode;
use crate::error::{Error, Result};
use crate::model::Dataset;
use crate::store::LocalFile;

/// Write the header of the classic-family file at `path` so that it describes
/// `edited` (the file's dataset with attributes changed and things renamed: the same
/// dimensions, variables and types in the same order), when the new header fits in the
/// bytes before the first variable's values. One write of those bytes (the header,
/// zeros after it), made durable: a run killed before it leaves the old header, after
/// it the new one. False, with nothing written, when it does not fit (or `edited` is
/// not the same file's dataset): the caller rewrites the file.
///
/// # Errors
/// [`Error::Invalid`] for a file this user may not write; read and write errors.
pub(crate) fn rewrite_header(path: &Path, edited: &Dataset) -> Result<bool> {
    let old = read_header(&LocalFile::open(path)?)?;
    let Some(new) = edited_header(&old, edited) else {
        return Ok(false);
    };
    let Some(room) = old.vars.iter().map(|v| v.begin).min() else {
        // No variable: nothing after the header to keep in place.
        return Ok(false);
    };
    let mut bytes = encode(&new);
    let Ok(room) = usize::try_from(room) else {
        return Ok(false);
    };
    if bytes.len() > room {
        return Ok(false);
    }
    bytes.resize(room, 0);
    let file = OpenOptions::new().write(true).open(path).map_err(|e| {
        Error::Invalid(format!(
            "cannot be edited in place: {e} (edit into a copy: a second name)"
        ))
    })?;
    file.write_all_at(&bytes, 0)?;
    file.sync_data()?;
    Ok(true)
}

/// `old` (a file's header) describing `edited` instead, every variable where it was;
/// `None` when `edited` is not `old`'s dataset renamed and with other attributes.
fn edited_header(old: &Header, edited: &Dataset) -> Option<Header> {
    let root = &edited.root;
    if !root.groups.is_empty()
        || root.dims.len() != old.dims.len()
        || root.vars.len() != old.vars.len()
    {
        return None;
    }
    let dims = old
        .dims
        .iter()
        .zip(&root.dims)
        .map(|(o, n)| DimHeader {
            name: n.name.clone(),
            len: o.len,
        })
        .collect();
    let mut vars = Vec::with_capacity(old.vars.len());
    for (o, n) in old.vars.iter().zip(&root.vars) {
        let same_dims = o.dim_ids.len() == n.dims.len()
            && o.dim_ids
                .iter()
                .zip(&n.dims)
                .all(|(&i, d)| root.dims.get(i).is_some_and(|x| x.name == d.name));
        if o.nc_type != n.nc_type || !same_dims {
            return None;
        }
        vars.push(VarHeader {
            name: n.name.clone(),
            dim_ids: o.dim_ids.clone(),
            attrs: n.attrs.clone(),
            nc_type: o.nc_type,
            vsize: o.vsize,
            begin: o.begin,
        });
    }
    Some(Header {
        version: old.version,
        numrecs: old.numrecs,
        dims,
        attrs: root.attrs.clone(),
        vars,
        len: 0,
    })
}
