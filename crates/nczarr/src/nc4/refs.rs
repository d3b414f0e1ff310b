//! The stored heap references of a string variable's region, read straight from its
//! chunks into a buffer the caller keeps from read to read.
//!
//! `hdf5-reader`'s own read allocates the chunk, a cached copy of it and the output
//! array anew for every slab: a string dump spent more time clearing those pages than
//! reading. References are never filtered in netCDF-4 files (netcdf-c refuses filters
//! on variable-length types), so a chunk's stored bytes are its elements; any other
//! case is left to the general reader.

use super::chunks::{ChunkMap, ChunkPlace};
use crate::chunking::{c_strides, ChunkGrid, Region};
use crate::store::ReadAt;

/// Where a variable's chunks are and how they are stored.
pub(super) struct StoredChunks<'a> {
    pub reader: &'a dyn ReadAt,
    /// The file's base address, which chunk addresses are relative to.
    pub base: u64,
    pub map: &'a ChunkMap,
    pub chunks: &'a [u64],
    /// Bytes per element (a reference).
    pub width: usize,
}

impl StoredChunks<'_> {
    /// The elements of `region` in C order into `out` (replacing what it held): true
    /// when read, false when the general reader is needed (a chunk not stored or not of
    /// a whole chunk's size, a region past the dataset's own extent).
    ///
    /// # Errors
    /// A read of the file failing, with what was read.
    pub(super) fn read(&self, region: &Region, out: &mut Vec<u8>) -> Result<bool, String> {
        let rank = self.chunks.len();
        let extent = &self.map.extent;
        // A chunk dimension of 0 is damage the general reader reports.
        if rank == 0
            || region.rank() != rank
            || extent.len() != rank
            || region.is_empty()
            || self.chunks.contains(&0)
        {
            return Ok(false);
        }
        let inside = (0..rank).all(|d| {
            let last = (region.count[d] - 1)
                .checked_mul(region.stride[d])
                .and_then(|x| x.checked_add(region.start[d]));
            last.is_some_and(|l| l < extent[d])
        });
        let grid = ChunkGrid::new(extent.clone(), self.chunks.to_vec());
        // A chunk larger than HDF5 allows, or than the file, is damage the general
        // reader reports (before memory is asked for it).
        let whole = grid
            .chunk_len()
            .and_then(|n| n.checked_mul(self.width as u64))
            .filter(|&w| w <= hdf5_reader::HDF5_MAX_CHUNK_BYTES as u64);
        let n = region
            .len()
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(self.width));
        let (true, Some(whole), Some(n)) = (inside, whole, n) else {
            return Ok(false);
        };
        let parts = grid.plan(region);
        // Where each part's chunk starts in the file, whole and inside it.
        let start = |p: &ChunkPlace| {
            let at = self.base.checked_add(p.address)?;
            let end = at.checked_add(whole)?;
            (p.size == whole && end <= self.reader.len()).then_some(at)
        };
        let mut places = Vec::with_capacity(parts.len());
        for part in &parts {
            match self.map.places.get(&part.index).and_then(start) {
                Some(at) => places.push(at),
                None => return Ok(false),
            }
        }
        // Every byte of `out` is read or copied over below: only room the buffer did
        // not hold before is cleared (a whole slab's references cleared per read cost
        // as much as reading them).
        out.truncate(n);
        out.resize(n, 0);
        let chunk_strides = c_strides(self.chunks);
        let out_strides = c_strides(&region.count);
        let w = self.width;
        let mut chunk = Vec::new();
        for (part, at) in parts.iter().zip(places) {
            let read = |offset: u64, buf: &mut [u8]| {
                self.reader
                    .read_at(at.saturating_add(offset), buf)
                    .map_err(|e| format!("chunk {:?}: {e}", part.index))
            };
            // Whole rows of the chunk that are whole rows of the region lie end to end
            // in both: read them into their place. (A dimension taken whole has step 1,
            // or one position; the first needs step 1 for its rows to be neighbours.)
            let rows = part.runs[0].step == 1
                && part.runs[1..].iter().enumerate().all(|(k, r)| {
                    let d = k + 1;
                    r.in_chunk == 0 && r.len == self.chunks[d] && r.len == region.count[d]
                });
            if rows {
                let run = part.runs[0];
                let row = (chunk_strides[0] as usize) * w;
                let from = run.in_chunk as usize * row;
                let to = (run.in_out * out_strides[0]) as usize * w;
                let len = run.len as usize * row;
                read(from as u64, &mut out[to..to + len])?;
                continue;
            }
            chunk.resize(whole as usize, 0);
            read(0, &mut chunk)?;
            let run = part.runs[rank - 1];
            let (len, step) = (run.len as usize, run.step as usize);
            part.for_each_run(&chunk_strides, &out_strides, |c, o| {
                let (c, o) = (c as usize * w, o as usize * w);
                if step == 1 {
                    out[o..o + len * w].copy_from_slice(&chunk[c..c + len * w]);
                } else {
                    for k in 0..len {
                        let s = c + k * step * w;
                        out[o + k * w..o + (k + 1) * w].copy_from_slice(&chunk[s..s + w]);
                    }
                }
            });
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::chunking::for_each_index;
    use crate::nc4::test_file::Memory;

    /// An array of `shape` whose element at C-order position `p` holds `p` in 4
    /// bytes, stored in whole chunks of `chunks` (edge chunks padded) after a
    /// 100-byte header, in reverse order.
    fn stored(shape: &[u64], chunks: &[u64]) -> (Memory, ChunkMap) {
        let grid: Vec<u64> = shape
            .iter()
            .zip(chunks)
            .map(|(s, c)| s.div_ceil(*c))
            .collect();
        let whole: u64 = chunks.iter().product::<u64>() * 4;
        let mut indices = Vec::new();
        for_each_index(&grid, |i| indices.push(i.to_vec()));
        indices.reverse();
        let mut file = vec![0xee; 100];
        let mut places = HashMap::new();
        let strides = c_strides(shape);
        for index in indices {
            places.insert(
                index.clone(),
                ChunkPlace {
                    address: file.len() as u64 - 10,
                    size: whole,
                },
            );
            for_each_index(chunks, |k| {
                let p: u64 = (0..shape.len())
                    .map(|d| (index[d] * chunks[d] + k[d]).min(shape[d] - 1) * strides[d])
                    .sum();
                file.extend_from_slice(&(p as u32).to_le_bytes());
            });
        }
        let map = ChunkMap {
            extent: shape.to_vec(),
            places,
        };
        (Memory::new(file), map)
    }

    /// The region's elements, read into a buffer shorter than them and into one
    /// holding more bytes from an earlier read (the same, or the test fails).
    fn read(m: &Memory, map: &ChunkMap, chunks: &[u64], region: &Region) -> Option<Vec<u32>> {
        let [short, long] = [vec![1, 2, 3], vec![0xab; 1000]].map(|mut out| {
            let read = StoredChunks {
                reader: m,
                base: 10,
                map,
                chunks,
                width: 4,
            }
            .read(region, &mut out)
            .unwrap();
            read.then(|| {
                out.chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect::<Vec<u32>>()
            })
        });
        assert_eq!(short, long, "{region:?}");
        short
    }

    #[test]
    fn regions_read_from_chunks_hold_their_elements_in_c_order() {
        let cases: [(&[u64], &[u64]); 4] = [
            (&[10], &[4]),
            (&[7, 5], &[3, 5]),
            (&[7, 5, 3], &[3, 2, 2]),
            (&[4, 6], &[1, 6]),
        ];
        for (shape, chunks) in cases {
            let (m, map) = stored(shape, chunks);
            let strides = c_strides(shape);
            let mut seed = 7u64;
            for _ in 0..300 {
                let mut pick = |n: u64| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 33) % n
                };
                let (mut start, mut count, mut stride) = (vec![], vec![], vec![]);
                for &s in shape {
                    let st = pick(s);
                    let step = 1 + pick(3);
                    start.push(st);
                    stride.push(step);
                    count.push(1 + pick((s - 1 - st) / step + 1));
                }
                let region = Region {
                    start,
                    count,
                    stride,
                };
                let mut want = Vec::new();
                for_each_index(&region.count, |k| {
                    let p: u64 = (0..shape.len())
                        .map(|d| (region.start[d] + k[d] * region.stride[d]) * strides[d])
                        .sum();
                    want.push(p as u32);
                });
                assert_eq!(read(&m, &map, chunks, &region), Some(want), "{region:?}");
            }
        }
    }

    #[test]
    fn missing_or_filtered_chunks_and_regions_past_the_extent_go_to_the_general_reader() {
        let (m, mut map) = stored(&[7, 5], &[3, 5]);
        let whole = Region::whole(&[7, 5]);
        assert!(read(&m, &map, &[3, 5], &whole).is_some());
        // Past the dataset's own extent (a variable widened to its unlimited dimension).
        assert_eq!(read(&m, &map, &[3, 5], &Region::whole(&[8, 5])), None);
        // A chunk stored smaller than a whole chunk: filtered.
        map.places.get_mut(&vec![1, 0]).unwrap().size -= 1;
        assert_eq!(read(&m, &map, &[3, 5], &whole), None);
        // A chunk never written.
        map.places.remove(&vec![1, 0]);
        assert_eq!(read(&m, &map, &[3, 5], &whole), None);
        assert!(read(&m, &map, &[3, 5], &Region::block(vec![0, 0], vec![3, 5])).is_some());
        // A place past the end of the file, or chunks larger than HDF5 allows: the
        // general reader's to report, before any memory is asked for.
        let block = Region::block(vec![0, 0], vec![3, 5]);
        map.places.get_mut(&vec![0, 0]).unwrap().address = 1 << 40;
        assert_eq!(read(&m, &map, &[3, 5], &block), None);
        map.places.get_mut(&vec![0, 0]).unwrap().address = u64::MAX - 4;
        assert_eq!(read(&m, &map, &[3, 5], &block), None);
        assert_eq!(read(&m, &map, &[1 << 20, 1 << 20], &block), None);
        assert_eq!(read(&m, &map, &[0, 5], &block), None);
    }
}
