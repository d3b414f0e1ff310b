//! Why a `--dim` option cannot be used ([`crate::subset`]): the option as given, and
//! the dimension, index or value that does not fit. Here rather than in `subset/`,
//! which `error.rs` may not import (it is a lower layer); `subset` re-exports it.
//! Every message starts `--dim SPEC: `, naming the option.

use crate::cftime::DateError;

/// Why a `--dim` option does not parse, or does not fit the dataset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SubsetError {
    /// The option does not parse.
    #[error(transparent)]
    Spec(#[from] DimSpecError),
    /// No dimension of that name (or path) in the dataset.
    #[error("--dim {spec}: no dimension '{dim}'")]
    NoDimension {
        /// The option as given.
        spec: String,
        /// The dimension as named.
        dim: String,
    },
    /// The dimension has length 0.
    #[error("--dim {spec}: the dimension has no indices")]
    Empty {
        /// The option as given.
        spec: String,
    },
    /// An index past either end of the dimension.
    #[error("--dim {spec}: index {index} is outside the dimension's 0..{last}")]
    IndexOutside {
        /// The option as given.
        spec: String,
        /// The index (a negative one counted from the end already).
        index: i64,
        /// The dimension's last index.
        last: u64,
    },
    /// MIN is after MAX, by index.
    #[error("--dim {spec}: MIN {min} is after MAX {max}")]
    MinAfterMax {
        /// The option as given.
        spec: String,
        /// MIN, as an index.
        min: i64,
        /// MAX, as an index.
        max: i64,
    },
    /// A value or date on a dimension without a coordinate variable.
    #[error("--dim {spec}: dimension '{dim}' has no coordinate variable: give indices")]
    NoCoordinate {
        /// The option as given.
        spec: String,
        /// The dimension's name.
        dim: String,
    },
    /// A value or date on a coordinate that is not monotonic (or holds NaN).
    #[error("--dim {spec}: coordinate '{dim}' is not monotonic: give indices")]
    NotMonotonic {
        /// The option as given.
        spec: String,
        /// The dimension's name.
        dim: String,
    },
    /// A date that cannot be read in the coordinate's calendar.
    #[error("--dim {spec}: '{date}': {source}")]
    Date {
        /// The option as given.
        spec: String,
        /// The date as given.
        date: String,
        /// Why it cannot be read.
        source: DateError,
    },
    /// A date on a coordinate that is not CF time.
    #[error("--dim {spec}: '{date}' is a date and '{dim}' is not a time coordinate")]
    DateNotTime {
        /// The option as given.
        spec: String,
        /// The date as given.
        date: String,
        /// The dimension's name.
        dim: String,
    },
    /// MIN above MAX (a wrapped range) on a decreasing coordinate, which has no seam
    /// to wrap across.
    #[error("--dim {spec}: coordinate '{dim}' decreases ({first} to {last}), and a range wraps only on an increasing one: give the smaller value first ({max} to {min} is written {max_text},{min_text})")]
    WrapDecreasing {
        /// The option as given.
        spec: String,
        /// The dimension's name.
        dim: String,
        /// The coordinate's first value.
        first: f64,
        /// Its last.
        last: f64,
        /// MIN, as a coordinate value.
        min: f64,
        /// MAX, as a coordinate value.
        max: f64,
        /// MIN as written.
        min_text: String,
        /// MAX as written.
        max_text: String,
    },
    /// No coordinate value lies in the range.
    #[error("--dim {spec}: no value of coordinate '{dim}' ({lowest} to {highest}) lies in the range {min} to {max}")]
    NoValueInRange {
        /// The option as given.
        spec: String,
        /// The dimension's name.
        dim: String,
        /// The coordinate's lowest value.
        lowest: f64,
        /// Its highest.
        highest: f64,
        /// MIN, as a coordinate value.
        min: f64,
        /// MAX, as a coordinate value.
        max: f64,
    },
}

/// Why a `--dim` option does not parse (before any dataset is looked at).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DimSpecError {
    /// Not `DIM,MIN[,MAX[,STRIDE]]`.
    #[error("--dim {spec}: give DIM,MIN[,MAX[,STRIDE]] (as ncks -d)")]
    Form {
        /// The option as given.
        spec: String,
    },
    /// A bound that is neither an index, nor a value, nor a date.
    #[error("--dim {spec}: '{bound}' is not an index, a coordinate value (with a decimal point) or a date")]
    Bound {
        /// The option as given.
        spec: String,
        /// The bound.
        bound: String,
    },
    /// A stride that is not a whole number of at least 1.
    #[error("--dim {spec}: the stride '{stride}' is not a whole number >= 1")]
    Stride {
        /// The option as given.
        spec: String,
        /// The stride as given.
        stride: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each message as the tools printed it before the errors were typed (issue 62).
    #[test]
    fn messages_are_the_lines_the_tools_print() {
        let spec = || "time,0,9".to_string();
        let dim = || "time".to_string();
        let cases: Vec<(SubsetError, &str)> = vec![
            (
                DimSpecError::Form { spec: "time".into() }.into(),
                "--dim time: give DIM,MIN[,MAX[,STRIDE]] (as ncks -d)",
            ),
            (
                DimSpecError::Bound { spec: "time,a".into(), bound: "a".into() }.into(),
                "--dim time,a: 'a' is not an index, a coordinate value (with a decimal point) or a date",
            ),
            (
                DimSpecError::Stride { spec: "time,0,9,0".into(), stride: "0".into() }.into(),
                "--dim time,0,9,0: the stride '0' is not a whole number >= 1",
            ),
            (
                SubsetError::NoDimension { spec: "depth,0".into(), dim: "depth".into() },
                "--dim depth,0: no dimension 'depth'",
            ),
            (SubsetError::Empty { spec: spec() }, "--dim time,0,9: the dimension has no indices"),
            (
                SubsetError::IndexOutside { spec: spec(), index: 9, last: 4 },
                "--dim time,0,9: index 9 is outside the dimension's 0..4",
            ),
            (
                SubsetError::MinAfterMax { spec: "time,5,2".into(), min: 5, max: 2 },
                "--dim time,5,2: MIN 5 is after MAX 2",
            ),
            (
                SubsetError::NoCoordinate { spec: spec(), dim: dim() },
                "--dim time,0,9: dimension 'time' has no coordinate variable: give indices",
            ),
            (
                SubsetError::NotMonotonic { spec: spec(), dim: dim() },
                "--dim time,0,9: coordinate 'time' is not monotonic: give indices",
            ),
            (
                SubsetError::DateNotTime { spec: "x,2020-01-01".into(), date: "2020-01-01".into(), dim: "x".into() },
                "--dim x,2020-01-01: '2020-01-01' is a date and 'x' is not a time coordinate",
            ),
            (
                SubsetError::WrapDecreasing {
                    spec: "lat,7.,4.".into(),
                    dim: "lat".into(),
                    first: 9.0,
                    last: 0.5,
                    min: 7.0,
                    max: 4.0,
                    min_text: "7.".into(),
                    max_text: "4.".into(),
                },
                "--dim lat,7.,4.: coordinate 'lat' decreases (9 to 0.5), and a range wraps only on an increasing one: give the smaller value first (4 to 7 is written 4.,7.)",
            ),
            (
                SubsetError::NoValueInRange {
                    spec: "lat,20.,30.".into(),
                    dim: "lat".into(),
                    lowest: 0.5,
                    highest: 9.0,
                    min: 20.0,
                    max: 30.0,
                },
                "--dim lat,20.,30.: no value of coordinate 'lat' (0.5 to 9) lies in the range 20 to 30",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
            assert_eq!(crate::Error::from(e).to_string(), want);
        }
    }
}
