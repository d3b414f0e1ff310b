//! `blosc` through c-blosc 1.x (`blosc-src`, built from source, byte-compatible with
//! numcodecs). Config: `{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1,
//! "blocksize": 0}`; shuffle 0 = none, 1 = byte, 2 = bit, -1 = automatic (bit for
//! 1-byte items, else byte). The type size for shuffling is the dtype's item size.

use std::ffi::{c_int, c_void, CString};

use super::hdf5_filter::{FilterError, StoredChunk};
use super::{int_param, num, obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// The compressors our c-blosc build includes (snappy needs C++ and is left out).
pub(crate) const CNAMES: &[&str] = &["blosclz", "lz4", "lz4hc", "zlib", "zstd"];

/// The c-blosc internal header is 16 bytes.
const HEADER: usize = 16;

/// blosc meta-compression.
#[derive(Debug, Clone)]
pub(crate) struct Blosc {
    pub(crate) cname: String,
    pub(crate) clevel: i64,
    pub(crate) shuffle: i64,
    pub(crate) blocksize: i64,
}

impl Blosc {
    pub(crate) fn from_config(config: &Json) -> Result<Blosc, ConfigFault> {
        let cname = match config.get("cname") {
            None => "lz4".to_string(),
            Some(Json::String(s)) if CNAMES.contains(&s.as_str()) => s.clone(),
            Some(Json::String(s)) => {
                return Err(ConfigFault::Unavailable {
                    what: format!("blosc compressor \"{s}\""),
                    have: CNAMES.join(", "),
                })
            }
            Some(other) => {
                return Err(ConfigFault::BadValue {
                    name: "cname",
                    expected: "a string".into(),
                    found: other.to_text(),
                })
            }
        };
        Ok(Blosc {
            cname,
            clevel: int_param(config, "clevel", 5, 0..=9)?,
            shuffle: int_param(config, "shuffle", 1, -1..=2)?,
            blocksize: int_param(config, "blocksize", 0, 0..=i64::from(i32::MAX))?,
        })
    }

    /// The compressor's code in netCDF's HDF5 blosc filter parameters.
    pub(crate) fn compcode(&self) -> u32 {
        match self.cname.as_str() {
            "blosclz" => 0,
            "lz4" => 1,
            "lz4hc" => 2,
            "zlib" => 4,
            "zstd" => 5,
            _ => 1,
        }
    }
}

impl Codec for Blosc {
    fn id(&self) -> &'static str {
        "blosc"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        if input.len() < HEADER {
            return Err(ChunkFault::Truncated {
                what: "a 16-byte blosc header",
            });
        }
        let mut nbytes: usize = 0;
        // SAFETY: `input` is a live buffer of `input.len()` bytes; validate reads only
        // within it and writes one usize through a valid pointer.
        let ok = unsafe {
            blosc_src::blosc_cbuffer_validate(
                input.as_ptr().cast::<c_void>(),
                input.len(),
                &mut nbytes,
            )
        };
        if ok != 0 {
            return Err(ChunkFault::Corrupt {
                what: "blosc buffer",
                detail: "the header does not validate".into(),
            });
        }
        if nbytes > info.max_decoded {
            return Err(ChunkFault::ClaimsTooMuch {
                format: "blosc",
                claimed: nbytes as u64,
            });
        }
        let mut out = vec![0u8; nbytes];
        if nbytes == 0 {
            return Ok(out);
        }
        // SAFETY: the buffer was validated above; `out` has exactly `nbytes` bytes and
        // c-blosc never writes beyond `destsize`.
        let n = unsafe {
            blosc_src::blosc_decompress_ctx(
                input.as_ptr().cast::<c_void>(),
                out.as_mut_ptr().cast::<c_void>(),
                out.len(),
                1,
            )
        };
        if n < 0 || n as usize != nbytes {
            return Err(ChunkFault::Corrupt {
                what: "blosc data",
                detail: format!("the decompressor returned {n}"),
            });
        }
        Ok(out)
    }

    fn encode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let typesize = info.item_size.clamp(1, 255);
        let shuffle = match self.shuffle {
            -1 if typesize == 1 => 2,
            -1 => 1,
            s => s,
        } as c_int;
        let cname = CString::new(self.cname.as_str()).map_err(|e| ChunkFault::EncodeFailed {
            format: "blosc",
            detail: e.to_string(),
        })?;
        let mut out = vec![0u8; input.len() + HEADER + 16];
        // SAFETY: `input` and `out` are live buffers with the lengths passed; `cname` is
        // a NUL-terminated string that outlives the call; one internal thread.
        let n = unsafe {
            blosc_src::blosc_compress_ctx(
                self.clevel as c_int,
                shuffle,
                typesize,
                input.len(),
                input.as_ptr().cast::<c_void>(),
                out.as_mut_ptr().cast::<c_void>(),
                out.len(),
                cname.as_ptr(),
                self.blocksize as usize,
                1,
            )
        };
        if n <= 0 {
            return Err(ChunkFault::EncodeFailed {
                format: "blosc",
                detail: format!("c-blosc returned {n}"),
            });
        }
        out.truncate(n as usize);
        Ok(out)
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("blosc".into())),
            ("cname", Json::String(self.cname.clone())),
            ("clevel", num(self.clevel)),
            ("shuffle", num(self.shuffle)),
            ("blocksize", num(self.blocksize)),
        ])
    }
}
/// What a netCDF-4 file stores for this codec as the blosc filter (32001): the
/// filter's version, blosc's format version, what its `set_local` fills in (element
/// and chunk size), then the user's three (level, shuffle, compressor code). The
/// codec table's `hdf5_write`.
///
/// # Errors
/// [`ConfigFault`] when `config` is not a blosc configuration this build has.
pub(super) fn hdf5_params(config: &Json, chunk: &StoredChunk) -> Result<Vec<u32>, ConfigFault> {
    let b = Blosc::from_config(config)?;
    Ok(vec![
        2,
        2,
        chunk.item_size,
        chunk.chunk_bytes,
        b.clevel as u32,
        b.shuffle as u32,
        b.compcode(),
    ])
}

/// The parameters netCDF's `_Filter` shows for this codec as the blosc filter (32001):
/// three zeros (what the filter's `set_local` fills in is not shown), block size,
/// level, shuffle and compressor code; `None` for a JSON this build cannot build. The
/// codec table's `hdf5_attr`.
pub(super) fn hdf5_shown(config: &Json) -> Option<Vec<u32>> {
    let b = Blosc::from_config(config).ok()?;
    Some(vec![
        0,
        0,
        0,
        b.blocksize as u32,
        b.clevel as u32,
        b.shuffle as u32,
        b.compcode(),
    ])
}

/// This codec for a `_Filter` entry of the blosc filter (32001): block size, level,
/// shuffle and compressor code at 3..=6, as [`hdf5_shown`] shows them. The codec
/// table's `hdf5_attr`.
///
/// # Errors
/// [`FilterError::BloscCompressor`] for a compressor code this build does not have.
pub(super) fn from_hdf5(params: &[u32]) -> Result<Json, FilterError> {
    let p = |i: usize, d: u32| params.get(i).copied().unwrap_or(d);
    let cname = match p(6, 0) {
        0 => "blosclz",
        1 => "lz4",
        2 => "lz4hc",
        4 => "zlib",
        5 => "zstd",
        other => return Err(FilterError::BloscCompressor(other)),
    };
    Ok(obj(vec![
        ("id", Json::String("blosc".into())),
        ("clevel", num(i64::from(p(4, 5)))),
        ("blocksize", num(i64::from(p(3, 0)))),
        ("cname", Json::String(cname.into())),
        ("shuffle", num(i64::from(p(5, 1)))),
    ]))
}
