//! Source -> sink: the one write path. nczgen writes compiled CDL through it and
//! nczcopy any dataset that can be opened; the sink decides the slabs (whole chunks
//! of the output), the source reads them, and the next slab is read while the last
//! one is encoded and stored.

use std::sync::mpsc;

use crate::encoding::{item_size, Plan, PlanOptions};
use crate::error::{Error, Result};
use crate::model::{Values, VarPath};
use crate::sink::DatasetSink;
use crate::source::{DataSource, DatasetSource};

/// How values move from source to sink.
#[derive(Debug, Clone)]
pub struct CopyOptions {
    /// About how many bytes of values one slab may hold (per variable being copied).
    pub slab_bytes: u64,
}

impl Default for CopyOptions {
    fn default() -> Self {
        CopyOptions {
            slab_bytes: 64 << 20,
        }
    }
}

/// Plan how every variable of `source` is written: as it is stored there (its special
/// attributes, for compiled CDL), the rest decided by `options`.
///
/// # Errors
/// As [`crate::encoding::plan`].
pub fn plan(source: &dyn DatasetSource, options: &PlanOptions) -> Result<Plan> {
    Ok(crate::encoding::plan(
        source.dataset(),
        |v| source.encoding(v),
        options,
    )?)
}

/// Write the dataset `source` holds, stored as `plan` says, into `sink`: declare,
/// copy every variable slab by slab, finish.
///
/// # Errors
/// The first read, codec or store error; the sink is then dropped unfinished, which
/// leaves the destination as it was.
pub fn write_dataset(
    source: &dyn DatasetSource,
    plan: &Plan,
    mut sink: Box<dyn DatasetSink>,
    options: &CopyOptions,
) -> Result<()> {
    let dataset = source.dataset();
    sink.define(dataset, plan)?;
    for (path, var) in dataset.vars() {
        if !source.has_data(&path) {
            continue;
        }
        let enc = plan
            .get(&path)
            .ok_or_else(|| Error::Invalid(format!("variable '{path}' has no planned encoding")))?;
        let item = item_size(var.nc_type, enc.string_width.unwrap_or(1)).max(1) as u64;
        let budget = (options.slab_bytes / item).max(1);
        copy_var(source, sink.as_ref(), &path, budget)?;
    }
    sink.finish()
}

/// Copy one variable, reading the next slab while the sink stores the last.
fn copy_var(
    source: &dyn DataSource,
    sink: &dyn DatasetSink,
    path: &VarPath,
    budget: u64,
) -> Result<()> {
    let regions = sink.slabs(path, budget)?;
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = mpsc::sync_channel::<Result<Values>>(1);
        let reads = &regions;
        scope.spawn(move || {
            for r in reads {
                if r.is_empty() {
                    continue;
                }
                if tx.send(source.read(path, r)).is_err() {
                    break;
                }
            }
        });
        for (region, values) in regions.iter().filter(|r| !r.is_empty()).zip(rx) {
            sink.write(path, region, &values?)?;
        }
        Ok(())
    })
}
