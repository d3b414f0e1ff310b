//! Elements of numeric dtypes as numbers: what the numcodecs filters that change an
//! array's dtype compute with (`delta`, `fixedscaleoffset`, `quantize`, `astype`).
//! Dtypes come in Zarr v2's spelling (`<i4`) or Zarr v3's (`int32`), as zarr-python 3
//! writes them in `numcodecs.*` configurations.

use super::dtype::{Dtype, Endian};
use super::{ChunkFault, ConfigFault};
use crate::json::Json;

/// One element's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    I(i128),
    F(f64),
}

/// The dtype a codec parameter names, in either Zarr version's spelling.
pub(super) fn dtype_param(config: &Json, name: &'static str) -> Result<Dtype, ConfigFault> {
    let t = config
        .get(name)
        .and_then(Json::as_str)
        .ok_or(ConfigFault::Missing { name })?;
    parse_dtype(t).ok_or_else(|| ConfigFault::BadValue {
        name,
        expected: "a numeric dtype (<i4, int32, <f8, float64, ...)".into(),
        found: t.to_string(),
    })
}

/// `<i4`-style or Zarr v3 (`int32`, `float64`, `uint8`) dtype names.
fn parse_dtype(t: &str) -> Option<Dtype> {
    if let Ok(d) = Dtype::parse(t) {
        return Some(d);
    }
    let v2 = match t {
        "int8" => "|i1",
        "uint8" => "|u1",
        "int16" => "<i2",
        "uint16" => "<u2",
        "int32" => "<i4",
        "uint32" => "<u4",
        "int64" => "<i8",
        "uint64" => "<u8",
        "float32" => "<f4",
        "float64" => "<f8",
        _ => return None,
    };
    Dtype::parse(v2).ok()
}

/// Refuse dtypes the numeric filters cannot compute with.
pub(super) fn check(d: &Dtype, codec: &str) -> Result<(), ConfigFault> {
    match d {
        Dtype::Int { .. } | Dtype::Float { bytes: 4 | 8, .. } => Ok(()),
        other => Err(ConfigFault::Unavailable {
            what: format!("{codec} over dtype {other}"),
            have: "integers, <f4, <f8".into(),
        }),
    }
}

/// The elements of `input` as `d`, checked to be whole.
pub(super) fn elements<'a>(
    input: &'a [u8],
    d: &'a Dtype,
) -> Result<impl Iterator<Item = Num> + 'a, ChunkFault> {
    let size = d.item_size().max(1);
    if !input.len().is_multiple_of(size) {
        return Err(ChunkFault::PartialElement {
            len: input.len(),
            dtype: d.to_string(),
        });
    }
    Ok(input.chunks_exact(size).map(move |b| read(d, b)))
}

/// One element of `d` from its bytes.
pub(super) fn read(d: &Dtype, b: &[u8]) -> Num {
    let mut buf = [0u8; 8];
    let n = b.len().min(8);
    buf[..n].copy_from_slice(&b[..n]);
    if d.endian() == Endian::Big {
        buf[..n].reverse();
    }
    match d {
        Dtype::Float { bytes: 4, .. } => Num::F(f64::from(f32::from_le_bytes([
            buf[0], buf[1], buf[2], buf[3],
        ]))),
        Dtype::Float { .. } => Num::F(f64::from_le_bytes(buf)),
        Dtype::Int {
            signed: true,
            bytes,
            ..
        } => {
            let raw = u64::from_le_bytes(buf);
            let shift = 64 - 8 * bytes;
            Num::I(i128::from(((raw << shift) as i64) >> shift))
        }
        _ => Num::I(i128::from(u64::from_le_bytes(buf))),
    }
}

/// Append `v` as an element of `d` (floats to integers truncated, as numpy's `astype`).
pub(super) fn write(d: &Dtype, v: Num, out: &mut Vec<u8>) {
    let n = d.item_size();
    let mut bytes = match (d, v) {
        (Dtype::Float { bytes: 4, .. }, Num::F(f)) => (f as f32).to_le_bytes().to_vec(),
        (Dtype::Float { bytes: 4, .. }, Num::I(i)) => (i as f32).to_le_bytes().to_vec(),
        (Dtype::Float { .. }, Num::F(f)) => f.to_le_bytes().to_vec(),
        (Dtype::Float { .. }, Num::I(i)) => (i as f64).to_le_bytes().to_vec(),
        (_, Num::I(i)) => (wrap(d, i) as u64).to_le_bytes()[..n].to_vec(),
        (_, Num::F(f)) => (wrap(d, f as i128) as u64).to_le_bytes()[..n].to_vec(),
    };
    if d.endian() == Endian::Big {
        bytes.reverse();
    }
    out.extend_from_slice(&bytes);
}

/// `v` wrapped into the range of the integer dtype `d`, as C (and numpy) overflow.
pub(super) fn wrap(d: &Dtype, v: i128) -> i128 {
    let bits = 8 * d.item_size() as u32;
    let m = v & ((1i128 << bits) - 1);
    match d {
        Dtype::Int { signed: true, .. } if m >= 1i128 << (bits - 1) => m - (1i128 << bits),
        _ => m,
    }
}

/// A number as a float.
pub(super) fn as_f(n: Num) -> f64 {
    match n {
        Num::I(i) => i as f64,
        Num::F(f) => f,
    }
}

/// Every element of `input` (of `from`) mapped by `f` and written as `to`.
pub(super) fn map(
    input: &[u8],
    from: &Dtype,
    to: &Dtype,
    f: impl Fn(Num) -> Num,
) -> Result<Vec<u8>, ChunkFault> {
    let size = from.item_size().max(1);
    let mut out = Vec::with_capacity(input.len() / size * to.item_size());
    for x in elements(input, from)? {
        write(to, f(x), &mut out);
    }
    Ok(out)
}

/// A float parameter of a codec config (`scale`, `offset`).
pub(super) fn float_param(
    config: &Json,
    name: &'static str,
    default: f64,
) -> Result<f64, ConfigFault> {
    match config.get(name) {
        None | Some(Json::Null) => Ok(default),
        Some(v) => v
            .as_number()
            .and_then(crate::json::Number::as_f64)
            .ok_or_else(|| ConfigFault::BadValue {
                name,
                expected: "a number".into(),
                found: v.to_text(),
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_of_dtypes() {
        for (v3, v2) in [("int32", "<i4"), ("float64", "<f8"), ("uint8", "|u1")] {
            assert_eq!(parse_dtype(v3), Dtype::parse(v2).ok(), "{v3}");
        }
        assert_eq!(parse_dtype(">i2"), Dtype::parse(">i2").ok());
        assert_eq!(parse_dtype("complex64"), None);
    }

    #[test]
    fn numbers_round_trip_through_bytes() {
        let d = Dtype::parse(">i2").unwrap();
        let mut out = Vec::new();
        write(&d, Num::I(-2), &mut out);
        assert_eq!(out, [0xff, 0xfe]);
        assert_eq!(read(&d, &out), Num::I(-2));
        // Floats to integers truncate toward zero; integers wrap.
        let u1 = Dtype::parse("|u1").unwrap();
        let mut out = Vec::new();
        write(&u1, Num::F(3.9), &mut out);
        write(&u1, Num::I(257), &mut out);
        assert_eq!(out, [3, 1]);
    }
}
