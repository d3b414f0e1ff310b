//! netCDF classic files (CDF-1), 64-bit offset files (CDF-2) and 64-bit data files
//! (CDF-5) as dataset sources.
//!
//! The reader is ours rather than `netcdf-reader`'s classic module: that crate maps the
//! whole file into memory (a file truncated while mapped kills the process), cannot
//! hand back a classic variable's raw bytes, and turns char attributes into `String`s,
//! which loses the bytes of files that are not UTF-8. The format is small: a header of
//! tagged lists, then big-endian values at offsets the header gives.

pub mod header;
mod source;
mod write;

pub use header::Version;
pub use source::Nc3Source;
pub(crate) use write::rewrite_header;
pub use write::{fit_plan, fits, Nc3Sink};
