//! CDL, the text form of a netCDF dataset: the parser (ncgen's language) and the
//! printer (ncdump's output).

pub mod ast;
pub mod build;
pub mod memory;
pub mod parse;
pub mod print;

pub use parse::{parse, CdlError};
