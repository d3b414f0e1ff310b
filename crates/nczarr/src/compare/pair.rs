//! What the structure comparisons share: the two datasets compared, and a difference
//! of metadata (no value, no index).

use super::{CompareOptions, DiffKind, Difference, Side};
use crate::source::DatasetSource;

/// The two datasets compared, and how.
pub(super) struct Pair<'s> {
    pub(super) a: &'s dyn DatasetSource,
    pub(super) b: &'s dyn DatasetSource,
    pub(super) options: &'s CompareOptions,
}

impl Pair<'_> {
    /// The dataset on `side`.
    pub(super) fn side(&self, side: Side) -> &dyn DatasetSource {
        match side {
            Side::A => self.a,
            Side::B => self.b,
        }
    }

    /// Whether one of the formats keeps no attribute types (pure Zarr's JSON), so
    /// that a type difference of two equal attributes is storage.
    pub(super) fn typeless(&self) -> bool {
        !self.a.format().attr_types || !self.b.format().attr_types
    }

    /// Whether one of the formats keeps no group for a dimension (pure Zarr names a
    /// dimension per array, and its reader puts it where the arrays using it are), so
    /// that a dimension found in another group of the other dataset, of the same length,
    /// is storage. The same formats as [`Pair::typeless`].
    pub(super) fn dims_placeless(&self) -> bool {
        self.typeless()
    }
}

/// A difference of metadata: `what` differs, `a` and `b` as each dataset has it.
pub(super) fn meta(
    kind: DiffKind,
    what: String,
    a: Option<String>,
    b: Option<String>,
) -> Difference {
    Difference {
        kind,
        what,
        index: None,
        a,
        b,
        diff: None,
        types: None,
    }
}
