//! Printing a compiled CDL dataset (data held in memory) as CDL again: what the
//! parse → print → parse identity tests and `nczgen`'s checks use.

use super::build::{var_key, Compiled};
use super::print::DataSource;
use crate::chunking::Region;
use crate::error::{Error, Result};
use crate::model::{Values, Var};

/// Variable data of a [`Compiled`] file, for the printer.
pub struct CompiledSource<'a> {
    /// The compiled file.
    pub compiled: &'a Compiled,
}

/// The values of `region` of a C-order array of `shape`.
///
/// # Errors
/// [`Error::Invalid`] when the region does not fit the shape.
pub fn extract(values: &Values, shape: &[u64], region: &Region) -> Result<Values> {
    region.check(shape).map_err(Error::Invalid)?;
    let n = usize::try_from(region.len().unwrap_or(u64::MAX))
        .map_err(|_| Error::Invalid("region too large".into()))?;
    let rank = shape.len();
    if rank == 0 {
        return Ok(values.slice(0..1.min(values.len())));
    }
    let mut stride = vec![1u64; rank];
    for d in (0..rank - 1).rev() {
        stride[d] = stride[d + 1] * shape[d + 1];
    }
    let mut out = Values::with_capacity(values.nc_type(), n);
    let mut k = vec![0u64; rank];
    for _ in 0..n {
        let off: u64 = (0..rank)
            .map(|d| (region.start[d] + k[d] * region.stride[d]) * stride[d])
            .sum();
        let o = off as usize;
        out.append(values.slice(o..o + 1));
        for d in (0..rank).rev() {
            k[d] += 1;
            if k[d] < region.count[d] {
                break;
            }
            k[d] = 0;
        }
    }
    Ok(out)
}

impl DataSource for CompiledSource<'_> {
    fn read(&self, group: &[String], var: &Var, region: &Region) -> Result<Values> {
        let shape = self.compiled.dataset.var_shape(var);
        let plan = self.compiled.vars.get(&var_key(group, &var.name));
        match plan.and_then(|p| p.data.as_ref()) {
            Some(v) => extract(v, &shape, region),
            None => {
                // No data: what a reader sees, the fill value everywhere.
                let fill = plan
                    .and_then(|p| p.spec.fill.clone())
                    .filter(|f| f.nc_type() == var.nc_type)
                    .unwrap_or_else(|| Values::default_fill(var.nc_type));
                let n = region.len().unwrap_or(0) as usize;
                let mut out = Values::with_capacity(var.nc_type, n);
                for _ in 0..n {
                    out.append(fill.clone());
                }
                Ok(out)
            }
        }
    }
}
