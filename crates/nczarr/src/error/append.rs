//! Why a dataset cannot be grown in place ([`crate::append::AppendTarget`]): which
//! dataset, which variable, which width or length. Here rather than in `append/`,
//! which `error.rs` may not import (it is a lower layer); `append` re-exports it.

use crate::model::VarPath;

/// Why an append is refused; nothing was written when it is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppendError {
    /// The dataset is in a place that cannot be written in place.
    #[error("{dataset}: {place}; --append grows a Zarr dataset in a directory or an object store (S3, GCS, Azure)")]
    NotInPlace {
        /// The dataset's name, as given.
        dataset: String,
        /// What kind of place it is.
        place: FixedPlace,
    },
    /// An earlier append stopped while writing its metadata, and this run was not
    /// asked to complete it (a dry run writes nothing).
    #[error("{dataset}: an earlier append stopped while writing its metadata ({record} is there); `nczcopy --append {dataset}` completes it")]
    Interrupted {
        /// The dataset's name, as given.
        dataset: String,
        /// The key of the record left ([`crate::append::JOURNAL`]).
        record: String,
    },
    /// The record of an interrupted append names a document someone else has
    /// changed since: completing it could undo their write.
    #[error("{location}: an append stopped while writing its metadata left {record}, but {doc} has changed since; check the dataset, then remove {record}")]
    ChangedSince {
        /// The dataset's store.
        location: String,
        /// The key of the record ([`crate::append::JOURNAL`]).
        record: String,
        /// The key of the document that changed.
        doc: String,
    },
    /// The join does not start with the dataset: an input's coordinate comes first.
    #[error("{input}: its coordinate comes before {dataset}'s; --append adds at the end")]
    ComesBefore {
        /// The input that comes first.
        input: String,
        /// The dataset's name.
        dataset: String,
    },
    /// The dataset lacks the dimension the join grows.
    #[error("{dataset}: no dimension '{dim}'")]
    NoDimension {
        /// The dataset's name.
        dataset: String,
        /// The dimension's name.
        dim: String,
    },
    /// A variable that grows is not stored as an array this build writes.
    #[error("{dataset}: variable '{var}' is not a Zarr array this build can write")]
    NotWritable {
        /// The dataset's name.
        dataset: String,
        /// The variable.
        var: VarPath,
    },
    /// A new string is longer than the variable's stored fixed width: strings are
    /// never cut.
    #[error("{dataset}: variable '{var}' stores strings of at most {width} {} (dtype {dtype}) and the inputs hold one of {longest}, \"{}\"; nothing was changed (strings are never cut: copy the dataset and the inputs into a new dataset, which is as wide as its widest input)", .unit.name(*.width), .text.escape_debug())]
    StringTooLong {
        /// The dataset's name.
        dataset: String,
        /// The variable.
        var: VarPath,
        /// Its stored width, in `unit`s.
        width: usize,
        /// What the width counts.
        unit: WidthUnit,
        /// Its stored dtype (`|S2`, `<U1`).
        dtype: String,
        /// The longest new string's length, in `unit`s.
        longest: usize,
        /// That string (invalid UTF-8 replaced).
        text: String,
    },
    /// The dataset's metadata, as it would be written, does not give a variable its
    /// new shape.
    #[error("{dataset}: the new length of '{dim}' cannot be recorded in this dataset's metadata (variable '{var}' would read as {got:?}, not {want:?}); nothing was written")]
    LengthNotRecorded {
        /// The dataset's name.
        dataset: String,
        /// The dimension that grows.
        dim: String,
        /// The first variable that would read wrongly.
        var: VarPath,
        /// Its shape as it would read (`None`: it would not read at all).
        got: Option<Vec<u64>>,
        /// Its new shape.
        want: Vec<u64>,
    },
    /// Values were written to a variable that is not among those the append grows.
    #[error("variable '{var}' is not being appended to")]
    NotAppended {
        /// The variable.
        var: VarPath,
    },
}

/// A place a dataset cannot be grown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FixedPlace {
    /// A file: a netCDF file, a zip archive or a reference file.
    File,
    /// A zip archive, named as one.
    Zip,
    /// A web server.
    Web,
    /// A name that is not a local path.
    NotLocal,
}

impl std::fmt::Display for FixedPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FixedPlace::File => "a file (a netCDF file, a zip archive or a reference file cannot be grown in place: copy it to a directory first)",
            FixedPlace::Zip => "a zip archive cannot be changed in place (copy it to a directory first)",
            FixedPlace::Web => "a web server is read, never written",
            FixedPlace::NotLocal => "not a local path",
        })
    }
}

/// What a fixed string width counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WidthUnit {
    /// Bytes (`|S`).
    Bytes,
    /// Characters (`<U`).
    Characters,
}

impl WidthUnit {
    /// The unit's name for `n` of them.
    pub fn name(self, n: usize) -> &'static str {
        match (self, n) {
            (WidthUnit::Bytes, 1) => "byte",
            (WidthUnit::Bytes, _) => "bytes",
            (WidthUnit::Characters, 1) => "character",
            (WidthUnit::Characters, _) => "characters",
        }
    }
}
