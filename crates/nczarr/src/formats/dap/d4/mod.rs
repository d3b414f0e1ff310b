//! DAP4: datasets a DAP4 server (Hyrax, THREDDS's `dap4` service) serves, read as
//! netcdf-c's DAP4 client shows them.
//!
//! - [`dmr`]: the DMR (XML, through `xml`) parsed;
//! - [`chunks`]: the chunked data response taken apart;
//! - [`serial`]: the variables found in the data, checksums verified, values decoded
//!   where they lie;
//! - `view`: the netCDF-4 dataset netcdf-c makes of a DMR;
//! - [`Dap4Source`]: the dataset as a source; each read a `dap4.ce` constraint.

pub mod chunks;
pub mod dmr;
pub mod serial;
mod source;
mod view;
pub mod xml;

pub use source::Dap4Source;

/// The netCDF dataset netcdf-c's DAP4 client makes of the DMR `text`: for tests and
/// fuzzing of the parser and the mapping alone.
///
/// # Errors
/// The DMR's line and problem, or a variable that cannot be shown.
pub fn view_of(text: &str) -> Result<crate::model::Dataset, String> {
    let root = dmr::parse(text).map_err(|(line, m)| format!("DMR line {line}: {m}"))?;
    view::build(&root, None)
        .map(|v| v.dataset)
        .map_err(|(v, m)| format!("{v}: {m}"))
}

/// A saved data response decoded whole (DMR, chunks, every variable delimited and
/// its checksum verified): for fuzzing.
///
/// # Errors
/// What is wrong with it.
pub fn check_response(raw: Vec<u8>) -> Result<usize, String> {
    source::decode_for_fuzz(raw)
}
