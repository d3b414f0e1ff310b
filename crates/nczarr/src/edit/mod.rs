//! Metadata edits: NCO's `ncatted` attribute edits and `ncrename`'s renames
//! parsed, checked and applied to a dataset's model; NCO's history line. How an
//! edited model goes back into its dataset, in place and whole or not at all, is the
//! edit job's (`crate::jobs::edit`).

mod apply;
mod history;
mod rename;
mod spec;
mod value;

pub use apply::{apply_att_edits, AttRules, AttTypes};
pub use history::{history_line, prepend_history};
pub use rename::{apply_renames, OldPaths, Rename, RenameKind};
pub use spec::{AttEdit, AttMode, AttTarget};
pub use value::{parse_type, parse_values, unescape};

pub use crate::error::EditError;

/// Why `name` cannot be a netCDF name (of a variable, dimension, group or attribute),
/// or `None`: netCDF refuses a `/`, control characters, and a space at either end (a
/// file with one is refused whole by ncdump).
pub(crate) fn bad_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.len() > MAX_NAME {
        // netcdf-c's NC_MAX_NAME, counting the terminating null its readers keep.
        Some("is longer than 255 bytes: not a netCDF name")
    } else if name.contains('/') {
        Some("holds a '/': not a netCDF name")
    } else if name.chars().any(char::is_control) {
        Some("holds a control character: not a netCDF name")
    } else if name.starts_with(char::is_whitespace) || name.ends_with(char::is_whitespace) {
        Some("starts or ends with a space: not a netCDF name")
    } else if !name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || !c.is_ascii())
    {
        // netcdf-c's NC_check_name; in a Zarr store such a name would also be read
        // as a document (`.zarray`), not a node.
        Some("does not start with a letter, a digit or '_': not a netCDF name")
    } else {
        None
    }
}

/// The longest netCDF name, in bytes: ncdump refuses a file with a longer one.
const MAX_NAME: usize = 255;

/// Whether `name` is an attribute name netcdf-c keeps for itself in netCDF-4 files and
/// NCZarr stores (`NC_reservedatt`: the names the netCDF-4 reader hides, and NCZarr's
/// own): a user's attribute of one of these names is refused, as netcdf-c refuses it
/// (`NC_ENAMEINUSE`); written anyway, it is hidden from every netCDF reader or breaks
/// the dimension it lands on.
pub(crate) fn reserved_att(name: &str) -> bool {
    crate::formats::nc4::RESERVED_ATTS.contains(&name) || name == "_nczarr_attr"
}

/// `name` in Unicode's composed form (NFC), as netcdf-c keeps and looks up every name:
/// a name given decomposed (`e` and a combining accent) is the one netcdf-c finds.
pub(crate) fn nfc(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    name.nfc().collect()
}
