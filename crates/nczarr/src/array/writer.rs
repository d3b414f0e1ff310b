//! [`ArrayWriter`]: storing slabs of a variable as chunks.

use rayon::prelude::*;

use super::convert_out::to_stored;
use super::StoredArray;
use crate::chunking::{c_strides, ChunkGrid, ChunkPart, Region};
use crate::codec::{ChunkInfo, Decoded, Pipeline};
use crate::error::{Error, Result};
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
}

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
        let grid = ChunkGrid::new(stored.shape.clone(), stored.chunks.clone());
        let chunk_len = grid
            .chunk_len()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| n.checked_mul(stored.dtype.item_size()).is_some())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "variable '{name}': chunks {:?} are too large for this machine",
                    stored.chunks
                ))
            })?;
        let fill = match &stored.fill {
            Some(f) => to_stored(f, &stored.dtype)
                .map_err(|m| Error::Invalid(format!("variable '{name}': {m}")))?,
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
        })
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
        let slab = to_stored(values, &self.stored.dtype)
            .map_err(|m| Error::Invalid(format!("variable '{}': {m}", self.name)))?;
        let item = self.stored.dtype.item_size().max(1);
        let encoded: Vec<Result<(StoreKey, Vec<u8>)>> = self
            .grid
            .plan(region)
            .par_iter()
            .map(|part| {
                let mut chunk: Vec<u8> = self.fill.repeat(self.chunk_len);
                copy_into_chunk(
                    &mut chunk,
                    &slab,
                    part,
                    &region.count,
                    &self.grid.chunks,
                    item,
                );
                let key = self
                    .key
                    .join_path(&self.grid.chunk_key(&part.index, self.stored.separator))?;
                let info = ChunkInfo {
                    item_size: item,
                    max_decoded: usize::MAX,
                };
                let bytes = self
                    .pipeline
                    .encode(Decoded::Bytes(chunk), key.as_str(), &info)
                    .map_err(|error| Error::Codec {
                        var: self.name.clone(),
                        error,
                    })?;
                Ok((key, bytes))
            })
            .collect();
        let items: Vec<(StoreKey, Vec<u8>)> = encoded.into_iter().collect::<Result<_>>()?;
        store.put_many(&items)?;
        Ok(())
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
fn copy_into_chunk(
    chunk: &mut [u8],
    slab: &[u8],
    part: &ChunkPart,
    slab_count: &[u64],
    chunks: &[u64],
    item: usize,
) {
    let n = part.runs.last().map_or(1, |r| r.len as usize) * item;
    part.for_each_run(&c_strides(chunks), &c_strides(slab_count), |c, s| {
        let (c, s) = (c as usize * item, s as usize * item);
        chunk[c..c + n].copy_from_slice(&slab[s..s + n]);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::ArrayReader;
    use crate::chunking::{slabs, SlabOrder};
    use crate::model::NcType;
    use crate::store::{ListableStore, MemoryStore};
    use crate::zarr::Dtype;

    fn stored(shape: &[u64], chunks: &[u64], compressor: Option<&str>) -> StoredArray {
        StoredArray {
            dtype: Dtype::parse("<i4").unwrap(),
            shape: shape.to_vec(),
            chunks: chunks.to_vec(),
            fill: Some(Values::Int(vec![-1])),
            filters: vec![],
            compressor: compressor.map(|c| crate::json::parse_str(c).unwrap()),
            fortran_order: false,
            separator: '.',
        }
    }

    fn values(region: &Region, shape: &[u64]) -> Values {
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
