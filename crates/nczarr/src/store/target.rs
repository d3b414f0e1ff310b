//! A dataset being written into a store: the store, and how the finished dataset is
//! put in place (a staged directory or zip renamed over the old one, a commit that
//! makes it a snapshot, or nothing).

use super::{Staged, StoreError, WritableStore};

/// What makes a finished dataset visible, after its store is finished and before a
/// staging place is renamed into place (an Icechunk commit).
pub type Completion = Box<dyn FnOnce() -> Result<(), StoreError> + Send + Sync>;

/// A dataset being written: where to put keys, and how to put the result in place.
pub struct Target {
    /// The store to write into.
    pub store: Box<dyn WritableStore>,
    /// The staging that [`Target::commit`] completes.
    staged: Option<Staged>,
    /// Run by [`Target::commit`] before the staging is renamed.
    completion: Option<Completion>,
}

impl Target {
    /// A target written into `staged`'s temporary place, renamed into place by
    /// [`Target::commit`].
    pub(crate) fn staged(store: Box<dyn WritableStore>, staged: Staged) -> Target {
        Target {
            store,
            staged: Some(staged),
            completion: None,
        }
    }

    /// A target written in place, with nothing to swap at the end (a memory store).
    pub fn in_place(store: Box<dyn WritableStore>) -> Target {
        Target {
            store,
            staged: None,
            completion: None,
        }
    }

    /// This target, with `completion` run when it is committed (before its staging, if
    /// any, is renamed into place).
    pub(crate) fn completed_by(mut self, completion: Completion) -> Target {
        self.completion = Some(completion);
        self
    }

    /// Put the finished dataset in place (replacing what was there).
    ///
    /// # Errors
    /// [`StoreError`] when the completion or the final rename fails; the old dataset
    /// is kept then.
    pub fn commit(mut self) -> Result<(), StoreError> {
        crate::store::check_cancelled()?;
        self.store.finish()?;
        if let Some(complete) = self.completion.take() {
            complete()?;
        }
        match self.staged.take() {
            Some(s) => s.commit(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
impl super::conformance::StagedWrite for Target {
    fn store(&self) -> &dyn WritableStore {
        self.store.as_ref()
    }

    fn commit(self) -> Result<(), StoreError> {
        Target::commit(self)
    }
}
