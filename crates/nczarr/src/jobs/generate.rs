//! [`GenerateJob`]: CDL text to a dataset (nczgen, as ncgen): the output named (from
//! the CDL file's name when not given, as ncgen 4.9), its kind decided (the same rules
//! as a copy's, [`super::kind`]), user-defined types fitted to it (the inputs step's
//! rule, [`super::inputs::fit_for_target`]), the storage planned, and the dataset
//! compiled and written by [`crate::generate`] with large data lists streamed.

use super::inputs::fit_for_target;
use super::kind::{kind_for_target, OutputKind};
use crate::cdl::{CdlError, Compiled};
use crate::copy::plan;
use crate::encoding::{Plan, PlanOptions};
use crate::error::{Error, JobError};
use crate::formats::nc3::{fits, Version};
use crate::formats::NcFileKind;
use crate::generate::{generate, CdlInput, GenError, GenOptions, GenTarget};
use crate::open::{create, CreateOptions};
use crate::sink::DatasetSink;

/// A generation, as nczgen's options describe it.
pub struct GenerateJob {
    /// The CDL file's path; `None` for standard input.
    pub input: Option<String>,
    /// The output's name; `None`: the CDL file's stem (from standard input, the CDL's
    /// `netcdf` name) with `.nc` or `.zarr`.
    pub output: Option<String>,
    /// The kind `-k` (or `-3`...) said.
    pub said_kind: Option<OutputKind>,
    /// A netCDF file is asked for without a kind (`-b`, `-lb`): the default name ends
    /// in `.nc`.
    pub binary: bool,
    /// How the output is created (its layout; the kind is applied here).
    pub create: CreateOptions,
    /// No fill values (ncgen `-x`).
    pub no_fill: bool,
    /// How the CDL is compiled.
    pub options: GenOptions,
}

/// What a generation says as it goes.
pub trait GenerateEvents {
    /// A warning about the CDL (placed in the file).
    fn cdl_warning(&mut self, warning: &CdlError);
    /// A warning about the output (`output` names it).
    fn output_warning(&mut self, output: &str, text: &str);
}

impl GenerateJob {
    /// The label of the input in messages: its path, or `<stdin>`.
    pub fn input_label(&self) -> String {
        match self.input.as_deref() {
            None | Some("-") => "<stdin>".to_string(),
            Some(p) => p.to_string(),
        }
    }

    /// Compile `input` and write the dataset. Returns the output's name, also when
    /// the run fails after the output was named (`None` before).
    ///
    /// # Errors
    /// [`GenError`]: the CDL's first error, reading it, the output's (named after the
    /// output or, for what the CDL asks that the output cannot hold, the input).
    pub fn run(
        &self,
        input: &CdlInput,
        events: &mut dyn GenerateEvents,
    ) -> (Option<String>, Result<(), GenError>) {
        let mut target = Target {
            job: self,
            events,
            name: None,
        };
        let result = generate(input, &self.options, &mut target);
        (target.name, result)
    }

    /// The output's name when none is given: the CDL file's name (from standard input,
    /// the CDL's `netcdf` name), as ncgen 4.9 names it, with `.nc` when a netCDF file is
    /// asked for (`-b`, `-lb`, or a file kind), else `.zarr` (an NCZarr dataset).
    fn default_name(&self, compiled: &Compiled) -> String {
        let wants_file = matches!(self.said_kind, Some(OutputKind::File(_)))
            || (self.said_kind.is_none() && self.binary);
        let stem = match self.input.as_deref() {
            None | Some("-") => None,
            Some(p) => std::path::Path::new(p).file_stem(),
        };
        let stem = stem.map_or(compiled.name.clone(), |s| s.to_string_lossy().into_owned());
        format!("{stem}.{}", if wants_file { "nc" } else { "zarr" })
    }
}

/// Where the compiled dataset goes.
struct Target<'j> {
    job: &'j GenerateJob,
    events: &'j mut dyn GenerateEvents,
    /// Once known.
    name: Option<String>,
}

type BoxedError = Box<dyn std::error::Error + Send + Sync>;

impl GenTarget for Target<'_> {
    fn warnings(&mut self, warnings: Vec<CdlError>) {
        for w in &warnings {
            self.events.cdl_warning(w);
        }
    }

    fn open(
        &mut self,
        compiled: &mut Compiled,
    ) -> Result<(Box<dyn DatasetSink>, Plan), BoxedError> {
        let job = self.job;
        let label = job.input_label();
        let output = job
            .output
            .clone()
            .unwrap_or_else(|| job.default_name(compiled));
        self.name = Some(output.clone());
        // Unsaid, a file is classic when the CDL fits it, as ncgen decides.
        let file_kind = || {
            if fits(&compiled.dataset, Version::Classic) {
                NcFileKind::Classic
            } else {
                NcFileKind::Netcdf4
            }
        };
        let kind = kind_for_target(job.said_kind, &output, file_kind, OutputKind::Nczarr)?;
        let made_atomic = if kind == OutputKind::File(NcFileKind::Netcdf4) {
            Vec::new()
        } else {
            atomic_types(compiled, &label)?
        };
        let plan_options = PlanOptions {
            no_fill: job.no_fill,
            netcdf4: kind.is_netcdf4_file(),
            ..PlanOptions::default()
        };
        let mut plan = plan(compiled, &plan_options).map_err(|e| e.named(&label))?;
        let mut create_options = job.create.clone();
        kind.apply(&mut create_options);
        let sink = create(&output, &create_options).map_err(|e| e.named(&output))?;
        let prepared = sink
            .prepare(&compiled.dataset, &mut plan)
            .map_err(|e| e.named(&output))?;
        for w in prepared.into_iter().chain(made_atomic) {
            self.events.output_warning(&output, &w);
        }
        Ok((sink, plan))
    }
}

/// The dataset as an output without user-defined types holds it (only netCDF-4 files
/// have them): an enum variable becomes its base type with CF's flag attributes,
/// which the warnings returned say; the other kinds are refused.
fn atomic_types(compiled: &mut Compiled, label: &str) -> Result<Vec<String>, Error> {
    if !compiled.dataset.has_user_types() {
        return Ok(Vec::new());
    }
    let fitted = fit_for_target(&compiled.dataset, None, false);
    if let Some(first) = fitted.losses.first() {
        return Err(JobError::UserTypes {
            input: label.to_string(),
            what: first.clone(),
        }
        .into());
    }
    let warnings = fitted
        .enums_made_atomic
        .iter()
        .map(|(path, id, nc_type)| {
            format!(
                "variable '{path}' of the enum type {id} is written as {nc_type} with flag_values and flag_meanings: only netCDF-4 files hold enum types"
            )
        })
        .collect();
    compiled.dataset = fitted.dataset;
    Ok(warnings)
}
