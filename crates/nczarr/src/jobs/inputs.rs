//! The inputs step every job starts with: names -> opened (concurrently) -> joined
//! along a dimension -> cut to `--dim` -> what a target cannot take left out or
//! refused. A tool hands over names and options and gets one source back, seen as
//! the job will read it; it never builds a [`Concat`] or a [`Subset`] itself.
//!
//! It does not decide where output goes or how it is stored: that is each job's.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::concat::{Concat, ConcatOptions};
use crate::error::{Error, JobError, Result};
use crate::model::{Dataset, VarPath};
use crate::open::{open, same_dataset, OpenOptions, Opened};
use crate::source::DatasetSource;
use crate::subset::{resolve, DimSpec, Subset};
use crate::url::DatasetUrl;

/// How a job's inputs are read and seen.
#[derive(Clone, Default)]
pub struct InputOptions {
    /// How each input is opened (tracing, batch size, what reference files may name).
    pub open: OpenOptions,
    /// How several inputs are joined (`--concat`, `--check`, `--sort`, `--allow-gaps`).
    pub join: ConcatOptions,
    /// The subset the job reads (`--dim`), looked up in the joined inputs.
    pub dims: Vec<DimSpec>,
    /// The job's output, which no input may be.
    pub output: Option<String>,
}

/// `--dim` options, parsed.
///
/// # Errors
/// [`Error::Subset`] for the first that does not parse, saying why.
pub fn parse_dims(specs: &[String]) -> Result<Vec<DimSpec>> {
    specs
        .iter()
        .map(|s| s.parse().map_err(Error::from))
        .collect()
}

/// Inputs opened, not yet seen as one.
pub struct Inputs {
    names: Vec<String>,
    opened: Vec<Opened>,
}

impl Inputs {
    /// Open `names` (none of them `options.output`). Their headers are read
    /// concurrently: by up to 16 threads when one is remote (its reads are requests
    /// whose latency overlaps), by one a core when all are local (reading them is the
    /// cores' work, and each thread more was an allocator arena more to grow).
    ///
    /// # Errors
    /// [`JobError::NoInputs`]; [`JobError::SameDataset`] for an input that is the
    /// output; a name not understood; each input's open error, named
    /// ([`Error::Named`]), the first in the order given.
    pub fn open(names: &[String], options: &InputOptions) -> Result<Inputs> {
        if names.is_empty() {
            return Err(JobError::NoInputs.into());
        }
        let remote = check_not_output(names, options.output.as_deref())?;
        if let [name] = names {
            // One input: opened here, without a thread to start (a header dump takes a
            // few milliseconds, and nczdump is run in loops).
            let opened = open(name, &options.open).map_err(|e| e.named(name))?;
            return Ok(Inputs {
                names: names.to_vec(),
                opened: vec![opened],
            });
        }
        let threads = if remote {
            16
        } else {
            std::thread::available_parallelism().map_or(2, usize::from)
        };
        let next = AtomicUsize::new(0);
        let slots: Vec<Mutex<Option<Result<Opened>>>> =
            names.iter().map(|_| Mutex::new(None)).collect();
        let open_next = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(name) = names.get(i) else { break };
            let opened = open(name, &options.open).map_err(|e| e.named(name));
            if let Ok(mut slot) = slots[i].lock() {
                *slot = Some(opened);
            }
        };
        std::thread::scope(|scope| {
            for _ in 0..names.len().clamp(1, threads) {
                scope.spawn(open_next);
            }
        });
        let opened = slots
            .into_iter()
            .zip(names)
            .map(|(slot, name)| {
                slot.into_inner().ok().flatten().unwrap_or_else(|| {
                    Err(Error::Internal(format!("{name}: not opened")).named(name))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Inputs {
            names: names.to_vec(),
            opened,
        })
    }

    /// The names, in the order given.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The inputs, opened, in the order given.
    pub fn opened(&self) -> &[Opened] {
        &self.opened
    }

    /// The first input.
    pub fn first(&self) -> &Opened {
        &self.opened[0]
    }

    /// The inputs, opened, in the order given, for a tool that reads each as it is
    /// (zmapdump's chunks and formats).
    pub fn into_opened(self) -> Vec<Opened> {
        self.opened
    }

    /// Each input's name and source, `lead` (a dataset being grown) first.
    pub(crate) fn named_sources<'a>(
        &'a self,
        lead: Option<(String, &'a dyn DatasetSource)>,
    ) -> Vec<(String, &'a dyn DatasetSource)> {
        lead.into_iter()
            .chain(
                self.names
                    .iter()
                    .cloned()
                    .zip(self.opened.iter().map(|o| o.source.as_ref())),
            )
            .collect()
    }

    /// The inputs joined as `options.join` says (one input joins nothing, but a
    /// `--concat` naming no dimension of it is still refused: a typo to say, not to
    /// copy past), then cut to `options.dims`.
    ///
    /// # Errors
    /// The join's errors (inputs that cannot be joined), and the subset's, named after
    /// the first input.
    pub fn view(&self, options: &InputOptions) -> Result<InputView<'_>> {
        let joined = if self.opened.len() > 1 {
            Some(Concat::new(self.named_sources(None), &options.join)?)
        } else {
            if options.join.dim.is_some() {
                Concat::new(self.named_sources(None), &options.join)?;
            }
            None
        };
        let differences = joined
            .as_ref()
            .map(Concat::attribute_differences)
            .unwrap_or_default();
        let first = self.opened[0].source.as_ref();
        let name = &self.names[0];
        let seen = match (joined, options.dims.is_empty()) {
            (None, true) => Seen::One(first),
            (Some(j), true) => Seen::Joined(j),
            (None, false) => {
                let cut = resolve(first, &options.dims).map_err(|e| e.named(name))?;
                Seen::Cut(Subset::new(first, &cut))
            }
            (Some(j), false) => {
                let cut = resolve(&j, &options.dims).map_err(|e| e.named(name))?;
                Seen::Cut(Subset::owning(Box::new(j), &cut))
            }
        };
        Ok(InputView { seen, differences })
    }
}

/// Refuse an input that is `output`; say whether any input is remote.
///
/// # Errors
/// A name not understood ([`Error::Named`]); [`JobError::SameDataset`].
pub(crate) fn check_not_output(names: &[String], output: Option<&str>) -> Result<bool> {
    let out_url = output
        .map(|o| DatasetUrl::parse(o).map_err(|e| Error::from(e).named(o)))
        .transpose()?;
    let mut remote = false;
    for name in names {
        let url = DatasetUrl::parse(name).map_err(|e| Error::from(e).named(name))?;
        if let (Some(out), Some(out_url)) = (output, &out_url) {
            if same_dataset(&url, out_url) {
                return Err(JobError::SameDataset {
                    output: out.to_string(),
                }
                .into());
            }
        }
        remote |= url.path().is_none();
    }
    Ok(remote)
}

/// What the job reads: one input, several joined, either cut.
enum Seen<'a> {
    One(&'a dyn DatasetSource),
    Joined(Concat<'a>),
    Cut(Subset<'a>),
}

/// The inputs as a job reads them.
pub struct InputView<'a> {
    seen: Seen<'a>,
    differences: Vec<String>,
}

impl InputView<'_> {
    /// The one source the job reads.
    pub fn source(&self) -> &dyn DatasetSource {
        match &self.seen {
            Seen::One(s) => *s,
            Seen::Joined(j) => j,
            Seen::Cut(c) => c,
        }
    }

    /// The attributes that differ between the joined inputs (the first input's are
    /// kept), one line each (`--verbose`).
    pub fn attribute_differences(&self) -> &[String] {
        &self.differences
    }
}

/// A dataset as a target holds it: netCDF-4's user-defined types kept only where
/// `keeps_user_types` (elsewhere enums become their base type with CF's flag
/// attributes, the other kinds cannot go), and `source`'s variables this build cannot
/// read.
pub struct Fitted {
    /// What the target is given.
    pub dataset: Dataset,
    /// What the target cannot hold (user types other than enums), each a sentence.
    pub losses: Vec<String>,
    /// The enum variables written as their base type.
    pub enums_made_atomic: Vec<(VarPath, String, crate::model::NcType)>,
    /// The variables of `dataset` that cannot be read, and why.
    pub unreadable: Vec<(VarPath, String)>,
}

/// `dataset` (a selection of `source`'s, or a compiled CDL's) fitted to a target:
/// see [`Fitted`]. Nothing is left out yet: the caller refuses or drops what
/// [`Fitted::losses`] and [`Fitted::unreadable`] name ([`Fitted::without_unreadable`]).
pub fn fit_for_target(
    dataset: &Dataset,
    source: Option<&dyn DatasetSource>,
    keeps_user_types: bool,
) -> Fitted {
    let enums_made_atomic = if keeps_user_types {
        Vec::new()
    } else {
        dataset
            .vars()
            .into_iter()
            .filter_map(|(path, var)| {
                let id = var.user_type.as_ref()?;
                Some((path, id.to_string(), var.nc_type))
            })
            .collect()
    };
    let (atomic, losses) = crate::model::user::written_view(dataset, keeps_user_types);
    let unreadable = source
        .map(|s| {
            s.unreadable()
                .into_iter()
                .filter(|(p, _)| atomic.var(p).is_some())
                .collect()
        })
        .unwrap_or_default();
    Fitted {
        dataset: atomic,
        losses: losses.iter().map(ToString::to_string).collect(),
        enums_made_atomic,
        unreadable,
    }
}

impl Fitted {
    /// The dataset without the variables that cannot be read.
    pub fn without_unreadable(self) -> Dataset {
        let paths: Vec<_> = self.unreadable.iter().map(|(p, _)| p.clone()).collect();
        if paths.is_empty() {
            self.dataset
        } else {
            self.dataset.without_vars(&paths)
        }
    }
}
