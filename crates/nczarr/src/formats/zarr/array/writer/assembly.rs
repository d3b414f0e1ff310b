//! Cutting chunks out of a slab: a chunk's buffer filled run by run, and the chunks
//! that share the slab's rows.

use super::ArrayWriter;
use crate::chunking::ChunkPart;

/// A chunk being cut from a slab.
pub(super) struct ChunkAssembly {
    pub(super) bytes: Vec<u8>,
    /// The slab covers the whole chunk: its runs come in order and are appended, with
    /// no fill written first only to be overwritten.
    append: bool,
    /// Bytes in one run.
    pub(super) run_bytes: usize,
}

/// Whether the slab holds all of `part`'s chunk, in order (no fill needed).
pub(super) fn covers(part: &ChunkPart, writer: &ArrayWriter) -> bool {
    part.runs
        .iter()
        .zip(&writer.grid.chunks)
        .all(|(r, &c)| r.in_chunk == 0 && r.len == c && (r.step == 1 || c == 1))
}

/// Where a shard's elements are: the slab itself (the shard at `base` in it) or the
/// shard assembled on its own (`base` all zeros), with the C-order element strides of
/// that buffer.
pub(super) struct ShardSource<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) base: Vec<u64>,
    pub(super) strides: &'a [u64],
}

impl ChunkAssembly {
    pub(super) fn new(part: &ChunkPart, writer: &ArrayWriter, item: usize) -> ChunkAssembly {
        let covers = covers(part, writer);
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
    pub(super) fn put(&mut self, at: usize, piece: &[u8]) {
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
pub(super) fn last_run_start(part: &ChunkPart) -> (u64, u64) {
    part.runs.last().map_or((0, 0), |r| (r.in_chunk, r.in_out))
}

/// `batch` cut into groups of consecutive parts that differ only in their last index:
/// the chunks that share the slab's rows.
pub(super) fn row_groups(batch: &[ChunkPart]) -> Vec<&[ChunkPart]> {
    batch
        .chunk_by(|a, b| {
            let outer = a.index.len().saturating_sub(1);
            a.index[..outer] == b.index[..outer]
        })
        .collect()
}
