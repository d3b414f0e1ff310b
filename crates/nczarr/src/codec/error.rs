//! Codec errors, typed: [`ConfigFault`] when a codec cannot be built from its
//! configuration (found when a dataset opens or a plan is made), [`ChunkFault`] when a
//! codec fails on one chunk; [`CodecError`] adds which codec and which chunk.
//!
//! The lowest file of `codec/`: it names no other (the codec table's list of ids that
//! [`ConfigFault::Unknown`] shows is given to it by whoever builds the error).

/// A codec error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The codec cannot be built from its configuration (unknown id, bad parameter).
    #[error("codec {config}: {fault}")]
    Create {
        /// The codec JSON as written.
        config: String,
        /// What is wrong.
        fault: ConfigFault,
    },
    /// The codec failed on a chunk.
    #[error("codec '{codec}' failed on chunk '{key}': {fault}")]
    Failed {
        /// The codec id.
        codec: String,
        /// The chunk key.
        key: String,
        /// What went wrong.
        fault: ChunkFault,
    },
}

/// Why a codec cannot be built from its JSON configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigFault {
    /// The configuration has no `"id"`.
    #[error("has no \"id\"")]
    MissingId,
    /// An id this build has no codec for.
    #[error("unknown codec '{id}' (this build knows {known})")]
    Unknown {
        /// The id as written.
        id: String,
        /// The ids this build knows, comma-separated (the codec table's `known_ids()`).
        known: String,
    },
    /// A member that must be there is not.
    #[error("missing \"{name}\"")]
    Missing {
        /// The member.
        name: &'static str,
    },
    /// An integer member that is not an integer.
    #[error("\"{name}\" must be an integer, found {found}")]
    NotInteger {
        /// The member.
        name: &'static str,
        /// Its JSON.
        found: String,
    },
    /// An integer member out of the codec's range.
    #[error("\"{name}\" = {value} is outside {min}..={max}")]
    OutOfRange {
        /// The member.
        name: &'static str,
        /// Its value.
        value: i64,
        /// The smallest value allowed.
        min: i64,
        /// The largest value allowed.
        max: i64,
    },
    /// A member whose value is not one the codec accepts.
    #[error("\"{name}\" must be {expected}, found {found}")]
    BadValue {
        /// The member.
        name: &'static str,
        /// What it may be.
        expected: String,
        /// Its JSON.
        found: String,
    },
    /// A compressor or element type the codec supports but this build does not.
    #[error("{what} is not available (have {have})")]
    Unavailable {
        /// What was asked for.
        what: String,
        /// What this build has.
        have: String,
    },
    /// A parameter the codec does not have (a misspelling would otherwise be ignored
    /// here and refused by zarr-python).
    #[error("unknown parameter \"{name}\" (it takes {takes})")]
    UnknownParam {
        /// The parameter as given.
        name: String,
        /// The parameters it takes.
        takes: String,
    },
    /// An object codec (`vlen-utf8`, `vlen-bytes`) anywhere but first in a chain.
    #[error("an object codec must be the first filter")]
    Misplaced,
}

/// Why a codec failed on one chunk.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChunkFault {
    /// The chunk is shorter than the codec's own framing.
    #[error("chunk too short to hold {what}")]
    Truncated {
        /// The framing, e.g. `a fletcher32 checksum`.
        what: &'static str,
    },
    /// Decoding gives more bytes than a chunk of the array holds (a damaged chunk or a
    /// decompression bomb), stopped before the memory is spent.
    #[error("decodes to more than the {max} bytes a chunk of this array can hold")]
    TooLarge {
        /// The most a chunk holds.
        max: usize,
    },
    /// A header claims more bytes than a chunk of the array holds.
    #[error("{format} header claims {claimed} bytes, more than a chunk holds")]
    ClaimsTooMuch {
        /// The codec's format.
        format: &'static str,
        /// What the header says.
        claimed: u64,
    },
    /// A stored checksum does not match the data.
    #[error("{kind} checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    ChecksumMismatch {
        /// The checksum.
        kind: &'static str,
        /// The checksum stored with the chunk.
        stored: u32,
        /// The checksum of the data.
        computed: u32,
    },
    /// Bytes that are not what the codec writes.
    #[error("corrupt {what}: {detail}")]
    Corrupt {
        /// What was being read, e.g. `zlib stream`.
        what: &'static str,
        /// What the decoder said.
        detail: String,
    },
    /// A vlen buffer whose item count is not the chunk's.
    #[error("vlen buffer holds {found} items, the chunk has {expected}")]
    ItemCount {
        /// Items in the buffer.
        found: u64,
        /// Items in the chunk.
        expected: u64,
    },
    /// Bytes that are not a whole number of the codec's elements.
    #[error("{len} bytes is not a whole number of {dtype} values")]
    PartialElement {
        /// Bytes given.
        len: usize,
        /// The element type.
        dtype: String,
    },
    /// The codec's library could not encode the chunk.
    #[error("{format} compression failed: {detail}")]
    EncodeFailed {
        /// The codec's format.
        format: &'static str,
        /// What the library said.
        detail: String,
    },
    /// Items given to a bytes chain, or bytes to an object chain.
    #[error("{0}")]
    WrongKind(&'static str),
}
