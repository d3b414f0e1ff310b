//! Variable data from a store, for printers and copiers.

use super::ArrayReader;
use crate::cdl::print::DataSource;
use crate::chunking::Region;
use crate::error::Result;
use crate::model::{Dataset, Values, Var};
use crate::store::{ReadableStore, StoreKey};

/// Reads variables of `dataset` from `store`.
pub struct StoreSource<'a> {
    store: &'a dyn ReadableStore,
    dataset: &'a Dataset,
}

impl<'a> StoreSource<'a> {
    /// A source over `store` for the variables of `dataset`.
    pub fn new(store: &'a dyn ReadableStore, dataset: &'a Dataset) -> StoreSource<'a> {
        StoreSource { store, dataset }
    }

    /// A reader for `var` of group `group`.
    ///
    /// # Errors
    /// When the variable's codecs cannot be built or its key is invalid.
    pub fn reader(&self, group: &[String], var: &Var) -> Result<ArrayReader<'a>> {
        let mut key = StoreKey::root();
        for g in group {
            key = key.join(g)?;
        }
        let key = key.join(&var.name)?;
        let name = format!(
            "{}/{}",
            group.iter().map(|g| format!("/{g}")).collect::<String>(),
            var.name
        );
        ArrayReader::new(self.store, key, &name, var, self.dataset.var_shape(var))
    }
}

impl DataSource for StoreSource<'_> {
    fn read(&self, group: &[String], var: &Var, region: &Region) -> Result<Values> {
        self.reader(group, var)?.read(region)
    }
}
