//! Writing a dataset: the metadata layout and the chunks.
//!
//! NCZarr metadata is written in netcdf-c 4.10's layout (all NCZarr information in
//! `.zattrs` as `_nczarr_*` attributes; `.zgroup`/`.zarray` pure Zarr), which netcdf-c
//! 4.9.3+ reads natively. Choices that let zarr-python and xarray open the same store
//! (see `docs/layout.md` for the measurements behind them):
//! - one-byte integers are `|i1`/`|u1` (netcdf-c writes `<i1`, which zarr-python refuses);
//! - char is `|S1` by default, with the netCDF type kept in `_nczarr_array` so nczarr
//!   readers still see char ([`CharDtype::Netcdf`] writes netcdf-c's `>S1`);
//! - shuffle records its real element size (netcdf-c writes 0, which numcodecs misreads);
//! - numbers are written with full precision (netcdf-c writes `%g`, 6 digits).
//!
//! [`Generation::Netcdf490`] writes netcdf-c 4.9.0's layout instead, for the ncdump and
//! ncgen 4.9.0 that Debian 12 and Ubuntu 22.04 ship, which crash on the current one.
//!
//! Pure Zarr (`mode=zarr`) is the same without `_nczarr_*` attributes; `_ARRAY_DIMENSIONS`
//! is written unless `noxarray`. Chunks are written first and the metadata that makes
//! the dataset openable last, the root `.zgroup` at the very end.

use rayon::prelude::*;

use crate::array::convert_out::to_stored;
use crate::chunking::{default_chunks, ChunkGrid, Region, DEFAULT_CHUNK_BYTES};
use crate::codec::{ChunkInfo, Decoded, Pipeline};
use crate::error::{Error, Result};
use crate::json::{Json, Number};
use crate::model::{Attr, Dataset, Group, NcType, Values, Var, VarEncoding};
use crate::store::{StoreKey, WritableStore};
use crate::zarr::{Dtype, Endian};

/// How NCZarr char variables are typed in `.zarray`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CharDtype {
    /// `|S1`: zarr-python and xarray can open it; netcdf-c reads it as 1-character strings.
    #[default]
    Zarr,
    /// `>S1`: netcdf-c's own marking of char; zarr-python refuses to open the array.
    Netcdf,
}

/// How NCZarr scalars are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScalarShape {
    /// netcdf-c's way: shape `[1]`, `"scalar": 1`, `_ARRAY_DIMENSIONS: ["_scalar_"]`.
    #[default]
    One,
    /// Zarr's 0-d array: shape `[]` (what zarr-python and xarray call a scalar).
    ZeroD,
}

/// Which generation of NCZarr metadata to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Generation {
    /// netcdf-c 4.9.3+/4.10: `_nczarr_*` attributes in `.zattrs`. Read by netcdf-c
    /// 4.9.3 and later, zarr-python and xarray.
    #[default]
    Current,
    /// netcdf-c 4.9.0: upper-case `_NCZARR_*` keys inside `.zgroup`/`.zarray`/`.zattrs`,
    /// char as `<U1` holding one byte per character (as 4.9.0 writes and reads it), no
    /// strings, no unlimited dimensions, little-endian only. For ncdump/ncgen 4.9.0
    /// (Debian 12, Ubuntu 22.04), which crash on the current layout's char, string and
    /// scalar arrays; zarr-python misreads its char arrays.
    Netcdf490,
}

/// Options for writing.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// The NCZarr metadata generation (ignored for pure Zarr).
    pub generation: Generation,
    /// Pure Zarr: no NCZarr metadata (`mode=zarr`).
    pub pure_zarr: bool,
    /// Write xarray's `_ARRAY_DIMENSIONS` (off with `noxarray`).
    pub xarray_dims: bool,
    /// Char dtype in NCZarr mode.
    pub char_dtype: CharDtype,
    /// Scalar layout in NCZarr mode (pure Zarr always writes 0-d arrays).
    pub scalar_shape: ScalarShape,
    /// Chunk key separator, `.` or `/`.
    pub separator: char,
    /// `_NCProperties` of the root group.
    pub nc_properties: String,
    /// Target chunk size for variables without `_ChunkSizes`.
    pub chunk_bytes: u64,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            generation: Generation::default(),
            pure_zarr: false,
            xarray_dims: true,
            char_dtype: CharDtype::default(),
            scalar_shape: ScalarShape::default(),
            separator: '.',
            nc_properties: format!(
                "version=2,nczarr-tools={},nczarr=2.0.0",
                env!("CARGO_PKG_VERSION")
            ),
            chunk_bytes: DEFAULT_CHUNK_BYTES,
        }
    }
}

/// What a variable asks for, before it is turned into a [`VarEncoding`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EncodingRequest {
    /// Chunk shape.
    pub chunks: Option<Vec<u64>>,
    /// One chunk for the whole variable.
    pub contiguous: bool,
    /// Codec chain, in encode order.
    pub codecs: Vec<Json>,
    /// Byte order.
    pub endian: Option<Endian>,
    /// No fill value.
    pub no_fill: bool,
    /// The fill value.
    pub fill: Option<Values>,
    /// String length for `|S<n>`.
    pub maxstrlen: Option<usize>,
}

/// The stored dtype for a netCDF type.
pub fn dtype_for(
    t: NcType,
    endian: Option<Endian>,
    maxstrlen: usize,
    char_dtype: CharDtype,
) -> Dtype {
    let e = endian.unwrap_or(Endian::Little);
    match t {
        NcType::Byte => Dtype::Int {
            bytes: 1,
            signed: true,
            endian: Endian::NotApplicable,
        },
        NcType::UByte => Dtype::Int {
            bytes: 1,
            signed: false,
            endian: Endian::NotApplicable,
        },
        NcType::Short => Dtype::Int {
            bytes: 2,
            signed: true,
            endian: e,
        },
        NcType::UShort => Dtype::Int {
            bytes: 2,
            signed: false,
            endian: e,
        },
        NcType::Int => Dtype::Int {
            bytes: 4,
            signed: true,
            endian: e,
        },
        NcType::UInt => Dtype::Int {
            bytes: 4,
            signed: false,
            endian: e,
        },
        NcType::Int64 => Dtype::Int {
            bytes: 8,
            signed: true,
            endian: e,
        },
        NcType::UInt64 => Dtype::Int {
            bytes: 8,
            signed: false,
            endian: e,
        },
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
            endian: if char_dtype == CharDtype::Netcdf {
                Endian::Big
            } else {
                Endian::NotApplicable
            },
        },
        NcType::String => Dtype::Bytes {
            len: maxstrlen.max(1),
            endian: Endian::NotApplicable,
        },
    }
}

/// What the chosen generation cannot hold, checked before anything is written.
/// Returns warnings for what is written differently (unlimited dimensions become
/// fixed, big-endian variables little-endian: the values are kept, the property is
/// not); errors for what cannot be written at all.
///
/// # Errors
/// [`Error::Invalid`] naming the first string variable or attribute when writing the
/// netcdf-c 4.9.0 generation (4.9.0 crashes on string arrays).
pub fn generation_limits(ds: &Dataset, opts: &WriteOptions) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    if opts.pure_zarr || opts.generation != Generation::Netcdf490 {
        return Ok(warnings);
    }
    fn walk(g: &Group, path: &str, warnings: &mut Vec<String>) -> Result<()> {
        let here = |name: &str| format!("{path}/{name}");
        let no_strings = |what: String| {
            Err(Error::Invalid(format!(
                "{what} is a string; netcdf-c 4.9.0 cannot read strings in NCZarr (it crashes), so the 4.9.0 layout cannot hold it"
            )))
        };
        for a in &g.attrs {
            if a.values.nc_type() == NcType::String {
                return no_strings(format!(
                    "attribute {}:{}",
                    if path.is_empty() { "/" } else { path },
                    a.name
                ));
            }
        }
        for d in &g.dims {
            if d.unlimited {
                warnings.push(format!(
                    "dimension {} is written as fixed (length {}): netcdf-c 4.9.0 has no unlimited dimensions in NCZarr",
                    here(&d.name),
                    d.len
                ));
            }
        }
        for v in &g.vars {
            if v.nc_type == NcType::String {
                return no_strings(format!("variable {}", here(&v.name)));
            }
            for a in &v.attrs {
                if a.values.nc_type() == NcType::String {
                    return no_strings(format!("attribute {}:{}", here(&v.name), a.name));
                }
            }
        }
        for c in &g.groups {
            walk(c, &here(&c.name), warnings)?;
        }
        Ok(())
    }
    walk(&ds.root, "", &mut warnings)?;
    Ok(warnings)
}

/// Change a variable's request to what the chosen generation can hold; returns what
/// was changed, for a warning. The values are always kept.
///
/// For the netcdf-c 4.9.0 layout: byte order becomes little-endian (4.9.0 reads stored
/// bytes in host order whatever the dtype says, so big-endian data came back
/// swapped), and codecs are dropped (Debian's 4.9.0 has no NCZarr filters and reads
/// compressed chunks as raw bytes, silently).
pub fn fit_request(req: &mut EncodingRequest, opts: &WriteOptions) -> Vec<String> {
    let mut changed = Vec::new();
    if opts.pure_zarr || opts.generation != Generation::Netcdf490 {
        return changed;
    }
    if req.endian == Some(Endian::Big) {
        req.endian = None;
        changed.push(
            "written little-endian: netcdf-c 4.9.0 ignores the byte order of stored data".into(),
        );
    }
    if !req.codecs.is_empty() {
        let ids: Vec<&str> = req
            .codecs
            .iter()
            .filter_map(|c| c.get("id").and_then(Json::as_str))
            .collect();
        changed.push(format!(
            "written without its codecs ({}): netcdf-c 4.9.0 reads encoded chunks as raw bytes",
            ids.join(", ")
        ));
        req.codecs.clear();
    }
    changed
}

/// Decide a variable's encoding: dtype, stored shape, chunks, fill, codecs.
///
/// `shape` is the variable's dimension lengths; `data` (when known) sizes string
/// elements so nothing is truncated.
///
/// # Errors
/// [`Error::Invalid`] for chunk shapes of the wrong rank or codecs that cannot be built.
pub fn plan_encoding(
    var: &Var,
    shape: &[u64],
    req: &EncodingRequest,
    default_maxstrlen: Option<usize>,
    data: Option<&Values>,
    opts: &WriteOptions,
    name: &str,
) -> Result<VarEncoding> {
    let scalar = shape.is_empty();
    let maxstrlen = match (var.nc_type, req.maxstrlen.or(default_maxstrlen)) {
        (NcType::String, Some(n)) => n,
        (NcType::String, None) => match data {
            Some(Values::String(v)) => v.iter().flatten().map(Vec::len).max().unwrap_or(1).max(1),
            _ => 128,
        },
        _ => 1,
    };
    let dtype = dtype_for(var.nc_type, req.endian, maxstrlen, opts.char_dtype);
    let (stored_shape, chunks) = if scalar {
        if opts.pure_zarr
            || (opts.scalar_shape == ScalarShape::ZeroD && opts.generation == Generation::Current)
        {
            (Vec::new(), Vec::new())
        } else {
            (vec![1], vec![1])
        }
    } else {
        let chunks = match (&req.chunks, req.contiguous) {
            (Some(c), false) => {
                if c.len() != shape.len() {
                    return Err(Error::Invalid(format!(
                        "variable '{name}': _ChunkSizes has {} values for {} dimensions",
                        c.len(),
                        shape.len()
                    )));
                }
                c.clone()
            }
            (_, true) => shape.iter().map(|&l| l.max(1)).collect(),
            (None, false) => default_chunks(shape, dtype.item_size() as u64, opts.chunk_bytes),
        };
        (shape.to_vec(), chunks)
    };
    let fill = if req.no_fill {
        None
    } else {
        Some(match &req.fill {
            Some(f) if f.nc_type() == var.nc_type && f.len() == 1 => f.clone(),
            _ => Values::default_fill(var.nc_type),
        })
    };
    let mut chain = req.codecs.clone();
    // Shuffle must know the element size: netcdf-c's "0" is not understood by numcodecs.
    for c in &mut chain {
        if c.get("id").and_then(Json::as_str) == Some("shuffle") {
            if let Json::Object(members) = c {
                let size = Json::Number(Number::from_i64(dtype.item_size().max(1) as i64));
                match members.iter_mut().find(|(k, _)| k == "elementsize") {
                    Some(slot) => slot.1 = size,
                    None => members.push(("elementsize".into(), size)),
                }
            }
        }
    }
    // Check the chain now, so a bad codec is reported before anything is written.
    Pipeline::new(&chain, None).map_err(|error| Error::Codec {
        var: name.to_string(),
        error,
    })?;
    let compressor = chain.pop();
    Ok(VarEncoding {
        dtype,
        shape: stored_shape,
        chunks,
        fill,
        filters: chain,
        compressor,
        fortran_order: false,
        separator: opts.separator,
    })
}

fn num_i(v: i64) -> Json {
    Json::Number(Number::from_i64(v))
}

/// A char attribute's bytes as a JSON string: UTF-8 as is; other bytes as Latin-1.
fn text_json(bytes: &[u8]) -> Json {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    let bytes = &bytes[..end];
    Json::String(match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    })
}

/// An attribute's values as JSON (a scalar for one value, else an array).
pub fn attr_json(values: &Values) -> Json {
    let item = |i: usize| -> Json {
        match values {
            Values::Float(v) => Json::Number(Number::from_f32(v[i])),
            Values::Double(v) => Json::Number(Number::from_f64(v[i])),
            Values::String(v) => v[i].as_deref().map_or(Json::Null, text_json),
            Values::Int64(v) => Json::Number(Number::from_i64(v[i])),
            Values::UInt64(v) => Json::Number(Number::from_u64(v[i])),
            other => Json::Number(Number::from_i64(other.get_i128(i).unwrap_or(0) as i64)),
        }
    };
    match values {
        Values::Char(bytes) => text_json(bytes),
        v if v.len() == 1 => item(0),
        v => Json::Array((0..v.len()).map(item).collect()),
    }
}

/// The type entry of an attribute in `_nczarr_attr.types`.
fn attr_dtype(values: &Values, char_dtype: CharDtype) -> String {
    match values {
        Values::String(v) => {
            let n = v.iter().flatten().map(Vec::len).max().unwrap_or(1).max(1);
            format!("|S{n}")
        }
        // netcdf-c recognises char attributes by '>S1' whatever the variables use.
        Values::Char(_) => ">S1".into(),
        v => dtype_for(v.nc_type(), None, 1, char_dtype).to_string(),
    }
}

fn attrs_object(
    attrs: &[Attr],
    extra: Vec<(String, Json)>,
    nczarr_block: Option<(&str, Json)>,
    opts: &WriteOptions,
) -> Json {
    let v490 = opts.generation == Generation::Netcdf490;
    // 4.9.0 types char attributes as '<U1' (and reads '>S1' as a string).
    let char_type = if v490 { "<U1" } else { ">S1" };
    let mut members: Vec<(String, Json)> = Vec::new();
    let mut types: Vec<(String, Json)> = Vec::new();
    for a in attrs {
        if opts.pure_zarr && a.name == "_FillValue" {
            // In pure Zarr the fill lives in .zarray's fill_value, which xarray reads as _FillValue.
            continue;
        }
        members.push((a.name.clone(), attr_json(&a.values)));
        let t = match &a.values {
            Values::Char(_) => char_type.to_string(),
            v => attr_dtype(v, opts.char_dtype),
        };
        types.push((a.name.clone(), Json::String(t)));
    }
    for (k, v) in extra {
        let internal = k.starts_with("_nczarr_");
        members.push((k.clone(), v));
        if internal {
            types.push((k, Json::String("|J0".into())));
        } else if k == "_NCProperties" {
            types.push((k, Json::String(char_type.into())));
        }
    }
    if let Some((k, v)) = nczarr_block {
        members.push((k.to_string(), v));
        types.push((k.to_string(), Json::String("|J0".into())));
    }
    if !opts.pure_zarr {
        let key = if v490 { "_NCZARR_ATTR" } else { "_nczarr_attr" };
        if !v490 {
            types.push((key.into(), Json::String("|J0".into())));
        }
        members.push((
            key.into(),
            Json::Object(vec![("types".into(), Json::Object(types))]),
        ));
    }
    Json::Object(members)
}

/// The root dimension that stands for "no dimensions" in the netcdf-c 4.9.0 layout.
pub const SCALAR_DIM: &str = "_scalar_";

fn has_scalar(g: &Group) -> bool {
    g.vars.iter().any(|v| v.dims.is_empty()) || g.groups.iter().any(has_scalar)
}

/// Add members to a JSON object (the `.zgroup`/`.zarray` documents of 4.9.0).
fn with_members(doc: Json, more: Vec<(String, Json)>) -> Json {
    match doc {
        Json::Object(mut m) => {
            m.extend(more);
            Json::Object(m)
        }
        other => other,
    }
}

/// Replace the value of member `key` of a JSON object.
fn set_member(doc: &mut Json, key: &str, value: Json) {
    if let Json::Object(m) = doc {
        if let Some(slot) = m.iter_mut().find(|(k, _)| k == key) {
            slot.1 = value;
        }
    }
}

/// The `.zarray` document of an encoding; `base64_fill` for pure Zarr's spelling of
/// byte-string fill values.
pub fn zarray_json(enc: &VarEncoding, base64_fill: bool) -> Json {
    let dims = |v: &[u64]| {
        Json::Array(
            v.iter()
                .map(|&x| Json::Number(Number::from_u64(x)))
                .collect(),
        )
    };
    let fill = match &enc.fill {
        None => Json::Null,
        // Zarr stores byte-string fills as base64; netcdf-c NCZarr as the text itself.
        Some(Values::Char(c)) if base64_fill => Json::String(text_fill(c)),
        Some(Values::Char(c)) => text_json(c),
        Some(Values::String(_)) => Json::String(String::new()),
        Some(v) => attr_json(v),
    };
    let mut m = vec![
        ("zarr_format".to_string(), num_i(2)),
        ("shape".into(), dims(&enc.shape)),
        ("dtype".into(), Json::String(enc.dtype.to_string())),
        ("chunks".into(), dims(&enc.chunks)),
        ("fill_value".into(), fill),
        ("order".into(), Json::String("C".into())),
        (
            "compressor".into(),
            enc.compressor.clone().unwrap_or(Json::Null),
        ),
        (
            "filters".into(),
            if enc.filters.is_empty() {
                Json::Null
            } else {
                Json::Array(enc.filters.clone())
            },
        ),
    ];
    if enc.separator == '/' {
        m.push(("dimension_separator".into(), Json::String("/".into())));
    }
    Json::Object(m)
}

/// A char fill value: zarr-python reads byte-string fills as base64; a NUL fill is
/// written `""` (netcdf-c's spelling, also base64 of nothing).
fn text_fill(c: &[u8]) -> String {
    match c.first() {
        None | Some(0) => String::new(),
        Some(&b) => base64(&[b]),
    }
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                s.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Where variable data comes from when writing.
pub trait WriteData: Sync {
    /// The values of `region` of variable `name` in group `group`, in C order, or
    /// `None` when the variable has no data (its chunks are not written).
    ///
    /// # Errors
    /// Whatever reading the source gives.
    fn region(&self, group: &[String], var: &Var, region: &Region) -> Result<Option<Values>>;
}

/// Write every chunk of `var` (stored under `key`) whose data `data` provides, in
/// slabs of whole chunks bounded by about `slab_bytes`.
///
/// # Errors
/// Store and codec errors.
pub fn write_var_chunks(
    store: &dyn WritableStore,
    key: &StoreKey,
    group: &[String],
    var: &Var,
    shape: &[u64],
    data: &dyn WriteData,
    slab_bytes: u64,
) -> Result<()> {
    let Some(enc) = &var.encoding else {
        return Ok(());
    };
    let name = format!(
        "{}/{}",
        group.iter().map(|g| format!("/{g}")).collect::<String>(),
        var.name
    );
    let pipeline =
        Pipeline::new(&enc.filters, enc.compressor.as_ref()).map_err(|error| Error::Codec {
            var: name.clone(),
            error,
        })?;
    let grid = ChunkGrid::new(enc.shape.clone(), enc.chunks.clone());
    let chunk_len = usize::try_from(grid.chunk_len().unwrap_or(u64::MAX))
        .map_err(|_| Error::Invalid(format!("variable '{name}': chunk too large")))?;
    let item = enc.dtype.item_size().max(1);
    // Slabs: runs of whole chunk rows along the first dimension.
    let rank = shape.len();
    if rank == 0 {
        let Some(values) = data.region(group, var, &Region::whole(&[]))? else {
            return Ok(());
        };
        let stored = to_stored(&values, &enc.dtype)
            .map_err(|m| Error::Invalid(format!("variable '{name}': {m}")))?;
        let k = key.join_path(&grid.chunk_key(&vec![0; enc.shape.len()], enc.separator))?;
        let bytes = pipeline
            .encode(
                Decoded::Bytes(stored),
                k.as_str(),
                &ChunkInfo {
                    item_size: item,
                    max_decoded: usize::MAX,
                },
            )
            .map_err(|error| Error::Codec {
                var: name.clone(),
                error,
            })?;
        store.put(&k, &bytes)?;
        return Ok(());
    }
    if shape.contains(&0) {
        return Ok(());
    }
    let fill = enc
        .fill
        .clone()
        .unwrap_or_else(|| Values::default_fill(var.nc_type));
    let fill_bytes = to_stored(&fill, &enc.dtype)
        .map_err(|m| Error::Invalid(format!("variable '{name}': {m}")))?;
    let row_bytes = (shape[1..].iter().product::<u64>() * enc.chunks[0] * item as u64).max(1);
    let rows_per_slab = (slab_bytes / row_bytes).max(1);
    let nrows = shape[0].div_ceil(enc.chunks[0]);
    let mut r = 0;
    while r < nrows {
        let rows = rows_per_slab.min(nrows - r);
        let start0 = r * enc.chunks[0];
        let end0 = ((r + rows) * enc.chunks[0]).min(shape[0]).min(enc.shape[0]);
        if start0 >= end0 {
            break;
        }
        let mut start = vec![0u64; rank];
        start[0] = start0;
        let mut count: Vec<u64> = shape
            .iter()
            .zip(&enc.shape)
            .map(|(a, b)| *a.min(b))
            .collect();
        count[0] = end0 - start0;
        let region = Region::block(start, count);
        let Some(values) = data.region(group, var, &region)? else {
            return Ok(());
        };
        let slab = to_stored(&values, &enc.dtype)
            .map_err(|m| Error::Invalid(format!("variable '{name}': {m}")))?;
        let parts = grid.plan(&region);
        let encoded: Vec<Result<(StoreKey, Vec<u8>)>> = parts
            .par_iter()
            .map(|part| {
                let mut chunk: Vec<u8> = fill_bytes.repeat(chunk_len);
                copy_into_chunk(&mut chunk, &slab, part, &region.count, &enc.chunks, item);
                let k = key.join_path(&grid.chunk_key(&part.index, enc.separator))?;
                let bytes = pipeline
                    .encode(
                        Decoded::Bytes(chunk),
                        k.as_str(),
                        &ChunkInfo {
                            item_size: item,
                            max_decoded: usize::MAX,
                        },
                    )
                    .map_err(|error| Error::Codec {
                        var: name.clone(),
                        error,
                    })?;
                Ok((k, bytes))
            })
            .collect();
        let items: Vec<(StoreKey, Vec<u8>)> = encoded.into_iter().collect::<Result<_>>()?;
        store.put_many(&items)?;
        r += rows;
    }
    Ok(())
}

/// Copy the part of a slab (C order, `slab_count` shape, `item` bytes per element)
/// that falls in one chunk into the chunk's buffer (C order, `chunks` shape).
fn copy_into_chunk(
    chunk: &mut [u8],
    slab: &[u8],
    part: &crate::chunking::ChunkPart,
    slab_count: &[u64],
    chunks: &[u64],
    item: usize,
) {
    let rank = part.runs.len();
    let mut cstride = vec![1u64; rank];
    let mut sstride = vec![1u64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        cstride[d] = cstride[d + 1] * chunks[d + 1];
        sstride[d] = sstride[d + 1] * slab_count[d + 1];
    }
    let last = rank - 1;
    let run = part.runs[last];
    let n = run.len as usize * item;
    let mut k = vec![0u64; last];
    loop {
        let mut c = run.in_chunk;
        let mut s = run.in_out;
        for d in 0..last {
            let r = part.runs[d];
            c += (r.in_chunk + k[d]) * cstride[d];
            s += (r.in_out + k[d]) * sstride[d];
        }
        let (c, s) = (c as usize * item, s as usize * item);
        chunk[c..c + n].copy_from_slice(&slab[s..s + n]);
        let mut d = last;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            k[d] += 1;
            if k[d] < part.runs[d].len {
                break;
            }
            k[d] = 0;
        }
    }
}

/// Write `dataset` (whose variables carry their encodings) into `store`: chunks from
/// `data`, then variable metadata, then group metadata, the root's last.
///
/// # Errors
/// Store, codec and data errors; nothing is committed by this function (staging and
/// the final swap are the caller's).
pub fn write_dataset(
    store: &dyn WritableStore,
    dataset: &Dataset,
    data: &dyn WriteData,
    opts: &WriteOptions,
) -> Result<()> {
    write_group(store, dataset, &dataset.root, &[], data, opts)?;
    store.finish()?;
    Ok(())
}

fn group_key(path: &[String]) -> Result<StoreKey> {
    let mut k = StoreKey::root();
    for p in path {
        k = k.join(p)?;
    }
    Ok(k)
}

fn put_json(store: &dyn WritableStore, key: &StoreKey, json: &Json) -> Result<()> {
    store.put(key, json.to_text().as_bytes())?;
    Ok(())
}

fn write_group(
    store: &dyn WritableStore,
    ds: &Dataset,
    g: &Group,
    path: &[String],
    data: &dyn WriteData,
    opts: &WriteOptions,
) -> Result<()> {
    let gkey = group_key(path)?;
    for v in &g.vars {
        let vkey = gkey.join(&v.name)?;
        let shape = ds.var_shape(v);
        write_var_chunks(store, &vkey, path, v, &shape, data, 64 << 20)?;
        let enc = v
            .encoding
            .as_ref()
            .ok_or_else(|| Error::Invalid(format!("variable '{}' has no encoding", v.name)))?;
        let mut extra = Vec::new();
        let scalar = v.dims.is_empty();
        let v490 = !opts.pure_zarr && opts.generation == Generation::Netcdf490;
        if opts.xarray_dims {
            let names: Vec<Json> = if scalar {
                if enc.shape.is_empty() {
                    Vec::new()
                } else {
                    vec![Json::String("_scalar_".into())]
                }
            } else {
                v.dims
                    .iter()
                    .map(|d| Json::String(d.name.clone()))
                    .collect()
            };
            extra.push(("_ARRAY_DIMENSIONS".to_string(), Json::Array(names)));
        }
        let refs = Json::Array(v.dims.iter().map(|d| Json::String(d.fqn())).collect());
        if v490 {
            // 4.9.0 crashes on any variable without dimensions (even its own), so a
            // scalar is a 1-element array over the root dimension `_scalar_`, netcdf-c's
            // own name for it; this reader turns it back into a scalar.
            let refs = if scalar {
                Json::Array(vec![Json::String(format!("/{SCALAR_DIM}"))])
            } else {
                refs
            };
            let mut zarray = with_members(
                zarray_json(enc, false),
                vec![(
                    "_NCZARR_ARRAY".into(),
                    Json::Object(vec![
                        ("dimrefs".into(), refs),
                        ("storage".into(), Json::String("chunked".into())),
                    ]),
                )],
            );
            if v.nc_type == NcType::Char {
                // What 4.9.0 writes and expects: '<U1' over one byte per character.
                set_member(&mut zarray, "dtype", Json::String("<U1".into()));
            }
            put_json(
                store,
                &vkey.join(".zattrs")?,
                &attrs_object(&v.attrs, extra, None, opts),
            )?;
            put_json(store, &vkey.join(".zarray")?, &zarray)?;
            continue;
        }
        let block = if opts.pure_zarr {
            None
        } else {
            let mut m = vec![("dimension_references".to_string(), refs)];
            if scalar {
                m.push(("scalar".into(), num_i(1)));
            }
            m.push(("storage".into(), Json::String("chunked".into())));
            if v.nc_type == NcType::Char && opts.char_dtype == CharDtype::Zarr {
                // '|S1' alone reads as a 1-character string in netcdf-c; say it is char.
                m.push(("nctype".into(), Json::String("char".into())));
            }
            Some(("_nczarr_array", Json::Object(m)))
        };
        let zattrs = attrs_object(&v.attrs, extra, block, opts);
        put_json(
            store,
            &vkey.join(".zarray")?,
            &zarray_json(enc, opts.pure_zarr),
        )?;
        put_json(store, &vkey.join(".zattrs")?, &zattrs)?;
    }
    for c in &g.groups {
        let mut p = path.to_vec();
        p.push(c.name.clone());
        write_group(store, ds, c, &p, data, opts)?;
    }
    let root = path.is_empty();
    let mut extra = Vec::new();
    if root && !opts.nc_properties.is_empty() {
        extra.push((
            "_NCProperties".to_string(),
            Json::String(opts.nc_properties.clone()),
        ));
    }
    let v490 = !opts.pure_zarr && opts.generation == Generation::Netcdf490;
    let block = if opts.pure_zarr {
        None
    } else {
        let dims = Json::Object(
            g.dims
                .iter()
                .map(|d| {
                    let v = if d.unlimited && !v490 {
                        Json::Object(vec![
                            ("size".into(), Json::Number(Number::from_u64(d.len))),
                            ("unlimited".into(), num_i(1)),
                        ])
                    } else {
                        Json::Number(Number::from_u64(d.len))
                    };
                    (d.name.clone(), v)
                })
                .collect(),
        );
        let arrays = Json::Array(
            g.vars
                .iter()
                .map(|v| Json::String(v.name.clone()))
                .collect(),
        );
        let groups = Json::Array(
            g.groups
                .iter()
                .map(|c| Json::String(c.name.clone()))
                .collect(),
        );
        if v490 {
            // 4.9.0 keeps the group's contents (short key names) and the superblock
            // in .zgroup; .zattrs holds only attributes and their types.
            let dims = match dims {
                Json::Object(mut m)
                    if root && has_scalar(&ds.root) && !m.iter().any(|(k, _)| k == SCALAR_DIM) =>
                {
                    m.push((SCALAR_DIM.into(), num_i(1)));
                    Json::Object(m)
                }
                other => other,
            };
            let mut zgroup = vec![("zarr_format".to_string(), num_i(2))];
            if root {
                zgroup.push((
                    "_NCZARR_SUPERBLOCK".into(),
                    Json::Object(vec![("version".into(), Json::String("2.0.0".into()))]),
                ));
            }
            zgroup.push((
                "_NCZARR_GROUP".into(),
                Json::Object(vec![
                    ("dims".into(), dims),
                    ("vars".into(), arrays),
                    ("groups".into(), groups),
                ]),
            ));
            put_json(
                store,
                &gkey.join(".zattrs")?,
                &attrs_object(&g.attrs, extra, None, opts),
            )?;
            put_json(store, &gkey.join(".zgroup")?, &Json::Object(zgroup))?;
            return Ok(());
        }
        let ginfo = Json::Object(vec![
            ("dimensions".into(), dims),
            ("arrays".into(), arrays),
            ("groups".into(), groups),
        ]);
        if root {
            extra.push(("_nczarr_group".into(), ginfo));
            Some((
                "_nczarr_superblock",
                Json::Object(vec![("version".into(), Json::String("2.0.0".into()))]),
            ))
        } else {
            Some(("_nczarr_group", ginfo))
        }
    };
    let zattrs = attrs_object(&g.attrs, extra, block, opts);
    put_json(store, &gkey.join(".zattrs")?, &zattrs)?;
    // The .zgroup makes the group (and, at the root, the dataset) openable: last.
    put_json(
        store,
        &gkey.join(".zgroup")?,
        &Json::Object(vec![("zarr_format".into(), num_i(2))]),
    )?;
    Ok(())
}

/// Write data held in memory: whole variables in C order, by path (`/g/v`).
pub struct MemoryData<'a> {
    /// Values by variable path.
    pub values: std::collections::HashMap<String, &'a Values>,
    /// The dataset the variables belong to (for shapes).
    pub dataset: &'a Dataset,
}

impl WriteData for MemoryData<'_> {
    fn region(&self, group: &[String], var: &Var, region: &Region) -> Result<Option<Values>> {
        let key = crate::cdl::build::var_key(group, &var.name);
        let Some(v) = self.values.get(&key) else {
            return Ok(None);
        };
        let shape = self.dataset.var_shape(var);
        if shape.is_empty() {
            return Ok(Some((*v).clone()));
        }
        // Regions asked for are runs of whole rows along the first dimension.
        let row: u64 = shape[1..].iter().product();
        let inner_full =
            region.count[1..] == shape[1..] && region.start[1..].iter().all(|&s| s == 0);
        if !inner_full {
            return Err(Error::Invalid(
                "in-memory data supports row ranges only".into(),
            ));
        }
        let from = usize::try_from(region.start[0] * row).unwrap_or(usize::MAX);
        let to = usize::try_from((region.start[0] + region.count[0]) * row).unwrap_or(usize::MAX);
        if to > v.len() {
            return Err(Error::Invalid(format!(
                "variable '{key}': data holds {} values, {to} needed",
                v.len()
            )));
        }
        Ok(Some(v.slice(from..to)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_fills() {
        assert_eq!(base64(b"*"), "Kg==");
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(text_fill(&[0]), "");
        assert_eq!(
            crate::zarr::parse_fill_value(
                &Json::String(text_fill(b"*")),
                &Dtype::parse("|S1").unwrap(),
                NcType::Char,
                true
            )
            .unwrap(),
            Some(Values::Char(vec![b'*']))
        );
    }

    #[test]
    fn attribute_json() {
        assert_eq!(attr_json(&Values::Int(vec![5])).to_text(), "5");
        assert_eq!(
            attr_json(&Values::Double(vec![1.0, 2.5])).to_text(),
            "[1.0,2.5]"
        );
        assert_eq!(
            attr_json(&Values::Float(vec![0.1, f32::NAN])).to_text(),
            "[0.1,\"NaN\"]"
        );
        assert_eq!(attr_json(&Values::text("abc\0")).to_text(), "\"abc\"");
        assert_eq!(
            attr_json(&Values::String(vec![Some(b"a".to_vec()), None])).to_text(),
            "[\"a\",null]"
        );
        assert_eq!(
            attr_json(&Values::UInt64(vec![u64::MAX])).to_text(),
            "18446744073709551615"
        );
    }
}
