//! Attributes compared: text by content, numbers by value, and by type unless
//! `--ignore-types`. A type difference is said as one (`type float != double
//! (0.001f != 0.001)`), not as two values that print alike. What a format cannot
//! record is not a difference of the data: pure Zarr keeps attributes as JSON numbers
//! with no type (a `float` reads back as a `double`: storage, reported with
//! `--storage`), and keeps a variable's fill as Zarr's `fill_value`, which its netCDF
//! view shows as `_FillValue` only when it is not netCDF's default.

use super::pair::{meta, Pair};
use super::values::{compare as compare_values, number_text, Rules};
use super::{DiffKind, Difference, Side};
use crate::model::{Attr, NcType, Values, VarPath};
use crate::source::DatasetSource;

/// How two attributes of one name compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    /// The same type and values.
    Equal,
    /// The same values (a float equal to the double that rounds to it) in other types.
    TypeOnly,
    /// Other values.
    Differ,
}

/// Compare the attributes `both` of one owner (the variable at `owner`, or a group;
/// `prefix` names it, ncdump's `var:` or `:`), but for those `-A` names.
pub(super) fn attributes(
    pair: &Pair<'_>,
    both: (&[Attr], &[Attr]),
    owner: Option<&VarPath>,
    prefix: &str,
    emit: &mut dyn FnMut(Difference),
) {
    let (a, b) = both;
    let options = pair.options;
    let ignored = |n: &str| {
        options.ignore_attrs.iter().any(|i| i == n)
            || (owner.is_none() && options.ignore_global_attrs.iter().any(|i| i == n))
    };
    // An attribute one side shows and the other holds as its Zarr fill is no difference.
    let held = |side: Side, x: &Attr| {
        owner.is_some_and(|path| holds_as_zarr_fill(pair.side(side), path, x))
    };
    for x in a.iter().filter(|x| !ignored(&x.name)) {
        let what = format!("{prefix}{}", x.name);
        match b.iter().find(|y| y.name == x.name) {
            None if held(Side::B, x) => {}
            None => emit(meta(DiffKind::Attribute, what, Some(attr_text(x)), None)),
            Some(y) => pair_of(pair, x, y, what, emit),
        }
    }
    for y in b
        .iter()
        .filter(|y| !ignored(&y.name) && !a.iter().any(|x| x.name == y.name))
    {
        if !held(Side::A, y) {
            emit(meta(
                DiffKind::Attribute,
                format!("{prefix}{}", y.name),
                None,
                Some(attr_text(y)),
            ));
        }
    }
}

/// Report how `x` (A's) and `y` (B's), one attribute `what`, differ.
fn pair_of(pair: &Pair<'_>, x: &Attr, y: &Attr, what: String, emit: &mut dyn FnMut(Difference)) {
    let options = pair.options;
    let (tx, ty) = (x.values.nc_type(), y.values.nc_type());
    // A type is told apart only where both formats record one and it is compared.
    let types_count = !options.ignore_types && !pair.typeless();
    match matching(x, y) {
        Match::Equal => {}
        Match::TypeOnly if types_count => emit(typed(x, y, what)),
        Match::TypeOnly if pair.typeless() && options.storage && !options.ignore_types => {
            emit(meta(
                DiffKind::Storage,
                format!("{what} type"),
                Some(tx.to_string()),
                Some(ty.to_string()),
            ));
        }
        Match::TypeOnly => {}
        Match::Differ if types_count && tx != ty => emit(typed(x, y, what)),
        Match::Differ => emit(meta(
            DiffKind::Attribute,
            what,
            Some(attr_text(x)),
            Some(attr_text(y)),
        )),
    }
}

/// A difference of attributes whose types differ, each value typed as CDL types it.
fn typed(x: &Attr, y: &Attr, what: String) -> Difference {
    Difference {
        types: Some((
            x.values.nc_type().to_string(),
            y.values.nc_type().to_string(),
        )),
        ..meta(
            DiffKind::Attribute,
            what,
            Some(typed_text(x)),
            Some(typed_text(y)),
        )
    }
}

/// How `x` and `y` compare: text by content (a char attribute equals a one-string
/// one), numbers by value (NaN equals NaN) and then by type.
fn matching(x: &Attr, y: &Attr) -> Match {
    if let (Some(p), Some(q)) = (text_of(&x.values), text_of(&y.values)) {
        return if p == q { Match::Equal } else { Match::Differ };
    }
    let (tx, ty) = (x.values.nc_type(), y.values.nc_type());
    let text = |t: NcType| matches!(t, NcType::Char | NcType::String);
    if x.user != y.user || (tx != ty && (text(tx) || text(ty))) {
        return Match::Differ;
    }
    match (same_values(&x.values, &y.values), tx == ty) {
        (false, _) => Match::Differ,
        (true, true) => Match::Equal,
        (true, false) => Match::TypeOnly,
    }
}

/// Equal values, as numbers where the types differ (NaN equals NaN: an attribute is
/// one value, not data).
fn same_values(x: &Values, y: &Values) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let rules = Rules {
        nan_equal: true,
        ..Rules::default()
    };
    let mut same = true;
    compare_values(x, y, &rules, &mut |_| {
        same = false;
        false
    });
    same
}

/// Whether `src` holds `attr`, a `_FillValue` the other dataset shows, as the Zarr v2
/// `fill_value` of the variable at `path`. xarray masks by that as by the attribute,
/// but the netCDF view of pure Zarr shows no `_FillValue` for netCDF's default fill
/// (netcdf-c writes that fill for every variable), so a file's explicit
/// `_FillValue = -32767s` is, in its pure Zarr copy or kerchunk references, only the
/// `fill_value`.
fn holds_as_zarr_fill(src: &dyn DatasetSource, path: &VarPath, attr: &Attr) -> bool {
    attr.name == "_FillValue"
        && src.encoding(path).is_some_and(|e| {
            e.zarr_fill_masks
                && e.fill
                    .as_ref()
                    .is_some_and(|f| same_values(f, &attr.values))
        })
}

/// The text of a char attribute or a one-string attribute, to its end or first NUL
/// (C's strings: NCO writes its `history` with a NUL that other formats do not keep).
fn text_of(v: &Values) -> Option<Vec<u8>> {
    let text = match v {
        Values::Char(t) => t.as_slice(),
        Values::String(s) if s.len() == 1 => s.value(0)?,
        _ => return None,
    };
    let end = text.iter().position(|&c| c == 0).unwrap_or(text.len());
    Some(text[..end].to_vec())
}

/// An attribute's values as CDL writes them, shortened.
fn attr_text(a: &Attr) -> String {
    values_text(a, "")
}

/// An attribute's values with CDL's type suffixes (`0.001f`, `-999s`), for a type
/// difference: `0.001f != 0.001`, where plain numbers would read `0.001 != 0.001`.
fn typed_text(a: &Attr) -> String {
    let suffix = match a.values.nc_type() {
        NcType::Byte => "b",
        NcType::Short => "s",
        NcType::Float => "f",
        NcType::UByte => "UB",
        NcType::UShort => "US",
        NcType::UInt => "U",
        NcType::Int64 => "LL",
        NcType::UInt64 => "ULL",
        _ => "",
    };
    values_text(a, suffix)
}

fn values_text(a: &Attr, suffix: &str) -> String {
    if let Some(t) = text_of(&a.values) {
        return format!("{:?}", String::from_utf8_lossy(&t));
    }
    let items: Vec<String> = (0..a.values.len().min(8))
        .map(|i| format!("{}{suffix}", number_text(&a.values, i)))
        .collect();
    let more = if a.values.len() > 8 { ", ..." } else { "" };
    format!("{}{more}", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(values: Values) -> Attr {
        Attr::new("scale_factor", values)
    }

    #[test]
    fn a_float_equals_the_double_that_rounds_to_it_in_value_not_type() {
        let f = attr(Values::Float(vec![0.001]));
        let d = attr(Values::Double(vec![0.001]));
        assert_eq!(matching(&f, &d), Match::TypeOnly);
        assert_eq!(matching(&f, &f.clone()), Match::Equal);
        // The float's exact value as a double rounds to it too.
        let wide = attr(Values::Double(vec![f64::from(0.001f32)]));
        assert_eq!(matching(&f, &wide), Match::TypeOnly);
        let other = attr(Values::Double(vec![0.0011]));
        assert_eq!(matching(&f, &other), Match::Differ);
        assert_eq!(
            (typed_text(&f), typed_text(&d)),
            ("0.001f".to_string(), "0.001".to_string())
        );
    }

    #[test]
    fn integers_of_other_types_text_and_lengths() {
        let s = attr(Values::Short(vec![-100, 30000]));
        let i = attr(Values::Int(vec![-100, 30000]));
        assert_eq!(matching(&s, &i), Match::TypeOnly);
        assert_eq!(typed_text(&s), "-100s, 30000s");
        assert_eq!(matching(&s, &attr(Values::Int(vec![-100]))), Match::Differ);
        let c = attr(Values::text("K"));
        assert_eq!(matching(&c, &attr(Values::Int(vec![75]))), Match::Differ);
        let mut one = crate::model::Strings::new();
        one.push(Some(b"K"));
        assert_eq!(matching(&c, &attr(Values::String(one))), Match::Equal);
    }
}
