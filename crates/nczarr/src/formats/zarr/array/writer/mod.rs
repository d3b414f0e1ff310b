//! [`ArrayWriter`]: storing slabs of a variable as chunks.

use rayon::prelude::*;

mod assembly;
mod watch;

use assembly::{covers, last_run_start, row_groups, ChunkAssembly, ShardSource};
use watch::Watch;
pub use watch::Written;

use super::to_stored::to_stored;
use super::StoredArray;
use crate::chunking::{c_strides, ChunkGrid, ChunkPart, Region};
use crate::codec::{ChunkInfo, Decoded, Pipeline};
use crate::error::{Error, Result};
use crate::formats::zarr::v2::Dtype;
use crate::model::{Values, VarPath};
use crate::store::{StoreKey, WritableStore};

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
    /// [`Error::Codec`] when the codec chain cannot be built, [`Error::Unsupported`] when a
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
                Error::Unsupported(format!(
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
    /// [`Error::Region`] for a region that cuts a chunk or values of the wrong length;
    /// codec and store errors.
    pub fn write(&self, store: &dyn WritableStore, region: &Region, values: &Values) -> Result<()> {
        self.check_aligned(region)?;
        let expect = region.len().unwrap_or(u64::MAX);
        if values.len() as u64 != expect {
            return Err(Error::region(
                &self.name,
                format!(
                    "{} values given for region {region} of {expect}",
                    values.len()
                ),
            ));
        }
        let (slab, strings) = self.slab(values)?;
        if self.looking_for_fill() {
            self.look_for_fill(&slab);
        }
        let item = element_bytes(&self.stored.dtype).max(1);
        let parts = self.grid.parts(region);
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
    /// [`Error::Region`] for an index outside the grid or a chunk that decodes to the
    /// wrong length; codec and store errors.
    pub fn write_encoded(
        &self,
        store: &dyn WritableStore,
        chunks: Vec<(Vec<u64>, Vec<u8>)>,
        from: Option<&Pipeline>,
    ) -> Result<()> {
        if self.stored.sharding.is_some() || self.stored.dtype == Dtype::Object {
            return Err(Error::Unsupported(format!(
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
                    return Err(Error::region(
                        &self.name,
                        format!("chunk {index:?} is outside the chunk grid"),
                    ));
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
                        return Err(Error::region(
                            &self.name,
                            format!(
                                "chunk {index:?} holds {} bytes, expected {size}",
                                bytes.len()
                            ),
                        ));
                    }
                    // Put as they are, but looked at (decoded once more) where the fill
                    // is watched for, or chunks of only fill are left out.
                    let look = self.looking_for_fill();
                    let decoded = if look || (self.skip_fill && !self.pipeline.is_empty()) {
                        match self.pipeline.decode(
                            bytes.clone(),
                            key.as_str(),
                            &info,
                            self.chunk_len,
                        ) {
                            Ok(Decoded::Bytes(b)) if b.len() == size => Some(b),
                            Ok(_) => {
                                return Err(Error::region(
                                    &self.name,
                                    format!("chunk {index:?} does not decode to {size} bytes"),
                                ))
                            }
                            Err(e) => return Err(codec(e)),
                        }
                    } else {
                        None
                    };
                    let raw = decoded.as_deref().unwrap_or(&bytes);
                    if look {
                        self.look_for_fill_in_chunk(&index, raw);
                    }
                    if self.skip_fill && self.all_fill(raw) {
                        return Ok(None);
                    }
                    return Ok(Some((key, bytes)));
                };
                let decoded = match from.decode(bytes, key.as_str(), &info, self.chunk_len) {
                    Ok(Decoded::Bytes(b)) if b.len() == size => b,
                    Ok(_) => {
                        return Err(Error::region(
                            &self.name,
                            format!("chunk {index:?} does not decode to {size} bytes"),
                        ))
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
                // Shards the slab holds whole: their inner chunks are cut from the slab
                // itself (assembled first, every byte was copied twice, the second time
                // in rows of an inner chunk's last dimension).
                if self.stored.sharding.is_some() && group.iter().all(|p| covers(p, self)) {
                    let strides = c_strides(&region.count);
                    return group
                        .par_iter()
                        .map(|part| {
                            let source = ShardSource {
                                bytes: slab,
                                base: part.runs.iter().map(|r| r.in_out).collect(),
                                strides: &strides,
                            };
                            self.encode_shard_part(part, &source, item, strings)
                        })
                        .collect();
                }
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
        if let Some(sharding) = &self.stored.sharding {
            let strides = c_strides(&sharding.shape);
            let source = ShardSource {
                bytes: &chunk,
                base: vec![0; sharding.shape.len()],
                strides: &strides,
            };
            return self.encode_shard_part(part, &source, item, strings);
        }
        let key = self.key.join_path(&self.stored.keys.key(&part.index))?;
        let bytes = self.encode_elements(chunk, &key, item, strings)?;
        Ok(Some((key, bytes)))
    }

    /// The key and stored bytes of the shard `part`, its elements in `source`.
    fn encode_shard_part(
        &self,
        part: &ChunkPart,
        source: &ShardSource,
        item: usize,
        strings: Strings,
    ) -> Result<Option<EncodedChunk>> {
        let key = self.key.join_path(&self.stored.keys.key(&part.index))?;
        Ok(self
            .encode_shard(&key, source, item, strings)?
            .map(|b| (key, b)))
    }

    /// A shard's stored bytes from its elements (in `source`): its inner chunks
    /// encoded in parallel and laid end to end, then the index (with its CRC32C).
    /// Inner chunks of fill only are left out when such chunks are; `None` when that
    /// leaves nothing.
    fn encode_shard(
        &self,
        key: &StoreKey,
        source: &ShardSource,
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
                        off += (source.base[d] + origin[d] + i) * source.strides[d];
                    }
                    let s = off as usize * item;
                    bytes.extend_from_slice(&source.bytes[s..s + row]);
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

    /// A region this writer can store: unit strides, inside the array, and every edge
    /// on a chunk boundary or the array's end.
    fn check_aligned(&self, region: &Region) -> Result<()> {
        region
            .check(&self.grid.shape)
            .map_err(|m| Error::region(&self.name, m.to_string()))?;
        let aligned = (0..region.rank()).all(|d| {
            let (c, end) = (self.grid.chunks[d], region.start[d] + region.count[d]);
            region.stride[d] == 1
                && region.start[d].is_multiple_of(c)
                && (end.is_multiple_of(c) || end == self.grid.shape[d])
        });
        if aligned {
            Ok(())
        } else {
            Err(Error::region(
                &self.name,
                format!(
                    "region {region} does not consist of whole chunks {:?}",
                    self.grid.chunks
                ),
            ))
        }
    }
}

#[cfg(test)]
pub(super) mod tests;
