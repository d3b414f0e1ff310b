//! Variable-length strings resolved through HDF5 global heap collections, a few
//! collections held at a time and their objects found by index in constant time, into
//! one [`Strings`] block.
//!
//! `hdf5-reader` finds an object by its position and, when the position is not the
//! index, by a scan of the collection: netcdf-c's heaps do not keep objects in index
//! order, so a million strings cost a million scans (most of a string dump's time).
//! Here a collection is walked once into a table from index to its bytes. (The
//! crate's `GlobalHeapCollection::parse_at_storage` would also do for the walk, but
//! copies every object into a `Vec` of its own: a second allocation per string.)

use std::collections::VecDeque;
use std::sync::Mutex;

use hdf5_reader::error::{Error, Result};
use hdf5_reader::io::Cursor;
use hdf5_reader::Hdf5File;

use super::collection::{io, read_length, Collection, HeapFile, Objects};
use crate::model::{Strings, TooLarge};
use crate::store::ReadAt;

/// The strings `refs` names: references of `width` bytes (length, collection
/// address, object index) end to end, as the file stores them, in the memory of
/// `spare`. A collection is read when a string in it is met (or kept from the read
/// before), into the buffers of the one in hand longest ago once a few are held: HDF5
/// writes neighbouring strings into two collections in turn, so a few buffers serve a
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

/// Collections held at first (see [`Tables::cap`]): the two strings alternate between
/// and those a read came from, whose buffers the next ones are read into.
const KEEP: usize = 4;

/// Memory of collections held from one read to the next at most (more: only the
/// [`KEEP`] in hand last are). A variable's next slab comes back to most of them: HDF5
/// puts a short string into any of the last 16 collections with room for it, so a
/// million strings came back to a collection let go 39 times in 40 slabs, each time
/// held afresh in new memory (fresh pages cost more here than reading). A read holds
/// about 8 collections of 64 KiB (netcdf-c's) and their tables: under 1 MiB. Each read
/// made at once keeps its own (one per worker of a printer).
const HOLD_BETWEEN: usize = 2 << 20;

/// Bytes of collections held at most: references that interleave more collections
/// than that have the others read again when next named.
const OPEN_MAX: usize = 256 << 20;

/// Collections held at most by one read, whatever their bytes (each string in none in
/// hand looks through them all).
const HELD_MAX: usize = 256;

/// Collections let go whose addresses are remembered, to notice a read that comes back
/// to one (more are interleaved than are held).
const LET_GO: usize = 64;

/// What reads of strings keep from one to the next: the collections last read, their
/// buffers the next ones' to read into; one set per read made at once (a printer reads
/// a slab on each of its workers).
#[derive(Default)]
pub(super) struct Heaps {
    tables: Mutex<Vec<Tables>>,
}

#[derive(Default)]
struct Tables {
    /// Collections held, each in the place it was first read into (a read keeps two in
    /// hand by place).
    held: Vec<Collection>,
    /// The bytes of `held`.
    held_bytes: usize,
    /// When each of `held` was last taken in hand, by `clock`.
    used: Vec<u64>,
    clock: u64,
    /// Collections a read holds at most: [`KEEP`] (0 before the first read), doubled
    /// each time a read comes back to more than half as many as it holds of those it
    /// let go, up to [`HELD_MAX`] and while they stay under [`OPEN_MAX`] bytes. HDF5
    /// writes a variable's strings into two collections in turn, one after the other;
    /// a file that interleaves more costs a second read of some, not one read a string.
    /// Kept for the next read while the memory of what is held stays within
    /// [`HOLD_BETWEEN`] bytes; [`KEEP`] again when it does not.
    cap: usize,
    /// Collections let go that this read came back to since it began or `cap` last
    /// grew. A few per read are no reason to hold more: HDF5 puts a short string into
    /// any of its last 16 collections with room, so a million strings came back to one
    /// or two old collections a read whatever was held, and doubling at each such
    /// return held 64 collections per reader (12 MiB in all) for no fewer reads than 8.
    read_again: usize,
    /// The addresses of the last [`LET_GO`] collections let go, the oldest first.
    let_go: VecDeque<u64>,
}

/// A reference to a string of `W` bytes: its length (4 bytes), its collection's
/// address (`W - 8`), the object's index (4).
struct Reference {
    count: u64,
    address: u64,
    index: u32,
}

impl Reference {
    /// Read with lengths known to the compiler: one load each.
    #[inline(always)]
    fn of<const W: usize>(r: &[u8; W]) -> Reference {
        Reference {
            count: read_length(&r[..4]),
            address: read_length(&r[4..W - 4]),
            index: read_length(&r[W - 4..]) as u32,
        }
    }

    /// True when it names no string: no collection, or object 0 (free space).
    #[inline(always)]
    fn is_nil<const W: usize>(&self) -> bool {
        Cursor::is_undefined_offset(self.address, (W - 8) as u8)
            || self.address == 0
            || self.index == 0
    }
}

/// A collection in hand, borrowed for the strings it holds (address 0: none, as no
/// reference that names a string has it).
#[derive(Clone, Copy)]
struct Hand<'a> {
    address: u64,
    bytes: &'a [u8],
    objects: &'a Objects,
}

static NO_OBJECTS: Objects = Objects::NONE;

impl<'a> Hand<'a> {
    fn of(collection: Option<&'a Collection>) -> Hand<'a> {
        match collection {
            Some(c) => Hand {
                address: c.address,
                bytes: &c.bytes,
                objects: &c.objects,
            },
            None => Hand {
                address: 0,
                bytes: &[],
                objects: &NO_OBJECTS,
            },
        }
    }
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
        // Offsets of 2, 4 or 8 bytes, as HDF5 has them.
        match width {
            16 => self.resolve_as::<16>(file, refs, spare),
            12 => self.resolve_as::<12>(file, refs, spare),
            10 => self.resolve_as::<10>(file, refs, spare),
            w => Err(Error::InvalidData(format!("string reference of {w} bytes"))),
        }
    }

    /// [`Tables::resolve`] of references of `W` bytes: their counts summed first (the
    /// strings' memory is asked for once), then each string resolved in one pass, taken
    /// from one of the two collections in hand (those HDF5 writes neighbouring strings
    /// into); only a string in neither stops the loop.
    fn resolve_as<const W: usize>(
        &mut self,
        file: HeapFile<'_>,
        refs: &[u8],
        spare: Strings,
    ) -> Result<Strings> {
        let (refs, _) = refs.as_chunks::<W>();
        let counted = counted::<W>(file, refs)?;
        self.cap = self.cap.max(KEEP);
        self.read_again = 0;
        if file.remote {
            self.prefetch_for::<W>(file, refs)?;
        }
        // Memory for what the references count, asked for once (counts adding up to
        // more than memory, one large object referenced over and over, are an error
        // here), with room for `push_from`'s copies; a count past what its object holds
        // is an error below, so no string grows it.
        let room = counted.saturating_add(Strings::PUSH_ROOM as u64);
        let mut strings = Strings::reusing(spare, refs.len(), room)?;
        // The places in `held` of the collections in hand, the latest first.
        let mut hands = [usize::MAX; 2];
        let mut i = 0;
        loop {
            let (h0, h1) = (
                Hand::of(self.held.get(hands[0])),
                Hand::of(self.held.get(hands[1])),
            );
            // The strings up to one in neither collection in hand (its address).
            let missed = loop {
                let Some(r) = refs.get(i) else { break None };
                let r = Reference::of(r);
                if r.is_nil::<W>() {
                    strings.push(None);
                    i += 1;
                    continue;
                }
                let hand = if r.address == h0.address {
                    h0
                } else if r.address == h1.address {
                    h1
                } else {
                    break Some(r.address);
                };
                let (start, held) = hand.objects.get(r.index).ok_or_else(|| {
                    Error::InvalidData(format!(
                        "missing vlen heap object {} at {:#x}",
                        r.index, r.address
                    ))
                })?;
                if r.count > u64::from(held) {
                    return Err(Error::InvalidData(
                        "vlen heap object is shorter than its reference".into(),
                    ));
                }
                // Inside the collection: its index holds only objects that are.
                strings.push_from(&hand.bytes[start as usize..], r.count as usize);
                i += 1;
            };
            let Some(address) = missed else {
                self.between_reads();
                return Ok(strings);
            };
            hands = [self.take_in_hand(file, address, hands[0])?, hands[0]];
        }
    }

    /// The place in `held` of the collection at `address`: held already, or read into
    /// new buffers while fewer than [`Tables::cap`] are held, or else into those of the
    /// one in hand longest ago that is not `keep`.
    fn take_in_hand(&mut self, file: HeapFile<'_>, address: u64, keep: usize) -> Result<usize> {
        self.clock += 1;
        if let Some(k) = self.held.iter().position(|c| c.address == address) {
            self.used[k] = self.clock;
            return Ok(k);
        }
        if self.let_go.contains(&address) {
            self.read_again += 1;
            if self.read_again > self.cap / 2 {
                self.cap = (self.cap * 2).min(HELD_MAX);
                self.read_again = 0;
            }
        }
        let reuse = (self.held.len() >= self.cap || self.held_bytes > OPEN_MAX)
            .then(|| {
                (0..self.held.len())
                    .filter(|&k| k != keep)
                    .min_by_key(|&k| self.used[k])
            })
            .flatten();
        let Some(k) = reuse else {
            let collection = Collection::read(file, address, None)?;
            self.held_bytes += collection.bytes.len();
            self.held.push(collection);
            self.used.push(self.clock);
            return Ok(self.held.len() - 1);
        };
        let old = std::mem::take(&mut self.held[k]);
        self.held_bytes -= old.bytes.len();
        // Once each: a collection let go again keeps its place (a ring of copies of a
        // few would forget the others).
        if !self.let_go.contains(&old.address) {
            if self.let_go.len() == LET_GO {
                self.let_go.pop_front();
            }
            self.let_go.push_back(old.address);
        }
        // Read into the buffers of the one let go; on an error its place is left empty
        // (address 0, which no string names).
        let collection = Collection::read(file, address, Some(old))?;
        self.held_bytes += collection.bytes.len();
        self.held[k] = collection;
        self.used[k] = self.clock;
        Ok(k)
    }

    /// A remote file: the collections the references name that are not held are
    /// fetched together, and as many are held for the read (each is fetched once).
    fn prefetch_for<const W: usize>(&mut self, file: HeapFile<'_>, refs: &[[u8; W]]) -> Result<()> {
        let mut addresses: Vec<u64> = Vec::new();
        for r in refs {
            let r = Reference::of(r);
            if !r.is_nil::<W>() && addresses.last() != Some(&r.address) {
                addresses.push(r.address);
            }
        }
        addresses.sort_unstable();
        addresses.dedup();
        self.cap = (addresses.len() + 2).clamp(KEEP, HELD_MAX);
        prefetch(file, &self.held, &addresses)
    }

    /// After a read: the collections held stay held for the next read while their
    /// bytes are few; else only the [`KEEP`] in hand last are (the next read starts
    /// where this one ended), in new places, and the next read learns its hold afresh.
    fn between_reads(&mut self) {
        // Memory, not the bytes read: a buffer keeps the room of the largest collection
        // it held.
        let memory: usize = self.held.iter().map(Collection::memory).sum();
        if memory <= HOLD_BETWEEN {
            return;
        }
        self.cap = KEEP;
        if self.held.len() <= KEEP {
            return;
        }
        self.let_go.clear();
        let mut order: Vec<usize> = (0..self.held.len()).collect();
        order.sort_unstable_by_key(|&k| std::cmp::Reverse(self.used[k]));
        let latest: Vec<(Collection, u64)> = order[..KEEP]
            .iter()
            .map(|&k| (std::mem::take(&mut self.held[k]), self.used[k]))
            .collect();
        (self.held, self.used) = latest.into_iter().unzip();
        self.held_bytes = self.held.iter().map(|c| c.bytes.len()).sum();
    }
}

/// The bytes `refs` count for their strings; a count longer than the file is damage,
/// found before memory is asked for.
fn counted<const W: usize>(file: HeapFile<'_>, refs: &[[u8; W]]) -> Result<u64> {
    let (mut counted, mut longest) = (0u64, 0u64);
    for r in refs {
        let r = Reference::of(r);
        let count = if r.is_nil::<W>() { 0 } else { r.count };
        counted = counted.saturating_add(count);
        longest = longest.max(count);
    }
    let file_len = file.reader.len();
    if longest > file_len {
        let r = refs
            .iter()
            .map(Reference::of)
            .find(|r| !r.is_nil::<W>() && r.count > file_len);
        if let Some(r) = r {
            return Err(Error::InvalidData(format!(
                "vlen heap object {} at {:#x}: a string of {} bytes in a file of {file_len}",
                r.index, r.address, r.count
            )));
        }
    }
    Ok(counted)
}

/// Fetch the collections at `addresses` not among `held` together, headers first
/// and then the collections they size: a remote file otherwise costs two round trips
/// a collection, one after the other.
fn prefetch(file: HeapFile<'_>, held: &[Collection], addresses: &[u64]) -> Result<()> {
    let header_len = file.header_len() as u64;
    let wanted: Vec<u64> = addresses
        .iter()
        .copied()
        .filter(|&a| !held.iter().any(|c| c.address == a))
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

impl From<TooLarge> for Error {
    fn from(e: TooLarge) -> Error {
        Error::InvalidData(e.to_string())
    }
}

/// The lock's value, also after a panic elsewhere (the values stay whole).
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::formats::nc4::collection::tests::{collection_bytes, heap, FRESH};
    use crate::formats::nc4::test_file::Memory;

    /// A file of `n` collections after 8 bytes, collection `c` holding the objects
    /// `objects(c)` gives: the file and each collection's address.
    fn collections_file(
        n: usize,
        objects: impl Fn(usize) -> Vec<(u16, Vec<u8>)>,
    ) -> (Memory, Vec<u64>) {
        let mut file = vec![0u8; 8];
        let mut at = Vec::new();
        for c in 0..n {
            at.push(file.len() as u64);
            let list = objects(c);
            let list: Vec<(u16, &[u8])> = list.iter().map(|(i, b)| (*i, &b[..])).collect();
            file.extend_from_slice(&collection_bytes(&list));
        }
        (Memory::new(file), at)
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

    /// The strings a read should give.
    type Wanted = Vec<Option<Vec<u8>>>;

    /// Six collections of different sizes, strings of 0 to 40 bytes, referenced in turn
    /// three times over (more collections than are held at first): the file, each
    /// collection's address, the references and the strings they name.
    fn interleaved() -> (Memory, Vec<u64>, Vec<u8>, Wanted) {
        let text = |c: usize, k: usize| format!("{c}:{k}:{}", "x".repeat((c * 7 + k * 5) % 38));
        let (m, at) = collections_file(6, |c| {
            (0..3)
                .map(|k| (k as u16 + 1, text(c, k).into_bytes()))
                .collect()
        });
        let mut refs = Vec::new();
        let mut want = Vec::new();
        for k in 0..3 {
            for (c, &address) in at.iter().enumerate() {
                let t = text(c, k);
                refs.extend_from_slice(&reference(t.len() as u32, address, k as u32 + 1));
                want.push(Some(t.into_bytes()));
            }
        }
        (m, at, refs, want)
    }

    #[test]
    fn interleaved_collections_are_held_once_a_read_comes_back_to_them() {
        let (m, _, refs, want) = interleaved();
        let mut tables = Tables::default();
        let file = heap(&m, 0, false);
        let s = tables.resolve(file, (&refs, 16), Strings::new()).unwrap();
        assert_eq!(s, Strings::from(want.clone()));
        // Each collection's header and body, and again for the three let go that the
        // read came back to (more than half of the four held); from then on all six
        // are held.
        assert_eq!(m.reads(), 2 * (6 + 3));
        assert!(tables.cap >= 6, "{}", tables.cap);
        // Few bytes: all six stay held for the next read, which reads none.
        assert_eq!(tables.held.len(), 6);
        let before = m.reads();
        let s = tables.resolve(file, (&refs, 16), s).unwrap();
        assert_eq!(s, Strings::from(want));
        assert_eq!(m.reads(), before);
    }

    #[test]
    fn a_read_that_comes_back_to_few_collections_holds_no_more() {
        // Ten collections in order, then back to two of the first (as HDF5 puts a short
        // string into an old collection with room): they are read again, and the read
        // still holds KEEP, not twice as many.
        let (m, at) = collections_file(10, |c| vec![(1, format!("s{c}").into_bytes())]);
        let refs: Vec<u8> = (0..10)
            .chain([0, 1])
            .flat_map(|c| reference(2, at[c], 1))
            .collect();
        let mut tables = Tables::default();
        let file = heap(&m, 0, false);
        let s = tables.resolve(file, (&refs, 16), Strings::new()).unwrap();
        assert_eq!(s.value(11), Some(&b"s1"[..]));
        assert_eq!(tables.cap, KEEP);
        assert_eq!(tables.held.len(), KEEP);
        assert_eq!(m.reads(), 2 * KEEP + (10 - KEEP) + 2);
    }

    #[test]
    fn remote_collections_are_fetched_together_and_read_once_each() {
        let (m, at, refs, want) = interleaved();
        let s = Tables::default()
            .resolve(heap(&m, 0, true), (&refs, 16), Strings::new())
            .unwrap();
        assert_eq!(s, Strings::from(want));
        // Each collection's header and body once, and six header reads to size what
        // is fetched, after both were asked for together.
        assert_eq!(m.reads(), 12 + 6);
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
    fn collections_read_one_after_another_reuse_the_buffers_of_those_let_go() {
        // Twelve collections, each one's strings referenced together, in order (as HDF5
        // writes a variable's strings), the last two in a second read.
        let (m, at) = collections_file(12, |c| {
            vec![
                (1, format!("string of collection {c}").into_bytes()),
                (2, b"x".to_vec()),
            ]
        });
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
        // New buffers for the first few, each read as its header then its body; the
        // rest are read into those of the ones let go, each collection once, in one
        // read (they are all of one size).
        assert_eq!(FRESH.with(std::cell::Cell::get), KEEP);
        assert_eq!(tables.held.len(), KEEP);
        assert_eq!(m.reads(), 2 * KEEP + (10 - KEEP));
        let s = tables.resolve(file, (&refs_of(10..12), 16), s).unwrap();
        assert_eq!(s.value(2), Some(&b"string of collection 11"[..]));
        assert_eq!(FRESH.with(std::cell::Cell::get), KEEP);
    }

    #[test]
    fn a_read_that_fails_leaves_the_tables_fit_for_the_next() {
        // KEEP good collections held, then one read into the buffers of one let go
        // fails (nothing at its address): the tables stay whole for the next read.
        let (m, at) = collections_file(KEEP, |c| vec![(1, format!("string {c}").into_bytes())]);
        let file = heap(&m, 0, false);
        let mut tables = Tables::default();
        let good: Vec<u8> = at.iter().flat_map(|&a| reference(8, a, 1)).collect();
        tables.resolve(file, (&good, 16), Strings::new()).unwrap();
        assert_eq!(tables.held.len(), KEEP);
        let bad = [good.clone(), reference(8, 1 << 20, 1)].concat();
        assert!(tables.resolve(file, (&bad, 16), Strings::new()).is_err());
        let bytes: usize = tables.held.iter().map(|c| c.bytes.len()).sum();
        assert_eq!(tables.held_bytes, bytes);
        let s = tables.resolve(file, (&good, 16), Strings::new()).unwrap();
        assert_eq!(
            s.value(KEEP - 1),
            Some(format!("string {}", KEEP - 1).as_bytes())
        );
    }

    #[test]
    fn references_of_12_bytes_name_their_strings_and_nil_ones_none() {
        // Offsets of 4 bytes: count, a 4-byte address (all ones: undefined), index.
        let mut file = vec![0u8; 8];
        file.extend_from_slice(&collection_bytes(&[(1, b"one"), (2, b"two")]));
        let m = Memory::new(file);
        let r12 = |count: u32, address: u32, index: u32| {
            [
                count.to_le_bytes(),
                address.to_le_bytes(),
                index.to_le_bytes(),
            ]
            .concat()
        };
        let refs = [
            r12(3, 8, 2),
            r12(0, u32::MAX, 1),
            r12(3, 8, 1),
            r12(0, 0, 0),
        ]
        .concat();
        let s = Tables::default()
            .resolve(heap(&m, 0, false), (&refs, 12), Strings::new())
            .unwrap();
        let want: Vec<Option<&[u8]>> = vec![Some(b"two"), None, Some(b"one"), None];
        assert_eq!(s, Strings::from(want));
    }

    #[test]
    fn many_interleaved_collections_are_let_go_after_the_read_when_large() {
        // Reads that interleave 40 collections hold them while they read, a bounded
        // number; between reads, all of them while they are small, else only KEEP.
        for (padding, held) in [(1, 40), (HOLD_BETWEEN / 48, 40), (HOLD_BETWEEN / 32, KEEP)] {
            let (m, at) = collections_file(40, |c| {
                vec![
                    (1, format!("c{c:02}").into_bytes()),
                    (2, vec![b'y'; padding]),
                ]
            });
            let file = heap(&m, 0, false);
            let refs: Vec<u8> = (0..4)
                .flat_map(|_| at.iter().flat_map(|&a| reference(3, a, 1)))
                .collect();
            let mut tables = Tables::default();
            let s = tables.resolve(file, (&refs, 16), Strings::new()).unwrap();
            assert_eq!(s.value(41), Some(&b"c01"[..]));
            assert_eq!(tables.held.len(), held);
            if held == KEEP {
                // The last ones read are those held, and the next read learns afresh.
                assert!(tables.held.iter().all(|c| at[36..].contains(&c.address)));
                assert_eq!(tables.cap, KEEP);
            } else {
                assert!(tables.cap >= 40 && tables.cap <= HELD_MAX, "{}", tables.cap);
                // The next read reads none.
                let before = m.reads();
                let s = tables.resolve(file, (&refs, 16), s).unwrap();
                assert_eq!(s.value(41), Some(&b"c01"[..]));
                assert_eq!(m.reads(), before);
            }
        }
    }
}
