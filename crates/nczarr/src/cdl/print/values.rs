//! One value as ncdump prints it: the format a variable's values take (default
//! digits, `C_format`, dates with `-t`), fill values (`_`), and slabs of values
//! formatted in parallel.

use std::fmt::Write as _;

use rayon::prelude::*;

use super::cformat::CFormat;
use super::dates;
use super::escape;
use super::number;
use super::PrintOptions;
use crate::cftime::TimeUnits;
use crate::model::{NcType, Values, Var};

/// How one value becomes text.
#[derive(Debug, Clone)]
pub(super) enum ValueFormat {
    Default {
        float_digits: usize,
        double_digits: usize,
    },
    C(CFormat),
    /// `-t`/`-i`: dates, with this separator before the time of day.
    Time(TimeUnits, char),
}

/// The fill value ncdump compares against (`get_fill_info`): the `_FillValue`
/// attribute if it has the variable's type and one value, else the type's default,
/// except for byte and ubyte which get none.
pub(super) fn fill_for(var: &Var) -> Option<Values> {
    if let Some(a) = var.attr("_FillValue") {
        if a.values.nc_type() == var.nc_type && a.values.len() == 1 {
            return Some(a.values.clone());
        }
    }
    match var.nc_type {
        NcType::Byte | NcType::UByte => None,
        t => Some(Values::default_fill(t)),
    }
}

pub(super) fn format_for(var: &Var, opts: &PrintOptions, time: Option<&TimeUnits>) -> ValueFormat {
    if let (Some(units), Some(sep)) = (time, opts.times) {
        return ValueFormat::Time(units.clone(), sep);
    }
    let default = ValueFormat::Default {
        float_digits: opts.float_digits.unwrap_or(7),
        double_digits: opts.double_digits.unwrap_or(15),
    };
    if (var.nc_type == NcType::Float && opts.float_digits.is_some())
        || (var.nc_type == NcType::Double && opts.double_digits.is_some())
    {
        return default;
    }
    match var.attr("C_format").map(|a| &a.values) {
        Some(Values::Char(text))
            if !text.is_empty() && text.len() < 100 && var.nc_type.is_numeric() =>
        {
            std::str::from_utf8(text)
                .ok()
                .and_then(CFormat::parse)
                .map_or(default, ValueFormat::C)
        }
        _ => default,
    }
}

/// ncdump's `float_val_equals`: `b` is the fill value `a`.
#[inline]
pub(super) fn float_is_fill(a: f32, b: f32) -> bool {
    if (a > 0.0) != (b > 0.0) {
        return false;
    }
    if a.is_finite() && b.is_finite() {
        return (a - b).abs() <= (f32::EPSILON * b).abs();
    }
    (a.is_nan() && b.is_nan()) || (a.is_infinite() && b.is_infinite())
}

/// ncdump's `double_val_equals`: `b` is the fill value `a`.
#[inline]
pub(super) fn double_is_fill(a: f64, b: f64) -> bool {
    if (a > 0.0) != (b > 0.0) {
        return false;
    }
    if a.is_finite() && b.is_finite() {
        return (a - b).abs() <= (f64::EPSILON * b).abs();
    }
    (a.is_nan() && b.is_nan()) || (a.is_infinite() && b.is_infinite())
}

/// ncdump's `*_val_equals` against the fill value.
pub(super) fn is_fill(fill: &Values, values: &Values, i: usize) -> bool {
    match (fill, values) {
        (Values::Float(f), Values::Float(v)) => float_is_fill(f[0], v[i]),
        (Values::Double(f), Values::Double(v)) => double_is_fill(f[0], v[i]),
        (Values::String(f), Values::String(v)) => {
            escape::same_c_string(f.value(0).map(escape::c_string), v.value(i))
        }
        (f, v) => f.get_i128(0).is_some() && f.get_i128(0) == v.get_i128(i),
    }
}

/// Value `i` written into `out` (at least [`NUM_ROOM`] bytes) for the common case: a
/// number that is not the fill value, printed in ncdump's default format. The length
/// written, or `None` for everything else.
pub(super) fn number_text(
    out: &mut [u8],
    values: &Values,
    i: usize,
    fmt: &ValueFormat,
    fill: Option<&Values>,
) -> Option<usize> {
    let ValueFormat::Default {
        float_digits,
        double_digits,
    } = fmt
    else {
        return None;
    };
    // Text is never a number: its fill test is the caller's, made once.
    if matches!(values, Values::String(_) | Values::Char(_))
        || fill.is_some_and(|f| is_fill(f, values, i))
    {
        return None;
    }
    let mut int = |v: i64| Some(number::signed_into(out, v));
    match values {
        Values::Float(v) if v[i].is_finite() => {
            number::format_g_into(out, f64::from(v[i]), *float_digits)
        }
        Values::Double(v) if v[i].is_finite() => number::format_g_into(out, v[i], *double_digits),
        Values::Byte(v) => int(v[i].into()),
        Values::UByte(v) => int(v[i].into()),
        Values::Short(v) => int(v[i].into()),
        Values::UShort(v) => int(v[i].into()),
        Values::Int(v) => int(v[i].into()),
        Values::UInt(v) => int(v[i].into()),
        Values::Int64(v) => int(v[i]),
        Values::UInt64(v) => Some(number::unsigned_into(out, v[i])),
        _ => None,
    }
}

/// Append value `i` (or `_` for fill) to `out`.
pub(super) fn format_value(
    out: &mut Vec<u8>,
    values: &Values,
    i: usize,
    fmt: &ValueFormat,
    fill: Option<&Values>,
    scratch: &mut String,
) {
    let at = number::make_room(out);
    if let Some(n) = number_text(&mut out[at..], values, i, fmt, fill) {
        out.truncate(at + n);
        return;
    }
    out.truncate(at);
    if fill.is_some_and(|f| is_fill(f, values, i)) {
        out.push(b'_');
        return;
    }
    scratch.clear();
    match (values, fmt) {
        (_, ValueFormat::Time(units, sep)) => {
            dates::date_text(out, units, values.get_f64(i), *sep);
            return;
        }
        (Values::String(v), _) => {
            escape::string_value_from(out, v.value_and_after(i));
            return;
        }
        (Values::Float(v), _) if !v[i].is_finite() => {
            let f = v[i];
            scratch.push_str(if f.is_nan() {
                "NaNf"
            } else if f < 0.0 {
                "-Infinityf"
            } else {
                "Infinityf"
            });
        }
        (Values::Double(v), _) if !v[i].is_finite() => {
            let f = v[i];
            scratch.push_str(if f.is_nan() {
                "NaN"
            } else if f < 0.0 {
                "-Infinity"
            } else {
                "Infinity"
            });
        }
        (_, ValueFormat::C(c)) => c.format(scratch, values.get_i128(i), values.get_f64(i)),
        (Values::Float(v), ValueFormat::Default { float_digits, .. }) => {
            number::format_g_bytes(out, f64::from(v[i]), *float_digits);
            return;
        }
        (Values::Double(v), ValueFormat::Default { double_digits, .. }) => {
            number::format_g_bytes(out, v[i], *double_digits);
            return;
        }
        (Values::Byte(v), _) => drop(write!(scratch, "{}", v[i])),
        (Values::Char(v), _) => drop(write!(scratch, "{}", v[i] as char)),
        (Values::Short(v), _) => drop(write!(scratch, "{}", v[i])),
        (Values::Int(v), _) => drop(write!(scratch, "{}", v[i])),
        (Values::UByte(v), _) => drop(write!(scratch, "{}", v[i])),
        (Values::UShort(v), _) => drop(write!(scratch, "{}", v[i])),
        (Values::UInt(v), _) => drop(write!(scratch, "{}", v[i])),
        (Values::Int64(v), _) => drop(write!(scratch, "{}", v[i])),
        (Values::UInt64(v), _) => drop(write!(scratch, "{}", v[i])),
    }
    out.extend_from_slice(scratch.as_bytes());
}

/// Formatted values of one slab: all texts back to back, and where each ends.
pub(super) struct Texts {
    pub(super) text: Vec<u8>,
    pub(super) ends: Vec<usize>,
}

pub(super) fn format_slab(values: &Values, fmt: &ValueFormat, fill: Option<&Values>) -> Vec<Texts> {
    const PIECE: usize = 1 << 14;
    let n = values.len();
    let pieces: Vec<std::ops::Range<usize>> = (0..n)
        .step_by(PIECE)
        .map(|s| s..(s + PIECE).min(n))
        .collect();
    pieces
        .into_par_iter()
        .map(|r| {
            let mut t = Texts {
                text: Vec::with_capacity(r.len() * 10),
                ends: Vec::with_capacity(r.len()),
            };
            let mut scratch = String::new();
            for i in r {
                format_value(&mut t.text, values, i, fmt, fill, &mut scratch);
                t.ends.push(t.text.len());
            }
            t
        })
        .collect()
}

/// A float as ncdump prints data: `%g` of finite values, `NaN`, `Infinity`,
/// `-Infinity` (the number formatter takes finite values only).
fn float_text(x: f64, digits: usize) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-Infinity" } else { "Infinity" }.into();
    }
    let mut b = Vec::new();
    number::format_g_bytes(&mut b, x, digits);
    String::from_utf8_lossy(&b).into_owned()
}

/// One value as ncdump prints data at its default precision (zmapdump shows chunks so).
pub fn value_text(values: &Values, i: usize) -> String {
    let mut s = String::new();
    match values {
        Values::Float(v) => s = float_text(f64::from(v[i]), 7),
        Values::Double(v) => s = float_text(v[i], 15),
        Values::String(v) => {
            let mut b = Vec::new();
            escape::string_value(&mut b, v.value(i));
            s = String::from_utf8_lossy(&b).into_owned();
        }
        Values::Char(v) => {
            let mut b = Vec::new();
            escape::char_row(&mut b, &v[i..=i]);
            s = String::from_utf8_lossy(&b).into_owned();
        }
        other => {
            if let Some(x) = other.get_i128(i) {
                s = x.to_string();
            }
        }
    }
    s
}
