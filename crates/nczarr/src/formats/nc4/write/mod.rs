//! [`Nc4Sink`]: a netCDF-4 file (HDF5) written as netcdf-c 4.9 lays a dataset out
//! (the `objects` file says how), streaming, in pure Rust.
//!
//! Values are written as they arrive: a contiguous variable at a place taken when its
//! first slab comes, chunks encoded in parallel and appended one after another, the
//! bytes of strings in global heap collections beside them. What describes them goes
//! after them once every value is written: the heap of the attributes' strings and
//! references, each chunked variable's B-tree, the object headers, and last the
//! superblock at the start, which names the root group: a reader finds nothing until
//! everything is there. The file is written beside its destination and renamed into
//! place when complete ([`crate::store::Staged`]); memory holds a slab and the chunk
//! index (a few dozen bytes a chunk), whatever the file's size.
//!
//! Chunks whose codecs the file keeps pass through as stored ([`DatasetSink::write_chunks`]).
//! User-defined types (enum, compound, opaque, vlen) are named datatypes their
//! variables and attributes share; values of the last three come as
//! [`crate::model::UValue`]s ([`DatasetSink::write_user`]). An object with an
//! attribute too large for its header keeps its attributes in HDF5's dense storage.

mod btree;
mod dense;
mod encode;
mod filters;
mod fit;
mod gheap;
mod header;
mod header_map;
mod in_place;
mod journal;
mod objects;
mod types;
mod user;

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::chunking::{block_runs, c_strides, ChunkGrid, Region};
use crate::codec::{ChunkInfo, Decoded, Pipeline};
use crate::encoding::{Encoding, Endianness, Plan};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::{Dataset, NcType, Strings, UValue, Values, VarPath};
use crate::place::FileTarget;
use crate::sink::{check_slab, file_slabs, DatasetSink};
use crate::store::{check_cancelled, start_writeback, StoreError};
use btree::ChunkRecord;
use objects::{file_plan, DatasetPlan, FilePlan, Storage};
use types::stored_bytes;

pub use fit::fit_plan;
pub use in_place::{complete_stopped_edit, edit_attributes};
pub use objects::NON_COORD_PREFIX;

/// What was written of one dataset.
#[derive(Default)]
struct Written {
    /// A contiguous dataset's place, taken by its first slab.
    at: Option<u64>,
    /// A compact dataset's values.
    compact: Option<Vec<u8>>,
    /// A chunked dataset's chunks.
    chunks: Vec<ChunkRecord>,
    /// How far the written values reach along each dimension: an unlimited one's
    /// current length, as netcdf-c extends a dataset only as far as it writes.
    extent: Vec<u64>,
}

/// A netCDF-4 file being written.
pub struct Nc4Sink {
    /// The root's `_NCProperties`: ours, or what made the file an edit rewrites.
    nc_properties: String,
    classic_model: bool,
    staged: Option<FileTarget>,
    file: File,
    plan: Option<FilePlan>,
    index: HashMap<VarPath, usize>,
    pipelines: Vec<Option<Pipeline>>,
    written: Vec<Mutex<Written>>,
    /// The end of what is written: where the next piece goes.
    end: AtomicU64,
}

impl Nc4Sink {
    /// A sink writing a netCDF-4 file (of the classic model when `classic_model`) into
    /// `file`, the staging `staged` of the destination; `nc_properties` says what made
    /// it (ours when `None`).
    pub fn new(
        classic_model: bool,
        staged: FileTarget,
        file: File,
        nc_properties: Option<String>,
    ) -> Nc4Sink {
        Nc4Sink {
            nc_properties: nc_properties
                .unwrap_or_else(|| format!("version=2,nczarr-tools={}", env!("CARGO_PKG_VERSION"))),
            classic_model,
            staged: Some(staged),
            file,
            plan: None,
            index: HashMap::new(),
            pipelines: Vec::new(),
            written: Vec::new(),
            end: AtomicU64::new(encode::SUPERBLOCK_LEN),
        }
    }

    fn io(&self, e: std::io::Error) -> Error {
        Error::Store(StoreError::Io {
            location: self
                .staged
                .as_ref()
                .map(FileTarget::location)
                .unwrap_or_default(),
            source: e,
        })
    }

    fn put(&self, bytes: &[u8], at: u64) -> Result<()> {
        self.file.write_all_at(bytes, at).map_err(|e| self.io(e))
    }

    /// Take `len` bytes at the end.
    fn reserve(&self, len: u64) -> u64 {
        self.end.fetch_add(len, Ordering::SeqCst)
    }

    fn dataset(&self, var: &VarPath) -> Result<(usize, &DatasetPlan)> {
        let plan = self
            .plan
            .as_ref()
            .ok_or_else(|| Error::Internal("values written before the file was defined".into()))?;
        let i = *self
            .index
            .get(var)
            .ok_or_else(|| Error::Invalid(format!("variable '{var}' was not defined")))?;
        Ok((i, &plan.datasets[i]))
    }

    fn lock(&self, i: usize) -> std::sync::MutexGuard<'_, Written> {
        self.written[i]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Strings stored: their bytes in heap collections written now, their descriptors
    /// returned (16 bytes each).
    fn store_strings(&self, strings: &Strings) -> Result<Vec<u8>> {
        let mut heap = gheap::HeapBuilder::default();
        let ids: Vec<_> = strings.iter().map(|s| s.map(|s| heap.add(s))).collect();
        let mut out = Vec::with_capacity(ids.len() * 16);
        if heap.is_empty() {
            out.resize(ids.len() * 16, 0);
            return Ok(out);
        }
        let at = self.reserve(heap.lens().iter().sum());
        let (bytes, addresses) = heap.encode(at);
        self.put(&bytes, at)?;
        for (s, id) in strings.iter().zip(ids) {
            gheap::descriptor(&mut out, s.map_or(0, |s| s.len() as u32), id, &addresses);
        }
        Ok(out)
    }

    /// Append `stored` (a chunk's bytes as this file stores them) and note where it is.
    fn append_chunk(&self, index: &[u64], stored: &[u8]) -> Result<ChunkRecord> {
        let at = self.reserve(stored.len() as u64);
        self.put(stored, at)?;
        Ok(ChunkRecord {
            index: index.to_vec(),
            size: stored.len() as u32,
            mask: 0,
            at,
        })
    }

    /// Note that chunks `indexes` (of shape `chunk`) of dataset `i` of `shape` are
    /// written: how far they reach along each dimension.
    fn reached(&self, i: usize, shape: &[u64], chunk: &[u64], indexes: &[Vec<u64>]) {
        let mut w = self.lock(i);
        w.extent.resize(shape.len(), 0);
        for index in indexes {
            for (k, e) in w.extent.iter_mut().enumerate() {
                *e = (*e).max(((index[k] + 1) * chunk[k]).min(shape[k]));
            }
        }
    }

    /// Cut the chunks of `region` out of `bytes` (its stored values), encode them in
    /// parallel and append them.
    fn write_chunked(
        &self,
        i: usize,
        d: &DatasetPlan,
        chunk: &[u64],
        region: &Region,
        bytes: &[u8],
    ) -> Result<()> {
        let item = d.item();
        let grid = ChunkGrid::new(d.shape.clone(), chunk.to_vec());
        let chunk_len = chunk.iter().product::<u64>() as usize;
        let chunk_strides = c_strides(chunk);
        let out_strides = c_strides(&region.count);
        let pad = d.pad_item();
        let var = d.var.as_ref().map(ToString::to_string).unwrap_or_default();
        let info = ChunkInfo {
            item_size: item,
            max_decoded: chunk_len * item,
        };
        let records = grid
            .parts(region)
            .par_iter()
            .map(|part| -> Result<ChunkRecord> {
                check_cancelled()?;
                // A chunk the slab covers is overwritten whole: no fill first.
                let covers = part
                    .runs
                    .iter()
                    .zip(chunk)
                    .all(|(r, &c)| r.in_chunk == 0 && r.len == c);
                let mut buf = if covers {
                    vec![0u8; chunk_len * item]
                } else {
                    pad.repeat(chunk_len)
                };
                let run = part.runs.last().map_or(1, |r| r.len as usize) * item;
                part.for_each_run(&chunk_strides, &out_strides, |c, o| {
                    let (c, o) = (c as usize * item, o as usize * item);
                    buf[c..c + run].copy_from_slice(&bytes[o..o + run]);
                });
                let stored = match &self.pipelines[i] {
                    Some(p) => {
                        let key: Vec<String> = part.index.iter().map(u64::to_string).collect();
                        p.encode(Decoded::Bytes(buf), &key.join("."), &info)
                            .map_err(|error| Error::Codec {
                                var: var.clone(),
                                error,
                            })?
                    }
                    None => buf,
                };
                self.append_chunk(&part.index, &stored)
            })
            .collect::<Result<Vec<_>>>()?;
        self.lock(i).chunks.extend(records);
        start_writeback(&self.file);
        Ok(())
    }

    /// Note how far a slab written to dataset `i` reaches.
    fn extend(&self, i: usize, region: &Region) {
        let mut w = self.lock(i);
        w.extent.resize(region.rank(), 0);
        for (k, e) in w.extent.iter_mut().enumerate() {
            *e = (*e).max(region.start[k] + region.count[k]);
        }
    }

    /// Store `bytes`, the values of `region` of dataset `i` as the file stores them.
    fn write_bytes(&self, i: usize, d: &DatasetPlan, region: &Region, bytes: &[u8]) -> Result<()> {
        let item = d.item();
        let total = d.shape.iter().product::<u64>() * item as u64;
        match &d.storage {
            Storage::Chunked(chunk) => self.write_chunked(i, d, chunk, region, bytes),
            Storage::Contiguous => {
                let at = *self.lock(i).at.get_or_insert_with(|| self.reserve(total));
                let mut failed = None;
                block_runs(&d.shape, &region.start, &region.count, |from, to, len| {
                    let (from, len) = (from as usize * item, len as usize * item);
                    if failed.is_none() {
                        failed = self
                            .put(&bytes[from..from + len], at + to * item as u64)
                            .err();
                    }
                });
                start_writeback(&self.file);
                failed.map_or(Ok(()), Err)
            }
            Storage::Compact => {
                let mut w = self.lock(i);
                let buf = w
                    .compact
                    .get_or_insert_with(|| d.pad_item().repeat(total as usize / item.max(1)));
                block_runs(&d.shape, &region.start, &region.count, |from, to, len| {
                    let (from, to, len) = (
                        from as usize * item,
                        to as usize * item,
                        len as usize * item,
                    );
                    buf[to..to + len].copy_from_slice(&bytes[from..from + len]);
                });
                Ok(())
            }
        }
    }
}

impl DatasetSink for Nc4Sink {
    fn prepare(&self, dataset: &Dataset, plan: &mut Plan) -> Result<Vec<String>> {
        fit_plan(dataset, self.classic_model, plan)
    }

    fn define(&mut self, dataset: &Dataset, plan: &Plan) -> Result<()> {
        let mut root = vec![objects::text_attr_unterminated(
            "_NCProperties",
            &self.nc_properties,
        )];
        if self.classic_model {
            root.push(objects::int_attr("_nc3_strict", 1));
        }
        let file = file_plan(dataset, plan, root)?;
        self.index = file
            .datasets
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.var.clone().map(|v| (v, i)))
            .collect();
        self.pipelines = file
            .datasets
            .iter()
            .map(|d| {
                if d.codecs.is_empty() {
                    return Ok(None);
                }
                Pipeline::new(&d.codecs, None)
                    .map(Some)
                    .map_err(|error| Error::Codec {
                        var: d.var.as_ref().map(ToString::to_string).unwrap_or_default(),
                        error,
                    })
            })
            .collect::<Result<_>>()?;
        self.written = file.datasets.iter().map(|_| Mutex::default()).collect();
        self.file.set_len(0).map_err(|e| self.io(e))?;
        self.plan = Some(file);
        Ok(())
    }

    fn slabs(
        &self,
        var: &VarPath,
        budget: u64,
        read_chunks: Option<&[u64]>,
        within: Option<&Region>,
    ) -> Result<Vec<Region>> {
        let (_, d) = self.dataset(var)?;
        let unit = match &d.storage {
            Storage::Chunked(c) => Some(c.as_slice()),
            _ => None,
        };
        let item = u64::from(d.h5type.size());
        Ok(file_slabs(
            &d.shape,
            unit,
            item,
            budget,
            read_chunks,
            within,
        ))
    }

    fn write(&self, var: &VarPath, region: &Region, values: &Values) -> Result<()> {
        check_cancelled()?;
        let (i, d) = self.dataset(var)?;
        let expect = check_slab(var, &d.shape, d.nc_type, region, values)?;
        if expect == 0 {
            return Ok(());
        }
        self.extend(i, region);
        let bytes = match values {
            Values::String(s) => self.store_strings(s)?,
            v => stored_bytes(v, d.big).ok_or_else(|| {
                Error::Internal(format!("variable '{var}': values without bytes"))
            })?,
        };
        self.write_bytes(i, d, region, &bytes)
    }

    fn write_user(&self, var: &VarPath, region: &Region, values: &[UValue]) -> Result<()> {
        check_cancelled()?;
        let (i, d) = self.dataset(var)?;
        region
            .check(&d.shape)
            .map_err(|e| Error::region(var, e.to_string()))?;
        let expect = region.len().unwrap_or(u64::MAX);
        if !d.user || values.len() as u64 != expect {
            return Err(Error::region(
                var,
                format!(
                    "{} values of a user-defined type given for region {region} of {expect}",
                    values.len()
                ),
            ));
        }
        if expect == 0 {
            return Ok(());
        }
        self.extend(i, region);
        let mut heap = gheap::HeapBuilder::default();
        let encoded = user::encode(&d.h5type, values, &mut heap)
            .map_err(|e| Error::Invalid(format!("variable '{var}': {e}")))?;
        let addresses = if heap.is_empty() {
            Vec::new()
        } else {
            let at = self.reserve(heap.lens().iter().sum());
            let (bytes, addresses) = heap.encode(at);
            self.put(&bytes, at)?;
            addresses
        };
        self.write_bytes(i, d, region, &encoded.resolved(&addresses))
    }

    fn takes_chunks_of(&self, var: &VarPath, encoding: &Encoding) -> bool {
        let Ok((_, d)) = self.dataset(var) else {
            return false;
        };
        let size = d.nc_type.size();
        let big = encoding.endian == Some(Endianness::Big) && size > 1;
        d.nc_type != NcType::String
            && !d.user
            && d.item() == size
            && big == d.big
            && matches!(&d.storage, Storage::Chunked(c) if encoding.chunk_shape() == Some(c.as_slice()))
    }

    fn write_chunks(
        &self,
        var: &VarPath,
        chunks: Vec<(Vec<u64>, Vec<u8>)>,
        codecs: &[Json],
    ) -> Result<()> {
        check_cancelled()?;
        let (i, d) = self.dataset(var)?;
        let Storage::Chunked(chunk) = &d.storage else {
            return Err(Error::Internal(format!(
                "variable '{var}': chunks of a variable not chunked"
            )));
        };
        let codec_error = |error| Error::Codec {
            var: var.to_string(),
            error,
        };
        // As stored when the chains are the same; decoded and encoded again otherwise.
        let from = match d.codecs.as_slice() == codecs {
            true => None,
            false => Some(Pipeline::new(codecs, None).map_err(codec_error)?),
        };
        let chunk_len = chunk.iter().product::<u64>() as usize;
        let info = ChunkInfo {
            item_size: d.item(),
            max_decoded: chunk_len * d.item(),
        };
        let indexes: Vec<Vec<u64>> = chunks.iter().map(|(index, _)| index.clone()).collect();
        let records = chunks
            .into_par_iter()
            .map(|(index, bytes)| -> Result<ChunkRecord> {
                check_cancelled()?;
                let Some(from) = &from else {
                    return self.append_chunk(&index, &bytes);
                };
                let key: Vec<String> = index.iter().map(u64::to_string).collect();
                let key = key.join(".");
                let raw = match from
                    .decode(bytes, &key, &info, chunk_len)
                    .map_err(codec_error)?
                {
                    Decoded::Bytes(b) => b,
                    Decoded::Items(_) => {
                        return Err(Error::Internal(format!(
                            "variable '{var}': items as chunks"
                        )))
                    }
                };
                let stored = match &self.pipelines[i] {
                    Some(p) => p
                        .encode(Decoded::Bytes(raw), &key, &info)
                        .map_err(codec_error)?,
                    None => raw,
                };
                self.append_chunk(&index, &stored)
            })
            .collect::<Result<Vec<_>>>()?;
        self.reached(i, &d.shape, chunk, &indexes);
        self.lock(i).chunks.extend(records);
        start_writeback(&self.file);
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<()> {
        let plan = self
            .plan
            .take()
            .ok_or_else(|| Error::Internal("a file finished before it was defined".into()))?;
        check_cancelled()?;
        let written: Vec<Written> = std::mem::take(&mut self.written)
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
            })
            .collect();
        let start = self.end.load(Ordering::SeqCst);
        let (bytes, root) = header::metadata(&plan, written, start)?;
        self.put(&bytes, start)?;
        let eof = start + bytes.len() as u64;
        self.put(&encode::superblock(root, eof), 0)?;
        let staged = self
            .staged
            .take()
            .ok_or_else(|| Error::Internal("a file finished twice".into()))?;
        staged.commit()?;
        Ok(())
    }
}
