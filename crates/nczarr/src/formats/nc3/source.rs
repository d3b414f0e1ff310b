//! [`Nc3Source`]: a netCDF classic, 64-bit offset or CDF-5 file as a dataset source.
//!
//! Values are read by hyperslab with positional reads, a run of the region's last
//! dimension at a time (runs that follow each other in the file merged into one read),
//! so memory holds the region asked for and nothing of the rest of the file.

use std::path::Path;
use std::sync::Arc;

use super::header::{self, be_to_native, Header, HeaderFault};
use crate::chunking::{c_strides, for_each_index, Region};
use crate::encoding::Encoding;
use crate::error::{Error, Result};
use crate::model::{Dataset, Dim, DimRef, Group, Values, Var, VarPath};
use crate::source::{ChunkPlace, DataSource, DatasetSource, FormatInfo};
use crate::store::{LocalFile, ReadAt};

/// A header this long is taken for damage rather than read into memory.
const MAX_HEADER: usize = 1 << 30;

/// Bytes read first for the header; a longer header is read again, whole.
const HEADER_PREFIX: usize = 64 * 1024;

/// Where a variable's values lie in the file (its shape and type are the model's).
#[derive(Debug, Clone)]
struct Layout {
    /// Offset of the values (of the first record's, for a record variable).
    begin: u64,
    /// True when the first dimension is the record dimension.
    record: bool,
}

/// A classic-format file opened for reading.
pub struct Nc3Source {
    file: Arc<dyn ReadAt>,
    file_len: u64,
    dataset: Dataset,
    format: FormatInfo,
    layouts: Vec<Layout>,
    /// Bytes from one record to the next.
    record_bytes: u64,
}

impl Nc3Source {
    /// Open the file at `path` and read its header.
    ///
    /// # Errors
    /// [`Error::Store`] when the file cannot be read (the store's error kept);
    /// [`Error::Damaged`] saying where its header is damaged or truncated.
    pub fn open(path: &Path) -> Result<Nc3Source> {
        let file = LocalFile::open(path)?;
        Nc3Source::from_file(Arc::new(file))
    }

    /// Read the header of `file` (local, or remote by byte ranges).
    ///
    /// # Errors
    /// As [`Nc3Source::open`].
    pub fn from_file(file: Arc<dyn ReadAt>) -> Result<Nc3Source> {
        let header = read_header(file.as_ref())?;
        let file_len = file.len();
        Nc3Source::from_header(file, file_len, header)
    }

    fn from_header(file: Arc<dyn ReadAt>, file_len: u64, mut h: Header) -> Result<Nc3Source> {
        let fail = |message: String| damaged(file.as_ref(), None, message);
        let record_dim = h.dims.iter().position(|d| d.len == 0);
        let is_record =
            |v: &header::VarHeader| v.dim_ids.first().is_some_and(|&d| Some(d) == record_dim);
        // Bytes of one record: each record variable's share, recomputed from its shape
        // (the header's vsize saturates for large variables), padded to four bytes,
        // except when the file has one record variable only.
        let mut shares = Vec::new();
        for v in h.vars.iter().filter(|v| is_record(v)) {
            let share = v.dim_ids[1..]
                .iter()
                .try_fold(v.nc_type.size() as u64, |a, &d| {
                    a.checked_mul(h.dims[d].len)
                })
                .ok_or_else(|| fail(format!("variable '{}' is larger than any file", v.name)))?;
            shares.push(share);
        }
        let record_bytes = match shares.as_slice() {
            [one] => *one,
            all => all
                .iter()
                .fold(0u64, |a, s| a.saturating_add(s.saturating_add(3) & !3)),
        };
        let numrecs = match h.numrecs {
            Some(n) => n,
            // Streaming: as many whole records as the file holds after the first.
            None => {
                let first = h
                    .vars
                    .iter()
                    .filter(|v| is_record(v))
                    .map(|v| v.begin)
                    .min();
                match (first, record_bytes) {
                    (Some(begin), r) if r > 0 => file_len.saturating_sub(begin) / r,
                    _ => 0,
                }
            }
        };
        let mut root = Group::new("");
        root.dims = h
            .dims
            .iter()
            .map(|d| Dim {
                name: d.name.clone(),
                len: if d.len == 0 { numrecs } else { d.len },
                unlimited: d.len == 0,
            })
            .collect();
        root.attrs = std::mem::take(&mut h.attrs);
        let mut layouts = Vec::with_capacity(h.vars.len());
        for v in &mut h.vars {
            layouts.push(Layout {
                begin: v.begin,
                record: is_record(v),
            });
            root.vars.push(Var {
                name: v.name.clone(),
                nc_type: v.nc_type,
                user_type: None,
                dims: v
                    .dim_ids
                    .iter()
                    .map(|&d| DimRef {
                        group: Vec::new(),
                        name: h.dims[d].name.clone(),
                    })
                    .collect(),
                attrs: std::mem::take(&mut v.attrs),
                notes: Vec::new(),
            });
        }
        let version = h.version;
        Ok(Nc3Source {
            file,
            file_len,
            dataset: Dataset { root },
            format: FormatInfo {
                kind: version.kind().to_string(),
                detail: format!(
                    "netCDF {} file (CDF-{}), {} variables, {numrecs} records",
                    version.kind(),
                    version.number(),
                    h.vars.len()
                ),
                nc_properties: None,
                superblock_version: None,
                is_netcdf4: None,
                codecs_attr: false,
                attr_types: true,
                zarr_version: None,
                facts: vec![format!("header: {} bytes", h.len)],
            },
            layouts,
            record_bytes,
        })
    }

    /// Where the file is.
    pub fn location(&self) -> String {
        self.file.location()
    }
}

/// The header of the classic-family file `file`, read in as few reads as its length
/// allows.
///
/// # Errors
/// As [`Nc3Source::open`].
pub(crate) fn read_header(file: &dyn ReadAt) -> Result<Header> {
    // The tools put the dataset's name before every error: messages here say only
    // what is wrong and where in the file.
    let fail = |offset: Option<u64>, message: String| damaged(file, offset, message);
    let file_len = file.len();
    let mut want = HEADER_PREFIX;
    let header = loop {
        let n = usize::try_from(file_len).unwrap_or(usize::MAX).min(want);
        let mut prefix = vec![0u8; n];
        file.read_at(0, &mut prefix)?;
        match header::parse(&prefix) {
            Ok(h) => break h,
            Err(HeaderFault::NeedMore(end)) if end as u64 > file_len => {
                return Err(fail(
                    Some(file_len),
                    format!(
                    "truncated or damaged: the header needs {end} bytes, the file has {file_len}"
                ),
                ))
            }
            Err(HeaderFault::NeedMore(end)) if end > MAX_HEADER => {
                return Err(fail(
                    None,
                    format!("damaged: the header claims {end} bytes, more than any netCDF header"),
                ))
            }
            Err(HeaderFault::NeedMore(end)) => {
                want = end.max(want.saturating_mul(2));
            }
            Err(e @ HeaderFault::Damaged { at, .. }) => {
                return Err(fail(Some(at as u64), e.to_string()))
            }
            Err(e) => return Err(fail(None, e.to_string())),
        }
    };
    Ok(header)
}

/// A damaged or truncated file: the offset is the byte where it was found.
fn damaged(file: &dyn ReadAt, offset: Option<u64>, message: String) -> Error {
    Error::Damaged {
        file: file.location(),
        offset,
        message,
    }
}

/// One positional read: `len` bytes of the file at `offset` go to byte `out` of the
/// output.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    offset: u64,
    len: u64,
    out: u64,
}

impl Nc3Source {
    /// The variable at `var` (classic files have no groups) and where it is.
    fn var_layout(&self, var: &VarPath) -> Option<(&crate::model::Var, &Layout)> {
        if !var.group.is_empty() {
            return None;
        }
        let i = self
            .dataset
            .root
            .vars
            .iter()
            .position(|v| v.name == var.name)?;
        Some((&self.dataset.root.vars[i], self.layouts.get(i)?))
    }
}

impl DataSource for Nc3Source {
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        let index = if var.group.is_empty() {
            self.dataset
                .root
                .vars
                .iter()
                .position(|v| v.name == var.name)
        } else {
            None
        }
        .ok_or_else(|| Error::NoSuchVar {
            var: var.to_string(),
        })?;
        let v = &self.dataset.root.vars[index];
        let shape = self.dataset.var_shape(v);
        let misfit = |message: String| Error::Region {
            var: var.to_string(),
            message,
        };
        region.check(&shape).map_err(|e| misfit(e.to_string()))?;
        let n = usize::try_from(region.len().unwrap_or(u64::MAX))
            .map_err(|_| misfit(format!("region {region} is too large")))?;
        let size = v.nc_type.size() as u64;
        let mut values = Values::zeroed(v.nc_type, n);
        let Some(out) = values.ne_bytes_mut() else {
            return Err(damaged(
                self.file.as_ref(),
                None,
                format!("variable '{var}': strings in a classic file"),
            ));
        };
        if n == 0 {
            return Ok(values);
        }
        let spans = self.spans(&self.layouts[index], &shape, region, size);
        // A remote file fetches them all now, few and concurrent requests.
        let wanted: Vec<(u64, u64)> = spans.iter().map(|s| (s.offset, s.len)).collect();
        let store = |source| Error::VarStore {
            var: var.to_string(),
            source,
        };
        self.file.prefetch(&wanted).map_err(store)?;
        for span in spans {
            let end = span.offset.saturating_add(span.len);
            if end > self.file_len {
                return Err(damaged(
                    self.file.as_ref(),
                    Some(self.file_len),
                    format!(
                        "variable '{var}': the file ends at byte {}, before the values at bytes {}..{end}",
                        self.file_len, span.offset
                    ),
                ));
            }
            let (o, l) = (span.out as usize, span.len as usize);
            self.file
                .read_at(span.offset, &mut out[o..o + l])
                .map_err(store)?;
        }
        be_to_native(out, size as usize);
        Ok(values)
    }
}

impl Nc3Source {
    /// The reads that fill `region` of a variable, in output order, consecutive ones
    /// merged.
    fn spans(&self, layout: &Layout, shape: &[u64], region: &Region, size: u64) -> Vec<Span> {
        let rank = shape.len();
        // Byte strides of the variable in the file (a record's own layout for a record
        // variable, whose first dimension steps by whole records).
        let mut strides: Vec<u64> = c_strides(shape).iter().map(|s| s * size).collect();
        if layout.record && rank > 0 {
            strides[0] = self.record_bytes;
        }
        let mut spans: Vec<Span> = Vec::new();
        let mut push = |offset: u64, len: u64, out: u64| match spans.last_mut() {
            Some(last)
                if last.offset.saturating_add(last.len) == offset && last.out + last.len == out =>
            {
                last.len += len
            }
            _ => spans.push(Span { offset, len, out }),
        };
        if rank == 0 {
            push(layout.begin, size, 0);
            return spans;
        }
        let last = rank - 1;
        // Saturating: a damaged header can put values past any file, which the read
        // then reports.
        let at = |d: usize, i: u64| {
            region.start[d]
                .saturating_add(i.saturating_mul(region.stride[d]))
                .saturating_mul(strides[d])
        };
        let mut out = 0u64;
        for_each_index(&region.count[..last], |k| {
            let mut offset = layout.begin;
            for (d, &i) in k.iter().enumerate() {
                offset = offset.saturating_add(at(d, i));
            }
            // A run is one read where its elements touch: not along the record
            // dimension of a variable that shares its records with others.
            if region.stride[last] == 1 && strides[last] == size {
                let len = region.count[last] * size;
                push(offset.saturating_add(at(last, 0)), len, out);
                out += len;
            } else {
                for i in 0..region.count[last] {
                    push(offset.saturating_add(at(last, i)), size, out);
                    out += size;
                }
            }
        });
        spans
    }
}

impl DatasetSource for Nc3Source {
    fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn format(&self) -> &FormatInfo {
        &self.format
    }

    /// Classic files have one storage: contiguous, big-endian, unfiltered. netcdf-c's
    /// `ncdump -s` prints none of it for CDF-1 and CDF-2 files, so neither does this;
    /// a copy chooses its own chunks.
    fn encoding(&self, _var: &VarPath) -> Option<Encoding> {
        None
    }

    fn file_location(&self) -> Option<String> {
        Some(self.file.location())
    }

    /// A fixed variable is one chunk (its contiguous bytes), a record variable one
    /// chunk a record; big-endian, as the format stores every value.
    fn reference_layout(&self, var: &VarPath) -> Option<Encoding> {
        let (v, _) = self.var_layout(var)?;
        let shape = self.dataset.var_shape(v);
        if shape.is_empty() || shape.contains(&0) {
            return None;
        }
        let mut chunks = shape.clone();
        if self.var_layout(var)?.1.record {
            chunks[0] = 1;
        }
        Some(Encoding {
            chunking: Some(crate::encoding::Chunking::Chunked(chunks)),
            endian: Some(crate::encoding::Endianness::Big),
            ..Encoding::default()
        })
    }

    fn chunk_place(&self, var: &VarPath, index: &[u64]) -> Result<ChunkPlace> {
        let Some((v, layout)) = self.var_layout(var) else {
            return Err(Error::NoSuchVar {
                var: var.to_string(),
            });
        };
        let shape = self.dataset.var_shape(v);
        let item = v.nc_type.size() as u64;
        let inner: u64 = shape.iter().skip(1).product();
        let (offset, len) = if layout.record {
            let r = index.first().copied().unwrap_or(0);
            (
                layout.begin + r * self.record_bytes,
                inner.saturating_mul(item),
            )
        } else if index.iter().all(|&i| i == 0) {
            (
                layout.begin,
                shape.iter().product::<u64>().saturating_mul(item),
            )
        } else {
            return Ok(ChunkPlace::Unreferenced);
        };
        Ok(if offset.saturating_add(len) <= self.file_len {
            ChunkPlace::At { offset, len }
        } else {
            ChunkPlace::Unreferenced
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;

    /// A classic file `x = 4; int v(x)` whose store fails every read past its header,
    /// as a remote file does when a request fails.
    struct FailingData(Vec<u8>);

    impl ReadAt for FailingData {
        fn len(&self) -> u64 {
            self.0.len() as u64 + 16
        }

        fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), StoreError> {
            // The header's read (from byte 0) gets the data as zeros; a read of the
            // values alone fails.
            let start = offset as usize;
            if start >= self.0.len() {
                return Err(StoreError::Io {
                    location: "mem://x.nc".into(),
                    source: std::io::Error::other("connection reset"),
                });
            }
            buf.fill(0);
            let n = buf.len().min(self.0.len() - start);
            buf[..n].copy_from_slice(&self.0[start..start + n]);
            Ok(())
        }

        fn location(&self) -> String {
            "mem://x.nc".into()
        }
    }

    fn header() -> Vec<u8> {
        let mut h = b"CDF\x01".to_vec();
        let be = |n: u32| n.to_be_bytes();
        h.extend(be(0)); // records
        h.extend(be(0x0A)); // dimensions
        h.extend(be(1));
        h.extend(be(1));
        h.extend(b"x\0\0\0");
        h.extend(be(4));
        h.extend([0; 8]); // no global attributes
        h.extend(be(0x0B)); // variables
        h.extend(be(1));
        h.extend(be(1));
        h.extend(b"v\0\0\0");
        h.extend(be(1)); // one dimension
        h.extend(be(0));
        h.extend([0; 8]); // no attributes
        h.extend(be(4)); // int
        h.extend(be(16)); // vsize
        let begin = h.len() as u32 + 4;
        h.extend(be(begin));
        h
    }

    #[test]
    fn a_failed_read_stays_a_store_error_naming_the_variable() {
        let source = Nc3Source::from_file(Arc::new(FailingData(header()))).unwrap();
        let err = source
            .read(&VarPath::new(&[], "v"), &Region::whole(&[4]))
            .unwrap_err();
        assert!(
            matches!(&err, Error::VarStore { var, source: StoreError::Io { .. } } if var == "/v"),
            "{err:?}"
        );
        assert!(err.to_string().starts_with("variable '/v': "), "{err}");
    }
}
