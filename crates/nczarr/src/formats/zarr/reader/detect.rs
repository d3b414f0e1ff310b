//! Which generation of NCZarr metadata a dataset carries.

use crate::json::Json;

/// A metadata generation (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// NCZarr 1.0.0: separate `.nczarr`/`.nczgroup`/`.nczarray`/`.nczattr` objects.
    V1,
    /// netcdf-c 4.9.0: `_NCZARR_*` keys inside the Zarr objects.
    UpperKeys,
    /// netcdf-c 4.9.1–4.9.2: `_nczarr_*` keys inside the Zarr objects.
    LowerKeys,
    /// netcdf-c 4.9.3 and later: `_nczarr_*` attributes in `.zattrs`.
    Attributes,
    /// No NCZarr metadata.
    PureZarr,
}

impl Generation {
    /// A one-line description for messages and `zmapdump`.
    pub fn describe(self) -> &'static str {
        match self {
            Generation::V1 => "NCZarr V1 (netcdf-c 4.8: .nczarr/.nczgroup/.nczarray/.nczattr objects)",
            Generation::UpperKeys => "NCZarr 2.0.0, netcdf-c 4.9.0 layout (_NCZARR_* keys in .zgroup/.zarray/.zattrs)",
            Generation::LowerKeys => "NCZarr 2.0.0, netcdf-c 4.9.1-4.9.2 layout (_nczarr_* keys in .zgroup/.zarray/.zattrs)",
            Generation::Attributes => "NCZarr 2.0.0, netcdf-c 4.9.3+/4.10 layout (_nczarr_* attributes in .zattrs)",
            Generation::PureZarr => "pure Zarr version 2 (no NCZarr metadata)",
        }
    }
}

impl Generation {
    /// netCDF's `_SuperblockVersion` for this generation: 2 for NCZarr 2.x, 1 for V1,
    /// 0 for pure Zarr.
    pub fn superblock_version(self) -> i32 {
        match self {
            Generation::V1 => 1,
            Generation::PureZarr => 0,
            _ => 2,
        }
    }
}

/// Decide the generation from the root `.zgroup`, root `.zattrs` and whether a
/// `.nczarr` object exists. Newest layouts are checked first.
pub(crate) fn detect(
    zgroup: Option<&Json>,
    zattrs: Option<&Json>,
    has_nczarr_object: bool,
) -> Generation {
    if zattrs.and_then(|a| a.get("_nczarr_superblock")).is_some() {
        Generation::Attributes
    } else if zgroup.and_then(|g| g.get("_nczarr_superblock")).is_some() {
        Generation::LowerKeys
    } else if zgroup.and_then(|g| g.get("_NCZARR_SUPERBLOCK")).is_some() {
        Generation::UpperKeys
    } else if has_nczarr_object {
        Generation::V1
    } else {
        Generation::PureZarr
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn each_generation() {
        let j = |s: &str| parse_str(s).unwrap();
        assert_eq!(
            detect(
                Some(&j(r#"{"zarr_format": 2}"#)),
                Some(&j(r#"{"_nczarr_superblock": {"version": "2.0.0"}}"#)),
                false
            ),
            Generation::Attributes
        );
        assert_eq!(
            detect(
                Some(&j(r#"{"zarr_format": 2, "_nczarr_superblock": {}}"#)),
                None,
                false
            ),
            Generation::LowerKeys
        );
        assert_eq!(
            detect(
                Some(&j(r#"{"zarr_format": 2, "_NCZARR_SUPERBLOCK": {}}"#)),
                None,
                false
            ),
            Generation::UpperKeys
        );
        assert_eq!(
            detect(Some(&j(r#"{"zarr_format": 2}"#)), None, true),
            Generation::V1
        );
        assert_eq!(
            detect(Some(&j(r#"{"zarr_format": 2}"#)), Some(&j("{}")), false),
            Generation::PureZarr
        );
    }
}
