//! Where things are in a dataset: the path of a group from the root, and of a variable
//! (its group's path and its name). One type with one `Display`, so every message,
//! map key and store key spells a variable the same way: `/g/sub/v`, `/v` at the root.

use std::fmt;

/// The path of a group: the names of the groups from the root down, empty for the root.
/// Displays as netCDF's full group name: `/` for the root, `/g/sub` below it.
///
/// ```
/// use nczarr::model::GroupPath;
/// assert_eq!(GroupPath(&[]).to_string(), "/");
/// assert_eq!(GroupPath(&["g".into(), "sub".into()]).to_string(), "/g/sub");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupPath<'a>(pub &'a [String]);

impl fmt::Display for GroupPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for g in self.0 {
            write!(f, "/{g}")?;
        }
        Ok(())
    }
}

/// A named object in a group: the group's path and the object's name, displayed
/// `/g/sub/name`. Variables ([`VarPath`]) and dimension references share the form.
pub(crate) fn fmt_in_group(
    f: &mut fmt::Formatter<'_>,
    group: &[String],
    name: &str,
) -> fmt::Result {
    for g in group {
        write!(f, "/{g}")?;
    }
    write!(f, "/{name}")
}

/// Where a variable is: its group's path from the root and its name.
///
/// ```
/// use nczarr::model::VarPath;
/// let p = VarPath::new(&["g".to_string()], "tas");
/// assert_eq!(p.to_string(), "/g/tas");
/// assert_eq!(VarPath::new(&[], "x").to_string(), "/x");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarPath {
    /// Names of the groups from the root down to the variable's group.
    pub group: Vec<String>,
    /// The variable's name.
    pub name: String,
}

impl VarPath {
    /// The variable `name` in the group at `group`.
    pub fn new(group: &[String], name: impl Into<String>) -> VarPath {
        VarPath {
            group: group.to_vec(),
            name: name.into(),
        }
    }

    /// The path of the variable's group.
    pub fn group_path(&self) -> GroupPath<'_> {
        GroupPath(&self.group)
    }
}

impl fmt::Display for VarPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_in_group(f, &self.group, &self.name)
    }
}
