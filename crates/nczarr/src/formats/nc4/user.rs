//! netCDF-4's user-defined types as netcdf-c reads them from HDF5, and their values.
//!
//! netcdf-c stores each user-defined type as a committed (named) datatype linked
//! from its group, and reads them group by group (a group's types before its
//! subgroups'). A variable or attribute has the first type read whose HDF5 datatype
//! equals its own (`nc4_rec_find_hdf_type`, which compares with `H5Tequal`): the
//! type is found by what it is, not by where the dataset's datatype points.

use hdf5_reader::{ByteOrder, Datatype, StringSize, VarLenKind};

use super::fault::Fault;
use super::types::{fixed_text, floats_from_halves, stored_type, values_from_stored};
use crate::model::user::{Field, TypeRef};
use crate::model::{NcType, TypeId, UValue, UserKind, UserType, Values};

/// Resolves a variable-length reference (count, heap address, index) to the bytes of
/// its elements, given the size of one.
pub(super) type Resolve<'a> = dyn Fn(&[u8], usize) -> Result<Vec<u8>, Fault> + 'a;

/// The user-defined types read so far, in netcdf-c's order.
#[derive(Default)]
pub(super) struct UserTypes {
    all: Vec<(Datatype, TypeId)>,
    /// Types made for datasets whose type is their own (not committed), numbered
    /// across the file as netcdf-c numbers them (`_AnonymousCompound1`...).
    transient: u32,
    /// Types made for the members of a type being read whose own types were not
    /// committed (h5py's nested records), for the reader to add to the group before
    /// the type that has them ([`UserTypes::take_made`]).
    made: Vec<UserType>,
}

impl UserTypes {
    /// The type whose HDF5 datatype is `dt`, if one was read.
    pub(super) fn find(&self, dt: &Datatype) -> Option<&TypeId> {
        self.all.iter().find(|(d, _)| d == dt).map(|(_, id)| id)
    }

    /// The type netcdf-c makes for a dataset in the group at `group` whose
    /// user-defined type was not committed (`read_type` with no name): named
    /// `_Anonymous` and its class and number; `None` when `dt` is no such type.
    ///
    /// # Errors
    /// What the type is when netCDF-4 has no such type.
    pub(super) fn transient(
        &mut self,
        group: &[String],
        dt: &Datatype,
    ) -> Result<Option<UserType>, Fault> {
        let class = match dt {
            Datatype::Compound { .. } => "Compound",
            Datatype::Enum { .. } => "Enum",
            Datatype::Opaque { .. } => "Opaque",
            Datatype::VarLen {
                kind: VarLenKind::Sequence,
                ..
            } => "Vlen",
            _ => return Ok(None),
        };
        self.transient += 1;
        let name = format!("_Anonymous{class}{}", self.transient);
        self.define(group, &name, dt)
    }

    /// The types made for members since the last call, in the order they were made.
    pub(super) fn take_made(&mut self) -> Vec<UserType> {
        std::mem::take(&mut self.made)
    }

    /// Read the committed datatype `dt` named `name` in the group at `group`; `None`
    /// for a named atomic type (netCDF has no such thing: it is only an alias).
    ///
    /// # Errors
    /// What the type is when netCDF-4 has no such type.
    pub(super) fn define(
        &mut self,
        group: &[String],
        name: &str,
        dt: &Datatype,
    ) -> Result<Option<UserType>, Fault> {
        let kind = match dt {
            Datatype::Compound { size, fields } => UserKind::Compound {
                size: u64::from(*size),
                fields: fields
                    .iter()
                    .map(|f| {
                        let (base, dims) = match &f.datatype {
                            Datatype::Array { base, dims } => (base.as_ref(), dims.clone()),
                            other => (other, Vec::new()),
                        };
                        Ok(Field {
                            name: f.name.clone(),
                            offset: u64::from(f.byte_offset),
                            ty: self.type_ref(group, base)?,
                            dims,
                        })
                    })
                    .collect::<Result<_, Fault>>()?,
            },
            Datatype::Enum { base, members } => {
                let st = stored_type(base)?;
                UserKind::Enum {
                    base: st.nc_type,
                    members: members
                        .iter()
                        .map(|m| Ok((m.name.clone(), integer(base, &m.value)?)))
                        .collect::<Result<_, Fault>>()?,
                }
            }
            Datatype::Opaque { size, .. } => UserKind::Opaque {
                size: u64::from(*size),
            },
            Datatype::VarLen {
                kind: VarLenKind::Sequence,
                base,
                ..
            } => UserKind::Vlen {
                base: self.type_ref(group, base)?,
            },
            _ => {
                return match stored_type(dt) {
                    Ok(_) => Ok(None),
                    Err(what) => Err(what),
                }
            }
        };
        let id = TypeId {
            group: group.to_vec(),
            name: name.to_string(),
        };
        self.all.push((dt.clone(), id));
        Ok(Some(UserType {
            name: name.to_string(),
            kind,
        }))
    }

    /// The type of a field or vlen element: atomic, a type read before, or one
    /// made for it in the group at `group` (see [`UserTypes::take_made`]).
    fn type_ref(&mut self, group: &[String], dt: &Datatype) -> Result<TypeRef, Fault> {
        if let Some(id) = self.find(dt) {
            return Ok(TypeRef::User(id.clone()));
        }
        if let Some(t) = self.transient(group, dt)? {
            self.made.push(t);
            if let Some(id) = self.find(dt) {
                return Ok(TypeRef::User(id.clone()));
            }
        }
        Ok(TypeRef::Atomic(stored_type(dt)?.nc_type))
    }
}

/// Bytes of one stored element of `dt` (a variable-length one is its reference).
pub(super) fn element_size(dt: &Datatype) -> usize {
    match dt {
        Datatype::FixedPoint { size, .. }
        | Datatype::FloatingPoint { size, .. }
        | Datatype::Bitfield { size, .. }
        | Datatype::Reference { size, .. } => usize::from(*size),
        Datatype::String {
            size: StringSize::Fixed(n),
            ..
        } => *n as usize,
        Datatype::String { .. } | Datatype::VarLen { .. } => 16,
        Datatype::Compound { size, .. } | Datatype::Opaque { size, .. } => *size as usize,
        Datatype::Array { base, dims } => dims
            .iter()
            .fold(element_size(base), |n, &d| n.saturating_mul(d as usize)),
        Datatype::Enum { base, .. } => element_size(base),
    }
}

/// The integer stored in `raw` as the integer type `dt`.
fn integer(dt: &Datatype, raw: &[u8]) -> Result<i128, Fault> {
    let Datatype::FixedPoint {
        size,
        signed,
        byte_order,
    } = dt
    else {
        return Err("an enum whose base is not an integer type".into());
    };
    let n = usize::from(*size);
    let bytes = raw
        .get(..n)
        .filter(|_| n <= 16)
        .ok_or("an enum value shorter than its type")?;
    let mut wide = [0u8; 16];
    match byte_order {
        ByteOrder::LittleEndian => wide[..n].copy_from_slice(bytes),
        ByteOrder::BigEndian => {
            for (i, b) in bytes.iter().rev().enumerate() {
                wide[i] = *b;
            }
        }
    }
    let negative = *signed && n > 0 && wide[n - 1] & 0x80 != 0;
    if negative {
        wide[n..].fill(0xff);
    }
    Ok(i128::from_le_bytes(wide))
}

/// One stored element of `dt` as a value.
///
/// # Errors
/// A short element, a reference that does not resolve.
pub(super) fn decode(dt: &Datatype, raw: &[u8], resolve: &Resolve<'_>) -> Result<UValue, Fault> {
    let size = element_size(dt);
    let raw = raw.get(..size).ok_or_else(|| {
        format!(
            "an element of {size} bytes where {} bytes are left",
            raw.len()
        )
    })?;
    Ok(match dt {
        Datatype::Compound { fields, .. } => UValue::Compound(
            fields
                .iter()
                .map(|f| {
                    let at = f.byte_offset as usize;
                    let rest = raw.get(at..).ok_or("a field past its compound's end")?;
                    decode(&f.datatype, rest, resolve)
                })
                .collect::<Result<_, Fault>>()?,
        ),
        Datatype::Array { base, .. } => {
            let each = element_size(base).max(1);
            UValue::Array(
                raw.chunks_exact(each)
                    .map(|e| decode(base, e, resolve))
                    .collect::<Result<_, Fault>>()?,
            )
        }
        Datatype::Enum { base, .. } => UValue::Enum(integer(base, raw)?),
        Datatype::Opaque { .. } => UValue::Opaque(raw.to_vec()),
        Datatype::VarLen {
            kind: VarLenKind::Sequence,
            base,
            ..
        } => {
            let each = element_size(base).max(1);
            let bytes = resolve(raw, each)?;
            UValue::Vlen(
                bytes
                    .chunks_exact(each)
                    .map(|e| decode(base, e, resolve))
                    .collect::<Result<_, Fault>>()?,
            )
        }
        Datatype::VarLen { .. }
        | Datatype::String {
            size: StringSize::Variable,
            ..
        } => {
            let bytes = resolve(raw, 1)?;
            UValue::Atomic(Values::String(vec![Some(bytes.as_slice())].into()))
        }
        Datatype::String {
            size: StringSize::Fixed(1),
            ..
        } => UValue::Atomic(Values::Char(raw.to_vec())),
        Datatype::String { .. } => {
            UValue::Atomic(Values::String(vec![Some(fixed_text(raw))].into()))
        }
        other => {
            let st = stored_type(other)?;
            if st.half {
                UValue::Atomic(Values::Float(floats_from_halves(raw, st.endian)))
            } else if st.nc_type == NcType::String {
                return Err("a string member of an unknown kind".into());
            } else {
                UValue::Atomic(values_from_stored(st.nc_type, raw, st.endian))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdf5_reader::{CompoundField, EnumMember};

    fn int(size: u8, signed: bool) -> Datatype {
        Datatype::FixedPoint {
            size,
            signed,
            byte_order: ByteOrder::LittleEndian,
        }
    }

    #[test]
    fn types_are_found_by_what_they_are_and_values_decoded() {
        let mut types = UserTypes::default();
        let e = Datatype::Enum {
            base: Box::new(int(1, true)),
            members: vec![
                EnumMember {
                    name: "low".into(),
                    value: vec![0xff],
                },
                EnumMember {
                    name: "high".into(),
                    value: vec![1],
                },
            ],
        };
        let t = types.define(&[], "level_t", &e).unwrap().unwrap();
        assert_eq!(
            t.kind,
            UserKind::Enum {
                base: NcType::Byte,
                members: vec![("low".into(), -1), ("high".into(), 1)]
            }
        );
        let c = Datatype::Compound {
            size: 6,
            fields: vec![
                CompoundField {
                    name: "l".into(),
                    byte_offset: 0,
                    datatype: e.clone(),
                },
                CompoundField {
                    name: "v".into(),
                    byte_offset: 2,
                    datatype: Datatype::Array {
                        base: Box::new(int(2, false)),
                        dims: vec![2],
                    },
                },
            ],
        };
        let t = types.define(&["g".into()], "rec_t", &c).unwrap().unwrap();
        let anon = types.transient(
            &[],
            &Datatype::Opaque {
                size: 2,
                tag: String::new(),
            },
        );
        assert_eq!(anon.unwrap().unwrap().name, "_AnonymousOpaque1");
        assert!(types.transient(&[], &int(4, true)).unwrap().is_none());
        let UserKind::Compound { fields, .. } = &t.kind else {
            panic!("{t:?}")
        };
        assert_eq!(
            fields[0].ty,
            TypeRef::User(TypeId {
                group: vec![],
                name: "level_t".into()
            })
        );
        assert_eq!(fields[1].dims, [2]);
        assert_eq!(types.find(&c).unwrap().group, ["g"]);
        let none = |_: &[u8], _: usize| -> Result<Vec<u8>, Fault> { Err("no heap".into()) };
        let v = decode(&c, &[0xff, 0, 1, 0, 2, 0], &none).unwrap();
        assert_eq!(
            v,
            UValue::Compound(vec![
                UValue::Enum(-1),
                UValue::Array(vec![
                    UValue::Atomic(Values::UShort(vec![1])),
                    UValue::Atomic(Values::UShort(vec![2]))
                ])
            ])
        );
        assert!(decode(&c, &[0; 5], &none).is_err());
        let vl = Datatype::VarLen {
            base: Box::new(int(4, true)),
            kind: VarLenKind::Sequence,
            encoding: hdf5_reader::StringEncoding::Ascii,
            padding: hdf5_reader::StringPadding::NullTerminate,
        };
        let heap = |_: &[u8], each: usize| -> Result<Vec<u8>, Fault> {
            assert_eq!(each, 4);
            Ok([7i32.to_le_bytes(), 8i32.to_le_bytes()].concat())
        };
        assert_eq!(
            decode(&vl, &[0; 16], &heap).unwrap(),
            UValue::Vlen(vec![
                UValue::Atomic(Values::Int(vec![7])),
                UValue::Atomic(Values::Int(vec![8]))
            ])
        );
    }
}
