//! CDL, the text form of a netCDF dataset: the parser (ncgen's language), the compiler
//! to a dataset held in memory, and the printer (ncdump's output).

pub mod ast;
pub mod compile;
pub mod memory;
pub mod parse;
pub mod print;

pub use compile::{compile, Compiled};
pub use parse::{parse, CdlError};
