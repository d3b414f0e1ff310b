//! Variable-length strings resolved through HDF5 global heap collections, each
//! collection read once per read and its objects found by index in constant time,
//! into one [`Strings`] block.
//!
//! `hdf5-reader` finds an object by its position and, when the position is not the
//! index, by a scan of the collection: netcdf-c's heaps do not keep objects in index
//! order, so a million strings cost a million scans (most of a string dump's time).
//! Here a collection is walked once into a table from index to its bytes. (The
//! crate's `GlobalHeapCollection::parse_at_storage` would also do for the walk, but
//! copies every object into a `Vec` of its own: a second allocation per string.)

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

use hdf5_reader::error::{Error, Result};
use hdf5_reader::io::Cursor;
use hdf5_reader::Hdf5File;

use crate::model::{Strings, TooLarge};
use crate::store::ReadAt;

/// Bytes of a collection header: `GCOL`, version, 3 reserved, then its size.
const SIGNATURE: &[u8; 4] = b"GCOL";

/// Where the collections are: the file, the base their addresses count from (after a
/// user block), the size of a length, and whether each read is a request (then the
/// collections a read needs are fetched together first).
#[derive(Clone, Copy)]
struct HeapFile<'a> {
    reader: &'a dyn ReadAt,
    base: u64,
    length_size: usize,
    remote: bool,
}

impl HeapFile<'_> {
    /// Bytes of a collection's header: signature, version, reserved, size.
    fn header_len(&self) -> usize {
        8 + self.length_size.min(8)
    }

    /// Where the collection at `address` starts, with its header inside the file.
    fn start(&self, address: u64) -> Option<u64> {
        let header = self.header_len() as u64;
        self.base.checked_add(address).filter(|at| {
            at.checked_add(header)
                .is_some_and(|end| end <= self.reader.len())
        })
    }

    /// Where the collection at `address` starts and its size in bytes, from its header,
    /// checked: a collection's read and the prefetch of its bytes both size it so.
    fn header(&self, address: u64) -> Result<(u64, u64)> {
        let io = |e: crate::store::StoreError| Error::InvalidData(e.to_string());
        let mut header = [0u8; 16];
        let header = &mut header[..self.header_len()];
        // Addresses are relative to the superblock's base (after a user block), as
        // `hdf5-reader`'s own reads take them.
        let Some(at) = self.start(address) else {
            return Err(Error::InvalidData(format!(
                "global heap collection at {address:#x} lies past the end of the file"
            )));
        };
        self.reader.read_at(at, header).map_err(io)?;
        if &header[..4] != SIGNATURE {
            return Err(Error::InvalidGlobalHeapSignature);
        }
        if header[4] != 1 {
            return Err(Error::UnsupportedGlobalHeapVersion(header[4]));
        }
        let size = read_length(&header[8..]);
        if size > self.reader.len() - at || size > u64::from(u32::MAX) {
            return Err(Error::InvalidData(format!(
                "global heap collection at {address:#x} claims {size} bytes"
            )));
        }
        Ok((at, size))
    }
}

/// One collection: its bytes and, by object index, where each object's data lies.
struct Collection {
    address: u64,
    bytes: Vec<u8>,
    objects: Objects,
}

/// Where each object of a collection lies, by index.
///
/// HDF5 numbers a collection's objects one after another from where its count stood
/// (4096 and up in netcdf-c's files, not 1), so the table starts at the lowest index:
/// one indexed from 0 cleared thousands of empty places per collection.
#[derive(Default)]
struct Objects {
    /// The index of `places[0]`.
    first: usize,
    /// `(start, len)` of object `first + i` at `i`; `len == u32::MAX` where there is
    /// none.
    places: Vec<(u32, u32)>,
}

const ABSENT: (u32, u32) = (0, u32::MAX);

impl Objects {
    fn clear(&mut self) {
        self.places.clear();
    }

    /// Object `index` lies at `place`.
    fn set(&mut self, index: usize, place: (u32, u32)) {
        if self.places.is_empty() {
            self.first = index;
        } else if index < self.first {
            // Below the first met (not how HDF5 writes): the table moves up.
            let below = self.first - index;
            self.places.splice(0..0, std::iter::repeat_n(ABSENT, below));
            self.first = index;
        }
        let at = index - self.first;
        // Objects come in turn: the common case is a push, not a call (`resize` to the
        // length it has was one per object, not inlined).
        if at == self.places.len() {
            self.places.push(place);
        } else if let Some(slot) = self.places.get_mut(at) {
            *slot = place;
        } else {
            self.places.resize(at, ABSENT);
            self.places.push(place);
        }
    }

    /// Where object `index` starts and how many bytes it has.
    fn get(&self, index: u32) -> Option<(u32, u32)> {
        (index as usize)
            .checked_sub(self.first)
            .and_then(|at| self.places.get(at))
            .copied()
            .filter(|&(_, len)| len != u32::MAX)
    }
}

impl Collection {
    /// The collection at `address`, read into the buffers of `spare` (one read before).
    fn read(file: HeapFile<'_>, address: u64, spare: Option<Collection>) -> Result<Collection> {
        let (reader, length_size) = (file.reader, file.length_size);
        #[cfg(test)]
        if spare.is_none() {
            tests::FRESH.with(|n| n.set(n.get() + 1));
        }
        let (mut bytes, mut objects) =
            spare.map_or_else(Default::default, |c| (c.bytes, c.objects));
        let io = |e: crate::store::StoreError| Error::InvalidData(e.to_string());
        let (at, size) = file.header(address)?;
        // Read over what the buffer held (only new room is cleared first); memory not
        // to be had is an error, not an abort.
        bytes.truncate(size as usize);
        bytes
            .try_reserve(size as usize - bytes.len())
            .map_err(|_| Error::InvalidData(format!("global heap collection at {address:#x} claims {size} bytes: more than memory allows")))?;
        bytes.resize(size as usize, 0);
        reader.read_at(at, &mut bytes).map_err(io)?;
        index_objects(&bytes, 8 + length_size, length_size, &mut objects)?;
        Ok(Collection {
            address,
            bytes,
            objects,
        })
    }

    /// Where object `index`'s bytes start and how many there are.
    fn object(&self, index: u32) -> Option<(u32, u32)> {
        self.objects.get(index)
    }
}

/// Little-endian unsigned of 1 to 8 bytes.
fn read_length(b: &[u8]) -> u64 {
    // Files almost always use 8 and 4 bytes: one load each (this runs per string).
    if let Ok(a) = <[u8; 8]>::try_from(b) {
        return u64::from_le_bytes(a);
    }
    if let Ok(a) = <[u8; 4]>::try_from(b) {
        return u64::from(u32::from_le_bytes(a));
    }
    b.iter()
        .take(8)
        .rev()
        .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

/// Walk the objects after the header: index (2 bytes), reference count (2), reserved
/// (4), size (`length_size`), data padded to 8 bytes; index 0 is the free space that
/// ends the collection.
fn index_objects(
    bytes: &[u8],
    mut at: usize,
    length_size: usize,
    objects: &mut Objects,
) -> Result<()> {
    objects.clear();
    let head = 8 + length_size;
    while at + head <= bytes.len() {
        let index = usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
        if index == 0 {
            break;
        }
        let size = read_length(&bytes[at + 8..at + head]);
        let start = at + head;
        let end = u64::try_from(start)
            .ok()
            .and_then(|s| s.checked_add(size))
            .filter(|&e| e <= bytes.len() as u64)
            .ok_or_else(|| {
                Error::InvalidData(format!(
                    "global heap object {index} of {size} bytes runs past its collection"
                ))
            })? as usize;
        objects.set(index, (start as u32, (end - start) as u32));
        at = end + ((8 - (end - start) % 8) % 8);
    }
    Ok(())
}

/// The strings `refs` names: references of `width` bytes (length, collection
/// address, object index) end to end, as the file stores them, in the memory of
/// `spare`. Each collection is read once (or kept from the read before) when its first
/// string is met, and its buffers go to the next one after its last: HDF5 writes
/// neighbouring strings into a few collections at a time, so a few buffers serve a
/// whole read (fresh memory, cleared by the system page by page, cost more than the
/// reading), and strings are copied in order.
pub(super) fn resolve(
    file: &Hdf5File,
    (reader, remote): (&dyn ReadAt, bool),
    heaps: &Heaps,
    (refs, width): (&[u8], usize),
    spare: Strings,
) -> Result<Strings> {
    let sb = file.superblock();
    let offset_size = usize::from(sb.offset_size);
    if width != 8 + offset_size || offset_size > 8 {
        return Err(Error::InvalidData(format!(
            "string reference of {width} bytes"
        )));
    }
    let file_of = HeapFile {
        reader,
        base: sb.base_address,
        length_size: usize::from(sb.length_size),
        remote,
    };
    // Taken out for the read (a read at once elsewhere takes others), and put back.
    let mut tables = lock(&heaps.tables).pop().unwrap_or_default();
    let strings = tables.resolve(file_of, (refs, width), spare);
    lock(&heaps.tables).push(tables);
    strings
}

/// A reference's collection number in [`Tables::collection_of`] when it names no string.
const NIL_STRING: u32 = u32::MAX;

/// Collections kept after their last string of a read: those at the end of one slab's
/// strings hold the start of the next's.
const KEEP: usize = 4;

/// Bytes of collections held open between their strings at most: references that
/// interleave more collections than that (not what HDF5 writes) have the others read
/// again at their next string rather than held.
const OPEN_MAX: usize = 256 << 20;

/// What reads of strings keep from one to the next: the last collections read, and
/// the tables of a read (memory reused, not asked for each time); one set per read
/// made at once (a printer reads two slabs at a time).
#[derive(Default)]
pub(super) struct Heaps {
    tables: Mutex<Vec<Tables>>,
}

#[derive(Default)]
struct Tables {
    /// Collections past their last string, the latest last: at most [`KEEP`] between
    /// reads, their buffers the next ones' to read into.
    closed: Vec<Collection>,
    /// The collections of this read by number, from their first string to their last.
    open: Vec<Option<Collection>>,
    numbers: Numbers,
    /// Each reference's collection number, or [`NIL_STRING`].
    collection_of: Vec<u32>,
    /// Each collection's last reference.
    last: Vec<u32>,
}

impl Tables {
    fn resolve(
        &mut self,
        file: HeapFile<'_>,
        (refs, width): (&[u8], usize),
        spare: Strings,
    ) -> Result<Strings> {
        if u32::try_from(refs.len() / width).is_err() {
            return Err(Error::InvalidData(format!(
                "{} strings in one read",
                refs.len() / width
            )));
        }
        // A reference: count (4 bytes), collection address, object index (4 bytes).
        let offset_size = width.saturating_sub(8);
        let address_of = |r: &[u8]| read_length(&r[4..4 + offset_size]);
        let index_of = |r: &[u8]| read_length(&r[4 + offset_size..]) as u32;
        let Tables {
            closed,
            open,
            numbers,
            collection_of,
            last,
        } = self;
        numbers.clear();
        collection_of.clear();
        last.clear();
        // Each string's collection, each collection's last string, the bytes counted.
        let file_len = file.reader.len();
        let mut counted = 0u64;
        for (i, r) in refs.chunks_exact(width).enumerate() {
            let address = address_of(r);
            let index = index_of(r);
            let nil = Cursor::is_undefined_offset(address, offset_size as u8)
                || address == 0
                || index == 0;
            if nil {
                collection_of.push(NIL_STRING);
                continue;
            }
            // A count longer than the file is damage, found before memory is asked for.
            let count = read_length(&r[..4]);
            if count > file_len {
                return Err(Error::InvalidData(format!(
                    "vlen heap object {index} at {address:#x}: a string of {count} bytes in a file of {file_len}"
                )));
            }
            counted = counted.saturating_add(count);
            let c = numbers.of(address);
            collection_of.push(c);
            match last.get_mut(c as usize) {
                Some(l) => *l = i as u32,
                None => {
                    // Numbers are given in the order first met: a new one is the next.
                    debug_assert_eq!(c as usize, last.len());
                    last.push(i as u32);
                }
            }
        }
        if file.remote {
            prefetch(file, closed, &numbers.addresses)?;
        }
        // Memory for what the references count, asked for once (counts adding up to
        // more than memory, one large object referenced over and over, are an error
        // here), with room for `push_from`'s copies; a count past what its object holds
        // is an error below, so no string grows it.
        let room = counted.saturating_add(Strings::PUSH_ROOM as u64);
        let mut strings = Strings::reusing(spare, collection_of.len(), room)?;
        open.clear();
        open.resize_with(numbers.addresses.len(), || None);
        let mut open_bytes = 0usize;
        for (i, (r, &c)) in refs
            .chunks_exact(width)
            .zip(collection_of.iter())
            .enumerate()
        {
            if c == NIL_STRING {
                strings.push(None);
                continue;
            }
            let c = c as usize;
            let address = numbers.addresses[c];
            // Borrowed where it is held (moving it out and back per string cost a
            // quarter of this loop).
            let collection: &Collection = match &mut open[c] {
                Some(collection) => collection,
                slot => {
                    // A closed collection is done with when this read does not name
                    // it or its last string here is behind.
                    let done = |a: u64| {
                        numbers
                            .numbers
                            .get(&a)
                            .is_none_or(|&n| last[n as usize] < i as u32)
                    };
                    let collection = reopen(closed, file, address, done)?;
                    open_bytes += collection.bytes.len();
                    slot.insert(collection)
                }
            };
            let index = index_of(r);
            let (start, held) = collection.object(index).ok_or_else(|| {
                Error::InvalidData(format!("missing vlen heap object {index} at {address:#x}"))
            })?;
            let count = read_length(&r[..4]);
            if count > u64::from(held) {
                return Err(Error::InvalidData(
                    "vlen heap object is shorter than its reference".into(),
                ));
            }
            // Inside the collection: its index holds only objects that are.
            strings.push_from(&collection.bytes[start as usize..], count as usize);
            if last[c] == i as u32 || open_bytes > OPEN_MAX {
                if let Some(collection) = open[c].take() {
                    open_bytes -= collection.bytes.len();
                    closed.push(collection);
                    if closed.len() > KEEP {
                        closed.remove(0);
                    }
                }
            }
        }
        Ok(strings)
    }
}

/// Fetch the collections at `addresses` not among `closed` together, headers first
/// and then the collections they size: a remote file otherwise costs two round trips
/// a collection, one after the other.
fn prefetch(file: HeapFile<'_>, closed: &[Collection], addresses: &[u64]) -> Result<()> {
    let io = |e: crate::store::StoreError| Error::InvalidData(e.to_string());
    let header_len = file.header_len() as u64;
    let wanted: Vec<u64> = addresses
        .iter()
        .copied()
        .filter(|&a| !closed.iter().any(|c| c.address == a))
        .collect();
    let headers: Vec<(u64, u64)> = wanted
        .iter()
        .filter_map(|&a| file.start(a))
        .map(|at| (at, header_len))
        .collect();
    file.reader.prefetch(&headers).map_err(io)?;
    // A header that cannot be read or is not one is reported by the read itself.
    let bodies: Vec<(u64, u64)> = wanted.iter().filter_map(|&a| file.header(a).ok()).collect();
    file.reader.prefetch(&bodies).map_err(io)
}

/// The collection at `address`: one of `closed`, or read into the buffers of the one
/// closed longest ago that this read is `done` with, or of the one closed longest ago
/// when [`KEEP`] are held (else into new ones).
///
/// Buffers are not left waiting for [`KEEP`] collections to be closed: those this read
/// is done with are of no use until the next read, which starts where this one ends
/// and so needs the ones closed last. (Waiting, a read of a million strings read every
/// other collection into new memory and dropped one: 15 MiB of fresh 64 KiB buffers.)
fn reopen(
    closed: &mut Vec<Collection>,
    file: HeapFile<'_>,
    address: u64,
    done: impl Fn(u64) -> bool,
) -> Result<Collection> {
    if let Some(k) = closed.iter().position(|c| c.address == address) {
        return Ok(closed.remove(k));
    }
    let spare = closed
        .iter()
        .position(|c| done(c.address))
        .or((closed.len() >= KEEP).then_some(0))
        .map(|k| closed.remove(k));
    Collection::read(file, address, spare)
}

/// Collection numbers by address, in the order first met.
#[derive(Default)]
struct Numbers {
    addresses: Vec<u64>,
    numbers: HashMap<u64, u32, BuildHasherDefault<AddressHasher>>,
    /// The last two addresses looked up and their numbers, the latest first: HDF5
    /// writes neighbouring strings into two collections in turn. (Address 0, where
    /// they start, is never looked up: it is a NIL string.)
    recent: [(u64, u32); 2],
}

impl Numbers {
    fn clear(&mut self) {
        self.addresses.clear();
        self.numbers.clear();
        self.recent = Default::default();
    }

    fn of(&mut self, address: u64) -> u32 {
        if self.recent[0].0 == address {
            return self.recent[0].1;
        }
        let number = if self.recent[1].0 == address {
            self.recent[1].1
        } else {
            let next = self.addresses.len() as u32;
            let number = *self.numbers.entry(address).or_insert(next);
            if number == next {
                self.addresses.push(address);
            }
            number
        };
        self.recent = [(address, number), self.recent[0]];
        number
    }
}

impl From<TooLarge> for Error {
    fn from(e: TooLarge) -> Error {
        Error::InvalidData(e.to_string())
    }
}

/// The lock's value, also after a panic elsewhere (the values stay whole).
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Hashes a collection's address (a file offset, already well spread) with one
/// multiplication: the default hasher cost more than the rest of the lookup.
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Collections read into new buffers on this thread (not those of one closed).
        pub(super) static FRESH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
    use crate::nc4::test_file::Memory;

    /// A collection's objects after its header, as HDF5 lays them out.
    fn objects(list: &[(u16, &[u8])]) -> Vec<u8> {
        let mut b = vec![0u8; 16];
        for (i, data) in list {
            b.extend_from_slice(&i.to_le_bytes());
            b.extend_from_slice(&[1, 0, 0, 0, 0, 0]);
            b.extend_from_slice(&(data.len() as u64).to_le_bytes());
            b.extend_from_slice(data);
            b.resize(b.len().div_ceil(8) * 8, 0);
        }
        b
    }

    fn index(b: &[u8]) -> Result<Objects> {
        let mut objects = Objects {
            first: 5,
            places: vec![(7, 7); 3],
        };
        index_objects(b, 16, 8, &mut objects)?;
        Ok(objects)
    }

    #[test]
    fn objects_are_found_by_index_in_any_order() {
        let b = objects(&[(3, b"three"), (1, b"one"), (2, b"a longer second one")]);
        let table = index(&b).unwrap();
        let get = |i: u32| {
            let (s, n) = table.get(i)?;
            Some(&b[s as usize..(s + n) as usize])
        };
        assert_eq!(get(1), Some(&b"one"[..]));
        assert_eq!(get(2), Some(&b"a longer second one"[..]));
        assert_eq!(get(3), Some(&b"three"[..]));
        assert_eq!(get(0), None);
        assert_eq!(get(4), None);
        // Numbered from where the heap's count stood, with a gap: no object below the
        // first, in the gap or past the last.
        let b = objects(&[(4096, b"a"), (4097, b"bc"), (4100, b"def")]);
        let table = index(&b).unwrap();
        let get = |i: u32| table.get(i).map(|(s, n)| &b[s as usize..(s + n) as usize]);
        assert_eq!(table.places.len(), 5);
        assert_eq!(get(4097), Some(&b"bc"[..]));
        assert_eq!(get(4100), Some(&b"def"[..]));
        assert_eq!([get(0), get(4095), get(4098), get(4101)], [None; 4]);
    }

    /// `m` as the heap file of a file with `base` and 8-byte lengths.
    fn heap(m: &Memory, base: u64, remote: bool) -> HeapFile<'_> {
        HeapFile {
            reader: m,
            base,
            length_size: 8,
            remote,
        }
    }

    #[test]
    fn collections_are_read_at_their_address_after_the_base() {
        // A user block of 512 bytes, then the collection at address 64.
        let mut file = vec![0u8; 512 + 64];
        file.extend_from_slice(&collection_bytes(&[(1, b"one"), (2, b"two")]));
        let m = Memory::new(file);
        let c = Collection::read(heap(&m, 512, false), 64, None).unwrap();
        let text = |i| {
            c.object(i)
                .map(|(s, n)| &c.bytes[s as usize..(s + n) as usize])
        };
        assert_eq!(text(2), Some(&b"two"[..]));
        // Without the base the signature is not there; past the end is an error.
        assert!(Collection::read(heap(&m, 0, false), 64, None).is_err());
        assert!(Collection::read(heap(&m, 512, false), u64::MAX - 4, None).is_err());
        let reused = Collection::read(heap(&m, 512, false), 64, Some(c)).unwrap();
        assert_eq!(reused.object(1).map(|(_, n)| n), Some(3));
    }

    /// A collection of `list` as a file holds it, for placing at an address.
    fn collection_bytes(list: &[(u16, &[u8])]) -> Vec<u8> {
        let mut body = objects(list);
        body[..4].copy_from_slice(SIGNATURE);
        body[4] = 1;
        let size = body.len() as u64;
        body[8..16].copy_from_slice(&size.to_le_bytes());
        body
    }

    /// A reference of 16 bytes: count, collection address, object index.
    fn reference(count: u32, address: u64, index: u32) -> Vec<u8> {
        let mut r = count.to_le_bytes().to_vec();
        r.extend_from_slice(&address.to_le_bytes());
        r.extend_from_slice(&index.to_le_bytes());
        r
    }

    #[test]
    fn strings_come_back_in_their_references_order() {
        let a = collection_bytes(&[(2, b"two"), (1, b"one")]);
        let b = collection_bytes(&[(5, b"five"), (1, b"uno")]);
        let mut file = vec![0u8; 64];
        file.extend_from_slice(&a);
        let at_b = file.len() as u64;
        file.extend_from_slice(&b);
        let m = Memory::new(file);
        let refs: Vec<u8> = [
            reference(3, 64, 1),
            reference(0, 0, 0),
            reference(4, at_b, 5),
            reference(3, 64, 2),
            reference(2, at_b, 1),
            reference(3, 64, 1),
            reference(0, u64::MAX, 7),
        ]
        .concat();
        let mut tables = Tables::default();
        let file = heap(&m, 0, false);
        let s = tables.resolve(file, (&refs, 16), Strings::new()).unwrap();
        let want: Vec<Option<&[u8]>> = vec![
            Some(b"one"),
            None,
            Some(b"five"),
            Some(b"two"),
            Some(b"un"),
            Some(b"one"),
            None,
        ];
        assert_eq!(s, Strings::from(want));
        // A second read keeps the collections (no read), and reuses the strings' memory.
        let (reads, again) = (
            m.reads(),
            [reference(4, at_b, 5), reference(3, 64, 2)].concat(),
        );
        let s = tables.resolve(file, (&again, 16), s).unwrap();
        let want: Vec<Option<&[u8]>> = vec![Some(b"five"), Some(b"two")];
        assert_eq!(s, Strings::from(want));
        assert_eq!(m.reads(), reads);
        // An object not there, a count past the object, a count past the file.
        let err = |refs: Vec<u8>| {
            Tables::default()
                .resolve(file, (&refs, 16), Strings::new())
                .unwrap_err()
                .to_string()
        };
        assert!(err(reference(3, 64, 9)).contains("missing vlen heap object 9"));
        assert!(err(reference(4, 64, 2)).contains("shorter than its reference"));
        let huge = [reference(3, 64, 1), reference(u32::MAX, 64, 1)].concat();
        assert!(err(huge).contains("a string of 4294967295 bytes in a file of"));
    }

    #[test]
    fn interleaved_collections_are_read_once_each_and_fetched_together_when_remote() {
        // Six collections of different sizes, strings of 0 to 40 bytes, referenced in
        // turn three times over: more collections than are kept between reads.
        let text = |c: usize, k: usize| format!("{c}:{k}:{}", "x".repeat((c * 7 + k * 5) % 38));
        let mut file = vec![0u8; 8];
        let mut at = Vec::new();
        for c in 0..6 {
            at.push(file.len() as u64);
            let strings: Vec<String> = (0..3).map(|k| text(c, k)).collect();
            let list: Vec<(u16, &[u8])> = (0..3)
                .map(|k| (k as u16 + 1, strings[k].as_bytes()))
                .collect();
            file.extend_from_slice(&collection_bytes(&list));
        }
        let m = Memory::new(file);
        let mut refs = Vec::new();
        let mut want = Vec::new();
        for k in 0..3 {
            for (c, &address) in at.iter().enumerate() {
                let t = text(c, k);
                refs.extend_from_slice(&reference(t.len() as u32, address, k as u32 + 1));
                want.push(Some(t.into_bytes()));
            }
        }
        for remote in [false, true] {
            let before = m.reads();
            let s = Tables::default()
                .resolve(heap(&m, 0, remote), (&refs, 16), Strings::new())
                .unwrap();
            assert_eq!(s, Strings::from(want.clone()));
            // Each collection's header and body once; remote, six more header reads
            // to size what is fetched, after both were asked for together.
            let extra = if remote { 6 } else { 0 };
            assert_eq!(m.reads() - before, 12 + extra);
        }
        let asked = lock(&m.prefetched).clone();
        assert_eq!(asked.len(), 2);
        assert_eq!(asked[0], at.iter().map(|&a| (a, 16)).collect::<Vec<_>>());
        assert_eq!(asked[1].len(), 6);
        assert!(asked[1]
            .iter()
            .zip(&at)
            .all(|(&(o, n), &a)| o == a && n > 16));
    }

    #[test]
    fn collections_read_one_after_another_reuse_the_buffers_of_those_closed() {
        // Twelve collections, each one's strings referenced together, in order (as HDF5
        // writes a variable's strings), the last two in a second read.
        let mut file = vec![0u8; 8];
        let mut at = Vec::new();
        for c in 0..12 {
            at.push(file.len() as u64);
            let s = format!("string of collection {c}");
            file.extend_from_slice(&collection_bytes(&[(1, s.as_bytes()), (2, b"x")]));
        }
        let m = Memory::new(file);
        let refs_of = |cs: std::ops::Range<usize>| -> Vec<u8> {
            cs.flat_map(|c| {
                let n = format!("string of collection {c}").len() as u32;
                [reference(n, at[c], 1), reference(1, at[c], 2)].concat()
            })
            .collect()
        };
        let mut tables = Tables::default();
        let file = heap(&m, 0, false);
        FRESH.with(|n| n.set(0));
        let s = tables
            .resolve(file, (&refs_of(0..10), 16), Strings::new())
            .unwrap();
        assert_eq!(s.len(), 20);
        assert_eq!(s.value(18), Some(&b"string of collection 9"[..]));
        // One collection is open at a time: after the first, each is read into the
        // buffers of the one before it.
        assert_eq!(FRESH.with(std::cell::Cell::get), 1);
        assert!(tables.closed.len() <= KEEP);
        let s = tables.resolve(file, (&refs_of(10..12), 16), s).unwrap();
        assert_eq!(s.value(2), Some(&b"string of collection 11"[..]));
        assert_eq!(FRESH.with(std::cell::Cell::get), 1);
    }

    #[test]
    fn free_space_ends_the_walk_and_overruns_are_errors() {
        let mut b = objects(&[(1, b"x")]);
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&objects(&[(2, b"hidden")])[16..]);
        assert_eq!(index(&b).unwrap().places.len(), 1);
        let mut bad = objects(&[(1, b"abc")]);
        bad[24..32].copy_from_slice(&1000u64.to_le_bytes());
        assert!(index(&bad).is_err());
    }
}
