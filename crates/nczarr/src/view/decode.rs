//! A variable's stored values as the numbers a reader shows: CF's masking and packing,
//! decided once from the attributes, then applied band by band.
//!
//! The rules are netCDF4-python's (`set_auto_maskandscale`), which xarray's decoding
//! agrees with where both apply: the tests for missing data are made on the *stored*
//! values (`_FillValue`, every `missing_value`, `valid_min`/`valid_max`/`valid_range`,
//! and without a `_FillValue` the type's default fill except for bytes), then
//! `scale_factor` and `add_offset` unpack what is left. `_Unsigned = "true"` reads
//! signed integers as unsigned, as both do.

use crate::model::{Attr, NcType, Values, Var};

/// How a variable's stored values become shown values. NaN stands for "masked".
#[derive(Debug, Clone, PartialEq)]
pub struct CfDecode {
    /// Stored values equal to one of these are masked.
    missing: Vec<f64>,
    /// Stored values below this are masked.
    valid_min: Option<f64>,
    /// Stored values above this are masked.
    valid_max: Option<f64>,
    scale: f64,
    offset: f64,
    /// Signed integers read as unsigned (`_Unsigned = "true"`).
    unsigned: bool,
}

impl CfDecode {
    /// The decoding the attributes of `var` ask for.
    pub fn of_var(var: &Var) -> CfDecode {
        let unsigned = var.attr("_Unsigned").is_some_and(|a| match &a.values {
            Values::Char(t) => t.eq_ignore_ascii_case(b"true"),
            _ => false,
        }) && matches!(
            var.nc_type,
            NcType::Byte | NcType::Short | NcType::Int | NcType::Int64
        );
        let as_stored = |a: &Attr| -> Vec<f64> {
            (0..a.values.len())
                .map(|i| reinterpret(a.values.get_f64(i), var.nc_type, unsigned))
                .filter(|v| !v.is_nan())
                .collect()
        };
        let mut missing = Vec::new();
        match var.attr("_FillValue") {
            Some(a) => missing.extend(as_stored(a)),
            None if !matches!(var.nc_type, NcType::Byte | NcType::UByte | NcType::Char) => {
                let fill = Values::default_fill(var.nc_type);
                if !fill.is_empty() {
                    missing.push(fill.get_f64(0));
                }
            }
            None => {}
        }
        if let Some(a) = var.attr("missing_value") {
            if a.values.nc_type().is_numeric() {
                missing.extend(as_stored(a));
            }
        }
        let first = |name: &str| {
            var.attr(name)
                .filter(|a| a.values.nc_type().is_numeric() && !a.values.is_empty())
                .map(&as_stored)
        };
        let mut valid_min = first("valid_min").and_then(|v| v.first().copied());
        let mut valid_max = first("valid_max").and_then(|v| v.first().copied());
        if let Some(range) = first("valid_range").filter(|r| r.len() == 2) {
            valid_min = Some(range[0]);
            valid_max = Some(range[1]);
        }
        let number = |name: &str, default: f64| {
            var.attr(name)
                .filter(|a| a.values.nc_type().is_numeric() && !a.values.is_empty())
                .map_or(default, |a| a.values.get_f64(0))
        };
        CfDecode {
            missing,
            valid_min,
            valid_max,
            scale: number("scale_factor", 1.0),
            offset: number("add_offset", 0.0),
            unsigned,
        }
    }

    /// Whether values are unpacked (`scale_factor` or `add_offset` other than 1 and 0).
    pub fn is_packed(&self) -> bool {
        self.scale != 1.0 || self.offset != 0.0
    }

    /// The shown value of one stored value: NaN when masked.
    pub fn value(&self, stored: f64, nc_type: NcType) -> f64 {
        let v = reinterpret(stored, nc_type, self.unsigned);
        if v.is_nan() || self.missing.contains(&v) {
            return f64::NAN;
        }
        if self.valid_min.is_some_and(|m| v < m) || self.valid_max.is_some_and(|m| v > m) {
            return f64::NAN;
        }
        v * self.scale + self.offset
    }

    /// Every value of `stored`, shown, appended to `out`.
    pub fn extend(&self, stored: &Values, out: &mut Vec<f64>) {
        let t = stored.nc_type();
        out.reserve(stored.len());
        out.extend((0..stored.len()).map(|i| self.value(stored.get_f64(i), t)));
    }
}

/// A signed integer of type `t` read as unsigned when `unsigned` says so.
fn reinterpret(v: f64, t: NcType, unsigned: bool) -> f64 {
    if !unsigned || v >= 0.0 {
        return v;
    }
    let bits = match t {
        NcType::Byte => 8,
        NcType::Short => 16,
        NcType::Int => 32,
        NcType::Int64 => 64,
        _ => return v,
    };
    v + 2f64.powi(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Attr;

    fn var(t: NcType, attrs: Vec<Attr>) -> Var {
        Var {
            name: "v".into(),
            nc_type: t,
            user_type: None,
            dims: Vec::new(),
            attrs,
            notes: Vec::new(),
        }
    }

    #[test]
    fn masks_on_stored_values_then_unpacks() {
        let v = var(
            NcType::Short,
            vec![
                Attr::new("_FillValue", Values::Short(vec![-999])),
                Attr::new("missing_value", Values::Short(vec![-1, -2])),
                Attr::new("valid_range", Values::Short(vec![-100, 100])),
                Attr::new("scale_factor", Values::Float(vec![0.5])),
                Attr::new("add_offset", Values::Float(vec![10.0])),
            ],
        );
        let d = CfDecode::of_var(&v);
        let mut out = Vec::new();
        d.extend(
            &Values::Short(vec![-999, -1, -2, -101, 101, 4, 100]),
            &mut out,
        );
        assert!(out[..5].iter().all(|x| x.is_nan()));
        assert_eq!(&out[5..], &[12.0, 60.0]);
        assert!(d.is_packed());
    }

    #[test]
    fn default_fill_without_fill_value_but_not_for_bytes() {
        let f = CfDecode::of_var(&var(NcType::Float, vec![]));
        assert!(f.value(f64::from(9.969_21e36_f32), NcType::Float).is_nan());
        assert!(f.value(f64::NAN, NcType::Float).is_nan());
        let b = CfDecode::of_var(&var(NcType::Byte, vec![]));
        assert_eq!(b.value(-127.0, NcType::Byte), -127.0);
    }

    #[test]
    fn unsigned_bytes() {
        let v = var(
            NcType::Byte,
            vec![
                Attr::new("_Unsigned", Values::text("true")),
                Attr::new("_FillValue", Values::Byte(vec![-1])),
            ],
        );
        let d = CfDecode::of_var(&v);
        assert_eq!(d.value(-2.0, NcType::Byte), 254.0);
        assert!(d.value(-1.0, NcType::Byte).is_nan());
    }
}
