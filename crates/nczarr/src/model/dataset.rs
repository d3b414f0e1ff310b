//! Groups, dimensions, variables and attributes.

use super::{NcType, TypeId, UserAttr, UserType, Values, VarPath};

/// An attribute: a name and typed values.
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    /// Attribute name.
    pub name: String,
    /// Its values; the type is the attribute's type (for an enum, its base type).
    pub values: Values,
    /// The attribute's values of a user-defined type (netCDF-4 files only); `values`
    /// then holds an enum's base integers, and nothing for the other kinds.
    pub user: Option<Box<UserAttr>>,
}

impl Attr {
    /// Make an attribute.
    pub fn new(name: impl Into<String>, values: Values) -> Attr {
        Attr {
            name: name.into(),
            values,
            user: None,
        }
    }
}

/// A shared dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dim {
    /// Dimension name.
    pub name: String,
    /// Current length.
    pub len: u64,
    /// True for an UNLIMITED (record) dimension.
    pub unlimited: bool,
}

/// A reference from a variable to a dimension: the dimension's group (path of
/// group names from the root, empty for the root) and its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DimRef {
    /// Names of the groups from the root down to the dimension's group.
    pub group: Vec<String>,
    /// The dimension's name.
    pub name: String,
}

impl DimRef {
    /// Parse a fully qualified name such as `/g/sub/x` (netCDF's dimension reference form).
    /// Returns `None` when the text is not absolute or has an empty segment.
    pub fn parse_fqn(fqn: &str) -> Option<DimRef> {
        let rest = fqn.strip_prefix('/')?;
        let mut parts: Vec<String> = rest.split('/').map(str::to_string).collect();
        let name = parts.pop()?;
        if name.is_empty() || parts.iter().any(String::is_empty) {
            return None;
        }
        Some(DimRef { group: parts, name })
    }

    /// The fully qualified name, `/g/x`.
    pub fn fqn(&self) -> String {
        self.to_string()
    }
}

impl std::fmt::Display for DimRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        super::path::fmt_in_group(f, &self.group, &self.name)
    }
}

/// A variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    /// Variable name.
    pub name: String,
    /// Element type (an enum's base type; for the other user-defined types, a
    /// placeholder: see `user_type`).
    pub nc_type: NcType,
    /// The variable's user-defined type, if it has one (netCDF-4 files only).
    pub user_type: Option<TypeId>,
    /// Dimensions, outermost first; empty for a scalar.
    pub dims: Vec<DimRef>,
    /// Attributes in order.
    pub attrs: Vec<Attr>,
    /// Remarks a reader made about how the variable was interpreted (printed as CDL comments).
    pub notes: Vec<String>,
}

impl Var {
    /// The attribute named `name`.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name == name)
    }
}

/// A group: its dimensions, variables, attributes and subgroups.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    /// Group name (empty for the root).
    pub name: String,
    /// Dimensions defined in this group.
    pub dims: Vec<Dim>,
    /// Variables in definition order.
    pub vars: Vec<Var>,
    /// Group attributes.
    pub attrs: Vec<Attr>,
    /// User-defined types defined in this group, in definition order.
    pub types: Vec<UserType>,
    /// Subgroups.
    pub groups: Vec<Group>,
}

impl Group {
    /// A new empty group.
    pub fn new(name: impl Into<String>) -> Group {
        Group {
            name: name.into(),
            ..Group::default()
        }
    }

    /// The dimension named `name` defined in this group.
    pub fn dim(&self, name: &str) -> Option<&Dim> {
        self.dims.iter().find(|d| d.name == name)
    }

    /// The variable named `name` in this group.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }

    /// The subgroup named `name`.
    pub fn group(&self, name: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// The attribute named `name`.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name == name)
    }
}

/// A netCDF dataset (metadata only; data stays in its store).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dataset {
    /// The root group.
    pub root: Group,
}

impl Dataset {
    /// The group at `path` (group names from the root).
    pub fn group(&self, path: &[String]) -> Option<&Group> {
        let mut g = &self.root;
        for name in path {
            g = g.group(name)?;
        }
        Some(g)
    }

    /// The group at `path`, for changing it.
    pub fn group_mut(&mut self, path: &[String]) -> Option<&mut Group> {
        let mut g = &mut self.root;
        for name in path {
            g = g.groups.iter_mut().find(|c| &c.name == name)?;
        }
        Some(g)
    }

    /// The dimension a reference points at.
    pub fn dim(&self, r: &DimRef) -> Option<&Dim> {
        self.group(&r.group)?.dim(&r.name)
    }

    /// The variable at `path`.
    pub fn var(&self, path: &VarPath) -> Option<&Var> {
        self.group(&path.group)?.var(&path.name)
    }

    /// The variable at `path`, for changing it.
    pub fn var_mut(&mut self, path: &VarPath) -> Option<&mut Var> {
        self.group_mut(&path.group)?
            .vars
            .iter_mut()
            .find(|v| v.name == path.name)
    }

    /// Every variable with its path: a group's variables in order, then its subgroups'.
    pub fn vars(&self) -> Vec<(VarPath, &Var)> {
        fn walk<'a>(g: &'a Group, path: &mut Vec<String>, out: &mut Vec<(VarPath, &'a Var)>) {
            for v in &g.vars {
                out.push((VarPath::new(path, &v.name), v));
            }
            for c in &g.groups {
                path.push(c.name.clone());
                walk(c, path, out);
                path.pop();
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut Vec::new(), &mut out);
        out
    }

    /// The dataset without the variables at `drop` (their dimensions stay).
    pub fn without_vars(&self, drop: &[VarPath]) -> Dataset {
        fn walk(g: &mut Group, path: &mut Vec<String>, drop: &[VarPath]) {
            g.vars
                .retain(|v| !drop.iter().any(|d| d.group == *path && d.name == v.name));
            for c in &mut g.groups {
                path.push(c.name.clone());
                walk(c, path, drop);
                path.pop();
            }
        }
        let mut out = self.clone();
        walk(&mut out.root, &mut Vec::new(), drop);
        out
    }

    /// The lengths of the dimensions of the variable at `path`.
    pub fn shape_of(&self, path: &VarPath) -> Option<Vec<u64>> {
        self.var(path).map(|v| self.var_shape(v))
    }

    /// The lengths of a variable's dimensions (empty for a scalar); a dangling
    /// reference counts as length 0.
    pub fn var_shape(&self, var: &Var) -> Vec<u64> {
        var.dims
            .iter()
            .map(|d| self.dim(d).map_or(0, |d| d.len))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimref_fqn_round_trip() {
        let r = DimRef::parse_fqn("/g/sub/x").unwrap();
        assert_eq!(r.group, ["g", "sub"]);
        assert_eq!(r.name, "x");
        assert_eq!(r.fqn(), "/g/sub/x");
        assert_eq!(DimRef::parse_fqn("/x").unwrap().group.len(), 0);
        assert!(DimRef::parse_fqn("x").is_none());
        assert!(DimRef::parse_fqn("/g//x").is_none());
        assert!(DimRef::parse_fqn("/").is_none());
    }
}
