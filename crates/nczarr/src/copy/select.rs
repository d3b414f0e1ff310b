//! nccopy's subsets and structure changes: `-v`/`-V` variables, `-g`/`-G` groups,
//! `-u` unlimited dimensions made fixed.
//!
//! - `-V a,b`: only these variables are copied (definitions and data); `-v a,b`: every
//!   definition, data only for these. Names follow ncdump's rules (`v` in any group,
//!   `g/v`, `/g/v`).
//! - `-G g,h`: only these groups are copied, with the groups that contain them (their
//!   dimensions and attributes, and variables only if listed too); `-g g,h`: every
//!   group, data only for variables in these.
//! - A selected variable keeps its coordinate variables (the 1-D variables named like
//!   its dimensions) and the variables it names by CF's attributes (`coordinates`,
//!   `bounds`, `grid_mapping`, ...: [`crate::model::cf_links`]), theirs in turn,
//!   definitions and data, as ncks does; `no_coords` (ncks's `-C`) leaves them out.
//! - `exclude` (NCO's `-x -v`): every variable but these.
//! - No attribute of the copy names a variable the copy left out: the name is taken
//!   out of it (and an attribute of that one name goes).

use std::collections::HashSet;

use crate::model::select::{check_selection, group_matches, var_matches, SelectionError};
use crate::model::{Dataset, Group, Var, VarPath};

/// Which variables and groups to copy, and how.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Variable names (`-v`/`-V`); empty for all.
    pub vars: Vec<String>,
    /// True for `-v`: every variable is defined, only the listed ones get data.
    pub vars_data_only: bool,
    /// Group names (`-g`/`-G`); empty for all.
    pub groups: Vec<String>,
    /// True for `-g`: every group is copied, only the listed ones' variables get data.
    pub groups_data_only: bool,
    /// `-u`: unlimited dimensions become fixed at their current length.
    pub fix_unlimited: bool,
    /// ncks's `-C`: the selected variables' coordinate variables and the variables
    /// they name by CF's attributes are not brought along.
    pub no_coords: bool,
    /// Variables left out, definitions and data (`--exclude`, NCO's `-x -v`).
    pub exclude: Vec<String>,
}

/// What a selection gives: the dataset to write, and which variables get data.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// The output's groups, dimensions, variables and attributes.
    pub dataset: Dataset,
    /// The variables whose values are copied; `None` for all.
    pub data: Option<HashSet<VarPath>>,
}

/// Apply `selection` to `input`.
///
/// # Errors
/// [`SelectionError`] naming a variable or group the input does not have.
pub fn select(input: &Dataset, selection: &Selection) -> Result<Selected, SelectionError> {
    check_selection(input, &selection.vars, &selection.groups)?;
    check_selection(input, &selection.exclude, &[])?;
    let excluded = |p: &VarPath| {
        selection
            .exclude
            .iter()
            .any(|s| var_matches(s, &p.group, &p.name))
    };
    let var_listed = |p: &VarPath| {
        selection.vars.is_empty()
            || selection
                .vars
                .iter()
                .any(|s| var_matches(s, &p.group, &p.name))
    };
    let group_listed = |path: &[String]| {
        selection.groups.is_empty() || selection.groups.iter().any(|s| group_matches(s, path))
    };
    // Variables chosen by name and group, then their coordinate variables.
    let mut chosen: HashSet<VarPath> = input
        .vars()
        .into_iter()
        .filter(|(p, _)| var_listed(p) && group_listed(&p.group) && !excluded(p))
        .map(|(p, _)| p)
        .collect();
    if !selection.no_coords && selection.exclude.is_empty() {
        add_coordinates(input, &mut chosen);
        crate::model::cf_links::with_linked(input, &mut chosen);
    }

    let mut dataset = input.clone();
    let structure_only_for_data = selection.vars_data_only || selection.vars.is_empty();
    if !selection.groups.is_empty() && !selection.groups_data_only {
        let mut path = Vec::new();
        prune_groups(&mut dataset.root, &mut path, &group_listed, &chosen);
    }
    let pruned =
        (!selection.vars.is_empty() && !selection.vars_data_only) || !selection.exclude.is_empty();
    if pruned {
        let mut path = Vec::new();
        prune_vars(&mut dataset.root, &mut path, &chosen);
    }
    // What names a variable left out names it no more.
    crate::model::cf_links::drop_dangling(input, &mut dataset);
    if selection.fix_unlimited {
        fix_unlimited(&mut dataset.root);
    }
    let data = if selection.vars.is_empty() && selection.groups.is_empty() {
        // (With only --exclude, every remaining variable is copied whole.)
        None
    } else if structure_only_for_data || selection.groups_data_only {
        Some(chosen)
    } else {
        // -V without -g: every remaining variable is a chosen one.
        None
    };
    Ok(Selected { dataset, data })
}

/// Add the coordinate variable of every dimension a chosen variable uses.
fn add_coordinates(ds: &Dataset, chosen: &mut HashSet<VarPath>) {
    let mut coords = Vec::new();
    for p in chosen.iter() {
        let Some(v) = ds.var(p) else { continue };
        for d in &v.dims {
            let coord = VarPath::new(&d.group, &d.name);
            if ds
                .var(&coord)
                .is_some_and(|c| c.dims.len() == 1 && c.dims[0] == *d)
            {
                coords.push(coord);
            }
        }
    }
    chosen.extend(coords);
}

/// Keep the listed groups, the groups that contain them (as containers: dimensions and
/// attributes, and chosen variables), and the chosen variables wherever they are.
fn prune_groups(
    g: &mut Group,
    path: &mut Vec<String>,
    listed: &dyn Fn(&[String]) -> bool,
    chosen: &HashSet<VarPath>,
) -> bool {
    let here = path.clone();
    let mut kept_child = false;
    g.groups.retain_mut(|c| {
        path.push(c.name.clone());
        let keep = prune_groups(c, path, listed, chosen);
        path.pop();
        kept_child |= keep;
        keep
    });
    let is_listed = listed(&here);
    if !is_listed {
        g.vars
            .retain(|v| chosen.contains(&VarPath::new(&here, &v.name)));
    }
    is_listed || kept_child || !g.vars.is_empty() || here.is_empty()
}

/// Keep only the chosen variables.
fn prune_vars(g: &mut Group, path: &mut Vec<String>, chosen: &HashSet<VarPath>) {
    let here = path.clone();
    g.vars
        .retain(|v: &Var| chosen.contains(&VarPath::new(&here, &v.name)));
    for c in &mut g.groups {
        path.push(c.name.clone());
        prune_vars(c, path, chosen);
        path.pop();
    }
}

fn fix_unlimited(g: &mut Group) {
    for d in &mut g.dims {
        d.unlimited = false;
    }
    for c in &mut g.groups {
        fix_unlimited(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dim, DimRef, NcType};

    /// `/time(time)`, `/t2m(time)`, `/g/x(x)`, `/g/u(time, x)`, `/g/h/z(time)`.
    fn dataset() -> Dataset {
        let var = |name: &str, dims: &[(&[&str], &str)]| Var {
            name: name.into(),
            nc_type: NcType::Float,
            user_type: None,
            dims: dims
                .iter()
                .map(|(g, n)| DimRef {
                    group: g.iter().map(|s| (*s).to_string()).collect(),
                    name: (*n).into(),
                })
                .collect(),
            attrs: vec![],
            notes: vec![],
        };
        let mut h = Group::new("h");
        h.vars.push(var("z", &[(&[], "time")]));
        let mut g = Group::new("g");
        g.dims.push(Dim {
            name: "x".into(),
            len: 3,
            unlimited: false,
        });
        g.vars.push(var("x", &[(&["g"], "x")]));
        g.vars.push(var("u", &[(&[], "time"), (&["g"], "x")]));
        g.groups.push(h);
        let mut root = Group::new("");
        root.dims.push(Dim {
            name: "time".into(),
            len: 4,
            unlimited: true,
        });
        root.vars.push(var("time", &[(&[], "time")]));
        root.vars.push(var("t2m", &[(&[], "time")]));
        root.groups.push(g);
        Dataset { root }
    }

    fn names(ds: &Dataset) -> Vec<String> {
        let mut v: Vec<String> = ds.vars().into_iter().map(|(p, _)| p.to_string()).collect();
        v.sort();
        v
    }

    fn data(s: &Selected) -> Option<Vec<String>> {
        s.data.as_ref().map(|d| {
            let mut v: Vec<String> = d.iter().map(ToString::to_string).collect();
            v.sort();
            v
        })
    }

    fn sel(vars: &[&str], vd: bool, groups: &[&str], gd: bool) -> Selected {
        select(
            &dataset(),
            &Selection {
                vars: vars.iter().map(|s| (*s).to_string()).collect(),
                vars_data_only: vd,
                groups: groups.iter().map(|s| (*s).to_string()).collect(),
                groups_data_only: gd,
                fix_unlimited: false,
                ..Selection::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn variables_keep_their_coordinates() {
        let s = sel(&["u"], false, &[], false);
        assert_eq!(names(&s.dataset), ["/g/u", "/g/x", "/time"]);
        assert_eq!(data(&s), None);
        let s = sel(&["u"], true, &[], false);
        assert_eq!(names(&s.dataset).len(), 5);
        assert_eq!(data(&s).unwrap(), ["/g/u", "/g/x", "/time"]);
    }

    #[test]
    fn groups_keep_their_containers() {
        let s = sel(&[], false, &["h"], false);
        // /g is kept as the container of /g/h, without its variables; the root keeps
        // the coordinate variable of the dimension z uses.
        assert_eq!(names(&s.dataset), ["/g/h/z", "/time"]);
        assert_eq!(s.dataset.root.groups[0].dims.len(), 1);
        let s = sel(&[], false, &["g"], true);
        assert_eq!(names(&s.dataset).len(), 5);
        assert_eq!(data(&s).unwrap(), ["/g/u", "/g/x", "/time"]);
    }

    #[test]
    fn unknown_names_and_unlimited() {
        let e = select(
            &dataset(),
            &Selection {
                vars: vec!["nope".into()],
                ..Selection::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "nope: No such variable");
        let s = select(
            &dataset(),
            &Selection {
                fix_unlimited: true,
                ..Selection::default()
            },
        )
        .unwrap();
        assert!(!s.dataset.root.dims[0].unlimited);
        assert_eq!(s.dataset.root.dims[0].len, 4);
    }
}
