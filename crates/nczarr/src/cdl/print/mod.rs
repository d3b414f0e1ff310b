//! Print a dataset as CDL, byte-identical to ncdump's output for the same content.
//!
//! The layout follows ncdump's `do_ncdump_rec` (header, `// global attributes:`,
//! `data:`, groups), `pr_att` and `pr_att_specials` for attributes, and `vardata.c`'s
//! `print_rows`/`lput` for data, including its line wrapping (which leaves a trailing
//! space), braces around non-first unlimited dimensions, `-b`/`-f` annotations and
//! `_` for fill values. Deliberate differences from ncdump (documented in
//! `docs/nczdump.md`): no broken `_ChunkSizes` line for scalars with `-s`, and remarks
//! about inexact type mappings printed as `//` comments.
//!
//! Beside CDL: the same content as JSON ([`print_json`]), and a classic-model header
//! as ncdump's NcML ([`print_ncml`], `-x`).

mod batch;
pub mod cformat;
mod data;
mod dates;
pub mod digits;
#[cfg(test)]
mod digits_tests;
pub mod escape;
mod gtext;
mod header;
mod json;
mod line;
mod ncml;
mod ordered;
mod user;
mod values;
mod var_data;
pub use json::{print_json, JsonFill, JSON_VERSION};
pub use ncml::{check_ncml, print_ncml, NCML_REFUSED};
pub use values::value_text;
pub mod number;

use std::io::Write;

use crate::error::Result;
use crate::model::select::{group_matches, var_matches};
use crate::model::NcType;
use crate::source::DatasetSource;

pub use crate::model::select::{check_selection, SelectionError};

/// Which indices annotations use (`-b c|f`, `-f c|f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexStyle {
    /// C: zero-based, last index fastest, written first-to-last.
    #[default]
    C,
    /// Fortran: one-based, written last-to-first.
    Fortran,
}

/// What and how to print (ncdump's options).
#[derive(Debug, Clone)]
pub struct PrintOptions {
    /// The name in `netcdf NAME {`.
    pub name: String,
    /// `-h`: header only.
    pub header_only: bool,
    /// `-c`: data of coordinate variables only.
    pub coords_only: bool,
    /// `-v`: data only of these variables (names may be group-qualified).
    pub vars: Vec<String>,
    /// `-g`: data only of these groups.
    pub groups: Vec<String>,
    /// `-b`: a brief comment before each row.
    pub brief: Option<IndexStyle>,
    /// `-f`: a comment after every value.
    pub full: Option<IndexStyle>,
    /// `-l`: maximum line length in the data section (default 80).
    pub max_line_len: usize,
    /// `-p`: significant digits for float data and attributes.
    pub float_digits: Option<usize>,
    /// `-p`: significant digits for double data and attributes.
    pub double_digits: Option<usize>,
    /// `-s`: special virtual attributes.
    pub special: bool,
    /// `-F`: `_Filter`/`_Codecs` instead of `_Fletcher32`/`_Shuffle`/`_DeflateLevel`.
    pub filter_atts: bool,
    /// `-XF`: type prefix on `_FillValue`.
    pub fill_type: bool,
    /// `-t` (`' '`) or `-i` (`'T'`): values of CF time variables as dates, with this
    /// separator before the time of day.
    pub times: Option<char>,
    /// Elements read per slab: the memory bound of a data dump.
    pub slab_elements: u64,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            name: String::new(),
            header_only: false,
            coords_only: false,
            vars: Vec::new(),
            groups: Vec::new(),
            brief: None,
            full: None,
            max_line_len: 80,
            float_digits: None,
            double_digits: None,
            special: false,
            filter_atts: false,
            fill_type: false,
            times: None,
            slab_elements: 1 << 19,
        }
    }
}

impl PrintOptions {
    /// Elements read per slab of a variable of type `t`: a string costs some 40 bytes
    /// while read (its reference, where it is, its bytes and end, its text) against 4
    /// for a float, and a string dump's time goes as much to fresh memory as to its
    /// strings, so its slabs hold an eighth as many (64 Ki strings). Where each slab is
    /// read by the worker that lays it out (CDL, slabs of whole rows), a million-string
    /// dump in slabs of half a 100,000-string chunk took 2-6% less time than in
    /// quarters, with the same 35 MiB peak and huge pages touched; in whole chunks, 3%
    /// more (fewer slabs to share).
    pub(crate) fn slab_elements_of(&self, t: NcType) -> u64 {
        match t {
            NcType::String => (self.slab_elements / 8).max(1),
            _ => self.slab_elements,
        }
    }
}

/// Print the dataset `source` holds as CDL to `out`.
///
/// # Errors
/// Data read errors, and I/O errors writing `out`.
pub fn print_cdl(
    out: &mut dyn Write,
    source: &dyn DatasetSource,
    opts: &PrintOptions,
) -> Result<()> {
    let mut p = header::Printer {
        out,
        source,
        opts,
        indent: 0,
        bounds: None,
        linep: 0,
    };
    p.line(&format!("netcdf {} {{", escape::escaped_name(&opts.name)))?;
    p.group(&source.dataset().root, &mut Vec::new())?;
    p.out.write_all(b"}\n")?;
    Ok(())
}

/// A repeatable stream of pseudo-random words (xorshift64 from `state`) for the
/// printers' tests.
#[cfg(test)]
pub(crate) fn test_words(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
