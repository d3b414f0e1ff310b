//! netCDF-4's user-defined types (compound, enum, opaque, vlen) and their values.
//!
//! Only netCDF-4 files hold them; NCZarr and Zarr do not. A group defines types
//! ([`super::Group::types`]); a variable or attribute of one names it by a
//! [`TypeId`]. An enum variable keeps its base type as `nc_type` and reads as its
//! base integers, so that tools without a use for the names see numbers; the other
//! kinds are read as [`UValue`]s through [`crate::DataSource::read_user`] by the
//! tools that show them (the CDL printer), and left out by the rest with a reason
//! ([`atomic_view`]).

use super::{Attr, Dataset, Group, NcType, Values};

pub use super::user_type::{Field, TypeId, TypeRef, UValue, UserAttr, UserKind, UserType};

impl Dataset {
    /// The user-defined type `id` names.
    pub fn user_type(&self, id: &TypeId) -> Option<&UserType> {
        self.group(&id.group)?
            .types
            .iter()
            .find(|t| t.name == id.name)
    }

    /// Bytes of one value of the user-defined type `id` as netcdf-c sizes it (its
    /// chunks are sized by it): a compound's or opaque's size, an enum's base type's,
    /// a vlen's 16.
    pub fn user_item_size(&self, id: &TypeId) -> Option<u64> {
        Some(match &self.user_type(id)?.kind {
            UserKind::Compound { size, .. } | UserKind::Opaque { size } => *size,
            UserKind::Enum { base, .. } => base.size() as u64,
            UserKind::Vlen { .. } => 16,
        })
    }

    /// True when some group defines a user-defined type.
    pub fn has_user_types(&self) -> bool {
        fn walk(g: &Group) -> bool {
            !g.types.is_empty() || g.groups.iter().any(walk)
        }
        walk(&self.root)
    }
}

/// Finds the kind of a user-defined type by its id.
pub type KindOf<'a> = dyn Fn(&TypeId) -> Option<&'a UserKind> + 'a;

/// netcdf-c's default fill value of `ty`: each atomic type's default fill (a
/// compound's fields each theirs), an enum's base type's, an opaque's zero bytes, an
/// empty vlen.
pub fn default_fill<'a>(ty: &TypeRef, kind_of: &KindOf<'a>) -> UValue {
    default_fill_at(ty, kind_of, 0)
}

/// What a variable of the user-defined type `ty` holds where nothing is written: its
/// `_FillValue`, else [`default_fill`].
pub fn var_fill<'a>(var: &super::Var, ty: &TypeRef, kind_of: &KindOf<'a>) -> UValue {
    var.attr("_FillValue")
        .and_then(|a| a.user.as_ref())
        .and_then(|u| u.values.first().cloned())
        .unwrap_or_else(|| default_fill(ty, kind_of))
}

/// The default fill of a compound's field (its elements, for a field with
/// dimensions): see [`default_fill`].
pub fn default_field<'a>(f: &Field, kind_of: &KindOf<'a>) -> UValue {
    default_field_at(f, kind_of, 0)
}

fn default_field_at<'a>(f: &Field, kind_of: &KindOf<'a>, depth: u32) -> UValue {
    let one = match f.ty {
        // A char field's default is NUL, as netcdf-c's fill of a char array.
        TypeRef::Atomic(NcType::Char) => UValue::Atomic(Values::Char(vec![0])),
        _ => default_fill_at(&f.ty, kind_of, depth + 1),
    };
    if f.dims.is_empty() {
        return one;
    }
    let n = usize::try_from(f.dims.iter().product::<u64>()).unwrap_or(0);
    UValue::Array(vec![one; n])
}

fn default_fill_at<'a>(ty: &TypeRef, kind_of: &KindOf<'a>, depth: u32) -> UValue {
    let id = match ty {
        TypeRef::Atomic(t) => return UValue::Atomic(Values::default_fill(*t)),
        TypeRef::User(id) => id,
    };
    match kind_of(id) {
        // A type that holds itself is refused when it is defined; this only ends the walk.
        _ if depth > 64 => UValue::Vlen(Vec::new()),
        Some(UserKind::Enum { base, .. }) => match Values::default_fill(*base).get_i128(0) {
            Some(v) => UValue::Enum(v),
            None => UValue::Enum(0),
        },
        Some(UserKind::Opaque { size }) => {
            UValue::Opaque(vec![0; usize::try_from(*size).unwrap_or(0)])
        }
        Some(UserKind::Compound { fields, .. }) => UValue::Compound(
            fields
                .iter()
                .map(|f| default_field_at(f, kind_of, depth + 1))
                .collect(),
        ),
        Some(UserKind::Vlen { .. }) | None => UValue::Vlen(Vec::new()),
    }
}

/// What [`atomic_view`] could not keep: one line each, naming the variable or
/// attribute and its type.
pub type Losses = Vec<String>;

/// The dataset as the atomic types hold it, for formats without user-defined types
/// (NCZarr, Zarr) and tools that show only those: an enum variable becomes its base
/// type with CF's `flag_values` and `flag_meanings` naming its members (unless it
/// has them already), an enum attribute its base integers; variables and attributes
/// of the other kinds are left out, each said in the losses. The types go.
pub fn atomic_view(ds: &Dataset) -> (Dataset, Losses) {
    written_view(ds, false)
}

/// The dataset as an output holds it: as it is when the output is a netCDF-4 file
/// (`keeps_user_types`), which holds every user-defined type; [`atomic_view`]
/// otherwise.
pub fn written_view(ds: &Dataset, keeps_user_types: bool) -> (Dataset, Losses) {
    if keeps_user_types {
        return (ds.clone(), Losses::new());
    }
    let mut out = ds.clone();
    let mut losses = Vec::new();
    let mut path = Vec::new();
    atomic_group(ds, &mut out.root, &mut path, &mut losses);
    (out, losses)
}

fn atomic_group(ds: &Dataset, g: &mut Group, path: &mut Vec<String>, losses: &mut Losses) {
    g.types.clear();
    let at = |name: &str| super::VarPath::new(path, name).to_string();
    let group_shown = if path.is_empty() {
        String::new()
    } else {
        format!("/{}", path.join("/"))
    };
    g.attrs
        .retain_mut(|a| keep_attr(ds, a, &format!("{group_shown}:{}", a.name), losses));
    g.vars.retain_mut(|v| {
        let Some(id) = v.user_type.take() else {
            return true;
        };
        match ds.user_type(&id).map(|t| &t.kind) {
            Some(UserKind::Enum { members, .. }) => {
                let shown = at(&v.name);
                v.attrs
                    .retain_mut(|a| keep_attr(ds, a, &format!("{shown}:{}", a.name), losses));
                if v.attr("flag_values").is_none() && v.attr("flag_meanings").is_none() {
                    let wide = Values::Int64(
                        members
                            .iter()
                            .map(|(_, x)| i64::try_from(*x).unwrap_or(i64::MAX))
                            .collect(),
                    );
                    let values = wide.cast_to(v.nc_type).unwrap_or(wide);
                    let names: Vec<String> =
                        members.iter().map(|(n, _)| n.replace(' ', "_")).collect();
                    v.attrs.push(Attr::new("flag_values", values));
                    v.attrs
                        .push(Attr::new("flag_meanings", Values::text(&names.join(" "))));
                }
                true
            }
            other => {
                let class = other.map_or("unknown", UserKind::class);
                losses.push(format!(
                    "variable '{}' has the {class} type {id}, which only netCDF-4 files hold",
                    at(&v.name)
                ));
                false
            }
        }
    });
    for c in &mut g.groups {
        path.push(c.name.clone());
        atomic_group(ds, c, path, losses);
        path.pop();
    }
}

/// Keep an attribute as its atomic values (an enum's base integers), or say why not.
fn keep_attr(ds: &Dataset, a: &mut Attr, shown: &str, losses: &mut Losses) -> bool {
    let Some(user) = a.user.take() else {
        return true;
    };
    match ds.user_type(&user.ty).map(|t| &t.kind) {
        Some(UserKind::Enum { .. }) => true,
        other => {
            let class = other.map_or("unknown", UserKind::class);
            losses.push(format!(
                "attribute '{shown}' has the {class} type {}, which only netCDF-4 files hold",
                user.ty
            ));
            a.user = Some(user);
            false
        }
    }
}
