//! nczcopy's memory model, in one place: what a `--memory` budget allows the slabs and
//! batches of a copy (`docs/nczcopy.md` explains it).
//!
//! A copy holds a slab being read and one being written, a batch of chunks on each side
//! (half a slab each, fetched and decoded, or encoded and put), and a slab's stored
//! bytes when they must be converted (byte order, type): at most about 4.5 slabs, 3 in
//! most copies. A slab is a sixth of the budget, a batch half a slab.

/// The least a copy uses, whatever it is given.
pub const LEAST: u64 = 1 << 20;

/// What a memory budget allows one copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget {
    /// The budget, at least [`LEAST`].
    pub total: u64,
    /// Bytes of values in one slab.
    pub slab: u64,
    /// Bytes of chunks encoded and put (or fetched and decoded) at once.
    pub batch: u64,
}

impl MemoryBudget {
    /// The budget `bytes` (raised to [`LEAST`]).
    pub fn new(bytes: u64) -> MemoryBudget {
        let total = bytes.max(LEAST);
        let slab = total / 6;
        MemoryBudget {
            total,
            slab,
            batch: slab / 2,
        }
    }

    /// The budget whose slabs hold `slab` bytes.
    pub fn total_for_slab(slab: u64) -> u64 {
        slab.saturating_mul(6)
    }

    /// Values of `item_size` bytes in one slab (at least one).
    pub fn slab_values(&self, item_size: u64) -> u64 {
        (self.slab / item_size.max(1)).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabs_are_a_sixth_and_batches_half_a_slab() {
        let b = MemoryBudget::new(600 << 20);
        assert_eq!((b.slab, b.batch), (100 << 20, 50 << 20));
        assert_eq!(b.slab_values(8), (100 << 20) / 8);
        assert_eq!(MemoryBudget::new(1).total, LEAST);
        assert_eq!(MemoryBudget::new(MemoryBudget::total_for_slab(b.slab)), b);
    }
}
