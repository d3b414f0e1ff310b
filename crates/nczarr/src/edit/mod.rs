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
    } else if name.contains('/') {
        Some("holds a '/': not a netCDF name")
    } else if name.chars().any(char::is_control) {
        Some("holds a control character: not a netCDF name")
    } else if name.starts_with(char::is_whitespace) || name.ends_with(char::is_whitespace) {
        Some("starts or ends with a space: not a netCDF name")
    } else {
        None
    }
}
