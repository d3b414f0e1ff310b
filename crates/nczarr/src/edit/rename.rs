//! NCO's ncrename: `-v OLD,NEW` (variables), `-d OLD,NEW` (dimensions), `-a OLD,NEW`
//! (attributes; `VAR@ATT`, `global@ATT`, `group@ATT`), `-g OLD,NEW` (groups), a
//! leading `.` on OLD for "if present", applied to a dataset's model. A name is
//! relative (every variable, dimension or group so named, in any group) or a path
//! (`/g/T`). Renaming a dimension and its coordinate variable together keeps the
//! values (NCO 5.1.4 loses them).

use std::collections::HashMap;

use super::apply::{put_attr, AttRules};
use super::EditError;
use crate::model::{Dataset, Group, VarPath};

/// What a rename names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameKind {
    /// `-v`: variables.
    Var,
    /// `-d`: dimensions.
    Dim,
    /// `-a`: attributes.
    Att,
    /// `-g`: groups.
    Group,
}

impl RenameKind {
    fn word(self) -> &'static str {
        match self {
            RenameKind::Var => "variable",
            RenameKind::Dim => "dimension",
            RenameKind::Att => "attribute",
            RenameKind::Group => "group",
        }
    }

    fn a_word(self) -> &'static str {
        if self == RenameKind::Att {
            "an attribute"
        } else if self == RenameKind::Var {
            "a variable"
        } else if self == RenameKind::Dim {
            "a dimension"
        } else {
            "a group"
        }
    }

    fn flag(self) -> &'static str {
        match self {
            RenameKind::Var => "-v",
            RenameKind::Dim => "-d",
            RenameKind::Att => "-a",
            RenameKind::Group => "-g",
        }
    }
}

/// One rename.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    /// What it renames.
    pub kind: RenameKind,
    /// The old name (or path; for an attribute, without its `VAR@`).
    pub old: String,
    /// The new name.
    pub new: String,
    /// For an attribute: whose (`None`: every variable's and group's).
    pub owner: Option<String>,
    /// A leading `.`: nothing to rename is no error.
    pub optional: bool,
    /// The rename as given.
    pub spec: String,
}

impl Rename {
    /// Parse `OLD,NEW` of `kind`.
    ///
    /// # Errors
    /// [`EditError::Spec`] for a spec that is not two names.
    pub fn parse(kind: RenameKind, spec: &str) -> Result<Rename, EditError> {
        let said = format!("rename '{} {spec}'", kind.flag());
        let bad = |reason: &str| EditError::Spec {
            spec: said.clone(),
            reason: reason.to_string(),
        };
        let (old, new) = spec
            .split_once(',')
            .ok_or_else(|| bad("a rename is OLD,NEW"))?;
        let (optional, old) = match old.strip_prefix('.') {
            Some(rest) => (true, rest),
            None => (false, old),
        };
        let (owner, old) = match (kind, old.rsplit_once('@')) {
            (RenameKind::Att, Some((owner, att))) => (Some(owner.to_string()), att),
            _ => (None, old),
        };
        if old.is_empty() || new.is_empty() || new.contains('/') || new.contains(',') {
            return Err(bad(
                "both names are needed, and the new one is a name, not a path",
            ));
        }
        if let Some(why) = super::bad_name(new) {
            return Err(bad(&format!("'{new}' {why}")));
        }
        Ok(Rename {
            kind,
            old: super::nfc(old),
            new: super::nfc(new),
            owner: owner.map(|o| super::nfc(&o)),
            optional,
            spec: said,
        })
    }
}

/// Each renamed (or moved) variable's old path, by its new path.
pub type OldPaths = HashMap<VarPath, VarPath>;

/// Apply `renames` to `dataset` in order (`rules` say where a renamed attribute goes:
/// last in a netCDF-4 file, where netcdf-c re-creates it). Returns how many names
/// changed, and the old path of every variable whose path changed.
///
/// # Errors
/// [`EditError::NoTarget`] for a name not there (unless optional);
/// [`EditError::Refused`] for a new name already taken. `dataset` is then partly
/// renamed: apply to a copy.
pub fn apply_renames(
    dataset: &mut Dataset,
    renames: &[Rename],
    rules: AttRules,
) -> Result<(usize, OldPaths), EditError> {
    let mut old_paths: OldPaths = HashMap::new();
    let mut count = 0;
    for r in renames {
        let n = match r.kind {
            RenameKind::Var => rename_vars(dataset, r, &mut old_paths)?,
            RenameKind::Dim => rename_dims(dataset, r)?,
            RenameKind::Att => rename_atts(dataset, r, rules)?,
            RenameKind::Group => rename_groups(dataset, r, &mut old_paths)?,
        };
        if n == 0 && !r.optional {
            return Err(EditError::Refused {
                spec: r.spec.clone(),
                reason: format!(
                    "no {} '{}'{} (a leading '.' renames it only if present)",
                    r.kind.word(),
                    r.old,
                    r.owner
                        .as_ref()
                        .map_or(String::new(), |o| format!(" of '{o}'"))
                ),
            });
        }
        count += n;
    }
    Ok((count, old_paths))
}

/// Every group's path, the root's (`[]`) first.
fn group_paths(g: &Group, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(path.clone());
    for c in &g.groups {
        path.push(c.name.clone());
        group_paths(c, path, out);
        path.pop();
    }
}

fn all_groups(dataset: &Dataset) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    group_paths(&dataset.root, &mut Vec::new(), &mut out);
    out
}

/// The groups holding what `name` names: with a leading `/`, the one group of the path
/// and the last part; else every group, and the name.
fn places(dataset: &Dataset, name: &str) -> (Vec<Vec<String>>, String) {
    match name.strip_prefix('/') {
        Some(path) => {
            let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
            let last = parts.pop().unwrap_or_default();
            (vec![parts], last)
        }
        None => (all_groups(dataset), name.to_string()),
    }
}

fn taken(r: &Rename, where_: &str) -> EditError {
    EditError::Refused {
        spec: r.spec.clone(),
        reason: format!("{where_} already has {} '{}'", r.kind.a_word(), r.new),
    }
}

/// What in `g` is already called `name` (a variable, a group, a user-defined type;
/// a variable `allowed` accepts excepted), if anything: in a netCDF-4 file they share
/// the group's names, and in Zarr an array and a group share its keys.
fn holds_name(
    g: &Group,
    name: &str,
    allowed: Option<&dyn Fn(&crate::model::Var) -> bool>,
) -> Option<&'static str> {
    if g.vars
        .iter()
        .any(|v| v.name == name && !allowed.is_some_and(|ok| ok(v)))
    {
        Some("a variable")
    } else if g.groups.iter().any(|c| c.name == name) {
        Some("a group")
    } else if g.types.iter().any(|t| t.name == name) {
        Some("a type")
    } else {
        None
    }
}

fn taken_as(r: &Rename, path: &[String], what: &str) -> EditError {
    EditError::Refused {
        spec: r.spec.clone(),
        reason: format!("group '{}' already has {what} '{}'", shown(path), r.new),
    }
}

fn shown(path: &[String]) -> String {
    format!("/{}", path.join("/"))
}

fn rename_vars(
    dataset: &mut Dataset,
    r: &Rename,
    old_paths: &mut OldPaths,
) -> Result<usize, EditError> {
    let (groups, name) = places(dataset, &r.old);
    let mut n = 0;
    for path in groups {
        let Some(g) = dataset.group_mut(&path) else {
            continue;
        };
        if !g.vars.iter().any(|v| v.name == name) {
            continue;
        }
        if let Some(what) = holds_name(g, &r.new, None) {
            return Err(taken_as(r, &path, what));
        }
        if let Some(v) = g.vars.iter_mut().find(|v| v.name == name) {
            v.name.clone_from(&r.new);
        }
        let new = VarPath::new(&path, r.new.clone());
        let old = VarPath::new(&path, name.clone());
        let first = old_paths.remove(&old).unwrap_or(old);
        old_paths.insert(new, first);
        n += 1;
    }
    Ok(n)
}

fn rename_dims(dataset: &mut Dataset, r: &Rename) -> Result<usize, EditError> {
    let (groups, name) = places(dataset, &r.old);
    let mut renamed = Vec::new();
    for path in groups {
        let Some(g) = dataset.group_mut(&path) else {
            continue;
        };
        if !g.dims.iter().any(|d| d.name == name) {
            continue;
        }
        if g.dims.iter().any(|d| d.name == r.new) {
            return Err(taken(r, &format!("group '{}'", shown(&path))));
        }
        // A dimension may share its name with its coordinate variable (one axis along
        // it), nothing else: in a netCDF-4 file both are one HDF5 dataset.
        let coordinate = |v: &crate::model::Var| {
            v.name == r.new
                && v.dims.len() == 1
                && v.dims[0].name == name
                && v.dims[0].group == path
        };
        if let Some(what) = holds_name(g, &r.new, Some(&coordinate)) {
            return Err(taken_as(r, &path, what));
        }
        if let Some(d) = g.dims.iter_mut().find(|d| d.name == name) {
            d.name.clone_from(&r.new);
        }
        renamed.push(path);
    }
    // Every variable's reference to a renamed dimension, in any group.
    for path in all_groups(dataset) {
        if let Some(g) = dataset.group_mut(&path) {
            for v in &mut g.vars {
                for d in &mut v.dims {
                    if d.name == name && renamed.contains(&d.group) {
                        d.name.clone_from(&r.new);
                    }
                }
            }
        }
    }
    Ok(renamed.len())
}

fn rename_atts(dataset: &mut Dataset, r: &Rename, rules: AttRules) -> Result<usize, EditError> {
    if rules.reserved && super::reserved_att(&r.new) {
        return Err(EditError::Refused {
            spec: r.spec.clone(),
            reason: format!(
                "'{}' is a name netCDF-4 keeps for itself (HDF5's dimension scales, netcdf-c's own attributes): not a user's attribute",
                r.new
            ),
        });
    }
    let groups = all_groups(dataset);
    let owner = r.owner.as_deref();
    let mut n = 0;
    let mut rename_in =
        |attrs: &mut Vec<crate::model::Attr>, where_: String| -> Result<(), EditError> {
            let Some(i) = attrs.iter().position(|a| a.name == r.old) else {
                return Ok(());
            };
            if attrs.iter().any(|a| a.name == r.new) {
                return Err(taken(r, &where_));
            }
            let a = attrs.remove(i);
            if rules.resized_go_last {
                put_attr(attrs, &r.new, a.values, rules);
                if let Some(last) = attrs.last_mut() {
                    last.user = a.user;
                }
            } else {
                attrs.insert(
                    i,
                    crate::model::Attr {
                        name: r.new.clone(),
                        ..a
                    },
                );
            }
            n += 1;
            Ok(())
        };
    // Groups' attributes: every group's (no owner, `group@`), the root's (`global@`),
    // or a group named by path.
    let group_owner = |path: &[String]| match owner {
        None => true,
        Some(o) if o.eq_ignore_ascii_case("group") => true,
        Some(o) if o.eq_ignore_ascii_case("global") => path.is_empty(),
        Some(o) => o.strip_prefix('/').is_some_and(|p| p == path.join("/")),
    };
    let var_owner = |path: &[String], var: &str| match owner {
        None => true,
        Some(o) if o.eq_ignore_ascii_case("group") || o.eq_ignore_ascii_case("global") => false,
        Some(o) => match o.strip_prefix('/') {
            Some(p) => p == [path, &[var.to_string()]].concat().join("/"),
            None => o == var,
        },
    };
    for path in &groups {
        let Some(g) = dataset.group_mut(path) else {
            continue;
        };
        for v in &mut g.vars {
            if var_owner(path, &v.name) {
                let where_ = format!("variable '{}'", VarPath::new(path, v.name.clone()));
                rename_in(&mut v.attrs, where_)?;
            }
        }
        if group_owner(path) {
            rename_in(&mut g.attrs, format!("group '{}'", shown(path)))?;
        }
    }
    Ok(n)
}

fn rename_groups(
    dataset: &mut Dataset,
    r: &Rename,
    old_paths: &mut OldPaths,
) -> Result<usize, EditError> {
    let (parents, name) = places(dataset, &r.old);
    let mut moved = Vec::new();
    for parent in parents {
        let Some(g) = dataset.group_mut(&parent) else {
            continue;
        };
        if !g.groups.iter().any(|c| c.name == name) {
            continue;
        }
        if let Some(what) = holds_name(g, &r.new, None) {
            return Err(taken_as(r, &parent, what));
        }
        if let Some(c) = g.groups.iter_mut().find(|c| c.name == name) {
            c.name.clone_from(&r.new);
        }
        let mut old = parent.clone();
        old.push(name.clone());
        let mut new = parent;
        new.push(r.new.clone());
        moved.push((old, new));
    }
    // What is under a renamed group: dimension references and variables' paths.
    let moved_path = |p: &[String]| -> Option<Vec<String>> {
        moved.iter().find_map(|(old, new)| {
            p.starts_with(old)
                .then(|| [new.as_slice(), &p[old.len()..]].concat())
        })
    };
    for path in all_groups(dataset) {
        let Some(g) = dataset.group_mut(&path) else {
            continue;
        };
        for v in &mut g.vars {
            for d in &mut v.dims {
                if let Some(p) = moved_path(&d.group) {
                    d.group = p;
                }
            }
        }
    }
    let vars: Vec<VarPath> = dataset.vars().into_iter().map(|(p, _)| p).collect();
    for new in vars {
        // Its path before: the new path with the renamed group's old name.
        if let Some((old_g, new_g)) = moved.iter().find(|(_, n)| new.group.starts_with(n)) {
            let before_group = [old_g.as_slice(), &new.group[new_g.len()..]].concat();
            let before = VarPath::new(&before_group, new.name.clone());
            let first = old_paths.remove(&before).unwrap_or(before);
            old_paths.insert(new, first);
        }
    }
    Ok(moved.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Attr, Dim, DimRef, NcType, Values, Var};

    fn dataset() -> Dataset {
        let var = |name: &str, dims: &[(&[&str], &str)], attrs: Vec<Attr>| Var {
            name: name.into(),
            nc_type: NcType::Float,
            user_type: None,
            dims: dims
                .iter()
                .map(|(g, n)| DimRef {
                    group: g.iter().map(|s| s.to_string()).collect(),
                    name: n.to_string(),
                })
                .collect(),
            attrs,
            notes: vec![],
        };
        let mut root = Group::new("");
        root.dims.push(Dim {
            name: "lon".into(),
            len: 3,
            unlimited: false,
        });
        root.vars.push(var(
            "lon",
            &[(&[], "lon")],
            vec![Attr::new("units", Values::text("degrees_east"))],
        ));
        root.vars.push(var(
            "T",
            &[(&[], "lon")],
            vec![
                Attr::new("units", Values::text("K")),
                Attr::new("long_name", Values::text("t")),
            ],
        ));
        root.attrs.push(Attr::new("units", Values::text("g")));
        let mut g = Group::new("g");
        g.vars.push(var(
            "T",
            &[(&[], "lon")],
            vec![Attr::new("units", Values::text("C"))],
        ));
        root.groups.push(g);
        Dataset { root }
    }

    fn renamed(specs: &[(RenameKind, &str)]) -> Result<(Dataset, OldPaths), EditError> {
        let mut d = dataset();
        let rs: Vec<Rename> = specs
            .iter()
            .map(|(k, s)| Rename::parse(*k, s).unwrap())
            .collect();
        let (_, old) = apply_renames(&mut d, &rs, AttRules::ALL)?;
        Ok((d, old))
    }

    #[test]
    fn a_dimension_and_its_coordinate_are_renamed_together() {
        let (d, old) = renamed(&[
            (RenameKind::Dim, "lon,longitude"),
            (RenameKind::Var, "lon,longitude"),
        ])
        .unwrap();
        assert_eq!(d.root.dims[0].name, "longitude");
        assert_eq!(d.root.vars[0].name, "longitude");
        assert_eq!(d.root.vars[1].dims[0].name, "longitude");
        assert_eq!(d.root.groups[0].vars[0].dims[0].name, "longitude");
        assert_eq!(
            old.get(&VarPath::new(&[], "longitude")),
            Some(&VarPath::new(&[], "lon"))
        );
    }

    #[test]
    fn names_reach_what_ncrename_reaches() {
        let (d, old) = renamed(&[(RenameKind::Var, "T,tas")]).unwrap();
        assert_eq!(d.root.vars[1].name, "tas");
        assert_eq!(d.root.groups[0].vars[0].name, "tas");
        assert_eq!(old.len(), 2);
        let (d, _) = renamed(&[(RenameKind::Var, "/g/T,tas")]).unwrap();
        assert_eq!(d.root.vars[1].name, "T");
        assert_eq!(d.root.groups[0].vars[0].name, "tas");
        let (d, _) = renamed(&[(RenameKind::Att, "T@units,unit")]).unwrap();
        assert_eq!(d.root.vars[1].attrs[0].name, "unit");
        assert_eq!(d.root.groups[0].vars[0].attrs[0].name, "unit");
        assert_eq!(d.root.vars[0].attrs[0].name, "units");
        let (d, _) = renamed(&[(RenameKind::Att, "global@units,unit")]).unwrap();
        assert_eq!(d.root.attrs[0].name, "unit");
        assert_eq!(d.root.vars[1].attrs[0].name, "units");
        let (d, old) = renamed(&[(RenameKind::Group, "g,h")]).unwrap();
        assert_eq!(d.root.groups[0].name, "h");
        assert_eq!(
            old.get(&VarPath::new(&["h".to_string()], "T")),
            Some(&VarPath::new(&["g".to_string()], "T"))
        );
        renamed(&[(RenameKind::Var, ".nope,x")]).unwrap();
    }

    #[test]
    fn missing_and_taken_names_are_refused() {
        let e = renamed(&[(RenameKind::Var, "nope,x")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("no variable 'nope'"), "{e}");
        let e = renamed(&[(RenameKind::Var, "T,lon")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("already has a variable 'lon'"), "{e}");
        let e = renamed(&[(RenameKind::Var, "T,g")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("already has a group 'g'"), "{e}");
        let e = renamed(&[(RenameKind::Group, "g,T")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("already has a variable 'T'"), "{e}");
        let e = renamed(&[(RenameKind::Dim, "lon,g")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("already has a group 'g'"), "{e}");
        // A variable along the dimension alone becomes its coordinate: allowed.
        renamed(&[(RenameKind::Dim, "lon,T")]).unwrap();
        assert!(Rename::parse(RenameKind::Var, "T, tas").is_err());
        let e = renamed(&[(RenameKind::Att, "T@units,long_name")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("already has an attribute 'long_name'"), "{e}");
        assert!(Rename::parse(RenameKind::Var, "T").is_err());
        assert!(Rename::parse(RenameKind::Var, "T,a/b").is_err());
    }
}
