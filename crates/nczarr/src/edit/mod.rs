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

/// Why an edit cannot be made. Nothing is changed then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The edit as written is not one.
    #[error("attribute edit '{spec}': {reason}")]
    Spec {
        /// The edit as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Its VAR names no variable or group.
    #[error("no variable or group named '{name}': attribute '{att}' cannot be changed")]
    NoTarget {
        /// The name.
        name: String,
        /// The attribute.
        att: String,
    },
    /// The attribute or the format cannot take it.
    #[error("attribute edit '{spec}': {reason}")]
    Refused {
        /// The edit as given.
        spec: String,
        /// Why.
        reason: String,
    },
}
