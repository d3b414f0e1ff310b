//! Building a variable from its `.zarray` and `.zattrs`.

use super::attrs::{self, TypeHint};
use super::Generation;
use crate::error::{Error, Result};
use crate::formats::zarr::array::{ChunkKeys, StoredArray};
use crate::formats::zarr::v2::{parse_fill_value, ArrayMeta, Dtype, Endian};
use crate::json::Json;
use crate::model::{Attr, DimRef, NcType, Values, Var};
use crate::store::StoreKey;

/// The netCDF type of stored elements, and a remark when the mapping is not exact.
pub(crate) fn nc_type_of(dtype: &Dtype, nczarr: bool) -> (NcType, Option<String>) {
    match dtype {
        // As xarray stores booleans in netCDF: ubyte, with the attribute `dtype = "bool"`
        // (see `bool_attr`).
        Dtype::Bool => (NcType::UByte, None),
        // The dtype parser accepts 1, 2, 4 and 8 bytes only.
        Dtype::Int { bytes, signed, .. } => {
            (NcType::integer(*bytes, *signed).unwrap_or(NcType::UInt64), None)
        }
        Dtype::Float { bytes: 2, .. } => (NcType::Float, Some(format!("Zarr dtype {dtype} (half precision) shown as float"))),
        Dtype::Float { bytes: 4, .. } => (NcType::Float, None),
        Dtype::Float { .. } => (NcType::Double, None),
        // NCZarr marks char with '>S1'; a pure Zarr |S1 array is text one byte per element too.
        Dtype::Bytes { len: 1, endian } if !nczarr || *endian == Endian::Big => (NcType::Char, None),
        Dtype::Bytes { .. } => (NcType::String, None),
        // UTF-32 text decodes to the same strings: nothing to remark.
        Dtype::Unicode { .. } => (NcType::String, None),
        Dtype::Object => (NcType::String, None),
        Dtype::DateTime { unit, .. } => (
            NcType::Int64,
            Some(format!("Zarr dtype {dtype}: values are datetime64 counts of '{unit}' since 1970-01-01T00:00:00")),
        ),
        Dtype::TimeDelta { unit, .. } => {
            (NcType::Int64, Some(format!("Zarr dtype {dtype}: values are timedelta64 counts of '{unit}'")))
        }
    }
}

/// The inputs for one variable.
pub(crate) struct VarSource<'a> {
    pub(crate) name: &'a str,
    pub(crate) key: &'a StoreKey,
    pub(crate) zarray: Option<&'a Json>,
    pub(crate) zattrs: Option<&'a Json>,
    /// Attribute types (`_nczarr_attr.types` or V1 `.nczattr`), if any.
    pub(crate) types: Option<&'a Json>,
    pub(crate) dims: Vec<DimRef>,
    /// True when the NCZarr metadata marks the variable as a netCDF scalar.
    pub(crate) scalar: bool,
    pub(crate) generation: Generation,
    /// netcdf-c 4.9.0 wrote this dataset (also in pure Zarr mode): '<U1' char arrays
    /// hold one byte per char, and data is in host (little-endian) order whatever the
    /// dtype says.
    pub(crate) netcdf_490: bool,
    /// `_nczarr_array.nctype` (nczarr-tools' marker): the netCDF type when the dtype
    /// alone is ambiguous (`|S1` char).
    pub(crate) nctype: Option<NcType>,
    /// `_nczarr_array.fill` is `"default"` (nczarr-tools' marker): the fill is netCDF's
    /// default though `.zarray` says `null` (left out so that xarray keeps the type).
    pub(crate) default_fill: bool,
}

/// Build the variable and how it is stored. Attribute problems are pushed to
/// `problems` and the attribute skipped; a bad `.zarray` is an error.
///
/// # Errors
/// [`Error::Metadata`] naming `.zarray` for a missing or invalid array description.
pub(crate) fn build(src: VarSource<'_>, problems: &mut Vec<String>) -> Result<(Var, StoredArray)> {
    let zarray_key = src.key.join(".zarray")?;
    let zarray = src
        .zarray
        .ok_or_else(|| Error::metadata(&zarray_key, "missing: the variable has no .zarray"))?;
    let mut meta = ArrayMeta::from_json(zarray, zarray_key.as_str())?;
    let nczarr = src.generation != Generation::PureZarr;
    if src.netcdf_490 {
        // netcdf-c 4.9.0 labelled char as '<U1' but stored one byte per char, and
        // wrote host (little-endian) bytes whatever the dtype's byte order said.
        meta.dtype = match meta.dtype {
            Dtype::Unicode { chars: 1, .. } => Dtype::Bytes {
                len: 1,
                endian: Endian::Big,
            },
            Dtype::Int {
                bytes,
                signed,
                endian: Endian::Big,
            } => Dtype::Int {
                bytes,
                signed,
                endian: Endian::Little,
            },
            Dtype::Float {
                bytes,
                endian: Endian::Big,
            } => Dtype::Float {
                bytes,
                endian: Endian::Little,
            },
            other => other,
        };
    }
    let (mut nc_type, note) = nc_type_of(&meta.dtype, nczarr);
    if src.nctype == Some(NcType::Char) && matches!(meta.dtype, Dtype::Bytes { len: 1, .. }) {
        nc_type = NcType::Char;
    }
    let mut fill = parse_fill_value(
        &meta.fill_value,
        &meta.dtype,
        nc_type,
        !nczarr && holds_bytes(&meta),
    )
    .map_err(|e| Error::metadata(&zarray_key, e.to_string()))?;
    let fill_implied = fill.is_none() && src.default_fill;
    if fill_implied {
        fill = Some(Values::default_fill(nc_type));
    }
    if nczarr {
        // netcdf-c writes doubles with %g: the default fill 9.969209968386869e36 becomes
        // 9.96921e+36, which is no longer the default. Restore it.
        if let Some(Values::Double(v)) = &mut fill {
            if v.first() == Some(&9.96921e36) {
                v[0] = 9.969_209_968_386_869e36;
            }
        }
    }
    let mut attrs = read_attrs(src.zattrs, src.types, Some(nc_type), src.key, problems);
    if !nczarr && attrs.iter().all(|a| a.name != "_FillValue") && nc_type != NcType::String {
        // Zarr keeps the fill in .zarray; netCDF readers (and xarray) show it as
        // _FillValue. netCDF's own default fill needs no attribute.
        if let Some(f) = fill.as_ref().filter(|f| !is_default_fill(f)) {
            attrs.insert(0, Attr::new("_FillValue", f.clone()));
        }
    }
    add_bool_attr(&meta.dtype, &mut attrs);
    let shape = meta.shape.clone();
    if !src.scalar && shape.len() != src.dims.len() {
        return Err(Error::metadata(
            &zarray_key,
            format!(
                "shape {:?} has {} dimensions but the variable has {} dimension names",
                shape,
                shape.len(),
                src.dims.len()
            ),
        ));
    }
    if src.scalar && shape.iter().product::<u64>() != 1 {
        return Err(Error::metadata(
            &zarray_key,
            format!("a scalar must hold one element, shape is {shape:?}"),
        ));
    }
    let var = Var {
        name: src.name.to_string(),
        nc_type,
        user_type: None,
        dims: if src.scalar { Vec::new() } else { src.dims },
        attrs,
        notes: note.into_iter().collect(),
    };
    let stored = StoredArray {
        dtype: meta.dtype,
        shape,
        chunks: meta.chunks,
        fill,
        filters: meta.filters,
        compressor: meta.compressor,
        transpose: meta
            .fortran_order
            .then(|| (0..meta.shape.len()).rev().collect()),
        keys: ChunkKeys::V2(meta.separator),
        sharding: None,
        fill_implied,
    };
    Ok((var, stored))
}

/// True when the array holds byte strings (`|S`, or `|O` through vlen-bytes), whose
/// fill zarr-python writes in base64; text (`<U`, `|O` through vlen-utf8) it writes
/// as it is.
fn holds_bytes(meta: &ArrayMeta) -> bool {
    match meta.dtype {
        Dtype::Bytes { .. } => true,
        Dtype::Object => meta
            .filters
            .iter()
            .any(|f| f.get("id").and_then(Json::as_str) == Some("vlen-bytes")),
        _ => false,
    }
}

/// Booleans read as ubyte carry xarray's netCDF marking of them, `dtype = "bool"`, so
/// that every copy (netCDF files, NCZarr) is read back as booleans by xarray. Not
/// with a `_FillValue` (zarr-python's `false` in Zarr v2, which xarray masks): xarray
/// would mask the falses and then read every masked value as true.
pub(crate) fn add_bool_attr(dtype: &Dtype, attrs: &mut Vec<Attr>) {
    if *dtype == Dtype::Bool
        && attrs
            .iter()
            .all(|a| a.name != "dtype" && a.name != "_FillValue")
    {
        attrs.push(Attr::new("dtype", Values::text("bool")));
    }
}

/// True when `fill` is netCDF's default fill for its type (doubles also in netcdf-c's
/// 6-digit spelling).
pub(crate) fn is_default_fill(fill: &Values) -> bool {
    match fill {
        // A char fill of NUL is how Zarr writers say "no particular fill".
        Values::Char(v) => v.first().is_none_or(|&c| c == 0),
        Values::Double(v) => v
            .first()
            .is_some_and(|&x| x == 9.969_209_968_386_869e36 || x == 9.96921e36),
        f => *f == Values::default_fill(f.nc_type()),
    }
}

/// The visible attributes of a `.zattrs` object, typed by `types` where it has an entry.
/// `fill_type` types an untyped `_FillValue` (the variable's type).
pub(crate) fn read_attrs(
    zattrs: Option<&Json>,
    types: Option<&Json>,
    fill_type: Option<NcType>,
    key: &StoreKey,
    problems: &mut Vec<String>,
) -> Vec<Attr> {
    let Some(members) = zattrs.and_then(Json::as_object) else {
        if let Some(z) = zattrs {
            problems.push(format!(
                "key '{}': .zattrs is {}, not an object; attributes ignored",
                key_of(key),
                z.kind()
            ));
        }
        return Vec::new();
    };
    let mut out = Vec::with_capacity(members.len());
    for (name, value) in members {
        if attrs::is_hidden(name) || (key.is_root() && name == "_NCProperties") {
            continue;
        }
        let hint = types.and_then(|t| t.get(name)).and_then(attrs::type_hint);
        let hint = match hint {
            Some(TypeHint::Internal) => continue,
            Some(TypeHint::Nc(t)) => Some(t),
            None if name == "_FillValue" => fill_type,
            None => None,
        };
        match attrs::convert(name, value, hint) {
            Ok(a) => out.push(a),
            Err(m) => problems.push(format!("key '{}': {m}; attribute skipped", key_of(key))),
        }
    }
    out
}

fn key_of(prefix: &StoreKey) -> String {
    prefix
        .join(".zattrs")
        .map(|k| k.to_string())
        .unwrap_or_else(|_| ".zattrs".into())
}
