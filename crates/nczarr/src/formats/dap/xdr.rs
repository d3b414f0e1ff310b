//! The body of a DAP2 data answer (`.dods`): the values of the variables its DDS
//! declares, in XDR (big-endian, four-byte units), one after another in DDS order.
//!
//! An array starts with its length (twice for numbers: once for the array, once for
//! XDR's own array; once for strings); a byte array is padded to four bytes; 16-bit
//! integers travel as 32-bit ones; a string is its length and its bytes, padded. A
//! sequence's rows each start with `0x5A000000` and the last is followed by
//! `0xA5000000`.

use super::dds::{DapType, Decl};

/// The values of one base variable of an answer, in the types netCDF's classic model
/// keeps them in (DAP's unsigned integers as the signed ones of their width, as
/// netcdf-c's DAP2 client does).
#[derive(Debug, Clone, PartialEq)]
pub enum Leaf {
    /// Byte.
    Byte(Vec<i8>),
    /// Int16 and UInt16.
    Short(Vec<i16>),
    /// Int32 and UInt32.
    Int(Vec<i32>),
    /// Float32.
    Float(Vec<f32>),
    /// Float64.
    Double(Vec<f64>),
    /// String and Url.
    Text(Vec<Vec<u8>>),
}

impl Leaf {
    /// How many values.
    pub fn len(&self) -> usize {
        match self {
            Leaf::Byte(v) => v.len(),
            Leaf::Short(v) => v.len(),
            Leaf::Int(v) => v.len(),
            Leaf::Float(v) => v.len(),
            Leaf::Double(v) => v.len(),
            Leaf::Text(v) => v.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Each base variable of an answer: its path (names joined by `.`) and its values.
pub type Leaves = Vec<(String, Leaf)>;

/// Where `START_OF_INSTANCE` begins a sequence's row.
const ROW_START: u32 = 0x5A00_0000;
/// What ends a sequence.
const ROWS_END: u32 = 0xA500_0000;

/// Values held at most from one answer: a length beyond this is damage, not data.
const MAX_VALUES: u64 = 1 << 40;

/// Decode the body `bytes` of an answer whose DDS declares `decls`.
///
/// # Errors
/// A body that ends early, or a length that disagrees with the DDS: the variable and
/// the byte where it was found.
pub fn decode(decls: &[Decl], bytes: &[u8]) -> Result<Leaves, String> {
    let mut r = Reader { bytes, at: 0 };
    let mut out = Vec::new();
    for d in decls {
        decl(&mut r, d, "", &mut out)?;
    }
    // Bytes after the last variable (a newline some servers add) are not data, and
    // netcdf-c reads on as well.
    Ok(out)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "the answer ends early: {what}: {n} bytes needed at byte {}, {} left",
                    self.at,
                    self.bytes.len() - self.at
                )
            })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Decode `d`, appending each base variable's values to the entry with its path (a
/// field of an array of structures, or of a sequence, once per element).
fn decl(r: &mut Reader, d: &Decl, prefix: &str, out: &mut Leaves) -> Result<(), String> {
    match d {
        Decl::Base { ty, name, dims } => {
            let path = join(prefix, name);
            let n = dims.iter().try_fold(1u64, |a, d| a.checked_mul(d.size));
            let n = n
                .filter(|&n| n <= MAX_VALUES)
                .ok_or_else(|| format!("variable '{path}': its shape is larger than any answer"))?;
            let leaf = base(r, *ty, !dims.is_empty(), n, &path)?;
            push(out, path, leaf);
        }
        Decl::Grid { name, array, maps } => {
            let p = join(prefix, name);
            decl(r, array, &p, out)?;
            for m in maps {
                decl(r, m, &p, out)?;
            }
        }
        Decl::Structure { name, fields, dims } => {
            // An array of structures is sent as its length (once) and each element.
            let p = join(prefix, name);
            let n = if dims.is_empty() {
                1
            } else {
                let n = r.u32(&format!("the length of '{p}'"))?;
                let want: u64 = dims.iter().map(|d| d.size).product();
                if u64::from(n) != want {
                    return Err(format!(
                        "structure '{p}': {n} elements sent, its DDS says {want}"
                    ));
                }
                u64::from(n)
            };
            for _ in 0..n {
                let before = r.at;
                for f in fields {
                    decl(r, f, &p, out)?;
                }
                // Elements that hold nothing: the rest hold nothing either (a DDS
                // claiming billions of empty structures is no reason to loop).
                if r.at == before {
                    break;
                }
            }
        }
        Decl::Sequence { name, fields } => {
            let p = join(prefix, name);
            loop {
                match r.u32(&format!("a row marker of '{p}'"))? {
                    ROW_START => {
                        for f in fields {
                            decl(r, f, &p, out)?;
                        }
                    }
                    ROWS_END => break,
                    other => {
                        return Err(format!(
                            "sequence '{p}': 0x{other:08X} where a row marker belongs (byte {})",
                            r.at - 4
                        ))
                    }
                }
            }
        }
    }
    Ok(())
}

/// Append `leaf` to the values already decoded for `path` (a field of structures or
/// rows comes once per element), or add it.
fn push(out: &mut Leaves, path: String, leaf: Leaf) {
    if let Some((_, have)) = out.iter_mut().rev().find(|(p, _)| *p == path) {
        match (have, leaf) {
            (Leaf::Byte(a), Leaf::Byte(b)) => a.extend(b),
            (Leaf::Short(a), Leaf::Short(b)) => a.extend(b),
            (Leaf::Int(a), Leaf::Int(b)) => a.extend(b),
            (Leaf::Float(a), Leaf::Float(b)) => a.extend(b),
            (Leaf::Double(a), Leaf::Double(b)) => a.extend(b),
            (Leaf::Text(a), Leaf::Text(b)) => a.extend(b),
            (_, leaf) => out.push((path, leaf)),
        }
        return;
    }
    out.push((path, leaf));
}

fn base(r: &mut Reader, ty: DapType, array: bool, n: u64, path: &str) -> Result<Leaf, String> {
    let what = |s: &str| format!("{s} of '{path}'");
    if array {
        let count = r.u32(&what("the length"))?;
        if !ty.is_text() {
            let again = r.u32(&what("the second length"))?;
            if again != count {
                return Err(format!(
                    "variable '{path}': lengths {count} and {again} disagree (byte {})",
                    r.at - 4
                ));
            }
        }
        if u64::from(count) != n {
            return Err(format!(
                "variable '{path}': {count} values sent, its DDS says {n}"
            ));
        }
    }
    let n = usize::try_from(n).map_err(|_| what("the length"))?;
    // The values' bytes, in place: the whole length checked first (a length beyond
    // the body is damage, and must not be allocated).
    fn fixed<'a>(
        r: &mut Reader<'a>,
        n: usize,
        size: usize,
        path: &str,
    ) -> Result<&'a [u8], String> {
        let bytes = n
            .checked_mul(size)
            .ok_or_else(|| format!("variable '{path}': too large"))?;
        r.take(bytes, &format!("the values of '{path}'"))
    }
    let leaf = match ty {
        // A scalar byte is an XDR integer: its low byte, last (libdap's `xdr_char`).
        DapType::Byte if !array => {
            let b = r.take(4, &what("the value"))?;
            Leaf::Byte(vec![b[3] as i8])
        }
        DapType::Byte => {
            let b = fixed(r, n, 1, path)?;
            let pad = (4 - n % 4) % 4;
            r.take(pad, &what("the padding"))?;
            Leaf::Byte(b.iter().map(|&x| x as i8).collect())
        }
        DapType::Int16 | DapType::UInt16 => Leaf::Short(
            fixed(r, n, 4, path)?
                .chunks_exact(4)
                .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]) as i16)
                .collect(),
        ),
        DapType::Int32 | DapType::UInt32 => Leaf::Int(
            fixed(r, n, 4, path)?
                .chunks_exact(4)
                .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        DapType::Float32 => Leaf::Float(
            fixed(r, n, 4, path)?
                .chunks_exact(4)
                .map(|c| f32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        DapType::Float64 => Leaf::Double(
            fixed(r, n, 8, path)?
                .chunks_exact(8)
                .map(|c| f64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        ),
        DapType::String | DapType::Url => {
            let mut v = Vec::with_capacity(n.min(1 << 20));
            for _ in 0..n {
                let len = r.u32(&what("a string's length"))? as usize;
                let s = r.take(len, &what("a string"))?.to_vec();
                r.take((4 - len % 4) % 4, &what("a string's padding"))?;
                v.push(s);
            }
            Leaf::Text(v)
        }
    };
    Ok(leaf)
}

/// The DDS and the body of a `.dods` answer: the text before `\nData:\n` (or
/// `\nData:\r\n`), and the bytes after.
pub fn split_answer(answer: &[u8]) -> Option<(&[u8], &[u8])> {
    for sep in [&b"\nData:\n"[..], &b"\nData:\r\n"[..]] {
        if let Some(i) = answer.windows(sep.len()).position(|w| w == sep) {
            return Some((&answer[..i], &answer[i + sep.len()..]));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::dds;
    use super::*;

    fn be(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn arrays_of_every_width() {
        let d = dds::parse(
            "Dataset { Byte b[x = 3]; UInt16 u[x = 3]; String s[y = 2]; Float64 f; } d;",
        )
        .unwrap();
        let mut body = be(&[3, 3]);
        body.extend([250, 0, 1, 0]);
        body.extend(be(&[3, 3, 65000, 0, 1]));
        body.extend(be(&[2, 3]));
        body.extend(b"abc\0");
        body.extend(be(&[0]));
        body.extend(2.5f64.to_be_bytes());
        let leaves = decode(&d.decls, &body).unwrap();
        assert_eq!(leaves[0].1, Leaf::Byte(vec![-6, 0, 1]));
        assert_eq!(leaves[1].1, Leaf::Short(vec![-536, 0, 1]));
        assert_eq!(leaves[2].1, Leaf::Text(vec![b"abc".to_vec(), vec![]]));
        assert_eq!(leaves[3], ("f".into(), Leaf::Double(vec![2.5])));
    }

    #[test]
    fn a_short_body_is_an_error_not_a_panic() {
        let d = dds::parse("Dataset { Int32 x[x = 1000000000]; } d;").unwrap();
        let e = decode(&d.decls, &be(&[1_000_000_000, 1_000_000_000, 1])).unwrap_err();
        assert!(e.contains("ends early"), "{e}");
        assert!(decode(&d.decls, &be(&[2, 3])).is_err());
    }

    #[test]
    fn answers_split_at_data() {
        let (dds, body) = split_answer(b"Dataset { } d;\nData:\n\x00\x01").unwrap();
        assert_eq!(dds, b"Dataset { } d;");
        assert_eq!(body, b"\x00\x01");
    }
}
