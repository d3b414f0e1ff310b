//! [`ArrayWriter`]: storing slabs of a variable as chunks.

use rayon::prelude::*;

use super::convert_out::to_stored;
use super::StoredArray;
use crate::chunking::{c_strides, ChunkGrid, ChunkPart, Region};
use crate::codec::{ChunkInfo, Decoded, Pipeline};
use crate::error::{Error, Result};
use crate::model::{Values, VarPath};
use crate::store::{StoreKey, WritableStore};
use crate::zarr::Dtype;

/// Writes a variable's values into its chunks.
#[derive(Debug)]
pub struct ArrayWriter {
    key: StoreKey,
    name: String,
    stored: StoredArray,
    grid: ChunkGrid,
    pipeline: Pipeline,
    /// One fill element in stored form: the padding of edge chunks.
    fill: Vec<u8>,
    /// Elements in one chunk.
    chunk_len: usize,
    /// Leave out chunks that hold only the fill value.
    skip_fill: bool,
    /// About how many bytes of chunks one batch encodes and puts.
    batch_bytes: usize,
    /// What was stored, when asked for ([`ArrayWriter::watching_fill`]).
    watch: Option<Watch>,
}

/// What a writer has stored: how many chunks (or shards) it put, and whether a value
/// equal to the fill was among the values it stored. A format that decides after the
/// values whether to record a fill value at all reads it ([`ArrayWriter::written`]):
/// NCZarr records none where no value equals netCDF's default fill and every chunk is
/// stored, so that xarray, which masks by it, keeps an integer type.
#[derive(Debug, Default)]
struct Watch {
    chunks: std::sync::atomic::AtomicU64,
    fill_seen: std::sync::atomic::AtomicBool,
    /// Look for the fill among the values (else only count chunks).
    look: bool,
}

/// What [`ArrayWriter::written`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Chunks (or shards) put, against the chunks of the whole array.
    pub chunks: u64,
    /// Chunks (or shards) the array has.
    pub of: u64,
    /// A stored value equals the fill value (or a chunk of fill was left out).
    pub fill_seen: bool,
}

/// Whether `elements` (items of `item.len()` bytes) hold `item`. Elements of 1, 2, 4 and
/// 8 bytes are compared as integers, which the compiler does many at a time: the scan
/// runs over every value a writer stores (see [`ArrayWriter::watching_fill`]).
fn contains_element(elements: &[u8], item: &[u8]) -> bool {
    fn scan<const N: usize>(elements: &[u8], item: &[u8]) -> bool {
        let Ok(want) = <[u8; N]>::try_from(item) else {
            return false;
        };
        // Blocks of 64 elements, without an early exit inside one: a block is compared
        // as a whole, so the loop over it vectorises.
        let mut blocks = elements.chunks_exact(64 * N);
        for block in &mut blocks {
            let hit = block
                .chunks_exact(N)
                .fold(false, |acc, e| acc | (e == want));
            if hit {
                return true;
            }
        }
        blocks.remainder().chunks_exact(N).any(|e| e == want)
    }
    match item.len() {
        1 => elements.contains(&item[0]),
        2 => scan::<2>(elements, item),
        4 => scan::<4>(elements, item),
        8 => scan::<8>(elements, item),
        0 => false,
        n => elements.chunks_exact(n).any(|e| e == item),
    }
}

/// A chunk ready to be put: its key and stored bytes.
type EncodedChunk = (StoreKey, Vec<u8>);

/// The strings of one write to an object (`vlen-utf8`) array. Its slab holds each
/// element's index into them (8 bytes, little-endian; [`STRING_FILL`] for the fill
/// value), so chunks and shards are cut and padded as for fixed-size elements and
/// become items only when they are encoded.
type Strings<'a> = Option<&'a crate::model::Strings>;

/// The slab index of an element that holds the fill value.
const STRING_FILL: u64 = u64::MAX;

/// Bytes per element in the writer's slabs and chunks: an object array's are indices.
fn element_bytes(dtype: &Dtype) -> usize {
    match dtype {
        Dtype::Object => 8,
        d => d.item_size(),
    }
}

/// About how many bytes of chunks one batch of a write encodes and puts at once.
const BATCH_BYTES: usize = 64 << 20;

impl ArrayWriter {
    /// A writer for the variable at `var`, stored under `key` as `stored`.
    ///
    /// # Errors
    /// [`Error::Codec`] when the codec chain cannot be built, [`Error::Invalid`] when a
    /// chunk could not be held in memory or the fill value has no stored form.
    pub fn new(key: StoreKey, var: &VarPath, stored: StoredArray) -> Result<ArrayWriter> {
        let name = var.to_string();
        let pipeline =
            Pipeline::new(&stored.filters, stored.compressor.as_ref()).map_err(|error| {
                Error::Codec {
                    var: name.clone(),
                    error,
                }
            })?;
        // Sharded, the writer's unit is the shard: slabs are cut into shards, and each
        // shard into its inner chunks as it is encoded.
        let unit = stored
            .sharding
            .as_ref()
            .map_or(&stored.chunks, |s| &s.shape)
            .clone();
        let grid = ChunkGrid::new(stored.shape.clone(), unit);
        let chunk_len = grid
            .chunk_len()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| n.checked_mul(element_bytes(&stored.dtype)).is_some())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "variable '{name}': chunks {:?} are too large for this machine",
                    stored.chunks
                ))
            })?;
        let fill = match &stored.fill {
            _ if stored.dtype == Dtype::Object => STRING_FILL.to_le_bytes().to_vec(),
            Some(f) => to_stored(f, &stored.dtype)
                .map_err(|m| Error::Invalid(format!("variable '{name}': {m}")))?
                .into_owned(),
            None => vec![0; stored.dtype.item_size()],
        };
        Ok(ArrayWriter {
            key,
            name,
            stored,
            grid,
            pipeline,
            fill,
            chunk_len,
            skip_fill: false,
            batch_bytes: BATCH_BYTES,
            watch: None,
        })
    }

    /// Keep count of the chunks put (`count`), and look for the fill value among the
    /// values stored (`look`: values stored as they come, [`ArrayWriter::write_encoded`],
    /// are decoded to be looked at), for [`ArrayWriter::written`].
    pub fn watching(mut self, count: bool, look: bool) -> ArrayWriter {
        self.watch = (count || look).then(|| Watch {
            look,
            ..Watch::default()
        });
        self
    }

    /// Count chunks and look for the fill ([`ArrayWriter::watching`]).
    pub fn watching_fill(self, watch: bool) -> ArrayWriter {
        self.watching(watch, watch)
    }

    /// What was stored so far; `None` unless [`ArrayWriter::watching_fill`].
    pub fn written(&self) -> Option<Written> {
        use std::sync::atomic::Ordering;
        let w = self.watch.as_ref()?;
        let of = self
            .grid
            .shape
            .iter()
            .zip(&self.grid.chunks)
            .map(|(&n, &c)| n.div_ceil(c.max(1)))
            .product();
        Some(Written {
            chunks: w.chunks.load(Ordering::SeqCst),
            of,
            fill_seen: w.fill_seen.load(Ordering::SeqCst),
        })
    }

    /// Note `n` chunks put.
    fn count_put(&self, n: usize) {
        if let Some(w) = &self.watch {
            w.chunks
                .fetch_add(n as u64, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Whether the fill value is still to be looked for.
    fn looking_for_fill(&self) -> bool {
        self.watch
            .as_ref()
            .is_some_and(|w| w.look && !w.fill_seen.load(std::sync::atomic::Ordering::Relaxed))
            && self.stored.dtype != Dtype::Object
    }

    /// Note whether `elements` (stored bytes of values) hold the fill value.
    fn look_for_fill(&self, elements: &[u8]) {
        if let Some(w) = &self.watch {
            if self.has_fill(elements) {
                w.fill_seen.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }

    /// Whether the elements of chunk `index` inside the array (not an edge chunk's
    /// padding) hold the fill value; `chunk` holds the whole chunk in C order.
    fn look_for_fill_in_chunk(&self, index: &[u64], chunk: &[u8]) {
        let item = self.fill.len().max(1);
        let chunks = &self.grid.chunks;
        let extent: Vec<u64> = index
            .iter()
            .zip(chunks.iter().zip(&self.grid.shape))
            .map(|(&i, (&c, &n))| c.min(n.saturating_sub(i * c)))
            .collect();
        if extent.contains(&0) {
            return;
        }
        let Some((&row, outer)) = extent.split_last() else {
            self.look_for_fill(chunk.get(..item).unwrap_or(&[]));
            return;
        };
        let strides = c_strides(chunks);
        crate::chunking::for_each_index(outer, |at| {
            let start: u64 = at.iter().zip(&strides).map(|(i, s)| i * s).sum();
            let (s, e) = (start as usize * item, (start + row) as usize * item);
            if let Some(run) = chunk.get(s..e) {
                self.look_for_fill(run);
            }
        });
    }

    /// Encode and put about `bytes` of chunks at a time (at least a few chunks).
    pub fn with_batch_bytes(mut self, bytes: u64) -> ArrayWriter {
        self.batch_bytes = usize::try_from(bytes).unwrap_or(usize::MAX).max(1);
        self
    }

    /// Leave out chunks whose every element is the fill value, as zarr-python does
    /// (a reader sees the same values: a missing chunk reads as the fill). A variable
    /// without a fill value has all its chunks written.
    pub fn skipping_fill_chunks(mut self, skip: bool) -> ArrayWriter {
        self.skip_fill = skip && self.stored.fill.is_some();
        self
    }

    /// The chunk grid the writer fills.
    pub fn grid(&self) -> &ChunkGrid {
        &self.grid
    }

    /// Store the values of `region` (in the array's stored coordinates, C order) in the
    /// chunks it covers. The region must consist of whole chunks, except where it
    /// reaches the array's edge: a chunk is written once, whole.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a region that cuts a chunk or values of the wrong length;
    /// codec and store errors.
    pub fn write(&self, store: &dyn WritableStore, region: &Region, values: &Values) -> Result<()> {
        self.check_aligned(region)?;
        let expect = region.len().unwrap_or(u64::MAX);
        if values.len() as u64 != expect {
            return Err(Error::Invalid(format!(
                "variable '{}': {} values given for region {region} of {expect}",
                self.name,
                values.len()
            )));
        }
        let (slab, strings) = self.slab(values)?;
        if self.looking_for_fill() {
            self.look_for_fill(&slab);
        }
        let item = element_bytes(&self.stored.dtype).max(1);
        let parts = self.grid.plan(region);
        // Chunks are encoded in parallel in batches, and a batch is put while the next
        // is encoded, so memory holds two batches of encoded chunks beside the slab. The
        // put runs beside the encoding rather than after it: creating files in one
        // directory is serialised by the directory's lock, so threads that put at once
        // would wait on each other instead of encoding.
        let per_batch = (self.batch_bytes / (self.chunk_len * item).max(1)).clamp(4, 4096);
        let mut pending: Option<Vec<EncodedChunk>> = None;
        for batch in parts.chunks(per_batch) {
            let previous = pending.take();
            let (stored, encoded) = rayon::join(
                || previous.map_or(Ok(()), |items| self.put(store, &items)),
                || self.encode_batch(batch, &slab, region, item, strings),
            );
            stored?;
            pending = Some(encoded?);
        }
        if let Some(items) = pending {
            self.put(store, &items)?;
        }
        Ok(())
    }

    /// Put encoded chunks, counting them.
    fn put(&self, store: &dyn WritableStore, items: &[EncodedChunk]) -> Result<()> {
        store.put_many(items)?;
        self.count_put(items.len());
        Ok(())
    }

    /// The stored elements of `values`, and for an object array the strings its
    /// indices point to (see [`Strings`]).
    fn slab<'v>(&self, values: &'v Values) -> Result<(std::borrow::Cow<'v, [u8]>, Strings<'v>)> {
        let bad = |m: String| Error::Invalid(format!("variable '{}': {m}", self.name));
        if self.stored.dtype != Dtype::Object {
            let slab = to_stored(values, &self.stored.dtype).map_err(|m| bad(m.to_string()))?;
            return Ok((slab, None));
        }
        let Values::String(items) = values else {
            return Err(bad(format!(
                "{} values cannot be stored as strings",
                values.nc_type()
            )));
        };
        let fill = self.fill_string();
        let mut slab = Vec::with_capacity(items.len() * 8);
        for (i, s) in items.iter().enumerate() {
            let is_fill = s.unwrap_or(&[]) == fill;
            let index = if is_fill { STRING_FILL } else { i as u64 };
            slab.extend_from_slice(&index.to_le_bytes());
        }
        Ok((std::borrow::Cow::Owned(slab), Some(items)))
    }

    /// The fill value of an object array's elements (`""` without one).
    fn fill_string(&self) -> &[u8] {
        match &self.stored.fill {
            Some(Values::String(s)) => s.first().flatten().unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The stored bytes of one chunk's elements (for an object array, indices into
    /// `strings`) through the codec chain.
    fn encode_elements(
        &self,
        elements: Vec<u8>,
        key: &StoreKey,
        item: usize,
        strings: Strings,
    ) -> Result<Vec<u8>> {
        let chunk = match strings {
            None => Decoded::Bytes(elements),
            Some(strings) => {
                let fill = self.fill_string();
                Decoded::Items(
                    elements
                        .chunks_exact(8)
                        .map(|b| {
                            let mut index = [0u8; 8];
                            index.copy_from_slice(b);
                            let s = usize::try_from(u64::from_le_bytes(index))
                                .ok()
                                .and_then(|i| strings.get(i))
                                .map_or(fill, |s| s.unwrap_or(&[]));
                            s.to_vec()
                        })
                        .collect(),
                )
            }
        };
        let info = ChunkInfo {
            item_size: item,
            max_decoded: usize::MAX,
        };
        self.pipeline
            .encode(chunk, key.as_str(), &info)
            .map_err(|error| Error::Codec {
                var: self.name.clone(),
                error,
            })
    }

    /// Store whole chunks given as another format stores them: each `(index, bytes)`
    /// encoded with `from` (a chain over chunks of this writer's shape and element
    /// bytes), or as this writer encodes them when `from` is `None`. Those are put as
    /// they are; the others are decoded and encoded again, in parallel, with no slab
    /// in between.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an index outside the grid or a chunk that decodes to the
    /// wrong length; codec and store errors.
    pub fn write_encoded(
        &self,
        store: &dyn WritableStore,
        chunks: Vec<(Vec<u64>, Vec<u8>)>,
        from: Option<&Pipeline>,
    ) -> Result<()> {
        if self.stored.sharding.is_some() || self.stored.dtype == Dtype::Object {
            return Err(Error::Invalid(format!(
                "variable '{}': a sharded or string array takes values, not stored chunks",
                self.name
            )));
        }
        let item = self.stored.dtype.item_size().max(1);
        let size = self.chunk_len * item;
        let items: Vec<Option<EncodedChunk>> = chunks
            .into_par_iter()
            .map(|(index, bytes)| -> Result<Option<EncodedChunk>> {
                let inside = index.len() == self.grid.shape.len()
                    && index
                        .iter()
                        .zip(self.grid.shape.iter().zip(&self.grid.chunks))
                        .all(|(&i, (&n, &c))| i.saturating_mul(c) < n.max(1));
                if !inside {
                    return Err(Error::Invalid(format!(
                        "variable '{}': chunk {index:?} is outside the chunk grid",
                        self.name
                    )));
                }
                let key = self.key.join_path(&self.stored.keys.key(&index))?;
                let info = ChunkInfo {
                    item_size: item,
                    max_decoded: size,
                };
                let codec = |error| Error::Codec {
                    var: self.name.clone(),
                    error,
                };
                let Some(from) = from else {
                    if self.pipeline.is_empty() && bytes.len() != size {
                        return Err(Error::Invalid(format!(
                            "variable '{}': chunk {index:?} holds {} bytes, expected {size}",
                            self.name,
                            bytes.len()
                        )));
                    }
                    if self.looking_for_fill() {
                        // Put as they are, but looked at: decoded once more.
                        match self.pipeline.decode(
                            bytes.clone(),
                            key.as_str(),
                            &info,
                            self.chunk_len,
                        ) {
                            Ok(Decoded::Bytes(b)) if b.len() == size => {
                                self.look_for_fill_in_chunk(&index, &b);
                            }
                            Ok(_) => {
                                return Err(Error::Invalid(format!(
                                "variable '{}': chunk {index:?} does not decode to {size} bytes",
                                self.name
                            )))
                            }
                            Err(e) => return Err(codec(e)),
                        }
                    }
                    return Ok(Some((key, bytes)));
                };
                let decoded = match from.decode(bytes, key.as_str(), &info, self.chunk_len) {
                    Ok(Decoded::Bytes(b)) if b.len() == size => b,
                    Ok(_) => {
                        return Err(Error::Invalid(format!(
                            "variable '{}': chunk {index:?} does not decode to {size} bytes",
                            self.name
                        )))
                    }
                    Err(e) => return Err(codec(e)),
                };
                if self.looking_for_fill() {
                    self.look_for_fill_in_chunk(&index, &decoded);
                }
                if self.skip_fill && self.all_fill(&decoded) {
                    return Ok(None);
                }
                let info = ChunkInfo {
                    max_decoded: usize::MAX,
                    ..info
                };
                let bytes = self
                    .pipeline
                    .encode(Decoded::Bytes(decoded), key.as_str(), &info)
                    .map_err(codec)?;
                Ok(Some((key, bytes)))
            })
            .collect::<Result<_>>()?;
        let items: Vec<EncodedChunk> = items.into_iter().flatten().collect();
        self.put(store, &items)
    }

    /// The chunks of `batch` encoded in parallel, those left out (all fill) dropped.
    fn encode_batch(
        &self,
        batch: &[ChunkPart],
        slab: &[u8],
        region: &Region,
        item: usize,
        strings: Strings,
    ) -> Result<Vec<EncodedChunk>> {
        let encoded: Vec<Result<Vec<Option<EncodedChunk>>>> = row_groups(batch)
            .par_iter()
            .map(|group| {
                let chunks = self.assemble(group, slab, region, item);
                chunks
                    .into_par_iter()
                    .zip(group.par_iter())
                    .map(|(chunk, part)| self.encode_chunk(part, chunk, item, strings))
                    .collect()
            })
            .collect();
        let mut items = Vec::with_capacity(batch.len());
        for group in encoded {
            items.extend(group?.into_iter().flatten());
        }
        Ok(items)
    }

    /// The stored bytes of the chunks of `group` (parts that differ only in their last
    /// index), cut from the slab row by row: each row of the slab is read once, in
    /// order, and its pieces go to the chunks in turn. Filling one chunk at a time would
    /// read a few elements per row, rows a page apart, once per chunk.
    fn assemble(
        &self,
        group: &[ChunkPart],
        slab: &[u8],
        region: &Region,
        item: usize,
    ) -> Vec<Vec<u8>> {
        let Some(first) = group.first() else {
            return Vec::new();
        };
        let mut chunks: Vec<ChunkAssembly> = group
            .iter()
            .map(|part| ChunkAssembly::new(part, self, item))
            .collect();
        let (c0, o0) = last_run_start(first);
        first.for_each_run(
            &c_strides(&self.grid.chunks),
            &c_strides(&region.count),
            |c, o| {
                for (part, chunk) in group.iter().zip(chunks.iter_mut()) {
                    // A part's runs differ from the first part's only in where its last
                    // dimension's run starts (that dimension's stride is 1 in C order).
                    let (cp, op) = last_run_start(part);
                    let s = (o - o0 + op) as usize * item;
                    chunk.put((c - c0 + cp) as usize * item, &slab[s..s + chunk.run_bytes]);
                }
            },
        );
        chunks.into_iter().map(|chunk| chunk.bytes).collect()
    }

    /// The key and stored bytes of the chunk `part` holding `chunk` (`None` when it
    /// holds only the fill value and such chunks are left out).
    fn encode_chunk(
        &self,
        part: &ChunkPart,
        chunk: Vec<u8>,
        item: usize,
        strings: Strings,
    ) -> Result<Option<EncodedChunk>> {
        if self.skip_fill && self.all_fill(&chunk) {
            return Ok(None);
        }
        let key = self.key.join_path(&self.stored.keys.key(&part.index))?;
        if self.stored.sharding.is_some() {
            return Ok(self
                .encode_shard(&key, &chunk, item, strings)?
                .map(|b| (key, b)));
        }
        let bytes = self.encode_elements(chunk, &key, item, strings)?;
        Ok(Some((key, bytes)))
    }

    /// A shard's stored bytes from its elements (C order, shard shape): its inner
    /// chunks encoded in parallel and laid end to end, then the index (with its
    /// CRC32C). Inner chunks of fill only are left out when such chunks are; `None`
    /// when that leaves nothing.
    fn encode_shard(
        &self,
        key: &StoreKey,
        shard: &[u8],
        item: usize,
        strings: Strings,
    ) -> Result<Option<Vec<u8>>> {
        let Some(sharding) = &self.stored.sharding else {
            return Ok(None);
        };
        let inner = &self.stored.chunks;
        let per = sharding.per_shard(inner);
        let n: usize = per.iter().product::<u64>() as usize;
        let inner_len: usize = inner.iter().product::<u64>() as usize;
        let shard_strides = c_strides(&sharding.shape);
        let rank = inner.len();
        let row = inner.last().copied().unwrap_or(1) as usize * item;
        let encoded: Vec<Option<Vec<u8>>> = (0..n)
            .into_par_iter()
            .map(|pos| -> Result<Option<Vec<u8>>> {
                // The inner chunk's origin in the shard, from its C-order position.
                let mut origin = vec![0u64; rank];
                let mut rest = pos as u64;
                for d in (0..rank).rev() {
                    origin[d] = (rest % per[d]) * inner[d];
                    rest /= per[d];
                }
                let mut bytes = Vec::with_capacity(inner_len * item);
                let rows = inner_len / inner.last().copied().unwrap_or(1).max(1) as usize;
                let mut idx = vec![0u64; rank.saturating_sub(1)];
                for _ in 0..rows.max(1) {
                    let mut off = 0u64;
                    for d in 0..rank {
                        let i = if d + 1 < rank { idx[d] } else { 0 };
                        off += (origin[d] + i) * shard_strides[d];
                    }
                    let s = off as usize * item;
                    bytes.extend_from_slice(&shard[s..s + row]);
                    for d in (0..idx.len()).rev() {
                        idx[d] += 1;
                        if idx[d] < inner[d] {
                            break;
                        }
                        idx[d] = 0;
                    }
                }
                if self.skip_fill && self.all_fill(&bytes) {
                    return Ok(None);
                }
                self.encode_elements(bytes, key, item, strings).map(Some)
            })
            .collect::<Result<_>>()?;
        if encoded.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut index = super::shard::ShardIndex::empty(n);
        let total: usize = encoded.iter().flatten().map(Vec::len).sum();
        let mut out = Vec::with_capacity(total + n * 16 + 4);
        for (i, e) in encoded.into_iter().enumerate() {
            if let Some(e) = e {
                let start = out.len() as u64;
                out.extend_from_slice(&e);
                index.set(i, start..out.len() as u64);
            }
        }
        out.extend_from_slice(&index.encode(sharding.index_checksum));
        Ok(Some(out))
    }

    /// True when every element of a chunk's stored bytes is the fill value.
    fn all_fill(&self, chunk: &[u8]) -> bool {
        let n = self.fill.len().max(1);
        chunk.chunks_exact(n).all(|e| e == self.fill.as_slice())
    }

    /// True when some element of `elements` (stored bytes) is the fill value.
    fn has_fill(&self, elements: &[u8]) -> bool {
        contains_element(elements, &self.fill)
    }

    /// A region this writer can store: unit strides, inside the array, and every edge
    /// on a chunk boundary or the array's end.
    fn check_aligned(&self, region: &Region) -> Result<()> {
        region
            .check(&self.grid.shape)
            .map_err(|m| Error::Invalid(format!("variable '{}': {m}", self.name)))?;
        let aligned = (0..region.rank()).all(|d| {
            let (c, end) = (self.grid.chunks[d], region.start[d] + region.count[d]);
            region.stride[d] == 1
                && region.start[d].is_multiple_of(c)
                && (end.is_multiple_of(c) || end == self.grid.shape[d])
        });
        if aligned {
            Ok(())
        } else {
            Err(Error::Invalid(format!(
                "variable '{}': region {region} does not consist of whole chunks {:?}",
                self.name, self.grid.chunks
            )))
        }
    }
}

/// Copy the part of a slab (C order, `slab_count` shape, `item` bytes per element)
/// that falls in one chunk into the chunk's buffer (C order, `chunks` shape).
/// A chunk being cut from a slab.
struct ChunkAssembly {
    bytes: Vec<u8>,
    /// The slab covers the whole chunk: its runs come in order and are appended, with
    /// no fill written first only to be overwritten.
    append: bool,
    /// Bytes in one run.
    run_bytes: usize,
}

impl ChunkAssembly {
    fn new(part: &ChunkPart, writer: &ArrayWriter, item: usize) -> ChunkAssembly {
        let covers = part
            .runs
            .iter()
            .zip(&writer.grid.chunks)
            .all(|(r, &c)| r.in_chunk == 0 && r.len == c && (r.step == 1 || c == 1));
        ChunkAssembly {
            bytes: if covers {
                Vec::with_capacity(writer.chunk_len * item)
            } else {
                writer.fill.repeat(writer.chunk_len)
            },
            append: covers,
            run_bytes: part.runs.last().map_or(1, |r| r.len as usize) * item,
        }
    }

    /// Place `piece` at byte `at` of the chunk.
    fn put(&mut self, at: usize, piece: &[u8]) {
        if self.append {
            debug_assert_eq!(
                at,
                self.bytes.len(),
                "runs of a covered chunk come in order"
            );
            self.bytes.extend_from_slice(piece);
        } else {
            self.bytes[at..at + piece.len()].copy_from_slice(piece);
        }
    }
}

/// Where a part's last-dimension run starts, in the chunk and in the region.
fn last_run_start(part: &ChunkPart) -> (u64, u64) {
    part.runs.last().map_or((0, 0), |r| (r.in_chunk, r.in_out))
}

/// `batch` cut into groups of consecutive parts that differ only in their last index:
/// the chunks that share the slab's rows.
fn row_groups(batch: &[ChunkPart]) -> Vec<&[ChunkPart]> {
    batch
        .chunk_by(|a, b| {
            let outer = a.index.len().saturating_sub(1);
            a.index[..outer] == b.index[..outer]
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::array::{ArrayReader, ChunkKeys};
    use crate::chunking::{slabs, SlabOrder};
    use crate::model::NcType;
    use crate::store::{ListableStore, MemoryStore, ReadableStore};
    use crate::zarr::Dtype;

    pub(in crate::array) fn stored(
        shape: &[u64],
        chunks: &[u64],
        compressor: Option<&str>,
    ) -> StoredArray {
        StoredArray {
            dtype: Dtype::parse("<i4").unwrap(),
            shape: shape.to_vec(),
            chunks: chunks.to_vec(),
            fill: Some(Values::Int(vec![-1])),
            filters: vec![],
            compressor: compressor.map(|c| crate::json::parse_str(c).unwrap()),
            transpose: None,
            keys: ChunkKeys::V2('.'),
            sharding: None,
            fill_implied: false,
        }
    }

    pub(in crate::array) fn values(region: &Region, shape: &[u64]) -> Values {
        // Each element holds its flat index in the whole array.
        let mut out = Vec::new();
        let n = region.len().unwrap();
        let mut idx = region.start.clone();
        for _ in 0..n {
            let flat = idx.iter().zip(shape).fold(0u64, |a, (i, s)| a * s + i);
            out.push(flat as i32);
            for d in (0..idx.len()).rev() {
                idx[d] += 1;
                if idx[d] < region.start[d] + region.count[d] {
                    break;
                }
                idx[d] = region.start[d];
            }
        }
        Values::Int(out)
    }

    #[test]
    fn slabs_of_whole_chunks_write_every_chunk_once_and_read_back() {
        let var = VarPath::new(&[], "v");
        for (shape, chunks, budget) in [
            (vec![1u64, 7, 5], vec![1u64, 2, 5], 10u64),
            (vec![5, 6], vec![2, 4], 1),
            (vec![5, 6], vec![2, 4], 1000),
            (vec![9], vec![4], 5),
        ] {
            let store = MemoryStore::new();
            let key = StoreKey::new("v").unwrap();
            let st = stored(&shape, &chunks, Some(r#"{"id": "zlib", "level": 1}"#));
            let w = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
            let parts = slabs(&shape, &chunks, budget, SlabOrder::Chunks);
            for r in &parts {
                let chunk_elems: u64 = chunks.iter().product();
                assert!(
                    r.len().unwrap() <= budget.max(chunk_elems),
                    "{r} over budget"
                );
                w.write(&store, r, &values(r, &shape)).unwrap();
            }
            let grid = w.grid();
            let nchunks: u64 = shape
                .iter()
                .zip(&chunks)
                .map(|(s, c)| s.div_ceil(*c))
                .product();
            assert_eq!(store.list().unwrap().len() as u64, nchunks);
            let _ = grid;
            let reader =
                ArrayReader::new(&store, key, &var, NcType::Int, &st, shape.clone()).unwrap();
            let whole = Region::whole(&shape);
            assert_eq!(reader.read(&whole).unwrap(), values(&whole, &shape));
        }
    }

    /// A memory store that counts the partial reads asked of it.
    #[derive(Debug, Default)]
    struct CountingRanges {
        inner: MemoryStore,
        ranges: std::sync::atomic::AtomicUsize,
    }

    impl crate::store::ReadableStore for CountingRanges {
        fn get(&self, key: &StoreKey) -> crate::store::GetResult {
            self.inner.get(key)
        }
        fn get_range(
            &self,
            key: &StoreKey,
            range: &crate::store::ByteRange,
        ) -> crate::store::GetResult {
            self.ranges
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.get_range(key, range)
        }
        fn location(&self) -> String {
            "counting".into()
        }
    }

    #[test]
    fn uncompressed_chunks_are_read_in_part_where_a_region_needs_little_of_them() {
        let var = VarPath::new(&[], "v");
        let shape = [6u64, 8, 10];
        let st = stored(&shape, &[1, 8, 10], None);
        let store = CountingRanges::default();
        let key = StoreKey::new("v").unwrap();
        let w = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
        let whole = Region::whole(&shape);
        w.write(&store.inner, &whole, &values(&whole, &shape))
            .unwrap();
        let reader = ArrayReader::new(&store, key, &var, NcType::Int, &st, shape.to_vec()).unwrap();
        let region = |start: [u64; 3], count: [u64; 3]| Region {
            start: start.to_vec(),
            count: count.to_vec(),
            stride: vec![1; 3],
        };
        // (region, whether it is read in part)
        for (r, partial) in [
            (region([0, 2, 0], [6, 2, 10]), true),
            (region([1, 7, 9], [4, 1, 1]), true),
            (region([2, 3, 4], [2, 3, 5]), true),
            (region([0, 0, 0], [3, 8, 10]), false),
            (region([0, 0, 0], [6, 5, 10]), false),
            (region([0, 0, 0], [6, 6, 10]), false),
        ] {
            let before = store.ranges.load(std::sync::atomic::Ordering::Relaxed);
            assert_eq!(reader.read(&r).unwrap(), values(&r, &shape), "{r}");
            let after = store.ranges.load(std::sync::atomic::Ordering::Relaxed);
            assert_eq!(after > before, partial, "{r}");
        }
        // A missing chunk read in part is fill; a truncated one is an error.
        store.inner.remove(&StoreKey::new("v/4.0.0").unwrap());
        let r = region([4, 0, 0], [1, 2, 10]);
        assert_eq!(reader.read(&r).unwrap(), Values::Int(vec![-1; 20]));
        store
            .inner
            .insert(StoreKey::new("v/2.0.0").unwrap(), vec![0u8; 40]);
        let e = reader.read(&region([2, 0, 0], [1, 2, 10])).unwrap_err();
        assert!(e.to_string().contains("v/2.0.0"), "{e}");
    }

    #[test]
    fn a_watching_writer_counts_chunks_and_sees_the_fill_only_inside_the_array() {
        let var = VarPath::new(&[], "v");
        let key = StoreKey::new("v").unwrap();
        // 5 values in chunks of 2: the last chunk is padded with the fill (-1).
        let st = stored(&[3, 5], &[2, 2], Some(r#"{"id": "zlib", "level": 1}"#));
        let store = MemoryStore::new();
        let w = ArrayWriter::new(key.clone(), &var, st.clone())
            .unwrap()
            .watching_fill(true);
        let whole = Region::whole(&[3, 5]);
        w.write(&store, &whole, &values(&whole, &[3, 5])).unwrap();
        let written = w.written().unwrap();
        assert_eq!(
            (written.chunks, written.of, written.fill_seen),
            (6, 6, false)
        );
        // A value equal to the fill is seen.
        let w = ArrayWriter::new(key.clone(), &var, st.clone())
            .unwrap()
            .watching_fill(true);
        let mut v = values(&whole, &[3, 5]);
        if let Values::Int(x) = &mut v {
            x[7] = -1;
        }
        w.write(&store, &whole, &v).unwrap();
        assert!(w.written().unwrap().fill_seen);
        // Chunks put as they are: decoded to be looked at, padding not counted.
        let from = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
        let encoded: Vec<(Vec<u64>, Vec<u8>)> = store
            .list()
            .unwrap()
            .into_iter()
            .map(|(k, _)| {
                let index: Vec<u64> = k
                    .as_str()
                    .trim_start_matches("v/")
                    .split('.')
                    .map(|i| i.parse().unwrap())
                    .collect();
                (index, store.get(&k).unwrap().unwrap())
            })
            .collect();
        drop(from);
        let again = MemoryStore::new();
        let w = ArrayWriter::new(key.clone(), &var, st.clone())
            .unwrap()
            .watching_fill(true);
        let first: Vec<_> = encoded.iter().filter(|(i, _)| i[0] == 0).cloned().collect();
        w.write_encoded(&again, first, None).unwrap();
        let written = w.written().unwrap();
        assert_eq!((written.chunks, written.fill_seen), (3, true));
        let w = ArrayWriter::new(key, &var, st).unwrap().watching_fill(true);
        let clean: Vec<_> = encoded.into_iter().filter(|(i, _)| i[0] == 1).collect();
        w.write_encoded(&again, clean, None).unwrap();
        let written = w.written().unwrap();
        assert_eq!((written.chunks, written.fill_seen), (3, false));
    }

    #[test]
    fn elements_are_found_at_every_width_and_place() {
        for width in [1usize, 2, 3, 4, 8] {
            let item: Vec<u8> = (0..width as u8).map(|b| b + 0x40).collect();
            for len in [0usize, 1, 63, 64, 65, 200] {
                let mut elements = vec![0u8; len * width];
                assert!(!contains_element(&elements, &item), "{width} {len}");
                for at in [0, len / 2, len.saturating_sub(1)] {
                    if len == 0 {
                        continue;
                    }
                    elements.fill(0);
                    elements[at * width..(at + 1) * width].copy_from_slice(&item);
                    assert!(contains_element(&elements, &item), "{width} {len} {at}");
                }
                // The item's bytes across two elements are not the item.
                if width > 1 && len >= 2 {
                    elements.fill(0);
                    elements[width / 2..width / 2 + width].copy_from_slice(&item);
                    assert!(
                        !contains_element(&elements, &item),
                        "{width} {len} straddling"
                    );
                }
            }
        }
    }

    #[test]
    fn chunks_of_only_fill_are_left_out_when_asked() {
        let var = VarPath::new(&[], "v");
        let st = stored(&[4, 4], &[2, 2], None);
        let whole = Region::whole(&[4, 4]);
        let key = || StoreKey::new("v").unwrap();
        let mut v = vec![-1i32; 16];
        v[0] = 7;
        for (skip, expect) in [(false, 4), (true, 1)] {
            let store = MemoryStore::new();
            let w = ArrayWriter::new(key(), &var, st.clone())
                .unwrap()
                .skipping_fill_chunks(skip);
            w.write(&store, &whole, &Values::Int(v.clone())).unwrap();
            assert_eq!(store.list().unwrap().len(), expect);
            let reader =
                ArrayReader::new(&store, key(), &var, NcType::Int, &st, vec![4, 4]).unwrap();
            assert_eq!(reader.read(&whole).unwrap(), Values::Int(v.clone()));
        }
        // Without a fill value every chunk is kept.
        let mut nofill = st.clone();
        nofill.fill = None;
        let store = MemoryStore::new();
        let w = ArrayWriter::new(key(), &var, nofill)
            .unwrap()
            .skipping_fill_chunks(true);
        w.write(&store, &whole, &Values::Int(vec![0; 16])).unwrap();
        assert_eq!(store.list().unwrap().len(), 4);
    }

    #[test]
    fn regions_that_cut_chunks_are_refused() {
        let var = VarPath::new(&["g".into()], "v");
        let w = ArrayWriter::new(
            StoreKey::new("g/v").unwrap(),
            &var,
            stored(&[4, 4], &[2, 2], None),
        )
        .unwrap();
        let store = MemoryStore::new();
        let r = Region::block(vec![1, 0], vec![2, 4]);
        let e = w.write(&store, &r, &values(&r, &[4, 4])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "variable '/g/v': region [1:3, 0:4] does not consist of whole chunks [2, 2]"
        );
        let r = Region::block(vec![0, 0], vec![2, 2]);
        let e = w.write(&store, &r, &Values::Int(vec![1])).unwrap_err();
        assert!(e.to_string().contains("1 values given"), "{e}");
    }
}
