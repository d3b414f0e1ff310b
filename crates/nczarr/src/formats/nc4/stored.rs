//! The stored elements of a variable's region, read straight from its chunks into a
//! buffer the caller keeps from read to read.
//!
//! `hdf5-reader`'s own read allocates the chunk, a cached copy of it and the output
//! array anew for every slab, and copies each value through an array of its own: a
//! string dump spent more time clearing those pages than reading, and a dump of
//! deflated floats a third of its reading in copies and fresh memory. Unfiltered chunks
//! (string references always: netcdf-c refuses filters on variable-length types) are
//! read into place; filtered ones are decoded with this crate's codecs, in parallel,
//! straight into their place where whole chunks lie end to end in the output, else
//! decoded and copied. Any other case is left to the general reader.

use rayon::prelude::*;

use super::chunks::{ChunkMap, ChunkPlace};
use super::fault::Fault;
use crate::chunking::{c_strides, ChunkGrid, ChunkPart, Region};
use crate::codec::{ChunkInfo, Decoded, Pipeline};
use crate::store::ReadAt;

/// Where a variable's chunks are and how they are stored.
pub(super) struct StoredChunks<'a> {
    pub reader: &'a dyn ReadAt,
    /// The file's base address, which chunk addresses are relative to.
    pub base: u64,
    pub map: &'a ChunkMap,
    pub chunks: &'a [u64],
    /// Bytes per element.
    pub width: usize,
    /// The codecs the chunks are stored with; `None` for none.
    pub codecs: Option<&'a Pipeline>,
}

/// About how many bytes of decoded chunks a read holds at once.
const BATCH_BYTES: u64 = 32 << 20;

/// A region's chunks found in the file ([`StoredChunks::locate`]).
pub(super) struct Located {
    parts: Vec<ChunkPart>,
    /// Where each part's chunk is in the file, and its stored bytes.
    places: Vec<(u64, usize)>,
    /// Bytes of a whole decoded chunk.
    whole: usize,
    /// Bytes of the region.
    pub len: usize,
    /// Element strides of a chunk and of the region.
    strides: (Vec<u64>, Vec<u64>),
}

impl StoredChunks<'_> {
    /// The elements of `region` in C order into `out` (replacing what it held): true
    /// when read, false when the general reader is needed (see [`StoredChunks::locate`]).
    ///
    /// # Errors
    /// A read of the file failing, with what was read.
    pub(super) fn read(&self, region: &Region, out: &mut Vec<u8>) -> Result<bool, Fault> {
        let Some(located) = self.locate(region) else {
            return Ok(false);
        };
        // Every byte of `out` is read or copied over: only room the buffer did not
        // hold before is cleared (a whole slab's references cleared per read cost as
        // much as reading them).
        out.truncate(located.len);
        out.resize(located.len, 0);
        self.read_located(region, &located, out)
    }

    /// Where the chunks of `region` are; `None` when the general reader is needed: a
    /// chunk not stored (or, unfiltered, not of a whole chunk's size), a region past
    /// the dataset's own extent, damage it reports (a chunk larger than HDF5 allows,
    /// or past the end of the file).
    pub(super) fn locate(&self, region: &Region) -> Option<Located> {
        let rank = self.chunks.len();
        let extent = &self.map.extent;
        // A chunk dimension of 0 is damage the general reader reports.
        if rank == 0
            || region.rank() != rank
            || extent.len() != rank
            || region.is_empty()
            || self.chunks.contains(&0)
        {
            return None;
        }
        let inside = (0..rank).all(|d| {
            let last = (region.count[d] - 1)
                .checked_mul(region.stride[d])
                .and_then(|x| x.checked_add(region.start[d]));
            last.is_some_and(|l| l < extent[d])
        });
        let grid = ChunkGrid::new(extent.clone(), self.chunks.to_vec());
        // Checked before memory is asked for.
        let whole = grid
            .chunk_len()
            .and_then(|n| n.checked_mul(self.width as u64))
            .filter(|&w| w <= hdf5_reader::HDF5_MAX_CHUNK_BYTES as u64)?;
        let len = region
            .len()
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(self.width))?;
        if !inside {
            return None;
        }
        let parts = grid.parts(region);
        // Where each part's chunk starts in the file and how many bytes it has there:
        // whole when unfiltered, and inside the file.
        let place = |p: &ChunkPlace| {
            let at = self.base.checked_add(p.address)?;
            let end = at.checked_add(p.size)?;
            let fits = match self.codecs {
                None => p.size == whole,
                Some(_) => p.size <= hdf5_reader::HDF5_MAX_CHUNK_BYTES as u64,
            };
            (fits && end <= self.reader.len()).then_some((at, p.size as usize))
        };
        let places = parts
            .iter()
            .map(|part| self.map.places.get(&part.index).and_then(place))
            .collect::<Option<Vec<_>>>()?;
        Some(Located {
            parts,
            places,
            whole: whole as usize,
            len,
            strides: (c_strides(self.chunks), c_strides(&region.count)),
        })
    }

    /// The elements of `region`, as `located`, into `out` (`located.len` bytes).
    ///
    /// # Errors
    /// A read of the file failing, with what was read.
    pub(super) fn read_located(
        &self,
        region: &Region,
        located: &Located,
        out: &mut [u8],
    ) -> Result<bool, Fault> {
        let Located {
            parts,
            places,
            whole,
            strides,
            ..
        } = located;
        if let Some(codecs) = self.codecs {
            return self.decode_into(codecs, &region.count, located, out);
        }
        let w = self.width;
        let mut chunk = Vec::new();
        for (part, &(at, _)) in parts.iter().zip(places) {
            let read = |offset: u64, buf: &mut [u8]| {
                self.reader
                    .read_at(at.saturating_add(offset), buf)
                    .map_err(|e| Fault::from(e).context(format!("chunk {:?}", part.index)))
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
                let row = (strides.0[0] as usize) * w;
                let from = run.in_chunk as usize * row;
                let to = (run.in_out * strides.1[0]) as usize * w;
                let len = run.len as usize * row;
                read(from as u64, &mut out[to..to + len])?;
                continue;
            }
            chunk.resize(*whole, 0);
            read(0, &mut chunk)?;
            self.copy_part(part, &chunk, strides, out);
        }
        Ok(true)
    }

    /// The filtered chunks of `located` decoded in parallel into `out`: each straight
    /// into its place where they are whole chunks end to end in it, else a batch at a
    /// time, copied. False when a chunk does not decode to a whole chunk's bytes
    /// (damage the general reader reports).
    fn decode_into(
        &self,
        codecs: &Pipeline,
        count: &[u64],
        located: &Located,
        out: &mut [u8],
    ) -> Result<bool, Fault> {
        let Located {
            parts,
            places,
            whole,
            strides,
            ..
        } = located;
        let whole = *whole;
        let info = ChunkInfo {
            item_size: self.width,
            max_decoded: whole,
        };
        let key = |part: &ChunkPart| format!("{:?}", part.index);
        if self.tile(parts, count, whole, out.len()) {
            return out
                .par_chunks_mut(whole)
                .zip(parts.par_iter().zip(places))
                .map(|(place, (part, &(at, size)))| {
                    let stored = self.stored_bytes(part, at, size)?;
                    Ok(codecs.decode_to(stored, &key(part), &info, place).is_ok())
                })
                .try_reduce(|| true, |a, b| Ok(a && b));
        }
        let items = whole / self.width.max(1);
        let per_batch = (BATCH_BYTES / (whole as u64).max(1)).max(1) as usize;
        for (batch, at) in parts.chunks(per_batch).zip(places.chunks(per_batch)) {
            let decoded: Vec<Option<Vec<u8>>> = batch
                .par_iter()
                .zip(at)
                .map(|(part, &(at, size))| {
                    let stored = self.stored_bytes(part, at, size)?;
                    Ok(match codecs.decode(stored, &key(part), &info, items) {
                        Ok(Decoded::Bytes(b)) if b.len() == whole => Some(b),
                        _ => None,
                    })
                })
                .collect::<Result<_, Fault>>()?;
            if decoded.iter().any(Option::is_none) {
                return Ok(false);
            }
            for (part, chunk) in batch.iter().zip(decoded.iter().flatten()) {
                self.copy_part(part, chunk, strides, out);
            }
        }
        Ok(true)
    }

    /// The `size` stored bytes of `part`'s chunk at `at`.
    fn stored_bytes(&self, part: &ChunkPart, at: u64, size: usize) -> Result<Vec<u8>, Fault> {
        let mut stored = vec![0; size];
        self.reader
            .read_at(at, &mut stored)
            .map_err(|e| Fault::from(e).context(format!("chunk {:?}", part.index)))?;
        Ok(stored)
    }

    /// True when `parts` are whole chunks lying end to end in the output of a region
    /// of `count` elements per dimension (`len` bytes), in their order: a slab of whole
    /// chunk rows one chunk wide, as a dump reads them.
    fn tile(&self, parts: &[ChunkPart], count: &[u64], whole: usize, len: usize) -> bool {
        let row = count[1..].iter().product::<u64>() as usize * self.width;
        parts.len().checked_mul(whole) == Some(len)
            && count[1..] == self.chunks[1..]
            && parts.iter().enumerate().all(|(k, part)| {
                let each_whole =
                    part.runs.iter().zip(self.chunks).all(|(r, &c)| {
                        r.in_chunk == 0 && r.len == c && (r.step == 1 || r.len == 1)
                    });
                each_whole && part.runs[0].in_out as usize * row == k * whole
            })
    }

    /// The elements of `part` from its whole decoded `chunk` into their places in
    /// `out` (`strides`: of a chunk, and of the region).
    fn copy_part(
        &self,
        part: &ChunkPart,
        chunk: &[u8],
        strides: &(Vec<u64>, Vec<u64>),
        out: &mut [u8],
    ) {
        let w = self.width;
        let Some(run) = part.runs.last() else {
            return;
        };
        let (len, step) = (run.len as usize, run.step as usize);
        part.for_each_run(&strides.0, &strides.1, |c, o| {
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
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::chunking::for_each_index;
    use crate::formats::nc4::test_file::Memory;

    /// An array of `shape` whose element at C-order position `p` holds `p` in 4
    /// bytes, stored in whole chunks of `chunks` (edge chunks padded), encoded by
    /// `codecs`, after a 100-byte header, in reverse order.
    fn stored(shape: &[u64], chunks: &[u64], codecs: Option<&Pipeline>) -> (Memory, ChunkMap) {
        let grid: Vec<u64> = shape
            .iter()
            .zip(chunks)
            .map(|(s, c)| s.div_ceil(*c))
            .collect();
        let whole = chunks.iter().product::<u64>() as usize * 4;
        let info = ChunkInfo {
            item_size: 4,
            max_decoded: whole,
        };
        let mut indices = Vec::new();
        for_each_index(&grid, |i| indices.push(i.to_vec()));
        indices.reverse();
        let mut file = vec![0xee; 100];
        let mut places = HashMap::new();
        let strides = c_strides(shape);
        for index in indices {
            let mut chunk = Vec::new();
            for_each_index(chunks, |k| {
                let p: u64 = (0..shape.len())
                    .map(|d| (index[d] * chunks[d] + k[d]).min(shape[d] - 1) * strides[d])
                    .sum();
                chunk.extend_from_slice(&(p as u32).to_le_bytes());
            });
            if let Some(codecs) = codecs {
                chunk = codecs.encode(Decoded::Bytes(chunk), "c", &info).unwrap();
            }
            places.insert(
                index.clone(),
                ChunkPlace {
                    address: file.len() as u64 - 10,
                    size: chunk.len() as u64,
                },
            );
            file.extend_from_slice(&chunk);
        }
        let map = ChunkMap {
            extent: shape.to_vec(),
            places,
            unusable: Default::default(),
        };
        (Memory::new(file), map)
    }

    /// Shuffle, then zlib: what netCDF-4 files mostly hold.
    fn deflated() -> Pipeline {
        let config = |text: &str| crate::json::parse_str(text).unwrap();
        Pipeline::new(
            &[
                config(r#"{"id": "shuffle", "elementsize": 4}"#),
                config(r#"{"id": "zlib", "level": 1}"#),
            ],
            None,
        )
        .unwrap()
    }

    /// The region's elements, read into a buffer shorter than them and into one
    /// holding more bytes from an earlier read (the same, or the test fails).
    fn read(
        m: &Memory,
        map: &ChunkMap,
        chunks: &[u64],
        codecs: Option<&Pipeline>,
        region: &Region,
    ) -> Option<Vec<u32>> {
        let [short, long] = [vec![1, 2, 3], vec![0xab; 1000]].map(|mut out| {
            let read = StoredChunks {
                reader: m,
                base: 10,
                map,
                chunks,
                width: 4,
                codecs,
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
        let deflated = deflated();
        for ((shape, chunks), codecs) in cases
            .into_iter()
            .flat_map(|case| [(case, None), (case, Some(&deflated))])
        {
            let (m, map) = stored(shape, chunks, codecs);
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
                let got = read(&m, &map, chunks, codecs, &region);
                assert_eq!(got, Some(want), "{region:?} filtered {}", codecs.is_some());
            }
        }
    }

    #[test]
    fn missing_or_filtered_chunks_and_regions_past_the_extent_go_to_the_general_reader() {
        let (m, mut map) = stored(&[7, 5], &[3, 5], None);
        let whole = Region::whole(&[7, 5]);
        assert!(read(&m, &map, &[3, 5], None, &whole).is_some());
        // Past the dataset's own extent (a variable widened to its unlimited dimension).
        assert_eq!(read(&m, &map, &[3, 5], None, &Region::whole(&[8, 5])), None);
        // A chunk stored smaller than a whole chunk: filtered.
        map.places.get_mut(&vec![1, 0]).unwrap().size -= 1;
        assert_eq!(read(&m, &map, &[3, 5], None, &whole), None);
        // A chunk never written.
        map.places.remove(&vec![1, 0]);
        assert_eq!(read(&m, &map, &[3, 5], None, &whole), None);
        assert!(read(
            &m,
            &map,
            &[3, 5],
            None,
            &Region::block(vec![0, 0], vec![3, 5])
        )
        .is_some());
        // A place past the end of the file, or chunks larger than HDF5 allows: the
        // general reader's to report, before any memory is asked for.
        let block = Region::block(vec![0, 0], vec![3, 5]);
        map.places.get_mut(&vec![0, 0]).unwrap().address = 1 << 40;
        assert_eq!(read(&m, &map, &[3, 5], None, &block), None);
        map.places.get_mut(&vec![0, 0]).unwrap().address = u64::MAX - 4;
        assert_eq!(read(&m, &map, &[3, 5], None, &block), None);
        assert_eq!(read(&m, &map, &[1 << 20, 1 << 20], None, &block), None);
        assert_eq!(read(&m, &map, &[0, 5], None, &block), None);
    }

    /// Slabs of whole chunk rows (decoded straight into their places) read as the
    /// general case does; a damaged chunk among them sends the read to the general
    /// reader.
    #[test]
    fn slabs_of_whole_chunks_decode_into_their_places() {
        let deflated = deflated();
        let codecs = Some(&deflated);
        let (shape, chunks) = ([6u64, 4, 5], [2u64, 4, 5]);
        let (m, mut map) = stored(&shape, &chunks, codecs);
        let (plain, plain_map) = stored(&shape, &chunks, None);
        let strides_of = StoredChunks {
            reader: &m,
            base: 10,
            map: &map,
            chunks: &chunks,
            width: 4,
            codecs,
        };
        for (start, count) in [(0, 6), (2, 2), (2, 4), (4, 2)] {
            let region = Region::block(vec![start, 0, 0], vec![count, 4, 5]);
            let located = strides_of.locate(&region).unwrap();
            assert!(strides_of.tile(&located.parts, &region.count, located.whole, located.len));
            let want = read(&plain, &plain_map, &chunks, None, &region);
            assert!(want.is_some());
            assert_eq!(read(&m, &map, &chunks, codecs, &region), want, "{region:?}");
        }
        // Not whole chunks, or not one chunk wide: the general case, the same values.
        for region in [
            Region::block(vec![1, 0, 0], vec![4, 4, 5]),
            Region::block(vec![0, 0, 0], vec![2, 4, 4]),
        ] {
            let located = strides_of.locate(&region).unwrap();
            assert!(!strides_of.tile(&located.parts, &region.count, located.whole, located.len));
            let want = read(&plain, &plain_map, &chunks, None, &region);
            assert_eq!(read(&m, &map, &chunks, codecs, &region), want, "{region:?}");
        }
        map.places.get_mut(&vec![1, 0, 0]).unwrap().size -= 3;
        let whole = Region::whole(&shape);
        assert_eq!(read(&m, &map, &chunks, codecs, &whole), None);
    }

    #[test]
    fn filtered_chunks_that_do_not_decode_to_a_whole_chunk_go_to_the_general_reader() {
        let deflated = deflated();
        let codecs = Some(&deflated);
        let (m, mut map) = stored(&[7, 5], &[3, 5], codecs);
        let whole = Region::whole(&[7, 5]);
        assert!(read(&m, &map, &[3, 5], codecs, &whole).is_some());
        // Cut short: the stream ends early.
        map.places.get_mut(&vec![1, 0]).unwrap().size -= 3;
        assert_eq!(read(&m, &map, &[3, 5], codecs, &whole), None);
        // Another chunk's bytes in part: not a stream, or the wrong one.
        map.places.get_mut(&vec![1, 0]).unwrap().address += 1;
        assert_eq!(read(&m, &map, &[3, 5], codecs, &whole), None);
        // Read as chunks of another shape: they decode to more or fewer bytes.
        let (m, map) = stored(&[7, 5], &[3, 5], codecs);
        assert_eq!(
            read(&m, &map, &[3, 4], codecs, &Region::whole(&[7, 5])),
            None
        );
        // A stored size past the file's end, or beyond what HDF5 allows.
        let (m, mut map) = stored(&[7, 5], &[3, 5], codecs);
        map.places.get_mut(&vec![0, 0]).unwrap().size = 1 << 40;
        assert_eq!(read(&m, &map, &[3, 5], codecs, &whole), None);
    }
}
