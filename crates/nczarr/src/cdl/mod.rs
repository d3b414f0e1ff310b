//! CDL, the text form of a netCDF dataset: the parser (ncgen's language), the compiler
//! to a dataset held in memory, and the printer (ncdump's output).

pub mod ast;
pub mod compile;
pub mod compiled_source;
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
