//! [`Hdf5Source`]: a netCDF-4 file (HDF5) as a dataset source.
//!
//! Values of chunked variables are read from their chunks as stored (`stored.rs`):
//! only the chunks a region touches, decoded with this crate's codecs in parallel.
//! What that does not take (chunks never written, filters decoded differently,
//! contiguous and compact data, damage) is read by hyperslab through `hdf5-reader`,
//! with the same codecs for deflate and the filters HDF5 names by registered ids
//! (zstd, bzip2, blosc). Memory holds the region and a bounded chunk cache.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use hdf5_reader::storage::{Storage, StorageBuffer};
use hdf5_reader::{
    Datatype, FilterRegistry, H5Type, Hdf5File, OpenOptions, SliceInfo, SliceInfoElem, StringSize,
};

use super::chunks;
use super::fault::{to_hdf5, Fault};
use super::heap::{self, lock};
use super::meta::{self, VarInfo};
use super::stored::StoredChunks;
use super::types::{fixed_text, floats_from_halves, to_native};
use crate::chunking::Region;
use crate::codec::{hdf5 as filters, registry, table, ChunkInfo, Pipeline};
use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::model::{Dataset, NcType, Strings, UValue, Values, VarPath};
use crate::source::{ChunkPlace, DataSource, DatasetSource, FormatInfo, RECYCLED_SLABS};
use crate::store::{LocalFile, ReadAt};

/// Bytes of decoded chunks the reader keeps: enough for a row of chunks of a
/// typical file while a printer walks it, small beside the memory bound.
const CHUNK_CACHE_BYTES: usize = 16 << 20;

/// A netCDF-4 file opened for reading.
pub struct Hdf5Source {
    reader: Arc<dyn ReadAt>,
    /// Read by byte ranges: chunks a read needs are fetched together first.
    remote: bool,
    pub(super) dataset: Dataset,
    format: FormatInfo,
    pub(super) vars: HashMap<VarPath, VarInfo>,
    problems: Vec<String>,
    /// Kept open for the datasets' reads; chunks as stored are read from it directly.
    pub(super) file: Hdf5File,
    /// The global heap collections and tables reads of strings keep for the next.
    heaps: heap::Heaps,
    /// The buffers reads of strings read their references into, for the next (one
    /// per read at once).
    refs: Mutex<Vec<Vec<u8>>>,
    /// Strings given back by their reader ([`DataSource::recycle`]), to read into.
    spare_strings: Mutex<Vec<Strings>>,
    /// Numbers given back by their reader, to read into (a slab in new memory was
    /// cleared by the allocator, then by the kernel page by page).
    spare_values: Mutex<Vec<Values>>,
}

impl Hdf5Source {
    /// Open the HDF5 file at `path` and read its netCDF-4 metadata.
    ///
    /// # Errors
    /// [`Error::Store`] when the file cannot be read (the store's error kept);
    /// [`Error::Damaged`] naming the object whose metadata is damaged.
    pub fn open(path: &Path) -> Result<Hdf5Source> {
        let file = LocalFile::open(path)?;
        Hdf5Source::from_file(Arc::new(file), false)
    }

    /// Read the metadata of `reader`'s file; `remote` when it is read by byte ranges
    /// (then the chunks a read needs are fetched together, concurrently, first).
    ///
    /// # Errors
    /// As [`Hdf5Source::open`].
    pub fn from_file(reader: Arc<dyn ReadAt>, remote: bool) -> Result<Hdf5Source> {
        let location = reader.location();
        let fail = |fault: Fault| fault.into_error(&location, None);
        let storage = ReadAtStorage(Arc::clone(&reader));
        let mut options = OpenOptions::default().with_filter_registry(filter_registry());
        options.chunk_cache_bytes = CHUNK_CACHE_BYTES;
        let file = Hdf5File::from_storage_with_options(Arc::new(storage), options)
            .map_err(|e| fail(Fault::from(e).context("not a readable HDF5 file")))?;
        let meta = meta::read(&file).map_err(fail)?;
        let kind = if meta.classic_model {
            "netCDF-4 classic model"
        } else {
            "netCDF-4"
        };
        let superblock = file.superblock().version;
        let n_vars = meta.vars.len();
        let format = FormatInfo {
            kind: kind.to_string(),
            detail: format!(
                "{kind} file (HDF5, superblock version {superblock}), {n_vars} variable{}",
                if n_vars == 1 { "" } else { "s" }
            ),
            is_netcdf4: Some(meta.is_netcdf4),
            codecs_attr: false,
            attr_types: true,
            nc_properties: meta.nc_properties,
            superblock_version: Some(i32::from(superblock)),
            zarr_version: None,
            facts: Vec::new(),
        };
        Ok(Hdf5Source {
            reader,
            remote,
            dataset: meta.dataset,
            format,
            vars: meta.vars,
            problems: meta.problems,
            file,
            heaps: heap::Heaps::default(),
            refs: Mutex::new(Vec::new()),
            spare_strings: Mutex::new(Vec::new()),
            spare_values: Mutex::new(Vec::new()),
        })
    }

    /// Where the file is.
    pub fn location(&self) -> String {
        self.reader.location()
    }

    /// `fault` met reading variable `var`, as the crate's error.
    pub(super) fn var_error(&self, var: &VarPath, fault: Fault) -> Error {
        fault.into_error(&self.reader.location(), Some(&var.to_string()))
    }

    /// Fetch the stored chunks of `region` of a chunked variable at once (a remote
    /// file: one round of concurrent requests instead of one request per chunk).
    fn prefetch_chunks(&self, info: &VarInfo, region: &Region) -> Result<()> {
        let Some(chunks) = info
            .encoding
            .chunk_shape()
            .filter(|c| c.len() == region.rank() && !region.is_empty())
        else {
            return Ok(());
        };
        let Some(map) = self.chunk_map(info) else {
            return Ok(());
        };
        let base = self.file.superblock().base_address;
        let mut lens = Vec::with_capacity(chunks.len());
        let mut first = Vec::with_capacity(chunks.len());
        for (d, c) in chunks.iter().enumerate() {
            let c = (*c).max(1);
            let last = region.start[d] + (region.count[d] - 1) * region.stride[d];
            first.push(region.start[d] / c);
            lens.push(last / c - region.start[d] / c + 1);
        }
        let mut ranges = Vec::new();
        crate::chunking::for_each_index(&lens, |i| {
            let index: Vec<u64> = i.iter().zip(&first).map(|(i, f)| i + f).collect();
            if let Some(p) = map.places.get(&index) {
                ranges.push((base.saturating_add(p.address), p.size));
            }
        });
        self.reader.prefetch(&ranges).map_err(Error::Store)
    }
}

pub(super) fn no_such_var(var: &VarPath) -> Error {
    Error::NoSuchVar {
        var: var.to_string(),
    }
}

/// A [`ReadAt`] as `hdf5-reader`'s storage.
struct ReadAtStorage(Arc<dyn ReadAt>);

impl Storage for ReadAtStorage {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn read_range(&self, offset: u64, len: usize) -> hdf5_reader::error::Result<StorageBuffer> {
        let end = offset.checked_add(len as u64);
        if end.is_none_or(|e| e > self.0.len()) {
            return Err(hdf5_reader::error::Error::UnexpectedEof {
                offset,
                needed: len as u64,
                available: self.0.len().saturating_sub(offset),
            });
        }
        let mut buf = vec![0u8; len];
        self.0.read_at(offset, &mut buf).map_err(to_hdf5)?;
        Ok(StorageBuffer::from_vec(buf))
    }
}

impl Hdf5Source {
    /// The variables stored with an HDF5 filter this build has no codec for.
    fn missing_filters(&self) -> Vec<(VarPath, String)> {
        self.dataset
            .vars()
            .into_iter()
            .filter_map(|(p, _)| {
                let info = self.vars.get(&p)?;
                (!info.missing_filters.is_empty()).then(|| {
                    (
                        p,
                        format!(
                            "stored with HDF5 filter {}, which this build cannot decode",
                            info.missing_filters.join(", ")
                        ),
                    )
                })
            })
            .collect()
    }
}

impl DataSource for Hdf5Source {
    fn read_user(&self, var: &VarPath, region: &Region) -> Result<Vec<UValue>> {
        let fail = |fault: Fault| self.var_error(var, fault);
        let (Some(info), Some(shape)) = (self.vars.get(var), self.dataset.shape_of(var)) else {
            return Err(no_such_var(var));
        };
        let Some(dt) = &info.user else {
            return Err(Error::Unsupported(format!(
                "variable '{var}': not of a user-defined type read by element"
            )));
        };
        region
            .check(&shape)
            .map_err(|e| Error::region(var, e.to_string()))?;
        // Whole datasets: user-defined types are for small records, not bulk data.
        let raw = info.ds.read_raw_bytes().map_err(|e| fail(Fault::from(e)))?;
        let each = super::user::element_size(dt).max(1);
        let resolve = |r: &[u8], n: usize| {
            info.ds
                .resolve_vlen_reference_bytes(r, n)
                .map_err(Fault::from)
        };
        crate::chunking::region_offsets(&shape, region)
            .map(|at| {
                let from = usize::try_from(at)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(each);
                let bytes = raw
                    .get(from..)
                    .ok_or_else(|| fail(format!("element {at} is past the stored data").into()))?;
                super::user::decode(dt, bytes, &resolve).map_err(&fail)
            })
            .collect()
    }

    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        let fail = |fault: Fault| self.var_error(var, fault);
        let (Some(info), Some(shape)) = (self.vars.get(var), self.dataset.shape_of(var)) else {
            return Err(no_such_var(var));
        };
        region
            .check(&shape)
            .map_err(|e| Error::region(var, e.to_string()))?;
        let n = usize::try_from(region.len().unwrap_or(u64::MAX))
            .map_err(|_| Error::region(var, format!("region {region} is too large")))?;
        let t = info.stored.nc_type;
        if n == 0 {
            return Ok(Values::empty(t));
        }
        if !info.missing_filters.is_empty() {
            return Err(Error::Unsupported(format!(
                "variable '{var}': stored with HDF5 filter {}, which this build cannot decode",
                info.missing_filters.join(", ")
            )));
        }
        if info.null_space {
            let fill = info
                .encoding
                .fill_value()
                .cloned()
                .unwrap_or_else(|| Values::default_fill(t));
            return Ok(Values::repeat(&fill, n));
        }
        if self.remote && info.ds.chunks().is_some() {
            self.prefetch_chunks(info, region)?;
        }
        let selection = SliceInfo {
            selections: (0..shape.len())
                .map(|d| SliceInfoElem::Slice {
                    start: region.start[d],
                    end: region.start[d] + (region.count[d] - 1) * region.stride[d] + 1,
                    step: region.stride[d],
                })
                .collect(),
        };
        let h5 = |e: hdf5_reader::error::Error| fail(Fault::from(e));
        let ds = &info.ds;
        if info.stored.half {
            let mut raw = vec![0u8; n * 2];
            read_raw::<2>(ds, &selection, &mut raw).map_err(h5)?;
            return Ok(Values::Float(floats_from_halves(&raw, info.stored.endian)));
        }
        if let Some(paths) = &info.object_refs {
            let mut raw = vec![0u8; n * 8];
            read_raw::<8>(ds, &selection, &mut raw).map_err(h5)?;
            return super::refs::named(&raw, paths).map_err(fail);
        }
        let mut values = match (t, info.stored.fixed_string) {
            (NcType::String, Some(_)) => {
                let texts = ds.read_slice::<FixedText>(&selection).map_err(h5)?;
                return Ok(Values::String(texts.iter().map(|t| Some(&t.0)).collect()));
            }
            (NcType::String, None) => return self.strings(info, region, &selection, n).map_err(h5),
            _ => match self.numbers(info, region, t, n).map_err(fail)? {
                Some(mut values) => {
                    if let Some(out) = values.ne_bytes_mut() {
                        to_native(out, t.size(), info.stored.endian);
                    }
                    return Ok(values);
                }
                None => Values::zeroed(t, n),
            },
        };
        let Some(out) = values.ne_bytes_mut() else {
            return Err(Error::Internal(format!(
                "variable '{var}': no bytes to read into"
            )));
        };
        match t.size() {
            1 => read_raw::<1>(ds, &selection, out),
            2 => read_raw::<2>(ds, &selection, out),
            4 => read_raw::<4>(ds, &selection, out),
            _ => read_raw::<8>(ds, &selection, out),
        }
        .map_err(h5)?;
        to_native(out, t.size(), info.stored.endian);
        Ok(values)
    }

    fn recycle(&self, values: Values) {
        if let Values::String(s) = values {
            let mut spare = lock(&self.spare_strings);
            if spare.len() < RECYCLED_SLABS {
                spare.push(s);
            }
        } else {
            let mut spare = lock(&self.spare_values);
            if spare.len() < RECYCLED_SLABS {
                spare.push(values);
            }
        }
    }
}

impl DatasetSource for Hdf5Source {
    fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn format(&self) -> &FormatInfo {
        &self.format
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        self.vars.get(var).map(|v| v.encoding.clone())
    }

    fn problems(&self) -> &[String] {
        &self.problems
    }

    fn unreadable(&self) -> Vec<(VarPath, String)> {
        self.missing_filters()
    }

    fn reads_are_cheap(&self) -> bool {
        !self.remote
    }

    fn file_location(&self) -> Option<String> {
        Some(self.reader.location())
    }

    fn reference_layout(&self, var: &VarPath) -> Option<Encoding> {
        self.layout_for_references(var)
    }

    fn chunk_place(&self, var: &VarPath, index: &[u64]) -> Result<ChunkPlace> {
        self.place_of_chunk(var, index)
    }

    fn has_stored_chunks(&self, var: &VarPath) -> bool {
        self.vars.get(var).is_some_and(|info| {
            info.stored.nc_type != NcType::String
                && !info.stored.half
                && !info.null_space
                && info.stored.fixed_string.is_none_or(|w| w == 1)
                && info.missing_filters.is_empty()
                && info.encoding.chunk_shape().is_some()
                && info.encoding.codec_ids().all(same_bytes)
        })
    }

    fn prefetch(&self, var: &VarPath, region: &Region) -> Result<()> {
        match self.vars.get(var) {
            Some(info) if self.remote && !region.is_empty() => self.prefetch_chunks(info, region),
            _ => Ok(()),
        }
    }

    fn stored_chunk(&self, var: &VarPath, index: &[u64]) -> Result<Option<Vec<u8>>> {
        let fail = |fault: Fault| self.var_error(var, fault);
        let Some(Some(place)) = self.stored_place(var, index)? else {
            return Ok(None);
        };
        let storage = self.file.storage();
        let size = usize::try_from(place.size)
            .ok()
            .filter(|&n| n <= hdf5_reader::HDF5_MAX_CHUNK_BYTES)
            .filter(|&n| place.address.saturating_add(n as u64) <= storage.len())
            .ok_or_else(|| {
                fail(Fault::at(
                    place.address,
                    format!(
                        "chunk {index:?}: {} bytes at offset {} run past the end of the file or any chunk's size",
                        place.size, place.address
                    ),
                ))
            })?;
        let bytes = storage
            .read_range(place.address, size)
            .map_err(|e| fail(Fault::from(e).context(format!("chunk {index:?}"))))?;
        Ok(Some(bytes.to_vec()))
    }
}

/// Whether codec `id`'s HDF5 filter writes the bytes the Zarr codec writes, so a chunk
/// stored with it is a Zarr chunk as it is (the codec table's `hdf5_same_bytes`).
fn same_bytes(id: &str) -> bool {
    table::spec(id).is_some_and(|c| c.hdf5_same_bytes)
}

/// One stored element of `N` bytes, copied as it is (byte order is ours to fix).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Raw<const N: usize>([u8; N]);

impl<const N: usize> H5Type for Raw<N> {
    fn hdf5_type() -> Datatype {
        Datatype::Opaque {
            size: N as u32,
            tag: String::new(),
        }
    }

    fn from_bytes(bytes: &[u8], _dtype: &Datatype) -> hdf5_reader::error::Result<Self> {
        bytes
            .get(..N)
            .and_then(|b| <[u8; N]>::try_from(b).ok())
            .map(Raw)
            .ok_or_else(|| {
                hdf5_reader::error::Error::InvalidData(format!(
                    "an element of {N} bytes, {} read",
                    bytes.len()
                ))
            })
    }

    fn element_size(_dtype: &Datatype) -> usize {
        N
    }

    fn native_copy_compatible(_dtype: &Datatype) -> bool {
        true
    }
}

/// One fixed-length string element as netcdf-c reads it (up to its first NUL).
#[derive(Clone)]
struct FixedText(Vec<u8>);

impl H5Type for FixedText {
    fn hdf5_type() -> Datatype {
        Datatype::Opaque {
            size: 0,
            tag: String::new(),
        }
    }

    fn from_bytes(bytes: &[u8], _dtype: &Datatype) -> hdf5_reader::error::Result<Self> {
        Ok(FixedText(fixed_text(bytes).to_vec()))
    }

    fn element_size(dtype: &Datatype) -> usize {
        match dtype {
            Datatype::String {
                size: StringSize::Fixed(n),
                ..
            } => *n as usize,
            _ => 0,
        }
    }
}

/// The stored bytes of a selection, `N` bytes per element, in C order, into `out`
/// (sized for the selection).
fn read_raw<const N: usize>(
    ds: &hdf5_reader::Dataset,
    selection: &SliceInfo,
    out: &mut [u8],
) -> hdf5_reader::error::Result<()> {
    let a = ds.read_slice_parallel::<Raw<N>>(selection)?;
    if a.len() * N != out.len() {
        return Err(hdf5_reader::error::Error::InvalidData(format!(
            "read {} values of {N} bytes for {} bytes",
            a.len(),
            out.len()
        )));
    }
    match a.as_slice() {
        Some(s) => {
            for (o, e) in out.chunks_exact_mut(N).zip(s) {
                o.copy_from_slice(&e.0);
            }
        }
        None => {
            for (o, e) in out.chunks_exact_mut(N).zip(a.iter()) {
                o.copy_from_slice(&e.0);
            }
        }
    }
    Ok(())
}

impl Hdf5Source {
    /// Variable-length strings: the region's heap references, each resolved.
    fn strings(
        &self,
        info: &VarInfo,
        region: &Region,
        selection: &SliceInfo,
        n: usize,
    ) -> hdf5_reader::error::Result<Values> {
        let width = info.ds.vlen_reference_size();
        let mut refs = lock(&self.refs).pop().unwrap_or_default();
        let direct = match (info.encoding.chunk_shape(), self.chunk_map(info)) {
            (Some(chunks), Some(map)) if info.encoding.codec_ids().next().is_none() => {
                StoredChunks {
                    reader: &*self.reader,
                    base: self.file.superblock().base_address,
                    map,
                    chunks,
                    width,
                    codecs: None,
                }
                .read(region, &mut refs)
                .map_err(Fault::into_hdf5)?
            }
            _ => false,
        };
        if !direct {
            refs.clear();
            refs.resize(n.saturating_mul(width), 0);
            match width {
                16 => read_raw::<16>(&info.ds, selection, &mut refs)?,
                12 => read_raw::<12>(&info.ds, selection, &mut refs)?,
                w => {
                    return Err(hdf5_reader::error::Error::InvalidData(format!(
                        "string references of {w} bytes"
                    )))
                }
            }
        }
        // The roomiest: a read's strings fit in it more often than in the last given.
        let spare = {
            let mut spare = lock(&self.spare_strings);
            let roomiest = (0..spare.len()).max_by_key(|&i| spare[i].room());
            roomiest.map(|i| spare.swap_remove(i)).unwrap_or_default()
        };
        let strings = heap::resolve(
            &self.file,
            (&*self.reader, self.remote),
            &self.heaps,
            (&refs, width),
            spare,
        )?;
        lock(&self.refs).push(refs);
        Ok(Values::String(strings))
    }

    /// The `n` values of type `t` of a chunked variable's `region`, read from its
    /// chunks as stored ([`StoredChunks`]; stored byte order); `None` where the general
    /// reader is needed (chunks not written, codecs this crate does not decode alike,
    /// damage).
    fn numbers(
        &self,
        info: &VarInfo,
        region: &Region,
        t: NcType,
        n: usize,
    ) -> std::result::Result<Option<Values>, Fault> {
        let (Some(chunks), Some(map)) = (info.encoding.chunk_shape(), self.chunk_map(info)) else {
            return Ok(None);
        };
        let codecs = if info.encoding.codecs.is_empty() {
            None
        } else {
            let built = info.codecs.get_or_init(|| {
                info.encoding
                    .codec_ids()
                    .all(same_bytes)
                    .then(|| Pipeline::new(&info.encoding.codecs, None).ok())
                    .flatten()
            });
            match built {
                Some(codecs) => Some(codecs),
                None => return Ok(None),
            }
        };
        let stored = StoredChunks {
            reader: &*self.reader,
            base: self.file.superblock().base_address,
            map,
            chunks,
            width: t.size(),
            codecs,
        };
        let Some(located) = stored.locate(region) else {
            return Ok(None);
        };
        let spare = lock(&self.spare_values).pop();
        let mut values = spare.map_or_else(|| Values::zeroed(t, n), |v| v.reused_as(t, n));
        match values.ne_bytes_mut() {
            Some(out) if out.len() == located.len => Ok(stored
                .read_located(region, &located, out)?
                .then_some(values)),
            _ => Ok(None),
        }
    }

    /// The variable's chunk map, read the first time it is asked for; `None` when
    /// its index is damaged (the general reader then reports it).
    fn chunk_map<'a>(&self, info: &'a VarInfo) -> Option<&'a chunks::ChunkMap> {
        info.chunk_map
            .get_or_init(|| chunks::chunk_map(&self.file, info.ds.address()))
            .as_ref()
            .ok()
    }
}

/// HDF5's built-in filters plus those netCDF-4 files name by registered ids, decoded
/// with this crate's codecs (deflate too: zlib-rs is faster than the reader's own).
fn filter_registry() -> FilterRegistry {
    let mut r = FilterRegistry::new();
    let compressors = table::CODECS
        .iter()
        .filter(|c| c.role == table::Role::Compressor)
        .filter_map(|c| c.hdf5);
    for id in compressors {
        r.register(
            id as u16,
            Box::new(move |f, data, item_size| {
                let bad = |m: String| hdf5_reader::error::Error::InvalidData(m);
                let config =
                    filters::codec_of(id, &f.client_data).map_err(|e| bad(e.to_string()))?;
                let codec = registry::build(&config).map_err(|e| bad(e.to_string()))?;
                let info = ChunkInfo {
                    item_size,
                    max_decoded: hdf5_reader::HDF5_MAX_CHUNK_BYTES,
                };
                codec
                    .decode(data.to_vec(), &info)
                    .map_err(|e| bad(format!("HDF5 filter {id}: {e}")))
            }),
        );
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::nc4::test_file::Memory;
    use crate::store::StoreError;

    /// A netCDF-4 file with `int plain(n)`, n = 3, among user-defined types.
    const FILE: &[u8] = include_bytes!("../../../../../tests/cli/data/hdf5_other/user_types.nc");

    #[test]
    fn a_failed_read_of_values_stays_the_stores_error_naming_the_variable() {
        let file = Arc::new(Memory::new(FILE.to_vec()));
        let source = Hdf5Source::from_file(file.clone(), false).unwrap();
        file.fail_reads();
        let err = source
            .read(&VarPath::new(&[], "plain"), &Region::whole(&[3]))
            .unwrap_err();
        assert!(
            matches!(&err, Error::VarStore { var, source: StoreError::Io { .. } } if var == "/plain"),
            "{err:?}"
        );
    }

    #[test]
    fn a_failed_read_of_metadata_stays_the_stores_error() {
        let file = Arc::new(Memory::new(FILE.to_vec()));
        file.fail_reads();
        let err = Hdf5Source::from_file(file, false).err().unwrap();
        assert!(
            matches!(&err, Error::Store(StoreError::Io { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn a_cut_file_is_damaged_not_a_store_failure() {
        let file = Arc::new(Memory::new(FILE[..FILE.len() / 3].to_vec()));
        let err = Hdf5Source::from_file(file, false).err().unwrap();
        assert!(
            matches!(&err, Error::Damaged { file, .. } if file == "memory"),
            "{err:?}"
        );
    }

    #[test]
    fn an_unknown_variable_or_region_has_its_kind() {
        let source = Hdf5Source::from_file(Arc::new(Memory::new(FILE.to_vec())), false).unwrap();
        let err = source
            .read(&VarPath::new(&[], "nothing"), &Region::whole(&[3]))
            .unwrap_err();
        assert!(
            matches!(&err, Error::NoSuchVar { var } if var == "/nothing"),
            "{err:?}"
        );
        let err = source
            .read(&VarPath::new(&[], "plain"), &Region::whole(&[4]))
            .unwrap_err();
        assert!(
            matches!(&err, Error::Region { var, .. } if var == "/plain"),
            "{err:?}"
        );
    }
}
