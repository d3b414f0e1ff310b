//! [`AppendJob`]: an existing Zarr dataset grown in place by inputs joined onto its
//! end (`nczcopy --append`), or an append stopped in its metadata step completed.
//! The inputs step opens the inputs; the dataset being grown is the first of the join.

use super::inputs::{InputOptions, Inputs};
use crate::append::AppendTarget;
use crate::concat::Concat;
use crate::copy::{CopyOptions, MemoryBudget, Progress};
use crate::error::Result;
use crate::source::DatasetSource;

/// An append, as `nczcopy --append` describes it.
pub struct AppendJob {
    /// The dataset grown.
    pub output: String,
    /// The inputs, joined onto its end (none: only complete a stopped append).
    pub inputs: Vec<String>,
    /// How the inputs are opened and joined (`dims` is not used: an append takes whole
    /// inputs).
    pub read: InputOptions,
    /// The memory the append may use.
    pub budget: MemoryBudget,
    /// Plan only; nothing written.
    pub dry_run: bool,
    /// The snapshot's message and tag, for an Icechunk repository.
    pub commit: crate::place::icechunk::CommitInfo,
    /// Add references to the inputs' chunks rather than their values (`--virtual`,
    /// into an Icechunk repository): what is inlined, and where the files will be read
    /// from (`--url-prefix`).
    pub virtual_refs: Option<(crate::kerchunk::RefOptions, Option<String>)>,
}

/// What an append says as it goes, before anything else is said or written.
pub enum AppendNote<'a> {
    /// An earlier append stopped while writing its metadata was completed first.
    CompletedEarlier,
    /// The attributes that differ between the inputs, one line each.
    Differences(&'a [String]),
}

/// What an append will do or did.
pub struct AppendReport {
    /// An earlier append stopped while writing its metadata was completed first.
    pub completed_interrupted: bool,
    /// For a dry run: the dimension, its lengths before and after, the blocks each
    /// variable writes and the documents then written, as lines.
    pub plan: Option<Vec<String>>,
    /// What the inputs' readers read past, each a line.
    pub problems: Vec<String>,
}

impl AppendJob {
    /// Run the append (with no inputs: complete a stopped one), saying to `note` what
    /// is to be said as soon as it is known.
    ///
    /// # Errors
    /// The target's open errors (a place that cannot grow in place), named after the
    /// output; the inputs' open errors; a join that does not fit the dataset;
    /// read, codec and store errors named `inputs -> output`, the dataset then as
    /// before.
    pub fn run(
        mut self,
        progress: Option<&dyn Progress>,
        note: &mut dyn FnMut(AppendNote<'_>),
    ) -> Result<AppendReport> {
        let output = self.output.clone();
        self.read.open.batch_bytes = Some(self.budget.batch);
        // Alone (no inputs), the run is the completion itself, a dry run too.
        let repair = !self.dry_run || self.inputs.is_empty();
        let target = AppendTarget::open(&output, &self.read.open, repair, &self.commit)
            .map_err(|e| e.named(&output))?;
        let mut report = AppendReport {
            completed_interrupted: target.completed_interrupted,
            plan: None,
            problems: Vec::new(),
        };
        if self.inputs.is_empty() {
            return Ok(report);
        }
        if target.completed_interrupted {
            note(AppendNote::CompletedEarlier);
        }
        self.read.output = Some(output.clone());
        let inputs = Inputs::open(&self.inputs, &self.read)?;
        let joined = Concat::new(
            inputs.named_sources(Some((output.clone(), target.source()))),
            &self.read.join,
        )?;
        note(AppendNote::Differences(&joined.attribute_differences()));
        let mut plan = target.plan(&joined).map_err(|e| e.named(&output))?;
        if let Some((refs, prefix)) = &self.virtual_refs {
            let urls = super::kerchunk::reference_urls(&inputs, prefix.as_deref())?;
            let what = inputs.names().join(" ");
            let v = super::kerchunk::virtual_of(
                &inputs,
                &urls,
                &self.read.join,
                refs,
                &mut |_| {},
                &what,
            )?;
            target
                .add_virtual(&mut plan, &v)
                .map_err(|e| e.named(&output))?;
        }
        if self.dry_run {
            let mut lines = vec![format!(
                "append to {output}: dimension '{}' from {} to {}",
                plan.dim.name, plan.old_len, plan.new_len
            )];
            lines.extend(
                plan.blocks
                    .iter()
                    .map(|(var, block)| format!("{var}: writes {block}")),
            );
            lines.extend(plan.documents().map(|doc| format!("then: {doc}")));
            report.plan = Some(lines);
            return Ok(report);
        }
        let copy = CopyOptions {
            slab_bytes: self.budget.slab,
            progress,
            ..Default::default()
        };
        target
            .write(&joined, &plan, &copy)
            .map_err(|e| e.named(format!("{} -> {output}", self.inputs.join(" "))))?;
        report.problems = joined.problems().to_vec();
        Ok(report)
    }
}
