//! A Zarr v2 `fill_value` carried as an explicit `_FillValue` where the output would
//! otherwise lose it as a missing-value marker.
//!
//! xarray masks the values equal to a Zarr v2 array's `fill_value` (it reads it as
//! CF's `_FillValue`); netCDF's readers show no attribute for a fill equal to netCDF's
//! default (-32767 for shorts), so our model has none either, as ncdump prints none. A
//! copy into a netCDF file or Zarr v3, where xarray masks only by a `_FillValue`
//! attribute, would then give xarray `-3276.7` where it read NaN from the input (the
//! packed shorts of ERA5 and many others). Pure Zarr v2 and NCZarr outputs keep the
//! `fill_value` itself, which xarray reads as before. Only pure Zarr v2 inputs are
//! meant: NCZarr's `fill_value` is netCDF's fill, written whether or not its author set
//! one, and netcdf-c shows none.

use crate::encoding::Plan;
use crate::model::{Attr, Dataset, NcType};

/// Give every variable of `dataset` whose planned encoding holds a Zarr v2
/// `fill_value` that masks ([`crate::encoding::Encoding::zarr_fill_masks`]) and that
/// has no `_FillValue` attribute that fill as its `_FillValue`. For outputs whose
/// fill does not mask in xarray: netCDF files and Zarr v3.
pub fn carry_zarr_fills(dataset: &mut Dataset, plan: &Plan) {
    let paths: Vec<_> = dataset.vars().into_iter().map(|(p, _)| p).collect();
    for path in paths {
        let Some(enc) = plan.get(&path) else { continue };
        let Some(fill) = enc
            .fill
            .as_ref()
            .filter(|_| enc.zarr_fill_masks && !enc.no_fill)
        else {
            continue;
        };
        let Some(var) = dataset.var_mut(&path) else {
            continue;
        };
        if matches!(var.nc_type, NcType::String | NcType::Char)
            || var.user_type.is_some()
            || var.attr("_FillValue").is_some()
            || fill.nc_type() != var.nc_type
        {
            continue;
        }
        var.attrs.insert(0, Attr::new("_FillValue", fill.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Encoding;
    use crate::model::{Group, Values, Var, VarPath};

    #[test]
    fn a_masking_default_fill_becomes_an_attribute_and_nothing_else_changes() {
        let mut root = Group::new("");
        for name in ["packed", "plain", "has", "text"] {
            root.vars.push(Var {
                name: name.into(),
                nc_type: if name == "text" {
                    NcType::String
                } else {
                    NcType::Short
                },
                user_type: None,
                dims: Vec::new(),
                attrs: if name == "has" {
                    vec![Attr::new("_FillValue", Values::Short(vec![-1]))]
                } else {
                    Vec::new()
                },
                notes: Vec::new(),
            });
        }
        let mut ds = Dataset { root };
        let masking = Encoding {
            fill: Some(Values::Short(vec![-32767])),
            zarr_fill_masks: true,
            ..Default::default()
        };
        let plain = Encoding {
            zarr_fill_masks: false,
            ..masking.clone()
        };
        let plan: Plan = [
            (VarPath::new(&[], "packed"), masking.clone()),
            (VarPath::new(&[], "has"), masking.clone()),
            (VarPath::new(&[], "text"), masking),
            (VarPath::new(&[], "plain"), plain),
        ]
        .into_iter()
        .collect();
        carry_zarr_fills(&mut ds, &plan);
        let fill = |n: &str| {
            ds.var(&VarPath::new(&[], n))
                .and_then(|v| v.attr("_FillValue"))
                .map(|a| a.values.clone())
        };
        assert_eq!(fill("packed"), Some(Values::Short(vec![-32767])));
        assert_eq!(fill("plain"), None);
        assert_eq!(fill("has"), Some(Values::Short(vec![-1])));
        assert_eq!(fill("text"), None);
    }
}
