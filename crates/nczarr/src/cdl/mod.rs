//! CDL, the text form of a netCDF dataset: the parser (ncgen's language), the compiler
//! to a dataset held in memory, and the printer (ncdump's output).

pub mod ast;
pub mod compile;
pub mod memory;
pub mod parse;
pub mod print;

pub use compile::{compile, Compiled};
pub use parse::{parse, CdlError};

/// Where bytes of a CDL file that are not UTF-8 are kept in its text: byte `b` (0x80 to
/// 0xff) becomes the private-use character `RAW_BYTE_BASE + b`, which string literals
/// turn back into the byte, and which names refuse.
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// The text of a CDL file, losslessly: ncgen takes the bytes of strings and comments as
/// they are (netcdf-c's own corpus has Latin-1 in strings), so bytes that are not UTF-8
/// are kept as private-use characters (U+10FF80 to U+10FFFF) rather than refused.
pub fn source_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let bytes = e.into_bytes();
            let mut out = String::with_capacity(bytes.len() + 16);
            let mut rest = bytes.as_slice();
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(s) => {
                        out.push_str(s);
                        break;
                    }
                    Err(e) => {
                        let (good, bad) = rest.split_at(e.valid_up_to());
                        out.push_str(std::str::from_utf8(good).unwrap_or_default());
                        let n = e.error_len().unwrap_or(bad.len()).max(1);
                        for &b in &bad[..n] {
                            out.push(
                                char::from_u32(RAW_BYTE_BASE + u32::from(b)).unwrap_or('\u{fffd}'),
                            );
                        }
                        rest = &bad[n..];
                    }
                }
            }
            out
        }
    }
}

/// The file byte a character of [`source_text`] stands for, when it stands for one.
pub(crate) fn raw_byte(c: char) -> Option<u8> {
    let v = u32::from(c);
    (RAW_BYTE_BASE + 0x80..=RAW_BYTE_BASE + 0xff)
        .contains(&v)
        .then(|| (v - RAW_BYTE_BASE) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_survive_as_themselves() {
        let t = source_text(b"a \"\xe9t\xe9\" \xc3\xa9".to_vec());
        let chars: Vec<char> = t.chars().collect();
        assert_eq!(raw_byte(chars[3]), Some(0xe9));
        assert!(t.ends_with('\u{e9}'), "valid UTF-8 stays text");
        assert_eq!(raw_byte('e'), None);
        assert_eq!(source_text(b"plain".to_vec()), "plain");
    }
}
