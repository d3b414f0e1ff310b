//! The crate's error type. Every variant names what the user needs to find the
//! fault (the key, the variable, the file, the byte), and its kind says what a caller can
//! do about it: retry a store's failure, report damage, fix a request
//! (`docs/architecture.md#errors` has the table).

mod append;
mod dap;
mod edit;
mod join;
mod subset;
mod view;

pub use append::{AppendError, FixedPlace, WidthUnit};
pub use dap::DapError;
pub use edit::EditError;
pub use join::{JoinError, OrderHint, StructureDifference};
pub use subset::{DimSpecError, SubsetError};
pub use view::{NormError, ViewError};

use crate::cftime::{DateError, UnitsError};
use crate::chunking::RegionError;
use crate::cloud::azure::AzureError;
use crate::cloud::gcs::GcsError;
use crate::cloud::s3::{AddressError, AwsError};
use crate::codec::hdf5::FilterError;
use crate::codec::{CodecError, DtypeError};
use crate::encoding::EncodingError;
use crate::json::JsonError;
use crate::model::select::SelectionError;
use crate::store::{KeyError, StoreError};
use crate::url::UrlError;

/// Result with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Anything that can go wrong reading or writing a dataset.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The dataset name is not understood.
    #[error(transparent)]
    Url(#[from] UrlError),
    /// A metadata edit cannot be made.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// A slice cannot be drawn.
    #[error(transparent)]
    View(#[from] ViewError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An OPeNDAP server's answer cannot be used.
    #[error(transparent)]
    Dap(#[from] DapError),
    /// A key breaks a key rule.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A metadata object is not valid JSON.
    #[error("key '{key}': {error}")]
    Json {
        /// The key of the object.
        key: String,
        /// The parse error (line, column).
        error: JsonError,
    },
    /// Metadata is valid JSON but not valid Zarr/NCZarr.
    #[error("key '{key}': {message}")]
    Metadata {
        /// The key of the object.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The location holds no Zarr dataset.
    #[error(
        "not a Zarr dataset (no .zgroup, .zarray, .zmetadata, .nczarr or zarr.json at its root)"
    )]
    NotZarr {
        /// Path or URL.
        location: String,
    },
    /// The location holds an Icechunk repository, not plain Zarr: what the Zarr
    /// reader says so that the opener reads it as one.
    #[error("an Icechunk repository, not a plain Zarr dataset")]
    IcechunkRepository {
        /// Path or URL.
        location: String,
    },
    /// A codec could not be built or failed on a chunk.
    #[error("variable '{var}': {error}")]
    Codec {
        /// The variable (full path).
        var: String,
        /// What went wrong.
        error: CodecError,
    },
    /// A chunk's bytes do not fit its array.
    #[error("variable '{var}', chunk '{key}': {message}")]
    Chunk {
        /// The variable (full path).
        var: String,
        /// The chunk key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// Reading a variable's values from its store failed: the store's own error is
    /// kept, so that a caller can tell a failed request from a damaged file.
    #[error("variable '{var}': {source}")]
    VarStore {
        /// The variable (full path).
        var: String,
        /// What the store said.
        source: StoreError,
    },
    /// An encoding that cannot be used.
    #[error(transparent)]
    Encoding(#[from] EncodingError),
    /// A read names a variable the dataset does not have.
    #[error("no variable '{var}' in the dataset")]
    NoSuchVar {
        /// The name asked for (full path).
        var: String,
    },
    /// A selection (`-v`, `-g`) names a variable or group the dataset does not have.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// A region that does not fit its variable, or values that do not fit their region.
    #[error("variable '{var}': {message}")]
    Region {
        /// The variable (full path).
        var: String,
        /// What does not fit.
        message: String,
    },
    /// A file whose bytes are not what its format says they are (truncated, or
    /// written wrongly), or a dataset whose metadata contradicts itself. The store's own
    /// failures are [`Error::Store`] instead.
    #[error("{message}")]
    Damaged {
        /// Path or URL of the file; in a dataset of many objects, the variable whose
        /// metadata is wrong.
        file: String,
        /// The byte of the file where the damage was found, when known.
        offset: Option<u64>,
        /// What is wrong (names the object or variable it belongs to).
        message: String,
    },
    /// A file or directory that holds no dataset in any format this crate reads.
    #[error("{message}")]
    NotDataset {
        /// Path or URL.
        location: String,
        /// What was found there instead.
        message: String,
    },
    /// The place a new dataset is to be written is refused before anything is read or
    /// written: it is inside another dataset, or a dataset is there and only
    /// `overwrite` replaces it.
    #[error("{message}")]
    Target {
        /// Path or URL of the place.
        location: String,
        /// What is there, and the ways on.
        message: String,
    },
    /// What a copy cannot take from its input (a variable this build cannot read, a
    /// type the output cannot hold); a copy may leave it out instead.
    #[error("{0}")]
    Unreadable(String),
    /// Something the format, layout or source cannot do (a request that is well
    /// formed, but asks for what this output or input does not have).
    #[error("{0}")]
    Unsupported(String),
    /// The copy-in-parts protocol was broken (parts of another copy, parts missing).
    #[error("{0}")]
    Parts(String),
    /// A worker thread of this crate failed, or the output it wrote to was closed.
    #[error("{0}")]
    Internal(String),
    /// A request the caller formed wrongly (an argument that does not parse, values
    /// of the wrong count).
    #[error("{0}")]
    Invalid(String),
    /// Writing output failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A job's request that cannot be carried out as given (no inputs, an input that
    /// is the output, a kind the output cannot be).
    #[error(transparent)]
    Job(#[from] JobError),
    /// An error about the dataset (or the pair `input -> output`) `name`: its text is
    /// `name: cause`, or the cause alone when the cause begins with the name already (a
    /// key or variable of the dataset); the cause is also its source, so that a caller
    /// walking the chain reaches the typed error inside.
    #[error("{}", named_text(name, source))]
    Named {
        /// The dataset's name, as the user gave it.
        name: String,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
    /// Inputs that cannot be joined along a dimension, or a joined input that cannot
    /// be read (naming the inputs). Boxed, as are the next two: every result of the
    /// crate carries an `Error`'s size.
    #[error(transparent)]
    Join(Box<JoinError>),
    /// A dataset that cannot be grown in place as asked (naming the dataset).
    #[error(transparent)]
    Append(Box<AppendError>),
    /// A `--dim` option that does not parse or does not fit the dataset (naming the
    /// option).
    #[error(transparent)]
    Subset(Box<SubsetError>),
    /// A region that does not fit an array, where no variable is known
    /// ([`Error::Region`] names the variable).
    #[error(transparent)]
    Hyperslab(#[from] RegionError),
    /// CDL text that does not parse or compile, at a line and column
    /// (`crate::cdl::CdlError`, converted where it is defined).
    #[error("{line}:{column}: {message}")]
    Cdl {
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// S3 settings that cannot be decided (no request was made).
    #[error(transparent)]
    Aws(#[from] AwsError),
    /// GCS settings that cannot be decided (no request was made).
    #[error(transparent)]
    Gcs(#[from] GcsError),
    /// Azure settings that cannot be decided (no request was made).
    #[error(transparent)]
    Azure(#[from] AzureError),
    /// A Zarr dtype this crate cannot read.
    #[error(transparent)]
    Dtype(#[from] DtypeError),
    /// An HDF5 filter with no Zarr codec in this build.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// CF time units that cannot be converted into others.
    #[error(transparent)]
    Units(#[from] UnitsError),
    /// A date-time text that cannot be a value.
    #[error(transparent)]
    Date(#[from] DateError),
    /// The typed error of a layer that `error.rs` may not name (it is imported by
    /// them: `generate`, `compare`, `copy`'s option specs, the formats' own faults),
    /// boxed under the layer's name; a caller downcasts `source` to act on it. Each
    /// such error converts with a `From` beside its definition.
    #[error("{source}")]
    Layer {
        /// The module whose error it is (`"generate"`, `"compare"`, `"copy"`,
        /// `"nc3"`, `"zarr"`).
        layer: &'static str,
        /// The error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl From<JoinError> for Error {
    fn from(e: JoinError) -> Error {
        Error::Join(Box::new(e))
    }
}

impl From<AppendError> for Error {
    fn from(e: AppendError) -> Error {
        Error::Append(Box::new(e))
    }
}

impl From<SubsetError> for Error {
    fn from(e: SubsetError) -> Error {
        Error::Subset(Box::new(e))
    }
}

impl From<DimSpecError> for Error {
    fn from(e: DimSpecError) -> Error {
        SubsetError::Spec(e).into()
    }
}

impl From<AddressError> for Error {
    fn from(e: AddressError) -> Error {
        Error::Aws(AwsError::Address(e))
    }
}

/// `name: cause`, said once when the cause begins with `name` (`x.zarr/tas/.zarray: ...`).
fn named_text(name: &str, cause: &Error) -> String {
    let text = cause.to_string();
    match text.strip_prefix(name) {
        Some(rest) if rest.starts_with(": ") || rest.starts_with('/') => text,
        _ => format!("{name}: {text}"),
    }
}

impl Error {
    /// This error, about the dataset `name` ([`Error::Named`]).
    pub fn named(self, name: impl Into<String>) -> Error {
        Error::Named {
            name: name.into(),
            source: Box::new(self),
        }
    }

    /// The error inside any [`Error::Named`] layers.
    pub fn innermost(&self) -> &Error {
        match self {
            Error::Named { source, .. } => source.innermost(),
            other => other,
        }
    }

    /// A region error for `var`.
    pub fn region(var: impl ToString, message: impl Into<String>) -> Error {
        Error::Region {
            var: var.to_string(),
            message: message.into(),
        }
    }

    /// A metadata error for `key`.
    pub fn metadata(key: impl ToString, message: impl Into<String>) -> Error {
        Error::Metadata {
            key: key.to_string(),
            message: message.into(),
        }
    }
}

/// A job's request that cannot be carried out as given (`crate::jobs`). Defined here,
/// below the jobs, as every layer's error is gathered here.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// No input was named.
    #[error("give INPUT... and OUTPUT")]
    NoInputs,
    /// An input is the output.
    #[error("{output}: also an input; a dataset cannot be copied onto itself")]
    SameDataset {
        /// The output's name.
        output: String,
    },
    /// A comparison's `-v` or `-x` names a variable neither dataset has.
    #[error("{option} {name}: no such variable in {a} or {b}")]
    NoSuchVar {
        /// The option (`-v`, `-x`).
        option: &'static str,
        /// The name as given.
        name: String,
        /// The first dataset's name.
        a: String,
        /// The second's.
        b: String,
    },
    /// A kerchunk reference file asked of a Zarr dataset, whose chunks are objects of
    /// their own (xarray opens it as it is).
    #[error("{name}: kerchunk references point into a netCDF file; this is a Zarr dataset, which xarray opens as it is")]
    ZarrForReferences {
        /// The input's name.
        name: String,
    },
    /// A reference file named as a directory or a remote place: it is written as one
    /// local file.
    #[error("{output}: a reference file is one local file, named without a trailing '/' (put it on a server or in a bucket with that store's own tools)")]
    ReferencesNotLocal {
        /// The output's name.
        output: String,
    },
    /// CDL whose user-defined types an output without them cannot hold.
    #[error("{input}: {what} (write it with -k nc4)")]
    UserTypes {
        /// The CDL file's label.
        input: String,
        /// What cannot be held.
        what: String,
    },
    /// An output kind (`-k`) that is none of ncgen's, nccopy's or ours.
    #[error(
        "unknown format kind '{kind}' (use classic, nc6, cdf5, nc4, nc7, nczarr, zarr or zarr3)"
    )]
    UnknownKind {
        /// The kind as given, in lower case.
        kind: String,
    },
    /// A netCDF kind that a Zarr output cannot be (only netCDF-4 and classic map to
    /// NCZarr, as in netcdf-c).
    #[error("format '{kind}' cannot be stored as NCZarr (use nczarr, zarr or zarr3, or write a file: {base}.nc)")]
    NotZarrKind {
        /// The kind's name.
        kind: &'static str,
        /// The output's base name, for the file it could be written to instead.
        base: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The errors of the layers above convert with their own text and kind.
    #[test]
    fn layers_errors_convert_with_their_text() {
        let r = RegionError::ZeroStride { dim: 1 };
        let e = Error::from(r.clone());
        assert_eq!(e.to_string(), r.to_string());
        assert!(matches!(
            e,
            Error::Hyperslab(RegionError::ZeroStride { dim: 1 })
        ));
        let a = AddressError {
            url: "s3:///k".into(),
            reason: "no bucket".into(),
        };
        let e = Error::from(a.clone());
        assert_eq!(e.to_string(), a.to_string());
        assert!(matches!(e, Error::Aws(AwsError::Address(_))));
        let g = GcsError::NoBucket("gs:///k".into());
        assert_eq!(Error::from(g.clone()).to_string(), g.to_string());
        let z = AzureError::NoContainer("az:///k".into());
        assert!(matches!(
            Error::from(z),
            Error::Azure(AzureError::NoContainer(_))
        ));
        let f = FilterError::Unknown(99);
        assert_eq!(Error::from(f.clone()).to_string(), f.to_string());
    }

    /// The typed errors of joins, appends and `--dim` are boxed: every result of the
    /// crate carries an `Error`'s size.
    #[test]
    fn error_stays_small() {
        assert!(
            std::mem::size_of::<Error>() <= 128,
            "{}",
            std::mem::size_of::<Error>()
        );
    }

    #[test]
    fn a_named_error_says_the_name_once() {
        let e = Error::NoSuchVar { var: "tas".into() }.named("x.nc");
        assert_eq!(e.to_string(), "x.nc: no variable 'tas' in the dataset");
        assert!(matches!(e.innermost(), Error::NoSuchVar { .. }));
        let e = Error::Invalid("x.zarr/tas: bad".into()).named("x.zarr");
        assert_eq!(e.to_string(), "x.zarr/tas: bad");
        let e = Error::Invalid("x.zarr2/.zgroup: bad".into()).named("x.zarr");
        assert_eq!(e.to_string(), "x.zarr: x.zarr2/.zgroup: bad");
    }

    #[test]
    fn a_spec_error_is_a_subset_error() {
        let e = Error::from(DimSpecError::Form {
            spec: "time".into(),
        });
        assert!(matches!(&e, Error::Subset(s) if matches!(**s, SubsetError::Spec(_))));
        assert_eq!(
            e.to_string(),
            "--dim time: give DIM,MIN[,MAX[,STRIDE]] (as ncks -d)"
        );
    }
}
