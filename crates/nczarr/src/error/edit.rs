//! The typed error of metadata edits (`crate::edit`), re-exported there.

/// Why an edit cannot be made. Nothing is changed then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The edit as written is not one.
    #[error("{spec}: {reason}")]
    Spec {
        /// The edit as given, said: `attribute edit 'units,T,o,c,K'`, `rename '-v a,b'`.
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
    #[error("{spec}: {reason}")]
    Refused {
        /// The edit as given.
        spec: String,
        /// Why.
        reason: String,
    },
}
