//! netCDF-4's user-defined types as HDF5 datatypes, and their values as HDF5 stores
//! them: a compound's fields at their offsets, an opaque's bytes, a vlen's elements in
//! a global heap object its element points to (elements that are themselves
//! variable-length point to further objects).

use super::encode::H5Type;
use super::gheap::{pending_descriptor, HeapBuilder, Patch};
use super::types::{h5type, stored_bytes};
use crate::model::user::{TypeRef, UserKind};
use crate::model::{NcType, UValue, Values};

/// Values as stored, with the addresses still to set in them.
#[derive(Debug, Default)]
pub(super) struct Encoded {
    /// The bytes, `item` per value.
    pub(super) bytes: Vec<u8>,
    /// Where heap addresses go once the heap is laid out.
    pub(super) patches: Vec<Patch>,
}

impl Encoded {
    /// The bytes with the heap's collections at `addresses`.
    pub(super) fn resolved(mut self, addresses: &[u64]) -> Vec<u8> {
        super::gheap::apply(&mut self.bytes, &self.patches, addresses);
        self.bytes
    }
}

/// The HDF5 datatype of the user-defined type `kind`, given how a named type already
/// planned is found (`named`: `None` when it is not defined before).
///
/// # Errors
/// The name of a type a field or vlen uses that is not defined before it.
pub(super) fn user_h5type<'a>(
    kind: &UserKind,
    named: &dyn Fn(&crate::model::TypeId) -> Option<&'a H5Type>,
) -> Result<H5Type, String> {
    let of = |t: &TypeRef| -> Result<H5Type, String> {
        match t {
            TypeRef::Atomic(nc) => Ok(h5type(*nc, false)),
            TypeRef::User(id) => named(id)
                .cloned()
                .ok_or_else(|| format!("type {id} is used before it is defined")),
        }
    };
    Ok(match kind {
        UserKind::Enum { base, members } => super::types::enum_type(*base, members),
        UserKind::Opaque { size } => H5Type::Opaque {
            size: to_u32(*size)?,
        },
        UserKind::Vlen { base } => H5Type::Vlen(Box::new(of(base)?)),
        UserKind::Compound { size, fields } => {
            let members = fields
                .iter()
                .map(|f| {
                    let base = of(&f.ty)?;
                    let t = if f.dims.is_empty() {
                        base
                    } else {
                        H5Type::Array {
                            dims: f
                                .dims
                                .iter()
                                .map(|&d| to_u32(d))
                                .collect::<Result<_, _>>()?,
                            base: Box::new(base),
                        }
                    };
                    Ok((f.name.clone(), to_u32(f.offset)?, t))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let size = to_u32(*size)?;
            if fits(size, &members) {
                H5Type::Compound { size, members }
            } else {
                laid_out(members)
            }
        }
    })
}

/// True when `members` lie inside a compound of `size` bytes without overlapping: the
/// offsets read can be kept (a field of fixed-length strings, say, is wider as the
/// variable-length string netCDF makes of it, and they cannot).
fn fits(size: u32, members: &[(String, u32, H5Type)]) -> bool {
    let mut spans: Vec<(u64, u64)> = members
        .iter()
        .map(|(_, at, t)| (u64::from(*at), u64::from(*at) + u64::from(t.size())))
        .collect();
    spans.sort_unstable();
    spans.windows(2).all(|w| w[0].1 <= w[1].0)
        && spans.last().is_none_or(|s| s.1 <= u64::from(size))
}

/// A compound of `members` laid out anew as a C compiler lays out a struct, each
/// aligned to its largest scalar, as netcdf-c lays out the compounds it defines.
fn laid_out(members: Vec<(String, u32, H5Type)>) -> H5Type {
    let mut at = 0u32;
    let mut most = 1u32;
    let members = members
        .into_iter()
        .map(|(name, _, t)| {
            let align = alignment(&t);
            most = most.max(align);
            at = at.next_multiple_of(align);
            let here = at;
            at += t.size();
            (name, here, t)
        })
        .collect();
    H5Type::Compound {
        size: at.next_multiple_of(most).max(1),
        members,
    }
}

/// The alignment of a value of `t` in memory.
fn alignment(t: &H5Type) -> u32 {
    match t {
        H5Type::Int { size, .. } | H5Type::Float { size, .. } => u32::from(*size),
        H5Type::VlenString | H5Type::Vlen(_) | H5Type::ObjectRef => 8,
        H5Type::Enum { base, .. } | H5Type::Array { base, .. } => alignment(base),
        H5Type::Compound { members, .. } => members
            .iter()
            .map(|(_, _, m)| alignment(m))
            .max()
            .unwrap_or(1),
        H5Type::Fixed { .. } | H5Type::Opaque { .. } => 1,
    }
}

fn to_u32(n: u64) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| format!("a size of {n} bytes, over HDF5's 4 GiB"))
}

/// Bytes of one value of the user-defined type `id` as a file stores it, and whether
/// values hold variable-length parts (to which HDF5 filters do not apply).
pub(super) fn stored_item(ds: &crate::model::Dataset, id: &crate::model::TypeId) -> (u64, bool) {
    fn holds_vlen(ds: &crate::model::Dataset, t: &TypeRef, depth: u32) -> bool {
        match t {
            TypeRef::Atomic(nc) => *nc == NcType::String,
            TypeRef::User(id) => match ds.user_type(id).map(|t| &t.kind) {
                _ if depth > 32 => true,
                Some(UserKind::Vlen { .. }) => true,
                Some(UserKind::Compound { fields, .. }) => {
                    fields.iter().any(|f| holds_vlen(ds, &f.ty, depth + 1))
                }
                _ => false,
            },
        }
    }
    (
        ds.user_item_size(id).unwrap_or(1),
        holds_vlen(ds, &TypeRef::User(id.clone()), 0),
    )
}

/// `values` of type `t` as stored, their variable-length parts added to `heap`.
///
/// # Errors
/// A value that is not of `t` (its kind, a field count, an opaque's size).
pub(super) fn encode(
    t: &H5Type,
    values: &[UValue],
    heap: &mut HeapBuilder,
) -> Result<Encoded, String> {
    let mut out = Encoded {
        bytes: Vec::with_capacity(values.len() * t.size() as usize),
        patches: Vec::new(),
    };
    for v in values {
        encode_one(t, v, &mut out, heap)?;
    }
    Ok(out)
}

fn encode_one(
    t: &H5Type,
    v: &UValue,
    out: &mut Encoded,
    heap: &mut HeapBuilder,
) -> Result<(), String> {
    let size = t.size() as usize;
    let start = out.bytes.len();
    match (t, v) {
        (H5Type::Compound { members, .. }, UValue::Compound(fields)) => {
            if fields.len() != members.len() {
                return Err(format!(
                    "a value of {} fields for a compound of {}",
                    fields.len(),
                    members.len()
                ));
            }
            out.bytes.resize(start + size, 0);
            for ((_, offset, mt), field) in members.iter().zip(fields) {
                let mut inner = Encoded::default();
                encode_one(mt, field, &mut inner, heap)?;
                let at = start + *offset as usize;
                let end = at + inner.bytes.len();
                if end > start + size {
                    return Err("a field past its compound's end".into());
                }
                out.bytes[at..end].copy_from_slice(&inner.bytes);
                out.patches.extend(
                    inner
                        .patches
                        .into_iter()
                        .map(|p| Patch { at: p.at + at, ..p }),
                );
            }
        }
        (H5Type::Array { dims, base }, UValue::Array(items)) => {
            let n = dims.iter().product::<u32>() as usize;
            if items.len() != n {
                return Err(format!("{} elements for a field of {n}", items.len()));
            }
            for item in items {
                encode_one(base, item, out, heap)?;
            }
        }
        // A field of chars read as one text.
        (H5Type::Array { base, .. }, UValue::Atomic(Values::Char(text)))
            if matches!(**base, H5Type::Fixed { size: 1, .. }) =>
        {
            out.bytes.extend_from_slice(text);
            out.bytes.resize(start + size, 0);
        }
        (H5Type::Opaque { .. }, UValue::Opaque(bytes)) => {
            if bytes.len() != size {
                return Err(format!(
                    "an opaque value of {} bytes for a type of {size}",
                    bytes.len()
                ));
            }
            out.bytes.extend_from_slice(bytes);
        }
        (H5Type::Vlen(base), UValue::Vlen(items)) => {
            let inner = encode(base, items, heap)?;
            let id = heap.add_patched(&inner.bytes, inner.patches);
            pending_descriptor(
                &mut out.bytes,
                items.len() as u32,
                Some(id),
                &mut out.patches,
            );
        }
        (H5Type::VlenString, UValue::Atomic(Values::String(s))) if s.len() == 1 => {
            let text = s.iter().next().flatten();
            let id = text.map(|text| heap.add(text));
            let len = text.map_or(0, |t| t.len() as u32);
            pending_descriptor(&mut out.bytes, len, id, &mut out.patches);
        }
        (H5Type::Enum { .. }, UValue::Enum(x)) => {
            out.bytes
                .extend_from_slice(&(*x as u128).to_le_bytes()[..size.min(16)]);
        }
        (H5Type::Fixed { .. }, UValue::Atomic(Values::Char(text))) => {
            out.bytes.extend_from_slice(&text[..text.len().min(size)]);
            out.bytes.resize(start + size, 0);
        }
        (H5Type::Int { .. } | H5Type::Float { .. } | H5Type::Enum { .. }, UValue::Atomic(x))
            if x.len() == 1 && x.nc_type() != NcType::String =>
        {
            let bytes = stored_bytes(x, false).unwrap_or_default();
            if bytes.len() != size {
                return Err(format!(
                    "a {} value for a type of {size} bytes",
                    x.nc_type()
                ));
            }
            out.bytes.extend_from_slice(&bytes);
        }
        (t, v) => return Err(format!("a value {v:?} for the HDF5 type {t:?}")),
    }
    debug_assert_eq!(out.bytes.len(), start + size);
    Ok(())
}

/// One value of `t` that is all zeros but for its variable-length parts, each an
/// empty heap object (netcdf-c's default fill of a user-defined type, and its "" of a
/// string).
pub(super) fn zero(t: &H5Type, heap: &mut HeapBuilder) -> Encoded {
    let mut out = Encoded::default();
    zero_into(t, &mut out, heap);
    out
}

fn zero_into(t: &H5Type, out: &mut Encoded, heap: &mut HeapBuilder) {
    let start = out.bytes.len();
    match t {
        H5Type::Vlen(_) | H5Type::VlenString => {
            let id = heap.add(&[]);
            pending_descriptor(&mut out.bytes, 0, Some(id), &mut out.patches);
        }
        H5Type::Compound { size, members } => {
            out.bytes.resize(start + *size as usize, 0);
            for (_, offset, mt) in members {
                let inner = zero(mt, heap);
                let at = start + *offset as usize;
                out.bytes[at..at + inner.bytes.len()].copy_from_slice(&inner.bytes);
                out.patches.extend(
                    inner
                        .patches
                        .into_iter()
                        .map(|p| Patch { at: p.at + at, ..p }),
                );
            }
        }
        H5Type::Array { dims, base } => {
            for _ in 0..dims.iter().product::<u32>() {
                zero_into(base, out, heap);
            }
        }
        t => out.bytes.resize(start + t.size() as usize, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compound_with_a_vlen_field_points_into_the_heap() {
        let int = h5type(NcType::Int, false);
        let t = H5Type::Compound {
            size: 24,
            members: vec![
                ("n".into(), 0, int.clone()),
                ("list".into(), 8, H5Type::Vlen(Box::new(int))),
            ],
        };
        let v = UValue::Compound(vec![
            UValue::Atomic(Values::Int(vec![7])),
            UValue::Vlen(vec![
                UValue::Atomic(Values::Int(vec![1])),
                UValue::Atomic(Values::Int(vec![2])),
            ]),
        ]);
        let mut heap = HeapBuilder::default();
        let e = encode(&t, &[v], &mut heap).unwrap();
        assert_eq!(e.bytes.len(), 24);
        assert_eq!(&e.bytes[..4], &7i32.to_le_bytes());
        assert_eq!(&e.bytes[8..12], &2u32.to_le_bytes());
        assert_eq!(
            e.patches,
            vec![Patch {
                at: 12,
                collection: 0
            }]
        );
        let bytes = e.resolved(&heap.addresses(4096));
        assert_eq!(&bytes[12..20], &4096u64.to_le_bytes());
    }

    #[test]
    fn a_value_of_another_kind_is_refused() {
        let mut heap = HeapBuilder::default();
        let err = encode(
            &H5Type::Opaque { size: 4 },
            &[UValue::Opaque(vec![1, 2])],
            &mut heap,
        )
        .unwrap_err();
        assert!(err.contains("2 bytes"), "{err}");
    }
}
