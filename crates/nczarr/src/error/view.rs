//! Why a variable cannot be drawn ([`crate::view`]): the variable, the dimension or
//! the option that does not fit. Here rather than in `view/`, which `error.rs` may not
//! import (it is a lower layer); `view` re-exports them.

/// Why the limits of a colour scale cannot be chosen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NormError {
    /// Nothing to scale: every value is masked.
    #[error("every value of the slice is missing (fill, missing_value or outside valid_range)")]
    AllMissing,
    /// `--log` with no positive value, or a limit `<= 0`.
    #[error("a logarithmic scale needs positive values and limits")]
    LogNotPositive,
    /// `--range` with min >= max or a limit that is not finite.
    #[error("--range {0},{1}: not MIN,MAX with MIN < MAX")]
    BadRange(f64, f64),
}

/// Why a slice of a variable cannot be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// No variable of that name.
    #[error("no variable '{name}' (those that can be drawn: {drawable})")]
    NoVariable {
        /// The name as given.
        name: String,
        /// The variables of two or more numeric dimensions, comma-separated (or
        /// "none").
        drawable: String,
    },
    /// A picture needs two dimensions.
    #[error("variable '{var}' has {rank} dimension(s): a picture needs at least two")]
    TooFewDims {
        /// The variable.
        var: String,
        /// Its number of dimensions.
        rank: usize,
    },
    /// Text, strings or a user-defined type.
    #[error("variable '{var}' is of type {ty}: only numbers can be drawn")]
    NotNumeric {
        /// The variable.
        var: String,
        /// Its type, as CDL names it.
        ty: String,
    },
    /// `--x`/`--y` names a dimension the variable does not have.
    #[error("--{axis} {dim}: variable '{var}' has no dimension '{dim}' (it has {has})")]
    NoDimension {
        /// `x` or `y`.
        axis: &'static str,
        /// The dimension as named.
        dim: String,
        /// The variable.
        var: String,
        /// Its dimensions, comma-separated.
        has: String,
    },
    /// `--x` and `--y` name the same dimension.
    #[error("--x and --y both name dimension '{0}'")]
    SameDimension(String),
    /// An axis with no cells (a dimension of length 0).
    #[error("variable '{var}': dimension '{dim}' has length 0, nothing to draw")]
    Empty {
        /// The variable.
        var: String,
        /// The empty dimension.
        dim: String,
    },
    /// The scale cannot be chosen.
    #[error("variable '{var}': {error}")]
    Scale {
        /// The variable.
        var: String,
        /// Why.
        error: NormError,
    },
}
