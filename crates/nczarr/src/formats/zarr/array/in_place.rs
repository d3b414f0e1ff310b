//! Where uncompressed chunks go when they are read straight into the values of a
//! region: a chunk that a region holds whole, and in one run of its C-order values
//! (a map of a time series read a few maps at a time), is read from the store into
//! that run, with no buffer of its own to allocate, fault in and copy out of.

use crate::chunking::{c_strides, ChunkPart};

/// The offset of the first of the values where `part` (of a grid of `chunks`) lands in
/// a region of `out_count` values in C order, when the part is its whole chunk and its
/// values are one run there; `None` otherwise.
pub(super) fn landing(part: &ChunkPart, chunks: &[u64], out_count: &[u64]) -> Option<u64> {
    if part.runs.len() != chunks.len() || out_count.len() != chunks.len() {
        return None;
    }
    let whole = part
        .runs
        .iter()
        .zip(chunks)
        .all(|(r, &c)| r.in_chunk == 0 && r.len == c && (r.step == 1 || c == 1));
    // One run: every dimension along which the chunk has more than one position steps
    // through the output as through the chunk.
    let out_strides = c_strides(out_count);
    let one_run = c_strides(chunks)
        .iter()
        .zip(&out_strides)
        .zip(chunks)
        .all(|((in_chunk, in_out), &c)| c == 1 || in_chunk == in_out);
    (whole && one_run).then(|| {
        part.runs
            .iter()
            .zip(&out_strides)
            .map(|(r, s)| r.in_out * s)
            .sum()
    })
}

/// `bytes` cut into the disjoint pieces `len` bytes long that start at the byte
/// offsets `at` (each with the item it is for), in increasing order of offset; `None`
/// when two overlap or one passes the end.
pub(super) fn pieces<T>(
    bytes: &mut [u8],
    mut at: Vec<(T, usize)>,
    len: usize,
) -> Option<Vec<(T, &mut [u8])>> {
    at.sort_by_key(|(_, offset)| *offset);
    let mut out = Vec::with_capacity(at.len());
    let (mut rest, mut consumed) = (bytes, 0usize);
    for (item, offset) in at {
        let skip = offset.checked_sub(consumed)?;
        if rest.len() < skip.checked_add(len)? {
            return None;
        }
        let (piece, tail) = rest[skip..].split_at_mut(len);
        out.push((item, piece));
        rest = tail;
        consumed = offset + len;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunking::{ChunkGrid, Region};

    fn landings(shape: &[u64], chunks: &[u64], region: &Region) -> Vec<Option<u64>> {
        let grid = ChunkGrid::new(shape.to_vec(), chunks.to_vec());
        grid.parts(region)
            .iter()
            .map(|p| landing(p, chunks, &region.count))
            .collect()
    }

    /// Maps of a time series land one after another; rows of a map do too when the
    /// region holds whole rows; a chunk cut by the region, or spread over several runs
    /// of it, does not land.
    #[test]
    fn whole_chunks_in_one_run_land() {
        let maps = landings(
            &[4, 3, 5],
            &[1, 3, 5],
            &Region::block(vec![1, 0, 0], vec![2, 3, 5]),
        );
        assert_eq!(maps, vec![Some(0), Some(15)]);
        let rows = landings(&[4, 6], &[2, 6], &Region::whole(&[4, 6]));
        assert_eq!(rows, vec![Some(0), Some(12)]);
        // Chunks of 2x2 in a 4x4 region: each is two runs.
        assert_eq!(
            landings(&[4, 4], &[2, 2], &Region::whole(&[4, 4])),
            vec![None; 4]
        );
        // Part of a chunk.
        let cut = landings(&[4, 6], &[2, 6], &Region::block(vec![1, 0], vec![2, 6]));
        assert_eq!(cut, vec![None, None]);
        // A stride.
        let strided = Region {
            start: vec![0, 0],
            count: vec![2, 6],
            stride: vec![2, 1],
        };
        assert_eq!(landings(&[4, 6], &[1, 6], &strided), vec![Some(0), Some(6)]);
        // A scalar stored as one element.
        assert_eq!(landings(&[1], &[1], &Region::whole(&[1])), vec![Some(0)]);
    }

    #[test]
    fn pieces_are_disjoint_and_in_bounds() {
        let mut bytes = vec![0u8; 10];
        let got = pieces(&mut bytes, vec![('b', 6), ('a', 0)], 4).unwrap();
        let names: Vec<(char, usize)> = got.iter().map(|(c, p)| (*c, p.len())).collect();
        assert_eq!(names, vec![('a', 4), ('b', 4)]);
        for (c, p) in got {
            p.fill(c as u8);
        }
        assert_eq!(&bytes, b"aaaa\0\0bbbb");
        assert!(pieces(&mut bytes, vec![(0, 0), (1, 2)], 4).is_none());
        assert!(pieces(&mut bytes, vec![(0, 8)], 4).is_none());
    }
}
