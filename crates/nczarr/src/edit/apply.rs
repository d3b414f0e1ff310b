//! ncatted's edits applied to a dataset's model, in the order given, with NCO's
//! meaning: which variables or groups a VAR names, what each mode does when the
//! attribute is there or not, and what is refused (appending another type, a
//! `_FillValue` of another type than its variable's, a type the format cannot hold).
//! The caller applies them to a copy of the model and keeps it only when all apply.

use super::spec::{AttEdit, AttMode, AttTarget};
use super::EditError;
use crate::model::{Attr, Dataset, Group, NcType, Values, VarPath};

/// The attribute types a dataset's format holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttTypes {
    /// netCDF-3 classic and 64-bit offset: the six classic types.
    Classic,
    /// CDF-5: the classic types and the unsigned and 64-bit integers; no strings.
    Cdf5,
    /// Every type (netCDF-4, Zarr).
    All,
}

impl AttTypes {
    fn holds(self, t: NcType) -> bool {
        match self {
            AttTypes::Classic => t.is_classic(),
            AttTypes::Cdf5 => t != NcType::String,
            AttTypes::All => true,
        }
    }
}

/// How a format keeps attributes, as far as an edit is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttRules {
    /// The types it holds.
    pub types: AttTypes,
    /// An attribute given a value of another type or length moves to the end of its
    /// list: netCDF-4 files, where netcdf-c deletes and re-creates such an HDF5
    /// attribute (whose creation order is the order ncdump shows). Elsewhere an
    /// attribute keeps its place.
    pub resized_go_last: bool,
    /// The attribute names netcdf-c keeps for itself are refused (netCDF-4 files and
    /// Zarr stores; a classic file has no such names).
    pub reserved: bool,
}

impl AttRules {
    /// Every type, every attribute in its place (Zarr).
    pub const ALL: AttRules = AttRules {
        types: AttTypes::All,
        resized_go_last: false,
        reserved: true,
    };
}

/// Put `values` as attribute `name` of `attrs`: in its place, or (by `rules`) at the
/// end when its type or length changes; a new one at the end.
pub(crate) fn put_attr(attrs: &mut Vec<Attr>, name: &str, values: Values, rules: AttRules) {
    match attrs.iter().position(|a| a.name == name) {
        Some(i) => {
            let old = &attrs[i].values;
            // netcdf-c re-creates a netCDF-4 variable's _FillValue whatever its size
            // (it is the HDF5 dataset's fill too).
            let resized = old.nc_type() != values.nc_type()
                || old.len() != values.len()
                || name == "_FillValue";
            if rules.resized_go_last && resized {
                attrs.remove(i);
                attrs.push(Attr::new(name, values));
            } else {
                attrs[i] = Attr::new(name, values);
            }
        }
        None => attrs.push(Attr::new(name, values)),
    }
}

/// Where an attribute list is: a group's (by its path) or a variable's.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Holder {
    Group(Vec<String>),
    Var(VarPath),
}

/// Apply `edits` to `dataset` in order. Returns how many attributes were created,
/// changed or deleted (an edit that does nothing by its mode counts none).
///
/// # Errors
/// [`EditError::NoTarget`] for a VAR that names nothing; [`EditError::Refused`] for an
/// edit the attribute or the format cannot take. `dataset` is then partly edited: apply
/// to a copy.
pub fn apply_att_edits(
    dataset: &mut Dataset,
    edits: &[AttEdit],
    rules: AttRules,
) -> Result<usize, EditError> {
    let mut changed = 0;
    for edit in edits {
        if let Some(t) = edit.values.as_ref().map(Values::nc_type) {
            if !rules.types.holds(t) {
                return Err(EditError::Refused {
                    spec: edit.spec.clone(),
                    reason: format!(
                        "a {} attribute cannot be stored in this format",
                        t.cdl_name()
                    ),
                });
            }
        }
        if rules.reserved && edit.mode != AttMode::Delete && super::reserved_att(&edit.att) {
            return Err(EditError::Refused {
                spec: edit.spec.clone(),
                reason: format!(
                    "'{}' is a name netCDF-4 keeps for itself (HDF5's dimension scales, netcdf-c's own attributes): not a user's attribute",
                    edit.att
                ),
            });
        }
        for holder in holders(dataset, edit)? {
            changed += edit_one(dataset, &holder, edit, rules)?;
        }
    }
    Ok(changed)
}

/// What `edit`'s VAR names, in the dataset's order.
fn holders(dataset: &Dataset, edit: &AttEdit) -> Result<Vec<Holder>, EditError> {
    let mut out = Vec::new();
    match &edit.target {
        AttTarget::Global => out.push(Holder::Group(Vec::new())),
        AttTarget::AllVars => {
            out.extend(dataset.vars().into_iter().map(|(p, _)| Holder::Var(p)));
        }
        AttTarget::Named(name) if name.starts_with('/') => {
            let parts: Vec<String> = name
                .split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            if let Some((last, group)) = parts.split_last() {
                let path = VarPath::new(group, last);
                if dataset.var(&path).is_some() {
                    out.push(Holder::Var(path));
                }
            }
            if out.is_empty() && dataset.group(&parts).is_some() {
                out.push(Holder::Group(parts));
            }
        }
        AttTarget::Named(name) => {
            out.extend(
                dataset
                    .vars()
                    .into_iter()
                    .filter(|(p, _)| &p.name == name)
                    .map(|(p, _)| Holder::Var(p)),
            );
            if out.is_empty() {
                groups_named(&dataset.root, &mut Vec::new(), name, &mut out);
            }
        }
    }
    if out.is_empty() {
        if let AttTarget::Named(name) = &edit.target {
            return Err(EditError::NoTarget {
                name: name.clone(),
                att: edit.att.clone(),
            });
        }
    }
    Ok(out)
}

/// Every group below `g` (at `path`) named `name`.
fn groups_named(g: &Group, path: &mut Vec<String>, name: &str, out: &mut Vec<Holder>) {
    for child in &g.groups {
        path.push(child.name.clone());
        if child.name == name {
            out.push(Holder::Group(path.clone()));
        }
        groups_named(child, path, name, out);
        path.pop();
    }
}

/// Apply `edit` to the attributes of `holder`; how many changed.
fn edit_one(
    dataset: &mut Dataset,
    holder: &Holder,
    edit: &AttEdit,
    rules: AttRules,
) -> Result<usize, EditError> {
    let refused = |reason: String| EditError::Refused {
        spec: edit.spec.clone(),
        reason,
    };
    let (attrs, var_type, what) = match holder {
        Holder::Group(path) => {
            let what = if path.is_empty() {
                "the global attributes".to_string()
            } else {
                format!("group '/{}'", path.join("/"))
            };
            let g = dataset
                .group_mut(path)
                .ok_or_else(|| refused(format!("no {what}")))?;
            (&mut g.attrs, None, what)
        }
        Holder::Var(path) => {
            let v = dataset
                .var_mut(path)
                .ok_or_else(|| refused(format!("no variable '{path}'")))?;
            let t = v.user_type.is_none().then_some(v.nc_type);
            (&mut v.attrs, Some(t), format!("variable '{path}'"))
        }
    };
    let at = attrs.iter().position(|a| a.name == edit.att);
    let Some(new) = &edit.values else {
        // Delete.
        return Ok(if edit.att.is_empty() {
            std::mem::take(attrs).len()
        } else {
            at.map(|i| attrs.remove(i)).map_or(0, |_| 1)
        });
    };
    if edit.att == "_FillValue" {
        if let Some(t) = var_type {
            if t != Some(new.nc_type()) {
                return Err(refused(format!(
                    "the _FillValue of {what} must be of its own type ({}), not {}",
                    t.map_or("its user-defined type", NcType::cdl_name),
                    new.nc_type().cdl_name()
                )));
            }
        }
    }
    let grow = |old: &Attr, prepend: bool| -> Result<Values, EditError> {
        if old.user.is_some() || old.values.nc_type() != new.nc_type() {
            return Err(refused(format!(
                "attribute '{}' of {what} is {}, not {}: cannot add to it",
                edit.att,
                old.user
                    .as_ref()
                    .map_or(old.values.nc_type().cdl_name(), |_| {
                        "of a user-defined type"
                    }),
                new.nc_type().cdl_name()
            )));
        }
        let (mut first, second) = if prepend {
            (new.clone(), old.values.clone())
        } else {
            (old.values.clone(), new.clone())
        };
        first.append(second);
        Ok(first)
    };
    let values = match (edit.mode, at) {
        (AttMode::Create, Some(_)) | (AttMode::Modify | AttMode::NAppend, None) => return Ok(0),
        (AttMode::Append | AttMode::NAppend, Some(i)) => grow(&attrs[i], false)?,
        (AttMode::Prepend, Some(i)) => grow(&attrs[i], true)?,
        _ => new.clone(),
    };
    put_attr(attrs, &edit.att, values, rules);
    Ok(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dim, DimRef, Var};

    fn dataset() -> Dataset {
        let var = |name: &str, t: NcType, attrs: Vec<Attr>| Var {
            name: name.into(),
            nc_type: t,
            user_type: None,
            dims: vec![DimRef {
                group: vec![],
                name: "x".into(),
            }],
            attrs,
            notes: vec![],
        };
        let mut root = Group::new("");
        root.dims.push(Dim {
            name: "x".into(),
            len: 2,
            unlimited: false,
        });
        root.vars.push(var(
            "T",
            NcType::Float,
            vec![
                Attr::new("units", Values::text("K")),
                Attr::new("scale", Values::Float(vec![2.0])),
            ],
        ));
        root.vars.push(var("n", NcType::Int, vec![]));
        root.attrs.push(Attr::new("title", Values::text("t")));
        let mut sub = Group::new("sub");
        sub.vars.push(var("T", NcType::Float, vec![]));
        root.groups.push(sub);
        Dataset { root }
    }

    fn edited(specs: &[&str]) -> Result<Dataset, EditError> {
        let mut d = dataset();
        let edits: Vec<AttEdit> = specs.iter().map(|s| AttEdit::parse(s).unwrap()).collect();
        apply_att_edits(&mut d, &edits, AttRules::ALL)?;
        Ok(d)
    }

    fn att(d: &Dataset, var: &[&str], name: &str) -> Option<Values> {
        let (last, group) = var.split_last().unwrap();
        let group: Vec<String> = group.iter().map(|s| s.to_string()).collect();
        let p = VarPath::new(&group, *last);
        d.var(&p)?.attr(name).map(|a| a.values.clone())
    }

    #[test]
    fn modes_do_what_ncatted_does() {
        let d = edited(&["units,T,a,c,/s"]).unwrap();
        assert_eq!(att(&d, &["T"], "units"), Some(Values::text("K/s")));
        let d = edited(&["scale,T,p,f,1"]).unwrap();
        assert_eq!(
            att(&d, &["T"], "scale"),
            Some(Values::Float(vec![1.0, 2.0]))
        );
        let d = edited(&["units,T,c,c,no", "new,T,c,c,yes"]).unwrap();
        assert_eq!(att(&d, &["T"], "units"), Some(Values::text("K")));
        assert_eq!(att(&d, &["T"], "new"), Some(Values::text("yes")));
        let d = edited(&["none,T,m,c,x", "none,T,n,c,x", "units,T,m,c,C"]).unwrap();
        assert_eq!(att(&d, &["T"], "none"), None);
        assert_eq!(att(&d, &["T"], "units"), Some(Values::text("C")));
        // Overwritten in place, created at the end.
        let d = edited(&["units,T,o,d,1", "z,T,o,c,z"]).unwrap();
        let names: Vec<&str> = d.root.vars[0]
            .attrs
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(names, ["units", "scale", "z"]);
        let d = edited(&[",T,d,,", "nothing,n,d,,"]).unwrap();
        assert!(d.root.vars[0].attrs.is_empty());
    }

    /// The attribute names of the first variable, in order.
    fn att_names(d: &Dataset) -> Vec<&str> {
        d.root.vars[0]
            .attrs
            .iter()
            .map(|a| a.name.as_str())
            .collect()
    }

    #[test]
    fn a_netcdf4_file_moves_a_resized_attribute_last() {
        let nc4 = AttRules {
            types: AttTypes::All,
            resized_go_last: true,
            reserved: true,
        };
        let mut d = dataset();
        let edits: Vec<AttEdit> = ["units,T,o,c,X", "scale,T,o,f,1,2"]
            .iter()
            .map(|s| AttEdit::parse(s).unwrap())
            .collect();
        apply_att_edits(&mut d, &edits, nc4).unwrap();
        assert_eq!(att_names(&d), ["units", "scale"]);
        let mut d = dataset();
        let edits = [AttEdit::parse("units,T,a,c,/s").unwrap()];
        apply_att_edits(&mut d, &edits, nc4).unwrap();
        assert_eq!(att_names(&d), ["scale", "units"]);
    }

    #[test]
    fn names_reach_what_ncatted_reaches() {
        // A name: every variable so named; empty: all; global: the root group's.
        let d = edited(&["units,T,o,c,m"]).unwrap();
        assert_eq!(att(&d, &["sub", "T"], "units"), Some(Values::text("m")));
        let d = edited(&["units,/sub/T,o,c,F"]).unwrap();
        assert_eq!(att(&d, &["T"], "units"), Some(Values::text("K")));
        assert_eq!(att(&d, &["sub", "T"], "units"), Some(Values::text("F")));
        let d = edited(&["units,,o,c,u"]).unwrap();
        assert_eq!(att(&d, &["n"], "units"), Some(Values::text("u")));
        let d = edited(&["title,Global,p,c,pre-"]).unwrap();
        assert_eq!(d.root.attr("title").unwrap().values, Values::text("pre-t"));
        // A group by name when no variable has it.
        let d = edited(&["g,sub,o,c,grp"]).unwrap();
        assert_eq!(
            d.root.groups[0].attr("g").unwrap().values,
            Values::text("grp")
        );
        let e = edited(&["units,nope,o,c,x"]).unwrap_err().to_string();
        assert!(e.contains("no variable or group named 'nope'"), "{e}");
    }

    #[test]
    fn what_cannot_be_is_refused() {
        let e = edited(&["scale,T,a,d,3"]).unwrap_err().to_string();
        assert!(e.contains("is float, not double"), "{e}");
        let e = edited(&["_FillValue,n,o,f,1"]).unwrap_err().to_string();
        assert!(e.contains("must be of its own type (int)"), "{e}");
        edited(&["_FillValue,n,o,i,-1"]).unwrap();
        let mut d = dataset();
        let e = apply_att_edits(
            &mut d,
            &[AttEdit::parse("s,T,o,sng,a").unwrap()],
            AttRules {
                types: AttTypes::Classic,
                resized_go_last: false,
                reserved: false,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("cannot be stored in this format"), "{e}");
    }
}
