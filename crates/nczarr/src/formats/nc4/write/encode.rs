//! HDF5's on-disk structures as netcdf-c 4.9 writes them (superblock 2, object headers
//! 2, layout message 3, B-tree 1 chunk indexes): bytes only, no I/O. Addresses and
//! lengths are 8 bytes, little-endian, as HDF5 writes them on every machine.

/// HDF5's undefined address.
pub(super) const UNDEF: u64 = u64::MAX;

/// HDF5's unlimited maximum dimension length.
pub(super) const UNLIMITED: u64 = u64::MAX;

/// Bytes of a version 2 superblock.
pub(super) const SUPERBLOCK_LEN: u64 = 48;

/// HDF5's checksum of metadata (Jenkins' lookup3).
pub(super) fn checksum(bytes: &[u8]) -> u32 {
    hdf5_core::jenkins_lookup3(bytes)
}

/// The version 2 superblock of a file of `eof` bytes whose root group's header is at
/// `root`.
pub(super) fn superblock(root: u64, eof: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(SUPERBLOCK_LEN as usize);
    b.extend_from_slice(b"\x89HDF\r\n\x1a\n");
    b.extend_from_slice(&[2, 8, 8, 0]);
    for a in [0, UNDEF, eof, root] {
        b.extend_from_slice(&a.to_le_bytes());
    }
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// A datatype as HDF5 stores it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum H5Type {
    /// An integer of `size` bytes.
    Int { size: u8, signed: bool, big: bool },
    /// An IEEE float of 4 or 8 bytes.
    Float { size: u8, big: bool },
    /// A fixed-length string of `size` bytes, null-terminated (netCDF's char).
    Fixed { size: u32, utf8: bool },
    /// A variable-length string (netCDF's string).
    VlenString,
    /// An object reference (an object header's address).
    ObjectRef,
    /// A variable-length sequence of `base`.
    Vlen(Box<H5Type>),
    /// An enumeration over the integer type `base`: each member's name and value (as
    /// `base` stores it).
    Enum {
        base: Box<H5Type>,
        members: Vec<(String, Vec<u8>)>,
    },
    /// A compound of `size` bytes: (name, byte offset, type) per member.
    Compound {
        size: u32,
        members: Vec<(String, u32, H5Type)>,
    },
    /// Bytes of a fixed size, untagged (netcdf-c's opaque types).
    Opaque { size: u32 },
    /// A fixed-size array of `base` (a compound member with dimensions).
    Array { dims: Vec<u32>, base: Box<H5Type> },
}

impl H5Type {
    /// Bytes of one element in the file.
    pub(super) fn size(&self) -> u32 {
        match self {
            H5Type::Int { size, .. } | H5Type::Float { size, .. } => u32::from(*size),
            H5Type::Fixed { size, .. } => *size,
            H5Type::VlenString | H5Type::Vlen(_) => 16,
            H5Type::ObjectRef => 8,
            H5Type::Compound { size, .. } | H5Type::Opaque { size } => *size,
            H5Type::Enum { base, .. } => base.size(),
            H5Type::Array { dims, base } => dims.iter().product::<u32>() * base.size(),
        }
    }

    /// The datatype message.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        self.encode_into(&mut b);
        b
    }

    fn encode_into(&self, b: &mut Vec<u8>) {
        // Byte 0: class and version; bytes 1-3: the class's bits; then the size.
        let mut head = |class: u8, version: u8, bits: u32, size: u32| {
            b.push(class | (version << 4));
            b.extend_from_slice(&bits.to_le_bytes()[..3]);
            b.extend_from_slice(&size.to_le_bytes());
        };
        match self {
            H5Type::Int { size, signed, big } => {
                head(
                    0,
                    1,
                    u32::from(*big) | (u32::from(*signed) << 3),
                    u32::from(*size),
                );
                b.extend_from_slice(&0u16.to_le_bytes());
                b.extend_from_slice(&(u16::from(*size) * 8).to_le_bytes());
            }
            H5Type::Float { size, big } => {
                // IEEE: implied leading mantissa bit (normalization 2), sign in the top bit.
                let (exp_at, exp_len, mant_len, bias): (u8, u8, u8, u32) = if *size == 4 {
                    (23, 8, 23, 127)
                } else {
                    (52, 11, 52, 1023)
                };
                let sign_at = u32::from(*size) * 8 - 1;
                head(
                    1,
                    1,
                    u32::from(*big) | 0x20 | (sign_at << 8),
                    u32::from(*size),
                );
                b.extend_from_slice(&0u16.to_le_bytes());
                b.extend_from_slice(&(u16::from(*size) * 8).to_le_bytes());
                b.extend_from_slice(&[exp_at, exp_len, 0, mant_len]);
                b.extend_from_slice(&bias.to_le_bytes());
            }
            H5Type::Fixed { size, utf8 } => head(3, 1, u32::from(*utf8) << 4, *size),
            H5Type::VlenString => {
                // A sequence of characters (type 1), null-terminated, UTF-8, over the
                // one-byte unsigned base HDF5 gives strings.
                head(9, 1, 1 | (1 << 8), 16);
                H5Type::Int {
                    size: 1,
                    signed: false,
                    big: false,
                }
                .encode_into(b);
            }
            H5Type::ObjectRef => head(7, 1, 0, 8),
            H5Type::Vlen(base) => {
                head(9, 1, 0, 16);
                base.encode_into(b);
            }
            H5Type::Enum { base, members } => {
                // Version 3: names null-terminated, not padded.
                head(8, 3, members.len() as u32, base.size());
                base.encode_into(b);
                for (name, _) in members {
                    b.extend_from_slice(name.as_bytes());
                    b.push(0);
                }
                for (_, value) in members {
                    b.extend_from_slice(value);
                }
            }
            H5Type::Compound { size, members } => {
                head(6, 3, members.len() as u32, *size);
                let width = offset_width(u64::from(*size));
                for (name, at, t) in members {
                    b.extend_from_slice(name.as_bytes());
                    b.push(0);
                    b.extend_from_slice(&at.to_le_bytes()[..width]);
                    t.encode_into(b);
                }
            }
            // No tag: its length (the class bits) is 0, as HDF5 writes an opaque type
            // made without one.
            H5Type::Opaque { size } => head(5, 1, 0, *size),
            H5Type::Array { dims, base } => {
                // Version 3: no permutation.
                head(10, 3, 0, self.size());
                b.push(dims.len() as u8);
                for d in dims {
                    b.extend_from_slice(&d.to_le_bytes());
                }
                base.encode_into(b);
            }
        }
    }
}

/// Bytes a compound member's offset takes in version 3: as few as hold the size.
fn offset_width(size: u64) -> usize {
    match size {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

/// A dataspace message: scalar (`None`), or simple with `dims` and, when any is
/// unlimited, `max`.
pub(super) fn dataspace(dims: Option<&[u64]>, max: Option<&[u64]>) -> Vec<u8> {
    match dims {
        None => vec![2, 0, 0, 0],
        Some(dims) => {
            let mut b = vec![2, dims.len() as u8, u8::from(max.is_some()), 1];
            for d in dims.iter().chain(max.into_iter().flatten()) {
                b.extend_from_slice(&d.to_le_bytes());
            }
            b
        }
    }
}

/// A null dataspace (an attribute with no values).
pub(super) fn null_dataspace() -> Vec<u8> {
    vec![2, 0, 0, 2]
}

/// When space for a dataset's values is allocated (HDF5's allocation time).
#[derive(Debug, Clone, Copy)]
pub(super) enum Alloc {
    /// Compact datasets.
    Early = 1,
    /// Contiguous datasets.
    Late = 2,
    /// Chunked datasets.
    Incremental = 3,
}

/// A fill value message (version 3): the fill written "if set", `value` when given;
/// `never` for `_NoFill`.
pub(super) fn fill_value(alloc: Alloc, value: Option<&[u8]>, never: bool) -> Vec<u8> {
    let time = if never { 1 } else { 2 };
    let mut flags = alloc as u8 | (time << 2);
    let mut b = vec![3];
    match value {
        Some(v) if !never => {
            flags |= 0x20;
            b.push(flags);
            b.extend_from_slice(&(v.len() as u32).to_le_bytes());
            b.extend_from_slice(v);
        }
        _ => b.push(flags),
    }
    b
}

/// A layout message (version 3).
pub(super) enum Layout<'a> {
    /// The values inside the header.
    Compact(&'a [u8]),
    /// `len` bytes at `at` (undefined when nothing is stored).
    Contiguous { at: u64, len: u64 },
    /// Chunks of `chunk` elements of `item` bytes, indexed by the B-tree at `btree`.
    Chunked {
        btree: u64,
        chunk: &'a [u64],
        item: u32,
    },
}

impl Layout<'_> {
    /// The message.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut b = vec![3];
        match self {
            Layout::Compact(data) => {
                b.push(0);
                b.extend_from_slice(&(data.len() as u16).to_le_bytes());
                b.extend_from_slice(data);
            }
            Layout::Contiguous { at, len } => {
                b.push(1);
                b.extend_from_slice(&at.to_le_bytes());
                b.extend_from_slice(&len.to_le_bytes());
            }
            Layout::Chunked { btree, chunk, item } => {
                b.push(2);
                b.push(chunk.len() as u8 + 1);
                b.extend_from_slice(&btree.to_le_bytes());
                for &c in chunk.iter() {
                    b.extend_from_slice(&(c as u32).to_le_bytes());
                }
                b.extend_from_slice(&item.to_le_bytes());
            }
        }
        b
    }
}

/// One filter of a pipeline: its id, whether a reader may skip it, its parameters.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Filter {
    /// The HDF5 filter id.
    pub(super) id: u16,
    /// HDF5's optional flag: a chunk the filter failed on is stored without it.
    pub(super) optional: bool,
    /// The client data values.
    pub(super) params: Vec<u32>,
}

/// A filter pipeline message (version 2).
pub(super) fn filter_pipeline(filters: &[Filter]) -> Vec<u8> {
    let mut b = vec![2, filters.len() as u8];
    for f in filters {
        b.extend_from_slice(&f.id.to_le_bytes());
        if f.id >= 256 {
            // A name length of 0: no name.
            b.extend_from_slice(&0u16.to_le_bytes());
        }
        b.extend_from_slice(&u16::from(f.optional).to_le_bytes());
        b.extend_from_slice(&(f.params.len() as u16).to_le_bytes());
        for p in &f.params {
            b.extend_from_slice(&p.to_le_bytes());
        }
    }
    b
}

/// A datatype message shared with the committed datatype (a named type) whose object
/// header is at `at` (a shared message, version 3, "committed").
pub(super) fn shared_type(at: u64) -> Vec<u8> {
    let mut b = vec![3, 2];
    b.extend_from_slice(&at.to_le_bytes());
    b
}

/// An attribute message (version 3) named `name`, of `datatype` (a datatype message, or
/// a [`shared_type`] when `shared`) and `dataspace`, holding `data`.
pub(super) fn attribute(
    name: &str,
    datatype: &[u8],
    shared: bool,
    dataspace: &[u8],
    data: &[u8],
) -> Vec<u8> {
    let mut b = vec![3, u8::from(shared)];
    b.extend_from_slice(&(name.len() as u16 + 1).to_le_bytes());
    b.extend_from_slice(&(datatype.len() as u16).to_le_bytes());
    b.extend_from_slice(&(dataspace.len() as u16).to_le_bytes());
    b.push(u8::from(!name.is_ascii()));
    b.extend_from_slice(name.as_bytes());
    b.push(0);
    b.extend_from_slice(datatype);
    b.extend_from_slice(dataspace);
    b.extend_from_slice(data);
    b
}

/// A hard link message named `name` to the object header at `to`, the group's
/// `order`th link.
pub(super) fn link(name: &str, to: u64, order: u64) -> Vec<u8> {
    let len = name.len() as u64;
    let (width_bits, width) = match len {
        0..=0xff => (0u8, 1),
        0x100..=0xffff => (1, 2),
        _ => (2, 4),
    };
    let utf8 = !name.is_ascii();
    let mut b = vec![1, width_bits | 0x04 | if utf8 { 0x10 } else { 0 }];
    b.extend_from_slice(&order.to_le_bytes());
    if utf8 {
        b.push(1);
    }
    b.extend_from_slice(&len.to_le_bytes()[..width]);
    b.extend_from_slice(name.as_bytes());
    b.extend_from_slice(&to.to_le_bytes());
    b
}

/// A link info message of a group of `links` links stored in its header, creation
/// order tracked and indexed (netcdf-c's groups).
pub(super) fn link_info(links: u64) -> Vec<u8> {
    let mut b = vec![0, 0x03];
    for a in [links, UNDEF, UNDEF, UNDEF] {
        b.extend_from_slice(&a.to_le_bytes());
    }
    b
}

/// A group info message with HDF5's defaults.
pub(super) fn group_info() -> Vec<u8> {
    vec![0, 0]
}

/// Header message types.
pub(super) mod kind {
    /// Free space in a header.
    pub(in crate::formats::nc4::write) const NIL: u8 = 0x00;
    /// Dataspace.
    pub(in crate::formats::nc4::write) const DATASPACE: u8 = 0x01;
    /// Link info.
    pub(in crate::formats::nc4::write) const LINK_INFO: u8 = 0x02;
    /// Datatype.
    pub(in crate::formats::nc4::write) const DATATYPE: u8 = 0x03;
    /// Fill value.
    pub(in crate::formats::nc4::write) const FILL_VALUE: u8 = 0x05;
    /// Link.
    pub(in crate::formats::nc4::write) const LINK: u8 = 0x06;
    /// Data layout.
    pub(in crate::formats::nc4::write) const LAYOUT: u8 = 0x08;
    /// Group info.
    pub(in crate::formats::nc4::write) const GROUP_INFO: u8 = 0x0a;
    /// Filter pipeline.
    pub(in crate::formats::nc4::write) const FILTERS: u8 = 0x0b;
    /// Attribute.
    pub(in crate::formats::nc4::write) const ATTRIBUTE: u8 = 0x0c;
    /// Where the next chunk of a header is.
    pub(in crate::formats::nc4::write) const CONTINUATION: u8 = 0x10;
    /// Attribute info.
    pub(in crate::formats::nc4::write) const ATTRIBUTE_INFO: u8 = 0x15;
    /// Not HDF5's: a datatype message shared with a committed datatype, written as a
    /// datatype message (0x03) marked shared.
    pub(in crate::formats::nc4::write) const SHARED_DATATYPE: u8 = 0x83;
}

/// The largest message a header holds (its size is two bytes).
pub(super) const MAX_MESSAGE: usize = 0xffff;

/// A version 2 object header holding `messages` (type, body), attribute creation
/// order tracked and indexed as netcdf-c's objects are; attribute messages are
/// numbered in the order given.
pub(super) fn object_header(messages: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let body_len: usize = messages.iter().map(|(_, m)| 6 + m.len()).sum();
    let (size_bits, width) = match body_len {
        0..=0xff => (0u8, 1),
        0x100..=0xffff => (1, 2),
        0x1_0000..=0xffff_ffff => (2, 4),
        _ => (3, 8),
    };
    let mut b = Vec::with_capacity(4 + 2 + width + body_len + 4);
    b.extend_from_slice(b"OHDR");
    b.push(2);
    b.push(size_bits | 0x04 | 0x08);
    b.extend_from_slice(&(body_len as u64).to_le_bytes()[..width]);
    let mut attrs = 0u16;
    for (t, m) in messages {
        // The datatype of a dataset never changes: HDF5 marks it constant (0x01); a
        // shared one is marked so too (0x02).
        let (t, flags) = match *t {
            kind::SHARED_DATATYPE => (kind::DATATYPE, 0x03),
            kind::DATATYPE => (kind::DATATYPE, 0x01),
            other => (other, 0),
        };
        b.push(t);
        b.extend_from_slice(&(m.len() as u16).to_le_bytes());
        b.push(flags);
        let order = if t == kind::ATTRIBUTE {
            attrs += 1;
            attrs - 1
        } else {
            0
        };
        b.extend_from_slice(&order.to_le_bytes());
        b.extend_from_slice(m);
    }
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superblock_is_48_bytes_with_its_checksum() {
        let s = superblock(48, 1000);
        assert_eq!(s.len() as u64, SUPERBLOCK_LEN);
        assert_eq!(&s[..8], b"\x89HDF\r\n\x1a\n");
        assert_eq!(
            u32::from_le_bytes([s[44], s[45], s[46], s[47]]),
            checksum(&s[..44])
        );
    }

    #[test]
    fn a_header_grows_its_size_field() {
        let small = object_header(&[(kind::GROUP_INFO, group_info())]);
        assert_eq!(small[5] & 3, 0);
        let big = object_header(&[(kind::ATTRIBUTE, vec![0; 300])]);
        assert_eq!(big[5] & 3, 1);
        assert_eq!(u16::from_le_bytes([big[6], big[7]]) as usize, 306);
    }

    #[test]
    fn float_message_is_ieee() {
        let m = H5Type::Float { size: 8, big: true }.encode();
        assert_eq!(m[0], 0x11);
        assert_eq!(m[1], 0x21);
        assert_eq!(m[2], 63);
        assert_eq!(m.len(), 8 + 12);
    }
}
