//! An object header as the file holds it, message by message, for an edit in place:
//! a version 2 header's chunk 0 (which cannot move or change size) and the messages
//! of every chunk, read raw so that what an edit does not change is written back byte
//! for byte.

use std::fs::File;
use std::os::unix::fs::FileExt as _;

use super::encode::{checksum, kind};
use crate::formats::nc4::order::uint;

/// Continuation chunks followed at most (a damaged header cannot loop forever).
const MAX_CHUNKS: usize = 64;

/// One message: its type, flags, creation index (0 when not tracked) and body.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Message {
    pub(super) kind: u8,
    pub(super) flags: u8,
    pub(super) order: u16,
    pub(super) body: Vec<u8>,
}

/// A version 2 object header.
#[derive(Debug, Clone)]
pub(super) struct HeaderMap {
    /// Where chunk 0 starts.
    pub(super) address: u64,
    /// Chunk 0 as stored: signature, version, flags, sizes, messages, checksum.
    pub(super) chunk0: Vec<u8>,
    /// Bytes of chunk 0 before its messages.
    pub(super) prefix_len: usize,
    /// Bytes chunk 0's messages take (and must still take).
    pub(super) size0: usize,
    /// Each message's prefix holds its creation index (6 bytes, not 4).
    pub(super) tracked: bool,
    /// Every message of every chunk in the order met, free space and continuation
    /// messages left out.
    pub(super) messages: Vec<Message>,
}

impl HeaderMap {
    /// The header at `address`; `None` when it is not a version 2 header whose
    /// checksums hold (a version 1 header is not edited in place).
    ///
    /// # Errors
    /// Reads that fail.
    pub(super) fn read(file: &File, address: u64) -> std::io::Result<Option<HeaderMap>> {
        let head = read_at(file, address, 64)?;
        if head.len() < 8 || &head[..4] != b"OHDR" || head[4] != 2 {
            return Ok(None);
        }
        let flags = head[5];
        let mut at = 6 + if flags & 0x20 != 0 { 16 } else { 0 };
        at += if flags & 0x10 != 0 { 4 } else { 0 };
        let width = 1u8 << (flags & 0x03);
        let Some(size0) = uint(&head, at, width).and_then(|n| usize::try_from(n).ok()) else {
            return Ok(None);
        };
        let prefix_len = at + usize::from(width);
        let chunk0 = read_at(file, address, prefix_len + size0 + 4)?;
        if chunk0.len() != prefix_len + size0 + 4 || !checksum_holds(&chunk0) {
            return Ok(None);
        }
        let tracked = flags & 0x04 != 0;
        let mut map = HeaderMap {
            address,
            prefix_len,
            size0,
            tracked,
            messages: Vec::new(),
            chunk0,
        };
        let mut next = Vec::new();
        let first = map.chunk0[prefix_len..prefix_len + size0].to_vec();
        if map.walk(&first, &mut next).is_none() {
            return Ok(None);
        }
        let mut seen = 0;
        while !next.is_empty() {
            let (addr, len) = next.remove(0);
            seen += 1;
            let chunk = read_at(file, addr, len)?;
            if seen > MAX_CHUNKS
                || len < 8
                || chunk.len() != len
                || &chunk[..4] != b"OCHK"
                || !checksum_holds(&chunk)
            {
                return Ok(None);
            }
            if map.walk(&chunk[4..len - 4], &mut next).is_none() {
                return Ok(None);
            }
        }
        Ok(Some(map))
    }

    /// Bytes of a message's prefix.
    pub(super) fn prefix(&self) -> usize {
        if self.tracked {
            6
        } else {
            4
        }
    }

    /// The messages of one chunk's message area; continuation chunks to `next`.
    fn walk(&mut self, bytes: &[u8], next: &mut Vec<(u64, usize)>) -> Option<()> {
        let prefix = self.prefix();
        let mut at = 0;
        // A tail shorter than a message's prefix is a gap, as HDF5 leaves one.
        while at + prefix <= bytes.len() {
            let kind = bytes[at];
            let size = usize::from(u16::from_le_bytes([bytes[at + 1], bytes[at + 2]]));
            let flags = bytes[at + 3];
            let order = if self.tracked {
                u16::from_le_bytes([bytes[at + 4], bytes[at + 5]])
            } else {
                0
            };
            let body = bytes.get(at + prefix..at + prefix + size)?;
            at += prefix + size;
            match kind {
                kind::NIL => {}
                kind::CONTINUATION => {
                    let addr = uint(body, 0, 8)?;
                    let len = usize::try_from(uint(body, 8, 8)?).ok()?;
                    next.push((addr, len));
                }
                _ => self.messages.push(Message {
                    kind,
                    flags,
                    order,
                    body: body.to_vec(),
                }),
            }
        }
        Some(())
    }

    /// A message as a chunk holds it, prefix and body.
    pub(super) fn encode(&self, m: &Message, out: &mut Vec<u8>) {
        out.push(m.kind);
        out.extend_from_slice(&(m.body.len() as u16).to_le_bytes());
        out.push(m.flags);
        if self.tracked {
            out.extend_from_slice(&m.order.to_le_bytes());
        }
        out.extend_from_slice(&m.body);
    }

    /// Free space of `len` bytes in a chunk: a NIL message, or a gap when shorter than
    /// a message's prefix.
    pub(super) fn fill(&self, len: usize, out: &mut Vec<u8>) {
        let prefix = self.prefix();
        if len < prefix {
            out.resize(out.len() + len, 0);
            return;
        }
        let nil = Message {
            kind: kind::NIL,
            flags: 0,
            order: 0,
            body: vec![0; len - prefix],
        };
        self.encode(&nil, out);
    }

    /// Chunk 0 holding `messages` (which fit), the rest free space, its checksum.
    pub(super) fn chunk0_with(&self, messages: &[u8]) -> Vec<u8> {
        let mut out = self.chunk0[..self.prefix_len].to_vec();
        out.extend_from_slice(messages);
        self.fill(self.size0 - messages.len(), &mut out);
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }
}

/// A continuation chunk holding `messages` then `slack` bytes of free space, with its
/// signature and checksum.
pub(super) fn continuation_chunk(map: &HeaderMap, messages: &[u8], slack: usize) -> Vec<u8> {
    let mut out = b"OCHK".to_vec();
    out.extend_from_slice(messages);
    map.fill(slack, &mut out);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Whether the last four bytes of `bytes` are the checksum of the others.
fn checksum_holds(bytes: &[u8]) -> bool {
    let (body, sum) = bytes.split_at(bytes.len() - 4);
    checksum(body).to_le_bytes() == sum
}

/// Up to `len` bytes at `at` (fewer at the end of the file).
pub(super) fn read_at(file: &File, at: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0; len];
    let mut got = 0;
    while got < len {
        match file.read_at(&mut buf[got..], at + got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    buf.truncate(got);
    Ok(buf)
}
