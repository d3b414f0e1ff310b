//! An [`Encoding`] as a Zarr v2 array: the dtype, stored shape, chunks, fill value and
//! codec chain (`filters`, then the `compressor`).

use super::{CharDtype, Layout, ScalarShape, WriteOptions};
use crate::encoding::{Chunking, Encoding, Endianness, ZarrKind};
use crate::formats::zarr::array::{ChunkKeys, Sharding, StoredArray};
use crate::formats::zarr::v2::{fill_json, ArrayMeta, Dtype, Endian};
use crate::model::{NcType, Var};

/// The stored dtype for a netCDF type: one-byte types without a byte order (`|i1`, so
/// zarr-python opens them), char as `|S1` or netcdf-c's `>S1`, strings at `width`.
pub(crate) fn dtype_for(
    t: NcType,
    endian: Option<Endianness>,
    width: usize,
    char_dtype: CharDtype,
) -> Dtype {
    let e = match endian {
        Some(Endianness::Big) => Endian::Big,
        Some(Endianness::Little) | None => Endian::Little,
    };
    let int = |bytes, signed| Dtype::Int {
        bytes,
        signed,
        endian: if bytes == 1 { Endian::NotApplicable } else { e },
    };
    match t {
        NcType::Byte => int(1, true),
        NcType::UByte => int(1, false),
        NcType::Short => int(2, true),
        NcType::UShort => int(2, false),
        NcType::Int => int(4, true),
        NcType::UInt => int(4, false),
        NcType::Int64 => int(8, true),
        NcType::UInt64 => int(8, false),
        NcType::Float => Dtype::Float {
            bytes: 4,
            endian: e,
        },
        NcType::Double => Dtype::Float {
            bytes: 8,
            endian: e,
        },
        NcType::Char => Dtype::Bytes {
            len: 1,
            endian: match char_dtype {
                CharDtype::Netcdf => Endian::Big,
                CharDtype::Zarr => Endian::NotApplicable,
            },
        },
        NcType::String => Dtype::Bytes {
            len: width.max(1),
            endian: Endian::NotApplicable,
        },
    }
}

/// The dtype the variable `var`, planned as `enc`, is stored with. Pure Zarr and Zarr
/// v3 serve zarr-python and xarray: strings as Unicode (`<U`, v3 `fixed_length_utf32`:
/// str to xarray, as its own writer stores them) unless the input held bytes, and
/// booleans as booleans where the input held them (netcdf-c opens neither). NCZarr
/// serves netcdf-c: fixed-width bytes, and booleans as ubyte with xarray's `dtype =
/// "bool"` attribute.
fn zarr_dtype(var: &Var, enc: &Encoding, opts: &WriteOptions) -> Dtype {
    let zarr = opts.pure_zarr || opts.zarr3;
    match (var.nc_type, enc.zarr_kind) {
        (NcType::String, kind) if !zarr || kind == Some(ZarrKind::Bytes) => Dtype::Bytes {
            len: enc.string_width.unwrap_or(1).max(1),
            endian: Endian::NotApplicable,
        },
        // The width in bytes holds at least as many characters.
        (NcType::String, _) => Dtype::Unicode {
            chars: enc.string_chars.or(enc.string_width).unwrap_or(1).max(1),
            endian: Endian::Little,
        },
        (NcType::UByte | NcType::Byte, Some(ZarrKind::Bool)) if zarr => Dtype::Bool,
        (t, _) => dtype_for(
            t,
            enc.endian,
            enc.string_width.unwrap_or(1),
            opts.char_dtype,
        ),
    }
}

/// How the variable `var` with dimension lengths `shape`, planned as `enc`, is stored.
pub(crate) fn stored_array(
    var: &Var,
    shape: &[u64],
    enc: &Encoding,
    opts: &WriteOptions,
) -> StoredArray {
    let dtype = zarr_dtype(var, enc, opts);
    let (stored_shape, chunks) = if shape.is_empty() {
        let zero_d = opts.pure_zarr
            || opts.zarr3
            || (opts.scalar_shape == ScalarShape::ZeroD && opts.layout == Layout::Current);
        if zero_d {
            (Vec::new(), Vec::new())
        } else {
            (vec![1], vec![1])
        }
    } else {
        let chunks = match &enc.chunking {
            Some(Chunking::Chunked(c)) => c.clone(),
            // Contiguous: one chunk holds the whole variable.
            _ => shape.iter().map(|&l| l.max(1)).collect(),
        };
        (shape.to_vec(), chunks)
    };
    // netcdf-c refuses any codec on a scalar (HDF5 has no filters for scalar
    // datasets): a Zarr v2 scalar is stored plain, which one value costs nothing.
    let mut filters = if shape.is_empty() && !opts.zarr3 {
        Vec::new()
    } else {
        enc.codecs.clone()
    };
    let compressor = if opts.zarr3 { None } else { filters.pop() };
    let sharding = if opts.zarr3 {
        shards_of(var, &stored_shape, &chunks, &opts.shards)
    } else {
        None
    };
    StoredArray {
        dtype,
        shape: stored_shape,
        chunks,
        fill: enc.fill_value().cloned(),
        filters,
        compressor,
        transpose: None,
        keys: if opts.zarr3 {
            ChunkKeys::Default('/')
        } else {
            ChunkKeys::V2(opts.separator)
        },
        sharding,
        fill_implied: false,
    }
}

/// The shards of a variable: along each dimension named in `spec`, the given length
/// rounded up to whole chunks (and at most the chunks the dimension has); one chunk
/// along the others. `None` when every shard would hold one chunk.
fn shards_of(var: &Var, shape: &[u64], chunks: &[u64], spec: &[(String, u64)]) -> Option<Sharding> {
    if spec.is_empty() || var.dims.len() != shape.len() {
        return None;
    }
    let shard: Vec<u64> = var
        .dims
        .iter()
        .zip(shape.iter().zip(chunks))
        .map(|(d, (&len, &c))| {
            let c = c.max(1);
            match spec.iter().find(|(n, _)| *n == d.name) {
                Some(&(_, want)) => {
                    let most = len.div_ceil(c).max(1);
                    want.div_ceil(c).clamp(1, most) * c
                }
                None => c,
            }
        })
        .collect();
    (shard.as_slice() != chunks).then_some(Sharding {
        shape: shard,
        index_checksum: true,
        index_at_start: false,
    })
}

/// The `.zarray` document of a stored array. `base64_fill` spells byte-string fill
/// values as Zarr does (pure Zarr); NCZarr writes the text itself.
pub(crate) fn array_meta(stored: &StoredArray, base64_fill: bool) -> ArrayMeta {
    ArrayMeta {
        shape: stored.shape.clone(),
        chunks: stored.chunks.clone(),
        dtype: stored.dtype.clone(),
        fill_value: fill_json(stored.fill.as_ref(), base64_fill),
        fortran_order: stored.is_fortran(),
        compressor: stored.compressor.clone(),
        filters: stored.filters.clone(),
        separator: stored.keys.separator(),
        extra: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DimRef, Values};

    fn var(t: NcType, rank: usize) -> Var {
        Var {
            name: "v".into(),
            nc_type: t,
            user_type: None,
            dims: (0..rank)
                .map(|i| DimRef {
                    group: vec![],
                    name: format!("d{i}"),
                })
                .collect(),
            attrs: vec![],
            notes: vec![],
        }
    }

    #[test]
    fn dtypes_zarr_python_opens() {
        let d = |t, e, c| dtype_for(t, e, 5, c).to_string();
        assert_eq!(
            d(NcType::Byte, Some(Endianness::Big), CharDtype::Zarr),
            "|i1"
        );
        assert_eq!(
            d(NcType::UShort, Some(Endianness::Big), CharDtype::Zarr),
            ">u2"
        );
        assert_eq!(d(NcType::Double, None, CharDtype::Zarr), "<f8");
        assert_eq!(d(NcType::Char, None, CharDtype::Zarr), "|S1");
        assert_eq!(d(NcType::Char, None, CharDtype::Netcdf), ">S1");
        assert_eq!(d(NcType::String, None, CharDtype::Zarr), "|S5");
    }

    #[test]
    fn scalars_contiguous_and_codecs() {
        let enc = Encoding {
            chunking: Some(Chunking::Contiguous),
            codecs: vec![
                crate::json::parse_str(r#"{"id": "shuffle", "elementsize": 4}"#).unwrap(),
                crate::json::parse_str(r#"{"id": "zlib", "level": 1}"#).unwrap(),
            ],
            fill: Some(Values::Int(vec![7])),
            ..Encoding::default()
        };
        let opts = WriteOptions::default();
        let s = stored_array(&var(NcType::Int, 2), &[3, 0], &enc, &opts);
        assert_eq!(
            (s.shape.clone(), s.chunks.clone()),
            (vec![3, 0], vec![3, 1])
        );
        assert_eq!(s.filters.len(), 1);
        assert_eq!(
            s.compressor.unwrap().get("id").unwrap().as_str(),
            Some("zlib")
        );
        assert_eq!(s.fill, Some(Values::Int(vec![7])));
        let scalar = |opts: &WriteOptions| {
            let s = stored_array(&var(NcType::Int, 0), &[], &Encoding::default(), opts);
            (s.shape, s.chunks)
        };
        assert_eq!(scalar(&opts), (vec![1], vec![1]));
        let zero_d = WriteOptions {
            scalar_shape: ScalarShape::ZeroD,
            ..WriteOptions::default()
        };
        assert_eq!(scalar(&zero_d), (vec![], vec![]));
        let pure = WriteOptions {
            pure_zarr: true,
            ..WriteOptions::default()
        };
        assert_eq!(scalar(&pure), (vec![], vec![]));
        let v490 = WriteOptions {
            layout: Layout::Netcdf490,
            scalar_shape: ScalarShape::ZeroD,
            ..WriteOptions::default()
        };
        assert_eq!(scalar(&v490), (vec![1], vec![1]));
    }
}
