//! Selecting variables and groups by the names users give (`ncdump -v/-g`, `nccopy
//! -v/-V/-g/-G`), with ncdump's rules: `v` is a variable of that name in any group,
//! `g/v` one in a group whose full name ends with `g`, `/g/v` exactly that one; a
//! group name matches any group so named, `/a/b` exactly that one.

use super::{Dataset, Group, GroupPath};

/// A selection (`-v`, `-g`) naming what the dataset does not have, in ncdump's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectionError {
    /// `-v` names a variable that is in no group.
    #[error("{0}: No such variable")]
    NoVariable(String),
    /// `-g` names a group the dataset does not have.
    #[error("{0}: No such group")]
    NoGroup(String),
}

/// Check that every variable (`-v`) and group (`-g`) selected exists.
///
/// # Errors
/// [`SelectionError`] naming the first one that does not.
pub fn check_selection(
    dataset: &Dataset,
    vars: &[String],
    groups: &[String],
) -> Result<(), SelectionError> {
    for v in vars {
        if !any_group(&dataset.root, &mut Vec::new(), &mut |path, g| {
            g.vars.iter().any(|var| var_matches(v, path, &var.name))
        }) {
            return Err(SelectionError::NoVariable(v.clone()));
        }
    }
    for g in groups {
        if !any_group(&dataset.root, &mut Vec::new(), &mut |path, _| {
            group_matches(g, path)
        }) {
            return Err(SelectionError::NoGroup(g.clone()));
        }
    }
    Ok(())
}

fn any_group(
    g: &Group,
    path: &mut Vec<String>,
    f: &mut dyn FnMut(&[String], &Group) -> bool,
) -> bool {
    if f(path, g) {
        return true;
    }
    for c in &g.groups {
        path.push(c.name.clone());
        let found = any_group(c, path, f);
        path.pop();
        if found {
            return true;
        }
    }
    false
}

/// ncdump's `nc_inq_gvarid`: `v` matches in any group; `g/v` in groups whose full
/// name ends with `g`; `/g/v` only in group `/g`.
pub fn var_matches(spec: &str, group_path: &[String], var_name: &str) -> bool {
    match spec.rfind('/') {
        None => spec == var_name,
        Some(i) => {
            let (grp, rel) = (&spec[..i], &spec[i + 1..]);
            if rel != var_name {
                return false;
            }
            let full = GroupPath(group_path).to_string();
            if spec.starts_with('/') {
                full == grp || (grp.is_empty() && full == "/")
            } else {
                full.ends_with(grp)
            }
        }
    }
}

/// ncdump's group matching for `-g`: `/` or empty is the root, `/a/b` is absolute,
/// anything else matches any group with that name.
pub fn group_matches(spec: &str, group_path: &[String]) -> bool {
    if spec.is_empty() || spec == "/" {
        return group_path.is_empty();
    }
    let full = GroupPath(group_path).to_string();
    if spec.starts_with('/') {
        return full == spec.trim_end_matches('/');
    }
    full == format!("/{spec}") || full.ends_with(&format!("/{spec}"))
}
