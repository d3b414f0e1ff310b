//! CDL, the text form of a netCDF dataset: the parser (ncgen's language), the compiler
//! to a dataset held in memory, and the printer (ncdump's output).

pub mod ast;
pub mod compile;
pub mod memory;
pub mod parse;
pub mod print;

pub use compile::{compile, Compiled};
pub use parse::{parse, CdlError};

/// The text of a CDL file, losslessly: ncgen takes the bytes of strings and comments as
/// they are (netcdf-c's own corpus has Latin-1 in strings), so bytes that are not UTF-8
/// are kept as private-use characters ([`crate::text`]) rather than refused.
pub fn source_text(bytes: Vec<u8>) -> String {
    crate::text::lossless(bytes)
}

/// The file byte a character of [`source_text`] stands for, when it stands for one.
pub(crate) fn raw_byte(c: char) -> Option<u8> {
    crate::text::raw_byte(c)
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
