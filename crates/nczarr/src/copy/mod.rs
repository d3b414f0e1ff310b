//! Source -> sink: the one write path. nczgen writes compiled CDL through it and
//! nczcopy any dataset that can be opened; the sink decides the slabs (whole chunks
//! of the output), the source reads them, and the next slab is read while the last
//! one is encoded and stored.
//!
//! What a copy may change on the way has a file each: [`chunkspec`] (nccopy's `-c`),
//! [`filters`] (`-d`, `-s`, `-F`, `--codec`), [`mod@select`] (`-v`, `-V`, `-g`, `-G`, `-u`),
//! [`plan()`] and [`plan_copy`] (how each variable is stored).

pub mod chunkspec;
pub mod filters;
pub mod parts;
mod plan;
pub mod select;

pub use chunkspec::{ChunkSpec, ChunkSpecError};
pub use filters::{parse_codec, Compression, FilterSpec, FilterSpecError};
pub use parts::{check_fingerprint, fingerprint, finish_parts, Part};
pub use plan::{plan, plan_copy, StorageChanges};
pub use select::{select, Selected, Selection};

use std::collections::HashSet;
use std::sync::mpsc;

use crate::chunking::Region;
use crate::encoding::{item_size, Plan};
use crate::error::{Error, Result};
use crate::model::{Dataset, Values, VarPath};
use crate::sink::DatasetSink;
use crate::source::{DataSource, DatasetSource};

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
}

impl Default for CopyOptions<'_> {
    fn default() -> Self {
        CopyOptions {
            slab_bytes: 64 << 20,
            data: None,
            progress: None,
            part: None,
        }
    }
}

/// One variable to copy: where, how much per slab, and its output chunk shape.
struct Job<'p> {
    path: VarPath,
    budget: u64,
    item: u64,
    out_chunks: Option<&'p [u64]>,
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
    let mut jobs = Vec::new();
    for (path, var) in dataset.vars() {
        let wanted = options.data.as_ref().is_none_or(|d| d.contains(&path));
        if !wanted || !source.has_data(&path) {
            continue;
        }
        let enc = plan
            .get(&path)
            .ok_or_else(|| Error::Invalid(format!("variable '{path}' has no planned encoding")))?;
        let item = item_size(var.nc_type, enc.string_width.unwrap_or(1)).max(1) as u64;
        jobs.push(Job {
            budget: (options.slab_bytes / item).max(1),
            item,
            out_chunks: enc.chunk_shape(),
            path,
        });
    }
    if let Some(p) = options.progress {
        let (mut bytes, mut chunks) = (0u64, 0u64);
        for job in &jobs {
            let shape = dataset.shape_of(&job.path).unwrap_or_default();
            let n: u64 = shape.iter().product();
            bytes = bytes.saturating_add(n.saturating_mul(job.item));
            chunks = chunks.saturating_add(chunk_count(&Region::whole(&shape), job.out_chunks));
        }
        p.start(bytes, chunks);
    }
    let mut dealt = 0u64;
    for job in &jobs {
        if let Some(p) = options.progress {
            p.variable(&job.path);
        }
        let input_chunks = source
            .encoding(&job.path)
            .and_then(|e| e.chunk_shape().map(<[u64]>::to_vec));
        let input_chunks = input_chunks.as_deref();
        let regions = match options.part {
            None => sink.slabs(&job.path, job.budget, input_chunks, None)?,
            Some(part) => {
                // This part's blocks of the variable, each cut into slabs.
                let shape = dataset.shape_of(&job.path).unwrap_or_default();
                let mut regions = Vec::new();
                for block in parts::blocks(&shape, job.out_chunks, part.count) {
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
        copy_var(source, sink.as_ref(), job, &regions, options.progress)?;
    }
    sink.finish()
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

/// Copy the slabs `regions` of one variable, reading the next while the sink stores
/// the last.
fn copy_var(
    source: &dyn DataSource,
    sink: &dyn DatasetSink,
    job: &Job<'_>,
    regions: &[Region],
    progress: Option<&dyn Progress>,
) -> Result<()> {
    let path = &job.path;
    std::thread::scope(|scope| -> Result<()> {
        // A rendezvous: the next slab is read while the last is written, and no third
        // waits between them.
        let (tx, rx) = mpsc::sync_channel::<Result<Values>>(0);
        scope.spawn(move || {
            for r in regions.iter().filter(|r| !r.is_empty()) {
                if tx.send(source.read(path, r)).is_err() {
                    break;
                }
            }
        });
        for (region, values) in regions.iter().filter(|r| !r.is_empty()).zip(rx) {
            sink.write(path, region, &values?)?;
            if let Some(p) = progress {
                let n = region.len().unwrap_or(0);
                p.advance(
                    n.saturating_mul(job.item),
                    chunk_count(region, job.out_chunks),
                );
            }
        }
        Ok(())
    })
}
