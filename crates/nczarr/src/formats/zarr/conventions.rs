//! What NCZarr adds to Zarr and both the reader and the writer use: where a variable's
//! array is, and the names of NCZarr's own keys.

use crate::model::VarPath;
use crate::store::{KeyError, StoreKey};

/// The root dimension that stands for "no dimensions" in the netcdf-c 4.9.0 layout
/// (netcdf-c's own name for it): 4.9.0 crashes on arrays without dimensions.
pub(crate) const SCALAR_DIM: &str = "_scalar_";

/// Where our writer keeps, in a group's attributes, what netCDF says of each of its
/// arrays that v3 has no place for (`_nczarr_array`, `_nczarr_attr`, a char
/// `_FillValue`), by array name: in the group because xarray hides a group's `_nc*`
/// attributes but shows an array's (and cannot write one holding an object to netCDF).
pub(crate) const ARRAYS_INFO: &str = "_nczarr_arrays";

/// The store key of a variable's array: its group names and its name.
pub(crate) fn array_key(var: &VarPath) -> Result<StoreKey, KeyError> {
    let mut key = StoreKey::root();
    for g in &var.group {
        key = key.join(g)?;
    }
    key.join(&var.name)
}
