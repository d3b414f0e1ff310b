//! A netCDF-4 file's attributes edited in place, as libhdf5 edits them for NCO's
//! ncatted: the object headers of the groups and variables whose attributes change
//! are rewritten where they are, nothing else of the file is read or written.
//!
//! An object header's first chunk cannot move or change size (everything that links
//! to the object holds its address). So each changed object's messages are laid out
//! again: as many as fit in chunk 0, the rest in one new continuation chunk appended
//! to the file (with the strings of new string attributes); the old continuation
//! chunks are left unused. Messages the edit does not change are written back byte
//! for byte (netcdf-c's hidden attributes, dimension scale references); attributes
//! are numbered again in the order the model lists them, which is the order netcdf-c
//! lists them in.
//!
//! The writes go in an order a killed run cannot damage: new chunks after the end of
//! the file first, then the superblock's end-of-file address, then each object's
//! chunk 0 in one write (the root group's last). Before that last step, the file
//! reads as it was. When more than one object changes, the new chunk 0s are first
//! recorded in a journal beside the file, so that a run stopped half way is
//! completed by the next edit ([`complete_stopped_edit`]).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt as _;
use std::path::Path;

use super::encode::{kind, UNDEF};
use super::gheap::HeapBuilder;
use super::header::Added;
use super::header_map::{continuation_chunk, read_at, HeaderMap, Message};
use super::journal::{self, Journal, Switch};
use crate::error::{Error, Result};
use crate::formats::nc4::order::uint;
use crate::formats::nc4::Hdf5Source;
use crate::model::{Attr, Dataset, Group, VarPath};

/// Free space left at the end of a new continuation chunk, for the next attribute an
/// edit adds (libhdf5 fills it first too).
const SLACK: usize = 128;

/// Edit the attributes of the netCDF-4 file at `path`, which `source` read, so that
/// they are those of `edited` (its dataset with attributes changed, created, deleted
/// or renamed). True when done; false, with nothing written, when the edit is not one
/// made in place here (names of variables, dimensions or groups changed, a
/// `_FillValue` changed, attributes of user-defined types, dense attribute storage,
/// version 1 object headers, a superblock extension): the caller rewrites the file.
///
/// # Errors
/// [`Error::Invalid`] for a file this user may not write or that another program
/// holds open for writing; read and write errors.
pub fn edit_attributes(path: &Path, source: &Hdf5Source, edited: &Dataset) -> Result<bool> {
    let old = &source.dataset;
    if skeleton(&old.root) != skeleton(&edited.root) {
        return Ok(false);
    }
    let mut objects = Vec::new();
    if changed_objects(
        source,
        &old.root,
        &edited.root,
        &mut Vec::new(),
        &mut objects,
    )
    .is_none()
    {
        return Ok(false);
    }
    if objects.is_empty() {
        return Ok(true);
    }
    // Two names of one HDF5 object (hard links): one header, edited once or not here.
    let mut addresses: Vec<u64> = objects.iter().map(|o| o.address).collect();
    addresses.sort_unstable();
    if addresses.windows(2).any(|w| w[0] == w[1]) {
        return Ok(false);
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| {
            Error::Invalid(format!(
                "cannot be edited in place: {e} (edit into a copy: a second name)"
            ))
        })?;
    if file.try_lock().is_err() {
        return Err(Error::Invalid(
            "is open in another program (it holds HDF5's lock on the file): nothing was changed"
                .into(),
        ));
    }
    let Some(superblock) = Superblock::read(&file)? else {
        return Ok(false);
    };
    let len = file.metadata()?.len();
    if len < superblock.eof {
        return Ok(false);
    }
    // Past the end of the file as HDF5 and the disk know it: nothing is overwritten.
    let start = len.max(superblock.eof);
    let Some(plan) = plan(&file, &objects, start)? else {
        return Ok(false);
    };
    let journal = Journal::start(path, &plan.switches)?;
    if !plan.tail.is_empty() {
        // Each step on the disk before the next refers to it: a power loss between
        // leaves the old file (with bytes past its end).
        file.write_all_at(&plan.tail, start)?;
        journal::barrier(&file)?;
        journal::stop_point("tail");
        file.write_all_at(
            &superblock.with_eof(start + plan.tail.len() as u64),
            superblock.at,
        )?;
        journal::barrier(&file)?;
    }
    journal.switch(&file, &plan.switches)?;
    Ok(true)
}

/// Complete the edit a run stopped during its last step left recorded beside the
/// netCDF-4 file at `path`: true when there was one (and the file now has all of it).
///
/// # Errors
/// Read and write errors.
pub fn complete_stopped_edit(path: &Path) -> Result<bool> {
    journal::complete(path)
}

/// One object whose attributes change: where its header is, and its attributes before
/// and after.
struct Object<'a> {
    address: u64,
    /// Groups are switched after variables, deeper ones first, the root last.
    rank: usize,
    old: &'a [Attr],
    new: &'a [Attr],
}

/// The dataset's groups, dimensions, variables and types without attributes: what an
/// edit in place must leave as it is.
fn skeleton(g: &Group) -> Group {
    Group {
        name: g.name.clone(),
        dims: g.dims.clone(),
        vars: g
            .vars
            .iter()
            .map(|v| {
                let mut v = v.clone();
                v.attrs.clear();
                v
            })
            .collect(),
        attrs: Vec::new(),
        types: g.types.clone(),
        groups: g.groups.iter().map(skeleton).collect(),
    }
}

/// The objects under `old` (the group at `path`) whose attributes `new` changes;
/// `None` when a header is not found.
fn changed_objects<'a>(
    source: &Hdf5Source,
    old: &'a Group,
    new: &'a Group,
    path: &mut Vec<String>,
    out: &mut Vec<Object<'a>>,
) -> Option<()> {
    if old.attrs != new.attrs {
        let root = source.file.root_group().ok()?;
        let mut group = root;
        for name in path.iter() {
            group = group.group(name).ok()?;
        }
        out.push(Object {
            address: group.address(),
            rank: usize::MAX - path.len(),
            old: &old.attrs,
            new: &new.attrs,
        });
    }
    for (o, n) in old.vars.iter().zip(&new.vars) {
        if o.attrs != n.attrs {
            let var = VarPath {
                group: path.clone(),
                name: o.name.clone(),
            };
            out.push(Object {
                address: source.vars.get(&var)?.ds.address(),
                rank: 0,
                old: &o.attrs,
                new: &n.attrs,
            });
        }
    }
    for (o, n) in old.groups.iter().zip(&new.groups) {
        if o != n {
            path.push(o.name.clone());
            changed_objects(source, o, n, path, out)?;
            path.pop();
        }
    }
    Some(())
}

/// What an edit writes: the bytes appended at the end of the file, and each changed
/// chunk 0 (in the order written).
struct Plan {
    tail: Vec<u8>,
    switches: Vec<Switch>,
}

/// An attribute of an edited header: kept as stored, or new.
enum Slot {
    Kept(Message),
    New(usize),
}

/// Lay the edited headers of `objects` out, new chunks from `start`; `None` when one
/// is not edited in place here.
fn plan(file: &File, objects: &[Object<'_>], start: u64) -> Result<Option<Plan>> {
    let mut maps = Vec::with_capacity(objects.len());
    let mut added: Vec<&Attr> = Vec::new();
    for o in objects {
        let Some(map) = HeaderMap::read(file, o.address)? else {
            return Ok(None);
        };
        let Some(slots) = slots(&map, o, &mut added) else {
            return Ok(None);
        };
        maps.push((map, slots));
    }
    let mut heap = HeapBuilder::default();
    let Some(planned) = Added::plan(&added, &mut heap) else {
        return Ok(None);
    };
    let mut tail = Vec::new();
    let mut heap_at = Vec::new();
    if !heap.is_empty() {
        (tail, heap_at) = heap.encode(start);
    }
    let bodies = planned.bodies(heap_at);
    let mut switches = Vec::with_capacity(maps.len());
    let mut order: Vec<usize> = (0..objects.len()).collect();
    order.sort_by_key(|&i| objects[i].rank);
    for i in order {
        let (map, slots) = &maps[i];
        let Some(messages) = messages(map, slots, &bodies) else {
            return Ok(None);
        };
        let at = start + tail.len() as u64;
        let Some((chunk0, more)) = lay_out(map, &messages, at) else {
            return Ok(None);
        };
        if let Some(more) = more {
            tail.extend_from_slice(&more);
        }
        if chunk0 != map.chunk0 {
            switches.push(Switch {
                address: map.address,
                old: map.chunk0.clone(),
                new: chunk0,
            });
        }
    }
    Ok(Some(Plan { tail, switches }))
}

/// The attributes `o`'s header will hold, in creation order: those the model does
/// not show first (netcdf-c's own), then the model's; new ones added to `added`.
/// `None` when the edit is not made in place here.
fn slots<'a>(map: &HeaderMap, o: &Object<'a>, added: &mut Vec<&'a Attr>) -> Option<Vec<Slot>> {
    let info = map
        .messages
        .iter()
        .find(|m| m.kind == kind::ATTRIBUTE_INFO)?;
    if dense_heap(&info.body)? != UNDEF {
        return None;
    }
    let mut stored: Vec<(String, &Message)> = Vec::new();
    for m in map.messages.iter().filter(|m| m.kind == kind::ATTRIBUTE) {
        // A shared attribute message holds no name: not edited here.
        if m.flags & 0x02 != 0 {
            return None;
        }
        let name = crate::formats::nc4::order::attribute_name(&m.body)?;
        if stored.iter().any(|(n, _)| *n == name) {
            return None;
        }
        stored.push((name, m));
    }
    stored.sort_by_key(|(_, m)| m.order);
    let find = |name: &str| stored.iter().find(|(n, _)| n == name).map(|(_, m)| *m);
    let shown = |name: &str| o.old.iter().any(|a| a.name == name);
    let mut out: Vec<Slot> = stored
        .iter()
        .filter(|(n, _)| !shown(n))
        .map(|(_, m)| Slot::Kept((*m).clone()))
        .collect();
    for a in o.new {
        if a.name == "_FillValue" && o.old.iter().find(|b| b.name == a.name) != Some(a) {
            // Also the dataset's fill value message.
            return None;
        }
        match (o.old.iter().find(|b| b.name == a.name), find(&a.name)) {
            (Some(b), Some(m)) if b == a => out.push(Slot::Kept(m.clone())),
            // Shown but not stored as an attribute (a fill value from the fill value
            // message, say): left as it is, or not edited here.
            (Some(b), None) if b == a => {}
            (Some(_), None) => return None,
            // netcdf-c's own (or one the model could not read): not replaced here.
            (None, Some(_)) => return None,
            _ => {
                out.push(Slot::New(added.len()));
                added.push(a);
            }
        }
    }
    for b in o.old {
        let gone = !o.new.iter().any(|a| a.name == b.name);
        if gone && (find(&b.name).is_none() || b.name == "_FillValue") {
            return None;
        }
    }
    Some(out)
}

/// The address of the dense attribute storage's fractal heap in an attribute info
/// message (undefined: the attributes are in the header).
fn dense_heap(body: &[u8]) -> Option<u64> {
    let flags = *body.get(1)?;
    uint(body, if flags & 0x01 != 0 { 4 } else { 2 }, 8)
}

/// The edited header's messages: everything but attributes as stored (the attribute
/// info's next creation index set), then the attributes numbered in order.
fn messages(map: &HeaderMap, slots: &[Slot], bodies: &[Vec<u8>]) -> Option<Vec<Message>> {
    let mut out = Vec::with_capacity(map.messages.len() + slots.len());
    for m in map.messages.iter().filter(|m| m.kind != kind::ATTRIBUTE) {
        let mut m = m.clone();
        if m.kind == kind::ATTRIBUTE_INFO && m.body.get(1)? & 0x01 != 0 {
            let next = u16::try_from(slots.len()).ok()?;
            m.body.get_mut(2..4)?.copy_from_slice(&next.to_le_bytes());
        }
        out.push(m);
    }
    for (i, slot) in slots.iter().enumerate() {
        let mut m = match slot {
            Slot::Kept(m) => m.clone(),
            Slot::New(k) => Message {
                kind: kind::ATTRIBUTE,
                flags: 0,
                order: 0,
                body: bodies.get(*k)?.clone(),
            },
        };
        if m.body.len() > super::encode::MAX_MESSAGE {
            return None;
        }
        m.order = if map.tracked {
            u16::try_from(i).ok()?
        } else {
            0
        };
        out.push(m);
    }
    Some(out)
}

/// Chunk 0 holding `messages`, and when they do not all fit, the continuation chunk
/// (at `at`) holding the rest.
fn lay_out(map: &HeaderMap, messages: &[Message], at: u64) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    let encoded: Vec<Vec<u8>> = messages
        .iter()
        .map(|m| {
            let mut b = Vec::new();
            map.encode(m, &mut b);
            b
        })
        .collect();
    let total: usize = encoded.iter().map(Vec::len).sum();
    if total <= map.size0 {
        return Some((map.chunk0_with(&encoded.concat()), None));
    }
    // Chunk 0 keeps the messages that fit in order, and room for the continuation.
    let room = map.size0.checked_sub(map.prefix() + 16)?;
    let mut first = Vec::new();
    let mut rest = Vec::new();
    for e in encoded {
        if rest.is_empty() && first.len() + e.len() <= room {
            first.extend_from_slice(&e);
        } else {
            rest.extend_from_slice(&e);
        }
    }
    let more = continuation_chunk(map, &rest, SLACK);
    let mut body = at.to_le_bytes().to_vec();
    body.extend_from_slice(&(more.len() as u64).to_le_bytes());
    let cont = Message {
        kind: kind::CONTINUATION,
        flags: 0,
        order: 0,
        body,
    };
    map.encode(&cont, &mut first);
    Some((map.chunk0_with(&first), Some(more)))
}

/// The superblock's end-of-file address: where it is and what it holds.
struct Superblock {
    /// Where the bytes to write go.
    at: u64,
    /// The superblock's bytes up to its checksum (versions 2 and 3), or the address
    /// alone (versions 0 and 1, no checksum).
    bytes: Vec<u8>,
    /// Where the address is in `bytes`.
    eof_in: usize,
    eof: u64,
    checksummed: bool,
}

impl Superblock {
    /// The superblock at the start of the file; `None` for one not edited in place here
    /// (after a user block, addresses of other than 8 bytes, a base address, a
    /// superblock extension, a file marked open for writing).
    fn read(file: &File) -> std::io::Result<Option<Superblock>> {
        let b = read_at(file, 0, 96)?;
        if b.len() < 56 || &b[..8] != b"\x89HDF\r\n\x1a\n" {
            return Ok(None);
        }
        let (sizes, base, eof_at) = match b[8] {
            0 => (13, 24, 40),
            1 => (13, 28, 44),
            2 | 3 => (9, 12, 28),
            _ => return Ok(None),
        };
        if b[sizes] != 8 || b[sizes + 1] != 8 || uint(&b, base, 8) != Some(0) {
            return Ok(None);
        }
        let checksummed = b[8] >= 2;
        if checksummed && (uint(&b, 20, 8) != Some(UNDEF) || b[11] != 0) {
            return Ok(None);
        }
        let Some(eof) = uint(&b, eof_at, 8) else {
            return Ok(None);
        };
        Ok(Some(if checksummed {
            Superblock {
                at: 0,
                bytes: b[..44].to_vec(),
                eof_in: eof_at,
                eof,
                checksummed,
            }
        } else {
            Superblock {
                at: eof_at as u64,
                bytes: b[eof_at..eof_at + 8].to_vec(),
                eof_in: 0,
                eof,
                checksummed,
            }
        }))
    }

    /// The bytes to write for an end of file at `eof`.
    fn with_eof(&self, eof: u64) -> Vec<u8> {
        let mut b = self.bytes.clone();
        b[self.eof_in..self.eof_in + 8].copy_from_slice(&eof.to_le_bytes());
        if self.checksummed {
            let sum = super::encode::checksum(&b);
            b.extend_from_slice(&sum.to_le_bytes());
        }
        b
    }
}
