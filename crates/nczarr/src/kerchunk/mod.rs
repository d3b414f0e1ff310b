//! Virtual Zarr: kerchunk's reference format (version 1) for a netCDF file: a pure
//! Zarr v2 hierarchy (with `_ARRAY_DIMENSIONS`, as kerchunk writes it) whose chunks
//! are byte ranges inside the file, which xarray opens through fsspec's reference
//! filesystem as if it were Zarr.
//!
//! The Zarr metadata is the pure Zarr sink's, planned from the file's own chunking,
//! codecs and byte order, so that each stored chunk *is* a Zarr chunk: referenced by
//! `[url, offset, length]` where the file stores it ([`crate::ChunkPlace`]), left out
//! where it does not (the fill value), and written through the sink into memory and
//! inlined (base64) where it cannot be referenced (a chunk stored with a filter
//! skipped) or the variable is small (coordinates: under `inline_threshold`).
//! Variables whose chunks cannot be references at all (contiguous data, strings,
//! filters with no numcodecs twin) are inlined as values when small, else refused in
//! one line naming them (`inline_all` inlines them anyway).
//!
//! Several files joined along a dimension ([`references_joined`]) make one virtual
//! dataset: each file's chunks placed along the joined grid (`files.rs`), the joined
//! coordinate inlined (rebased when the files' time units differ), the rest read from
//! the first file.
//!
//! Read back, a reference file is a store ([`crate::place::ReferenceStore`]) that the
//! Zarr reader opens as any other: every tool reads it.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

mod files;
pub(crate) mod icechunk;
mod split;

use files::Files;

use crate::chunking::{for_each_index, Region};
use crate::concat::Concat;
use crate::copy::{plan_copy, write_values, CopyOptions, StorageChanges};
use crate::encoding::PlanOptions;
use crate::error::{Error, Result};
use crate::formats::zarr::{WriteOptions, ZarrSink};
use crate::json::{Json, Number};
use crate::sink::DatasetSink;
use crate::source::{ChunkPlace, DatasetSource};
use crate::store::{ListableStore, MemoryStore, ReadableStore, Target, WritableStore};
use crate::text::encode_base64;

/// How references are written.
#[derive(Debug, Clone)]
pub struct RefOptions {
    /// How the references name the file (what the user gave, made absolute).
    pub url: String,
    /// Variables whose stored bytes are at most this many are inlined (kerchunk's
    /// `inline_threshold`; coordinates, mostly).
    pub inline_threshold: u64,
    /// Inline variables whose chunks cannot be referenced, whatever their size.
    pub inline_all: bool,
    /// Larger than this, a variable that must be inlined is refused.
    pub inline_limit: u64,
    /// Contiguous variables larger than this are referenced in pieces of at most this
    /// along their first dimension (0: never).
    pub split: u64,
}

impl Default for RefOptions {
    fn default() -> Self {
        RefOptions {
            url: String::new(),
            inline_threshold: 500,
            inline_all: false,
            inline_limit: 16 << 20,
            split: 16 << 20,
        }
    }
}

/// What the references hold, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefCounts {
    /// Variables of several files inlined as values because their chunks make no one
    /// grid, each with the reason (one line).
    pub inlined_instead: Vec<String>,
    /// Chunks referenced as byte ranges of the file.
    pub referenced: u64,
    /// Chunks inlined.
    pub inlined: u64,
    /// Chunks the file does not store (left out: they read as the fill value).
    pub missing: u64,
}

/// The kerchunk references (`{"version": 1, "refs": {...}}`) of `source`, a netCDF
/// file, and what they hold.
///
/// # Errors
/// [`Error::Unsupported`] naming the first variable that can be neither referenced
/// nor inlined (larger than `inline_limit` without `inline_all`); read and codec
/// errors.
pub fn references(source: &dyn DatasetSource, options: &RefOptions) -> Result<(Json, RefCounts)> {
    let files = Files::One {
        source,
        url: options.url.clone(),
    };
    references_of(&files, options)
}

/// The kerchunk references of several netCDF files joined by `concat` into one
/// virtual dataset, the files named by `urls` (in the order `concat` joins them; they
/// are the references' `templates`, one per file), and what they hold.
///
/// # Errors
/// As [`references`]; [`Error::Unsupported`] naming a large variable whose files
/// store it in chunks that make no one regular grid (other chunk shapes or codecs, or
/// a file holding a part of a chunk along the joined dimension); [`Error::Invalid`]
/// when `urls` does not name each input.
pub fn references_joined(
    concat: &Concat<'_>,
    urls: Vec<String>,
    options: &RefOptions,
) -> Result<(Json, RefCounts)> {
    if urls.len() != concat.starts().len() {
        return Err(Error::Invalid(format!(
            "{} URLs for {} joined files",
            urls.len(),
            concat.starts().len()
        )));
    }
    references_of(&Files::Joined { concat, urls }, options)
}

/// A virtual dataset of netCDF files: the Zarr documents and the chunks that are
/// inlined, in memory, and the byte ranges of the files the other chunks are.
pub(crate) struct Virtual {
    /// The documents (and inlined chunks) the Zarr sink wrote.
    pub memory: Arc<MemoryStore>,
    /// Chunk key, file (an index into `urls`), offset, length.
    pub ranges: Vec<(String, usize, u64, u64)>,
    /// The files, as the references name them.
    pub urls: Vec<String>,
    /// What the references hold.
    pub counts: RefCounts,
    /// Array documents of referenced variables with every chunk stored and no
    /// `_FillValue` of their own.
    whole: Vec<crate::store::StoreKey>,
}

/// The virtual dataset of `source`, a netCDF file named `url` (Zarr version 3
/// documents, for an Icechunk repository).
///
/// # Errors
/// As [`references`].
pub(crate) fn virtual_one(source: &dyn DatasetSource, options: &RefOptions) -> Result<Virtual> {
    let files = Files::One {
        source,
        url: options.url.clone(),
    };
    virtual_of(&files, options, virtual_v3())
}

/// The virtual dataset of several netCDF files joined by `concat` (see
/// [`references_joined`]), with Zarr version 3 documents.
///
/// # Errors
/// As [`references_joined`].
pub(crate) fn virtual_joined(
    concat: &Concat<'_>,
    urls: Vec<String>,
    options: &RefOptions,
) -> Result<Virtual> {
    virtual_of(&Files::Joined { concat, urls }, options, virtual_v3())
}

/// How a virtual dataset's documents are written for Icechunk: Zarr version 3,
/// without consolidated metadata.
fn virtual_v3() -> WriteOptions {
    WriteOptions {
        zarr3: true,
        unconsolidated: true,
        ..WriteOptions::default()
    }
}

fn references_of(files: &Files<'_, '_>, options: &RefOptions) -> Result<(Json, RefCounts)> {
    let write = WriteOptions {
        pure_zarr: true,
        bare_nonfinite_attrs: true,
        ..WriteOptions::default()
    };
    let v = virtual_of(files, options, write)?;
    // Their `.zarray` says no fill, as the file does, or xarray would mask values.
    for key in &v.whole {
        if let Some(bytes) = v.memory.get(key)? {
            let mut doc = crate::json::parse(&bytes)
                .map_err(|e| Error::metadata(key.clone(), e.to_string()))?;
            doc.set("fill_value", Json::Null);
            v.memory.put(key, doc.to_text().as_bytes())?;
        }
    }
    let several = v.urls.len() > 1;
    let urls: Vec<Json> = (0..v.urls.len())
        .map(|i| {
            Json::String(if several {
                format!("{{{{{}}}}}", template_name(i))
            } else {
                v.urls[i].clone()
            })
        })
        .collect();
    let mut counts = v.counts;
    let mut refs: Vec<(String, Json)> = Vec::new();
    for (key, _) in v.memory.list()? {
        let Some(bytes) = v.memory.get(&key)? else {
            continue;
        };
        let name = key.to_string();
        let is_doc = [".zarray", ".zattrs", ".zgroup", ".zmetadata"]
            .iter()
            .any(|d| name.ends_with(d));
        // No consolidated metadata: references are opened without it (kerchunk's own
        // have none), so each document is read where it is.
        if name == ".zmetadata" {
            continue;
        }
        let value = match String::from_utf8(bytes) {
            Ok(text) if is_doc => Json::String(text),
            Ok(text) => {
                counts.inlined += 1;
                Json::String(format!("base64:{}", encode_base64(text.as_bytes())))
            }
            Err(e) => {
                counts.inlined += 1;
                Json::String(format!("base64:{}", encode_base64(e.as_bytes())))
            }
        };
        refs.push((name, value));
    }
    for (key, file, offset, len) in v.ranges {
        refs.push((
            key,
            Json::Array(vec![
                urls[file].clone(),
                Json::Number(Number::from_u64(offset)),
                Json::Number(Number::from_u64(len)),
            ]),
        ));
    }
    refs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut top = vec![("version".into(), Json::Number(Number::from_u64(1)))];
    if several {
        let templates = v
            .urls
            .iter()
            .enumerate()
            .map(|(i, url)| (template_name(i), Json::String(url.clone())))
            .collect();
        top.push(("templates".into(), Json::Object(templates)));
    }
    top.push(("refs".into(), Json::Object(refs)));
    Ok((Json::Object(top), counts))
}

/// The virtual dataset of `files`, its documents written as `write` says (Zarr
/// version 2 for kerchunk, version 3 for Icechunk).
fn virtual_of(files: &Files<'_, '_>, options: &RefOptions, write: WriteOptions) -> Result<Virtual> {
    let source = files.source();
    // An enum is referenced as its base integers (the bytes the file stores), its
    // members said by CF's flag attributes, as a copy to Zarr writes it; other
    // user-defined types have no Zarr form to refer to.
    let (atomic, losses) = crate::model::user::atomic_view(source.dataset());
    if let Some(loss) = losses.first() {
        return Err(crate::Error::Unsupported(format!(
            "{loss}: references cannot name its values (copy the file into a store instead)"
        )));
    }
    let dataset = &atomic;
    let mut plan = plan_copy(
        source,
        dataset,
        &StorageChanges::default(),
        &PlanOptions::default(),
    )?;
    let memory = Arc::new(MemoryStore::new());
    let zarr3 = write.zarr3;
    // Variables whose bytes can be referenced are stored as the file stores them.
    let mut layouts = std::collections::HashMap::new();
    // Why a variable of several files cannot be referenced, for its refusal.
    let mut why_not = std::collections::HashMap::new();
    // Contiguous variables referenced in pieces.
    let mut splits = std::collections::HashMap::new();
    for (path, var) in dataset.vars() {
        let shape = dataset.var_shape(var);
        let bytes = stored_bytes(&shape, var.nc_type);
        let small = bytes <= options.inline_threshold;
        let layout = files.layout(&path);
        let Some(enc) = plan.get_mut(&path) else {
            continue;
        };
        match layout {
            Ok(Some(mut layout)) if !small => {
                let item = crate::encoding::item_size(var.nc_type, 1).max(1) as u64;
                if let Some(cut) = split::split_of(&layout, &shape, item, options.split)
                    .filter(|_| !files.joins(&path))
                {
                    layout = cut.layout(&layout, &shape);
                    splits.insert(path.clone(), cut);
                }
                enc.chunking = layout.chunking.clone();
                enc.codecs = layout.codecs.clone();
                enc.endian = layout.endian;
                layouts.insert(path, layout);
                continue;
            }
            Err(why) => {
                why_not.insert(path, why);
            }
            Ok(_) => {}
        }
        // Inlined values are one chunk (a file's chunking made for appending, 1024
        // times for a 1-D record variable, would inline mostly fill).
        if !shape.is_empty() && !shape.contains(&0) && bytes <= options.inline_limit {
            enc.chunking = Some(crate::encoding::Chunking::Chunked(shape));
        }
    }
    let mut sink = ZarrSink::new(Target::in_place(Box::new(memory.clone())), write)?;
    sink.prepare(dataset, &mut plan)?;
    sink.define(dataset, &plan)?;
    let mut counts = RefCounts::default();
    // Referenced variables with every chunk stored and no `_FillValue` of their own.
    let mut whole = Vec::new();
    let mut ranges: BTreeMap<String, (usize, u64, u64)> = BTreeMap::new();
    let mut inline = HashSet::new();
    for (path, var) in dataset.vars() {
        if !source.has_data(&path) {
            continue;
        }
        let shape = dataset.var_shape(var);
        let enc = layouts.get(&path);
        let stored_bytes = stored_bytes(&shape, var.nc_type);
        let referable = enc.is_some_and(|e| sink.takes_chunks_of(&path, e)) && !shape.is_empty();
        let small = stored_bytes <= options.inline_threshold || files.inlined_always(&path);
        if !referable || small {
            if !small && stored_bytes > options.inline_limit && !options.inline_all {
                if let Some(why) = why_not.get(&path) {
                    return Err(Error::Unsupported(format!(
                        "variable '{path}': {why}; it is {stored_bytes} bytes, over the {} inlined at most; --inline-all inlines it",
                        options.inline_limit
                    )));
                }
                return Err(Error::Unsupported(format!(
                    "variable '{path}': its chunks cannot be referenced (stored as one contiguous block, as strings, or with a filter numcodecs has no twin of) and it is {stored_bytes} bytes, over the {} inlined at most; --inline-all inlines it",
                    options.inline_limit
                )));
            }
            if let Some(why) = why_not.get(&path).filter(|_| !small) {
                counts.inlined_instead.push(format!(
                    "variable '{path}': {why}; its {stored_bytes} bytes are inlined as values"
                ));
            }
            inline.insert(path);
            continue;
        }
        let chunks = enc.and_then(|e| e.chunk_shape()).unwrap_or(&shape).to_vec();
        let grid: Vec<u64> = shape
            .iter()
            .zip(&chunks)
            .map(|(n, c)| n.div_ceil((*c).max(1)))
            .collect();
        let key = crate::formats::zarr::array_key_of(&path)?;
        let mut missing_here = false;
        let mut failed = None;
        let mut values_of = Vec::new();
        // A piece of a contiguous variable lies in the one block the file stores.
        let whole_place = match splits.get(&path) {
            Some(cut) => Some((cut, files.place(&path, &vec![0; shape.len()], &shape)?)),
            None => None,
        };
        let place_of = |index: &[u64]| match whole_place {
            Some((cut, (file, ChunkPlace::At { offset, .. }))) => {
                let (offset, len) = cut.piece(offset, index.first().copied().unwrap_or(0));
                Ok((file, ChunkPlace::At { offset, len }))
            }
            Some((_, place)) => Ok(place),
            None => files.place(&path, index, &chunks),
        };
        for_each_index(&grid, |index| {
            if failed.is_some() {
                return;
            }
            match place_of(index) {
                Ok((file, ChunkPlace::At { offset, len })) => {
                    let name: Vec<String> = index.iter().map(u64::to_string).collect();
                    // Zarr version 2's `0.1`, version 3's default `c/0/1`.
                    let chunk = if zarr3 {
                        format!("{key}/c/{}", name.join("/"))
                    } else {
                        format!("{key}/{}", name.join("."))
                    };
                    ranges.insert(chunk, (file, offset, len));
                    counts.referenced += 1;
                }
                Ok((_, ChunkPlace::Missing)) => {
                    counts.missing += 1;
                    missing_here = true;
                }
                Ok((_, ChunkPlace::Unreferenced)) => values_of.push(index.to_vec()),
                Err(e) => failed = Some(e),
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if !missing_here && var.attr("_FillValue").is_none() {
            whole.push(key.join(if zarr3 { "zarr.json" } else { ".zarray" })?);
        }
        // Chunks stored otherwise: their values, encoded by the sink, inlined.
        for index in values_of {
            let start: Vec<u64> = index.iter().zip(&chunks).map(|(i, c)| i * c).collect();
            let count = start
                .iter()
                .zip(chunks.iter().zip(&shape))
                .map(|(s, (c, n))| (*c).min(n - s))
                .collect();
            let region = Region::block(start, count);
            let values = source.read(&path, &region)?;
            sink.write(&path, &region, &values)?;
        }
    }
    let copy = CopyOptions {
        data: Some(inline),
        ..CopyOptions::default()
    };
    write_values(source, dataset, &plan, &sink, &copy)?;
    Box::new(sink).finish()?;
    Ok(Virtual {
        memory,
        ranges: ranges
            .into_iter()
            .map(|(key, (file, offset, len))| (key, file, offset, len))
            .collect(),
        urls: files.urls().to_vec(),
        counts,
        whole,
    })
}

/// The bytes a variable of `shape` and type `t` holds.
fn stored_bytes(shape: &[u64], t: crate::model::NcType) -> u64 {
    shape
        .iter()
        .product::<u64>()
        .saturating_mul(crate::encoding::item_size(t, 1).max(1) as u64)
}

/// The template naming file `i` of several.
fn template_name(i: usize) -> String {
    format!("f{i}")
}
