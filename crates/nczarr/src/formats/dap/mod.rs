//! OPeNDAP: datasets a server (THREDDS, Hyrax, ERDDAP, pydap) serves, read as
//! netcdf-c's DAP2 client shows them.
//!
//! - [`dds`], [`das`]: DAP2's text documents, parsed (`lex` their tokens);
//! - [`xdr`]: the values of a data answer (`.dods`);
//! - `atomics`: the base variables of a DDS as netcdf-c finds them; `view`: the netCDF
//!   dataset it makes of them (`attrs`: where the DAS's attributes go; `names`: names
//!   and text as it shows them);
//! - `fetch`: GETs through the shared runtime, retried, several in flight, the ways a
//!   server says no turned into errors naming the URL and the server's message;
//! - [`DapSource`]: the dataset as a source; each read a constraint expression for
//!   exactly the region wanted, in answers of bounded size;
//! - [`d4`]: DAP4 (DMR, chunked data responses, checksums), on the same fetcher.

mod answers;
mod atomics;
mod attrs;
pub mod d4;
pub mod das;
pub mod dds;
mod fetch;
mod lex;
mod names;
mod settings;
mod source;
mod view;
pub mod xdr;

pub use crate::error::DapError;
pub use d4::Dap4Source;
pub use settings::{parse_cookie_jar, parse_netrc, HttpSettings, Login};
pub use source::{DapDocuments, DapOptions, DapSource};

/// The netCDF dataset netcdf-c's DAP2 client makes of `dds` with the DAS `das_text`
/// (no sequence counted): for tests and fuzzing of the mapping alone.
///
/// # Errors
/// A variable that cannot be shown (its name and why), or a DAS that does not parse.
pub fn view_of(dds: &dds::Dds, das_text: &str) -> Result<crate::model::Dataset, String> {
    let das = if das_text.trim().is_empty() {
        Vec::new()
    } else {
        das::parse(das_text).map_err(|(line, m)| format!("DAS line {line}: {m}"))?
    };
    let all = view::atomics(&dds.decls, &[]).map_err(|(v, m)| format!("{v}: {m}"))?;
    let v = view::build(dds, &[], &all, &das, &[], &[]).map_err(|(v, m)| format!("{v}: {m}"))?;
    Ok(v.dataset)
}
