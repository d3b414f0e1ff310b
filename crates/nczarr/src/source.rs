//! A dataset to read, whatever its format: the netCDF model, what the format is, how
//! each variable is stored, and its values by region.
//!
//! Every reader (NCZarr and pure Zarr today; netCDF files and Zarr v3 next) is a
//! [`DatasetSource`], and so is compiled CDL held in memory. Every tool reads through
//! this trait: the CDL printer, the writers (through the `copy` module), zmapdump. A new
//! format is a new implementation, not a new path through the tools.
//!
//! The `open` module turns a dataset name into a source.

use crate::chunking::Region;
use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::{Dataset, UValue, Values, VarPath};
use crate::store::ReadStore;

/// Slabs a source keeps from [`DataSource::recycle`] at most: about the slabs a
/// printer reads at once on a few cores (more are freed).
pub(crate) const RECYCLED_SLABS: usize = 6;

/// The slabs of fixed-size values a source keeps from [`DataSource::recycle`] to read
/// later regions into (at most [`RECYCLED_SLABS`]; strings are not kept).
#[derive(Debug, Default)]
pub(crate) struct SpareSlabs(std::sync::Mutex<Vec<Values>>);

impl SpareSlabs {
    /// A slab to read `n` values of type `t` into: the smallest kept that holds them
    /// without growing. None where none does: a small slab grown is new memory cleared
    /// twice (by the copy that grows it, then page by page by the kernel), where a new
    /// one is cleared once, as it is written.
    pub(crate) fn take(&self, t: crate::model::NcType, n: usize) -> Option<Values> {
        let mut spare = self.0.lock().ok()?;
        let best = spare
            .iter()
            .enumerate()
            .filter(|(_, v)| v.nc_type() == t && v.capacity() >= n)
            .min_by_key(|(_, v)| v.capacity())
            .map(|(i, _)| i)?;
        Some(spare.swap_remove(best))
    }

    /// Keep `values` for a later read, or free them.
    pub(crate) fn keep(&self, values: Values) {
        if values.nc_type() == crate::model::NcType::String {
            return;
        }
        if let Ok(mut spare) = self.0.lock() {
            if spare.len() < RECYCLED_SLABS {
                spare.push(values);
            }
        }
    }
}

/// Where a stored chunk is in a source's file ([`DatasetSource::chunk_place`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkPlace {
    /// Its bytes, encoded with the variable's codec chain: `len` bytes at `offset`.
    At {
        /// Where the bytes start.
        offset: u64,
        /// How many.
        len: u64,
    },
    /// Not stored: it reads as the fill value.
    Missing,
    /// Stored otherwise (or not known): read as values.
    Unreferenced,
}

/// Values of variables by region: what printers and writers read.
pub trait DataSource: Send + Sync {
    /// The values of `region` of the variable at `var`, in C order; positions with
    /// nothing stored read as the variable's fill value.
    ///
    /// # Errors
    /// [`Error::NoSuchVar`] for an unknown variable, [`Error::Region`] for a region outside it; store, codec
    /// and chunk errors naming what failed.
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values>;

    /// The values of `region` of a variable of a user-defined type other than an
    /// enum (those read as their base integers through [`DataSource::read`]), in C
    /// order.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where the source has no such variable; read errors.
    fn read_user(&self, var: &VarPath, region: &Region) -> Result<Vec<UValue>> {
        let _ = region;
        Err(Error::Unsupported(format!(
            "variable '{var}': this source has no values of user-defined types"
        )))
    }

    /// False when the variable has no values stored at all, so that a writer stores
    /// none either (CDL without a data section for it).
    fn has_data(&self, var: &VarPath) -> bool {
        let _ = var;
        true
    }

    /// Values read from this source that the reader is done with, for the source to
    /// read a later region into: a slab in memory already touched instead of fresh
    /// pages the kernel must clear (the reader frees a slab on another thread, where
    /// the allocator does not give it back to the next read). Dropped by default.
    fn recycle(&self, values: Values) {
        drop(values);
    }

    /// A hint: the variables `vars` are read whole next, in this order (a printer's
    /// data section). A source that answers over a network may fetch the small ones
    /// now, in one request (OPeNDAP). Nothing by default.
    fn will_read(&self, vars: &[VarPath]) {
        let _ = vars;
    }
}

/// What a dataset's format is: what `ncdump -k`, `nczdump -K` and the global special
/// attributes of `ncdump -s` show, and facts only some formats have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatInfo {
    /// The format's kind as `ncdump -k` prints it and `_Format` holds it (`netCDF-4`).
    pub kind: String,
    /// One line naming the exact format (for NCZarr, the metadata generation).
    pub detail: String,
    /// `_NCProperties` of the root group, if the dataset has it.
    pub nc_properties: Option<String>,
    /// `_SuperblockVersion`, for formats that have one (`-s`).
    pub superblock_version: Option<i32>,
    /// `_IsNetcdf4` (`-s`), for the formats that show it (with `_NCProperties` and
    /// `_SuperblockVersion`); `None` for the classic formats.
    pub is_netcdf4: Option<bool>,
    /// True when the format keeps a variable's codec chain as `_Codecs`, which
    /// `ncdump -s` then shows (NCZarr and Zarr do; HDF5 files do not).
    pub codecs_attr: bool,
    /// True when the format records each attribute's netCDF type. Pure Zarr (v2, and
    /// v3 without our `_nczarr_attr`) keeps attributes as JSON, whose numbers have no
    /// type: a `float` attribute written there reads back as a `double`.
    pub attr_types: bool,
    /// Further facts, one line each, for inspection tools (consolidated metadata...).
    pub facts: Vec<String>,
    /// The Zarr version of a Zarr store (2 for NCZarr and pure Zarr v2, 3); `None`
    /// for netCDF files and CDL. A copy keeps it by default, as nccopy keeps a kind.
    pub zarr_version: Option<u8>,
}

impl FormatInfo {
    /// Pure Zarr version 2 (zarr-python's, xarray's, kerchunk's references, netcdf-c's
    /// `mode=zarr`): Zarr v2 without NCZarr's typed metadata. Its `fill_value` is what
    /// xarray reads as `_FillValue`.
    pub fn is_pure_zarr2(&self) -> bool {
        self.zarr_version == Some(2) && !self.attr_types
    }
}

/// One stored chunk of a variable, decoded, for tools that look below the netCDF level.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkView {
    /// Where the chunk is stored (its store key).
    pub key: String,
    /// The stored element type in the format's own spelling (`<f4`).
    pub stored_type: String,
    /// The chunk's shape.
    pub chunk_shape: Vec<u64>,
    /// The codec chain, in encode order.
    pub codecs: Vec<Json>,
    /// The chunk's values in C order (with any padding past the array's edge), or
    /// `None` when the chunk is not stored.
    pub values: Option<Values>,
    /// What an unstored chunk reads as; `None` when the variable has no fill.
    pub fill: Option<Values>,
}

/// A dataset opened for reading.
pub trait DatasetSource: DataSource {
    /// The netCDF model: groups, dimensions, variables, attributes.
    fn dataset(&self) -> &Dataset;

    /// What the format is.
    fn format(&self) -> &FormatInfo;

    /// How the variable at `var` is stored, if it is stored at all.
    fn encoding(&self, var: &VarPath) -> Option<Encoding>;

    /// Problems met while reading the metadata that did not stop it (an attribute or
    /// variable skipped), one line each.
    fn problems(&self) -> &[String] {
        &[]
    }

    /// The variables whose values this build cannot read (an unknown codec or filter),
    /// each with why. Their metadata is read; a tool leaves them out, or fails when it
    /// is asked for one by name.
    fn unreadable(&self) -> Vec<(VarPath, String)> {
        Vec::new()
    }

    /// The source itself, for a job that works on one format's own structures (a
    /// netCDF-4 file's object headers, edited in place).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// The key/value store under the dataset, for tools that look at keys and objects.
    fn store(&self) -> Option<&dyn ReadStore> {
        None
    }

    /// Where chunk `index` of the variable at `var` lies in the source's one file
    /// ([`DatasetSource::file_location`]), as [`DatasetSource::stored_chunk`] would
    /// give its bytes: what a reference to it (kerchunk's) points at.
    ///
    /// # Errors
    /// As [`DatasetSource::stored_chunk`].
    fn chunk_place(&self, var: &VarPath, index: &[u64]) -> Result<ChunkPlace> {
        let _ = (var, index);
        Ok(ChunkPlace::Unreferenced)
    }

    /// How the variable at `var` lies in the source's one file when its stored bytes
    /// can be referenced as chunks ([`DatasetSource::chunk_place`] answers for this
    /// chunking): the chunk shape, and the codecs and byte order of those bytes.
    fn reference_layout(&self, var: &VarPath) -> Option<Encoding> {
        let _ = var;
        None
    }

    /// The one file this source reads (a path or URL), when it is one file.
    fn file_location(&self) -> Option<String> {
        None
    }

    /// True when a read costs about a system call (local data) rather than requests
    /// whose latency larger reads hide: a reader may then read in small slabs.
    fn reads_are_cheap(&self) -> bool {
        self.store().is_none_or(|s| s.reads_are_cheap())
    }

    /// Chunk `index` of the variable at `var` as the source stores it: bytes encoded
    /// with the codec chain of [`DatasetSource::encoding`], decoding to a whole chunk
    /// of its chunk shape in C order with the encoding's byte order. A copy that keeps
    /// the chunking moves these instead of values. `None` where the source cannot give
    /// the chunk so (not stored, stored otherwise, or past the variable's own extent):
    /// its values are read instead. Only asked when [`DatasetSource::has_stored_chunks`]
    /// says so.
    ///
    /// # Errors
    /// Store and file errors naming the variable and chunk.
    fn stored_chunk(&self, var: &VarPath, index: &[u64]) -> Result<Option<Vec<u8>>> {
        let _ = (var, index);
        Ok(None)
    }

    /// A hint: the stored chunks of `region` of the variable at `var` are read next
    /// (through [`DatasetSource::stored_chunk`]); a remote source fetches them now,
    /// concurrently.
    ///
    /// # Errors
    /// Store errors.
    fn prefetch(&self, var: &VarPath, region: &Region) -> Result<()> {
        let _ = (var, region);
        Ok(())
    }

    /// True when [`DatasetSource::stored_chunk`] may give chunks of the variable.
    fn has_stored_chunks(&self, var: &VarPath) -> bool {
        let _ = var;
        false
    }

    /// Chunk `index` of the variable at `var`, decoded (`[]` for a scalar).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the format has no chunks, [`Error::Region`] when
    /// the index is outside the chunk grid; store, codec and chunk errors.
    fn chunk(&self, var: &VarPath, index: &[u64]) -> Result<ChunkView> {
        let _ = index;
        Err(Error::Unsupported(format!(
            "variable '{var}': the dataset's format ({}) has no chunks to show",
            self.format().kind
        )))
    }
}

/// A source seen without some of its variables: tools leave out what cannot be read
/// ([`DatasetSource::unreadable`]) and read the rest through this.
pub struct Without<'a> {
    inner: &'a dyn DatasetSource,
    dataset: Dataset,
    problems: Vec<String>,
    /// A renamed variable's path in `inner`, by its path in `dataset`.
    old_paths: std::collections::HashMap<VarPath, VarPath>,
    /// Variables whose fill value changed: each value equal to the old one (its
    /// native-endian bytes) reads as the new one.
    refills: std::collections::HashMap<VarPath, (Vec<u8>, Vec<u8>)>,
}

impl<'a> Without<'a> {
    /// `inner` without the variables at `drop`, each with a problem line saying why
    /// it was left out.
    pub fn new(inner: &'a dyn DatasetSource, drop: &[(VarPath, String)]) -> Without<'a> {
        let paths: Vec<VarPath> = drop.iter().map(|(p, _)| p.clone()).collect();
        let mut problems = inner.problems().to_vec();
        problems.extend(
            drop.iter()
                .map(|(p, why)| format!("variable '{p}': {why}; variable left out")),
        );
        Without {
            old_paths: std::collections::HashMap::new(),
            refills: std::collections::HashMap::new(),
            inner,
            dataset: inner.dataset().without_vars(&paths),
            problems,
        }
    }
}

impl<'a> Without<'a> {
    /// `inner` seen as `dataset` (a view of its own dataset: fewer variables, other
    /// types), with `problems` added to its own.
    pub fn replaced(
        inner: &'a dyn DatasetSource,
        dataset: Dataset,
        problems: Vec<String>,
    ) -> Without<'a> {
        let mut all = inner.problems().to_vec();
        all.extend(problems);
        Without {
            inner,
            dataset,
            problems: all,
            old_paths: std::collections::HashMap::new(),
            refills: std::collections::HashMap::new(),
        }
    }

    /// `inner` seen as `dataset`, its variables renamed (or moved with a renamed
    /// group): `old_paths` gives each moved variable's path in `inner` by its new one.
    pub fn renamed(
        inner: &'a dyn DatasetSource,
        dataset: Dataset,
        old_paths: std::collections::HashMap<VarPath, VarPath>,
    ) -> Without<'a> {
        Without {
            inner,
            dataset,
            problems: inner.problems().to_vec(),
            old_paths,
            refills: std::collections::HashMap::new(),
        }
    }

    /// The same, the values of each variable of `refills` equal to its old fill value
    /// (native-endian bytes of one value) read as its new one, as NCO's ncatted
    /// converts them when it changes a `_FillValue`: what was missing stays missing.
    /// Their chunks are read as values, not moved as stored.
    #[must_use]
    pub fn refilled(
        mut self,
        refills: std::collections::HashMap<VarPath, (Vec<u8>, Vec<u8>)>,
    ) -> Without<'a> {
        self.refills = refills;
        self
    }

    /// Where the variable at `var` is in the inner source.
    fn at<'p>(&'p self, var: &'p VarPath) -> &'p VarPath {
        self.old_paths.get(var).unwrap_or(var)
    }
}

impl DataSource for Without<'_> {
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        let mut values = self.inner.read(self.at(var), region)?;
        if let Some((old, new)) = self.refills.get(var) {
            refill(&mut values, old, new);
        }
        Ok(values)
    }

    fn read_user(&self, var: &VarPath, region: &Region) -> Result<Vec<UValue>> {
        self.inner.read_user(self.at(var), region)
    }

    fn has_data(&self, var: &VarPath) -> bool {
        self.inner.has_data(self.at(var))
    }

    fn recycle(&self, values: Values) {
        self.inner.recycle(values);
    }

    fn will_read(&self, vars: &[VarPath]) {
        let inner: Vec<VarPath> = vars.iter().map(|v| self.at(v).clone()).collect();
        self.inner.will_read(&inner);
    }
}

impl DatasetSource for Without<'_> {
    fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn format(&self) -> &FormatInfo {
        self.inner.format()
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        self.inner.encoding(self.at(var))
    }

    fn problems(&self) -> &[String] {
        &self.problems
    }

    fn store(&self) -> Option<&dyn ReadStore> {
        self.inner.store()
    }

    fn reads_are_cheap(&self) -> bool {
        self.inner.reads_are_cheap()
    }

    fn stored_chunk(&self, var: &VarPath, index: &[u64]) -> Result<Option<Vec<u8>>> {
        if self.refills.contains_key(var) {
            return Ok(None);
        }
        self.inner.stored_chunk(self.at(var), index)
    }

    fn prefetch(&self, var: &VarPath, region: &Region) -> Result<()> {
        self.inner.prefetch(self.at(var), region)
    }

    fn has_stored_chunks(&self, var: &VarPath) -> bool {
        !self.refills.contains_key(var) && self.inner.has_stored_chunks(self.at(var))
    }

    fn chunk(&self, var: &VarPath, index: &[u64]) -> Result<ChunkView> {
        self.inner.chunk(self.at(var), index)
    }
}

/// Each value of `values` whose native-endian bytes are `old` made `new` (the same
/// length: one value of the variable's type).
fn refill(values: &mut Values, old: &[u8], new: &[u8]) {
    let Some(bytes) = values.ne_bytes_mut() else {
        return;
    };
    if old.is_empty() || old.len() != new.len() {
        return;
    }
    for value in bytes.chunks_exact_mut(old.len()) {
        if value == old {
            value.copy_from_slice(new);
        }
    }
}
