//! What an [`ArrayWriter`] has stored: chunks put, and whether the fill value was among
//! the values (NCZarr decides after the values whether to record a fill value).

use super::ArrayWriter;
use crate::chunking::c_strides;
use crate::formats::zarr::v2::Dtype;

/// What a writer has stored: how many chunks (or shards) it put, and whether a value
/// equal to the fill was among the values it stored. A format that decides after the
/// values whether to record a fill value at all reads it ([`ArrayWriter::written`]):
/// NCZarr records none where no value equals netCDF's default fill and every chunk is
/// stored, so that xarray, which masks by it, keeps an integer type.
#[derive(Debug, Default)]
pub(super) struct Watch {
    pub(super) chunks: std::sync::atomic::AtomicU64,
    pub(super) fill_seen: std::sync::atomic::AtomicBool,
    /// Look for the fill among the values (else only count chunks).
    pub(super) look: bool,
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
pub(super) fn contains_element(elements: &[u8], item: &[u8]) -> bool {
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

impl ArrayWriter {
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
    pub(super) fn count_put(&self, n: usize) {
        if let Some(w) = &self.watch {
            w.chunks
                .fetch_add(n as u64, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Whether the fill value is still to be looked for.
    pub(super) fn looking_for_fill(&self) -> bool {
        self.watch
            .as_ref()
            .is_some_and(|w| w.look && !w.fill_seen.load(std::sync::atomic::Ordering::Relaxed))
            && self.stored.dtype != Dtype::Object
    }

    /// Note whether `elements` (stored bytes of values) hold the fill value.
    pub(super) fn look_for_fill(&self, elements: &[u8]) {
        if let Some(w) = &self.watch {
            if self.has_fill(elements) {
                w.fill_seen.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }

    /// Whether the elements of chunk `index` inside the array (not an edge chunk's
    /// padding) hold the fill value; `chunk` holds the whole chunk in C order.
    pub(super) fn look_for_fill_in_chunk(&self, index: &[u64], chunk: &[u8]) {
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

    /// True when some element of `elements` (stored bytes) is the fill value.
    pub(super) fn has_fill(&self, elements: &[u8]) -> bool {
        contains_element(elements, &self.fill)
    }
}
