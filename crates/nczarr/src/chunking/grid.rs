//! Chunk grids and the chunks a region touches.

use super::Region;

/// A regular chunk grid over an array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkGrid {
    /// The stored array shape.
    pub shape: Vec<u64>,
    /// The chunk shape.
    pub chunks: Vec<u64>,
}

/// A run of selected positions along one dimension, inside one chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DimRun {
    /// Index of the chunk along this dimension.
    pub chunk: u64,
    /// First position inside the chunk.
    pub in_chunk: u64,
    /// First position in the region's output.
    pub in_out: u64,
    /// Number of positions.
    pub len: u64,
    /// Step inside the chunk (the region's stride).
    pub step: u64,
}

/// One chunk a region touches: its grid index and the selected runs per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPart {
    /// The chunk's index in the grid.
    pub index: Vec<u64>,
    /// Per dimension, the run inside this chunk.
    pub runs: Vec<DimRun>,
}

impl ChunkPart {
    /// Walk the innermost runs of this part: for each, `f(in_chunk, in_out)` with the
    /// element offsets of its first position inside the chunk and inside the region's
    /// output, given each one's element strides per dimension (C or Fortran order).
    /// A run is `runs[last].len` positions long, `runs[last].step` apart in the chunk,
    /// consecutive in the output. A scalar has one run of one position at `(0, 0)`.
    pub fn for_each_run(
        &self,
        chunk_strides: &[u64],
        out_strides: &[u64],
        mut f: impl FnMut(u64, u64),
    ) {
        let rank = self.runs.len();
        if rank == 0 {
            f(0, 0);
            return;
        }
        let last = rank - 1;
        let run = self.runs[last];
        let lens: Vec<u64> = self.runs[..last].iter().map(|r| r.len).collect();
        for_each_index(&lens, |k| {
            let mut c = run.in_chunk * chunk_strides[last];
            let mut o = run.in_out * out_strides[last];
            for (d, &i) in k.iter().enumerate() {
                let r = self.runs[d];
                c += (r.in_chunk + i * r.step) * chunk_strides[d];
                o += (r.in_out + i) * out_strides[d];
            }
            f(c, o);
        });
    }
}

/// Call `f` with every index of an array of shape `lens`, in C order (the last
/// dimension fastest); once with `[]` when `lens` is empty, never when a length is 0.
/// The walk over the outer dimensions of a region that every strided copy makes.
pub fn for_each_index(lens: &[u64], mut f: impl FnMut(&[u64])) {
    if lens.contains(&0) {
        return;
    }
    let mut k = vec![0u64; lens.len()];
    loop {
        f(&k);
        let mut d = lens.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            k[d] += 1;
            if k[d] < lens[d] {
                break;
            }
            k[d] = 0;
        }
    }
}

/// The runs of the block `start`/`count` of a C-order array of `shape`, each as long
/// as it is contiguous both in the block's own C order and in the array: `f(from, to,
/// len)` in elements, `from` in the block, `to` in the array. A block of whole trailing
/// dimensions is one run per index of the others; a scalar is one run of one.
pub fn block_runs(shape: &[u64], start: &[u64], count: &[u64], mut f: impl FnMut(u64, u64, u64)) {
    if shape.is_empty() {
        f(0, 0, 1);
        return;
    }
    // Dimensions after `k` are whole: a run is `count[k]` of those, contiguous.
    let mut k = shape.len() - 1;
    while k > 0 && start[k] == 0 && count[k] == shape[k] {
        k -= 1;
    }
    let strides = c_strides(shape);
    let run = count[k] * shape[k + 1..].iter().product::<u64>();
    let mut from = 0u64;
    for_each_index(&count[..k], |i| {
        let to: u64 = (0..shape.len())
            .map(|d| (start[d] + if d < k { i[d] } else { 0 }) * strides[d])
            .sum();
        f(from, to, run);
        from += run;
    });
}

/// Element strides of a C-order array of `shape` (the last dimension fastest).
pub fn c_strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

impl ChunkGrid {
    /// A grid; `chunks` must have the rank of `shape` and no zero entries.
    pub fn new(shape: Vec<u64>, chunks: Vec<u64>) -> ChunkGrid {
        ChunkGrid { shape, chunks }
    }

    /// Elements in one (full) chunk, or `None` on overflow.
    pub fn chunk_len(&self) -> Option<u64> {
        self.chunks
            .iter()
            .try_fold(1u64, |acc, &c| acc.checked_mul(c))
    }

    /// The runs along dimension `d` for a region's selection `(start, count, stride)`,
    /// restricted to positions below `limit` (the stored extent).
    fn dim_runs(&self, d: usize, start: u64, count: u64, stride: u64, limit: u64) -> Vec<DimRun> {
        let cs = self.chunks[d];
        let mut runs = Vec::new();
        let mut k = 0u64;
        while k < count {
            let pos = start + k * stride;
            if pos >= limit {
                break;
            }
            let chunk = pos / cs;
            let chunk_end = ((chunk + 1) * cs).min(limit);
            // Positions k.. that stay inside this chunk.
            let last_k = ((chunk_end - 1 - start) / stride).min(count - 1);
            let len = last_k - k + 1;
            runs.push(DimRun {
                chunk,
                in_chunk: pos - chunk * cs,
                in_out: k,
                len,
                step: stride,
            });
            k = last_k + 1;
        }
        runs
    }

    /// The chunks `region` touches inside the stored shape, in C order, each with its
    /// runs. Positions of the region beyond the stored shape touch no chunk (they read
    /// as fill).
    pub fn parts(&self, region: &Region) -> Vec<ChunkPart> {
        let rank = self.shape.len();
        if rank == 0 {
            return vec![ChunkPart {
                index: vec![],
                runs: vec![],
            }];
        }
        if region.is_empty() {
            return Vec::new();
        }
        let per_dim: Vec<Vec<DimRun>> = (0..rank)
            .map(|d| {
                self.dim_runs(
                    d,
                    region.start[d],
                    region.count[d],
                    region.stride[d],
                    self.shape[d],
                )
            })
            .collect();
        if per_dim.iter().any(Vec::is_empty) {
            return Vec::new();
        }
        let mut parts = Vec::new();
        let mut odometer = vec![0usize; rank];
        loop {
            let runs: Vec<DimRun> = (0..rank).map(|d| per_dim[d][odometer[d]]).collect();
            parts.push(ChunkPart {
                index: runs.iter().map(|r| r.chunk).collect(),
                runs,
            });
            let mut d = rank;
            loop {
                if d == 0 {
                    return parts;
                }
                d -= 1;
                odometer[d] += 1;
                if odometer[d] < per_dim[d].len() {
                    break;
                }
                odometer[d] = 0;
            }
        }
    }
}

/// Where each row (along the last dimension) of a block of shape `counts` starts in
/// an array of shape `out_shape` when the block is at `offset`.
pub fn block_row_starts(out_shape: &[u64], counts: &[u64], offset: &[u64]) -> Vec<usize> {
    let rank = counts.len();
    if rank == 0 {
        return vec![0];
    }
    let strides = c_strides(out_shape);
    let rows: u64 = counts[..rank - 1].iter().product();
    (0..rows)
        .map(|r| {
            let mut rest = r;
            let mut at = offset[rank - 1] * strides[rank - 1];
            for k in (0..rank - 1).rev() {
                at += (offset[k] + rest % counts[k]) * strides[k];
                rest /= counts[k];
            }
            at as usize
        })
        .collect()
}

/// Copy the block `piece` (of shape `counts`) into `out` (of shape `out_shape`) at
/// `offset`.
pub fn place_block<T: Clone>(
    out: &mut [T],
    out_shape: &[u64],
    piece: &[T],
    counts: &[u64],
    offset: &[u64],
) {
    let row = counts.last().copied().unwrap_or(1) as usize;
    for (r, at) in block_row_starts(out_shape, counts, offset)
        .into_iter()
        .enumerate()
    {
        out[at..at + row].clone_from_slice(&piece[r * row..(r + 1) * row]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(grid: &ChunkGrid, region: &Region) -> Vec<Vec<u64>> {
        // Every output position, in the order the plan covers them.
        let mut seen = Vec::new();
        for part in grid.parts(region) {
            let mut idx = vec![0u64; part.runs.len()];
            fn rec(part: &ChunkPart, d: usize, idx: &mut Vec<u64>, seen: &mut Vec<Vec<u64>>) {
                if d == part.runs.len() {
                    seen.push(idx.clone());
                    return;
                }
                for k in 0..part.runs[d].len {
                    idx[d] = part.runs[d].in_out + k;
                    rec(part, d + 1, idx, seen);
                }
            }
            rec(&part, 0, &mut idx, &mut seen);
        }
        seen.sort();
        seen
    }

    fn all_positions(region: &Region) -> Vec<Vec<u64>> {
        let mut out = vec![vec![]];
        for d in 0..region.rank() {
            out = out
                .into_iter()
                .flat_map(|p| (0..region.count[d]).map(move |k| [p.clone(), vec![k]].concat()))
                .collect();
        }
        out
    }

    #[test]
    fn chunks_of_a_region_partition_it() {
        let grid = ChunkGrid::new(vec![8, 8], vec![3, 3]);
        for region in [
            Region::whole(&[8, 8]),
            Region::block(vec![2, 1], vec![4, 7]),
            Region {
                start: vec![1, 0],
                count: vec![3, 2],
                stride: vec![3, 4],
            },
            Region {
                start: vec![0, 7],
                count: vec![8, 1],
                stride: vec![1, 1],
            },
        ] {
            assert_eq!(covered(&grid, &region), all_positions(&region), "{region}");
        }
    }

    #[test]
    fn strides_skip_chunks() {
        let grid = ChunkGrid::new(vec![20], vec![2]);
        let parts = grid.parts(&Region {
            start: vec![0],
            count: vec![4],
            stride: vec![5],
        });
        let chunks: Vec<u64> = parts.iter().map(|p| p.index[0]).collect();
        assert_eq!(chunks, [0, 2, 5, 7]);
        assert_eq!(
            parts[1].runs[0],
            DimRun {
                chunk: 2,
                in_chunk: 1,
                in_out: 1,
                len: 1,
                step: 5
            }
        );
    }

    #[test]
    fn positions_beyond_the_stored_shape_touch_no_chunk() {
        // An unlimited dimension longer than this variable's stored records.
        let grid = ChunkGrid::new(vec![3], vec![2]);
        let parts = grid.parts(&Region::whole(&[5]));
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[1].runs[0].len, 1);
    }

    #[test]
    fn scalar_has_one_chunk() {
        let grid = ChunkGrid::new(vec![], vec![]);
        assert_eq!(grid.parts(&Region::whole(&[])).len(), 1);
    }
}
