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
use std::sync::{Arc, Mutex};

use hdf5_reader::error::{Error, Result};
use hdf5_reader::io::Cursor;
use hdf5_reader::Hdf5File;
use rayon::prelude::*;

use crate::model::{Strings, TooLarge};

/// Bytes of a collection header: `GCOL`, version, 3 reserved, then its size.
const SIGNATURE: &[u8; 4] = b"GCOL";

/// One collection: its bytes and, by object index, where each object's data lies.
struct Collection {
    address: u64,
    bytes: hdf5_reader::storage::StorageBuffer,
    /// `(start, len)` of object `i` at `i`; `len == u32::MAX` where there is none.
    objects: Vec<(u32, u32)>,
}

const ABSENT: (u32, u32) = (0, u32::MAX);

impl Collection {
    fn read(file: &Hdf5File, address: u64) -> Result<Collection> {
        let sb = file.superblock();
        let length_size = usize::from(sb.length_size);
        let storage = file.storage();
        let header = storage.read_range(address, 8 + length_size)?;
        let header = header.as_ref();
        if &header[..4] != SIGNATURE {
            return Err(Error::InvalidGlobalHeapSignature);
        }
        if header[4] != 1 {
            return Err(Error::UnsupportedGlobalHeapVersion(header[4]));
        }
        let size = read_length(&header[8..]);
        if size > storage.len() || size > u64::from(u32::MAX) {
            return Err(Error::InvalidData(format!(
                "global heap collection at {address:#x} claims {size} bytes"
            )));
        }
        let bytes = storage.read_range(address, size as usize)?;
        let objects = index_objects(bytes.as_ref(), 8 + length_size, length_size)?;
        Ok(Collection {
            address,
            bytes,
            objects,
        })
    }

    fn object(&self, index: u32) -> Option<&[u8]> {
        let &(start, len) = self.objects.get(index as usize)?;
        if len == u32::MAX {
            return None;
        }
        self.bytes
            .as_ref()
            .get(start as usize..start as usize + len as usize)
    }
}

/// Little-endian unsigned of 1 to 8 bytes.
fn read_length(b: &[u8]) -> u64 {
    b.iter()
        .take(8)
        .rev()
        .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

/// Walk the objects after the header: index (2 bytes), reference count (2), reserved
/// (4), size (`length_size`), data padded to 8 bytes; index 0 is the free space that
/// ends the collection.
fn index_objects(bytes: &[u8], mut at: usize, length_size: usize) -> Result<Vec<(u32, u32)>> {
    let mut objects = Vec::new();
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
        if objects.len() <= index {
            objects.resize(index + 1, ABSENT);
        }
        objects[index] = (start as u32, (end - start) as u32);
        at = end + ((8 - (end - start) % 8) % 8);
    }
    Ok(objects)
}

/// The strings `refs` names: references (length, collection address, object index)
/// as the file stores them, every collection read once (or kept from the read
/// before). Collections are read and strings copied out of them on every core.
pub(super) fn resolve<R: AsRef<[u8]> + Sync>(
    file: &Hdf5File,
    kept: &KeptCollections,
    refs: &[R],
) -> Result<Strings> {
    let offset_size = usize::from(file.superblock().offset_size);
    if let Some(r) = refs.first().filter(|r| r.as_ref().len() != 8 + offset_size) {
        return Err(Error::InvalidData(format!(
            "string reference of {} bytes",
            r.as_ref().len()
        )));
    }
    // Each string's collection (by number) and index; NIL strings have no number.
    let mut objects: Vec<(u32, u32)> = Vec::with_capacity(refs.len());
    let mut addresses: Vec<u64> = Vec::new();
    let mut numbers: HashMap<u64, u32, BuildHasherDefault<AddressHasher>> = HashMap::default();
    // Neighbours mostly share a collection.
    let mut last = (u64::MAX, 0u32);
    for r in refs {
        let r = r.as_ref();
        let address = read_length(&r[4..4 + offset_size]);
        let index = read_length(&r[4 + offset_size..]) as u32;
        let undefined = Cursor::is_undefined_offset(address, offset_size as u8);
        if undefined || index == 0 || address == 0 {
            objects.push((NIL, 0));
            continue;
        }
        if address != last.0 {
            let next = addresses.len() as u32;
            let number = *numbers.entry(address).or_insert(next);
            if number == next {
                addresses.push(address);
            }
            last = (address, number);
        }
        objects.push((last.1, index));
    }
    let collections = kept.collections(file, &addresses)?;
    // A string's length is its reference's count, but memory is taken only for what
    // its object holds: a damaged count is an error below, and lengths adding up to
    // more than memory (one large object referenced over and over) an error first.
    let count = |r: &R| read_length(&r.as_ref()[..4]) as usize;
    let lens = refs.iter().zip(&objects).map(|(r, &(number, index))| {
        (number != NIL).then(|| {
            let held = collections[number as usize]
                .object(index)
                .map_or(0, <[u8]>::len);
            count(r).min(held)
        })
    });
    Strings::fill_parallel(lens, |i, out| {
        let (number, index) = objects[i];
        let collection = &collections[number as usize];
        let object = collection.object(index).ok_or_else(|| {
            Error::InvalidData(format!(
                "missing vlen heap object {index} at {:#x}",
                collection.address
            ))
        })?;
        if count(&refs[i]) != out.len() {
            return Err(Error::InvalidData(
                "vlen heap object is shorter than its reference".into(),
            ));
        }
        out.copy_from_slice(&object[..out.len()]);
        Ok(())
    })
}

impl From<TooLarge> for Error {
    fn from(e: TooLarge) -> Error {
        Error::InvalidData(e.to_string())
    }
}

/// The collection number of a NIL string's reference.
const NIL: u32 = u32::MAX;

/// The collections of the last read of strings, for the next: a collection holds
/// strings of neighbouring slabs, which would otherwise be read again at every slab
/// boundary. Memory holds one read's collections at most.
#[derive(Default)]
pub(super) struct KeptCollections(Mutex<HashMap<u64, Arc<Collection>>>);

impl KeptCollections {
    /// The collections at `addresses`, kept or read (in parallel); they become the
    /// ones kept.
    fn collections(&self, file: &Hdf5File, addresses: &[u64]) -> Result<Vec<Arc<Collection>>> {
        let kept = std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
        let collections = addresses
            .par_iter()
            .map(|a| match kept.get(a) {
                Some(c) => Ok(Arc::clone(c)),
                None => Collection::read(file, *a).map(Arc::new),
            })
            .collect::<Result<Vec<_>>>()?;
        drop(kept);
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = addresses
            .iter()
            .copied()
            .zip(collections.iter().map(Arc::clone))
            .collect();
        Ok(collections)
    }
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

    #[test]
    fn objects_are_found_by_index_in_any_order() {
        let b = objects(&[(3, b"three"), (1, b"one"), (2, b"a longer second one")]);
        let table = index_objects(&b, 16, 8).unwrap();
        let get = |i: usize| {
            let (s, n) = table[i];
            (n != u32::MAX).then(|| &b[s as usize..(s + n) as usize])
        };
        assert_eq!(get(1), Some(&b"one"[..]));
        assert_eq!(get(2), Some(&b"a longer second one"[..]));
        assert_eq!(get(3), Some(&b"three"[..]));
        assert_eq!(get(0), None);
    }

    #[test]
    fn free_space_ends_the_walk_and_overruns_are_errors() {
        let mut b = objects(&[(1, b"x")]);
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&objects(&[(2, b"hidden")])[16..]);
        assert_eq!(index_objects(&b, 16, 8).unwrap().len(), 2);
        let mut bad = objects(&[(1, b"abc")]);
        bad[24..32].copy_from_slice(&1000u64.to_le_bytes());
        assert!(index_objects(&bad, 16, 8).is_err());
    }
}
