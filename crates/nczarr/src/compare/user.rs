//! Variables of netCDF-4's user-defined types compared (only netCDF-4 files hold
//! them): the type by its definition (two enums of one name with other members are
//! other types), an enum's values as its base integers (the other rules apply), and
//! a compound's, vlen's or opaque's values element by element, exactly, for they are
//! records, not measurements: tolerances and `-M` do not apply, `-N` does.

use super::values::{compare as compare_values, number_text, Rules};
use super::{name_of, CompareError, DiffKind, Difference, Side, VarSummary};
use crate::chunking::Region;
use crate::model::user::TypeRef;
use crate::model::{Dataset, NcType, UValue, UserKind, Var, VarPath};
use crate::source::DatasetSource;

/// The type of `var` as a comparison tells types apart: an atomic type's name, or a
/// user-defined type's kind, name and definition (`enum cloud_t {clear = 0, ...}`).
pub(super) fn type_text(ds: &Dataset, var: &Var) -> String {
    let Some(id) = &var.user_type else {
        return var.nc_type.to_string();
    };
    let Some(t) = ds.user_type(id) else {
        return format!("{} (undefined)", id.name);
    };
    let field = |r: &TypeRef| match r {
        TypeRef::Atomic(a) => a.to_string(),
        TypeRef::User(u) => u.name.clone(),
    };
    let body = match &t.kind {
        UserKind::Enum { base, members } => {
            let m: Vec<String> = members.iter().map(|(n, v)| format!("{n} = {v}")).collect();
            format!("{base} {{{}}}", m.join(", "))
        }
        UserKind::Compound { fields, .. } => {
            let f: Vec<String> = fields
                .iter()
                .map(|f| {
                    let dims: Vec<String> = f.dims.iter().map(u64::to_string).collect();
                    let dims = if dims.is_empty() {
                        String::new()
                    } else {
                        format!("({})", dims.join(", "))
                    };
                    format!("{} {}{dims}", field(&f.ty), f.name)
                })
                .collect();
            format!("{{{}}}", f.join("; "))
        }
        UserKind::Opaque { size } => format!("({size})"),
        UserKind::Vlen { base } => format!("{}(*)", field(base)),
    };
    format!("{} {} {body}", t.kind.class(), t.name)
}

/// True when `var`'s values read through [`crate::DataSource::read_user`] (a
/// compound, vlen or opaque), not as numbers.
pub(super) fn reads_by_element(ds: &Dataset, var: &Var) -> bool {
    var.user_type
        .as_ref()
        .and_then(|id| ds.user_type(id))
        .is_some_and(|t| !matches!(t.kind, UserKind::Enum { .. }))
}

/// Compare the values of the variable at `path` (of `shape`, a compound, vlen or
/// opaque in both) element by element; stop at the first difference unless
/// `keep_going`.
pub(super) fn compare_var(
    a: &dyn DatasetSource,
    b: &dyn DatasetSource,
    path: &VarPath,
    shape: &[u64],
    nan_equal: bool,
    keep_going: bool,
    emit: &mut dyn FnMut(Difference),
) -> Result<VarSummary, CompareError> {
    // Whole: records of user-defined types are small, and netCDF-4's reader of them
    // reads the whole dataset for any region.
    let whole = Region::whole(shape);
    let read = |side: Side, src: &dyn DatasetSource| {
        src.read_user(path, &whole)
            .map_err(|source| CompareError::Read { side, source })
    };
    let (x, y) = (read(Side::A, a)?, read(Side::B, b)?);
    let mut summary = VarSummary {
        compared: x.len() as u64,
        ..VarSummary::default()
    };
    for (i, (p, q)) in x.iter().zip(&y).enumerate() {
        if same(p, q, nan_equal) {
            continue;
        }
        summary.differing += 1;
        emit(Difference {
            kind: DiffKind::Value,
            what: name_of(path),
            index: Some(super::index_in(&whole, i)),
            a: Some(text(p)),
            b: Some(text(q)),
            diff: None,
            types: None,
        });
        if !keep_going {
            summary.compared = i as u64 + 1;
            break;
        }
    }
    if keep_going {
        super::emit_count(name_of(path), &summary, emit);
    }
    Ok(summary)
}

/// Equal records: the same structure and values (NaN equals NaN with `-N`).
fn same(p: &UValue, q: &UValue, nan_equal: bool) -> bool {
    let all = |x: &[UValue], y: &[UValue]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q, nan_equal))
    };
    match (p, q) {
        (UValue::Atomic(x), UValue::Atomic(y)) => {
            if x.nc_type() != y.nc_type() || x.len() != y.len() {
                return false;
            }
            let rules = Rules {
                nan_equal,
                ..Rules::default()
            };
            let mut equal = true;
            compare_values(x, y, &rules, &mut |_| {
                equal = false;
                false
            });
            equal
        }
        (UValue::Compound(x), UValue::Compound(y))
        | (UValue::Array(x), UValue::Array(y))
        | (UValue::Vlen(x), UValue::Vlen(y)) => all(x, y),
        (UValue::Enum(x), UValue::Enum(y)) => x == y,
        (UValue::Opaque(x), UValue::Opaque(y)) => x == y,
        _ => false,
    }
}

/// A record as CDL writes one: `{3, 4.5}`, `{1, 2}`, `0xCAFE`.
fn text(v: &UValue) -> String {
    let list = |items: &[UValue]| {
        let t: Vec<String> = items.iter().map(text).collect();
        format!("{{{}}}", t.join(", "))
    };
    match v {
        UValue::Atomic(x) if x.nc_type() == NcType::Char => {
            format!("\"{}\"", String::from_utf8_lossy(&char_bytes(x)))
        }
        UValue::Atomic(x) => {
            let t: Vec<String> = (0..x.len()).map(|i| number_text(x, i)).collect();
            t.join(", ")
        }
        UValue::Compound(items) | UValue::Array(items) | UValue::Vlen(items) => list(items),
        UValue::Enum(x) => x.to_string(),
        UValue::Opaque(bytes) => {
            let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
            format!("0x{hex}")
        }
    }
}

fn char_bytes(v: &crate::model::Values) -> Vec<u8> {
    match v {
        crate::model::Values::Char(c) => c.iter().copied().take_while(|&b| b != 0).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Values;

    #[test]
    fn records_compare_by_structure_and_print_as_cdl() {
        let r = |x: i32, y: f32| {
            UValue::Compound(vec![
                UValue::Atomic(Values::Int(vec![x])),
                UValue::Atomic(Values::Float(vec![y])),
            ])
        };
        assert!(same(&r(3, 4.5), &r(3, 4.5), false));
        assert!(!same(&r(3, 4.5), &r(3, 9.5), false));
        assert!(!same(&r(3, f32::NAN), &r(3, f32::NAN), false));
        assert!(same(&r(3, f32::NAN), &r(3, f32::NAN), true));
        assert_eq!(text(&r(3, 4.5)), "{3, 4.5}");
        let v = |x: &[i32]| {
            UValue::Vlen(
                x.iter()
                    .map(|&i| UValue::Atomic(Values::Int(vec![i])))
                    .collect(),
            )
        };
        assert!(!same(&v(&[1, 2]), &v(&[1]), false));
        assert_eq!(text(&v(&[1, 2])), "{1, 2}");
        assert_eq!(text(&UValue::Opaque(vec![0xca, 0xfe])), "0xCAFE");
    }
}
