//! Host-order netCDF values to stored element bytes of a Zarr dtype (the inverse of
//! `from_stored`).

use std::borrow::Cow;

use super::from_stored::ConvertError;
use crate::formats::zarr::v2::Dtype;
use crate::model::{NcType, Values};

/// Encode `values` as elements of `dtype`: numbers in the dtype's byte order, chars
/// one byte each, strings NUL-padded to the fixed width.
///
/// # Errors
/// [`ConvertError::ToStored`] when the dtype cannot hold the values' type;
/// [`ConvertError::TooLong`] for a string longer than the width (it is never cut: the
/// planners make the width the longest string's, and an append into narrower storage
/// is refused before anything is written).
/// Numbers already in the dtype's byte order are borrowed, not copied.
pub(crate) fn to_stored<'v>(
    values: &'v Values,
    dtype: &Dtype,
) -> Result<Cow<'v, [u8]>, ConvertError> {
    let size = dtype.item_size();
    let mut out = Vec::new();
    match (values, dtype) {
        (Values::String(items), Dtype::Bytes { len, .. }) => {
            out.reserve(items.len() * len);
            for s in items.iter() {
                let s = s.unwrap_or(&[]);
                if s.len() > *len {
                    return Err(too_long(s, s.len(), *len, "bytes", dtype));
                }
                out.extend_from_slice(s);
                out.extend(std::iter::repeat_n(0u8, len - s.len()));
            }
        }
        (Values::String(items), Dtype::Unicode { chars, endian }) => {
            out.reserve(items.len() * size);
            for (index, s) in items.iter().enumerate() {
                let s = s.unwrap_or(&[]);
                let text = std::str::from_utf8(s).map_err(|_| ConvertError::NotUtf8 {
                    index,
                    text: s.escape_ascii().to_string(),
                    dtype: dtype.to_string(),
                })?;
                let n_chars = text.chars().count();
                if n_chars > *chars {
                    return Err(too_long(s, n_chars, *chars, "characters", dtype));
                }
                let mut n = 0;
                for c in text.chars() {
                    let code = u32::from(c);
                    out.extend_from_slice(&match endian {
                        crate::formats::zarr::v2::Endian::Big => code.to_be_bytes(),
                        _ => code.to_le_bytes(),
                    });
                    n += 1;
                }
                out.extend(std::iter::repeat_n(0u8, (chars - n) * 4));
            }
        }
        (Values::Char(c), Dtype::Bytes { len: 1, .. }) => return Ok(Cow::Borrowed(c)),
        // Booleans are one byte, 0 or 1: any other value is true.
        (Values::UByte(b), Dtype::Bool) => {
            if b.iter().all(|&x| x <= 1) {
                return Ok(Cow::Borrowed(b));
            }
            out.extend(b.iter().map(|&x| u8::from(x != 0)));
        }
        (Values::Byte(b), Dtype::Bool) => out.extend(b.iter().map(|&x| u8::from(x != 0))),
        (v, Dtype::Int { .. } | Dtype::Float { bytes: 4 | 8, .. })
            if v.nc_type().size() == size && v.nc_type() != NcType::Char =>
        {
            let bytes = v.as_ne_bytes().unwrap_or(&[]);
            if !dtype.endian().needs_swap() || size == 1 {
                return Ok(Cow::Borrowed(bytes));
            }
            out.extend_from_slice(bytes);
            {
                for c in out.chunks_exact_mut(size) {
                    c.reverse();
                }
            }
        }
        (v, d) => {
            return Err(ConvertError::ToStored {
                nc_type: v.nc_type(),
                dtype: d.to_string(),
            })
        }
    }
    Ok(Cow::Owned(out))
}

/// The error for the string `s` of `len` (in `unit`) where `dtype` holds `width`.
fn too_long(s: &[u8], len: usize, width: usize, unit: &'static str, dtype: &Dtype) -> ConvertError {
    let shown = String::from_utf8_lossy(s);
    let text: String = if shown.chars().count() > 40 {
        shown.chars().take(40).chain("...".chars()).collect()
    } else {
        shown.into_owned()
    };
    ConvertError::TooLong {
        text: text.escape_debug().to_string(),
        len,
        width,
        unit,
        dtype: dtype.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::zarr::array::from_stored::{convert, ChunkData};

    #[test]
    fn round_trips_through_convert() {
        for (v, d) in [
            (Values::Int(vec![1, -2, 3]), ">i4"),
            (Values::Double(vec![1.5, f64::NAN]), "<f8"),
            (Values::UShort(vec![1, 65535]), ">u2"),
            (Values::Byte(vec![-1, 2]), "|i1"),
        ] {
            let dt = Dtype::parse(d).unwrap();
            let b = to_stored(&v, &dt).unwrap().into_owned();
            let ChunkData::Fixed(back) = convert(b, &dt, v.nc_type(), v.len()).unwrap() else {
                panic!()
            };
            let back = Values::from_ne_bytes(v.nc_type(), &back);
            assert_eq!(format!("{back:?}"), format!("{v:?}"), "{d}");
        }
        let s = Values::String(vec![Some(b"abc".to_vec()), None, Some(b"x".to_vec())].into());
        assert_eq!(
            &*to_stored(&s, &Dtype::parse("|S3").unwrap()).unwrap(),
            b"abc\0\0\0x\0\0"
        );
        // A string is never cut (issue 61: an append stored "a much longer note" as "a ").
        let long = Values::String(vec![Some(b"a much longer note".to_vec())].into());
        assert_eq!(
            to_stored(&long, &Dtype::parse("|S2").unwrap())
                .unwrap_err()
                .to_string(),
            "the string \"a much longer note\" (18 bytes) does not fit Zarr dtype |S2 (2 bytes); strings are never cut"
        );
        let day = Values::String(vec![Some(b"ok day 48".to_vec())].into());
        assert!(matches!(
            to_stored(&day, &Dtype::parse("<U1").unwrap()),
            Err(ConvertError::TooLong {
                len: 9,
                width: 1,
                ..
            })
        ));
        let u = Values::String(vec![Some("hé".as_bytes().to_vec()), Some(b"".to_vec())].into());
        assert_eq!(
            &*to_stored(&u, &Dtype::parse("<U2").unwrap()).unwrap(),
            b"h\0\0\0\xe9\0\0\0\0\0\0\0\0\0\0\0"
        );
        assert_eq!(
            &*to_stored(&u, &Dtype::parse(">U2").unwrap()).unwrap(),
            b"\0\0\0h\0\0\0\xe9\0\0\0\0\0\0\0\0"
        );
        let bad = Values::String(vec![Some(vec![0xff])].into());
        assert_eq!(
            to_stored(&bad, &Dtype::parse("<U1").unwrap())
                .unwrap_err()
                .to_string(),
            "string 0 is not UTF-8 text (\\xff), which Zarr dtype <U1 cannot hold"
        );
        // Numbers in this machine's order are lent, not copied.
        let v = Values::Float(vec![1.0, 2.0]);
        let native = if cfg!(target_endian = "little") {
            "<f4"
        } else {
            ">f4"
        };
        assert!(matches!(
            to_stored(&v, &Dtype::parse(native).unwrap()).unwrap(),
            Cow::Borrowed(_)
        ));
    }
}
