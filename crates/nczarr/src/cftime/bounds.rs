//! CF's boundary variables (CF 1.11 §7.1, §7.4): the variable a coordinate's `bounds`
//! (or, for climatological time, `climatology`) attribute names holds that coordinate's
//! cell edges in the coordinate's units, which it need not repeat. Tools that read
//! a coordinate's values as times must read its bounds the same way.

use crate::model::{Dataset, Values, Var, VarPath};

/// The attributes by which a coordinate names its boundary variable.
const BOUNDS_ATTRS: [&str; 2] = ["bounds", "climatology"];

/// The coordinate whose `bounds` or `climatology` attribute names the variable at
/// `path`, with its path; `None` when no variable names it.
///
/// A name without `/` is a variable of the coordinate's own group; a path is absolute
/// (`/g/time_bnds`) or relative to the coordinate's group (`sub/time_bnds`, `../t_bnds`),
/// as CF 1.8 spells references across groups.
pub fn bounds_parent<'d>(dataset: &'d Dataset, path: &VarPath) -> Option<(VarPath, &'d Var)> {
    dataset
        .vars()
        .into_iter()
        .find(|(p, v)| boundary_vars(&p.group, v).contains(path))
}

/// The boundary variables the coordinate `coord` (in the group at `group`) names by
/// its `bounds` and `climatology` attributes, as [`bounds_parent`] resolves them
/// (whether the dataset has them is the caller's to check).
pub fn boundary_vars(group: &[String], coord: &Var) -> Vec<VarPath> {
    BOUNDS_ATTRS
        .iter()
        .filter_map(|name| coord.attr(name))
        .filter_map(|a| resolve(group, attr_text(&a.values)?))
        .collect()
}

/// The variable the coordinate `coord`'s `bounds` attribute names: its cells' edges
/// (contiguous cells, unlike climatological bounds).
pub fn cell_bounds(group: &[String], coord: &Var) -> Option<VarPath> {
    resolve(group, attr_text(&coord.attr("bounds")?.values)?)
}

/// The text of a char attribute, or of a string attribute's first string.
pub(super) fn attr_text(values: &Values) -> Option<&[u8]> {
    match values {
        Values::Char(t) => Some(t.as_slice()),
        Values::String(list) => list.first().flatten(),
        _ => None,
    }
}

/// The variable `text` names, seen from the group at `group`.
fn resolve(group: &[String], text: &[u8]) -> Option<VarPath> {
    crate::model::cf_links::path_of_name(group, std::str::from_utf8(text).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cftime::{Calendar, TimeUnits, Unit};
    use crate::model::{Attr, Group, NcType};

    fn var(name: &str, attrs: &[(&str, &str)]) -> Var {
        Var {
            name: name.into(),
            nc_type: NcType::Double,
            user_type: None,
            dims: Vec::new(),
            attrs: attrs
                .iter()
                .map(|(k, v)| Attr::new(*k, Values::text(v)))
                .collect(),
            notes: Vec::new(),
        }
    }

    fn root(vars: Vec<Var>) -> Dataset {
        Dataset {
            root: Group {
                vars,
                ..Group::default()
            },
        }
    }

    #[test]
    fn bounds_take_the_units_and_calendar_they_lack_from_their_coordinate() {
        let days = [
            ("units", "days since 2001-01-01"),
            ("calendar", "noleap"),
            ("bounds", "time_bnds"),
        ];
        let ds = root(vec![var("time", &days), var("time_bnds", &[])]);
        let at = |name: &str| TimeUnits::of_var_in(&ds, &VarPath::new(&[], name));
        let units = at("time_bnds").unwrap();
        assert_eq!((units.unit, units.calendar), (Unit::Day, Calendar::NoLeap));
        assert_eq!(at("time_bnds"), at("time"));
        // Units of its own are its own; the calendar it lacks is still the coordinate's.
        let ds = root(vec![
            var("time", &days),
            var("time_bnds", &[("units", "hours since 2001-01-01")]),
        ]);
        let units = TimeUnits::of_var_in(&ds, &VarPath::new(&[], "time_bnds")).unwrap();
        assert_eq!((units.unit, units.calendar), (Unit::Hour, Calendar::NoLeap));
        // `climatology` names a boundary variable as `bounds` does.
        let ds = root(vec![
            var(
                "time",
                &[("units", "days since 2001-01-01"), ("climatology", "clim")],
            ),
            var("clim", &[]),
            var("other", &[]),
        ]);
        let at = |name: &str| TimeUnits::of_var_in(&ds, &VarPath::new(&[], name));
        assert_eq!(at("clim").map(|u| u.unit), Some(Unit::Day));
        assert_eq!(at("other"), None);
    }

    fn names(group: &[&str], text: &str) -> Option<String> {
        let group: Vec<String> = group.iter().map(|g| g.to_string()).collect();
        resolve(&group, text.as_bytes()).map(|p| p.to_string())
    }

    #[test]
    fn references_resolve_from_the_coordinates_group() {
        assert_eq!(names(&[], "time_bnds").as_deref(), Some("/time_bnds"));
        assert_eq!(names(&["g"], "time_bnds").as_deref(), Some("/g/time_bnds"));
        assert_eq!(names(&["g"], "/time_bnds").as_deref(), Some("/time_bnds"));
        assert_eq!(names(&["g"], "/h/tb").as_deref(), Some("/h/tb"));
        assert_eq!(names(&["g"], "sub/tb").as_deref(), Some("/g/sub/tb"));
        assert_eq!(names(&["g", "h"], "../tb").as_deref(), Some("/g/tb"));
        assert_eq!(names(&[], "../tb"), None);
        assert_eq!(names(&[], ""), None);
    }
}
