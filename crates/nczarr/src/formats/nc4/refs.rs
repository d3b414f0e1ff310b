//! HDF5 object references (h5py's `h5py.ref_dtype`, jhdf's test files): each is the
//! address of an object's header, read as the path of that group or variable, as
//! h5py's `f[ref].name` and h5dump show it. netcdf-c refuses such attributes (the whole
//! file fails in ncdump); netCDF-4's own references (`DIMENSION_LIST`,
//! `REFERENCE_LIST`) are hidden before they get here.

use std::collections::{HashMap, HashSet};

use hdf5_reader::group::Group as H5Group;
use hdf5_reader::{Datatype, RawAttribute, ReferenceType};

use super::fault::Fault;
use crate::model::{Attr, Values};

/// True for an object reference this module reads: the classic 8-byte address
/// (region references, and HDF5 1.12's revised references, are not read).
pub(super) fn is_object_reference(dt: &Datatype) -> bool {
    matches!(
        dt,
        Datatype::Reference {
            ref_type: ReferenceType::Object,
            size: 8
        }
    )
}

/// The path of every group and dataset in the file, by its header's address; the
/// first path met (groups before their members, members in the walk's order) where an
/// object has several.
pub(super) fn object_paths(root: &H5Group) -> HashMap<u64, String> {
    let mut paths = HashMap::new();
    let mut seen = HashSet::new();
    paths.insert(root.address(), "/".to_string());
    let mut todo = vec![(root.clone(), String::new())];
    seen.insert(root.address());
    while let Some((g, prefix)) = todo.pop() {
        // An unreadable group leaves its members unnamed; a reference to one of them
        // is then reported, not guessed.
        let Ok((groups, datasets)) = g.members() else {
            continue;
        };
        for ds in &datasets {
            paths
                .entry(ds.address())
                .or_insert_with(|| format!("{prefix}/{}", leaf(ds.name())));
        }
        for child in groups.into_iter().rev() {
            let path = format!("{prefix}/{}", leaf(child.name()));
            paths.entry(child.address()).or_insert_with(|| path.clone());
            if seen.insert(child.address()) {
                todo.push((child, path));
            }
        }
    }
    paths
}

fn leaf(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// An object-reference attribute as strings: the path of each referenced object, a
/// missing string (CDL's `NIL`) for a null reference (address 0 or undefined).
///
/// # Errors
/// One line when a reference is to no group or dataset of the file.
pub(super) fn reference_attr(
    a: &RawAttribute,
    paths: &HashMap<u64, String>,
) -> Result<Attr, Fault> {
    let m = a.message();
    let n = usize::try_from(
        m.dataspace
            .num_elements()
            .map_err(|e| Fault::from(hdf5_reader::error::Error::from(e)))?,
    )
    .map_err(|_| Fault::from("too many values"))?;
    if m.raw_data.len() < n * 8 {
        return Err(Fault::from(format!(
            "{n} object references need {} bytes, it holds {}",
            n * 8,
            m.raw_data.len()
        )));
    }
    Ok(Attr::new(a.name(), named(&m.raw_data[..n * 8], paths)?))
}

/// Stored references (8-byte little-endian addresses) as the paths they name.
///
/// # Errors
/// One line naming the first address that is no group's or dataset's.
pub(super) fn named(raw: &[u8], paths: &HashMap<u64, String>) -> Result<Values, Fault> {
    let names = raw
        .chunks_exact(8)
        .map(|b| {
            let mut word = [0u8; 8];
            word.copy_from_slice(b);
            let address = u64::from_le_bytes(word);
            if address == 0 || address == u64::MAX {
                return Ok(None);
            }
            paths.get(&address).cloned().map(Some).ok_or_else(|| {
                Fault::from(format!(
                    "an object reference to byte {address}, where no group or variable is"
                ))
            })
        })
        .collect::<Result<Vec<_>, Fault>>()?;
    Ok(Values::String(names.into_iter().collect()))
}
