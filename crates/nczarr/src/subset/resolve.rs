//! `--dim` options looked up in a dataset: for each dimension they name, the indices
//! kept, in output order, as NCO's `ncks -d` keeps them.

use std::collections::HashMap;

use super::spec::{Bound, DimSpec};
use crate::cftime::TimeUnits;
use crate::chunking::Region;
use crate::error::{Result, SubsetError};
use crate::model::{DimRef, Group, VarPath};
use crate::source::DatasetSource;

/// The indices kept of each dimension a subset names (in the order they appear in the
/// output: ascending, except across the seam of a wrapped longitude range).
pub type Selections = HashMap<DimRef, Vec<u64>>;

/// What one spec picked on one dimension.
struct Picked {
    indices: Vec<u64>,
    wrapped: bool,
}

/// Look `specs` up in `source`: the indices each names, the specs on one dimension
/// joined (NCO's multi-slabs: their union, ascending unless one wraps, then in the
/// order given).
///
/// # Errors
/// [`crate::Error::Subset`], one line naming the option: a dimension that does not exist, an
/// index or value outside the dimension or its coordinate, a value on a dimension
/// without a (monotonic) coordinate variable, a date on a non-time axis.
pub fn resolve(source: &dyn DatasetSource, specs: &[DimSpec]) -> Result<Selections> {
    let mut picked: HashMap<DimRef, Vec<Picked>> = HashMap::new();
    let mut order = Vec::new();
    for spec in specs {
        let dims = find_dims(&source.dataset().root, &spec.dim);
        if dims.is_empty() {
            return Err(SubsetError::NoDimension {
                spec: spec.text.clone(),
                dim: spec.dim.clone(),
            }
            .into());
        }
        for (dim, len) in dims {
            let p = pick(source, spec, &dim, len)?;
            if !picked.contains_key(&dim) {
                order.push(dim.clone());
            }
            picked.entry(dim).or_default().push(p);
        }
    }
    Ok(order
        .into_iter()
        .map(|dim| {
            let all = picked.remove(&dim).unwrap_or_default();
            let wrapped = all.iter().any(|p| p.wrapped);
            let mut seen = std::collections::HashSet::new();
            let mut indices: Vec<u64> = all
                .into_iter()
                .flat_map(|p| p.indices)
                .filter(|i| seen.insert(*i))
                .collect();
            if !wrapped {
                indices.sort_unstable();
            }
            (dim, indices)
        })
        .collect())
}

/// The dimensions `name` names, with their lengths: a path names one, a plain name
/// every dimension of that name in any group.
fn find_dims(root: &Group, name: &str) -> Vec<(DimRef, u64)> {
    fn walk(g: &Group, path: &mut Vec<String>, name: &str, out: &mut Vec<(DimRef, u64)>) {
        if let Some(d) = g.dim(name) {
            out.push((
                DimRef {
                    group: path.clone(),
                    name: name.to_string(),
                },
                d.len,
            ));
        }
        for c in &g.groups {
            path.push(c.name.clone());
            walk(c, path, name, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    if name.starts_with('/') {
        if let Some(r) = DimRef::parse_fqn(name) {
            let group = r.group.iter().try_fold(root, |g, n| g.group(n));
            if let Some(len) = group.and_then(|g| g.dim(&r.name)).map(|d| d.len) {
                out.push((r, len));
            }
        }
    } else {
        walk(root, &mut Vec::new(), name, &mut out);
    }
    out
}

/// The indices `spec` picks of the dimension `dim` of length `len`.
fn pick(source: &dyn DatasetSource, spec: &DimSpec, dim: &DimRef, len: u64) -> Result<Picked> {
    let by_index = matches!(spec.min, Bound::Index(_) | Bound::Open)
        && spec
            .max
            .as_ref()
            .is_none_or(|b| matches!(b, Bound::Index(_) | Bound::Open));
    let (indices, wrapped) = if by_index {
        (by_indices(spec, len)?, false)
    } else {
        by_values(source, spec, dim)?
    };
    Ok(Picked {
        indices: indices.into_iter().step_by(spec.stride as usize).collect(),
        wrapped,
    })
}

/// Indices from index bounds.
fn by_indices(spec: &DimSpec, len: u64) -> Result<Vec<u64>> {
    let at = |b: &Bound, open: i64| -> Result<i64> {
        let i = match b {
            Bound::Index(i) if *i < 0 => len as i64 + i,
            Bound::Index(i) => *i,
            _ => open,
        };
        if i < 0 || i >= len as i64 {
            return Err(SubsetError::IndexOutside {
                spec: spec.text.clone(),
                index: i,
                last: len.saturating_sub(1),
            }
            .into());
        }
        Ok(i)
    };
    if len == 0 {
        return Err(empty(spec));
    }
    let lo = at(&spec.min, 0)?;
    let hi = match &spec.max {
        None if spec.min == Bound::Open => len as i64 - 1,
        None => lo,
        Some(b) => at(b, len as i64 - 1)?,
    };
    if lo > hi {
        return Err(SubsetError::MinAfterMax {
            spec: spec.text.clone(),
            min: lo,
            max: hi,
        }
        .into());
    }
    Ok((lo as u64..=hi as u64).collect())
}

/// Indices from coordinate values or dates: those whose coordinate lies in [MIN, MAX]
/// (from MIN to the end and from the start to MAX when MIN is above MAX, as ncks
/// wraps), or the nearest one to a value alone. Returns whether the range wrapped.
fn by_values(source: &dyn DatasetSource, spec: &DimSpec, dim: &DimRef) -> Result<(Vec<u64>, bool)> {
    let path = VarPath::new(&dim.group, dim.name.clone());
    let ds = source.dataset();
    let coord = ds
        .var(&path)
        .filter(|v| v.dims.len() == 1 && v.dims[0] == *dim)
        .ok_or_else(|| SubsetError::NoCoordinate {
            spec: spec.text.clone(),
            dim: dim.name.clone(),
        })?;
    let n = ds.dim(dim).map_or(0, |d| d.len);
    let values = source.read(&path, &Region::whole(&[n]))?;
    let c: Vec<f64> = (0..values.len()).map(|i| values.get_f64(i)).collect();
    let increasing = c.windows(2).all(|w| w[0] < w[1]);
    let decreasing = c.windows(2).all(|w| w[0] > w[1]);
    if !(increasing || decreasing) || c.iter().any(|v| v.is_nan()) {
        return Err(SubsetError::NotMonotonic {
            spec: spec.text.clone(),
            dim: dim.name.clone(),
        }
        .into());
    }
    let time = TimeUnits::of_var(coord);
    let value = |b: &Bound, open: f64| -> Result<f64> {
        match b {
            Bound::Open => Ok(open),
            Bound::Value(v) => Ok(*v),
            Bound::Index(i) => Ok(*i as f64),
            Bound::Date(text) => match &time {
                Some(t) => t.value_of(text).map_err(|source| {
                    SubsetError::Date {
                        spec: spec.text.clone(),
                        date: text.clone(),
                        source,
                    }
                    .into()
                }),
                None => Err(SubsetError::DateNotTime {
                    spec: spec.text.clone(),
                    date: text.clone(),
                    dim: dim.name.clone(),
                }
                .into()),
            },
        }
    };
    let (first, last) = match (c.first(), c.last()) {
        (Some(f), Some(l)) => (f.min(*l), f.max(*l)),
        _ => return Err(empty(spec)),
    };
    let Some(max) = &spec.max else {
        // A value alone: the nearest index (the first or last beyond the ends, as ncks).
        let v = value(&spec.min, first)?;
        let nearest = (0..c.len())
            .min_by(|&a, &b| (c[a] - v).abs().total_cmp(&(c[b] - v).abs()))
            .unwrap_or(0);
        return Ok((vec![nearest as u64], false));
    };
    let (lo, hi) = (value(&spec.min, first)?, value(max, last)?);
    let within = |lo: f64, hi: f64| -> Vec<u64> {
        (0..c.len() as u64)
            .filter(|&i| c[i as usize] >= lo && c[i as usize] <= hi)
            .collect()
    };
    // MIN above MAX wraps, as ncks wraps a longitude across its seam: from MIN to the
    // end, then from the start to MAX. A decreasing coordinate has no seam to wrap
    // across (ncks refuses such a range too): `7.0,4.0` there is most likely "from 7
    // down to 4", which wrapping would turn into about its complement.
    if lo > hi && decreasing && c.len() > 1 {
        return Err(SubsetError::WrapDecreasing {
            spec: spec.text.clone(),
            dim: dim.name.clone(),
            first: c[0],
            last: c[c.len() - 1],
            min: lo,
            max: hi,
            min_text: bound_text(&spec.min),
            max_text: bound_text(max),
        }
        .into());
    }
    let (out, wrapped) = if lo > hi {
        let mut out = within(lo, f64::INFINITY);
        out.extend(within(f64::NEG_INFINITY, hi));
        (out, true)
    } else {
        (within(lo, hi), false)
    };
    if out.is_empty() {
        return Err(SubsetError::NoValueInRange {
            spec: spec.text.clone(),
            dim: dim.name.clone(),
            lowest: first,
            highest: last,
            min: lo,
            max: hi,
        }
        .into());
    }
    Ok((out, wrapped))
}

/// The error for a dimension of length 0.
fn empty(spec: &DimSpec) -> crate::Error {
    SubsetError::Empty {
        spec: spec.text.clone(),
    }
    .into()
}

/// A bound as it was written in `--dim` (for a message that rewrites it).
fn bound_text(b: &Bound) -> String {
    match b {
        Bound::Open => String::new(),
        Bound::Value(v) => {
            let t = v.to_string();
            if t.contains(['.', 'e', 'E', 'n', 'i']) {
                t
            } else {
                format!("{t}.")
            }
        }
        Bound::Index(i) => i.to_string(),
        Bound::Date(text) => text.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_index(text: &str, len: u64) -> Result<Vec<u64>> {
        by_indices(&text.parse::<DimSpec>().unwrap(), len)
    }

    fn subset_error(r: Result<Vec<u64>>) -> SubsetError {
        match r {
            Err(crate::Error::Subset(e)) => *e,
            other => panic!("not a subset error: {other:?}"),
        }
    }

    #[test]
    fn indices_outside_say_which_and_the_last() {
        let e = subset_error(by_index("time,2,9", 5));
        assert_eq!(
            e,
            SubsetError::IndexOutside {
                spec: "time,2,9".into(),
                index: 9,
                last: 4
            }
        );
        assert_eq!(by_index("time,-2", 5).unwrap(), [3]);
    }

    #[test]
    fn min_after_max_and_empty_dimensions() {
        assert!(matches!(
            subset_error(by_index("time,3,1", 5)),
            SubsetError::MinAfterMax { min: 3, max: 1, .. }
        ));
        assert!(matches!(
            subset_error(by_index("time,0", 0)),
            SubsetError::Empty { .. }
        ));
    }
}
