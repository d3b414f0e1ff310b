//! A dataset to write, whatever its format: the structure first (groups, dimensions,
//! variables with their planned encodings, attributes), then the values slab by slab,
//! then [`DatasetSink::finish`] makes the dataset whole and visible.
//!
//! The NCZarr / Zarr v2 writer is a sink (`nczarr::ZarrSink`); a Zarr v3 or netCDF
//! writer is another. `copy::write_dataset` drives any sink from any
//! [`crate::source::DataSource`].

use crate::chunking::Region;
use crate::encoding::{Encoding, Plan};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::{Dataset, UValue, Values, VarPath};

/// Check a slab given to a file sink's [`DatasetSink::write`]: `region` lies in `shape`
/// with no stride, and `values` are as many as it holds, of type `nc_type`. Returns how
/// many that is.
///
/// # Errors
/// [`Error::Region`] naming the variable at `var` and what does not fit.
pub fn check_slab(
    var: &VarPath,
    shape: &[u64],
    nc_type: crate::model::NcType,
    region: &Region,
    values: &Values,
) -> Result<u64> {
    region
        .check(shape)
        .map_err(|e| Error::region(var, e.to_string()))?;
    if region.stride.iter().any(|&s| s != 1) {
        return Err(Error::region(var, format!("region {region} has a stride")));
    }
    let expect = region.len().unwrap_or(u64::MAX);
    if values.len() as u64 != expect || values.nc_type() != nc_type {
        return Err(Error::region(
            var,
            format!(
                "{} values of type {} given for region {region} of {expect} of type {nc_type}",
                values.len(),
                values.nc_type(),
            ),
        ));
    }
    Ok(expect)
}

/// Bytes of values in a file sink's slab at most, whatever `--memory` allows (but
/// [`FILE_SLAB_CHUNKS`] chunks). A file takes values in any order, so small slabs cost
/// it nothing, while each slab's memory is fresh pages until the slabs before it are
/// recycled: with a sixth of 256 MiB, a 90 MiB copy to a classic file spent a quarter
/// of its time faulting in and clearing two slabs (0.126 s; 0.067 s with this cap, also
/// the fastest netCDF-4 rechunk of `benches/nc4_vs_nccopy.sh`, whose chunks of 2.6 MB
/// need several to a slab to keep both cores encoding).
pub const FILE_SLAB_BYTES: u64 = 12 << 20;

/// Chunks a file sink's slab may hold whatever [`FILE_SLAB_BYTES`] says: the chunks of
/// a slab are encoded in parallel, and large ones must still be several to a slab.
pub const FILE_SLAB_CHUNKS: u64 = 4;

/// The slabs a file sink writes `within` (or all) of a variable of `shape`, of values
/// of `item` bytes, in: blocks of whole `unit`s (its chunks; ones where it has none) of
/// about `budget` elements and at most [`FILE_SLAB_BYTES`] (or [`FILE_SLAB_CHUNKS`]
/// units), following the input's `read_chunks` where they fit.
pub fn file_slabs(
    shape: &[u64],
    unit: Option<&[u64]>,
    item: u64,
    budget: u64,
    read_chunks: Option<&[u64]>,
    within: Option<&Region>,
) -> Vec<Region> {
    let block = within.cloned().unwrap_or_else(|| Region::whole(shape));
    if shape.is_empty() {
        return vec![block];
    }
    let unit_len = unit.map_or(1, |u| u.iter().product::<u64>());
    let cap = FILE_SLAB_BYTES.max(
        unit_len
            .saturating_mul(item)
            .saturating_mul(FILE_SLAB_CHUNKS),
    );
    let budget = budget.min(cap / item.max(1)).max(1);
    let ones = vec![1u64; shape.len()];
    crate::chunking::block_slabs(&block, unit.unwrap_or(&ones), read_chunks, budget)
}

/// What one run of a sink writes: usually everything; a copy in parts (many runs,
/// perhaps on many machines) writes the metadata in one run, values in the others, and
/// makes the dataset openable in a last one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum WriteStage {
    /// The whole dataset.
    #[default]
    Whole,
    /// Every metadata document except what makes the dataset open, which is kept
    /// aside for the finishing run; `notes` (key, value) are written with it.
    MetadataOnly {
        /// Extra objects to write (a copy's fingerprint).
        notes: Vec<(String, Vec<u8>)>,
    },
    /// Values only; `notes` are written at the end (a part's marker), each holding
    /// the sink's report of what it wrote, which the finishing run reads (a Zarr v2
    /// sink's: [`crate::formats::zarr::PartReport`]).
    Values {
        /// The objects to write when done (their given contents are replaced).
        notes: Vec<(String, Vec<u8>)>,
    },
}

/// A dataset being written.
pub trait DatasetSink: Sync {
    /// Fit the planned encodings to what this format can hold, before anything is
    /// written. Returns one warning per change that keeps the values but not a property
    /// (a byte order, a codec), each naming what changed.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] naming the first thing the format cannot hold at all.
    fn prepare(&self, dataset: &Dataset, plan: &mut Plan) -> Result<Vec<String>>;

    /// Declare the dataset: its groups, dimensions, variables (stored as `plan` says)
    /// and attributes. Values come after.
    ///
    /// # Errors
    /// [`crate::Error::Invalid`] for a variable without an encoding in `plan`; store
    /// errors.
    fn define(&mut self, dataset: &Dataset, plan: &Plan) -> Result<()>;

    /// The regions to write the variable at `var` in (all of it, or the block `within`
    /// when given, whose edges lie on chunk edges): each a block of whole stored pieces
    /// (chunks) of at most about `budget` elements, so that memory stays bounded and
    /// every piece is written once. When the values come chunked as `read_chunks`,
    /// slabs follow those chunks too where that fits the budget, so each is read once.
    ///
    /// # Errors
    /// [`crate::Error::Invalid`] for a variable that was not defined.
    fn slabs(
        &self,
        var: &VarPath,
        budget: u64,
        read_chunks: Option<&[u64]>,
        within: Option<&Region>,
    ) -> Result<Vec<Region>>;

    /// The pieces the variable at `var` is written in when they are larger than its
    /// chunks (Zarr v3 shards): the blocks of a copy in parts are made of whole
    /// pieces, so no two parts write one piece. `None`: the planned chunks.
    fn write_unit(&self, var: &VarPath) -> Option<Vec<u64>> {
        let _ = var;
        None
    }

    /// Store the values of `region` (one of [`DatasetSink::slabs`]) of the variable at
    /// `var`, in C order.
    ///
    /// # Errors
    /// Codec and store errors naming the variable and chunk.
    fn write(&self, var: &VarPath, region: &Region, values: &Values) -> Result<()>;

    /// Store the values of `region` (one of [`DatasetSink::slabs`]) of the variable at
    /// `var`, of a user-defined type other than an enum, in C order: only formats that
    /// hold such types (netCDF-4 files) take them.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a format without user-defined types; as
    /// [`DatasetSink::write`].
    fn write_user(&self, var: &VarPath, region: &Region, values: &[UValue]) -> Result<()> {
        let _ = (region, values);
        Err(Error::Unsupported(format!(
            "variable '{var}': this format has no user-defined types"
        )))
    }

    /// True when the variable at `var` is stored in chunks exactly like those of
    /// `encoding` (chunk shape, element bytes and byte order, C order), so that chunks
    /// stored elsewhere with that encoding can go to [`DatasetSink::write_chunks`]
    /// instead of values.
    fn takes_chunks_of(&self, var: &VarPath, encoding: &Encoding) -> bool {
        let _ = (var, encoding);
        false
    }

    /// Store whole chunks of the variable at `var`, each `(index, bytes)` encoded with
    /// the codec chain `codecs` (in encode order): put as they are when `codecs` is
    /// this sink's chain, decoded and encoded again otherwise. Only called when
    /// [`DatasetSink::takes_chunks_of`] said so.
    ///
    /// # Errors
    /// Codec and store errors naming the variable and chunk.
    fn write_chunks(
        &self,
        var: &VarPath,
        chunks: Vec<(Vec<u64>, Vec<u8>)>,
        codecs: &[Json],
    ) -> Result<()> {
        let _ = (chunks, codecs);
        Err(Error::Unsupported(format!(
            "variable '{var}': this format does not take chunks as stored"
        )))
    }

    /// Write what makes the dataset openable and put it in place. Until this returns,
    /// nothing at the destination looks like a complete dataset; a sink dropped without
    /// finishing removes what it wrote.
    ///
    /// # Errors
    /// Store errors; the destination's previous content is then kept.
    fn finish(self: Box<Self>) -> Result<()>;
}
