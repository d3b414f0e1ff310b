//! Zarr version 3 documents: `zarr.json` of groups and arrays, data types, codecs,
//! chunk key encodings and fill values, translated to and from the storage terms the
//! v2 side already uses ([`crate::formats::zarr::array::StoredArray`], numcodecs-style codec JSON).
//!
//! Spec: <https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html> and its
//! codec pages; zarr-python 3 is the reference for what is written in practice
//! (`null_terminated_bytes`, `fixed_length_utf32`, `numcodecs.*` codec names,
//! consolidated metadata inside the root `zarr.json`). Like `zarr`, this module knows
//! nothing of netCDF; `nczarr::v3` reads the model from these documents.

mod array;
mod codecs;
mod dtype;

pub use array::{ArrayMeta3, NodeMeta};
pub use codecs::{chain_to_json, CodecChain};
pub use dtype::{dtype_from_json, dtype_to_json};

/// The name of every v3 metadata document.
pub const ZARR_JSON: &str = "zarr.json";
