//! HDF5 global heap collections: one read whole, and its objects indexed by number
//! in a table (not found by a scan each: see [`super::heap`]).

use hdf5_reader::error::{Error, Result};

use crate::store::ReadAt;

/// Bytes of a collection header: `GCOL`, version, 3 reserved, then its size.
const SIGNATURE: &[u8; 4] = b"GCOL";

/// Where the collections are: the file, the base their addresses count from (after a
/// user block), the size of a length, and whether each read is a request (then the
/// collections a read needs are fetched together first).
#[derive(Clone, Copy)]
pub(super) struct HeapFile<'a> {
    pub(super) reader: &'a dyn ReadAt,
    pub(super) base: u64,
    pub(super) length_size: usize,
    pub(super) remote: bool,
}

impl HeapFile<'_> {
    /// Bytes of a collection's header: signature, version, reserved, size.
    pub(super) fn header_len(&self) -> usize {
        8 + self.length_size.min(8)
    }

    /// Where the collection at `address` starts, with its header inside the file.
    pub(super) fn start(&self, address: u64) -> Option<u64> {
        let header = self.header_len() as u64;
        self.base.checked_add(address).filter(|at| {
            at.checked_add(header)
                .is_some_and(|end| end <= self.reader.len())
        })
    }

    /// Where the collection at `address` starts and its size in bytes, from its header,
    /// checked: a collection's read and the prefetch of its bytes both size it so.
    pub(super) fn header(&self, address: u64) -> Result<(u64, u64)> {
        let mut header = [0u8; 16];
        let header = &mut header[..self.header_len()];
        let at = self.start_of(address)?;
        self.reader.read_at(at, header).map_err(io)?;
        Ok((at, self.size_in(address, at, header)?))
    }

    /// [`HeapFile::start`], or the error of an address past the end.
    fn start_of(&self, address: u64) -> Result<u64> {
        // Addresses are relative to the superblock's base (after a user block), as
        // `hdf5-reader`'s own reads take them.
        self.start(address).ok_or_else(|| {
            Error::InvalidData(format!(
                "global heap collection at {address:#x} lies past the end of the file"
            ))
        })
    }

    /// The size of the collection at `address` (starting at `at` in the file) that
    /// `header` (its first [`HeapFile::header_len`] bytes) gives, checked.
    fn size_in(&self, address: u64, at: u64, header: &[u8]) -> Result<u64> {
        if &header[..4] != SIGNATURE {
            return Err(Error::InvalidGlobalHeapSignature);
        }
        if header[4] != 1 {
            return Err(Error::UnsupportedGlobalHeapVersion(header[4]));
        }
        let size = read_length(&header[8..self.header_len()]);
        if size > self.reader.len() - at || size > u64::from(u32::MAX) {
            return Err(Error::InvalidData(format!(
                "global heap collection at {address:#x} claims {size} bytes"
            )));
        }
        Ok(size)
    }
}

/// A store's read error as the heap's (taken out again as the store's by the source).
pub(super) fn io(e: crate::store::StoreError) -> Error {
    super::fault::to_hdf5(e)
}

/// A collection read into the buffers of another is read as many bytes at once as that
/// one had, header and all, up to this many: a file's collections are mostly of one
/// size (64 KiB in netcdf-c's), so one read takes the whole of most, not a read of its
/// header first and then one of its body (half the system calls of a string dump).
const ONE_READ_MAX: u64 = 1 << 20;

/// One collection: its bytes and, by object index, where each object's data lies.
#[derive(Default)]
pub(super) struct Collection {
    pub(super) address: u64,
    pub(super) bytes: Vec<u8>,
    pub(super) objects: Objects,
}

/// Where each object of a collection lies, by index.
///
/// HDF5 numbers a collection's objects one after another from where its count stood
/// (4096 and up in netcdf-c's files, not 1), so the table starts at the lowest index:
/// one indexed from 0 cleared thousands of empty places per collection.
#[derive(Default)]
pub(super) struct Objects {
    /// The index of `places[0]`.
    first: usize,
    /// `(start, len)` of object `first + i` at `i`; `len == u32::MAX` where there is
    /// none.
    places: Vec<(u32, u32)>,
}

const ABSENT: (u32, u32) = (0, u32::MAX);

impl Objects {
    /// No objects.
    pub(super) const NONE: Objects = Objects {
        first: 0,
        places: Vec::new(),
    };

    fn clear(&mut self) {
        self.places.clear();
    }

    /// Object `index` lies at `place`.
    #[inline(always)]
    fn set(&mut self, index: usize, place: (u32, u32)) {
        // Objects come in turn: the common case is a push, in the walk's loop.
        if !self.places.is_empty() && index.wrapping_sub(self.first) == self.places.len() {
            self.places.push(place);
        } else {
            self.set_out_of_turn(index, place);
        }
    }

    /// [`Objects::set`] of the first object, or of one not next in turn.
    #[cold]
    fn set_out_of_turn(&mut self, index: usize, place: (u32, u32)) {
        if self.places.is_empty() {
            self.first = index;
        } else if index < self.first {
            // Below the first met (not how HDF5 writes): the table moves up.
            let below = self.first - index;
            self.places.splice(0..0, std::iter::repeat_n(ABSENT, below));
            self.first = index;
        }
        let at = index - self.first;
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
    pub(super) fn get(&self, index: u32) -> Option<(u32, u32)> {
        (index as usize)
            .checked_sub(self.first)
            .and_then(|at| self.places.get(at))
            .copied()
            .filter(|&(_, len)| len != u32::MAX)
    }
}

impl Collection {
    /// The memory its buffers take.
    pub(super) fn memory(&self) -> usize {
        self.bytes.capacity() + self.objects.places.capacity() * std::mem::size_of::<(u32, u32)>()
    }

    /// The collection at `address`, read into the buffers of `spare` (one read before).
    pub(super) fn read(
        file: HeapFile<'_>,
        address: u64,
        spare: Option<Collection>,
    ) -> Result<Collection> {
        let (reader, length_size) = (file.reader, file.length_size);
        #[cfg(test)]
        if spare.is_none() {
            tests::FRESH.with(|n| n.set(n.get() + 1));
        }
        let (mut bytes, mut objects) =
            spare.map_or_else(Default::default, |c| (c.bytes, c.objects));
        let at = file.start_of(address)?;
        // As many bytes as the buffer held (not from a remote file, where a read past
        // the collection is a request for bytes no one wants), within the file.
        let guess = (bytes.len() as u64)
            .min(ONE_READ_MAX)
            .min(reader.len() - at)
            .max(file.header_len() as u64) as usize;
        let (head, size) = if !file.remote && guess > file.header_len() {
            bytes.truncate(guess);
            reader.read_at(at, &mut bytes).map_err(io)?;
            (guess, file.size_in(address, at, &bytes)?)
        } else {
            (0, file.header(address)?.1)
        };
        // The rest of it (none, or the whole when the header was read alone) over
        // what the buffer held (only new room is cleared first); memory not to be had
        // is an error, not an abort.
        let (head, size) = (head.min(size as usize), size as usize);
        bytes.truncate(size);
        bytes
            .try_reserve(size - bytes.len())
            .map_err(|_| Error::InvalidData(format!("global heap collection at {address:#x} claims {size} bytes: more than memory allows")))?;
        bytes.resize(size, 0);
        if head < size {
            reader
                .read_at(at + head as u64, &mut bytes[head..])
                .map_err(io)?;
        }
        index_objects(&bytes, 8 + length_size, length_size, &mut objects)?;
        Ok(Collection {
            address,
            bytes,
            objects,
        })
    }
}

/// Little-endian unsigned of 1 to 8 bytes.
pub(super) fn read_length(b: &[u8]) -> u64 {
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
fn index_objects(bytes: &[u8], at: usize, length_size: usize, objects: &mut Objects) -> Result<()> {
    objects.clear();
    // Once per object of every collection read: sizes of 8 and 4 bytes (almost every
    // file) get a loop each with the header's width known, the size one load (the
    // general loop kept its bounds in memory, reloaded per object).
    match length_size {
        8 => walk_objects(bytes, at, 16, objects),
        4 => walk_objects(bytes, at, 12, objects),
        n => walk_objects(bytes, at, 8 + n, objects),
    }
}

/// [`index_objects`] with object headers of `head` bytes.
#[inline(always)]
fn walk_objects(bytes: &[u8], mut at: usize, head: usize, objects: &mut Objects) -> Result<()> {
    let len = bytes.len();
    while let Some(h) = bytes.get(at..at.saturating_add(head)) {
        let index = usize::from(u16::from_le_bytes([h[0], h[1]]));
        if index == 0 {
            break;
        }
        let size = read_length(&h[8..]);
        let start = at + head;
        let end = u64::try_from(start)
            .ok()
            .and_then(|s| s.checked_add(size))
            .filter(|&e| e <= len as u64)
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::formats::nc4::test_file::Memory;

    thread_local! {
        /// Collections read into new buffers on this thread (not those of one let go).
        pub(crate) static FRESH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

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
    pub(crate) fn heap(m: &Memory, base: u64, remote: bool) -> HeapFile<'_> {
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
            c.objects
                .get(i)
                .map(|(s, n)| &c.bytes[s as usize..(s + n) as usize])
        };
        assert_eq!(text(2), Some(&b"two"[..]));
        // Without the base the signature is not there; past the end is an error.
        assert!(Collection::read(heap(&m, 0, false), 64, None).is_err());
        assert!(Collection::read(heap(&m, 512, false), u64::MAX - 4, None).is_err());
        let reused = Collection::read(heap(&m, 512, false), 64, Some(c)).unwrap();
        assert_eq!(reused.objects.get(1).map(|(_, n)| n), Some(3));
    }

    #[test]
    fn a_collection_read_into_the_buffers_of_another_size_is_read_whole() {
        // A small collection, a larger one, a smaller one again, the last at the end
        // of the file: each read into the buffers of the one before.
        let long = vec![b'x'; 300];
        let lists: [&[(u16, &[u8])]; 3] = [
            &[(1, b"one"), (2, b"two")],
            &[(1, &long[..]), (2, b"second")],
            &[(7, b"seven")],
        ];
        let at: Vec<u64> = (0..lists.len())
            .map(|k| m_bytes(&lists[..k]).len() as u64)
            .collect();
        let m = Memory::new(m_bytes(&lists));
        let mut c = Collection::read(heap(&m, 0, false), at[0], None).unwrap();
        for (k, list) in lists.iter().enumerate() {
            let reads = m.reads();
            c = Collection::read(heap(&m, 0, false), at[k], Some(c)).unwrap();
            for (index, text) in list.iter() {
                let (s, n) = c.objects.get(u32::from(*index)).unwrap();
                assert_eq!(&c.bytes[s as usize..(s + n) as usize], *text, "{k}");
            }
            assert_eq!(c.bytes.len(), collection_bytes(list).len());
            // One read, but a second for the rest of one larger than the buffer.
            assert_eq!(m.reads() - reads, if k == 1 { 2 } else { 1 }, "{k}");
        }
        // A buffer larger than what is left of the file, over a damaged header.
        let mut bad = m_bytes(&lists);
        let last = bad.len() - collection_bytes(lists[2]).len();
        bad[last..last + 4].copy_from_slice(b"GCOX");
        let m = Memory::new(bad);
        let big = Collection::read(heap(&m, 0, false), at[1], None).unwrap();
        assert!(Collection::read(heap(&m, 0, false), at[2], Some(big)).is_err());
    }

    /// The file of collections `lists` after 8 bytes.
    fn m_bytes(lists: &[&[(u16, &[u8])]]) -> Vec<u8> {
        let mut file = vec![0u8; 8];
        for list in lists {
            file.extend_from_slice(&collection_bytes(list));
        }
        file
    }

    /// A collection of `list` as a file holds it, for placing at an address.
    pub(crate) fn collection_bytes(list: &[(u16, &[u8])]) -> Vec<u8> {
        let mut body = objects(list);
        body[..4].copy_from_slice(SIGNATURE);
        body[4] = 1;
        let size = body.len() as u64;
        body[8..16].copy_from_slice(&size.to_le_bytes());
        body
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
