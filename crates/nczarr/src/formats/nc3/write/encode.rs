//! A classic-family header as bytes: the reverse of [`super::super::header::parse`],
//! laid out as netcdf-c lays it out (big-endian, tagged and counted lists, an empty
//! list written ABSENT, names and values padded to four bytes with zeros).

use super::super::header::{Header, Version};
use crate::model::{NcType, Values};

const NC_DIMENSION: u32 = 0x0A;
const NC_VARIABLE: u32 = 0x0B;
const NC_ATTRIBUTE: u32 = 0x0C;

/// The bytes of `header`. Attribute values are in native order in the model, big-endian
/// here. `header.len` is not read: it is what this returns the length of.
pub(crate) fn encode(header: &Header) -> Vec<u8> {
    let mut w = Writer {
        bytes: Vec::with_capacity(1024),
        wide: header.version == Version::Data64,
    };
    w.bytes.extend_from_slice(b"CDF");
    w.bytes.push(header.version.number());
    // The record count: written again when the records are known (`numrecs_bytes`).
    w.count(header.numrecs.unwrap_or(0));
    w.list(NC_DIMENSION, header.dims.len(), |w| {
        for d in &header.dims {
            w.name(&d.name);
            w.count(d.len);
        }
    });
    w.attrs(&header.attrs);
    w.list(NC_VARIABLE, header.vars.len(), |w| {
        for v in &header.vars {
            w.name(&v.name);
            w.count(v.dim_ids.len() as u64);
            for &id in &v.dim_ids {
                w.count(id as u64);
            }
            w.attrs(&v.attrs);
            w.u32(type_id(v.nc_type));
            w.count(v.vsize);
            if header.version == Version::Classic {
                w.u32(u32::try_from(v.begin).unwrap_or(u32::MAX));
            } else {
                w.bytes.extend_from_slice(&v.begin.to_be_bytes());
            }
        }
    });
    w.bytes
}

/// The type's id in the classic formats (netCDF's `nc_type`).
fn type_id(t: NcType) -> u32 {
    match t {
        NcType::Byte => 1,
        NcType::Char => 2,
        NcType::Short => 3,
        NcType::Int => 4,
        NcType::Float => 5,
        NcType::Double => 6,
        NcType::UByte => 7,
        NcType::UShort => 8,
        NcType::UInt => 9,
        NcType::Int64 => 10,
        NcType::UInt64 => 11,
        // Refused before a header is made (`super::fits`).
        NcType::String => 12,
    }
}

/// The big-endian bytes of `values` (strings have none: refused before).
pub(crate) fn be_bytes(values: &Values) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * values.nc_type().size());
    values.extend_ne_bytes(&mut out);
    super::super::header::be_to_native(&mut out, values.nc_type().size().max(1));
    out
}

struct Writer {
    bytes: Vec<u8>,
    /// CDF-5: counts and sizes are 64-bit.
    wide: bool,
}

impl Writer {
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }

    fn count(&mut self, v: u64) {
        if self.wide {
            self.bytes.extend_from_slice(&v.to_be_bytes());
        } else {
            self.u32(u32::try_from(v).unwrap_or(u32::MAX));
        }
    }

    fn padded(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
        self.bytes
            .resize(self.bytes.len() + (4 - b.len() % 4) % 4, 0);
    }

    fn name(&mut self, name: &str) {
        self.count(name.len() as u64);
        self.padded(name.as_bytes());
    }

    /// A tagged list of `n` items written by `items`; ABSENT when empty.
    fn list(&mut self, tag: u32, n: usize, items: impl FnOnce(&mut Writer)) {
        if n == 0 {
            self.u32(0);
            self.count(0);
            return;
        }
        self.u32(tag);
        self.count(n as u64);
        items(self);
    }

    fn attrs(&mut self, attrs: &[crate::model::Attr]) {
        self.list(NC_ATTRIBUTE, attrs.len(), |w| {
            for a in attrs {
                w.name(&a.name);
                w.u32(type_id(a.values.nc_type()));
                w.count(a.values.len() as u64);
                w.padded(&be_bytes(&a.values));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::header::{parse, DimHeader, VarHeader};
    use super::*;
    use crate::model::Attr;

    fn sample(version: Version) -> Header {
        Header {
            version,
            numrecs: Some(3),
            dims: vec![
                DimHeader {
                    name: "time".into(),
                    len: 0,
                },
                DimHeader {
                    name: "x".into(),
                    len: 5,
                },
            ],
            attrs: vec![
                Attr::new("title", Values::text("odd")),
                Attr::new("v", Values::Short(vec![1, -2, 3])),
            ],
            vars: vec![VarHeader {
                name: "t".into(),
                dim_ids: vec![0, 1],
                attrs: vec![Attr::new("d", Values::Double(vec![0.5]))],
                nc_type: NcType::Float,
                vsize: 20,
                begin: 200,
            }],
            len: 0,
        }
    }

    #[test]
    fn every_version_parses_back_as_written() {
        for version in [Version::Classic, Version::Offset64, Version::Data64] {
            let h = sample(version);
            let bytes = encode(&h);
            assert_eq!(bytes.len() % 4, 0);
            let back = parse(&bytes).unwrap();
            assert_eq!(back.len, bytes.len());
            assert_eq!(Header { len: 0, ..back }, h, "{version:?}");
        }
    }

    #[test]
    fn an_empty_header_is_absent_lists() {
        let h = Header {
            version: Version::Classic,
            numrecs: Some(0),
            dims: vec![],
            attrs: vec![],
            vars: vec![],
            len: 0,
        };
        assert_eq!(
            encode(&h),
            [b"CDF\x01".as_slice(), &[0; 4], &[0; 8], &[0; 8], &[0; 8]].concat()
        );
    }
}
