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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each message as the tools printed it before the errors were typed (issue 62).
    #[test]
    fn messages_are_the_lines_the_tools_print() {
        let d = "s1.zarr".to_string();
        let var = VarPath::new(&[], "note");
        let record = ".nczcopy/append.json".to_string();
        let cases: Vec<(AppendError, &str)> = vec![
            (
                AppendError::NotInPlace { dataset: d.clone(), place: FixedPlace::Zip },
                "s1.zarr: a zip archive cannot be changed in place (copy it to a directory first); --append grows a Zarr dataset in a directory or an object store (S3, GCS, Azure)",
            ),
            (
                AppendError::NotInPlace { dataset: d.clone(), place: FixedPlace::File },
                "s1.zarr: a file (a netCDF file, a zip archive or a reference file cannot be grown in place: copy it to a directory first); --append grows a Zarr dataset in a directory or an object store (S3, GCS, Azure)",
            ),
            (
                AppendError::NotInPlace { dataset: d.clone(), place: FixedPlace::Web },
                "s1.zarr: a web server is read, never written; --append grows a Zarr dataset in a directory or an object store (S3, GCS, Azure)",
            ),
            (
                AppendError::NotInPlace { dataset: d.clone(), place: FixedPlace::NotLocal },
                "s1.zarr: not a local path; --append grows a Zarr dataset in a directory or an object store (S3, GCS, Azure)",
            ),
            (
                AppendError::Interrupted { dataset: d.clone(), record: record.clone() },
                "s1.zarr: an earlier append stopped while writing its metadata (.nczcopy/append.json is there); `nczcopy --append s1.zarr` completes it",
            ),
            (
                AppendError::ChangedSince {
                    location: "/d/s1.zarr".into(),
                    record: record.clone(),
                    doc: "note/.zarray".into(),
                },
                "/d/s1.zarr: an append stopped while writing its metadata left .nczcopy/append.json, but note/.zarray has changed since; check the dataset, then remove .nczcopy/append.json",
            ),
            (
                AppendError::ComesBefore { input: "day0.nc".into(), dataset: d.clone() },
                "day0.nc: its coordinate comes before s1.zarr's; --append adds at the end",
            ),
            (
                AppendError::NoDimension { dataset: d.clone(), dim: "time".into() },
                "s1.zarr: no dimension 'time'",
            ),
            (
                AppendError::NotWritable { dataset: d.clone(), var: var.clone() },
                "s1.zarr: variable '/note' is not a Zarr array this build can write",
            ),
            (
                AppendError::StringTooLong {
                    dataset: d.clone(),
                    var: var.clone(),
                    width: 2,
                    unit: WidthUnit::Bytes,
                    dtype: "|S2".into(),
                    longest: 18,
                    text: "a much longer note".into(),
                },
                "s1.zarr: variable '/note' stores strings of at most 2 bytes (dtype |S2) and the inputs hold one of 18, \"a much longer note\"; nothing was changed (strings are never cut: copy the dataset and the inputs into a new dataset, which is as wide as its widest input)",
            ),
            (
                AppendError::StringTooLong {
                    dataset: d.clone(),
                    var: var.clone(),
                    width: 1,
                    unit: WidthUnit::Characters,
                    dtype: "<U1".into(),
                    longest: 2,
                    text: "é\"".into(),
                },
                "s1.zarr: variable '/note' stores strings of at most 1 character (dtype <U1) and the inputs hold one of 2, \"é\\\"\"; nothing was changed (strings are never cut: copy the dataset and the inputs into a new dataset, which is as wide as its widest input)",
            ),
            (
                AppendError::LengthNotRecorded {
                    dataset: d.clone(),
                    dim: "time".into(),
                    var: var.clone(),
                    got: Some(vec![3]),
                    want: vec![5],
                },
                "s1.zarr: the new length of 'time' cannot be recorded in this dataset's metadata (variable '/note' would read as Some([3]), not [5]); nothing was written",
            ),
            (
                AppendError::NotAppended { var },
                "variable '/note' is not being appended to",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
            assert_eq!(crate::Error::from(e).to_string(), want);
        }
    }

    #[test]
    fn width_units_are_singular_for_one() {
        assert_eq!(WidthUnit::Bytes.name(1), "byte");
        assert_eq!(WidthUnit::Characters.name(3), "characters");
    }
}
