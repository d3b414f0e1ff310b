//! CDL, the text form of a netCDF dataset: printing exactly as ncdump prints it.

pub mod print;
