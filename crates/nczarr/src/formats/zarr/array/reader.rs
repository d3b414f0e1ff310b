//! [`ArrayReader`]: hyperslab reads of one variable.

use rayon::prelude::*;

use std::collections::HashMap;
use std::sync::Arc;

use super::from_stored::{convert, same_bytes, ChunkData};
use super::in_place;
use super::shard::{self, ShardCache, ShardIndex};
use super::{ChunkKeys, Sharding, StoredArray};
use crate::chunking::{c_strides, ChunkGrid, ChunkPart, Region};
use crate::codec::{ChunkInfo, Decoded, Pipeline};
use crate::error::{Error, Result};
use crate::formats::zarr::v2::Dtype;
use crate::model::{NcType, Values, VarPath};
use crate::store::{ByteRange, GetResult, GotInto, ReadableStore, StoreError, StoreKey};

/// About how many bytes of decoded chunks one batch of a read holds, by default.
pub(crate) const BATCH_BYTES: u64 = 64 << 20;
/// Chunks fetched together at least (small chunks from remote stores need many
/// requests in flight) and at most.
const MIN_BATCH: usize = 4;
const MAX_BATCH: usize = 4096;

/// A region's values being assembled: fill where nothing is stored, chunk data copied
/// in as it is decoded.
enum Output {
    Strings {
        out: Vec<Option<Vec<u8>>>,
        fill: Option<Vec<u8>>,
    },
    /// Values of a fixed-size type, written through their bytes (no copy at the end);
    /// `zeros` when what is not written yet is known to be zeros.
    Fixed {
        out: Values,
        fill: Vec<u8>,
        zeros: bool,
    },
}

impl Output {
    /// `len` values of type `t`; all `fill` already when `prefill` (positions that no
    /// chunk covers), otherwise zeros until written, or, in the memory of `spare`
    /// (values of an earlier read), whatever it held.
    fn new(t: NcType, len: usize, fill: &Values, prefill: bool, spare: Option<Values>) -> Output {
        match t {
            NcType::String => {
                let fill = match fill {
                    Values::String(v) => v.first().flatten().map(<[u8]>::to_vec),
                    _ => None,
                };
                Output::Strings {
                    out: vec![fill.clone(); len],
                    fill,
                }
            }
            t => {
                let es = t.size();
                let mut fill_bytes = Vec::with_capacity(es);
                fill.extend_ne_bytes(&mut fill_bytes);
                let (mut out, zeros) = match spare {
                    Some(spare) => (spare.reused_as(t, len), false),
                    None => (Values::zeroed(t, len), true),
                };
                if let Some(bytes) = out.ne_bytes_mut() {
                    if prefill && !(zeros && fill_bytes.iter().all(|&b| b == 0)) {
                        for slot in bytes.chunks_exact_mut(es) {
                            slot.copy_from_slice(&fill_bytes);
                        }
                    }
                }
                Output::Fixed {
                    out,
                    fill: fill_bytes,
                    zeros,
                }
            }
        }
    }

    /// Copy `n` values, `step` apart from `src` in `data` (the fill when `None`: a
    /// chunk that is not stored), to `dst..dst + n`.
    fn put(&mut self, data: Option<&ChunkData>, src: usize, dst: usize, n: usize, step: usize) {
        match (self, data) {
            (Output::Strings { out, .. }, Some(ChunkData::Strings(items))) => {
                for k in 0..n {
                    out[dst + k] = items[src + k * step].clone();
                }
            }
            (Output::Strings { out, fill }, _) => {
                out[dst..dst + n].fill(fill.clone());
            }
            (Output::Fixed { out, fill, .. }, Some(ChunkData::Fixed(bytes))) => {
                let es = fill.len();
                let Some(out) = out.ne_bytes_mut() else {
                    return;
                };
                if step == 1 {
                    out[dst * es..(dst + n) * es].copy_from_slice(&bytes[src * es..(src + n) * es]);
                } else {
                    for k in 0..n {
                        let s = (src + k * step) * es;
                        out[(dst + k) * es..(dst + k + 1) * es].copy_from_slice(&bytes[s..s + es]);
                    }
                }
            }
            (Output::Fixed { out, fill, zeros }, _) => {
                let es = fill.len();
                let Some(out) = out.ne_bytes_mut() else {
                    return;
                };
                if !(*zeros && fill.iter().all(|&b| b == 0)) {
                    for slot in out[dst * es..(dst + n) * es].chunks_exact_mut(es) {
                        slot.copy_from_slice(fill);
                    }
                }
            }
        }
    }

    /// The bytes of fixed-size values, one value's fill bytes, and whether what is not
    /// written yet is zeros.
    fn fixed_mut(&mut self) -> Option<(&mut [u8], &[u8], bool)> {
        match self {
            Output::Fixed { out, fill, zeros } => Some((out.ne_bytes_mut()?, &fill[..], *zeros)),
            Output::Strings { .. } => None,
        }
    }

    fn finish(self) -> Values {
        match self {
            Output::Strings { out, .. } => Values::String(out.into()),
            Output::Fixed { out, .. } => out,
        }
    }
}

/// Reads a variable's values from its store.
#[derive(Debug)]
pub struct ArrayReader<'s> {
    store: &'s dyn ReadableStore,
    key: StoreKey,
    name: String,
    nc_type: NcType,
    dtype: Dtype,
    /// The netCDF shape (dimension lengths; may exceed the stored shape).
    shape: Vec<u64>,
    /// True when a netCDF scalar is stored as a one-element array.
    scalar_as_1: bool,
    grid: ChunkGrid,
    fill: Option<Values>,
    pipeline: Pipeline,
    keys: ChunkKeys,
    /// Element strides within a stored chunk (C order, Fortran order or transposed).
    strides: Vec<u64>,
    c_order: bool,
    sharding: Option<Sharding>,
    /// Shard indexes read before, shared by the readers of one source.
    shard_cache: Option<&'s ShardCache>,
    /// About how many bytes of decoded chunks one batch holds.
    batch_bytes: u64,
}

impl<'s> ArrayReader<'s> {
    /// A reader for the variable at `var` of type `nc_type`, stored under `key` as
    /// `enc`, whose dimensions have lengths `shape`.
    ///
    /// # Errors
    /// [`Error::Codec`] when the codec chain cannot be built; [`Error::Metadata`] when the
    /// stored rank differs from the variable's dimensions.
    pub fn new(
        store: &'s dyn ReadableStore,
        key: StoreKey,
        var: &VarPath,
        nc_type: NcType,
        enc: &StoredArray,
        shape: Vec<u64>,
    ) -> Result<ArrayReader<'s>> {
        let name = var.to_string();
        let pipeline =
            Pipeline::new(&enc.filters, enc.compressor.as_ref()).map_err(|error| Error::Codec {
                var: name.clone(),
                error,
            })?;
        let scalar_as_1 = shape.is_empty() && enc.shape.len() == 1;
        if !scalar_as_1 && enc.shape.len() != shape.len() {
            return Err(Error::metadata(
                key.join(".zarray")?,
                format!(
                    "stored rank {} differs from the variable's {} dimensions",
                    enc.shape.len(),
                    shape.len()
                ),
            ));
        }
        if matches!(enc.dtype, Dtype::Object) != pipeline.is_object() {
            return Err(Error::metadata(
                key.join(".zarray")?,
                "dtype |O needs a vlen-utf8 or vlen-bytes filter (and only |O may have one)"
                    .to_string(),
            ));
        }
        Ok(ArrayReader {
            store,
            key,
            name,
            nc_type,
            dtype: enc.dtype.clone(),
            shape,
            scalar_as_1,
            grid: ChunkGrid::new(enc.shape.clone(), enc.chunks.clone()),
            fill: enc.fill.clone(),
            pipeline,
            keys: enc.keys,
            strides: enc.element_strides(),
            c_order: enc.is_c_order(),
            sharding: enc.sharding.clone(),
            shard_cache: None,
            batch_bytes: BATCH_BYTES,
        })
    }

    /// Keep shard indexes in `cache` (shared by a source's readers) rather than for
    /// this reader alone.
    pub fn with_shard_cache(mut self, cache: &'s ShardCache) -> ArrayReader<'s> {
        self.shard_cache = Some(cache);
        self
    }

    /// Hold about `bytes` of decoded chunks at a time while reading (at least a few
    /// chunks, so that remote stores keep requests in flight).
    pub fn with_batch_bytes(mut self, bytes: u64) -> ArrayReader<'s> {
        self.batch_bytes = bytes.max(1);
        self
    }

    /// The netCDF shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The store key of chunk `index` (of the shard holding it, when sharded).
    ///
    /// # Errors
    /// When the key breaks a key rule.
    pub fn chunk_key(&self, index: &[u64]) -> Result<StoreKey> {
        match &self.sharding {
            Some(sh) => {
                let (shard, _) = shard::locate(index, &sh.per_shard(&self.grid.chunks));
                Ok(self.key.join_path(&self.keys.key(&shard))?)
            }
            None => Ok(self.key.join_path(&self.keys.key(index))?),
        }
    }

    /// The chunk grid of the stored array.
    pub fn grid(&self) -> &ChunkGrid {
        &self.grid
    }

    /// One fill element: the fill value, or zero when the variable has no fill.
    fn fill_element(&self) -> Values {
        match &self.fill {
            Some(f) if f.len() == 1 => f.clone(),
            _ => Values::zeroed(self.nc_type, 1),
        }
    }

    fn decode(&self, part: &ChunkPart, key: &StoreKey, stored: Vec<u8>) -> Result<ChunkData> {
        let n = usize::try_from(self.grid.chunk_len().unwrap_or(u64::MAX))
            .map_err(|_| self.chunk_error(key, "chunk too large for this machine".into()))?;
        let item = self.dtype.item_size();
        let max_decoded = if item == 0 {
            n.saturating_mul(1 << 16).min(1 << 31)
        } else {
            n.saturating_mul(item)
        };
        let info = ChunkInfo {
            item_size: item.max(1),
            max_decoded,
        };
        let decoded = self
            .pipeline
            .decode(stored, key.as_str(), &info, n)
            .map_err(|error| Error::Codec {
                var: self.name.clone(),
                error,
            })?;
        let _ = part;
        match decoded {
            Decoded::Bytes(b) => convert(b, &self.dtype, self.nc_type, n)
                .map_err(|e| self.chunk_error(key, e.to_string())),
            Decoded::Items(items) => Ok(ChunkData::Strings(items.into_iter().map(Some).collect())),
        }
    }

    fn chunk_error(&self, key: &StoreKey, message: String) -> Error {
        Error::Chunk {
            var: self.name.clone(),
            key: key.to_string(),
            message,
        }
    }

    /// Read one whole stored chunk (including any padding past the array's edge) as
    /// values in C order. `Ok(None)` when the chunk is not stored.
    ///
    /// # Errors
    /// [`Error::Region`] for an index outside the grid; store, codec and chunk errors.
    pub fn read_chunk(&self, index: &[u64]) -> Result<Option<Values>> {
        let grid_shape: Vec<u64> = self
            .grid
            .shape
            .iter()
            .zip(&self.grid.chunks)
            .map(|(s, c)| s.div_ceil(*c))
            .collect();
        if index.len() != grid_shape.len() || index.iter().zip(&grid_shape).any(|(i, n)| i >= n) {
            return Err(Error::region(
                &self.name,
                format!("chunk index {index:?} is outside the chunk grid {grid_shape:?}"),
            ));
        }
        let key = self.chunk_key(index)?;
        let part = ChunkPart {
            index: index.to_vec(),
            runs: Vec::new(),
        };
        let got = match self.sharding {
            Some(_) => self
                .fetch_sharded(std::slice::from_ref(&part))?
                .pop()
                .unwrap_or(Ok(None))?,
            None => self.store.get(&key)?,
        };
        let Some(bytes) = got else {
            return Ok(None);
        };
        let data = self.decode(&part, &key, bytes)?;
        let values = match data {
            ChunkData::Fixed(b) => Values::from_ne_bytes(self.nc_type, &b),
            ChunkData::Strings(s) => Values::String(s.into()),
        };
        if self.c_order {
            return Ok(Some(values));
        }
        // Give the values in C order: element (i0, .., in) sits at the offset the
        // chunk's element strides give it.
        let c = &self.grid.chunks;
        let n = values.len();
        let mut order = Vec::with_capacity(n);
        let mut idx = vec![0u64; c.len()];
        for _ in 0..n {
            let off: u64 = idx.iter().zip(&self.strides).map(|(i, s)| i * s).sum();
            order.push(off as usize);
            for d in (0..c.len()).rev() {
                idx[d] += 1;
                if idx[d] < c[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        let mut out = Values::with_capacity(values.nc_type(), n);
        for o in order {
            out.append(values.slice(o..o + 1));
        }
        Ok(Some(out))
    }

    /// The type of the values read.
    pub(crate) fn nc_type(&self) -> NcType {
        self.nc_type
    }

    /// Read the values of `region` (in netCDF coordinates), in C order.
    ///
    /// # Errors
    /// [`Error::Region`] for a region outside the variable; store, codec and chunk
    /// errors naming the chunk.
    pub fn read(&self, region: &Region) -> Result<Values> {
        self.read_reusing(region, None)
    }

    /// [`ArrayReader::read`] into the memory of `spare` (values of an earlier read,
    /// of any type and length) where it can.
    ///
    /// # Errors
    /// As [`ArrayReader::read`].
    pub fn read_reusing(&self, region: &Region, spare: Option<Values>) -> Result<Values> {
        region
            .check(&self.shape)
            .map_err(|m| Error::region(&self.name, m.to_string()))?;
        let len = usize::try_from(region.len().unwrap_or(u64::MAX))
            .map_err(|_| Error::region(&self.name, format!("region {region} is too large")))?;
        let stored_region = if self.scalar_as_1 {
            Region::whole(&[1])
        } else {
            region.clone()
        };
        let parts = self.grid.parts(&stored_region);
        // Positions beyond the stored shape read as fill, and so do missing chunks.
        let beyond = stored_region
            .count
            .iter()
            .zip(&stored_region.start)
            .zip(&stored_region.stride)
            .zip(&self.grid.shape)
            .any(|(((c, s), st), shape)| *c > 0 && s + (c - 1) * st >= *shape);
        let fill = self.fill_element();
        let count = &stored_region.count;
        let mut out = Output::new(self.nc_type, len, &fill, beyond, spare);
        // Chunks are fetched in batches (one concurrent request each), decoded in
        // parallel and copied into place, so memory holds one batch, not every chunk
        // the region touches.
        let per_batch = self.chunks_per_batch();
        let swap = self.in_place_swap();
        for batch in parts.chunks(per_batch) {
            // Whole uncompressed chunks that land in one run go straight there.
            let (landed, rest): (Vec<_>, Vec<_>) = batch
                .iter()
                .map(|p| {
                    (
                        p,
                        swap.and_then(|_| in_place::landing(p, &self.grid.chunks, count)),
                    )
                })
                .partition(|(_, at)| at.is_some());
            let rest: std::borrow::Cow<[ChunkPart]> = if landed.is_empty() {
                batch.into()
            } else {
                let landed: Vec<(&ChunkPart, u64)> = landed
                    .into_iter()
                    .filter_map(|(p, at)| Some((p, at?)))
                    .collect();
                self.read_in_place(&mut out, &landed, swap == Some(true))?;
                rest.into_iter()
                    .map(|(p, _)| p.clone())
                    .collect::<Vec<_>>()
                    .into()
            };
            let batch = &rest[..];
            let keys: Vec<StoreKey> = batch
                .iter()
                .map(|p| self.chunk_key(&p.index))
                .collect::<Result<_>>()?;
            let spans: Vec<Option<(u64, u64)>> =
                batch.iter().map(|p| self.partial_span(p)).collect();
            let fetched = match self.sharding {
                Some(_) => self.fetch_sharded(batch)?,
                None => self.fetch(&keys, &spans),
            };
            let decoded: Vec<Result<Option<ChunkData>>> = batch
                .par_iter()
                .zip(keys.par_iter())
                .zip(spans.par_iter())
                .zip(fetched.into_par_iter())
                .map(|(((part, key), span), got)| match (got?, span) {
                    (Some(bytes), None) => self.decode(part, key, bytes).map(Some),
                    (Some(bytes), Some((lo, hi))) => {
                        convert(bytes, &self.dtype, self.nc_type, (hi - lo) as usize)
                            .map(Some)
                            .map_err(|e| self.chunk_error(key, e.to_string()))
                    }
                    (None, _) => Ok(None),
                })
                .collect();
            for ((part, data), span) in batch.iter().zip(decoded).zip(&spans) {
                let data = data?;
                // A partly read chunk holds its elements from `lo` on.
                let lo = span.map_or(0, |(lo, _)| lo as usize);
                self.copy_part(part, count, |src, dst, n, step| {
                    out.put(data.as_ref(), src - lo, dst, n, step);
                });
            }
        }
        Ok(out.finish())
    }

    /// `Some(swap)` when this array's chunks can be read straight into the values of a
    /// read (uncompressed, C order, unsharded, bytes the values' own but perhaps for
    /// `swap`ped byte order), from a store whose reads are cheap: a remote one gathers
    /// a batch's requests into one `get_many` instead.
    pub(super) fn in_place_swap(&self) -> Option<bool> {
        if !self.pipeline.is_empty() || !self.c_order || self.sharding.is_some() {
            return None;
        }
        let swap = same_bytes(&self.dtype, self.nc_type)?;
        self.store.reads_are_cheap().then_some(swap)
    }

    /// Read the whole chunks `landed` (each with the offset of its first value in the
    /// region's output) straight into `out`, in parallel; a missing chunk is the fill.
    fn read_in_place(
        &self,
        out: &mut Output,
        landed: &[(&ChunkPart, u64)],
        swap: bool,
    ) -> Result<()> {
        let Some((bytes, fill, zeros)) = out.fixed_mut() else {
            return Err(Error::Internal("in-place read of strings".into()));
        };
        let es = fill.len();
        let chunk_bytes = self.grid.chunk_len().and_then(|n| usize::try_from(n).ok());
        let at: Option<Vec<(&ChunkPart, usize)>> = landed
            .iter()
            .map(|&(p, o)| Some((p, usize::try_from(o).ok()?.checked_mul(es)?)))
            .collect();
        let pieces = chunk_bytes
            .and_then(|n| n.checked_mul(es))
            .zip(at)
            .and_then(|(len, at)| in_place::pieces(bytes, at, len))
            .ok_or_else(|| Error::Internal("chunks landing outside a read".into()))?;
        let zero_fill = zeros && fill.iter().all(|&b| b == 0);
        pieces.into_par_iter().try_for_each(|(part, piece)| {
            let key = self.chunk_key(&part.index)?;
            match self.store.get_into(&key, piece)? {
                GotInto::Filled if swap => crate::codec::dtype::swap_items(piece, es),
                GotInto::Filled => {}
                GotInto::Missing if zero_fill => {}
                GotInto::Missing => piece
                    .chunks_exact_mut(es)
                    .for_each(|v| v.copy_from_slice(fill)),
                GotInto::Other(stored) => match self.decode(part, &key, stored)? {
                    ChunkData::Fixed(b) if b.len() == piece.len() => piece.copy_from_slice(&b),
                    _ => return Err(self.chunk_error(&key, "not a chunk of this array".into())),
                },
            }
            Ok(())
        })
    }

    /// The span `lo..hi` of C-order elements of an uncompressed chunk of fixed-size
    /// values that `part` needs, when it is at most half the chunk: reading just those
    /// bytes saves reading each input chunk again for every slab of a rechunking copy.
    fn partial_span(&self, part: &ChunkPart) -> Option<(u64, u64)> {
        let item = self.dtype.item_size();
        if !self.pipeline.is_empty()
            || item == 0
            || !self.c_order
            || self.sharding.is_some()
            || part.runs.is_empty()
        {
            return None;
        }
        let strides = c_strides(&self.grid.chunks);
        let (mut lo, mut last) = (0u64, 0u64);
        for (run, stride) in part.runs.iter().zip(&strides) {
            if run.len == 0 {
                return None;
            }
            lo += run.in_chunk * stride;
            last += (run.in_chunk + (run.len - 1) * run.step) * stride;
        }
        let n = self.grid.chunk_len()?;
        let hi = last + 1;
        (hi - lo <= n / 2).then_some((lo, hi))
    }

    /// Fetch the chunks `keys`, each whole or, where `spans` gives one, only the bytes
    /// of those elements; overlapped as the store can.
    fn fetch(&self, keys: &[StoreKey], spans: &[Option<(u64, u64)>]) -> Vec<GetResult> {
        if spans.iter().all(Option::is_none) {
            return self.store.get_many(keys);
        }
        let item = self.dtype.item_size() as u64;
        let (mut whole, mut ranged) = (Vec::new(), Vec::new());
        for (k, span) in keys.iter().zip(spans) {
            match span {
                None => whole.push(k.clone()),
                Some((lo, hi)) => {
                    ranged.push((k.clone(), ByteRange::Bounded(lo * item..hi * item)));
                }
            }
        }
        let mut whole = self.store.get_many(&whole).into_iter();
        let mut ranged = self.store.get_many_ranges(&ranged).into_iter();
        spans
            .iter()
            .map(|span| {
                let next = if span.is_some() {
                    ranged.next()
                } else {
                    whole.next()
                };
                next.unwrap_or(Ok(None))
            })
            .collect()
    }

    /// Fetch the inner chunks of `parts` from their shards: each shard's index once
    /// (ranged, then kept), then each stored inner chunk's bytes by range, overlapped
    /// as the store can. A shard or inner chunk not stored is `None`.
    ///
    /// # Errors
    /// Store errors and damaged shard indexes, naming the shard.
    fn fetch_sharded(&self, parts: &[ChunkPart]) -> Result<Vec<GetResult>> {
        let Some(sharding) = &self.sharding else {
            return Ok(Vec::new());
        };
        let per = sharding.per_shard(&self.grid.chunks);
        let n_inner: u64 = per.iter().product();
        let mut slots: HashMap<Vec<u64>, usize> = HashMap::new();
        let mut shard_keys: Vec<StoreKey> = Vec::new();
        let mut located = Vec::with_capacity(parts.len());
        for part in parts {
            let (shard, pos) = shard::locate(&part.index, &per);
            let slot = match slots.get(&shard) {
                Some(&s) => s,
                None => {
                    shard_keys.push(self.key.join_path(&self.keys.key(&shard))?);
                    slots.insert(shard, shard_keys.len() - 1);
                    shard_keys.len() - 1
                }
            };
            located.push((slot, pos));
        }
        let indexes = self.shard_indexes(sharding, &shard_keys, n_inner)?;
        // The inner chunks stored, then read with as few requests as their places in
        // the shards allow (chunks of one shard are usually written end to end).
        let mut wanted = Vec::new();
        let mut which = Vec::with_capacity(parts.len());
        for &(slot, pos) in &located {
            match indexes[slot].as_ref().and_then(|ix| ix.range(pos)) {
                Some(r) => {
                    which.push(Some(wanted.len()));
                    wanted.push((slot, r));
                }
                None => which.push(None),
            }
        }
        let (reads, places) = shard::coalesce(&wanted);
        let requests: Vec<(StoreKey, ByteRange)> = reads
            .iter()
            .map(|(slot, r)| (shard_keys[*slot].clone(), ByteRange::Bounded(r.clone())))
            .collect();
        let got = self.store.get_many_ranges(&requests);
        let piece = |i: usize| -> GetResult {
            let (read, within) = &places[i];
            match &got[*read] {
                // A shard shorter than its index says: what there is, which fails
                // to decode and is reported as the chunk's error.
                Ok(Some(bytes)) => Ok(Some(
                    bytes
                        .get(within.start.min(bytes.len())..within.end.min(bytes.len()))
                        .unwrap_or_default()
                        .to_vec(),
                )),
                Ok(None) => Ok(None),
                Err(e) => Err(StoreError::Archive {
                    location: requests[*read].0.to_string(),
                    message: e.to_string(),
                }),
            }
        };
        Ok(which
            .into_iter()
            .map(|w| w.map_or(Ok(None), piece))
            .collect())
    }

    /// The indexes of the shards `keys` (`None` for a shard not stored), from the
    /// cache or with one batch of ranged requests.
    fn shard_indexes(
        &self,
        sharding: &Sharding,
        keys: &[StoreKey],
        n_inner: u64,
    ) -> Result<Vec<Option<Arc<ShardIndex>>>> {
        let mut out: Vec<Option<Option<Arc<ShardIndex>>>> = keys
            .iter()
            .map(|k| self.shard_cache.and_then(|c| c.get(k.as_str())))
            .collect();
        let missing: Vec<usize> = (0..keys.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let range = shard::index_range(sharding, n_inner);
            let requests: Vec<(StoreKey, ByteRange)> = missing
                .iter()
                .map(|&i| (keys[i].clone(), range.clone()))
                .collect();
            let n = usize::try_from(n_inner).map_err(|_| {
                self.chunk_error(&keys[0], "too many inner chunks per shard".into())
            })?;
            for (&i, got) in missing.iter().zip(self.store.get_many_ranges(&requests)) {
                let index = match got? {
                    Some(bytes) => Some(Arc::new(
                        ShardIndex::decode(&bytes, n, sharding.index_checksum)
                            .map_err(|m| self.chunk_error(&keys[i], m))?,
                    )),
                    None => None,
                };
                if let Some(c) = self.shard_cache {
                    c.put(keys[i].to_string(), index.clone());
                }
                out[i] = Some(index);
            }
        }
        Ok(out.into_iter().map(Option::flatten).collect())
    }

    /// How many chunks one batch fetches: about `batch_bytes` of decoded chunks, at
    /// least [`MIN_BATCH`] so that remote stores keep requests in flight.
    fn chunks_per_batch(&self) -> usize {
        let chunk_bytes = self
            .grid
            .chunk_len()
            .unwrap_or(u64::MAX)
            .saturating_mul(self.dtype.item_size().max(1) as u64)
            .max(1);
        usize::try_from(self.batch_bytes / chunk_bytes)
            .unwrap_or(usize::MAX)
            .clamp(MIN_BATCH, MAX_BATCH)
    }

    /// Walk the runs of `part`, calling `copy(src_index, dst_index, n, src_step)` for each
    /// innermost run (element indices into the chunk and into the output).
    fn copy_part(
        &self,
        part: &ChunkPart,
        out_count: &[u64],
        mut copy: impl FnMut(usize, usize, usize, usize),
    ) {
        let rank = self.grid.chunks.len();
        // Element strides inside the chunk (C, Fortran or transposed order).
        let cstride = &self.strides;
        let (len, step) = match part.runs.last() {
            Some(run) => (run.len as usize, (run.step * cstride[rank - 1]) as usize),
            None => (1, 1),
        };
        part.for_each_run(cstride, &c_strides(out_count), |src, dst| {
            copy(src as usize, dst as usize, len, step);
        });
    }
}
