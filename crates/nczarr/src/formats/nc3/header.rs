//! The header of a netCDF classic file (CDF-1), a 64-bit offset file (CDF-2) or a
//! 64-bit data file (CDF-5), as the netCDF "classic format specification" and
//! PnetCDF's CDF-5 specification lay it out: big-endian, every list tagged and counted,
//! names and values padded to four bytes.
//!
//! Parsing is a pure function of the header's bytes. A file's header has no length
//! field, so the caller reads a prefix and, when [`HeaderFault::NeedMore`] says the
//! prefix ended inside the header, reads more.

use crate::model::{Attr, NcType, Values};

/// The three classic formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// CDF-1: 32-bit offsets.
    Classic,
    /// CDF-2: 64-bit offsets.
    Offset64,
    /// CDF-5: 64-bit offsets, counts and sizes, and the unsigned and 64-bit types.
    Data64,
}

impl Version {
    /// What `ncdump -k` prints and `_Format` holds.
    pub fn kind(self) -> &'static str {
        match self {
            Version::Classic => "classic",
            Version::Offset64 => "64-bit offset",
            Version::Data64 => "cdf5",
        }
    }

    /// The magic number's last byte.
    pub fn number(self) -> u8 {
        match self {
            Version::Classic => 1,
            Version::Offset64 => 2,
            Version::Data64 => 5,
        }
    }
}

/// A dimension: its length is 0 for the record (unlimited) dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct DimHeader {
    /// Name.
    pub name: String,
    /// Length; 0 for the record dimension.
    pub len: u64,
}

/// A variable as the header describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct VarHeader {
    /// Name.
    pub name: String,
    /// Dimension ids, indexes into [`Header::dims`].
    pub dim_ids: Vec<usize>,
    /// Attributes in file order, values in native order.
    pub attrs: Vec<Attr>,
    /// Element type.
    pub nc_type: NcType,
    /// The size the header records (not trusted: recomputed from the shape).
    pub vsize: u64,
    /// Byte offset of the variable's data (of its first record, for a record variable).
    pub begin: u64,
}

/// A parsed header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Which format.
    pub version: Version,
    /// The number of records; `None` when the file says "streaming" (0xFFFFFFFF) and
    /// the count must come from the file's size.
    pub numrecs: Option<u64>,
    /// Dimensions in file order.
    pub dims: Vec<DimHeader>,
    /// Global attributes in file order.
    pub attrs: Vec<Attr>,
    /// Variables in file order.
    pub vars: Vec<VarHeader>,
    /// Bytes the header takes.
    pub len: usize,
}

/// Why a header could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderFault {
    /// The bytes given end inside the header: read at least this many and parse again.
    #[error("the header continues past byte {0}")]
    NeedMore(usize),
    /// Not a classic netCDF file.
    #[error("not a netCDF classic file (no CDF magic number)")]
    NotClassic,
    /// Anything else, with the byte offset where it was found.
    #[error("damaged header at byte {at}: {message}")]
    Damaged {
        /// Offset in the file.
        at: usize,
        /// What is wrong.
        message: String,
    },
}

// Here rather than in `error.rs`, which would otherwise import the layer it is
// imported by.
impl From<HeaderFault> for crate::Error {
    fn from(e: HeaderFault) -> crate::Error {
        crate::Error::Layer {
            layer: "nc3",
            source: Box::new(e),
        }
    }
}

const NC_DIMENSION: u32 = 0x0A;
const NC_VARIABLE: u32 = 0x0B;
const NC_ATTRIBUTE: u32 = 0x0C;
const STREAMING: u32 = 0xFFFF_FFFF;

/// The format of a file starting with `bytes`, if it is a classic one.
pub fn sniff(bytes: &[u8]) -> Option<Version> {
    match bytes.get(..4)? {
        b"CDF\x01" => Some(Version::Classic),
        b"CDF\x02" => Some(Version::Offset64),
        b"CDF\x05" => Some(Version::Data64),
        _ => None,
    }
}

/// Parse the header at the start of `bytes`.
///
/// # Errors
/// [`HeaderFault::NeedMore`] when `bytes` ends inside the header (and the file may be
/// longer than `bytes`), [`HeaderFault::NotClassic`] without the magic number, and
/// [`HeaderFault::Damaged`] naming the offset of anything else.
pub fn parse(bytes: &[u8]) -> Result<Header, HeaderFault> {
    let version = sniff(bytes).ok_or(if bytes.len() < 4 {
        HeaderFault::NeedMore(4)
    } else {
        HeaderFault::NotClassic
    })?;
    let mut r = Reader {
        bytes,
        at: 4,
        wide: version == Version::Data64,
    };
    let numrecs = if r.wide {
        match r.u64()? {
            u64::MAX => None,
            n => Some(n),
        }
    } else {
        match r.u32()? {
            STREAMING => None,
            n => Some(u64::from(n)),
        }
    };
    let dims = r.list(NC_DIMENSION, "dimension", |r| {
        let name = r.name()?;
        let len = r.count()?;
        Ok(DimHeader { name, len })
    })?;
    let attrs = r.attrs()?;
    let vars = r.list(NC_VARIABLE, "variable", |r| {
        let name = r.name()?;
        let ndims = r.count()?;
        let dim_ids = r.counted(ndims, 4, |r| {
            let at = r.at;
            let id = r.count()?;
            usize::try_from(id)
                .ok()
                .filter(|&i| i < dims.len())
                .ok_or_else(|| r.damaged_at(at, format!("dimension id {id} does not exist")))
        })?;
        let attrs = r.attrs()?;
        let nc_type = r.nc_type(version)?;
        let vsize = r.count()?;
        let begin = if version == Version::Classic {
            u64::from(r.u32()?)
        } else {
            r.u64()?
        };
        Ok(VarHeader {
            name,
            dim_ids,
            attrs,
            nc_type,
            vsize,
            begin,
        })
    })?;
    Ok(Header {
        version,
        numrecs,
        dims,
        attrs,
        vars,
        len: r.at,
    })
}

/// A cursor over the header's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// CDF-5: counts and sizes are 64-bit.
    wide: bool,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], HeaderFault> {
        let end = self
            .at
            .checked_add(n)
            .ok_or_else(|| self.damaged(format!("a length of {n} bytes runs past any file")))?;
        let slice = self
            .bytes
            .get(self.at..end)
            .ok_or(HeaderFault::NeedMore(end))?;
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32, HeaderFault> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, HeaderFault> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    /// A count, length or size: 32-bit (a non-negative int) except in CDF-5.
    fn count(&mut self) -> Result<u64, HeaderFault> {
        if self.wide {
            let at = self.at;
            let n = self.u64()?;
            if n > i64::MAX as u64 {
                return Err(self.damaged_at(at, format!("negative count {}", n as i64)));
            }
            Ok(n)
        } else {
            Ok(u64::from(self.u32()?))
        }
    }

    fn damaged(&self, message: String) -> HeaderFault {
        self.damaged_at(self.at, message)
    }

    fn damaged_at(&self, at: usize, message: String) -> HeaderFault {
        HeaderFault::Damaged { at, message }
    }

    /// `n` items, each at least `min_bytes` long: the count is checked against the
    /// bytes left before anything is allocated for it, so a damaged count cannot
    /// claim memory the file cannot back.
    fn counted<T>(
        &mut self,
        n: u64,
        min_bytes: u64,
        mut item: impl FnMut(&mut Self) -> Result<T, HeaderFault>,
    ) -> Result<Vec<T>, HeaderFault> {
        let need = n.saturating_mul(min_bytes);
        let left = (self.bytes.len() - self.at) as u64;
        if need > left {
            // Either the header is longer than the prefix read, or the count is damaged;
            // the caller tells which by reading more (a file shorter than this is damaged).
            let end = usize::try_from(need)
                .ok()
                .and_then(|need| self.at.checked_add(need))
                .ok_or_else(|| self.damaged(format!("a count of {n} items runs past any file")))?;
            return Err(HeaderFault::NeedMore(end));
        }
        let mut out = Vec::with_capacity(n as usize);
        for _ in 0..n {
            out.push(item(self)?);
        }
        Ok(out)
    }

    /// A tagged list: ABSENT (two zeros) or the tag, a count and the items.
    fn list<T>(
        &mut self,
        tag: u32,
        what: &str,
        item: impl FnMut(&mut Self) -> Result<T, HeaderFault>,
    ) -> Result<Vec<T>, HeaderFault> {
        let at = self.at;
        let found = self.u32()?;
        let n = self.count()?;
        match found {
            0 if n == 0 => Ok(Vec::new()),
            t if t == tag => self.counted(n, 8, item),
            0 => Err(self.damaged_at(at, format!("an absent {what} list with {n} items"))),
            t => Err(self.damaged_at(at, format!("expected the {what} list tag, found {t:#x}"))),
        }
    }

    fn name(&mut self) -> Result<String, HeaderFault> {
        let at = self.at;
        let n = self.count()?;
        let bytes = self.padded(n)?;
        // A name ends at its first NUL, as netcdf-c reads it (a C string): netcdf-c's own
        // `nctest` files store `pp` in 8 bytes, padded with NULs.
        let bytes = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
        String::from_utf8(bytes.to_vec())
            .map_err(|_| self.damaged_at(at, "a name that is not UTF-8".to_string()))
    }

    /// `n` bytes and the padding to a multiple of four after them.
    fn padded(&mut self, n: u64) -> Result<&[u8], HeaderFault> {
        let n = usize::try_from(n).map_err(|_| self.damaged(format!("a length of {n} bytes")))?;
        let padded = n
            .checked_add(3)
            .map(|p| p & !3)
            .ok_or_else(|| self.damaged(format!("a length of {n} bytes")))?;
        Ok(&self.take(padded)?[..n])
    }

    fn nc_type(&mut self, version: Version) -> Result<NcType, HeaderFault> {
        let at = self.at;
        let id = self.u32()?;
        let t = match id {
            1..=6 => NcType::from_id(i64::from(id)),
            7..=11 if version == Version::Data64 => NcType::from_id(i64::from(id)),
            _ => None,
        };
        t.ok_or_else(|| {
            self.damaged_at(
                at,
                format!(
                    "type id {id} is not a type of the {} format",
                    version.kind()
                ),
            )
        })
    }

    fn attrs(&mut self) -> Result<Vec<Attr>, HeaderFault> {
        let version = if self.wide {
            Version::Data64
        } else {
            Version::Classic
        };
        self.list(NC_ATTRIBUTE, "attribute", |r| {
            let name = r.name()?;
            let nc_type = r.nc_type(version)?;
            let n = r.count()?;
            let size = nc_type.size() as u64;
            let at = r.at;
            let bytes = n
                .checked_mul(size)
                .ok_or_else(|| r.damaged(format!("{n} values of {size} bytes")))?;
            let raw = r.padded(bytes)?;
            let values = values_from_be(nc_type, raw).ok_or_else(|| {
                r.damaged_at(
                    at,
                    format!("attribute '{name}' of a type with no fixed size"),
                )
            })?;
            Ok(Attr::new(name, values))
        })
    }
}

/// Values of type `t` from their big-endian bytes (`None` for strings, which classic
/// files do not have).
pub fn values_from_be(t: NcType, raw: &[u8]) -> Option<Values> {
    let size = t.size();
    if t == NcType::String || size == 0 {
        return None;
    }
    let mut values = Values::zeroed(t, raw.len() / size);
    let out = values.ne_bytes_mut()?;
    out.copy_from_slice(&raw[..out.len()]);
    be_to_native(out, size);
    Some(values)
}

/// Turn big-endian items of `size` bytes into native order, in place.
pub fn be_to_native(bytes: &mut [u8], size: usize) {
    crate::codec::dtype::to_native(bytes, size, false);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Header bytes written field by field, as the specification lays them out.
    struct Writer {
        bytes: Vec<u8>,
        wide: bool,
    }

    impl Writer {
        fn new(version: u8) -> Writer {
            Writer {
                bytes: vec![b'C', b'D', b'F', version],
                wide: version == 5,
            }
        }
        fn u32(&mut self, v: u32) -> &mut Self {
            self.bytes.extend_from_slice(&v.to_be_bytes());
            self
        }
        fn count(&mut self, v: u64) -> &mut Self {
            if self.wide {
                self.bytes.extend_from_slice(&v.to_be_bytes());
            } else {
                self.u32(v as u32);
            }
            self
        }
        fn padded(&mut self, b: &[u8]) -> &mut Self {
            self.bytes.extend_from_slice(b);
            while !self.bytes.len().is_multiple_of(4) {
                self.bytes.push(0);
            }
            self
        }
        fn name(&mut self, n: &str) -> &mut Self {
            self.count(n.len() as u64).padded(n.as_bytes())
        }
        fn absent(&mut self) -> &mut Self {
            self.u32(0).count(0)
        }
    }

    /// `netcdf x { dimensions: time = UNLIMITED ; n = 3 ; variables: short v(time, n) ;
    /// v:units = "m" ; char c(n) ; // global :title = "t" ; }`
    fn sample(version: u8, numrecs: u64) -> Vec<u8> {
        let mut w = Writer::new(version);
        if version == 5 {
            w.bytes.extend_from_slice(&numrecs.to_be_bytes());
        } else {
            w.u32(numrecs as u32);
        }
        w.u32(NC_DIMENSION)
            .count(2)
            .name("time")
            .count(0)
            .name("n")
            .count(3);
        w.u32(NC_ATTRIBUTE)
            .count(1)
            .name("title")
            .u32(2)
            .count(1)
            .padded(b"t");
        w.u32(NC_VARIABLE).count(2);
        w.name("v").count(2).count(0).count(1);
        w.u32(NC_ATTRIBUTE)
            .count(1)
            .name("units")
            .u32(2)
            .count(1)
            .padded(b"m");
        w.u32(3).count(8);
        if version == 1 {
            w.u32(200);
        } else {
            w.bytes.extend_from_slice(&200u64.to_be_bytes());
        }
        w.name("c").count(1).count(1).absent().u32(2).count(4);
        if version == 1 {
            w.u32(100);
        } else {
            w.bytes.extend_from_slice(&100u64.to_be_bytes());
        }
        w.bytes
    }

    #[test]
    fn every_version_parses() {
        for (v, version) in [
            (1, Version::Classic),
            (2, Version::Offset64),
            (5, Version::Data64),
        ] {
            let bytes = sample(v, 7);
            let h = parse(&bytes).unwrap();
            assert_eq!(h.version, version);
            assert_eq!(h.numrecs, Some(7));
            assert_eq!(h.len, bytes.len());
            assert_eq!(
                h.dims,
                vec![
                    DimHeader {
                        name: "time".into(),
                        len: 0
                    },
                    DimHeader {
                        name: "n".into(),
                        len: 3
                    }
                ]
            );
            assert_eq!(h.attrs[0].name, "title");
            assert_eq!(h.attrs[0].values, Values::Char(b"t".to_vec()));
            let v = &h.vars[0];
            assert_eq!(
                (v.name.as_str(), v.nc_type, v.begin),
                ("v", NcType::Short, 200)
            );
            assert_eq!(v.dim_ids, vec![0, 1]);
            assert_eq!(v.attrs[0].values, Values::Char(b"m".to_vec()));
            assert_eq!((h.vars[1].nc_type, h.vars[1].begin), (NcType::Char, 100));
        }
    }

    #[test]
    fn names_end_at_their_first_nul_as_in_netcdf_c() {
        // netcdf-c's nctest files store names padded with NULs in their counts.
        let mut w = Writer::new(1);
        w.u32(0);
        w.u32(NC_DIMENSION).count(1).name("pp\0\0\0\0\0\0").count(2);
        w.u32(NC_ATTRIBUTE)
            .count(1)
            .name("ab\0\0")
            .u32(2)
            .count(1)
            .padded(b"t");
        w.absent();
        let h = parse(&w.bytes).unwrap();
        assert_eq!(h.dims[0].name, "pp");
        assert_eq!(h.attrs[0].name, "ab");
    }

    #[test]
    fn streaming_record_count_is_left_to_the_file_size() {
        let mut bytes = sample(1, 0);
        bytes[4..8].copy_from_slice(&STREAMING.to_be_bytes());
        assert_eq!(parse(&bytes).unwrap().numrecs, None);
    }

    #[test]
    fn a_short_prefix_asks_for_more() {
        let bytes = sample(2, 1);
        for cut in [0, 3, 9, 20, bytes.len() - 1] {
            match parse(&bytes[..cut]) {
                Err(HeaderFault::NeedMore(n)) => assert!(n > cut, "cut {cut}: asked for {n}"),
                other => panic!("cut {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn attribute_values_are_big_endian_and_padded() {
        let mut w = Writer::new(1);
        w.u32(0).absent();
        w.u32(NC_ATTRIBUTE).count(2);
        w.name("s").u32(3).count(3);
        for v in [1i16, -2, 300] {
            w.bytes.extend_from_slice(&v.to_be_bytes());
        }
        w.padded(&[]);
        w.name("d").u32(6).count(1);
        w.bytes.extend_from_slice(&1.5f64.to_be_bytes());
        w.absent();
        let h = parse(&w.bytes).unwrap();
        assert_eq!(h.attrs[0].values, Values::Short(vec![1, -2, 300]));
        assert_eq!(h.attrs[1].values, Values::Double(vec![1.5]));
    }

    #[test]
    fn damage_is_named_with_its_offset() {
        let damaged = |bytes: &[u8], needle: &str| match parse(bytes) {
            Err(HeaderFault::Damaged { message, .. }) => {
                assert!(message.contains(needle), "{message}")
            }
            other => panic!("{other:?}"),
        };
        // A list tag that is no tag.
        let mut bytes = sample(1, 1);
        bytes[8..12].copy_from_slice(&0x55u32.to_be_bytes());
        damaged(&bytes, "dimension list tag");
        // A CDF-5 type in a CDF-1 file.
        let mut w = Writer::new(1);
        w.u32(0).absent();
        w.u32(NC_ATTRIBUTE).count(1).name("u").u32(7).count(0);
        damaged(&w.bytes, "type id 7");
        // A dimension id past the dimensions.
        let mut w = Writer::new(1);
        w.u32(0)
            .u32(NC_DIMENSION)
            .count(1)
            .name("n")
            .count(2)
            .absent();
        w.u32(NC_VARIABLE).count(1).name("v").count(1).count(5);
        damaged(&w.bytes, "dimension id 5");
        // A name that is not UTF-8.
        let mut w = Writer::new(1);
        w.u32(0)
            .u32(NC_DIMENSION)
            .count(1)
            .count(2)
            .padded(&[0xff, 0xfe])
            .count(1);
        damaged(&w.bytes, "UTF-8");
        // Not a classic file at all.
        assert_eq!(parse(b"\x89HDF\r\n\x1a\n"), Err(HeaderFault::NotClassic));
    }

    #[test]
    fn a_huge_count_asks_for_bytes_rather_than_memory() {
        let mut w = Writer::new(5);
        w.bytes.extend_from_slice(&0u64.to_be_bytes());
        w.u32(NC_DIMENSION).count(1 << 40);
        match parse(&w.bytes) {
            Err(HeaderFault::NeedMore(n)) => assert!(n as u64 > 1 << 40),
            Err(HeaderFault::Damaged { .. }) => {}
            other => panic!("{other:?}"),
        }
    }
}
