//! Zarr version 2 documents: `.zarray`, `.zgroup`, `.zattrs`, `.zmetadata`, dtypes
//! and fill values.
//!
//! Spec: <https://zarr-specs.readthedocs.io/en/latest/v2/v2.0.html>. These types
//! know nothing of NCZarr; the `nczarr` module layers netCDF meaning on top.

mod array;
mod consolidated;
mod fill;
mod values;

/// numpy dtypes, which the codecs work in too (they live there, below this module).
pub use crate::codec::{Dtype, DtypeError, Endian};
pub(crate) use crate::text::decode_base64;
pub(crate) use crate::text::encode_base64;
pub use array::ArrayMeta;
pub(crate) use array::{check_chunk_bytes, check_chunks, u64_list, zarr_format};
pub use consolidated::Consolidated;
pub use fill::{fill_json, parse_fill_value, FillError};
pub use values::values_json;

/// A metadata document that is valid JSON but not valid Zarr.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("key '{key}': {message}")]
pub struct MetadataError {
    /// The document's key.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

// Here rather than in `error.rs`, which would otherwise import the formats it is
// imported by.
impl From<MetadataError> for crate::Error {
    fn from(e: MetadataError) -> crate::Error {
        crate::Error::Metadata {
            key: e.key,
            message: e.message,
        }
    }
}
