//! Global heap collections: where HDF5 keeps variable-length data (the bytes of
//! strings, the references of a `DIMENSION_LIST`), each element of a dataset or
//! attribute holding its length and a heap id (collection address, object index).

/// The smallest collection HDF5 reads.
const MIN_COLLECTION: usize = 4096;

/// Objects a collection holds at most (indexes are two bytes, 0 is free space).
const MAX_OBJECTS: usize = 0xffff;

/// Bytes a collection grows to before another is started.
const TARGET_BYTES: usize = 1 << 20;

/// Collections being filled: each object's bytes, until they are laid out.
#[derive(Default)]
pub(super) struct HeapBuilder {
    collections: Vec<Vec<Vec<u8>>>,
    sizes: Vec<usize>,
    /// Addresses inside objects, set when the collections are laid out: an object
    /// that holds variable-length elements itself (a vlen of vlens, of strings).
    patches: Vec<(HeapId, Patch)>,
}

/// An address not known yet: the 8 bytes at `at` become the address of the
/// collection `collection` once collections are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Patch {
    /// Where the address goes.
    pub(super) at: usize,
    /// The collection it is the address of.
    pub(super) collection: usize,
}

/// Set the addresses `patches` name in `bytes`, collections being at `addresses`.
pub(super) fn apply(bytes: &mut [u8], patches: &[Patch], addresses: &[u64]) {
    for p in patches {
        bytes[p.at..p.at + 8].copy_from_slice(&addresses[p.collection].to_le_bytes());
    }
}

/// Where an object went: its collection (in the order they are laid out) and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct HeapId {
    /// The collection's position among this builder's.
    pub(super) collection: usize,
    /// The object's index (from 1).
    pub(super) index: u16,
}

impl HeapBuilder {
    /// Add an object (an empty one too: an empty string is an object of no bytes, a
    /// NIL string none at all, whose descriptor's address is 0).
    pub(super) fn add(&mut self, bytes: &[u8]) -> HeapId {
        let need = 16 + bytes.len().next_multiple_of(8);
        let fits = self.collections.last().is_some_and(|c| {
            c.len() < MAX_OBJECTS && self.sizes.last().is_some_and(|s| s + need <= TARGET_BYTES)
        });
        if !fits {
            self.collections.push(Vec::new());
            self.sizes.push(16);
        }
        let last = self.collections.len() - 1;
        self.collections[last].push(bytes.to_vec());
        self.sizes[last] += need;
        HeapId {
            collection: last,
            index: self.collections[last].len() as u16,
        }
    }

    /// Add an object holding the descriptors of other objects, whose addresses
    /// `patches` set when the collections are laid out.
    pub(super) fn add_patched(&mut self, bytes: &[u8], patches: Vec<Patch>) -> HeapId {
        let id = self.add(bytes);
        self.patches.extend(patches.into_iter().map(|p| (id, p)));
        id
    }

    /// The address of each collection when the first is written at `at`.
    pub(super) fn addresses(&self, at: u64) -> Vec<u64> {
        self.lens()
            .iter()
            .scan(at, |next, len| {
                let here = *next;
                *next += len;
                Some(here)
            })
            .collect()
    }

    /// Replace an object's bytes with as many others (a reference, once the object it
    /// names has its address).
    pub(super) fn replace(&mut self, id: HeapId, bytes: &[u8]) {
        let object = &mut self.collections[id.collection][usize::from(id.index) - 1];
        debug_assert_eq!(object.len(), bytes.len());
        object.copy_from_slice(bytes);
    }

    /// True when no object was added.
    pub(super) fn is_empty(&self) -> bool {
        self.collections.is_empty()
    }

    /// Bytes of each collection, in order.
    pub(super) fn lens(&self) -> Vec<u64> {
        self.sizes
            .iter()
            .map(|&s| collection_len(s) as u64)
            .collect()
    }

    /// The collections' bytes, end to end, the first written at `at`; with the address
    /// of each.
    pub(super) fn encode(&self, at: u64) -> (Vec<u8>, Vec<u64>) {
        let mut out = Vec::new();
        let addresses = self.addresses(at);
        // Where each object's bytes start in `out`, for the patches.
        let mut starts: Vec<Vec<usize>> = Vec::with_capacity(self.collections.len());
        for (objects, &used) in self.collections.iter().zip(&self.sizes) {
            debug_assert_eq!(at + out.len() as u64, addresses[starts.len()]);
            let mut here = Vec::with_capacity(objects.len());
            let len = collection_len(used);
            let start = out.len();
            out.extend_from_slice(b"GCOL");
            out.extend_from_slice(&[1, 0, 0, 0]);
            out.extend_from_slice(&(len as u64).to_le_bytes());
            for (i, o) in objects.iter().enumerate() {
                out.extend_from_slice(&(i as u16 + 1).to_le_bytes());
                out.extend_from_slice(&1u16.to_le_bytes());
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(&(o.len() as u64).to_le_bytes());
                here.push(out.len());
                out.extend_from_slice(o);
                out.resize(out.len().next_multiple_of(8), 0);
            }
            // The rest is free space: object 0, its size counting its own header.
            let free = (start + len - out.len()) as u64;
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&free.to_le_bytes());
            out.resize(start + len, 0);
            starts.push(here);
        }
        for (id, p) in &self.patches {
            let object = starts[id.collection][usize::from(id.index) - 1];
            let at = object + p.at;
            out[at..at + 8].copy_from_slice(&addresses[p.collection].to_le_bytes());
        }
        (out, addresses)
    }
}

/// Bytes of a collection whose objects take `used` bytes with its header: room for
/// the free-space object after them, and at least HDF5's smallest collection.
fn collection_len(used: usize) -> usize {
    (used + 16).next_multiple_of(8).max(MIN_COLLECTION)
}

/// A variable-length element: `len` items, stored as `id` in collections at
/// `addresses`.
pub(super) fn descriptor(out: &mut Vec<u8>, len: u32, id: Option<HeapId>, addresses: &[u64]) {
    out.extend_from_slice(&len.to_le_bytes());
    match id {
        Some(id) => {
            out.extend_from_slice(&addresses[id.collection].to_le_bytes());
            out.extend_from_slice(&u32::from(id.index).to_le_bytes());
        }
        None => out.extend_from_slice(&[0; 12]),
    }
}

/// A variable-length element of `len` items stored as `id`, whose collection's
/// address is not known yet: written as 0, with the patch that sets it.
pub(super) fn pending_descriptor(
    out: &mut Vec<u8>,
    len: u32,
    id: Option<HeapId>,
    patches: &mut Vec<Patch>,
) {
    out.extend_from_slice(&len.to_le_bytes());
    match id {
        Some(id) => {
            patches.push(Patch {
                at: out.len(),
                collection: id.collection,
            });
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&u32::from(id.index).to_le_bytes());
        }
        None => out.extend_from_slice(&[0; 12]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_are_laid_out_with_free_space() {
        let mut h = HeapBuilder::default();
        let a = h.add(b"abc");
        assert_eq!(
            a,
            HeapId {
                collection: 0,
                index: 1
            }
        );
        let (bytes, at) = h.encode(100);
        assert_eq!(at, vec![100]);
        assert_eq!(bytes.len(), 4096);
        assert_eq!(&bytes[..4], b"GCOL");
        assert_eq!(&bytes[32..35], b"abc");
        let free = u64::from_le_bytes(bytes[48..56].try_into().unwrap());
        assert_eq!(free, 4096 - 40);
        assert_eq!(h.lens(), vec![4096]);
    }

    #[test]
    fn an_object_holding_descriptors_gets_their_addresses() {
        let mut h = HeapBuilder::default();
        let inner = h.add(b"xyz");
        let mut outer = Vec::new();
        let mut patches = Vec::new();
        pending_descriptor(&mut outer, 3, Some(inner), &mut patches);
        let o = h.add_patched(&outer, patches);
        assert_eq!(o.index, 2);
        let (bytes, at) = h.encode(1000);
        assert_eq!(h.addresses(1000), at);
        // The second object's bytes follow the first (3 bytes padded to 8).
        let object = 16 + 16 + 8 + 16;
        assert_eq!(&bytes[object..object + 4], &3u32.to_le_bytes());
        assert_eq!(&bytes[object + 4..object + 12], &1000u64.to_le_bytes());
        assert_eq!(&bytes[object + 12..object + 16], &1u32.to_le_bytes());
    }
}
