//! How a variable's values are stored, in netCDF's own vocabulary: chunking, the codec
//! chain, the fill value, byte order, string width.
//!
//! [`Encoding`] is the one type every layer speaks: a reader says how a variable *is*
//! stored (`DatasetSource::encoding`), the CDL compiler says how one
//! *should be* stored (from `_ChunkSizes`, `_DeflateLevel`, ...), nczcopy's options
//! change it, and [`complete`] completes it for a writer. [`special`] is the one two-way
//! mapping between an encoding and netCDF's special attributes (with the HDF5 filter
//! ids `_Filter` uses, from [`crate::codec::hdf5`]).
//!
//! What this module does not know: how a format lays an encoding out (a Zarr dtype,
//! `.zarray`'s `compressor`/`filters`, NCZarr's scalar shape). Each writer maps an
//! encoding to its format; each reader maps its format back.

mod plan;
pub mod quantize;
pub mod special;

pub use plan::{complete, Plan, PlanOptions};
pub use special::{Special, SpecialAttr, SpecialKind, SpecialValue};

use crate::codec::CodecError;
use crate::json::Json;
use crate::model::{NcType, Values, VarPath};

/// How the values of a variable are laid out in storage (`_Storage`, `_ChunkSizes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunking {
    /// One piece for the whole variable (`_Storage = "contiguous"`).
    Contiguous,
    /// Chunks of this shape, one length per dimension.
    Chunked(Vec<u64>),
    /// Inside the variable's metadata (HDF5's compact layout, `_Storage = "compact"`),
    /// as netCDF-4 files store small variables; other formats store it contiguous.
    Compact,
}

/// Byte order of stored values (`_Endianness`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endianness {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

/// A variable's storage: what netCDF's special attributes describe.
///
/// A field left `None` (or empty) in a request means "not said": [`complete`] decides it.
/// An encoding read from a dataset, or completed by [`complete`], has every field decided.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Encoding {
    /// Contiguous or chunked (with the chunk shape); `None` when not said.
    pub chunking: Option<Chunking>,
    /// The codec chain in encode order, each codec as its numcodecs JSON (`{"id": ...}`).
    pub codecs: Vec<Json>,
    /// The fill value (one value of the variable's type); `None` means the type's default.
    pub fill: Option<Values>,
    /// No fill value at all (`_NoFill = "true"`): unwritten values are undefined.
    pub no_fill: bool,
    /// Byte order; `None` for the writer's native order (or when order does not apply).
    pub endian: Option<Endianness>,
    /// Bytes per string element where a format stores strings at a fixed width
    /// (NCZarr's `_nczarr_maxstrlen`); `None` when not said.
    pub string_width: Option<usize>,
    /// Characters per string where a format stores strings as fixed-width Unicode
    /// (Zarr's `<U`); `None` when not said (the byte width then holds enough).
    pub string_chars: Option<usize>,
    /// What a Zarr store held, where the netCDF type does not say: a writer of
    /// pure Zarr or Zarr v3 stores it so again, so that zarr-python and xarray read
    /// booleans as booleans and byte strings as bytes. `None` for other sources.
    pub zarr_kind: Option<ZarrKind>,
    /// The fill is a Zarr v2 `fill_value`, which xarray takes as a missing-value marker
    /// (it masks the values equal to it, and reads integers as floats for it): a pure
    /// Zarr copy keeps it, so that xarray reads the copy as it read the input. False
    /// for netCDF files, Zarr v3 and CDL, where xarray masks only by `_FillValue`.
    pub zarr_fill_masks: bool,
    /// netCDF's quantization of float values (`_Quantize...`), applied to the values
    /// as they are written; `None` for none.
    pub quantize: Option<quantize::Quantize>,
}

/// Values a Zarr store held as something netCDF has no type for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZarrKind {
    /// Booleans (`|b1`, v3 `bool`), read as ubyte 0/1.
    Bool,
    /// Fixed-width byte strings (`|S<n>`, v3 `fixed_length_bytes`): bytes to xarray.
    Bytes,
    /// Unicode text (`<U<n>`, `|O` with `vlen-utf8`, v3 `string`): str to xarray.
    Text,
}

impl Encoding {
    /// The fill value stored with the variable: `None` for no fill.
    pub fn fill_value(&self) -> Option<&Values> {
        if self.no_fill {
            None
        } else {
            self.fill.as_ref()
        }
    }

    /// The chunk shape, when chunked.
    pub fn chunk_shape(&self) -> Option<&[u64]> {
        match &self.chunking {
            Some(Chunking::Chunked(c)) => Some(c),
            _ => None,
        }
    }

    /// The ids of the codecs in the chain, in encode order.
    pub fn codec_ids(&self) -> impl Iterator<Item = &str> {
        self.codecs.iter().map(codec_id)
    }
}

/// The id of a codec's JSON (`""` when it has none).
pub(crate) fn codec_id(c: &Json) -> &str {
    c.get("id").and_then(Json::as_str).unwrap_or("")
}

/// Bytes per stored element of a variable of type `t` (strings at their fixed width).
pub(crate) fn item_size(t: NcType, string_width: usize) -> usize {
    match t {
        NcType::String => string_width.max(1),
        t => t.size(),
    }
}

/// Why an encoding cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodingError {
    /// A special attribute's value is not valid (the message names the attribute).
    #[error("{message}")]
    Special {
        /// What is wrong.
        message: String,
    },
    /// A variable's encoding does not fit the variable.
    #[error("variable '{var}': {message}")]
    Var {
        /// The variable.
        var: VarPath,
        /// What is wrong.
        message: String,
    },
    /// A variable's codec chain cannot be built.
    #[error("variable '{var}': {error}")]
    Codec {
        /// The variable.
        var: VarPath,
        /// The codec's error.
        error: Box<CodecError>,
    },
}
