//! From shown values to positions on a colour scale (0 to 1), as matplotlib's
//! `Normalize` and `LogNorm` do, with limits chosen as xarray's `.plot()` chooses them.

use std::fmt;

pub use crate::error::NormError;

/// A value's place on the colour scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Norm {
    /// `(v - min) / (max - min)`; 0 when `min == max` (matplotlib's `Normalize`).
    Linear {
        /// The value at 0.
        min: f64,
        /// The value at 1.
        max: f64,
    },
    /// `log10(v)` placed between `log10(min)` and `log10(max)`; values `<= 0` are not
    /// on the scale (matplotlib's `LogNorm`).
    Log {
        /// The value at 0 (positive).
        min: f64,
        /// The value at 1.
        max: f64,
    },
}

/// How limits are chosen (the options `--range`, `--robust`, `--log`, `--center`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Limits {
    /// Given limits, used as they are.
    pub range: Option<(f64, f64)>,
    /// The 2nd and 98th percentiles instead of the extremes (xarray's `robust=True`).
    pub robust: bool,
    /// A logarithmic scale.
    pub log: bool,
}

/// What the chosen scale is: the norm, and whether it is diverging (centred on 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// From values to 0..1.
    pub norm: Norm,
    /// The data straddle 0 and the limits were made symmetric about it, as xarray does
    /// (then a diverging colour map is the default).
    pub diverging: bool,
}

impl Norm {
    /// The position of `v` on the scale: NaN when `v` is masked (NaN) or not on a
    /// logarithmic scale; below 0 or above 1 outside the limits.
    pub fn apply(&self, v: f64) -> f64 {
        match *self {
            Norm::Linear { min, max } => {
                if v.is_nan() {
                    f64::NAN
                } else if max == min {
                    0.0
                } else {
                    (v - min) / (max - min)
                }
            }
            Norm::Log { min, max } => {
                if v.is_nan() || v <= 0.0 {
                    f64::NAN
                } else if max == min {
                    0.0
                } else {
                    (v.log10() - min.log10()) / (max.log10() - min.log10())
                }
            }
        }
    }

    /// The value at position `t` of the scale (the inverse of [`Norm::apply`]).
    pub fn value_at(&self, t: f64) -> f64 {
        match *self {
            Norm::Linear { min, max } => min + t * (max - min),
            Norm::Log { min, max } => 10f64.powf(min.log10() + t * (max.log10() - min.log10())),
        }
    }

    /// The limits.
    pub fn limits(&self) -> (f64, f64) {
        match *self {
            Norm::Linear { min, max } | Norm::Log { min, max } => (min, max),
        }
    }
}

impl fmt::Display for Norm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (min, max) = self.limits();
        let kind = match self {
            Norm::Linear { .. } => "linear",
            Norm::Log { .. } => "log",
        };
        write!(
            f,
            "{kind} {} to {}",
            super::ticks::label(min),
            super::ticks::label(max)
        )
    }
}

/// The scale for `values` (NaN = masked) as xarray's `_determine_cmap_params` chooses
/// it: the extremes or the robust percentiles; limits made symmetric about 0 when the
/// data straddle it and no limit was given; `--log` on the positive values.
///
/// # Errors
/// [`NormError`] when every value is masked, a log scale has nothing positive, or a
/// given range is not a range.
pub fn choose(values: &[f64], limits: &Limits) -> Result<Scale, NormError> {
    let shown: Vec<f64> = values
        .iter()
        .copied()
        // Limits from finite values only, as xarray takes them: an infinite cell takes
        // an end colour, it does not stretch the scale to infinity.
        .filter(|v| v.is_finite() && (!limits.log || *v > 0.0))
        .collect();
    if let Some((min, max)) = limits.range {
        if !(min.is_finite() && max.is_finite() && min < max) {
            return Err(NormError::BadRange(min, max));
        }
        if limits.log {
            if min <= 0.0 {
                return Err(NormError::LogNotPositive);
            }
            return Ok(Scale {
                norm: Norm::Log { min, max },
                diverging: false,
            });
        }
        return Ok(Scale {
            norm: Norm::Linear { min, max },
            diverging: false,
        });
    }
    if shown.is_empty() {
        return Err(if limits.log && values.iter().any(|v| v.is_finite()) {
            NormError::LogNotPositive
        } else {
            NormError::AllMissing
        });
    }
    let (min, max) = if limits.robust {
        let mut sorted = shown;
        sorted.sort_by(f64::total_cmp);
        (percentile(&sorted, 2.0), percentile(&sorted, 98.0))
    } else {
        shown
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            })
    };
    let (min, max) = nonsingular(min, max);
    if limits.log {
        return Ok(Scale {
            norm: Norm::Log { min, max },
            diverging: false,
        });
    }
    if min < 0.0 && max > 0.0 {
        let m = min.abs().max(max.abs());
        return Ok(Scale {
            norm: Norm::Linear { min: -m, max: m },
            diverging: true,
        });
    }
    Ok(Scale {
        norm: Norm::Linear { min, max },
        diverging: false,
    })
}

/// Equal limits widened by 5% of their size (0.05 about 0), as matplotlib's
/// `nonsingular` widens them for xarray's `.plot()`: a constant field is drawn in the
/// middle colour.
fn nonsingular(min: f64, max: f64) -> (f64, f64) {
    if min != max {
        (min, max)
    } else if min == 0.0 {
        (-0.05, 0.05)
    } else {
        (min - 0.05 * min.abs(), max + 0.05 * max.abs())
    }
}

/// numpy's `percentile(sorted, p)` with its default (linear) interpolation.
/// `sorted` is not empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let pos = p / 100.0 * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = pos - lo as f64;
    // numpy's _lerp: a + (b - a) * t, from the other end past the middle.
    let (a, b) = (sorted[lo], sorted[hi]);
    if frac >= 0.5 {
        b - (b - a) * (1.0 - frac)
    } else {
        a + (b - a) * frac
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes_and_symmetry() {
        let s = choose(&[1.0, f64::NAN, 3.0], &Limits::default()).unwrap();
        assert_eq!(s.norm, Norm::Linear { min: 1.0, max: 3.0 });
        assert!(!s.diverging);
        assert_eq!(s.norm.apply(2.0), 0.5);
        assert!(s.norm.apply(f64::NAN).is_nan());
        let d = choose(&[-1.0, 4.0], &Limits::default()).unwrap();
        assert_eq!(
            d.norm,
            Norm::Linear {
                min: -4.0,
                max: 4.0
            }
        );
        assert!(d.diverging);
    }

    #[test]
    fn percentiles_as_numpy() {
        let v: Vec<f64> = (0..101).map(f64::from).collect();
        assert_eq!(percentile(&v, 2.0), 2.0);
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 98.0), 3.94);
        let r = choose(
            &v,
            &Limits {
                robust: true,
                ..Limits::default()
            },
        )
        .unwrap();
        assert_eq!(
            r.norm,
            Norm::Linear {
                min: 2.0,
                max: 98.0
            }
        );
    }

    #[test]
    fn log_and_refusals() {
        let l = Limits {
            log: true,
            ..Limits::default()
        };
        let s = choose(&[-1.0, 1.0, 100.0], &l).unwrap();
        assert_eq!(
            s.norm,
            Norm::Log {
                min: 1.0,
                max: 100.0
            }
        );
        assert_eq!(s.norm.apply(10.0), 0.5);
        assert!(s.norm.apply(-1.0).is_nan());
        assert!((s.norm.value_at(0.5) - 10.0).abs() < 1e-12);
        assert_eq!(choose(&[-1.0], &l), Err(NormError::LogNotPositive));
        assert_eq!(
            choose(&[f64::NAN], &Limits::default()),
            Err(NormError::AllMissing)
        );
        // Infinite values take end colours; they do not set the limits.
        let inf = choose(
            &[1.0, f64::INFINITY, 3.0, f64::NEG_INFINITY],
            &Limits::default(),
        );
        assert_eq!(inf.unwrap().norm, Norm::Linear { min: 1.0, max: 3.0 });
        // A constant field is the middle of a widened scale.
        let c = choose(&[3.5, 3.5], &Limits::default()).unwrap().norm;
        assert!((c.apply(3.5) - 0.5).abs() < 1e-12, "{c:?}");
        let equal = Limits {
            range: Some((3.0, 3.0)),
            ..Limits::default()
        };
        assert!(choose(&[1.0], &equal).is_err());
        let bad = Limits {
            range: Some((2.0, 1.0)),
            ..Limits::default()
        };
        assert_eq!(choose(&[1.0], &bad), Err(NormError::BadRange(2.0, 1.0)));
    }
}
