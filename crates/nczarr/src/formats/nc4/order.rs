//! The creation order of an object's compact attributes.
//!
//! netcdf-c lists attributes in creation order (`H5Aiterate` on
//! `H5_INDEX_CRT_ORDER`). Attributes kept in the object header (up to eight, HDF5's
//! default) are messages whose order in the header is where free space was, not when
//! they were made: an attribute rewritten moves. A version 2 header that tracks
//! creation order stores each message's creation index in the message's own prefix,
//! which `hdf5-reader` reads past; this module reads the header once more for those
//! indexes. Attributes in dense storage come in creation order already.

use std::collections::HashMap;

use hdf5_reader::Storage;

/// Header bytes read at once: object headers are a few hundred bytes.
const READ: usize = 4096;

/// Continuation chunks followed at most (a damaged header cannot loop forever).
const MAX_CHUNKS: usize = 64;

/// Attribute names and their creation indexes, for the object header at `address`;
/// empty when the header does not track creation order (version 1 headers, or no
/// tracking), or cannot be read.
pub(super) fn attribute_creation_order(
    storage: &dyn Storage,
    address: u64,
    offset_size: u8,
    length_size: u8,
) -> HashMap<String, u16> {
    let mut out = HashMap::new();
    let _ = read_header(storage, address, offset_size, length_size, &mut out);
    out
}

fn read_at(storage: &dyn Storage, offset: u64, len: usize) -> Option<Vec<u8>> {
    let avail = storage.len().checked_sub(offset)?;
    let len = len.min(usize::try_from(avail).unwrap_or(usize::MAX));
    Some(storage.read_range(offset, len).ok()?.to_vec())
}

/// A little-endian unsigned integer of `size` bytes at `at`.
pub(super) fn uint(b: &[u8], at: usize, size: u8) -> Option<u64> {
    let bytes = b.get(at..at + usize::from(size))?;
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)),
    )
}

fn read_header(
    storage: &dyn Storage,
    address: u64,
    offset_size: u8,
    length_size: u8,
    out: &mut HashMap<String, u16>,
) -> Option<()> {
    let head = read_at(storage, address, READ)?;
    if head.get(..4)? != b"OHDR" || *head.get(4)? != 2 {
        return None;
    }
    let flags = *head.get(5)?;
    if flags & 0x04 == 0 {
        return None;
    }
    let mut at = 6;
    if flags & 0x20 != 0 {
        at += 16;
    }
    if flags & 0x10 != 0 {
        at += 4;
    }
    let size_len = 1u8 << (flags & 0x03);
    let chunk0 = usize::try_from(uint(&head, at, size_len)?).ok()?;
    at += usize::from(size_len);
    let mut chunks = vec![(address + at as u64, chunk0)];
    let mut seen = 0;
    while let Some((start, len)) = chunks.pop() {
        seen += 1;
        if seen > MAX_CHUNKS {
            return None;
        }
        let bytes = read_at(storage, start, len)?;
        messages(&bytes, offset_size, length_size, out, &mut chunks)?;
    }
    Some(())
}

/// The messages of one header chunk (without its signature and checksum).
fn messages(
    bytes: &[u8],
    offset_size: u8,
    length_size: u8,
    out: &mut HashMap<String, u16>,
    chunks: &mut Vec<(u64, usize)>,
) -> Option<()> {
    let mut at = 0;
    // Each message: type (1), size (2), flags (1), creation index (2), data.
    while at + 6 <= bytes.len() {
        let kind = bytes[at];
        let size = usize::from(u16::from_le_bytes([bytes[at + 1], bytes[at + 2]]));
        let flags = bytes[at + 3];
        let order = u16::from_le_bytes([bytes[at + 4], bytes[at + 5]]);
        let data = bytes.get(at + 6..at + 6 + size)?;
        at += 6 + size;
        match kind {
            // Attribute, stored in the header rather than shared.
            0x0C if flags & 0x02 == 0 => {
                if let Some(name) = attribute_name(data) {
                    out.insert(name, order);
                }
            }
            // Continuation: the next chunk starts with "OCHK" and ends with a checksum.
            0x10 => {
                let addr = uint(data, 0, offset_size)?;
                let len =
                    usize::try_from(uint(data, usize::from(offset_size), length_size)?).ok()?;
                if len > 8 {
                    chunks.push((addr + 4, len - 8));
                }
            }
            _ => {}
        }
    }
    Some(())
}

/// The name in an attribute message (versions 1 to 3).
pub(super) fn attribute_name(data: &[u8]) -> Option<String> {
    let version = *data.first()?;
    let name_len = usize::from(u16::from_le_bytes([*data.get(2)?, *data.get(3)?]));
    let start = match version {
        1 | 2 => 8,
        3 => 9,
        _ => return None,
    };
    let name = data.get(start..start + name_len)?;
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    Some(String::from_utf8_lossy(&name[..end]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_names_by_version() {
        // Version 3: version, flags, name size, datatype size, dataspace size, encoding.
        let mut v3 = vec![3, 0, 6, 0, 0, 0, 0, 0, 0];
        v3.extend_from_slice(b"units\0");
        assert_eq!(attribute_name(&v3).as_deref(), Some("units"));
        let mut v1 = vec![1, 0, 3, 0, 0, 0, 0, 0];
        v1.extend_from_slice(b"ab\0");
        assert_eq!(attribute_name(&v1).as_deref(), Some("ab"));
        assert_eq!(attribute_name(&[4, 0, 1, 0]), None);
        assert_eq!(attribute_name(&[3, 0, 200, 0, 0, 0, 0, 0, 0, b'x']), None);
    }
}
