//! Source -> sink: the one write path. nczgen writes compiled CDL through it and
//! nczcopy any dataset that can be opened; the sink decides the slabs (whole chunks
//! of the output), the source reads them, and the next slab is read while the last
//! one is encoded and stored.
//!
//! What a copy may change on the way has a file each: [`chunkspec`] (nccopy's `-c`),
//! [`filters`] (`-d`, `-s`, `-F`, `--codec`), [`mod@select`] (`-v`, `-V`, `-g`, `-G`, `-u`),
//! [`plan()`] and [`plan_copy`] (how each variable is stored). [`budget`] is the memory
//! model; [`cost`] (over [`estimate`]'s arithmetic) says what a copy will cost before it
//! runs; [`parts`] deals a copy's chunks to N runs and finishes them. [`copy_all`] is the
//! simplest copy; `crate::jobs::CopyJob` runs a whole nccopy-style copy from names.

pub mod budget;
pub mod chunkspec;
pub mod cost;
pub mod estimate;
mod fills;
pub mod filters;
mod identity;
pub mod parts;
mod plan;
pub mod select;

pub use budget::MemoryBudget;
pub use chunkspec::{ChunkSpec, ChunkSpecError};
pub use fills::carry_zarr_fills;
pub use filters::{parse_codec, Compression, FilterSpec, FilterSpecError};
pub use parts::{check_fingerprint, fingerprint, finish_parts, Part};
pub use plan::{longest_string_in, plan, plan_copy, LongestString, StorageChanges};
pub use select::{select, Selected, Selection};

use std::collections::{HashMap, HashSet};
use std::sync::mpsc;

use crate::chunking::for_each_index;
use crate::chunking::Region;
use crate::encoding::quantize::{quantize, Quantize};
use crate::encoding::{item_size, Encoding, Plan};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::{Dataset, Values, VarPath};
use crate::sink::DatasetSink;
use crate::source::DatasetSource;

/// Where a copy reports how far it is: a progress bar in the binary, nothing here.
pub trait Progress: Sync {
    /// The copy starts: `bytes` of values to move, into `chunks` output chunks.
    fn start(&self, bytes: u64, chunks: u64) {
        let _ = (bytes, chunks);
    }

    /// The variable at `var` starts.
    fn variable(&self, var: &VarPath) {
        let _ = var;
    }

    /// A slab was stored: `bytes` of values, `chunks` output chunks.
    fn advance(&self, bytes: u64, chunks: u64) {
        let _ = (bytes, chunks);
    }
}

/// How values move from source to sink.
#[derive(Clone)]
pub struct CopyOptions<'a> {
    /// About how many bytes of values one slab may hold (per variable being copied).
    pub slab_bytes: u64,
    /// The variables whose values are copied; `None` for every one the source has.
    pub data: Option<HashSet<VarPath>>,
    /// Where progress is reported.
    pub progress: Option<&'a dyn Progress>,
    /// Only this part's share of the chunks (a copy in parts).
    pub part: Option<Part>,
    /// Only these blocks of these variables, whose edges lie on the sink's chunk
    /// edges (an append: from the chunk that holds the old end on); `None`: all of
    /// every variable.
    pub within: Option<HashMap<VarPath, Region>>,
}

impl Default for CopyOptions<'_> {
    fn default() -> Self {
        CopyOptions {
            slab_bytes: 64 << 20,
            data: None,
            progress: None,
            part: None,
            within: None,
        }
    }
}

/// One variable to copy: where, how much per slab, and its output chunk shape.
struct Job {
    path: VarPath,
    shape: Vec<u64>,
    budget: u64,
    item: u64,
    /// The output's chunks, or the larger pieces it is written in (shards).
    out_chunks: Option<Vec<u64>>,
    /// netCDF's quantization of the values, with the fill value it leaves alone.
    quantize: Option<(Quantize, Option<f64>)>,
    /// Of a user-defined type other than an enum: values move as
    /// [`crate::model::UValue`]s.
    user: bool,
}

/// Write the whole of `source` into `sink`, each variable stored as [`plan()`] decides
/// by default and fitted to the sink ([`DatasetSink::prepare`]): the simplest copy (a
/// compiled CDL file into a new store). Returns the sink's warnings.
///
/// # Errors
/// As [`plan()`], [`DatasetSink::prepare`] and [`write_dataset`].
pub fn copy_all(source: &dyn DatasetSource, sink: Box<dyn DatasetSink>) -> Result<Vec<String>> {
    let mut p = plan(source, &crate::encoding::PlanOptions::default())?;
    let warnings = sink.prepare(source.dataset(), &mut p)?;
    write_dataset(source, source.dataset(), &p, sink, &CopyOptions::default())?;
    Ok(warnings)
}

/// Write `dataset` (the source's, or a selection of it), stored as `plan` says, into
/// `sink`, with the values `source` holds: declare, copy every variable slab by slab,
/// finish. Slabs follow the source's chunks where that fits the budget, so each input
/// chunk is read once.
///
/// # Errors
/// The first read, codec or store error; the sink is then dropped unfinished, which
/// leaves the destination as it was.
pub fn write_dataset(
    source: &dyn DatasetSource,
    dataset: &Dataset,
    plan: &Plan,
    mut sink: Box<dyn DatasetSink>,
    options: &CopyOptions<'_>,
) -> Result<()> {
    sink.define(dataset, plan)?;
    write_values(source, dataset, plan, sink.as_ref(), options)?;
    sink.finish()
}

/// The values part of [`write_dataset`]: copy every variable the source has data for
/// (and `options` selects) into `sink`, which has been defined and is finished after.
///
/// # Errors
/// As [`write_dataset`].
pub fn write_values(
    source: &dyn DatasetSource,
    dataset: &Dataset,
    plan: &Plan,
    sink: &dyn DatasetSink,
    options: &CopyOptions<'_>,
) -> Result<()> {
    let mut jobs = Vec::new();
    for (path, var) in dataset.vars() {
        let wanted = options.data.as_ref().is_none_or(|d| d.contains(&path))
            && options
                .within
                .as_ref()
                .is_none_or(|w| w.contains_key(&path));
        if !wanted || !source.has_data(&path) {
            continue;
        }
        let enc = plan
            .get(&path)
            .ok_or_else(|| Error::Invalid(format!("variable '{path}' has no planned encoding")))?;
        let item = item_size(var.nc_type, enc.string_width.unwrap_or(1)).max(1) as u64;
        jobs.push(Job {
            shape: dataset.shape_of(&path).unwrap_or_default(),
            budget: (options.slab_bytes / item).max(1),
            item,
            out_chunks: sink
                .write_unit(&path)
                .or_else(|| enc.chunk_shape().map(<[u64]>::to_vec)),
            quantize: enc.quantize.map(|q| {
                (
                    q,
                    enc.fill
                        .as_ref()
                        .filter(|f| f.len() == 1)
                        .map(|f| f.get_f64(0)),
                )
            }),
            user: var
                .user_type
                .as_ref()
                .and_then(|id| dataset.user_type(id))
                .is_some_and(|t| !matches!(t.kind, crate::model::user::UserKind::Enum { .. })),
            path,
        });
    }
    if let Some(p) = options.progress {
        let (mut bytes, mut chunks) = (0u64, 0u64);
        for job in &jobs {
            let block = block_of(job, options);
            let n = block.len().unwrap_or(0);
            bytes = bytes.saturating_add(n.saturating_mul(job.item));
            chunks = chunks.saturating_add(chunk_count(&block, job.out_chunks.as_deref()));
        }
        p.start(bytes, chunks);
    }
    let mut dealt = 0u64;
    for job in &jobs {
        if let Some(p) = options.progress {
            p.variable(&job.path);
        }
        let input = source.encoding(&job.path);
        let input_chunks = input.as_ref().and_then(Encoding::chunk_shape);
        // Chunks the output stores exactly as the source does move as stored bytes
        // (not when the values are quantized on the way).
        let as_stored = input.as_ref().filter(|e| {
            job.quantize.is_none()
                && !job.user
                && source.has_stored_chunks(&job.path)
                && sink.takes_chunks_of(&job.path, e)
        });
        let within = options.within.as_ref().and_then(|w| w.get(&job.path));
        let regions = match options.part {
            None => sink.slabs(&job.path, job.budget, input_chunks, within)?,
            Some(part) => {
                // This part's blocks of the variable, each cut into slabs.
                let shape = dataset.shape_of(&job.path).unwrap_or_default();
                let mut regions = Vec::new();
                for block in parts::blocks(&shape, job.out_chunks.as_deref(), part.count) {
                    if part.owns(dealt) {
                        regions.extend(sink.slabs(
                            &job.path,
                            job.budget,
                            input_chunks,
                            Some(&block),
                        )?);
                    }
                    dealt += 1;
                }
                regions
            }
        };
        copy_var(source, sink, job, &regions, as_stored, options.progress)?;
    }
    Ok(())
}

/// What of the job's variable is written: the block `options.within` gives, or all.
fn block_of(job: &Job, options: &CopyOptions<'_>) -> Region {
    options
        .within
        .as_ref()
        .and_then(|w| w.get(&job.path))
        .cloned()
        .unwrap_or_else(|| Region::whole(&job.shape))
}

/// The index in the variable's C order of element `i` of `region` (itself in C order).
fn element_index(shape: &[u64], region: &Region) -> impl Fn(usize) -> u64 {
    let strides = crate::chunking::c_strides(shape);
    let region = region.clone();
    move |i| {
        let mut rest = i as u64;
        let mut at = 0u64;
        for d in (0..region.rank()).rev() {
            let n = region.count[d].max(1);
            at += (region.start[d] + (rest % n) * region.stride[d]) * strides[d];
            rest /= n;
        }
        at
    }
}

/// Output chunks a region touches.
fn chunk_count(region: &Region, chunks: Option<&[u64]>) -> u64 {
    match chunks {
        Some(c) if c.len() == region.rank() => region
            .count
            .iter()
            .zip(&region.start)
            .zip(c)
            .map(|((n, s), c)| {
                let c = (*c).max(1);
                if *n == 0 {
                    0
                } else {
                    (s + n - 1) / c - s / c + 1
                }
            })
            .product(),
        _ => 1,
    }
}

/// What the reader of a copy hands to the writer for one slab.
enum Slab {
    /// The slab's values.
    Values(Values),
    /// The slab's values of a user-defined type.
    User(Vec<crate::model::UValue>),
    /// The slab's chunks as the source stores them, and the values of those it could
    /// not give so.
    Chunks {
        stored: Vec<(Vec<u64>, Vec<u8>)>,
        read: Vec<(Region, Values)>,
    },
}

/// Copy the slabs `regions` of one variable, reading the next while the sink stores
/// the last. With `as_stored` (the source's encoding, which the sink stores alike),
/// chunks move as stored bytes.
fn copy_var(
    source: &dyn DatasetSource,
    sink: &dyn DatasetSink,
    job: &Job,
    regions: &[Region],
    as_stored: Option<&Encoding>,
    progress: Option<&dyn Progress>,
) -> Result<()> {
    let path = &job.path;
    let read = |r: &Region| -> Result<Slab> {
        match as_stored.and_then(Encoding::chunk_shape) {
            _ if job.user => source.read_user(path, r).map(Slab::User),
            Some(chunks) => read_stored(source, path, &job.shape, chunks, r),
            None => source.read(path, r).map(Slab::Values),
        }
    };
    let codecs: &[Json] = as_stored.map_or(&[], |e| &e.codecs);
    std::thread::scope(|scope| -> Result<()> {
        // A rendezvous: the next slab is read while the last is written, and no third
        // waits between them.
        let (tx, rx) = mpsc::sync_channel::<Result<Slab>>(0);
        scope.spawn(move || {
            for r in regions.iter().filter(|r| !r.is_empty()) {
                if tx.send(read(r)).is_err() {
                    break;
                }
            }
        });
        for (region, slab) in regions.iter().filter(|r| !r.is_empty()).zip(rx) {
            match slab? {
                Slab::Values(mut values) => {
                    if let Some((q, fill)) = job.quantize {
                        let index = element_index(&job.shape, region);
                        quantize(&mut values, q, index, fill);
                    }
                    sink.write(path, region, &values)?;
                    // The next slab is read into this one's memory: fresh memory costs
                    // its size in page faults.
                    source.recycle(values);
                }
                Slab::User(values) => sink.write_user(path, region, &values)?,
                Slab::Chunks { stored, read } => {
                    sink.write_chunks(path, stored, codecs)?;
                    for (r, values) in read {
                        sink.write(path, &r, &values)?;
                    }
                }
            }
            if let Some(p) = progress {
                let n = region.len().unwrap_or(0);
                p.advance(
                    n.saturating_mul(job.item),
                    chunk_count(region, job.out_chunks.as_deref()),
                );
            }
        }
        Ok(())
    })
}

/// The chunks (of shape `chunks`) of the slab `region` of the variable at `path`
/// (of `shape`) as the source stores them, read in parallel; the values of each chunk
/// it cannot give so.
fn read_stored(
    source: &dyn DatasetSource,
    path: &VarPath,
    shape: &[u64],
    chunks: &[u64],
    region: &Region,
) -> Result<Slab> {
    use rayon::prelude::*;
    let first: Vec<u64> = region
        .start
        .iter()
        .zip(chunks)
        .map(|(s, c)| s / c.max(&1))
        .collect();
    let lens: Vec<u64> = (0..region.rank())
        .map(|d| {
            let c = chunks[d].max(1);
            (region.start[d] + region.count[d]).div_ceil(c) - first[d]
        })
        .collect();
    source.prefetch(path, region)?;
    let mut indexes = Vec::new();
    for_each_index(&lens, |i| {
        indexes.push(
            i.iter()
                .zip(&first)
                .map(|(i, f)| i + f)
                .collect::<Vec<u64>>(),
        );
    });
    let got: Vec<(Vec<u64>, Option<Vec<u8>>)> = indexes
        .into_par_iter()
        .map(|index| {
            let bytes = source.stored_chunk(path, &index)?;
            Ok((index, bytes))
        })
        .collect::<Result<_>>()?;
    let (mut stored, mut read) = (Vec::new(), Vec::new());
    for (index, bytes) in got {
        match bytes {
            Some(b) => stored.push((index, b)),
            None => {
                let start: Vec<u64> = index.iter().zip(chunks).map(|(i, c)| i * c).collect();
                let count = start
                    .iter()
                    .zip(chunks.iter().zip(shape))
                    .map(|(s, (c, n))| (*c).min(n.saturating_sub(*s)))
                    .collect();
                let r = Region::block(start, count);
                let values = source.read(path, &r)?;
                read.push((r, values));
            }
        }
    }
    Ok(Slab::Chunks { stored, read })
}
