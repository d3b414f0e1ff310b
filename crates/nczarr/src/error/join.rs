//! Why inputs cannot be joined along a dimension ([`crate::concat::Concat`]): which
//! inputs, which dimension or variable, which values. Here rather than in `concat/`,
//! which `error.rs` may not import (it is a lower layer); `concat` re-exports it.
//! Each message is the one line the tools print, naming the inputs first.

use crate::cftime::{Calendar, CompTime, UnitsError};
use crate::model::{NcType, VarPath};

/// Why inputs cannot be joined, or the joined dataset cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JoinError {
    /// No input was given.
    #[error("no input to join")]
    NoInput,
    /// The dimension asked for (`--concat DIM`) is not in the first input.
    #[error("{input}: no dimension '{dim}' to join along")]
    NoSuchDim {
        /// The first input.
        input: String,
        /// The dimension as given (a name or a path).
        dim: String,
    },
    /// No dimension was asked for and no input has an unlimited one.
    #[error("{input}: no unlimited dimension to join along: give --concat DIM")]
    NoRecordDim {
        /// The first input.
        input: String,
    },
    /// Two inputs differ in structure (apart from the joined dimension's length).
    #[error("{first} and {other}: {difference}")]
    Structure {
        /// The first input.
        first: String,
        /// The input that differs from it.
        other: String,
        /// The first difference found.
        difference: StructureDifference,
    },
    /// A variable without the joined dimension has other values in another input.
    #[error("{first} and {other}: variable '{var}' does not have the dimension '{dim}' and its values differ (--check first trusts the first input)")]
    ValuesDiffer {
        /// The first input.
        first: String,
        /// The input whose values differ.
        other: String,
        /// The variable.
        var: VarPath,
        /// The joined dimension's name.
        dim: String,
    },
    /// `--sort` was asked for and an input has no coordinate variable to sort by.
    #[error("{input}: --sort needs the coordinate variable '{coord}'")]
    SortNeedsCoordinate {
        /// The input.
        input: String,
        /// The coordinate variable it lacks.
        coord: VarPath,
    },
    /// The joined dimension's coordinate is in calendars that do not agree.
    #[error("{first} and {other}: coordinate '{dim}' is in the {} and the {} calendar", .first_calendar.name(), .other_calendar.name())]
    Calendars {
        /// The first input.
        first: String,
        /// The input in another calendar.
        other: String,
        /// The joined dimension's name.
        dim: String,
        /// The first input's calendar.
        first_calendar: Calendar,
        /// The other input's.
        other_calendar: Calendar,
    },
    /// The standard and the proleptic Gregorian calendar mixed, with a date before
    /// 1582-10-15, where they differ.
    #[error("{first} and {other}: coordinate '{dim}' is in the standard and the proleptic_gregorian calendar, which differ before 1582-10-15 ({}-{:02}-{:02} is in {other})", .date.year, .date.month, .date.day)]
    BeforeGregorian {
        /// The first input.
        first: String,
        /// The input holding the early date.
        other: String,
        /// The joined dimension's name.
        dim: String,
        /// The first such date.
        date: CompTime,
    },
    /// The coordinate's time units in an input cannot be turned into the first's.
    #[error("{first} and {other}: coordinate '{dim}' cannot be rebased: {source}")]
    Rebase {
        /// The first input.
        first: String,
        /// The input whose units cannot be rebased.
        other: String,
        /// The joined dimension's name.
        dim: String,
        /// Which units, and why.
        source: UnitsError,
    },
    /// A time of an input cannot be moved into the first input's units.
    #[error("{input}: variable '{var}': {source}")]
    RebaseValue {
        /// The input.
        input: String,
        /// The variable holding the time.
        var: VarPath,
        /// Which units, and why.
        source: UnitsError,
    },
    /// Times moved into the first input's units no longer fit the variable's type.
    #[error("{input}: variable '{var}': its times in the first input's units do not fit its type {nc_type}")]
    RebasedTooWide {
        /// The input.
        input: String,
        /// The variable.
        var: VarPath,
        /// Its type.
        nc_type: NcType,
    },
    /// The joined dimension's coordinate does not run one way within an input.
    #[error("{input}: coordinate '{dim}' is not monotonic ({value} then {next})")]
    NotMonotonic {
        /// The input.
        input: String,
        /// The joined dimension's name.
        dim: String,
        /// A value...
        value: f64,
        /// ...and the next, out of the coordinate's direction.
        next: f64,
    },
    /// Where two inputs meet, the coordinate goes back or repeats.
    #[error("{previous} and {next}: coordinate '{dim}' overlaps or is out of order ({last} then {first}){hint}")]
    OutOfOrder {
        /// The input before.
        previous: String,
        /// The input after it.
        next: String,
        /// The joined dimension's name.
        dim: String,
        /// The last value of the input before.
        last: f64,
        /// The first value of the input after.
        first: f64,
        /// The way out the message suggests.
        hint: OrderHint,
    },
    /// Where two inputs meet, their cells (from the coordinate's bounds) leave a gap.
    #[error("{previous} and {next}: a gap in coordinate '{dim}' (its cells end at {end} in one and start at {start} in the next); --allow-gaps joins them anyway")]
    CellGap {
        /// The input before.
        previous: String,
        /// The input after it.
        next: String,
        /// The joined dimension's name.
        dim: String,
        /// Where the cells of the input before end.
        end: f64,
        /// Where those of the input after start.
        start: f64,
    },
    /// Where two inputs meet, the coordinate jumps by more than its step.
    #[error("{previous} and {next}: a gap in coordinate '{dim}' ({last} then {first}, where the inputs step by {step}); --allow-gaps joins them anyway")]
    StepGap {
        /// The input before.
        previous: String,
        /// The input after it.
        next: String,
        /// The joined dimension's name.
        dim: String,
        /// The last value of the input before.
        last: f64,
        /// The first value of the input after.
        first: f64,
        /// The coordinate's step.
        step: f64,
    },
    /// Reading an input failed. The input's own error is kept in `error` (not as the
    /// [`std::error::Error::source`]: its message is already in this one, and a cause
    /// chain that stops here prints as it always has).
    #[error("{input}: {error}")]
    Input {
        /// The input.
        input: String,
        /// Its error.
        error: Box<crate::Error>,
    },
}

/// How two inputs differ in structure, the joined dimension's length aside. Paths
/// are full (`/g/name`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StructureDifference {
    /// A dimension only the first input has.
    #[error("dimension '{0}' is only in the first")]
    DimOnlyInFirst(String),
    /// A dimension only the other input has.
    #[error("dimension '{0}' is only in the second")]
    DimOnlyInSecond(String),
    /// A dimension of another length (or only one of them unlimited).
    #[error("dimension '{dim}' is {first_len} in one and {other_len} in the other")]
    DimLength {
        /// The dimension.
        dim: String,
        /// Its length in the first input.
        first_len: u64,
        /// Its length in the other.
        other_len: u64,
    },
    /// A variable only the first input has.
    #[error("variable '{0}' is only in the first")]
    VarOnlyInFirst(String),
    /// A variable only the other input has.
    #[error("variable '{0}' is only in the second")]
    VarOnlyInSecond(String),
    /// A variable of another type (or another user-defined type).
    #[error("variable '{var}' is of type {first_type} in one and {other_type} in the other")]
    VarType {
        /// The variable.
        var: String,
        /// Its type in the first input.
        first_type: NcType,
        /// Its type in the other.
        other_type: NcType,
    },
    /// A variable with other dimensions.
    #[error("variable '{0}' has other dimensions")]
    VarDims(String),
    /// A group only the first input has.
    #[error("group '{0}' is only in the first")]
    GroupOnlyInFirst(String),
    /// A group only the other input has.
    #[error("group '{0}' is only in the second")]
    GroupOnlyInSecond(String),
}

/// What a message about inputs out of order suggests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OrderHint {
    /// Give them in order, or `--sort`.
    GiveInOrder,
    /// They were sorted already: nothing to suggest.
    Sorted,
    /// The first is a dataset being grown: `--append` adds at its end.
    Appending,
}

impl std::fmt::Display for OrderHint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OrderHint::GiveInOrder => "; give the inputs in order (or --sort)",
            OrderHint::Sorted => "",
            OrderHint::Appending => " (--append adds at the end)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> VarPath {
        VarPath::new(&[], name)
    }

    /// Each message as the tools printed it before the errors were typed (issue 62).
    #[test]
    fn messages_are_the_lines_the_tools_print() {
        let (a, b) = ("a.nc".to_string(), "b.nc".to_string());
        let time = "time".to_string();
        let date = CompTime {
            year: 1500,
            month: 3,
            day: 7,
            hour: 0.0,
        };
        let units = UnitsError {
            units: "months since 2000-01-01".into(),
            calendar: "standard",
        };
        let cases: Vec<(JoinError, String)> = vec![
            (JoinError::NoInput, "no input to join".into()),
            (
                JoinError::NoSuchDim { input: a.clone(), dim: "x".into() },
                "a.nc: no dimension 'x' to join along".into(),
            ),
            (
                JoinError::NoRecordDim { input: a.clone() },
                "a.nc: no unlimited dimension to join along: give --concat DIM".into(),
            ),
            (
                JoinError::Structure {
                    first: a.clone(),
                    other: b.clone(),
                    difference: StructureDifference::DimLength {
                        dim: "/lat".into(),
                        first_len: 3,
                        other_len: 4,
                    },
                },
                "a.nc and b.nc: dimension '/lat' is 3 in one and 4 in the other".into(),
            ),
            (
                JoinError::ValuesDiffer {
                    first: a.clone(),
                    other: b.clone(),
                    var: var("lat"),
                    dim: time.clone(),
                },
                "a.nc and b.nc: variable '/lat' does not have the dimension 'time' and its values differ (--check first trusts the first input)".into(),
            ),
            (
                JoinError::SortNeedsCoordinate { input: b.clone(), coord: var("time") },
                "b.nc: --sort needs the coordinate variable '/time'".into(),
            ),
            (
                JoinError::Calendars {
                    first: a.clone(),
                    other: b.clone(),
                    dim: time.clone(),
                    first_calendar: Calendar::NoLeap,
                    other_calendar: Calendar::Day360,
                },
                "a.nc and b.nc: coordinate 'time' is in the noleap and the 360_day calendar".into(),
            ),
            (
                JoinError::BeforeGregorian {
                    first: a.clone(),
                    other: b.clone(),
                    dim: time.clone(),
                    date,
                },
                "a.nc and b.nc: coordinate 'time' is in the standard and the proleptic_gregorian calendar, which differ before 1582-10-15 (1500-03-07 is in b.nc)".into(),
            ),
            (
                JoinError::Rebase {
                    first: a.clone(),
                    other: b.clone(),
                    dim: time.clone(),
                    source: units.clone(),
                },
                format!("a.nc and b.nc: coordinate 'time' cannot be rebased: {units}"),
            ),
            (
                JoinError::RebaseValue { input: b.clone(), var: var("time"), source: units.clone() },
                format!("b.nc: variable '/time': {units}"),
            ),
            (
                JoinError::RebasedTooWide { input: b.clone(), var: var("time"), nc_type: NcType::Short },
                "b.nc: variable '/time': its times in the first input's units do not fit its type short".into(),
            ),
            (
                JoinError::NotMonotonic { input: b.clone(), dim: time.clone(), value: 2.0, next: 1.5 },
                "b.nc: coordinate 'time' is not monotonic (2 then 1.5)".into(),
            ),
            (
                JoinError::OutOfOrder {
                    previous: a.clone(),
                    next: b.clone(),
                    dim: time.clone(),
                    last: 3.0,
                    first: 1.0,
                    hint: OrderHint::GiveInOrder,
                },
                "a.nc and b.nc: coordinate 'time' overlaps or is out of order (3 then 1); give the inputs in order (or --sort)".into(),
            ),
            (
                JoinError::CellGap {
                    previous: a.clone(),
                    next: b.clone(),
                    dim: time.clone(),
                    end: 3.0,
                    start: 4.0,
                },
                "a.nc and b.nc: a gap in coordinate 'time' (its cells end at 3 in one and start at 4 in the next); --allow-gaps joins them anyway".into(),
            ),
            (
                JoinError::StepGap {
                    previous: a.clone(),
                    next: b.clone(),
                    dim: time.clone(),
                    last: 2.5,
                    first: 4.5,
                    step: 1.0,
                },
                "a.nc and b.nc: a gap in coordinate 'time' (2.5 then 4.5, where the inputs step by 1); --allow-gaps joins them anyway".into(),
            ),
            (
                JoinError::Input {
                    input: b.clone(),
                    error: Box::new(crate::Error::NoSuchVar { var: "/x".into() }),
                },
                "b.nc: no variable '/x' in the dataset".into(),
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
            assert_eq!(crate::Error::from(e).to_string(), want);
        }
    }

    #[test]
    fn structure_differences_say_which_input() {
        use StructureDifference as D;
        for (d, want) in [
            (
                D::DimOnlyInFirst("/x".into()),
                "dimension '/x' is only in the first",
            ),
            (
                D::DimOnlyInSecond("/x".into()),
                "dimension '/x' is only in the second",
            ),
            (
                D::VarOnlyInFirst("/v".into()),
                "variable '/v' is only in the first",
            ),
            (
                D::VarOnlyInSecond("/v".into()),
                "variable '/v' is only in the second",
            ),
            (
                D::VarDims("/v".into()),
                "variable '/v' has other dimensions",
            ),
            (
                D::GroupOnlyInFirst("/g".into()),
                "group '/g' is only in the first",
            ),
            (
                D::GroupOnlyInSecond("/g".into()),
                "group '/g' is only in the second",
            ),
            (
                D::VarType {
                    var: "/v".into(),
                    first_type: NcType::Float,
                    other_type: NcType::Double,
                },
                "variable '/v' is of type float in one and double in the other",
            ),
        ] {
            assert_eq!(d.to_string(), want);
        }
    }

    #[test]
    fn order_hints() {
        assert_eq!(OrderHint::Sorted.to_string(), "");
        assert_eq!(
            OrderHint::Appending.to_string(),
            " (--append adds at the end)"
        );
    }

    /// A joined input's read error keeps the input's own error for a caller to act on,
    /// and the cause chain stops at the join's message, as it did.
    #[test]
    fn an_inputs_error_is_kept() {
        let e = JoinError::Input {
            input: "b.nc".into(),
            error: Box::new(crate::Error::NoSuchVar { var: "/x".into() }),
        };
        assert!(std::error::Error::source(&e).is_none());
        let JoinError::Input { error, .. } = e else {
            unreachable!()
        };
        assert!(matches!(*error, crate::Error::NoSuchVar { .. }));
    }
}
