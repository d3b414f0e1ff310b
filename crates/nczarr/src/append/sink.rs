//! [`AppendSink`]: the arrays of a dataset being grown, written in place through its
//! own storage facts (chunks, codecs, fill, key layout), whoever wrote it.

use std::collections::HashMap;

use crate::chunking::{block_slabs, Region};
use crate::encoding::Plan;
use crate::error::{AppendError, Result};
use crate::formats::zarr::array::ArrayWriter;
use crate::model::{Dataset, Values, VarPath};
use crate::sink::DatasetSink;
use crate::store::WritableStore;

/// One grown array: its writer (at the new shape), and the pieces it is written in.
pub(super) struct GrownArray {
    pub writer: ArrayWriter,
    /// Shards, when the array is sharded: a block holds whole ones.
    pub unit: Option<Vec<u64>>,
}

/// The grown arrays of a dataset, written into its store.
pub(super) struct AppendSink<'w> {
    pub store: &'w dyn WritableStore,
    pub arrays: HashMap<VarPath, GrownArray>,
}

impl AppendSink<'_> {
    fn array(&self, var: &VarPath) -> Result<&GrownArray> {
        self.arrays
            .get(var)
            .ok_or_else(|| AppendError::NotAppended { var: var.clone() }.into())
    }
}

impl DatasetSink for AppendSink<'_> {
    fn prepare(&self, _: &Dataset, _: &mut Plan) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// The dataset is defined already: its documents change once the values are in.
    fn define(&mut self, _: &Dataset, _: &Plan) -> Result<()> {
        Ok(())
    }

    fn slabs(
        &self,
        var: &VarPath,
        budget: u64,
        read_chunks: Option<&[u64]>,
        within: Option<&Region>,
    ) -> Result<Vec<Region>> {
        let a = self.array(var)?;
        let grid = a.writer.grid();
        let block = within
            .cloned()
            .unwrap_or_else(|| Region::whole(&grid.shape));
        Ok(block_slabs(&block, &grid.chunks, read_chunks, budget))
    }

    fn write_unit(&self, var: &VarPath) -> Option<Vec<u64>> {
        self.array(var).ok()?.unit.clone()
    }

    fn write(&self, var: &VarPath, region: &Region, values: &Values) -> Result<()> {
        self.array(var)?.writer.write(self.store, region, values)
    }

    fn finish(self: Box<Self>) -> Result<()> {
        Ok(self.store.finish()?)
    }
}
