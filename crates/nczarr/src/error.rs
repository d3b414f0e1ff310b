//! The crate's error type. Every variant names what the user needs to find the
//! fault: the key, the variable, the file.

use crate::codec::CodecError;
use crate::encoding::EncodingError;
use crate::json::JsonError;
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
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
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
    /// A request the dataset cannot satisfy (unknown variable, bad region...).
    #[error("{0}")]
    Invalid(String),
    /// Writing output failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// A metadata error for `key`.
    pub fn metadata(key: impl ToString, message: impl Into<String>) -> Error {
        Error::Metadata {
            key: key.to_string(),
            message: message.into(),
        }
    }
}
