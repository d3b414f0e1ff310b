//! The data of a DAP4 response, read where it lies: each top-level variable's bytes
//! found by walking the serialization (fixed-size values in the sender's byte order;
//! strings and opaques each an 8-byte count then the bytes; structures field after
//! field; sequences a row count then the rows), its CRC32 checked, and values
//! decoded from those bytes when a reader asks.

use super::dmr::{Atomic, Var, VarType};
use crate::model::{Strings, UValue, Values};

/// How checksums are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksums {
    /// None follow the variables.
    Absent,
    /// Four bytes after each top-level variable: the CRC32 of its bytes (DAP4's spec,
    /// netcdf-c's server).
    Whole,
    /// Hyrax's: a string variable's CRC32 over its strings' bytes only, counts left
    /// out (netcdf-c's `#hyrax`).
    Hyrax,
}

/// One top-level variable's place in the data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// Where its bytes are (checksum excluded).
    pub bytes: std::ops::Range<usize>,
}

/// The byte order and bytes the values are read from.
#[derive(Debug, Clone, Copy)]
pub struct Data<'a> {
    /// The bytes.
    pub bytes: &'a [u8],
    /// They are little-endian.
    pub little_endian: bool,
}

impl Data<'_> {
    fn count(&self, at: usize) -> Result<u64, String> {
        let b = self.bytes.get(at..at + 8).ok_or_else(|| {
            format!(
                "the data ends at byte {} where a count was expected",
                self.bytes.len()
            )
        })?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(if self.little_endian {
            u64::from_le_bytes(a)
        } else {
            u64::from_be_bytes(a)
        })
    }

    fn take(&self, at: usize, n: u64) -> Result<usize, String> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| at.checked_add(n))
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "{n} bytes at byte {at} are past the data's end ({} bytes): truncated",
                    self.bytes.len()
                )
            })?;
        Ok(end)
    }
}

/// Values a variable of `dims` holds per instance (anonymous and named sizes resolved
/// by `size_of`).
pub fn elements(var: &Var, size_of: &dyn Fn(&super::dmr::DimUse) -> u64) -> u64 {
    var.dims.iter().map(size_of).fold(1u64, u64::saturating_mul)
}

/// The end of `n` instances of `var`'s type starting at `at`.
fn skip(
    var: &Var,
    n: u64,
    data: &Data<'_>,
    at: usize,
    size_of: &dyn Fn(&super::dmr::DimUse) -> u64,
    depth: usize,
) -> Result<usize, String> {
    if depth > 32 {
        return Err(format!("'{}': structures nested deeper than 32", var.name));
    }
    match &var.ty {
        VarType::Atomic(a) => match a.size() {
            Some(s) => data.take(at, n.saturating_mul(s as u64)),
            None => counted(n, data, at),
        },
        VarType::EnumBase(a) => data.take(at, n.saturating_mul(a.size().unwrap_or(1) as u64)),
        VarType::Opaque => counted(n, data, at),
        // An enum's values are its base type's: sized by the caller's lookup.
        VarType::Enum(_) => Err(format!(
            "'{}': an enum's size must be resolved first",
            var.name
        )),
        VarType::Structure(fields) => {
            let mut at = at;
            for _ in 0..n {
                for f in fields {
                    let m = elements(f, size_of);
                    at = skip(f, m, data, at, size_of, depth + 1)?;
                }
            }
            Ok(at)
        }
        VarType::Sequence(fields) => {
            let mut at = at;
            for _ in 0..n {
                let rows = data.count(at)?;
                at += 8;
                for _ in 0..rows {
                    for f in fields {
                        let m = elements(f, size_of);
                        at = skip(f, m, data, at, size_of, depth + 1)?;
                    }
                }
            }
            Ok(at)
        }
    }
}

fn counted(n: u64, data: &Data<'_>, mut at: usize) -> Result<usize, String> {
    for _ in 0..n {
        let c = data.count(at)?;
        at = data.take(at + 8, c)?;
    }
    Ok(at)
}

/// An enumeration's base type, looked up by its fully qualified name.
pub type EnumBase<'a> = &'a dyn Fn(&str) -> Option<Atomic>;

/// The variable with every enum replaced by its base type (what the walk sizes): a
/// top-level variable's as atomic values (what reads give), a field's as
/// [`VarType::EnumBase`].
pub fn resolved(var: &Var, base: EnumBase<'_>) -> Result<Var, String> {
    resolved_at(var, base, true)
}

fn resolved_at(var: &Var, base: EnumBase<'_>, top: bool) -> Result<Var, String> {
    let mut v = var.clone();
    v.ty = match &var.ty {
        VarType::Enum(e) => {
            let a =
                base(e).ok_or_else(|| format!("'{}': enumeration {e} is not defined", var.name))?;
            if top {
                VarType::Atomic(a)
            } else {
                VarType::EnumBase(a)
            }
        }
        VarType::Structure(f) => VarType::Structure(
            f.iter()
                .map(|f| resolved_at(f, base, false))
                .collect::<Result<_, _>>()?,
        ),
        VarType::Sequence(f) => VarType::Sequence(
            f.iter()
                .map(|f| resolved_at(f, base, false))
                .collect::<Result<_, _>>()?,
        ),
        t => t.clone(),
    };
    Ok(v)
}

fn crc_hyrax(
    var: &Var,
    n: u64,
    data: &Data<'_>,
    range: &std::ops::Range<usize>,
) -> Result<u32, String> {
    let mut h = crc32fast::Hasher::new();
    if matches!(var.ty, VarType::Atomic(Atomic::String | Atomic::Url)) {
        let mut at = range.start;
        for _ in 0..n {
            let c = data.count(at)?;
            let end = data.take(at + 8, c)?;
            h.update(&data.bytes[at + 8..end]);
            at = end;
        }
    } else {
        h.update(&data.bytes[range.clone()]);
    }
    Ok(h.finalize())
}

/// Each of `vars`' (top-level variables in the response's order, enums resolved,
/// with their element counts) bytes in `data`, checksums verified.
///
/// # Errors
/// A variable whose bytes run past the data, a checksum that does not match (the
/// variable named), bytes left over after the last variable.
pub fn delimit(
    vars: &[(&Var, u64)],
    data: &Data<'_>,
    checksums: Checksums,
    size_of: &dyn Fn(&super::dmr::DimUse) -> u64,
) -> Result<Vec<Placed>, String> {
    let mut at = 0usize;
    let mut out = Vec::with_capacity(vars.len());
    for (var, n) in vars {
        let end = skip(var, *n, data, at, size_of, 0)
            .map_err(|m| format!("variable '{}': {m}", var.name))?;
        let range = at..end;
        at = end;
        if checksums != Checksums::Absent {
            let stored = data.bytes.get(at..at + 4).ok_or_else(|| {
                format!(
                    "variable '{}': the data ends before its checksum: truncated",
                    var.name
                )
            })?;
            let stored = if data.little_endian {
                u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]])
            } else {
                u32::from_be_bytes([stored[0], stored[1], stored[2], stored[3]])
            };
            let computed = match checksums {
                Checksums::Hyrax => crc_hyrax(var, *n, data, &range)?,
                _ => crc32fast::hash(&data.bytes[range.clone()]),
            };
            if stored != computed {
                return Err(format!(
                    "variable '{}': checksum mismatch (CRC32 sent {stored:#010x}, computed {computed:#010x})",
                    var.name
                ));
            }
            at += 4;
        }
        out.push(Placed { bytes: range });
    }
    if at != data.bytes.len() {
        return Err(format!(
            "{} bytes follow the last variable's data: the response does not match its DMR",
            data.bytes.len() - at
        ));
    }
    Ok(out)
}

/// Whether the data carries checksums, where nothing said: the reading of `vars` that
/// ends exactly at the data's end (with, or else without).
pub fn infer_checksums(
    vars: &[(&Var, u64)],
    data: &Data<'_>,
    size_of: &dyn Fn(&super::dmr::DimUse) -> u64,
) -> Checksums {
    let mut at = 0usize;
    for (var, n) in vars {
        match skip(var, *n, data, at, size_of, 0) {
            Ok(end) => at = end + 4,
            Err(_) => return Checksums::Absent,
        }
    }
    if at == data.bytes.len() {
        Checksums::Whole
    } else {
        Checksums::Absent
    }
}

/// `n` fixed-size values of `a` at the start of `bytes`.
pub fn fixed(a: Atomic, bytes: &[u8], little_endian: bool) -> Values {
    let t = a.nc_type();
    let size = t.size();
    if little_endian == cfg!(target_endian = "little") || size == 1 {
        Values::from_ne_bytes(t, bytes)
    } else {
        let mut own = bytes.to_vec();
        crate::codec::dtype::swap_items(&mut own, size);
        Values::from_ne_bytes(t, &own)
    }
}

/// The strings (or opaques' bytes) counted in `bytes`, `n` of them.
///
/// # Errors
/// A count past the bytes.
pub fn strings(bytes: &[u8], n: u64, little_endian: bool) -> Result<Strings, String> {
    let data = Data {
        bytes,
        little_endian,
    };
    let mut out = Strings::with_capacity(usize::try_from(n).unwrap_or(0).min(1 << 20), bytes.len());
    let mut at = 0usize;
    for _ in 0..n {
        let c = data.count(at)?;
        let end = data.take(at + 8, c)?;
        out.push(Some(&bytes[at + 8..end]));
        at = end;
    }
    Ok(out)
}

/// `n` instances of `var`'s type (user-defined: opaque, structure, sequence; enums
/// resolved) from `bytes`, as the model holds them.
///
/// # Errors
/// Bytes that run out.
pub fn instances(
    var: &Var,
    n: u64,
    bytes: &[u8],
    little_endian: bool,
    size_of: &dyn Fn(&super::dmr::DimUse) -> u64,
) -> Result<Vec<UValue>, String> {
    let data = Data {
        bytes,
        little_endian,
    };
    let mut at = 0usize;
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(instance(var, &data, &mut at, size_of, 0)?);
    }
    Ok(out)
}

fn instance(
    var: &Var,
    data: &Data<'_>,
    at: &mut usize,
    size_of: &dyn Fn(&super::dmr::DimUse) -> u64,
    depth: usize,
) -> Result<UValue, String> {
    if depth > 32 {
        return Err("structures nested deeper than 32".into());
    }
    let fields = |fields: &[Var], at: &mut usize| -> Result<UValue, String> {
        let mut vals = Vec::with_capacity(fields.len());
        for f in fields {
            let m = elements(f, size_of);
            let mut items = Vec::new();
            for _ in 0..m {
                items.push(instance(f, data, at, size_of, depth + 1)?);
            }
            vals.push(if f.dims.is_empty() {
                items.pop().unwrap_or(UValue::Array(Vec::new()))
            } else {
                UValue::Array(items)
            });
        }
        Ok(UValue::Compound(vals))
    };
    Ok(match &var.ty {
        VarType::Atomic(a) => match a.size() {
            Some(s) => {
                let end = data.take(*at, s as u64)?;
                let v = fixed(*a, &data.bytes[*at..end], data.little_endian);
                *at = end;
                UValue::Atomic(v)
            }
            None => {
                let c = data.count(*at)?;
                let end = data.take(*at + 8, c)?;
                let mut s = Strings::new();
                s.push(Some(&data.bytes[*at + 8..end]));
                *at = end;
                UValue::Atomic(Values::String(s))
            }
        },
        VarType::Opaque => {
            let c = data.count(*at)?;
            let end = data.take(*at + 8, c)?;
            let v = UValue::Opaque(data.bytes[*at + 8..end].to_vec());
            *at = end;
            v
        }
        VarType::EnumBase(a) => {
            let size = a.size().unwrap_or(1) as u64;
            let end = data.take(*at, size)?;
            let v = fixed(*a, &data.bytes[*at..end], data.little_endian);
            *at = end;
            UValue::Enum(v.get_i128(0).unwrap_or(0))
        }
        VarType::Enum(e) => return Err(format!("enumeration {e} not resolved")),
        VarType::Structure(f) => fields(f, at)?,
        VarType::Sequence(f) => {
            let rows = data.count(*at)?;
            *at += 8;
            let mut out = Vec::new();
            for _ in 0..rows {
                out.push(fields(f, at)?);
            }
            UValue::Vlen(out)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::dmr::DimUse;
    use super::*;

    fn var(name: &str, ty: VarType, n: u64) -> Var {
        Var {
            name: name.into(),
            ty,
            dims: vec![DimUse::Anonymous(n)],
            maps: vec![],
            attrs: vec![],
            opaque_size: None,
        }
    }

    fn size(d: &DimUse) -> u64 {
        match d {
            DimUse::Anonymous(n) => *n,
            DimUse::Named(_) => 0,
        }
    }

    #[test]
    fn variables_delimited_and_checked() {
        let a = var("a", VarType::Atomic(Atomic::Int16), 2);
        let s = var("s", VarType::Atomic(Atomic::String), 2);
        let mut bytes = vec![1, 0, 2, 0];
        let c1 = crc32fast::hash(&bytes);
        bytes.extend(c1.to_le_bytes());
        let start = bytes.len();
        for t in [&b"hi"[..], b""] {
            bytes.extend((t.len() as u64).to_le_bytes());
            bytes.extend(t);
        }
        let c2 = crc32fast::hash(&bytes[start..]);
        bytes.extend(c2.to_le_bytes());
        let data = Data {
            bytes: &bytes,
            little_endian: true,
        };
        let vars = [(&a, 2), (&s, 2)];
        assert_eq!(infer_checksums(&vars, &data, &size), Checksums::Whole);
        let placed = delimit(&vars, &data, Checksums::Whole, &size).unwrap();
        assert_eq!(placed[0].bytes, 0..4);
        assert_eq!(
            fixed(Atomic::Int16, &bytes[0..4], true),
            Values::Short(vec![1, 2])
        );
        let st = strings(&bytes[placed[1].bytes.clone()], 2, true).unwrap();
        assert_eq!(st.value(0), Some(&b"hi"[..]));
        assert_eq!(st.value(1), Some(&b""[..]));
        let mut bad = bytes.clone();
        bad[0] = 9;
        let data = Data {
            bytes: &bad,
            little_endian: true,
        };
        assert!(delimit(&vars, &data, Checksums::Whole, &size)
            .unwrap_err()
            .contains("checksum mismatch"));
        let data = Data {
            bytes: &bytes[..bytes.len() - 5],
            little_endian: true,
        };
        assert!(delimit(&vars, &data, Checksums::Whole, &size).is_err());
        assert_eq!(
            fixed(Atomic::Int16, &[0, 1, 0, 2], false),
            Values::Short(vec![1, 2])
        );
    }

    #[test]
    fn a_field_of_an_enumeration_reads_as_its_constant() {
        let field = Var {
            dims: vec![],
            ..var("e", VarType::Enum("/e_t".into()), 1)
        };
        let s = var("s", VarType::Structure(vec![field]), 2);
        let s = resolved(&s, &|_| Some(Atomic::Int16)).unwrap();
        let got = instances(&s, 2, &[1, 0, 0xff, 0xff], true, &size).unwrap();
        assert_eq!(
            got,
            vec![
                UValue::Compound(vec![UValue::Enum(1)]),
                UValue::Compound(vec![UValue::Enum(-1)])
            ]
        );
    }

    #[test]
    fn a_huge_count_is_refused_not_allocated() {
        let s = var("s", VarType::Atomic(Atomic::String), 1);
        let mut bytes = u64::MAX.to_le_bytes().to_vec();
        bytes.extend([0; 4]);
        let data = Data {
            bytes: &bytes,
            little_endian: true,
        };
        assert!(delimit(&[(&s, 1)], &data, Checksums::Absent, &size).is_err());
        assert!(strings(&bytes, 1, true).is_err());
        assert!(strings(&bytes, u64::MAX, true).is_err());
    }
}
