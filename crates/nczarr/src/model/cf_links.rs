//! The variables a variable names by CF's attributes (CF 1.11): `coordinates` and
//! `ancillary_variables` (lists of names), `bounds` and `climatology` (one name, §7.1,
//! §7.4), `grid_mapping` (one name, or CF 1.7's `crs: lat lon crs2: x y`, §5.6),
//! `cell_measures` and `formula_terms` (`key: name` pairs, §7.2, §4.3.3).
//!
//! A subset of variables (`nczcopy -V tas`, ncks `-v tas`) brings the variables its
//! variables name, as ncks does, so that no attribute of the copy names a variable the
//! copy does not have; and where they are left out (`-C`, `--exclude`) the names are
//! taken out of the attributes, never left dangling.
//!
//! A name is looked up as CF 1.8 says for groups: a path (`/g/v`, `../v`, `sub/v`) from
//! the variable's group, and a bare name in the variable's group, then in each group
//! above it ("search by proximity").

use std::collections::HashSet;

use super::{Attr, Dataset, Values, VarPath};

/// The attributes that name variables, and how they spell them.
const LINKS: [(&str, Form); 7] = [
    ("coordinates", Form::List),
    ("ancillary_variables", Form::List),
    ("bounds", Form::One),
    ("climatology", Form::One),
    ("grid_mapping", Form::Keyed),
    ("cell_measures", Form::Keyed),
    ("formula_terms", Form::Keyed),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Names separated by white space.
    List,
    /// One name.
    One,
    /// `key: name ...` groups: for `grid_mapping` the keys are the variables (the
    /// names after them coordinates, also variables); for `cell_measures` and
    /// `formula_terms` the keys are roles and the names after them variables.
    Keyed,
}

/// One piece of a keyed attribute: a key (without its `:`) and the names after it, or
/// names before any key (`grid_mapping = "crs"`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    key: Option<String>,
    names: Vec<String>,
}

fn pieces(text: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for token in text.split_whitespace() {
        match token.strip_suffix(':') {
            Some(key) => out.push(Piece {
                key: Some(key.to_string()),
                names: Vec::new(),
            }),
            None => match out.last_mut() {
                Some(p) => p.names.push(token.to_string()),
                None => out.push(Piece {
                    key: None,
                    names: vec![token.to_string()],
                }),
            },
        }
    }
    out
}

/// The text of a char or string attribute.
fn text_of(values: &Values) -> Option<String> {
    match values {
        Values::Char(t) => Some(
            String::from_utf8_lossy(t)
                .trim_end_matches('\0')
                .to_string(),
        ),
        Values::String(list) => list
            .first()
            .flatten()
            .map(|t| String::from_utf8_lossy(t).into_owned()),
        _ => None,
    }
}

/// The names an attribute `attr` (spelled as `form`) gives as variables.
fn names_in(attr: &str, form: Form, text: &str) -> Vec<String> {
    match form {
        Form::List => text.split_whitespace().map(String::from).collect(),
        Form::One => text.split_whitespace().take(1).map(String::from).collect(),
        Form::Keyed => pieces(text)
            .into_iter()
            .flat_map(|p| {
                let key = p.key.filter(|_| attr == "grid_mapping");
                key.into_iter().chain(p.names)
            })
            .collect(),
    }
}

/// The variable a name with a path names, seen from the group at `group` (CF 1.8:
/// `/g/v` from the root, `sub/v`, `../v` from `group`); a bare name is `group`'s.
/// Whether the dataset has it is the caller's to check. `None` for an empty name, or
/// `..` above the root.
pub fn path_of_name(group: &[String], name: &str) -> Option<VarPath> {
    let name = name.trim();
    let Some((dirs, last)) = name.rsplit_once('/') else {
        return (!name.is_empty()).then(|| VarPath::new(group, name));
    };
    let mut at: Vec<String> = if name.starts_with('/') {
        Vec::new()
    } else {
        group.to_vec()
    };
    for part in dirs.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            at.pop()?;
        } else {
            at.push(part.to_string());
        }
    }
    (!last.is_empty()).then(|| VarPath::new(&at, last))
}

/// The variable `name` names, seen from the group at `group` (see the module's doc).
fn resolve(ds: &Dataset, group: &[String], name: &str) -> Option<VarPath> {
    if name.contains('/') {
        return path_of_name(group, name).filter(|p| ds.var(p).is_some());
    }
    (0..=group.len())
        .rev()
        .map(|n| VarPath::new(&group[..n], name))
        .find(|p| ds.var(p).is_some())
}

/// The variables of `ds` that the variable at `path` names by CF's attributes.
pub fn linked_vars(ds: &Dataset, path: &VarPath) -> Vec<VarPath> {
    let Some(var) = ds.var(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, form) in LINKS {
        let Some(text) = var.attr(name).and_then(|a| text_of(&a.values)) else {
            continue;
        };
        for n in names_in(name, form, &text) {
            if let Some(p) = resolve(ds, &path.group, &n) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// `chosen` with every variable its variables name, and theirs in turn (a coordinate's
/// bounds), found in `ds`.
pub fn with_linked(ds: &Dataset, chosen: &mut HashSet<VarPath>) {
    let mut todo: Vec<VarPath> = chosen.iter().cloned().collect();
    while let Some(p) = todo.pop() {
        for linked in linked_vars(ds, &p) {
            if chosen.insert(linked.clone()) {
                todo.push(linked);
            }
        }
    }
}

/// Take out of `output`'s attributes the names of variables that `input` has and
/// `output` does not (left out of a copy): a name gone from a list, a `key: name` pair
/// gone from a keyed attribute, an attribute of one name gone whole (and a list or
/// keyed attribute left empty). Names that `input` did not resolve either are the
/// input's own and stay.
pub fn drop_dangling(input: &Dataset, output: &mut Dataset) {
    let paths: Vec<VarPath> = output.vars().into_iter().map(|(p, _)| p).collect();
    for path in paths {
        let group = path.group.clone();
        let gone = |name: &str, out: &Dataset| {
            resolve(input, &group, name).is_some() && resolve(out, &group, name).is_none()
        };
        let Some(var) = output.var(&path) else {
            continue;
        };
        let mut changes: Vec<(String, Option<String>)> = Vec::new();
        for (name, form) in LINKS {
            let Some(attr) = var.attr(name) else { continue };
            let Some(text) = text_of(&attr.values) else {
                continue;
            };
            if !names_in(name, form, &text).iter().any(|n| gone(n, output)) {
                continue;
            }
            let kept = match form {
                Form::One => None,
                Form::List => {
                    let names: Vec<&str> = text
                        .split_whitespace()
                        .filter(|n| !gone(n, output))
                        .collect();
                    (!names.is_empty()).then(|| names.join(" "))
                }
                Form::Keyed => {
                    let grid = name == "grid_mapping";
                    let kept: Vec<String> = pieces(&text)
                        .into_iter()
                        .filter_map(|p| match (&p.key, grid) {
                            // grid_mapping: a mapping gone takes its coordinates with it.
                            (Some(k), true) if gone(k, output) => None,
                            (key, _) => {
                                let names: Vec<&String> =
                                    p.names.iter().filter(|n| !gone(n, output)).collect();
                                let role_lost = !grid && names.len() < p.names.len();
                                // A grid mapping with no coordinate left names none.
                                let emptied = names.is_empty() && !p.names.is_empty();
                                if role_lost || emptied || (key.is_none() && names.is_empty()) {
                                    return None;
                                }
                                let mut s =
                                    key.as_ref().map(|k| format!("{k}:")).unwrap_or_default();
                                for n in names {
                                    if !s.is_empty() {
                                        s.push(' ');
                                    }
                                    s.push_str(n);
                                }
                                Some(s)
                            }
                        })
                        .collect();
                    (!kept.is_empty()).then(|| kept.join(" "))
                }
            };
            changes.push((name.to_string(), kept));
        }
        let Some(var) = output.var_mut(&path) else {
            continue;
        };
        for (name, kept) in changes {
            match kept {
                None => var.attrs.retain(|a| a.name != name),
                Some(text) => {
                    if let Some(a) = var.attrs.iter_mut().find(|a| a.name == name) {
                        let values = match &a.values {
                            Values::String(_) => {
                                Values::String(vec![Some(text.into_bytes())].into())
                            }
                            _ => Values::text(&text),
                        };
                        *a = Attr {
                            name: a.name.clone(),
                            values,
                            user: None,
                        };
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Group, NcType, Var};

    fn var(name: &str, attrs: &[(&str, &str)]) -> Var {
        Var {
            name: name.into(),
            nc_type: NcType::Float,
            user_type: None,
            dims: Vec::new(),
            attrs: attrs
                .iter()
                .map(|(k, v)| Attr::new(*k, Values::text(v)))
                .collect(),
            notes: Vec::new(),
        }
    }

    fn dataset() -> Dataset {
        let mut root = Group::new("");
        root.vars = vec![
            var(
                "tas",
                &[
                    ("coordinates", "lat lon height"),
                    ("grid_mapping", "crs: lat lon"),
                    ("cell_measures", "area: cell_area"),
                    ("ancillary_variables", "tas_flag"),
                ],
            ),
            var("lat", &[("bounds", "lat_bnds")]),
            var("lat_bnds", &[]),
            var("lon", &[]),
            var("crs", &[]),
            var("cell_area", &[]),
            var("tas_flag", &[]),
            var("other", &[]),
        ];
        let mut sub = Group::new("g");
        sub.vars = vec![var("w", &[("coordinates", "lat ../lon")])];
        root.groups.push(sub);
        Dataset { root }
    }

    fn names(set: &HashSet<VarPath>) -> Vec<String> {
        let mut v: Vec<String> = set.iter().map(ToString::to_string).collect();
        v.sort();
        v
    }

    #[test]
    fn a_variable_brings_what_it_names_and_what_those_name() {
        let ds = dataset();
        let mut chosen: HashSet<VarPath> = [VarPath::new(&[], "tas")].into();
        with_linked(&ds, &mut chosen);
        assert_eq!(
            names(&chosen),
            [
                "/cell_area",
                "/crs",
                "/lat",
                "/lat_bnds",
                "/lon",
                "/tas",
                "/tas_flag"
            ]
        );
        // Names of groups above, by proximity and by path.
        let w = VarPath::new(&["g".to_string()], "w");
        assert_eq!(
            linked_vars(&ds, &w),
            [VarPath::new(&[], "lat"), VarPath::new(&[], "lon")]
        );
    }

    #[test]
    fn names_of_variables_left_out_are_taken_out_of_the_attributes() {
        let input = dataset();
        let mut output = input.clone();
        output
            .root
            .vars
            .retain(|v| !["lat", "lat_bnds", "crs", "cell_area"].contains(&v.name.as_str()));
        drop_dangling(&input, &mut output);
        let attr = |v: &str, a: &str| {
            output
                .var(&VarPath::new(&[], v))
                .and_then(|v| v.attr(a))
                .and_then(|a| text_of(&a.values))
        };
        // "height" was never a variable: the input's own, kept.
        assert_eq!(attr("tas", "coordinates").as_deref(), Some("lon height"));
        assert_eq!(attr("tas", "grid_mapping"), None);
        assert_eq!(attr("tas", "cell_measures"), None);
        assert_eq!(
            attr("tas", "ancillary_variables").as_deref(),
            Some("tas_flag")
        );
        let w = output.var(&VarPath::new(&["g".to_string()], "w")).unwrap();
        assert_eq!(
            text_of(&w.attr("coordinates").unwrap().values).as_deref(),
            Some("../lon")
        );
    }

    #[test]
    fn keyed_attributes_keep_what_is_there() {
        assert_eq!(
            names_in("grid_mapping", Form::Keyed, "crs: lat lon crs2: x y"),
            ["crs", "lat", "lon", "crs2", "x", "y"]
        );
        assert_eq!(names_in("grid_mapping", Form::Keyed, "crs"), ["crs"]);
        assert_eq!(
            names_in("formula_terms", Form::Keyed, "a: a_var b: b ps: ps0"),
            ["a_var", "b", "ps0"]
        );
    }
}
