//! A chunked dataset's index: a version 1 B-tree of raw-data chunks, as HDF5 1.8+
//! writes it for netcdf-c (layout message 3), built bottom-up once every chunk is
//! stored.
//!
//! A node holds up to 2K = 64 children (superblock 2 stores no K, so readers take
//! HDF5's default, 32) and is read at that full size whatever it holds, so each node is
//! written full-size. Key `i` of a node is the first chunk under child `i`; the last
//! key bounds the node from above (the next node's first key, or one past the last
//! chunk in every dimension), which is how HDF5 finds a chunk by its offset.

use super::encode::UNDEF;

/// Children per node.
const FANOUT: usize = 64;

/// One stored chunk: its index in the chunk grid, its stored bytes, the filters it
/// skipped (HDF5's filter mask), and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ChunkRecord {
    /// The chunk's position in the grid (chunks, not elements).
    pub(super) index: Vec<u64>,
    /// Bytes stored.
    pub(super) size: u32,
    /// Bit `i` set: filter `i` was not applied.
    pub(super) mask: u32,
    /// Its address.
    pub(super) at: u64,
}

/// Bytes of one node of a dataset of `rank` dimensions.
fn node_len(rank: usize) -> u64 {
    let key = 8 + 8 * (rank as u64 + 1);
    24 + FANOUT as u64 * 8 + (FANOUT as u64 + 1) * key
}

/// Bytes of the index of `chunks` chunks.
pub(super) fn index_len(chunks: usize, rank: usize) -> u64 {
    levels(chunks).iter().sum::<usize>() as u64 * node_len(rank)
}

/// Nodes in each level, the root's first.
fn levels(chunks: usize) -> Vec<usize> {
    let mut widths = vec![chunks.div_ceil(FANOUT).max(1)];
    while widths[0] > 1 {
        widths.insert(0, widths[0].div_ceil(FANOUT));
    }
    widths
}

/// A key: `size` and `mask`, then the element offset of the chunk at grid `index`
/// (`chunk` elements per chunk), and 0 for the element-size dimension.
fn key(out: &mut Vec<u8>, size: u32, mask: u32, index: &[u64], chunk: &[u64]) {
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&mask.to_le_bytes());
    for (i, c) in index.iter().zip(chunk) {
        out.extend_from_slice(&(i * c).to_le_bytes());
    }
    out.extend_from_slice(&0u64.to_le_bytes());
}

/// The index of `chunks` (sorted by grid index, at least one) of a dataset chunked as
/// `chunk`, written at `at`: its bytes (the root node first).
pub(super) fn encode(chunks: &[ChunkRecord], chunk: &[u64], at: u64) -> Vec<u8> {
    let rank = chunk.len();
    let len = node_len(rank);
    let widths = levels(chunks.len());
    let total: usize = widths.iter().sum();
    let mut out = vec![0u8; total * len as usize];
    let bound: Vec<u64> = chunks
        .last()
        .map(|c| c.index.iter().map(|i| i + 1).collect())
        .unwrap_or_else(|| vec![0; rank]);
    // Each child of the level being built: its first key's (size, mask, index) and
    // its address.
    let mut children: Vec<(u32, u32, Vec<u64>, u64)> = chunks
        .iter()
        .map(|c| (c.size, c.mask, c.index.clone(), c.at))
        .collect();
    let mut first_node = total;
    for (level, &width) in widths.iter().rev().enumerate() {
        first_node -= width;
        let groups: Vec<_> = children.chunks(FANOUT).map(<[_]>::to_vec).collect();
        let mut parents = Vec::with_capacity(width);
        for (k, group) in groups.iter().enumerate() {
            let node = first_node + k;
            let node_at = at + node as u64 * len;
            let mut b = Vec::with_capacity(len as usize);
            b.extend_from_slice(b"TREE");
            b.push(1);
            b.push(level as u8);
            b.extend_from_slice(&(group.len() as u16).to_le_bytes());
            let left = if k == 0 { UNDEF } else { node_at - len };
            let right = if k + 1 == width { UNDEF } else { node_at + len };
            b.extend_from_slice(&left.to_le_bytes());
            b.extend_from_slice(&right.to_le_bytes());
            for (size, mask, index, child) in group {
                key(&mut b, *size, *mask, index, chunk);
                b.extend_from_slice(&child.to_le_bytes());
            }
            match groups.get(k + 1).and_then(|g| g.first()) {
                Some((size, mask, index, _)) => key(&mut b, *size, *mask, index, chunk),
                None => key(&mut b, 0, 0, &bound, chunk),
            }
            let (size, mask, index, _) = &group[0];
            parents.push((*size, *mask, index.clone(), node_at));
            let from = node * len as usize;
            out[from..from + b.len()].copy_from_slice(&b);
        }
        children = parents;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(n: u64) -> Vec<ChunkRecord> {
        (0..n)
            .map(|i| ChunkRecord {
                index: vec![i, 0],
                size: 10,
                mask: 0,
                at: 1000 + i * 10,
            })
            .collect()
    }

    #[test]
    fn one_leaf_holds_up_to_64_chunks() {
        let b = encode(&records(64), &[2, 3], 5000);
        assert_eq!(b.len() as u64, index_len(64, 2));
        assert_eq!(&b[..4], b"TREE");
        assert_eq!(b[5], 0);
        assert_eq!(u16::from_le_bytes([b[6], b[7]]), 64);
    }

    #[test]
    fn more_chunks_make_a_root_over_leaves() {
        let b = encode(&records(65), &[2, 3], 5000);
        let len = node_len(2) as usize;
        assert_eq!(b.len(), 3 * len);
        assert_eq!(b[5], 1, "the root is level 1");
        assert_eq!(u16::from_le_bytes([b[6], b[7]]), 2);
        assert_eq!(b[len + 5], 0);
        assert_eq!(u16::from_le_bytes([b[2 * len + 6], b[2 * len + 7]]), 1);
        // The root's second child is the second leaf.
        let key = 8 + 8 * 3;
        let second_child = 24 + key + 8 + key;
        let at = u64::from_le_bytes(b[second_child..second_child + 8].try_into().unwrap());
        assert_eq!(at, 5000 + 2 * len as u64);
    }
}
