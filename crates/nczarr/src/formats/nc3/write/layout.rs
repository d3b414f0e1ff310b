//! Where everything goes in a classic-family file, by netcdf-c's rules (`NC_begins` and
//! `NC_var_shape` of `libsrc/nc3internal.c` and `var.c`, as `nc_enddef` calls them):
//! the header, then the fixed-size variables one after another, each padded to four
//! bytes, then the records, each holding every record variable's share (padded to four
//! bytes, except when there is one record variable only). What the format cannot hold
//! is refused here, naming the first thing, before anything is written.

use super::super::header::{DimHeader, Header, VarHeader, Version};
use super::encode::encode;
use crate::model::{Dataset, NcType, VarPath};

/// Where one variable's values are.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VarPlace {
    /// The variable.
    pub path: VarPath,
    /// Its type.
    pub nc_type: NcType,
    /// Its shape (the record dimension's length first for a record variable).
    pub shape: Vec<u64>,
    /// A record variable: its first dimension is the record dimension.
    pub record: bool,
    /// Where its values (its first record's share) start.
    pub begin: u64,
    /// The bytes of its values (of one record's share), unpadded.
    pub data_len: u64,
    /// The bytes it takes (of one record), padded to four.
    pub len: u64,
}

/// A whole file's layout.
#[derive(Debug, Clone)]
pub(crate) struct FileLayout {
    /// The header's bytes, begins and sizes filled in.
    pub header_bytes: Vec<u8>,
    /// Each variable, in the header's order.
    pub vars: Vec<VarPlace>,
    /// Bytes from one record to the next.
    pub record_bytes: u64,
    /// How many records.
    pub numrecs: u64,
    /// The file's length.
    pub file_len: u64,
}

/// The largest variable (or record share) CDF-1 and CDF-2 record in `vsize`, and hold
/// anywhere but last.
const MAX_VSIZE: u64 = 4_294_967_292;

/// Whether `d` is the file's record dimension: the unlimited one, else the one of
/// length 0 (a header's length 0 says "record dimension"; `check` allows one).
fn is_record_dim(d: &crate::model::Dim) -> bool {
    d.unlimited || d.len == 0
}

/// Why `dataset` does not fit `version`: the first thing that does not, in one line.
fn check(dataset: &Dataset, version: Version) -> Result<(), String> {
    let kind = version.kind();
    let root = &dataset.root;
    if let Some(g) = root.groups.first() {
        return Err(format!(
            "group '{}': a {kind} file has no groups (write netCDF-4: -k nc4)",
            g.name
        ));
    }
    if let Some(t) = root.types.first() {
        return Err(format!(
            "type '{}': a {kind} file has no user-defined types (write netCDF-4: -k nc4)",
            t.name
        ));
    }
    let holds = |t: NcType| match t {
        NcType::String => false,
        NcType::UByte | NcType::UShort | NcType::UInt | NcType::Int64 | NcType::UInt64 => {
            version == Version::Data64
        }
        _ => true,
    };
    let better = |t: NcType| {
        if t == NcType::String {
            "write netCDF-4: -k nc4"
        } else {
            "write CDF-5 (-k cdf5) or netCDF-4 (-k nc4)"
        }
    };
    let unlimited: Vec<_> = root.dims.iter().filter(|d| d.unlimited).collect();
    if unlimited.len() > 1 {
        return Err(format!(
            "dimensions '{}' and '{}' are both unlimited; a {kind} file has one unlimited dimension (write netCDF-4: -k nc4)",
            unlimited[0].name, unlimited[1].name
        ));
    }
    // A length of 0 in the header means the record dimension: a fixed dimension of
    // length 0 can only be that one (as netcdf-c makes it), so there is room for one.
    let empty: Vec<_> = root
        .dims
        .iter()
        .filter(|d| !d.unlimited && d.len == 0)
        .collect();
    if let Some(e) = empty.first() {
        if let Some(u) = unlimited.first().or(empty.get(1)) {
            return Err(format!(
                "dimension '{}' has length 0, which a {kind} file can only give its one record dimension, and '{}' needs that (write netCDF-4: -k nc4)",
                e.name, u.name
            ));
        }
    }
    // The first attribute of `attrs` the format cannot hold, said of it by `whose`.
    let attr_fault = |attrs: &[crate::model::Attr], whose: &dyn Fn(&str) -> String| {
        attrs
            .iter()
            .find(|a| !holds(a.values.nc_type()) || a.user.is_some())
            .map(|a| {
                let t = a.values.nc_type();
                format!(
                    "{} is of type {t}, which a {kind} file does not hold ({})",
                    whose(&a.name),
                    better(t)
                )
            })
    };
    if let Some(e) = attr_fault(&root.attrs, &|a| format!("global attribute '{a}'")) {
        return Err(e);
    }
    for v in &root.vars {
        if v.user_type.is_some() {
            return Err(format!(
                "variable '{}' has a user-defined type, which a {kind} file does not hold (write netCDF-4: -k nc4)",
                v.name
            ));
        }
        if !holds(v.nc_type) {
            return Err(format!(
                "variable '{}' is of type {}, which a {kind} file does not hold ({})",
                v.name,
                v.nc_type,
                better(v.nc_type)
            ));
        }
        for (i, d) in v.dims.iter().enumerate() {
            let unlimited = root
                .dims
                .iter()
                .any(|x| x.name == d.name && is_record_dim(x) && d.group.is_empty());
            if unlimited && i > 0 {
                return Err(format!(
                    "variable '{}' has the unlimited dimension '{}' other than first, which a {kind} file does not allow (write netCDF-4: -k nc4)",
                    v.name, d.name
                ));
            }
        }
        let whose = |a: &str| format!("attribute '{a}' of variable '{}'", v.name);
        if let Some(e) = attr_fault(&v.attrs, &whose) {
            return Err(e);
        }
    }
    Ok(())
}

/// The layout of `dataset` as a `version` file.
///
/// # Errors
/// One line naming the first thing the format cannot hold.
pub(crate) fn layout(dataset: &Dataset, version: Version) -> Result<FileLayout, String> {
    check(dataset, version)?;
    let root = &dataset.root;
    let dims: Vec<DimHeader> = root
        .dims
        .iter()
        .map(|d| DimHeader {
            name: d.name.clone(),
            len: if d.unlimited { 0 } else { d.len },
        })
        .collect();
    let numrecs = root.dims.iter().find(|d| d.unlimited).map_or(0, |d| d.len);

    let mut vars = Vec::with_capacity(root.vars.len());
    let mut headers = Vec::with_capacity(root.vars.len());
    for v in &root.vars {
        let dim_ids = v
            .dims
            .iter()
            .map(|d| {
                root.dims
                    .iter()
                    .position(|x| x.name == d.name && d.group.is_empty())
                    .ok_or_else(|| {
                        format!(
                            "variable '{}' uses dimension '{}' of another group",
                            v.name,
                            d.fqn()
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let record = dim_ids
            .first()
            .is_some_and(|&i| is_record_dim(&root.dims[i]));
        let shape = dataset.var_shape(v);
        let inner: u64 = shape
            .iter()
            .skip(usize::from(record))
            .try_fold(1u64, |a, &n| a.checked_mul(n))
            .and_then(|n| n.checked_mul(v.nc_type.size() as u64))
            .ok_or_else(|| format!("variable '{}' is larger than any file", v.name))?;
        let len = inner.div_ceil(4) * 4;
        vars.push(VarPlace {
            path: VarPath::new(&[], &v.name),
            nc_type: v.nc_type,
            shape,
            record,
            begin: 0,
            data_len: inner,
            len,
        });
        headers.push(VarHeader {
            name: v.name.clone(),
            dim_ids,
            attrs: v.attrs.clone(),
            nc_type: v.nc_type,
            vsize: 0,
            begin: 0,
        });
    }
    // vsize: the padded size, or 2^32 - 1 where CDF-1 and CDF-2 cannot say it.
    for (h, p) in headers.iter_mut().zip(&vars) {
        h.vsize = if p.len > MAX_VSIZE && version != Version::Data64 {
            u64::from(u32::MAX)
        } else {
            p.len
        };
    }
    let mut header = Header {
        version,
        numrecs: Some(numrecs),
        dims,
        attrs: root.attrs.clone(),
        vars: headers,
        len: 0,
    };
    // Begins are written in the header, whose length does not depend on their values
    // (fixed-width fields): measure it once, then place.
    let header_len = encode(&header).len() as u64;
    let mut at = header_len;
    for p in vars.iter_mut().filter(|p| !p.record) {
        p.begin = at;
        at = at.saturating_add(p.len);
    }
    let begin_rec = at;
    let mut record_bytes = 0u64;
    for p in vars.iter_mut().filter(|p| p.record) {
        p.begin = begin_rec.saturating_add(record_bytes);
        record_bytes = record_bytes.saturating_add(p.len);
    }
    let records: Vec<&VarPlace> = vars.iter().filter(|p| p.record).collect();
    if let [one] = records.as_slice() {
        // One record variable: its records are not padded.
        record_bytes = one.data_len;
    }
    check_sizes(&vars, version, record_bytes, begin_rec)?;
    for (h, p) in header.vars.iter_mut().zip(&vars) {
        h.begin = p.begin;
    }
    let header_bytes = encode(&header);
    let file_len = begin_rec.saturating_add(record_bytes.saturating_mul(numrecs));
    Ok(FileLayout {
        header_bytes,
        vars,
        record_bytes,
        numrecs,
        file_len,
    })
}

/// CDF-1 and CDF-2 limits (netcdf-c's `NC_check_vlens` and offsets): a variable over
/// 4 GiB only last of the fixed ones with no record variables, or last of the record
/// variables; in CDF-1 every begin under 2 GiB.
fn check_sizes(
    vars: &[VarPlace],
    version: Version,
    record_bytes: u64,
    begin_rec: u64,
) -> Result<(), String> {
    if version == Version::Data64 {
        return Ok(());
    }
    let kind = version.kind();
    let last_fixed = vars.iter().rposition(|p| !p.record);
    let last_record = vars.iter().rposition(|p| p.record);
    for (i, p) in vars.iter().enumerate() {
        let may_be_large = if p.record {
            Some(i) == last_record
        } else {
            Some(i) == last_fixed && last_record.is_none()
        };
        if p.len > MAX_VSIZE && !may_be_large {
            return Err(format!(
                "variable '{}' takes {} bytes{}; a {kind} file holds over 4 GiB only in its last variable (write CDF-5: -k cdf5, or netCDF-4: -k nc4)",
                p.path.name,
                p.len,
                if p.record { " per record" } else { "" }
            ));
        }
        if version == Version::Classic && p.begin > i32::MAX as u64 {
            return Err(format!(
                "variable '{}' starts past 2 GiB, which a classic file cannot say (write 64-bit offset: -k nc6, or CDF-5: -k cdf5)",
                p.path.name
            ));
        }
    }
    if version == Version::Classic && last_record.is_some() && begin_rec > i32::MAX as u64 {
        return Err(format!(
            "the records start past 2 GiB, which a classic file cannot say (write 64-bit offset: -k nc6, or CDF-5: -k cdf5); record size {record_bytes} bytes"
        ));
    }
    Ok(())
}
