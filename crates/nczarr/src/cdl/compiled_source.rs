//! Compiled CDL as a dataset source: the dataset and its data held in memory. What
//! nczgen writes through the one write path, and what the parse → print → parse tests
//! print.

use std::sync::LazyLock;

use super::compile::Compiled;
use crate::chunking::{for_each_index, Region};
use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::model::{Dataset, Strings, UValue, Values, VarPath};
use crate::source::{DataSource, DatasetSource, FormatInfo};

/// What compiled CDL is: netCDF-4 in memory, no file yet.
static CDL_FORMAT: LazyLock<FormatInfo> = LazyLock::new(|| FormatInfo {
    kind: "netCDF-4".into(),
    detail: "CDL compiled in memory".into(),
    nc_properties: None,
    superblock_version: None,
    is_netcdf4: Some(true),
    codecs_attr: true,
    attr_types: true,
    zarr_version: None,
    facts: Vec::new(),
});

/// Apply `$body` to the vector inside any [`Values`] (`$strings` to [`Strings`]), making a
/// `Values` of the same type.
macro_rules! map_values {
    ($values:expr, $v:ident => $body:expr, $s:ident => $strings:expr) => {
        match $values {
            Values::Byte($v) => Values::Byte($body),
            Values::Char($v) => Values::Char($body),
            Values::Short($v) => Values::Short($body),
            Values::Int($v) => Values::Int($body),
            Values::Float($v) => Values::Float($body),
            Values::Double($v) => Values::Double($body),
            Values::UByte($v) => Values::UByte($body),
            Values::UShort($v) => Values::UShort($body),
            Values::UInt($v) => Values::UInt($body),
            Values::Int64($v) => Values::Int64($body),
            Values::UInt64($v) => Values::UInt64($body),
            Values::String($s) => Values::String($strings),
        }
    };
}

/// The values `region` selects from a C-order array of `shape` held in `values`.
///
/// # Errors
/// [`Error::Invalid`] when the region does not fit the shape or the values are fewer
/// than the shape holds.
pub fn extract(values: &Values, shape: &[u64], region: &Region) -> Result<Values> {
    region
        .check(shape)
        .map_err(|e| Error::Invalid(e.to_string()))?;
    let total = shape
        .iter()
        .try_fold(1u64, |a, &b| a.checked_mul(b))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::Invalid(format!("an array of shape {shape:?} is too large")))?;
    if values.len() < total {
        return Err(Error::Invalid(format!(
            "{} values held for an array of shape {shape:?}",
            values.len()
        )));
    }
    Ok(map_values!(values, v => gather(v, shape, region), s => gather_strings(s, shape, region)))
}

/// The elements of `src` (C order, `shape`) that `region` selects, copying whole runs
/// along the last dimension where its stride is 1.
fn gather<T: Clone>(src: &[T], shape: &[u64], region: &Region) -> Vec<T> {
    if shape.is_empty() {
        return src[..1].to_vec();
    }
    let mut out = Vec::with_capacity(region.len().unwrap_or(0) as usize);
    for_each_run(shape, region, |base, run, step| {
        if step == 1 {
            out.extend_from_slice(&src[base..base + run]);
        } else {
            out.extend((0..run).map(|i| src[base + i * step].clone()));
        }
    });
    out
}

/// [`gather`] for strings.
fn gather_strings(src: &Strings, shape: &[u64], region: &Region) -> Strings {
    if shape.is_empty() {
        return src.slice(0..1);
    }
    let mut out = Strings::with_capacity(region.len().unwrap_or(0) as usize, 0);
    for_each_run(shape, region, |base, run, step| {
        for i in 0..run {
            out.push(src.value(base + i * step));
        }
    });
    out
}

/// Calls `run(base, n, step)` for each run of `region` along the last dimension of a
/// C-order array of `shape` (rank 1 or more): `n` elements from `base`, `step` apart.
fn for_each_run(shape: &[u64], region: &Region, mut run: impl FnMut(usize, usize, usize)) {
    let rank = shape.len();
    if region.len().unwrap_or(0) == 0 {
        return;
    }
    let mut stride = vec![1usize; rank];
    for d in (0..rank - 1).rev() {
        stride[d] = stride[d + 1] * shape[d + 1] as usize;
    }
    let last = rank - 1;
    let (n, step) = (region.count[last] as usize, region.stride[last] as usize);
    for_each_index(&region.count[..last], |k| {
        let base: usize = k
            .iter()
            .enumerate()
            .map(|(d, &i)| (region.start[d] + i * region.stride[d]) as usize * stride[d])
            .sum::<usize>()
            + region.start[last] as usize;
        run(base, n, step);
    });
}

impl DataSource for Compiled {
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        let v = self.dataset.var(var).ok_or_else(|| Error::NoSuchVar {
            var: var.to_string(),
        })?;
        let shape = self.dataset.var_shape(v);
        match self.data.get(var) {
            Some(values) => extract(values, &shape, region),
            None => {
                // No data: what a reader sees, the fill value everywhere.
                region.check(&shape).map_err(|e| Error::Region {
                    var: var.to_string(),
                    message: e.to_string(),
                })?;
                let fill = self
                    .encodings
                    .get(var)
                    .and_then(|e| e.fill.clone())
                    .filter(|f| f.nc_type() == v.nc_type && f.len() == 1)
                    .unwrap_or_else(|| Values::default_fill(v.nc_type));
                let n = usize::try_from(region.len().unwrap_or(u64::MAX)).map_err(|_| {
                    Error::Region {
                        var: var.to_string(),
                        message: format!("region {region} is too large"),
                    }
                })?;
                Ok(Values::repeat(&fill, n))
            }
        }
    }

    fn read_user(&self, var: &VarPath, region: &Region) -> Result<Vec<UValue>> {
        let v = self.dataset.var(var).ok_or_else(|| Error::NoSuchVar {
            var: var.to_string(),
        })?;
        let shape = self.dataset.var_shape(v);
        region.check(&shape).map_err(|e| Error::Region {
            var: var.to_string(),
            message: e.to_string(),
        })?;
        if let Some(values) = self.user_data.get(var) {
            if shape.is_empty() {
                return Ok(values.iter().take(1).cloned().collect());
            }
            return Ok(gather(values, &shape, region));
        }
        // No data: what a reader sees, the fill value everywhere.
        let id = v.user_type.as_ref().ok_or_else(|| {
            Error::Unsupported(format!("variable '{var}' is not of a user-defined type"))
        })?;
        let fill =
            crate::model::user::var_fill(v, &crate::model::user::TypeRef::User(id.clone()), &|t| {
                self.dataset.user_type(t).map(|u| &u.kind)
            });
        let n = usize::try_from(region.len().unwrap_or(u64::MAX)).map_err(|_| Error::Region {
            var: var.to_string(),
            message: format!("region {region} is too large"),
        })?;
        Ok(vec![fill; n])
    }

    fn has_data(&self, var: &VarPath) -> bool {
        self.data.contains_key(var) || self.user_data.contains_key(var)
    }
}

impl DatasetSource for Compiled {
    fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn format(&self) -> &FormatInfo {
        &CDL_FORMAT
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        self.encodings.get(var).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_of_an_array_in_memory() {
        let v = Values::Int((0..24).collect());
        let shape = [2, 3, 4];
        let r = Region::block(vec![1, 1, 1], vec![1, 2, 2]);
        assert_eq!(
            extract(&v, &shape, &r).unwrap(),
            Values::Int(vec![17, 18, 21, 22])
        );
        let strided = Region {
            start: vec![0, 0, 1],
            count: vec![2, 1, 2],
            stride: vec![1, 1, 2],
        };
        assert_eq!(
            extract(&v, &shape, &strided).unwrap(),
            Values::Int(vec![1, 3, 13, 15])
        );
        assert_eq!(
            extract(&Values::Double(vec![7.0]), &[], &Region::whole(&[])).unwrap(),
            Values::Double(vec![7.0])
        );
        assert!(extract(&v, &shape, &Region::whole(&[3, 3, 4])).is_err());
        assert!(extract(&Values::Int(vec![1]), &shape, &r).is_err());
    }
}
