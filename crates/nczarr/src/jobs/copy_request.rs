//! [`CopyRequest`]: nczcopy's whole run as one call. One input or several (joined,
//! then cut to `--dim` by the inputs step), the output's kind decided when not said,
//! the copy prepared by [`CopyJob`], then either its plan and cost returned (a dry
//! run) or the output created and written. The caller hears warnings and progress
//! through [`CopyEvents`] and prints them; it builds no view of the inputs itself.

use super::copy::{CopyJob, Warning};
use super::inputs::{InputOptions, Inputs};
use super::kind::{copy_kind, OutputKind};
use crate::copy::cost::CopyCost;
use crate::copy::Progress;
use crate::error::{Error, Result};
use crate::open::CreateOptions;
use crate::url::DatasetUrl;

/// A copy of one or more inputs to one output, as nczcopy's options describe it.
pub struct CopyRequest {
    /// The inputs' names, in the order given (several are joined).
    pub inputs: Vec<String>,
    /// The copy, but for its input (the first of `inputs`) and its output's kind:
    /// `job.create` holds the layout, to which the kind is applied.
    pub job: CopyJob,
    /// The kind `-k` (or `-3`...) said; `None`: as the input and the output's name say.
    pub said_kind: Option<OutputKind>,
    /// How the inputs are opened, joined and cut (its `output` is set from `job`).
    pub read: InputOptions,
    /// Plan and cost only; nothing written.
    pub dry_run: bool,
}

/// What a copy tells its caller as it goes.
pub trait CopyEvents {
    /// A warning about the input, the output or the copy.
    fn warning(&mut self, warning: &Warning);

    /// The attributes that differ between joined inputs, one line each.
    fn differences(&mut self, lines: &[String]) {
        let _ = lines;
    }

    /// Where the copy reports its progress.
    fn progress(&self) -> Option<&dyn Progress> {
        None
    }
}

/// A dry run's answer: what would be written, and what it would cost.
pub struct CopyPlan {
    /// The output's kind.
    pub kind: OutputKind,
    /// Whether `-k` said it (else it was decided from the input and the name).
    pub kind_said: bool,
    /// What the real run would refuse at a local output (its place), as one line.
    pub refusal: Option<String>,
    /// Per variable and in all.
    pub cost: CopyCost,
}

/// How a copy ended.
pub enum CopyOutcome {
    /// A dry run: the plan.
    Planned(CopyPlan),
    /// The output is written; the problems the inputs' readers read past (a damaged
    /// attribute), each a line, make the run's exit a failure.
    Copied {
        /// The problems.
        problems: Vec<String>,
    },
}

impl CopyRequest {
    /// Run the copy.
    ///
    /// # Errors
    /// Every error is named after what it is about ([`Error::Named`]): the output for
    /// its place and its creation, the first input for opening, joining, cutting and
    /// preparing (an [`Error::Unreadable`] inside says what cannot be copied), `input
    /// -> output` for the writing. The output is then as it was.
    pub fn run(mut self, events: &mut dyn CopyEvents) -> Result<CopyOutcome> {
        let input = self.job.input.clone();
        let output = self.job.output.clone();
        DatasetUrl::parse(&input).map_err(|e| Error::from(e).named(&input))?;
        DatasetUrl::parse(&output).map_err(|e| Error::from(e).named(&output))?;
        super::inputs::check_not_output(&self.inputs, Some(&output))?;
        // A dry run writes nothing: what is at the output is the real run's to refuse
        // (and a plan for an object store is made without asking it).
        if !self.dry_run {
            // Whether the output is a file or a directory is the name's and -k's to
            // say (the input decides only which file kind or Zarr version): what may
            // be at the output depends on it.
            let mut early = self.job.clone();
            let file_or_not = || crate::formats::NcFileKind::Netcdf4;
            super::kind::kind_for_target(self.said_kind, &output, file_or_not, OutputKind::Nczarr)
                .map_err(|e| e.named(&output))?
                .apply(&mut early.create);
            early.check().map_err(|e| e.named(&output))?;
        }
        self.read.output = Some(output.clone());
        self.read.open.batch_bytes = Some(self.job.budget.batch);
        self.read.open.refs = self.job.refs;
        let inputs = Inputs::open(&self.inputs, &self.read)?;
        let view = inputs.view(&self.read)?;
        events.differences(view.attribute_differences());
        let source = view.source();
        let kind = copy_kind(self.said_kind, &output, source.format())?;
        kind.apply(&mut self.job.create);
        let job = &self.job;
        let prepared = job.prepare(source).map_err(|e| e.named(&input))?;
        for w in &prepared.warnings {
            events.warning(w);
        }
        if self.dry_run {
            // What the real run would refuse at the output, said (a local place only).
            let local = DatasetUrl::parse(&output).is_ok_and(|u| u.path().is_some());
            let refusal = local
                .then(|| job.check().err())
                .flatten()
                .map(|e| e.to_string());
            return Ok(CopyOutcome::Planned(CopyPlan {
                kind,
                kind_said: self.said_kind.is_some(),
                refusal,
                cost: prepared.cost(job.budget),
            }));
        }
        let started = job
            .create(prepared, &mut |w| events.warning(&w))
            .map_err(|e| e.named(&output))?;
        started
            .write(events.progress())
            .map_err(|e| e.named(format!("{input} -> {output}")))?;
        Ok(CopyOutcome::Copied {
            problems: source.problems().to_vec(),
        })
    }
}

/// `create` for a copy: the layout `layout` holds, with `overwrite`, and offering
/// `--append` in the message that refuses an existing dataset.
pub fn copy_create_options(layout: CreateOptions, overwrite: bool) -> CreateOptions {
    CreateOptions {
        overwrite,
        offer_append: true,
        ..layout
    }
}
