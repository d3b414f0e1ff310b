//! How a copy stores each variable: as the input stores it, changed by the copy's
//! options (chunk specs, compression, automatic chunking), then completed by
//! [`crate::encoding::complete`].

use super::{ChunkSpec, Compression};
use crate::chunking::{slabs, Region, SlabOrder};
use crate::codec::table::{self, Writes};
use crate::encoding::{Chunking, Encoding, Plan, PlanOptions};
use crate::error::Result;
use crate::model::{Dataset, NcType, Values, VarPath};
use crate::source::DatasetSource;

/// What a copy changes in how variables are stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StorageChanges {
    /// `-c`: chunk shapes.
    pub chunks: ChunkSpec,
    /// `--chunks auto[=BYTES]`: the balanced default shape of about BYTES per chunk,
    /// for every variable that `-c` does not name.
    pub auto_chunks: Option<u64>,
    /// `-d`, `-s`, `-F`, `--codec`.
    pub compression: Compression,
}

/// Plan how every variable of `source` is written: as it is stored there (its special
/// attributes, for compiled CDL), the rest decided by `options`.
///
/// # Errors
/// As [`crate::encoding::complete`].
pub fn plan(source: &dyn DatasetSource, options: &PlanOptions) -> Result<Plan> {
    Ok(crate::encoding::complete(
        source.dataset(),
        |v| source.encoding(v),
        options,
    )?)
}

/// Plan a copy of `source` into the dataset `output` (the input, or a selection of
/// it): each variable stored as in the input, changed by `changes`. String variables
/// whose width the input does not fix (zarr-python's `|O` and `<U` arrays) are read
/// once to find their longest string, so nothing is cut.
///
/// # Errors
/// Chunk specs that do not fit a variable, codecs that cannot be built, read errors.
pub fn plan_copy(
    source: &dyn DatasetSource,
    output: &Dataset,
    changes: &StorageChanges,
    options: &PlanOptions,
) -> Result<Plan> {
    changes
        .chunks
        .check(output)
        .map_err(|e| crate::Error::Invalid(e.to_string()))?;
    for spec in &changes.compression.filters {
        if let Some(name) = spec.unknown_var(output) {
            return Err(crate::Error::Invalid(format!(
                "filter spec '{}': {name}: No such variable",
                spec.text()
            )));
        }
    }
    // Only a netCDF-4 file holds user-defined types.
    if let Some((p, _)) = output
        .vars()
        .into_iter()
        .find(|(_, v)| v.user_type.is_some() && !options.netcdf4)
    {
        return Err(crate::Error::Unsupported(format!(
            "variable '{p}' has a user-defined type, which only netCDF-4 files hold"
        )));
    }
    let mut requests = std::collections::HashMap::new();
    for (path, var) in output.vars() {
        let mut enc = source.encoding(&path).unwrap_or_default();
        let input_chunking = enc.chunking.clone();
        // The writers store strings at a fixed width: the object codec of zarr-python's
        // `|O` string arrays has nothing to do in the copy, nor has numcodecs' Categorize
        // (labels' indices), which on `|O` arrays works on items the writers do not make.
        let writes = |c: &crate::json::Json| {
            table::spec(crate::encoding::codec_id(c)).map_or(Writes::Yes, |s| s.writes)
        };
        enc.codecs.retain(|c| writes(c) != Writes::Dropped);
        // The codecs only read here (h5py's lzf, hdf5plugin's lz4 and bitshuffle, pcodec,
        // zfpy) have no encoder here, and most no Zarr reader: their chunks are stored
        // with zstd at level 1, as light and read everywhere.
        for c in &mut enc.codecs {
            if writes(c) == Writes::ReadOnly {
                *c = crate::json::Json::Object(vec![
                    ("id".into(), crate::json::Json::String("zstd".into())),
                    (
                        "level".into(),
                        crate::json::Json::Number(crate::json::Number::from_i64(1)),
                    ),
                ]);
            }
        }
        if changes.auto_chunks.is_some() {
            enc.chunking = None;
        }
        if let Some(c) = changes.chunks.chunking(
            output,
            &path,
            var,
            input_chunking.as_ref(),
            crate::encoding::item_size(var.nc_type, 8) as u64,
        ) {
            enc.chunking = Some(c);
        }
        changes.compression.apply(&mut enc, &path, var.nc_type)?;
        // A netCDF-4 file stores strings at their own lengths: no width to find. A
        // width the input does not declare (or several inputs joined declare
        // differently: `Concat` says none) is the longest string's, found by a scan.
        if var.nc_type == NcType::String && enc.string_width.is_none() && !options.netcdf4 {
            let (bytes, chars) = longest_string(source, output, &path)?;
            enc.string_width = Some(bytes);
            enc.string_chars = enc.string_chars.or(Some(chars));
        }
        // The fill value is stored at the same width.
        if let Some(Values::String(fill)) = &enc.fill {
            if let Some(f) = fill.iter().flatten().next() {
                enc.string_width = enc.string_width.map(|w| w.max(f.len()));
                let chars = String::from_utf8_lossy(f).chars().count();
                enc.string_chars = enc.string_chars.map(|c| c.max(chars));
            }
        }
        requests.insert(path, enc);
    }
    let options = PlanOptions {
        chunk_bytes: changes.auto_chunks.unwrap_or(options.chunk_bytes),
        ..options.clone()
    };
    Ok(crate::encoding::complete(
        output,
        |v| requests.get(v).cloned(),
        &options,
    )?)
}

/// The length in bytes, and in characters, of the longest string the variable at `path`
/// holds (at least 1 each), read slab by slab.
fn longest_string(
    source: &dyn DatasetSource,
    output: &Dataset,
    path: &VarPath,
) -> Result<(usize, usize)> {
    let Some(shape) = output.shape_of(path) else {
        return Ok((1, 1));
    };
    let longest = longest_string_in(source, path, &Region::whole(&shape))?;
    Ok((longest.bytes.max(1), longest.chars.max(1)))
}

/// The longest strings of a region of a variable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LongestString {
    /// The most bytes a string holds.
    pub bytes: usize,
    /// The most characters a string holds (bytes that are not UTF-8 count one each).
    pub chars: usize,
    /// A string of `bytes` bytes.
    pub text: Vec<u8>,
}

/// The longest strings of the variable at `path` in `within` (a block), read slab by
/// slab in the source's chunks.
///
/// # Errors
/// Read errors.
pub fn longest_string_in(
    source: &dyn DatasetSource,
    path: &VarPath,
    within: &Region,
) -> Result<LongestString> {
    let chunks = source
        .encoding(path)
        .and_then(|e: Encoding| match e.chunking {
            Some(Chunking::Chunked(c)) => Some(c),
            _ => None,
        })
        .unwrap_or_else(|| within.count.clone());
    let mut longest = LongestString::default();
    for slab in slabs(&within.count, &chunks, 1 << 20, SlabOrder::Output) {
        if slab.is_empty() {
            continue;
        }
        let start = slab
            .start
            .iter()
            .zip(&within.start)
            .map(|(a, b)| a + b)
            .collect();
        let region = Region::block(start, slab.count.clone());
        if let Values::String(items) = source.read(path, &region)? {
            for s in items.iter().flatten() {
                if s.len() > longest.bytes {
                    longest.bytes = s.len();
                    longest.text = s.to_vec();
                }
                longest.chars = longest
                    .chars
                    .max(String::from_utf8_lossy(s).chars().count());
            }
        }
    }
    Ok(longest)
}
