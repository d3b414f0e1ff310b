//! Zarr v3 shards (`sharding_indexed`): the index of where each inner chunk lies in
//! its shard, read with one ranged request per shard and kept for later reads.
//!
//! The index is `n` pairs of little-endian u64 (offset, length) in C order of the
//! inner chunks, `u64::MAX` twice for an empty one, then (with the `crc32c` index
//! codec) a little-endian CRC32C of those bytes.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::Sharding;

/// Where each inner chunk of one shard is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardIndex {
    entries: Vec<(u64, u64)>,
}

/// The entry of an inner chunk that is not stored.
const EMPTY: (u64, u64) = (u64::MAX, u64::MAX);

impl ShardIndex {
    /// The encoded size of the index of `n` inner chunks.
    pub fn encoded_len(n: u64, checksum: bool) -> u64 {
        n.saturating_mul(16)
            .saturating_add(if checksum { 4 } else { 0 })
    }

    /// An index of `n` empty entries.
    pub fn empty(n: usize) -> ShardIndex {
        ShardIndex {
            entries: vec![EMPTY; n],
        }
    }

    /// Record inner chunk `i` at `range`.
    pub fn set(&mut self, i: usize, range: Range<u64>) {
        if let Some(e) = self.entries.get_mut(i) {
            *e = (range.start, range.end - range.start);
        }
    }

    /// Parse the index of `n` inner chunks from `bytes`.
    ///
    /// # Errors
    /// A message for an index of the wrong length, a checksum that does not match,
    /// or an entry that runs past 2^63 bytes.
    pub fn decode(bytes: &[u8], n: usize, checksum: bool) -> Result<ShardIndex, String> {
        let want = Self::encoded_len(n as u64, checksum);
        if bytes.len() as u64 != want {
            return Err(format!(
                "shard index of {} bytes, expected {want} for {n} inner chunks (shard truncated?)",
                bytes.len()
            ));
        }
        let body = &bytes[..n * 16];
        if checksum {
            let stored = u32::from_le_bytes(
                bytes[n * 16..]
                    .try_into()
                    .map_err(|_| "shard index checksum missing".to_string())?,
            );
            let computed = crate::codec::crc32c(body);
            if stored != computed {
                return Err(format!(
                    "shard index checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
                ));
            }
        }
        let mut entries = Vec::with_capacity(n);
        for pair in body.chunks_exact(16) {
            let word =
                |r: Range<usize>| u64::from_le_bytes(pair[r].try_into().unwrap_or([0xff; 8]));
            let (offset, len) = (word(0..8), word(8..16));
            if (offset, len) != EMPTY && offset.checked_add(len).is_none_or(|end| end > 1 << 63) {
                return Err(format!(
                    "shard index entry {} has offset {offset} and length {len}, past any shard",
                    entries.len()
                ));
            }
            entries.push((offset, len));
        }
        Ok(ShardIndex { entries })
    }

    /// The index's bytes.
    pub fn encode(&self, checksum: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * 16 + 4);
        for (o, l) in &self.entries {
            out.extend_from_slice(&o.to_le_bytes());
            out.extend_from_slice(&l.to_le_bytes());
        }
        if checksum {
            let c = crate::codec::crc32c(&out);
            out.extend_from_slice(&c.to_le_bytes());
        }
        out
    }

    /// The bytes of inner chunk `i` within the shard, or `None` when it is not stored.
    pub fn range(&self, i: usize) -> Option<Range<u64>> {
        match self.entries.get(i) {
            Some(&e) if e != EMPTY => Some(e.0..e.0 + e.1),
            _ => None,
        }
    }
}

/// Which shard holds inner chunk `inner` (grid indices of inner chunks), and its
/// position (C order) among the shard's inner chunks.
pub(crate) fn locate(inner: &[u64], per_shard: &[u64]) -> (Vec<u64>, usize) {
    let mut shard = Vec::with_capacity(inner.len());
    let mut pos = 0u64;
    for (&i, &p) in inner.iter().zip(per_shard) {
        shard.push(i / p);
        pos = pos * p + i % p;
    }
    (shard, pos as usize)
}

/// The byte range of the index in a shard (from the end when it is at the end).
pub(crate) fn index_range(sharding: &Sharding, n: u64) -> crate::store::ByteRange {
    let len = ShardIndex::encoded_len(n, sharding.index_checksum);
    if sharding.index_at_start {
        crate::store::ByteRange::Bounded(0..len)
    } else {
        crate::store::ByteRange::Suffix(len)
    }
}

/// Shard indexes already read, by shard key (`None`: the shard is not stored), so
/// that reading a variable slab by slab reads each index once.
#[derive(Debug, Default)]
pub struct ShardCache {
    map: Mutex<HashMap<String, Option<Arc<ShardIndex>>>>,
}

/// Indexes kept at most; past this the cache starts over.
const CACHE_ENTRIES: usize = 16384;

impl ShardCache {
    /// The index of shard `key` if known.
    pub fn get(&self, key: &str) -> Option<Option<Arc<ShardIndex>>> {
        self.map.lock().ok()?.get(key).cloned()
    }

    /// Remember the index of shard `key`.
    pub fn put(&self, key: String, index: Option<Arc<ShardIndex>>) {
        if let Ok(mut m) = self.map.lock() {
            if m.len() >= CACHE_ENTRIES {
                m.clear();
            }
            m.insert(key, index);
        }
    }
}

/// Bytes between two inner chunks of a shard that are read and thrown away rather
/// than cost one more request.
const COALESCE_GAP: u64 = 64 << 10;
/// The most bytes one coalesced read covers, so that a batch still makes enough
/// requests to keep a remote store busy.
const COALESCE_MAX: u64 = 4 << 20;

/// One read that serves several inner chunks: the shard's slot and the byte range.
pub(crate) type Read = (usize, Range<u64>);

/// The reads that fetch `wanted` (each a shard's slot and an inner chunk's byte range):
/// ranges of one shard that touch or lie within [`COALESCE_GAP`] of each other are
/// merged, up to [`COALESCE_MAX`] bytes a read (a single larger chunk is read alone).
/// Also, for each wanted range in order, which read holds it and where in that read.
pub(crate) fn coalesce(wanted: &[Read]) -> (Vec<Read>, Vec<(usize, Range<usize>)>) {
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by_key(|&i| (wanted[i].0, wanted[i].1.start));
    let mut reads: Vec<Read> = Vec::new();
    let mut place = vec![(0, 0..0); wanted.len()];
    for i in order {
        let (slot, r) = &wanted[i];
        let joins = reads.last().is_some_and(|(s, last)| {
            *s == *slot
                && r.start >= last.start
                && r.start <= last.end.saturating_add(COALESCE_GAP)
                && r.end.max(last.end) - last.start <= COALESCE_MAX
        });
        if !joins {
            reads.push((*slot, r.clone()));
        }
        let n = reads.len() - 1;
        let last = &mut reads[n].1;
        last.end = last.end.max(r.end);
        let from = (r.start - last.start) as usize;
        place[i] = (n, from..from + (r.end - r.start) as usize);
    }
    (reads, place)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trips_and_checks() {
        let mut ix = ShardIndex::empty(3);
        ix.set(0, 0..10);
        ix.set(2, 10..25);
        for checksum in [false, true] {
            let bytes = ix.encode(checksum);
            assert_eq!(bytes.len() as u64, ShardIndex::encoded_len(3, checksum));
            let back = ShardIndex::decode(&bytes, 3, checksum).unwrap();
            assert_eq!(back.range(0), Some(0..10));
            assert_eq!(back.range(1), None);
            assert_eq!(back.range(2), Some(10..25));
            assert!(ShardIndex::decode(&bytes[1..], 3, checksum).is_err());
        }
        let mut bad = ix.encode(true);
        bad[3] ^= 1;
        assert!(ShardIndex::decode(&bad, 3, true)
            .unwrap_err()
            .contains("checksum"));
        let mut huge = ShardIndex::empty(1);
        huge.entries[0] = (u64::MAX - 1, 5);
        assert!(ShardIndex::decode(&huge.encode(false), 1, false).is_err());
    }

    #[test]
    fn inner_chunks_find_their_shard() {
        assert_eq!(locate(&[5, 7], &[2, 3]), (vec![2, 2], 3 + 1));
        assert_eq!(locate(&[0, 0], &[2, 3]), (vec![0, 0], 0));
        assert_eq!(locate(&[], &[]), (vec![], 0));
    }

    #[test]
    fn close_ranges_of_one_shard_become_one_read() {
        let wanted = vec![
            (0, 100..200),
            (1, 0..10),
            (0, 0..100),
            (0, 200..250),
            // Past the gap: a read of its own.
            (0, 250 + COALESCE_GAP + 1..250 + COALESCE_GAP + 11),
            // Within the gap: joins, the gap read and dropped.
            (1, 20..30),
        ];
        let (reads, place) = coalesce(&wanted);
        assert_eq!(
            reads,
            vec![
                (0, 0..250),
                (0, 250 + COALESCE_GAP + 1..250 + COALESCE_GAP + 11),
                (1, 0..30)
            ]
        );
        assert_eq!(
            place,
            vec![
                (0, 100..200),
                (2, 0..10),
                (0, 0..100),
                (0, 200..250),
                (1, 0..10),
                (2, 20..30)
            ]
        );
    }

    #[test]
    fn reads_stop_growing_at_the_cap() {
        let step = COALESCE_MAX / 4;
        let wanted: Vec<Read> = (0..10).map(|i| (0, i * step..(i + 1) * step)).collect();
        let (reads, place) = coalesce(&wanted);
        assert_eq!(reads.len(), 3);
        assert!(reads.iter().all(|(_, r)| r.end - r.start <= COALESCE_MAX));
        assert_eq!(place[4], (1, 0..step as usize));
        // A chunk larger than the cap is read whole, alone.
        let (reads, _) = coalesce(&[(0, 0..10), (0, 10..COALESCE_MAX * 2)]);
        assert_eq!(reads, vec![(0, 0..10), (0, 10..COALESCE_MAX * 2)]);
    }
}
