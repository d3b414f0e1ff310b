//! [`CompareJob`]: two datasets compared for what their data is (nczcmp, as nccmp):
//! both opened at once through the inputs step, each cut to the same `--dim`, then
//! [`compare`]; each difference handed to the caller as it is found.

use super::inputs::{InputOptions, Inputs};
use crate::compare::{compare, CompareError, CompareOptions, Difference, Report, Side};
use crate::error::{Error, JobError, Result};

/// A comparison, as nczcmp's options describe it.
pub struct CompareJob {
    /// The first dataset's name.
    pub a: String,
    /// The second's.
    pub b: String,
    /// How both are opened and cut (`dims` applies to each).
    pub read: InputOptions,
    /// What is compared, and when values are equal.
    pub options: CompareOptions,
}

impl CompareJob {
    /// Compare, handing each difference to `found` as it is found.
    ///
    /// # Errors
    /// Open and subset errors named after their dataset; [`JobError::NoSuchVar`] for
    /// a `-v`/`-x` name neither has; read errors named after the dataset that failed.
    pub fn run(&self, found: &mut dyn FnMut(&Difference)) -> Result<Report> {
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| Inputs::open(std::slice::from_ref(&self.a), &self.read));
            let b = Inputs::open(std::slice::from_ref(&self.b), &self.read);
            (a.join(), b)
        });
        let a = a.map_err(|_| Error::Internal(format!("{}: could not be opened", self.a)))??;
        let b = b?;
        let (va, vb) = (a.view(&self.read)?, b.view(&self.read)?);
        compare(va.source(), vb.source(), &self.options, found).map_err(|e| match e {
            CompareError::NoSuchVar { option, name } => JobError::NoSuchVar {
                option,
                name,
                a: self.a.clone(),
                b: self.b.clone(),
            }
            .into(),
            CompareError::Read { side, source } => source.named(match side {
                Side::A => &self.a,
                Side::B => &self.b,
            }),
        })
    }
}
