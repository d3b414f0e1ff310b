//! `--dim DIM,MIN[,MAX[,STRIDE]]` as NCO's `-d` reads it: what the user asked for, not
//! yet looked up in a dataset.

use std::str::FromStr;

use crate::error::DimSpecError;

/// One end of a range.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// Left empty: the start (as MIN) or the end (as MAX).
    Open,
    /// A 0-based index; a negative one counts from the end (-1 is the last).
    Index(i64),
    /// A coordinate value (written with a decimal point or an exponent).
    Value(f64),
    /// A date on a CF time coordinate, in the variable's calendar.
    Date(String),
}

/// One `--dim` option.
#[derive(Debug, Clone, PartialEq)]
pub struct DimSpec {
    /// The dimension: a plain name (in any group) or a path (`/g/time`).
    pub dim: String,
    /// MIN.
    pub min: Bound,
    /// MAX; `None` when MIN stands alone (one index, or the nearest coordinate value).
    pub max: Option<Bound>,
    /// Every STRIDE-th index (at least 1).
    pub stride: u64,
    /// The option as given, for messages.
    pub text: String,
}

impl FromStr for DimSpec {
    type Err = DimSpecError;

    fn from_str(s: &str) -> Result<DimSpec, DimSpecError> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let dim = parts[0];
        if dim.is_empty() || parts.len() < 2 || parts.len() > 4 {
            return Err(DimSpecError::Form {
                spec: s.to_string(),
            });
        }
        let bound = |t: &str| {
            bound(t).ok_or_else(|| DimSpecError::Bound {
                spec: s.to_string(),
                bound: t.to_string(),
            })
        };
        let stride = match parts.get(3).copied() {
            None | Some("") => 1,
            Some(t) => match t.parse::<u64>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(DimSpecError::Stride {
                        spec: s.to_string(),
                        stride: t.to_string(),
                    })
                }
            },
        };
        Ok(DimSpec {
            dim: dim.to_string(),
            min: bound(parts[1])?,
            max: parts.get(2).map(|t| bound(t)).transpose()?,
            stride,
            text: s.to_string(),
        })
    }
}

/// One bound as written: empty, an integer index, a date, or a coordinate value;
/// `None` when it is none of them.
fn bound(t: &str) -> Option<Bound> {
    if t.is_empty() {
        return Some(Bound::Open);
    }
    if looks_like_date(t) {
        return Some(Bound::Date(t.to_string()));
    }
    if let Ok(i) = t.parse::<i64>() {
        return Some(Bound::Index(i));
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Some(Bound::Value(v)),
        _ => None,
    }
}

/// A date (`2020-01-01`, `2020-01-01 12:00`, `2020-01-01T12`): a `-` right after a
/// digit, which no number has (an exponent's `-` follows `e`).
fn looks_like_date(t: &str) -> bool {
    let b = t.as_bytes();
    (1..b.len()).any(|i| b[i] == b'-' && b[i - 1].is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> DimSpec {
        s.parse().unwrap()
    }

    #[test]
    fn nco_forms() {
        let d = spec("time,0,9");
        assert_eq!(
            (d.min, d.max, d.stride),
            (Bound::Index(0), Some(Bound::Index(9)), 1)
        );
        let d = spec("lat,30.,60.");
        assert_eq!(
            (d.min, d.max),
            (Bound::Value(30.0), Some(Bound::Value(60.0)))
        );
        assert_eq!(spec("time,5").max, None);
        assert_eq!(spec("time,,9").min, Bound::Open);
        assert_eq!(spec("time,100,").max, Some(Bound::Open));
        assert_eq!(spec("time,-1").min, Bound::Index(-1));
        assert_eq!(spec("x,1e3").min, Bound::Value(1000.0));
        assert_eq!(spec("x,-1.5e-3").min, Bound::Value(-0.0015));
        assert_eq!(spec("time,0,,2").stride, 2);
        assert_eq!(
            spec("time,2020-01-01,2020-01-31 12:00").max,
            Some(Bound::Date("2020-01-31 12:00".into()))
        );
        assert_eq!(
            spec("/g/time,2020-01-01T12").min,
            Bound::Date("2020-01-01T12".into())
        );
    }

    #[test]
    fn bad_forms_say_what() {
        for (s, says) in [
            ("time", "DIM,MIN"),
            (",1", "DIM,MIN"),
            ("time,a", "'a' is not an index"),
            ("time,0,9,0", "stride '0'"),
            ("time,0,1,2,3", "DIM,MIN"),
        ] {
            let e = s.parse::<DimSpec>().unwrap_err().to_string();
            assert!(e.contains(says), "{s}: {e}");
        }
    }
}
