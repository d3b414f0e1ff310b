//! [`CopyJob`]: a copy from one dataset name to another, the whole of what nccopy does
//! once its options are read. Open the input; select (`-v`, `-V`, `-g`, `-G`, `-u`);
//! refuse, or leave out, what the output cannot hold and what this build cannot read;
//! plan how each variable is stored; say what it will cost (`--dry-run`); create the
//! output (staged, or one run of a copy in parts, checked against the first run's
//! fingerprint); write the values. nczcopy reads its options into a job and prints what the job
//! says; a library caller runs the same copy, in parts too, with no code of nczcopy's.

use std::collections::HashSet;

use super::inputs::fit_for_target;
use crate::copy::cost::{copy_cost, reread_warnings, CopyCost};
use crate::copy::parts::fingerprint_key;
use crate::copy::{
    check_fingerprint, fingerprint, plan_copy, select, write_dataset, CopyOptions, MemoryBudget,
    Part, Progress, Selection, StorageChanges,
};
use crate::encoding::{Plan, PlanOptions};
use crate::error::{Error, Result};
use crate::model::{Dataset, VarPath};
use crate::open::{create, create_parts, open, same_dataset, CreateOptions, OpenOptions, Opened};
use crate::place::PartsRun;
use crate::sink::{DatasetSink, WriteStage};
use crate::source::DatasetSource;
use crate::store::TraceSink;
use crate::url::DatasetUrl;

/// Which run of a copy this is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CopyRun {
    /// The whole copy in one run.
    #[default]
    Whole,
    /// The first run of a copy in parts: the metadata, and the copy's fingerprint.
    Start,
    /// One part's values, into a copy in parts started with the same plan.
    Part(Part),
}

/// A copy, as nccopy's options describe it.
#[derive(Debug, Clone)]
pub struct CopyJob {
    /// The input's name (path or URL).
    pub input: String,
    /// The output's name.
    pub output: String,
    /// What is copied.
    pub selection: Selection,
    /// How storage changes on the way (chunks, codecs).
    pub changes: StorageChanges,
    /// How the output is created.
    pub create: CreateOptions,
    /// The memory the copy may use.
    pub budget: MemoryBudget,
    /// Leave out, with a warning each, what cannot be read or held, instead of
    /// refusing the copy.
    pub skip_unreadable: bool,
    /// Which run this is.
    pub run: CopyRun,
    /// What a kerchunk reference file read over the network as the input may name
    /// ([`crate::reach`]).
    pub refs: crate::reach::ReferenceOptions,
}

/// A warning about the input or the output (`about` names it), or the copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The dataset it is about; `None` for the copy as a whole.
    pub about: Option<String>,
    /// What happened.
    pub text: String,
}

/// A copy decided, before anything is written.
pub struct PreparedCopy<'s> {
    source: &'s dyn DatasetSource,
    /// The output's groups, dimensions, variables and attributes.
    pub dataset: Dataset,
    /// The variables whose values are copied; `None` for all.
    pub data: Option<HashSet<VarPath>>,
    /// How each variable is stored.
    pub plan: Plan,
    /// What was left out, and rechunkings the memory makes slow.
    pub warnings: Vec<Warning>,
}

impl CopyJob {
    /// Check the names: both understood, the output not the input, and (for a whole
    /// copy or the first run of one in parts) the output's place neither inside another
    /// dataset nor holding one unless `create.overwrite` says to replace it.
    ///
    /// # Errors
    /// [`Error::Url`] for a name not understood; [`Error::Invalid`] naming the output
    /// when it is the input; [`Error::Target`] for the output's place.
    pub fn check(&self) -> Result<()> {
        let (input, output) = (
            DatasetUrl::parse(&self.input)?,
            DatasetUrl::parse(&self.output)?,
        );
        if same_dataset(&input, &output) {
            return Err(Error::Invalid(
                "the same dataset as the input; a dataset cannot be copied onto itself".into(),
            ));
        }
        match self.run {
            CopyRun::Whole | CopyRun::Start => {
                crate::open::check_target(&self.output, &self.create)?;
            }
            CopyRun::Part(_) => crate::open::check_not_inside(&self.output)?,
        }
        Ok(())
    }

    /// Open the input (after [`CopyJob::check`], whose errors are about the output),
    /// reading with batches the job's memory allows.
    ///
    /// # Errors
    /// Open errors.
    pub fn open(&self, trace: Option<TraceSink>) -> Result<Opened> {
        open(
            &self.input,
            &OpenOptions {
                trace,
                batch_bytes: Some(self.budget.batch),
                refs: self.refs,
            },
        )
    }

    /// Decide the copy of `source` (the opened input): its selection, what is left out,
    /// its plan.
    ///
    /// # Errors
    /// [`Error::Selection`] for a selection the input does not match;
    /// [`Error::Unreadable`] for what cannot be copied, unless `skip_unreadable`;
    /// planning errors (chunk specs, codecs).
    pub fn prepare<'s>(&self, source: &'s dyn DatasetSource) -> Result<PreparedCopy<'s>> {
        let input = Some(self.input.clone());
        let mut warnings = Vec::new();
        let mut selected = select(source.dataset(), &self.selection)?;
        // netCDF-4's user-defined types stay as they are in a netCDF-4 file; elsewhere
        // enums become their base type with CF's flag attributes and the other kinds
        // cannot go.
        let keeps_user_types = self.create.netcdf == Some(crate::formats::NcFileKind::Netcdf4);
        let fitted = fit_for_target(&selected.dataset, Some(source), keeps_user_types);
        if let Some(first) = fitted.losses.first().filter(|_| !self.skip_unreadable) {
            return Err(Error::Unreadable(first.clone()));
        }
        warnings.extend(fitted.losses.iter().map(|l| Warning {
            about: input.clone(),
            text: format!("{l}; left out"),
        }));
        if let Some((p, why)) = fitted.unreadable.first().filter(|_| !self.skip_unreadable) {
            return Err(Error::Unreadable(format!(
                "variable '{p}' cannot be read: {why}"
            )));
        }
        warnings.extend(fitted.unreadable.iter().map(|(p, why)| Warning {
            about: input.clone(),
            text: format!("variable '{p}' left out: {why}"),
        }));
        selected.dataset = fitted.without_unreadable();
        let mut plan = plan_copy(
            source,
            &selected.dataset,
            &self.changes,
            &PlanOptions {
                netcdf4: self
                    .create
                    .netcdf
                    .is_some_and(crate::formats::NcFileKind::is_netcdf4),
                ..PlanOptions::default()
            },
        )?;
        // xarray masks by a pure Zarr v2 fill_value, but by nothing but `_FillValue` in
        // a netCDF file or Zarr v3: such a fill goes as the attribute. (NCZarr's
        // fill_value is netCDF's fill, which netcdf-c shows as no attribute when it is
        // the default: it stays so.)
        let zarr3 = self.create.zarr.zarr3
            || DatasetUrl::parse(&self.output).is_ok_and(|u| u.modes.zarr3());
        if source.format().is_pure_zarr2() && (self.create.netcdf.is_some() || zarr3) {
            crate::copy::carry_zarr_fills(&mut selected.dataset, &plan);
        }
        // A netCDF file of the classic family stores no chunks or codecs: the plan (and
        // `--dry-run`) says so, and what the kind cannot hold is refused now.
        if let Some(kind) = self.create.netcdf {
            match kind.classic_version() {
                Some(version) => {
                    crate::formats::nc3::fit_plan(&selected.dataset, version, &mut plan)?;
                }
                None => {
                    let classic_model = kind == crate::formats::NcFileKind::Netcdf4Classic;
                    crate::formats::nc4::write::fit_plan(
                        &selected.dataset,
                        classic_model,
                        &mut plan,
                    )?;
                }
            }
        }
        let data = selected.data.as_ref();
        warnings.extend(
            reread_warnings(source, &selected.dataset, &plan, data, self.budget)
                .into_iter()
                .map(|text| Warning { about: None, text }),
        );
        Ok(PreparedCopy {
            source,
            dataset: selected.dataset,
            data: selected.data,
            plan,
            warnings,
        })
    }

    /// Create the output for this run of the prepared copy (staged: nothing is in
    /// place until [`StartedCopy::write`] finishes). The output's warnings (what it
    /// stores otherwise than planned, values kept) go to `warn`.
    ///
    /// # Errors
    /// Create errors (an existing non-dataset path), [`Error::Parts`] for a part of
    /// another copy, and what the output cannot hold.
    pub fn create<'s>(
        &self,
        prepared: PreparedCopy<'s>,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<StartedCopy<'s>> {
        let PreparedCopy {
            source,
            dataset,
            mut data,
            mut plan,
            ..
        } = prepared;
        let mut create_options = self.create.clone();
        create_options.zarr.skip_fill_chunks = true;
        create_options.zarr.batch_bytes = Some(self.budget.batch);
        let output = &self.output;
        let (sink, part) = match self.run {
            CopyRun::Whole => (create(output, &create_options)?, None),
            run => {
                // Memory may differ from run to run (it does not change which chunks a
                // part writes; `identity` leaves it out); everything else must not.
                let print = fingerprint(
                    &self.input,
                    &dataset,
                    &plan,
                    &create_options.zarr.identity(),
                );
                let (parts_run, stage, part) = match run {
                    CopyRun::Part(p) => (
                        PartsRun::Resume,
                        WriteStage::Values {
                            notes: vec![(p.marker(), Vec::new())],
                        },
                        Some(p),
                    ),
                    _ => {
                        // The first run writes no values.
                        data = Some(HashSet::new());
                        (
                            PartsRun::Start,
                            WriteStage::MetadataOnly {
                                notes: vec![(fingerprint_key(), print.clone().into_bytes())],
                            },
                            None,
                        )
                    }
                };
                let (sink, reader) = create_parts(output, &create_options, parts_run, stage)?;
                if part.is_some() {
                    check_fingerprint(reader.as_ref(), &print)?;
                }
                (sink, part)
            }
        };
        for text in sink.prepare(&dataset, &mut plan)? {
            warn(Warning {
                about: Some(output.clone()),
                text,
            });
        }
        Ok(StartedCopy {
            source,
            dataset,
            data,
            plan,
            sink,
            part,
            slab_bytes: self.budget.slab,
        })
    }
}

/// A copy whose output is created, values not yet written.
pub struct StartedCopy<'s> {
    source: &'s dyn DatasetSource,
    dataset: Dataset,
    data: Option<HashSet<VarPath>>,
    plan: Plan,
    sink: Box<dyn DatasetSink>,
    part: Option<Part>,
    slab_bytes: u64,
}

impl StartedCopy<'_> {
    /// Write the values and put the output in place, reporting to `progress`.
    ///
    /// # Errors
    /// Read, codec and store errors; the output is then left as it was before the run.
    pub fn write(self, progress: Option<&dyn Progress>) -> Result<()> {
        write_dataset(
            self.source,
            &self.dataset,
            &self.plan,
            self.sink,
            &CopyOptions {
                slab_bytes: self.slab_bytes,
                data: self.data,
                progress,
                part: self.part,
                within: None,
            },
        )
    }
}

impl PreparedCopy<'_> {
    /// What the copy will read, store and hold in memory (`budget`).
    pub fn cost(&self, budget: MemoryBudget) -> CopyCost {
        copy_cost(
            self.source,
            &self.dataset,
            &self.plan,
            self.data.as_ref(),
            budget,
        )
    }
}
