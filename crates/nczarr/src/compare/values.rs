//! Two slabs of one variable compared value by value under nccmp's rules: a loop per
//! type pair over the vectors themselves (no formatting unless a value differs), after
//! a byte comparison that settles most equal slabs at memory speed.

use crate::cftime::{TimeUnits, Unit};
use crate::model::Values;

/// When two values are equal.
#[derive(Debug, Clone, Default)]
pub(super) struct Rules {
    /// `-t`: differences up to this are equal (seconds for CF times in other units).
    pub abs: Option<f64>,
    /// `-T`: differences up to this percent of the larger magnitude are equal.
    pub rel: Option<f64>,
    /// `-N`: NaN equals NaN.
    pub nan_equal: bool,
    /// `-M`: the fill value of A equals the fill value of B (each as a number; NaN
    /// matches NaN).
    pub fills: Option<(f64, f64)>,
    /// CF times in other units: A's and B's, compared as instants.
    pub times: Option<(TimeUnits, TimeUnits)>,
}

/// One value that differs: where in the slab (C order), both values as text, and
/// the difference where they are numbers.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub at: usize,
    pub a: String,
    pub b: String,
    pub diff: Option<f64>,
}

/// Compare `a` and `b` (as long as each other), calling `found` for each value that
/// differs until it returns false.
pub(super) fn compare(a: &Values, b: &Values, rules: &Rules, found: &mut dyn FnMut(Found) -> bool) {
    if a.nc_type() == b.nc_type() && rules.times.is_none() {
        if let (Some(x), Some(y)) = (a.as_ne_bytes(), b.as_ne_bytes()) {
            // Equal bytes are equal values, but for NaNs, which equal nothing unless -N.
            if x == y && (rules.nan_equal || !has_nan(a)) {
                return;
            }
        }
    }
    match (a, b) {
        (Values::String(x), Values::String(y)) => {
            for (i, (p, q)) in x.iter().zip(y.iter()).enumerate() {
                if p != q
                    && !found(Found {
                        at: i,
                        a: quoted(p),
                        b: quoted(q),
                        diff: None,
                    })
                {
                    return;
                }
            }
        }
        (Values::Char(x), Values::Char(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if p != q
                    && !found(Found {
                        at: i,
                        a: char_text(*p),
                        b: char_text(*q),
                        diff: None,
                    })
                {
                    return;
                }
            }
        }
        _ if is_integer(a) && is_integer(b) && exact(rules) => {
            for i in 0..a.len().min(b.len()) {
                let (x, y) = (a.get_i128(i), b.get_i128(i));
                if x != y && !fill_pair(rules, a.get_f64(i), b.get_f64(i)) {
                    let diff = match (x, y) {
                        (Some(x), Some(y)) => Some((x - y).unsigned_abs() as f64),
                        _ => None,
                    };
                    if !found(Found {
                        at: i,
                        a: number_text(a, i),
                        b: number_text(b, i),
                        diff,
                    }) {
                        return;
                    }
                }
            }
        }
        _ => numbers(a, b, rules, found),
    }
}

/// Compare as numbers: floats, mixed types (`--ignore-types`), tolerances, CF times.
fn numbers(a: &Values, b: &Values, rules: &Rules, found: &mut dyn FnMut(Found) -> bool) {
    let seconds = rules.times.as_ref().map(|(ua, ub)| {
        let s = TimeUnits {
            unit: Unit::Second,
            ..ua.clone()
        };
        (ua.clone(), ub.clone(), s)
    });
    // A float and a double are equal when the double rounds to the float (0.001f is
    // 0.001 as far as a float holds it): values of other types (`--ignore-types`), an
    // attribute read back from JSON.
    let narrow = seconds.is_none()
        && matches!(
            (a, b),
            (Values::Float(_), Values::Double(_)) | (Values::Double(_), Values::Float(_))
        );
    for i in 0..a.len().min(b.len()) {
        let (mut x, mut y) = (a.get_f64(i), b.get_f64(i));
        if let Some((ua, ub, s)) = &seconds {
            if !x.is_nan() && !y.is_nan() {
                x = ua.rebase_to(x, s).unwrap_or(x);
                y = ub.rebase_to(y, s).unwrap_or(y);
            }
        }
        if equal(x, y, rules)
            || (narrow && same_as_float(x, y))
            || fill_pair(rules, a.get_f64(i), b.get_f64(i))
        {
            continue;
        }
        let diff = (x - y).abs();
        if !found(Found {
            at: i,
            a: number_text(a, i),
            b: number_text(b, i),
            diff: (!diff.is_nan()).then_some(diff),
        }) {
            return;
        }
    }
}

/// Equal under the rules: the same number, both NaN with `-N`, or within the
/// tolerances (numpy's `isclose`: the absolute one plus the relative one of the
/// larger magnitude).
fn equal(x: f64, y: f64, rules: &Rules) -> bool {
    if x == y {
        return true;
    }
    if x.is_nan() || y.is_nan() {
        return rules.nan_equal && x.is_nan() && y.is_nan();
    }
    let allowed =
        rules.abs.unwrap_or(0.0) + rules.rel.unwrap_or(0.0) / 100.0 * x.abs().max(y.abs());
    (x - y).abs() <= allowed
}

/// `x` and `y` are one float (one of them is a float's value): rounding to a float,
/// which the float's own value survives, is how to see it.
#[allow(clippy::cast_possible_truncation)]
fn same_as_float(x: f64, y: f64) -> bool {
    x as f32 == y as f32
}

/// With `-M`: `x` is A's fill and `y` is B's.
fn fill_pair(rules: &Rules, x: f64, y: f64) -> bool {
    let is = |v: f64, fill: f64| v == fill || (v.is_nan() && fill.is_nan());
    rules.fills.is_some_and(|(fa, fb)| is(x, fa) && is(y, fb))
}

fn exact(rules: &Rules) -> bool {
    rules.abs.is_none() && rules.rel.is_none() && rules.times.is_none()
}

fn is_integer(v: &Values) -> bool {
    !matches!(
        v,
        Values::Float(_) | Values::Double(_) | Values::String(_) | Values::Char(_)
    )
}

fn has_nan(v: &Values) -> bool {
    match v {
        Values::Float(x) => x.iter().any(|f| f.is_nan()),
        Values::Double(x) => x.iter().any(|f| f.is_nan()),
        _ => false,
    }
}

/// Value `i` of `v` as text: integers exactly, floats in their shortest exact form.
pub(super) fn number_text(v: &Values, i: usize) -> String {
    match v {
        Values::Float(x) => x[i].to_string(),
        Values::Double(x) => x[i].to_string(),
        Values::Char(x) => char_text(x[i]),
        Values::String(x) => quoted(x.get(i).flatten()),
        _ => v.get_i128(i).map_or_else(String::new, |n| n.to_string()),
    }
}

fn char_text(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'\\' => "'\\\\'".into(),
        0x20..=0x7e => format!("'{}'", c as char),
        0 => "'\\0'".into(),
        _ => format!("'\\x{c:02x}'"),
    }
}

fn quoted(s: Option<&[u8]>) -> String {
    match s {
        None => "NIL".into(),
        Some(b) => format!("{:?}", String::from_utf8_lossy(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(a: &Values, b: &Values, rules: &Rules) -> Vec<(usize, String, String, Option<f64>)> {
        let mut out = Vec::new();
        compare(a, b, rules, &mut |f| {
            out.push((f.at, f.a, f.b, f.diff));
            true
        });
        out
    }

    #[test]
    fn floats_nan_tolerances_and_fills() {
        let a = Values::Float(vec![1.0, f32::NAN, 281.25, -9999.0, 0.0]);
        let b = Values::Float(vec![1.0, f32::NAN, 281.5, f32::NAN, -0.0]);
        let got = all(&a, &b, &Rules::default());
        let at: Vec<usize> = got.iter().map(|g| g.0).collect();
        assert_eq!(at, [1, 2, 3]);
        assert_eq!(got[1], (2, "281.25".into(), "281.5".into(), Some(0.25)));
        let rules = Rules {
            nan_equal: true,
            ..Rules::default()
        };
        assert_eq!(all(&a, &b, &rules).len(), 2);
        let rules = Rules {
            nan_equal: true,
            fills: Some((-9999.0, f64::NAN)),
            abs: Some(0.25),
            ..Rules::default()
        };
        assert!(all(&a, &b, &rules).is_empty());
        // The edge: 0.25 is within -t 0.25, not within -t 0.2499.
        let rules = Rules {
            abs: Some(0.2499),
            ..Rules::default()
        };
        assert!(all(&a, &b, &rules).iter().any(|g| g.0 == 2));
        // -T in percent of the larger magnitude: 0.25 of 281.5 is 0.0888%.
        let at = |t: f64| {
            let rules = Rules {
                rel: Some(t),
                ..Rules::default()
            };
            all(&a, &b, &rules).iter().any(|g| g.0 == 2)
        };
        assert!(!at(0.0889) && at(0.0888));
    }

    #[test]
    fn equal_bytes_are_equal_but_nans() {
        let a = Values::Double(vec![f64::NAN, 2.0]);
        assert_eq!(all(&a, &a.clone(), &Rules::default()).len(), 1);
        let i = Values::Int64(vec![i64::MAX, 3]);
        let j = Values::Int64(vec![i64::MAX - 1, 3]);
        assert_eq!(
            all(&i, &j, &Rules::default()),
            [(
                0,
                i64::MAX.to_string(),
                (i64::MAX - 1).to_string(),
                Some(1.0)
            )]
        );
    }

    #[test]
    fn chars_strings_and_mixed_types() {
        let a = Values::text("abc");
        let b = Values::text("abd");
        assert_eq!(all(&a, &b, &Rules::default())[0].1, "'c'");
        let mut s = crate::model::Strings::new();
        s.push(Some(b"x"));
        s.push(None);
        let mut t = crate::model::Strings::new();
        t.push(Some(b"x"));
        t.push(Some(b""));
        let got = all(&Values::String(s), &Values::String(t), &Rules::default());
        assert_eq!(got, [(1, "NIL".into(), "\"\"".into(), None)]);
        let got = all(
            &Values::Short(vec![1, 2]),
            &Values::Double(vec![1.0, 2.5]),
            &Rules::default(),
        );
        assert_eq!(got, [(1, "2".into(), "2.5".into(), Some(0.5))]);
    }

    #[test]
    fn times_in_other_units_compare_as_instants() {
        let ua = TimeUnits::parse(b"days since 2001-01-01", None).unwrap();
        let ub = TimeUnits::parse(b"hours since 2001-01-02", None).unwrap();
        let rules = Rules {
            times: Some((ua, ub)),
            ..Rules::default()
        };
        let a = Values::Double(vec![1.0, 2.0]);
        let b = Values::Double(vec![0.0, 25.0]);
        let got = all(&a, &b, &rules);
        assert_eq!(got, [(1, "2".into(), "25".into(), Some(3600.0))]);
    }
}
