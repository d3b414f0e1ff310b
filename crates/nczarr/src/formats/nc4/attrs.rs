//! Attributes of a netCDF-4 file as netcdf-c reads them: numbers in their byte
//! order, `char` text, strings by heap reference, fixed-length strings of other
//! writers, and values of user-defined types.

use hdf5_reader::messages::dataspace::DataspaceType;
use hdf5_reader::RawAttribute;

use super::fault::Fault;
use super::types::{fixed_text, floats_from_halves, stored_type, values_from_stored};
use super::user;
use crate::model::{Attr, NcType, TypeId, UserAttr, Values};

pub(super) fn find<'a>(attrs: &'a [RawAttribute], name: &str) -> Option<&'a RawAttribute> {
    attrs.iter().find(|a| a.name() == name)
}

/// A fixed-length string attribute's text, up to its first NUL.
pub(super) fn text_of(a: &RawAttribute) -> String {
    let raw = &a.message().raw_data;
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}

pub(super) fn int_values(a: &RawAttribute) -> Result<Vec<i32>, Fault> {
    let m = a.message();
    let st = stored_type(&m.datatype).map_err(|e| e.context(a.name()))?;
    let v = values_from_stored(st.nc_type, &m.raw_data, st.endian);
    (0..v.len())
        .map(|i| {
            v.get_i128(i)
                .and_then(|x| i32::try_from(x).ok())
                .ok_or_else(|| Fault::from(format!("{} is not a list of integers", a.name())))
        })
        .collect()
}

/// Resolves a variable-length string's heap reference to its bytes.
type StringRef<'a> = dyn Fn(&[u8]) -> Result<Vec<u8>, Fault> + 'a;

/// An attribute's values as netCDF-4 stores them: numbers in their byte order,
/// `char` text as one fixed-length string, `string` as variable-length strings.
pub(super) fn attr_values(a: &RawAttribute, resolve: &StringRef<'_>) -> Result<Attr, Fault> {
    atomic_attr_values(a, resolve).map(|values| Attr::new(a.name(), values))
}

/// An attribute of the user-defined type `id`: its values decoded, and an enum's as
/// its base integers too.
pub(super) fn user_attr(
    a: &RawAttribute,
    id: &TypeId,
    resolve: &user::Resolve<'_>,
) -> Result<Attr, Fault> {
    let m = a.message();
    let n = usize::try_from(
        m.dataspace
            .num_elements()
            .map_err(|e| Fault::from(hdf5_reader::error::Error::from(e)))?,
    )
    .map_err(|_| Fault::from("too many values"))?;
    let each = user::element_size(&m.datatype).max(1);
    let values = m
        .raw_data
        .chunks_exact(each)
        .take(n)
        .map(|e| user::decode(&m.datatype, e, resolve))
        .collect::<Result<Vec<_>, Fault>>()?;
    let base = match &m.datatype {
        hdf5_reader::Datatype::Enum { base, .. } => {
            let st = stored_type(base)?;
            values_from_stored(
                st.nc_type,
                &m.raw_data[..(n * each).min(m.raw_data.len())],
                st.endian,
            )
        }
        _ => Values::Char(Vec::new()),
    };
    let mut attr = Attr::new(a.name(), base);
    attr.user = Some(Box::new(UserAttr {
        ty: id.clone(),
        values,
    }));
    Ok(attr)
}

fn atomic_attr_values(a: &RawAttribute, resolve: &StringRef<'_>) -> Result<Values, Fault> {
    let m = a.message();
    let st = stored_type(&m.datatype)?;
    let n = usize::try_from(
        m.dataspace
            .num_elements()
            .map_err(|e| Fault::from(hdf5_reader::error::Error::from(e)))?,
    )
    .map_err(|_| Fault::from("too many values"))?;
    let raw = &m.raw_data;
    if let Some(width) = st.fixed_string {
        return Ok(fixed_string_attr(raw, width, n, m.dataspace.dataspace_type));
    }
    if st.half {
        let need = n * 2;
        if raw.len() < need {
            return Err(Fault::from(format!(
                "{n} values need {need} bytes, it holds {}",
                raw.len()
            )));
        }
        return Ok(Values::Float(floats_from_halves(&raw[..need], st.endian)));
    }
    match st.nc_type {
        NcType::Char => {
            let width = st.fixed_string.unwrap_or(1);
            let len = (n * width).min(raw.len());
            Ok(Values::Char(raw[..len].to_vec()))
        }
        NcType::String => {
            let entry = raw.len().checked_div(n).unwrap_or(0);
            if n > 0 && entry < 8 {
                return Err(Fault::from(format!(
                    "{} bytes hold no {n} strings",
                    raw.len()
                )));
            }
            let strings = raw
                .chunks_exact(entry.max(1))
                .take(n)
                .map(|r| {
                    vlen_string(r, |r| resolve(r).map_err(Fault::into_hdf5)).map_err(Fault::from)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Values::String(strings.into()))
        }
        t => {
            let need = n * t.size();
            if raw.len() < need {
                return Err(Fault::from(format!(
                    "{n} values need {need} bytes, it holds {}",
                    raw.len()
                )));
            }
            Ok(values_from_stored(t, &raw[..need], st.endian))
        }
    }
}

/// A fixed-length string attribute as netcdf-c reads it: a scalar one is `char` of
/// the string's width (how netCDF-4 writes `char` attributes; an empty one has a null
/// dataspace); one with dimensions is `string`, each element ending at its first NUL.
fn fixed_string_attr(raw: &[u8], width: usize, n: usize, space: DataspaceType) -> Values {
    if space != DataspaceType::Simple {
        return Values::Char(raw[..width.min(raw.len())].to_vec());
    }
    Values::String(
        raw.chunks(width.max(1))
            .take(n)
            .map(|e| Some(fixed_text(e)))
            .collect(),
    )
}

/// One variable-length string from its heap reference (length, heap address,
/// object index); a reference to no heap object is a missing string (NIL).
pub(super) fn vlen_string(
    reference: &[u8],
    resolve: impl Fn(&[u8]) -> hdf5_reader::error::Result<Vec<u8>>,
) -> hdf5_reader::error::Result<Option<Vec<u8>>> {
    let w = reference.len();
    if w >= 8 && reference[4..w - 4].iter().all(|&b| b == 0) {
        return Ok(None);
    }
    resolve(reference).map(Some)
}
