//! Print a dataset as CDL, byte-identical to ncdump's output for the same content.
//!
//! The layout follows ncdump's `do_ncdump_rec` (header, `// global attributes:`,
//! `data:`, groups), `pr_att` and `pr_att_specials` for attributes, and `vardata.c`'s
//! `print_rows`/`lput` for data, including its line wrapping (which leaves a trailing
//! space), braces around non-first unlimited dimensions, `-b`/`-f` annotations and
//! `_` for fill values. Deliberate differences from ncdump (documented in
//! `docs/nczdump.md`): no broken `_ChunkSizes` line for scalars with `-s`, and remarks
//! about inexact type mappings printed as `//` comments.

mod data;
pub mod escape;
mod header;
pub mod number;

use std::io::Write;

use crate::error::Result;
use crate::model::{Dataset, GroupPath};
use crate::source::DatasetSource;

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
            slab_elements: 4 << 20,
        }
    }
}

/// A selection (`-v`, `-g`) naming what the dataset does not have, in ncdump's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectionError {
    /// `-v` names a variable that is in no group.
    #[error("{0}: No such variable")]
    NoVariable(String),
    /// `-g` names a group the dataset does not have.
    #[error("{0}: No such group")]
    NoGroup(String),
}

/// Check that every variable (`-v`) and group (`-g`) selected exists.
///
/// # Errors
/// [`SelectionError`] naming the first one that does not.
pub fn check_selection(
    dataset: &Dataset,
    opts: &PrintOptions,
) -> std::result::Result<(), SelectionError> {
    for v in &opts.vars {
        if !any_group(&dataset.root, &mut Vec::new(), &mut |path, g| {
            g.vars.iter().any(|var| var_matches(v, path, &var.name))
        }) {
            return Err(SelectionError::NoVariable(v.clone()));
        }
    }
    for g in &opts.groups {
        if !any_group(&dataset.root, &mut Vec::new(), &mut |path, _| {
            group_matches(g, path)
        }) {
            return Err(SelectionError::NoGroup(g.clone()));
        }
    }
    Ok(())
}

fn any_group(
    g: &crate::model::Group,
    path: &mut Vec<String>,
    f: &mut dyn FnMut(&[String], &crate::model::Group) -> bool,
) -> bool {
    if f(path, g) {
        return true;
    }
    for c in &g.groups {
        path.push(c.name.clone());
        let found = any_group(c, path, f);
        path.pop();
        if found {
            return true;
        }
    }
    false
}

/// ncdump's `nc_inq_gvarid`: `v` matches in any group; `g/v` in groups whose full
/// name ends with `g`; `/g/v` only in group `/g`.
pub(crate) fn var_matches(spec: &str, group_path: &[String], var_name: &str) -> bool {
    match spec.rfind('/') {
        None => spec == var_name,
        Some(i) => {
            let (grp, rel) = (&spec[..i], &spec[i + 1..]);
            if rel != var_name {
                return false;
            }
            let full = GroupPath(group_path).to_string();
            if spec.starts_with('/') {
                full == grp || (grp.is_empty() && full == "/")
            } else {
                full.ends_with(grp)
            }
        }
    }
}

/// ncdump's group matching for `-g`: `/` or empty is the root, `/a/b` is absolute,
/// anything else matches any group with that name.
pub(crate) fn group_matches(spec: &str, group_path: &[String]) -> bool {
    if spec.is_empty() || spec == "/" {
        return group_path.is_empty();
    }
    let full = GroupPath(group_path).to_string();
    if spec.starts_with('/') {
        return full == spec.trim_end_matches('/');
    }
    full == format!("/{spec}") || full.ends_with(&format!("/{spec}"))
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
    };
    p.line(&format!("netcdf {} {{", escape::escaped_name(&opts.name)))?;
    p.group(&source.dataset().root, &mut Vec::new())?;
    p.out.write_all(b"}\n")?;
    Ok(())
}
