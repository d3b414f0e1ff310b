//! What a planned copy reads, stores and holds in memory, variable by variable
//! (`nczcopy --dry-run`), and which of its rechunkings the memory allowed makes read
//! the same input chunks many times. The arithmetic is [`super::estimate`]'s.

use std::collections::HashSet;

use super::budget::MemoryBudget;
use super::estimate::{budget_for_reads, reads_per_input_chunk, stored_bytes};
use crate::encoding::{Encoding, Plan};
use crate::model::{Dataset, NcType, Var, VarPath};
use crate::source::DatasetSource;

/// What one variable of a copy costs.
#[derive(Debug, Clone)]
pub struct VarCost {
    /// The variable.
    pub path: VarPath,
    /// Its type.
    pub nc_type: NcType,
    /// Its shape.
    pub shape: Vec<u64>,
    /// How the input stores it.
    pub input: Encoding,
    /// How the output will store it.
    pub output: Encoding,
    /// Whether its values are copied (selected, and stored in the input).
    pub copied: bool,
    /// Bytes of values read (0 when not copied).
    pub bytes: u64,
    /// Bytes the output stores before compression, edge chunks' padding included.
    pub stored: u64,
}

/// What a whole copy costs.
#[derive(Debug, Clone, Default)]
pub struct CopyCost {
    /// Each variable, in the dataset's order.
    pub vars: Vec<VarCost>,
    /// Bytes of values read.
    pub bytes: u64,
    /// Bytes stored before compression.
    pub stored: u64,
    /// About how many bytes of memory the values take at the peak: the largest
    /// variable's slabs (read and written) and batches, each no larger than it.
    pub memory: u64,
}

/// The stored size of one element of `var` as the output stores it.
fn item_bytes(var: &Var, output: &Encoding) -> u64 {
    match var.nc_type {
        NcType::String => output.string_width.unwrap_or(1) as u64,
        t => t.size() as u64,
    }
}

/// Whether the values of `path` are copied: selected (`data`, `None` for all) and
/// stored in the input.
fn copied(source: &dyn DatasetSource, data: Option<&HashSet<VarPath>>, path: &VarPath) -> bool {
    data.is_none_or(|d| d.contains(path)) && source.has_data(path)
}

/// The cost of copying `dataset` (the selection of `source`'s) stored as `plan` says,
/// the values of `data` only (`None`: all), within `budget`.
pub fn copy_cost(
    source: &dyn DatasetSource,
    dataset: &Dataset,
    plan: &Plan,
    data: Option<&HashSet<VarPath>>,
    budget: MemoryBudget,
) -> CopyCost {
    let mut cost = CopyCost::default();
    for (path, var) in dataset.vars() {
        let input = source.encoding(&path).unwrap_or_default();
        let output: Encoding = plan.get(&path).cloned().unwrap_or_default();
        let shape = dataset.var_shape(var);
        let item = item_bytes(var, &output);
        let copied = copied(source, data, &path);
        let (bytes, stored) = if copied {
            (
                shape.iter().product::<u64>().saturating_mul(item),
                stored_bytes(&shape, output.chunk_shape(), item),
            )
        } else {
            (0, 0)
        };
        cost.bytes = cost.bytes.saturating_add(bytes);
        cost.stored = cost.stored.saturating_add(stored);
        cost.memory = cost.memory.max(bytes.min(budget.slab).saturating_mul(3));
        cost.vars.push(VarCost {
            path,
            nc_type: var.nc_type,
            shape,
            input,
            output,
            copied,
            bytes,
            stored,
        });
    }
    cost
}

/// Reads of each input chunk past which a rechunking is worth a warning: a rechunking
/// in memory smaller than the variable reads each input chunk a few times (maps into
/// series: about 20 at the default 256M); this many is memory too small for it
/// (`--memory 1K` read each 648 times, 31x slower).
const MANY_READS: f64 = 32.0;

/// One warning for each variable whose input chunks `budget` would read many times (the
/// output's slabs cutting them), saying what memory reads each about once.
pub fn reread_warnings(
    source: &dyn DatasetSource,
    dataset: &Dataset,
    plan: &Plan,
    data: Option<&HashSet<VarPath>>,
    budget: MemoryBudget,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (path, var) in dataset.vars() {
        if !copied(source, data, &path) {
            continue;
        }
        let (Some(input), Some(output)) = (source.encoding(&path), plan.get(&path)) else {
            continue;
        };
        let (Some(i), Some(o)) = (input.chunk_shape(), output.chunk_shape()) else {
            continue;
        };
        let item = item_bytes(var, output).max(1);
        let shape = dataset.var_shape(var);
        let slab_values = budget.slab_values(item);
        let reads = reads_per_input_chunk(&shape, i, o, slab_values);
        if reads > MANY_READS {
            let enough = budget_for_reads(&shape, i, o, slab_values, 1.5).saturating_mul(item);
            warnings.push(format!(
                "variable {path}: with --memory {}, each input chunk is read about {reads:.0} times (the output's slabs cut it); --memory {} reads each about once",
                size_text(budget.total),
                size_text(MemoryBudget::total_for_slab(enough))
            ));
        }
    }
    warnings
}

/// A size as `--memory` takes it, rounded up to a whole K, M or G.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{}G", b.div_ceil(1 << 30)),
        b if b >= 1 << 20 => format!("{}M", b.div_ceil(1 << 20)),
        b => format!("{}K", b.div_ceil(1 << 10).max(1)),
    }
}
