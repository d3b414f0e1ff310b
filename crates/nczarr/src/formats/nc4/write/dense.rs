//! HDF5's dense attribute storage, for an object whose attributes do not all fit in its
//! header (a message is at most 64 KiB): the attribute messages are objects of a
//! fractal heap, found by name through one version 2 B-tree and by creation order
//! through another; the object header keeps only the attribute info message, which
//! points to the three.
//!
//! The heap has HDF5's parameters for attributes, and every message is one of its
//! "huge" objects: stored whole in the file, found through the heap's own B-tree of
//! huge objects, as HDF5 stores the messages over 4 KiB. The heap's managed space is
//! empty, so HDF5 adding an attribute later (ncatted) starts it as it would in a heap
//! of its own. Each B-tree is one leaf holding every record.

use super::encode::{checksum, UNDEF};

/// Bytes of a heap id, as HDF5 uses for attributes.
const ID_LEN: usize = 8;

/// Bytes of the heap header.
const HEAP_HEADER_LEN: u64 = 4 + 1 + 2 + 2 + 1 + 4 + 8 * 12 + 2 + 8 + 8 + 2 + 2 + 8 + 2 + 4;

/// Bytes of a B-tree header.
const BTREE_HEADER_LEN: u64 = 4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + 8 + 2 + 8 + 4;

/// Bytes of a leaf's signature, version, type and checksum.
const LEAF_OVERHEAD: u64 = 4 + 1 + 1 + 4;

/// HDF5's B-tree node size for these indexes, the least a leaf takes here.
const MIN_NODE: u64 = 512;

/// B-tree types: huge heap objects (indirectly accessed, not filtered), attribute
/// names (hashed) and attribute creation order.
const HUGE_INDEX: u8 = 1;
const NAME_INDEX: u8 = 8;
const ORDER_INDEX: u8 = 9;

/// Bytes of a huge object record (address, length, id), a name record (heap id,
/// flags, creation order, hash) and a creation order record (heap id, flags, creation
/// order).
const HUGE_RECORD: u64 = 8 + 8 + 8;
const NAME_RECORD: u64 = ID_LEN as u64 + 1 + 4 + 4;
const ORDER_RECORD: u64 = ID_LEN as u64 + 1 + 4;

/// Where the parts of one object's dense storage are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DenseAt {
    /// The fractal heap's header.
    pub(super) heap: u64,
    /// The B-tree of names.
    pub(super) names: u64,
    /// The B-tree of creation order.
    pub(super) order: u64,
}

fn node_len(records: usize, record: u64) -> u64 {
    (LEAF_OVERHEAD + records as u64 * record).max(MIN_NODE)
}

/// True when dense storage can hold `messages` (the attribute messages of one object:
/// a leaf's record count is two bytes).
pub(super) fn fits(messages: &[Vec<u8>]) -> bool {
    messages.len() <= usize::from(u16::MAX)
}

/// Bytes the dense storage of `messages` takes.
pub(super) fn len(messages: &[Vec<u8>]) -> u64 {
    let n = messages.len();
    HEAP_HEADER_LEN
        + messages.iter().map(|m| m.len() as u64).sum::<u64>()
        + 3 * BTREE_HEADER_LEN
        + node_len(n, HUGE_RECORD)
        + node_len(n, NAME_RECORD)
        + node_len(n, ORDER_RECORD)
}

/// Where the parts of the dense storage of `messages` go when it is placed at `at`
/// (the B-tree of huge objects follows the messages, which follow the heap's header).
pub(super) fn places(messages: &[Vec<u8>], at: u64) -> DenseAt {
    let n = messages.len();
    let data_len: u64 = messages.iter().map(|m| m.len() as u64).sum();
    let names = at + HEAP_HEADER_LEN + data_len + BTREE_HEADER_LEN + node_len(n, HUGE_RECORD);
    DenseAt {
        heap: at,
        names,
        order: names + BTREE_HEADER_LEN + node_len(n, NAME_RECORD),
    }
}

/// The dense storage of `messages` (attribute message bodies in creation order, named
/// `names`), placed at `at`: its bytes and where its parts are.
pub(super) fn encode(messages: &[Vec<u8>], names: &[&str], at: u64) -> (Vec<u8>, DenseAt) {
    let n = messages.len();
    let DenseAt {
        heap,
        names: names_at,
        order: order_at,
    } = places(messages, at);
    let data_at = heap + HEAP_HEADER_LEN;
    let data_len: u64 = messages.iter().map(|m| m.len() as u64).sum();
    let huge_at = data_at + data_len;
    // Huge object ids count from 1; a heap id is its type (huge) and that id.
    let ids: Vec<Vec<u8>> = (1..=n as u64)
        .map(|k| {
            let mut id = vec![0x10];
            id.extend_from_slice(&k.to_le_bytes()[..ID_LEN - 1]);
            id
        })
        .collect();
    let mut out = heap_header(n as u64, data_len, huge_at);
    let mut huge_records = Vec::with_capacity(n);
    let mut place = data_at;
    for (k, m) in messages.iter().enumerate() {
        let mut r = place.to_le_bytes().to_vec();
        r.extend_from_slice(&(m.len() as u64).to_le_bytes());
        r.extend_from_slice(&(k as u64 + 1).to_le_bytes());
        huge_records.push(r);
        out.extend_from_slice(m);
        place += m.len() as u64;
    }
    // Names by their hash (then name, as HDF5 orders equal hashes), orders as given.
    let mut by_name: Vec<usize> = (0..n).collect();
    by_name.sort_by_key(|&i| (checksum(names[i].as_bytes()), names[i]));
    let name_records: Vec<Vec<u8>> = by_name
        .iter()
        .map(|&i| {
            let mut r = ids[i].clone();
            r.push(0);
            r.extend_from_slice(&(i as u32).to_le_bytes());
            r.extend_from_slice(&checksum(names[i].as_bytes()).to_le_bytes());
            r
        })
        .collect();
    let order_records: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let mut r = ids[i].clone();
            r.push(0);
            r.extend_from_slice(&(i as u32).to_le_bytes());
            r
        })
        .collect();
    for (kind, record, records, header_at) in [
        (HUGE_INDEX, HUGE_RECORD, &huge_records, huge_at),
        (NAME_INDEX, NAME_RECORD, &name_records, names_at),
        (ORDER_INDEX, ORDER_RECORD, &order_records, order_at),
    ] {
        let node = node_len(n, record);
        debug_assert_eq!(at + out.len() as u64, header_at);
        out.extend(btree_header(
            kind,
            node,
            record,
            header_at + BTREE_HEADER_LEN,
            n as u64,
        ));
        out.extend(leaf(kind, records, node));
    }
    debug_assert_eq!(out.len() as u64, len(messages));
    (
        out,
        DenseAt {
            heap,
            names: names_at,
            order: order_at,
        },
    )
}

/// The fractal heap's header with HDF5's parameters for attributes: `objects` huge
/// objects of `bytes` bytes indexed by the B-tree at `huge_at`, nothing managed.
fn heap_header(objects: u64, bytes: u64, huge_at: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEAP_HEADER_LEN as usize);
    b.extend_from_slice(b"FRHP");
    b.push(0);
    b.extend_from_slice(&(ID_LEN as u16).to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    // Direct blocks are checksummed.
    b.push(0x02);
    // Objects up to 4 KiB are managed (none here), larger ones huge.
    b.extend_from_slice(&4096u32.to_le_bytes());
    for v in [
        objects, // the last huge object id
        huge_at, // huge objects' B-tree
        0,       // free space in managed blocks
        UNDEF,   // free-space manager
        0,       // managed space
        0,       // managed space allocated
        0,       // the direct block allocation iterator
        0,       // managed objects
        bytes,   // huge objects' size
        objects, // huge objects
        0,       // tiny objects' size
        0,       // tiny objects
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    // The doubling table: width 4, blocks of 1 KiB to 64 KiB, 40-bit heap offsets, one
    // starting row, no root block yet.
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&1024u64.to_le_bytes());
    b.extend_from_slice(&65536u64.to_le_bytes());
    b.extend_from_slice(&40u16.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&UNDEF.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    debug_assert_eq!(b.len() as u64, HEAP_HEADER_LEN);
    b
}

/// A version 2 B-tree's header: of `kind`, nodes of `node` bytes, records of `record`,
/// depth 0 (its root the leaf at `root` holding all `records`).
fn btree_header(kind: u8, node: u64, record: u64, root: u64, records: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(BTREE_HEADER_LEN as usize);
    b.extend_from_slice(b"BTHD");
    b.push(0);
    b.push(kind);
    b.extend_from_slice(&(node as u32).to_le_bytes());
    b.extend_from_slice(&(record as u16).to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    // HDF5's split and merge percentages.
    b.push(100);
    b.push(40);
    b.extend_from_slice(&root.to_le_bytes());
    b.extend_from_slice(&(records as u16).to_le_bytes());
    b.extend_from_slice(&records.to_le_bytes());
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// A leaf of `kind` holding `records`, padded to `node` bytes.
fn leaf(kind: u8, records: &[Vec<u8>], node: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(node as usize);
    b.extend_from_slice(b"BTLF");
    b.push(0);
    b.push(kind);
    for r in records {
        b.extend_from_slice(r);
    }
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b.resize(node as usize, 0);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_follow_each_other_and_ids_name_each_message() {
        let messages = vec![vec![1u8; 70_000], vec![2u8; 10]];
        let (bytes, at) = encode(&messages, &["big", "small"], 1000);
        assert_eq!(bytes.len() as u64, len(&messages));
        assert_eq!(at.heap, 1000);
        assert_eq!(&bytes[..4], b"FRHP");
        let data = HEAP_HEADER_LEN as usize;
        assert_eq!(bytes[data], 1);
        assert_eq!(bytes[data + 70_000], 2);
        let huge = data + 70_010;
        assert_eq!(&bytes[huge..huge + 4], b"BTHD");
        assert_eq!(&bytes[(at.names - 1000) as usize..][..4], b"BTHD");
        assert_eq!(&bytes[(at.order - 1000) as usize..][..4], b"BTHD");
        // The huge objects' leaf: the second record is the small message.
        let leaf = huge + BTREE_HEADER_LEN as usize;
        assert_eq!(&bytes[leaf..leaf + 4], b"BTLF");
        let second = &bytes[leaf + 6 + 24..leaf + 6 + 48];
        assert_eq!(
            u64::from_le_bytes(second[..8].try_into().unwrap()),
            1000 + data as u64 + 70_000
        );
        assert_eq!(u64::from_le_bytes(second[8..16].try_into().unwrap()), 10);
        assert_eq!(u64::from_le_bytes(second[16..].try_into().unwrap()), 2);
        // The creation order leaf's first record names huge object 1.
        let order = (at.order - 1000 + BTREE_HEADER_LEN) as usize;
        assert_eq!(&bytes[order + 6..order + 14], &[0x10, 1, 0, 0, 0, 0, 0, 0]);
    }
}
