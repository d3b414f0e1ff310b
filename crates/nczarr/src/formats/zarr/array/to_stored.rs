//! Host-order netCDF values to stored element bytes of a Zarr dtype (the inverse of
//! `from_stored`).

use std::borrow::Cow;

use super::from_stored::ConvertError;
use crate::formats::zarr::v2::Dtype;
use crate::model::{NcType, Values};

/// Encode `values` as elements of `dtype`: numbers in the dtype's byte order, chars
/// one byte each, strings NUL-padded to the fixed width (longer strings are cut).
///
/// # Errors
/// [`ConvertError::ToStored`] when the dtype cannot hold the values' type.
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
                let n = s.len().min(*len);
                out.extend_from_slice(&s[..n]);
                out.extend(std::iter::repeat_n(0u8, len - n));
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
                let mut n = 0;
                for c in text.chars().take(*chars) {
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
        let s = Values::String(vec![Some(b"abcdef".to_vec()), None, Some(b"x".to_vec())].into());
        assert_eq!(
            &*to_stored(&s, &Dtype::parse("|S3").unwrap()).unwrap(),
            b"abc\0\0\0x\0\0"
        );
        let u = Values::String(vec![Some("hé".as_bytes().to_vec()), Some(b"".to_vec())].into());
        assert_eq!(
            &*to_stored(&u, &Dtype::parse("<U2").unwrap()).unwrap(),
            b"h\0\0\0\xe9\0\0\0\0\0\0\0\0\0\0\0"
        );
        assert_eq!(
            &*to_stored(&u, &Dtype::parse(">U1").unwrap()).unwrap(),
            b"\0\0\0h\0\0\0\0"
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
