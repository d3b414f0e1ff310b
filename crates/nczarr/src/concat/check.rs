//! What must hold before inputs are joined along a dimension, checked before anything
//! is written: the same groups, dimensions, variables and types in every input apart
//! from the dimension's length; equal values in the variables without it; and the
//! dimension's coordinate running one way across the inputs, without overlap.

use crate::chunking::Region;
use crate::error::{JoinError, OrderHint, Result, StructureDifference};
use crate::model::{Dataset, DimRef, Group, Values, VarPath};
use crate::source::DatasetSource;

/// One input: its name (for messages) and the dataset.
pub(super) type Input<'a> = (String, &'a dyn DatasetSource);

/// The first difference between `a` and `b` (their datasets), the length of `dim`
/// aside: one line naming both inputs and what differs.
pub(super) fn same_structure(first: &Input<'_>, other: &Input<'_>, dim: &DimRef) -> Result<()> {
    let (a, b) = (first.1.dataset(), other.1.dataset());
    compare_groups(&a.root, &b.root, &mut Vec::new(), dim).map_err(|difference| {
        JoinError::Structure {
            first: first.0.clone(),
            other: other.0.clone(),
            difference,
        }
        .into()
    })
}

fn compare_groups(
    a: &Group,
    b: &Group,
    path: &mut Vec<String>,
    dim: &DimRef,
) -> std::result::Result<(), StructureDifference> {
    let here = path.clone();
    let at = |name: &str| VarPath::new(&here, name).to_string();
    for d in &a.dims {
        let Some(o) = b.dim(&d.name) else {
            return Err(StructureDifference::DimOnlyInFirst(at(&d.name)));
        };
        let is_dim = dim.group == *path && dim.name == d.name;
        if !is_dim && (o.len != d.len || o.unlimited != d.unlimited) {
            return Err(StructureDifference::DimLength {
                dim: at(&d.name),
                first_len: d.len,
                other_len: o.len,
            });
        }
    }
    if let Some(d) = b.dims.iter().find(|d| a.dim(&d.name).is_none()) {
        return Err(StructureDifference::DimOnlyInSecond(at(&d.name)));
    }
    for v in &a.vars {
        let Some(o) = b.var(&v.name) else {
            return Err(StructureDifference::VarOnlyInFirst(at(&v.name)));
        };
        if o.nc_type != v.nc_type || o.user_type != v.user_type {
            return Err(StructureDifference::VarType {
                var: at(&v.name),
                first_type: v.nc_type,
                other_type: o.nc_type,
            });
        }
        if o.dims != v.dims {
            return Err(StructureDifference::VarDims(at(&v.name)));
        }
    }
    if let Some(v) = b.vars.iter().find(|v| a.var(&v.name).is_none()) {
        return Err(StructureDifference::VarOnlyInSecond(at(&v.name)));
    }
    for g in &a.groups {
        let Some(o) = b.group(&g.name) else {
            return Err(StructureDifference::GroupOnlyInFirst(at(&g.name)));
        };
        path.push(g.name.clone());
        compare_groups(g, o, path, dim)?;
        path.pop();
    }
    if let Some(g) = b.groups.iter().find(|g| a.group(&g.name).is_none()) {
        return Err(StructureDifference::GroupOnlyInSecond(at(&g.name)));
    }
    Ok(())
}

/// The variables of `ds` that do not use `dim`.
pub(super) fn without_dim(ds: &Dataset, dim: &DimRef) -> Vec<VarPath> {
    ds.vars()
        .into_iter()
        .filter(|(_, v)| v.user_type.is_none() && !v.dims.contains(dim))
        .map(|(p, _)| p)
        .collect()
}

/// The values of the variable at `path` in `input`, whole.
///
/// # Errors
/// The read's error, naming the input (one of hundreds, maybe).
pub(super) fn whole(input: &Input<'_>, path: &VarPath) -> Result<Values> {
    let shape = input.1.dataset().shape_of(path).unwrap_or_default();
    input
        .1
        .read(path, &Region::whole(&shape))
        .map_err(|e| in_input(&input.0, e))
}

/// `e`, a read's error in the input `name`, saying which input it was.
pub(super) fn in_input(name: &str, e: crate::error::Error) -> crate::error::Error {
    JoinError::Input {
        input: name.to_string(),
        error: Box::new(e),
    }
    .into()
}

/// Equal when their bytes are (NaN equals NaN, -0 is not 0): a value copied is the same
/// bits.
pub(super) fn same_values(a: &Values, b: &Values) -> bool {
    match (a.as_ne_bytes(), b.as_ne_bytes()) {
        (Some(x), Some(y)) => a.nc_type() == b.nc_type() && x == y,
        _ => a == b,
    }
}

/// Check that `coords` (each input's coordinate values along the dimension, already in
/// the first input's units) run one way across the inputs, strictly: each input
/// monotonic, and no overlap or input out of order where two meet; unless
/// `allow_gaps`, no gap between two inputs either: where `edges` gives each input's
/// lowest and highest cell edge (from its bounds), one input's cells must start where
/// the last one's end; else a jump of more than half a step again is a gap, the step taken from
/// inputs of two or more values or, when every input holds one value (daily files of
/// one record), across the inputs. The error names the input, or both.
pub(super) fn runs_one_way(
    names: &[String],
    coords: &[Vec<f64>],
    edges: Option<&[(f64, f64)]>,
    dim: &str,
    allow_gaps: bool,
    hint: OrderHint,
) -> Result<()> {
    let ordered = |up: bool, x: f64, y: f64| if up { x < y } else { x > y };
    // The direction: the first input's own, else the first step between inputs.
    let within = coords.iter().find(|c| c.len() >= 2).map(|c| c[0] < c[1]);
    let flat: Vec<f64> = coords.iter().flatten().copied().collect();
    let up = within.unwrap_or_else(|| flat.len() < 2 || flat[0] < flat[1]);
    for (name, c) in names.iter().zip(coords) {
        if let Some(w) = c.windows(2).find(|w| !ordered(up, w[0], w[1])) {
            return Err(JoinError::NotMonotonic {
                input: name.clone(),
                dim: dim.to_string(),
                value: w[0],
                next: w[1],
            }
            .into());
        }
    }
    // The regular step of the coordinate, when every input has one and they agree:
    // a jump between inputs of more than half a step again is a gap.
    let steps: Vec<f64> = coords
        .iter()
        .filter(|c| c.len() >= 2)
        .map(|c| (c[1] - c[0]).abs())
        .collect();
    let regular = coords.iter().filter(|c| c.len() >= 2).all(|c| {
        let s = (c[1] - c[0]).abs();
        c.windows(2)
            .all(|w| ((w[1] - w[0]).abs() - s).abs() <= s * 1e-6)
    });
    let within_step = steps
        .first()
        .copied()
        .filter(|&s| regular && s > 0.0 && steps.iter().all(|&t| (t - s).abs() <= s * 1e-6));
    let step = within_step.or_else(|| step_across(coords));
    let mut last: Option<(usize, f64)> = None;
    for (i, c) in coords.iter().enumerate() {
        let (Some(&first), Some(&end)) = (c.first(), c.last()) else {
            continue;
        };
        if let Some((j, x)) = last {
            if !ordered(up, x, first) {
                return Err(JoinError::OutOfOrder {
                    previous: names[j].clone(),
                    next: names[i].clone(),
                    dim: dim.to_string(),
                    last: x,
                    first,
                    hint,
                }
                .into());
            }
            if let Some(((prev_lo, prev_hi), (next_lo, next_hi))) = edges
                .filter(|_| !allow_gaps)
                .and_then(|e| Some((*e.get(j)?, *e.get(i)?)))
            {
                // Where the last input's cells end and this one's start, in the
                // coordinate's direction.
                let (end, start) = if up {
                    (prev_hi, next_lo)
                } else {
                    (prev_lo, next_hi)
                };
                let tolerance = 1e-6 * end.abs().max(1.0);
                let gap = if up { start - end } else { end - start };
                if gap > tolerance {
                    return Err(JoinError::CellGap {
                        previous: names[j].clone(),
                        next: names[i].clone(),
                        dim: dim.to_string(),
                        end,
                        start,
                    }
                    .into());
                }
                last = Some((i, end_of(c)));
                continue;
            }
            if let Some(step) = step.filter(|_| !allow_gaps) {
                let jump = (first - x).abs();
                if jump > step * 1.5 {
                    return Err(JoinError::StepGap {
                        previous: names[j].clone(),
                        next: names[i].clone(),
                        dim: dim.to_string(),
                        last: x,
                        first,
                        step,
                    }
                    .into());
                }
            }
        }
        last = Some((i, end));
    }
    Ok(())
}

/// The last value of a non-empty coordinate.
fn end_of(c: &[f64]) -> f64 {
    c.last().copied().unwrap_or(f64::NAN)
}

/// The coordinate's step across the inputs when every input holds at most one value:
/// the smallest distance between two that meet (one missing day among daily files
/// is then a jump of two steps). `None` with fewer than three values, where one
/// distance cannot tell a step from a gap.
fn step_across(coords: &[Vec<f64>]) -> Option<f64> {
    if coords.iter().any(|c| c.len() >= 2) {
        return None;
    }
    let flat: Vec<f64> = coords.iter().flatten().copied().collect();
    if flat.len() < 3 {
        return None;
    }
    flat.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|d| *d > 0.0 && d.is_finite())
        .min_by(f64::total_cmp)
}

/// The attributes of `other` that differ from the first input's (`first`), or that
/// only one of them has: one line each, naming the variable (or the group's global
/// attributes), the attribute and both inputs. `skip` names the variables whose times a
/// join rebases (their `units` and `calendar` differ by design), and `seen` holds those
/// reported for an earlier input, so that each is reported once.
pub(super) fn attribute_differences(
    first: &Input<'_>,
    other: &Input<'_>,
    skip: &[VarPath],
    seen: &mut std::collections::HashSet<(String, String)>,
) -> Vec<String> {
    let (a, b) = (first.1.dataset(), other.1.dataset());
    type Owner<'d> = (
        String,
        &'d [crate::model::Attr],
        &'d [crate::model::Attr],
        bool,
    );
    let mut owners: Vec<Owner<'_>> = Vec::new();
    for (path, group) in groups(&a.root, &mut Vec::new()) {
        if let Some(o) = b.group(&path) {
            let name = if path.is_empty() {
                "global".to_string()
            } else {
                format!("group /{}", path.join("/"))
            };
            owners.push((name, &group.attrs, &o.attrs, false));
        }
    }
    for (path, var) in a.vars() {
        if let Some(o) = b.var(&path) {
            let rebased = skip.contains(&path);
            owners.push((format!("variable {path}"), &var.attrs, &o.attrs, rebased));
        }
    }
    let mut out = Vec::new();
    for (owner, ours, theirs, rebased) in owners {
        let names = ours
            .iter()
            .map(|x| &x.name)
            .chain(theirs.iter().map(|x| &x.name));
        let mut done = std::collections::HashSet::new();
        for name in names {
            // Times rebased to the first input's units and calendar: theirs differ.
            let rewritten = rebased && (name == "units" || name == "calendar");
            if rewritten || !done.insert(name.clone()) {
                continue;
            }
            let x = ours.iter().find(|x| &x.name == name);
            let y = theirs.iter().find(|y| &y.name == name);
            let same = match (x, y) {
                (Some(x), Some(y)) => same_values(&x.values, &y.values) && x.user == y.user,
                _ => false,
            };
            if same || !seen.insert((owner.clone(), name.clone())) {
                continue;
            }
            let how = match (x, y) {
                (Some(_), Some(_)) => "differs in",
                (Some(_), None) => "is missing from",
                _ => "is only in",
            };
            out.push(format!(
                "{owner}: attribute '{name}' {how} {} (the attributes of {} are kept)",
                other.0, first.0
            ));
        }
    }
    out
}

/// Every group under `g` (itself first) with its path.
fn groups<'g>(g: &'g Group, path: &mut Vec<String>) -> Vec<(Vec<String>, &'g Group)> {
    let mut out = vec![(path.clone(), g)];
    for c in &g.groups {
        path.push(c.name.clone());
        out.extend(groups(c, path));
        path.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn join_error(r: Result<()>) -> JoinError {
        match r {
            Err(Error::Join(e)) => *e,
            other => panic!("not a join error: {other:?}"),
        }
    }

    fn names() -> Vec<String> {
        vec!["a.nc".into(), "b.nc".into()]
    }

    #[test]
    fn inputs_out_of_order_name_both_and_the_values() {
        let coords = [vec![3.0, 4.0], vec![1.0, 2.0]];
        let e = join_error(runs_one_way(
            &names(),
            &coords,
            None,
            "time",
            false,
            OrderHint::Sorted,
        ));
        assert!(
            matches!(&e, JoinError::OutOfOrder { previous, next, last, first, .. }
                if previous == "a.nc" && next == "b.nc" && *last == 4.0 && *first == 1.0),
            "{e:?}"
        );
    }

    #[test]
    fn a_step_gap_gives_the_step() {
        let coords = [vec![1.0, 2.0], vec![5.0, 6.0]];
        let e = join_error(runs_one_way(
            &names(),
            &coords,
            None,
            "time",
            false,
            OrderHint::Sorted,
        ));
        assert!(
            matches!(e, JoinError::StepGap { last, first, step, .. } if (last, first, step) == (2.0, 5.0, 1.0)),
            "{e:?}"
        );
        assert!(runs_one_way(&names(), &coords, None, "time", true, OrderHint::Sorted).is_ok());
    }

    #[test]
    fn a_cell_gap_gives_the_edges() {
        let coords = [vec![1.0, 2.0], vec![4.0, 5.0]];
        let edges = [(0.5, 2.5), (3.5, 5.5)];
        let e = join_error(runs_one_way(
            &names(),
            &coords,
            Some(&edges),
            "time",
            false,
            OrderHint::Sorted,
        ));
        assert!(
            matches!(e, JoinError::CellGap { end, start, .. } if (end, start) == (2.5, 3.5)),
            "{e:?}"
        );
    }

    #[test]
    fn a_coordinate_that_turns_back_names_its_input() {
        let coords = [vec![1.0, 2.0], vec![3.0, 5.0, 4.0]];
        let e = join_error(runs_one_way(
            &names(),
            &coords,
            None,
            "time",
            true,
            OrderHint::Sorted,
        ));
        assert!(
            matches!(&e, JoinError::NotMonotonic { input, value, next, .. }
                if input == "b.nc" && (*value, *next) == (5.0, 4.0)),
            "{e:?}"
        );
    }
}
