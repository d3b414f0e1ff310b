//! The jobs: what each tool does, as a library type with its options in and a report
//! out, so that a tool only parses its options, calls one job and prints what it
//! hears (a GUI, a Python binding or a server would call the same jobs).
//!
//! Every job starts with the one inputs step ([`inputs`]): names -> opened
//! concurrently -> joined -> cut to `--dim` -> what a target cannot take left out or
//! refused. Then:
//! - [`copy`]: [`CopyJob`], a copy from one name to another (nccopy), whole or in
//!   parts; [`copy_request`]: [`CopyRequest`], nczcopy's run over one input or several
//!   joined, a dry run or a written copy;
//! - [`append`]: [`AppendJob`], a Zarr dataset grown in place (`--append`);
//! - [`kerchunk`]: [`KerchunkJob`], references to netCDF files' chunks;
//! - [`compare`]: [`CompareJob`], two datasets compared (nccmp);
//! - [`generate`]: [`GenerateJob`], CDL to a dataset (ncgen);
//! - [`edit`]: [`EditJob`], attribute edits and renames in place or into a copy
//!   (ncatted, ncrename);
//! - [`kind`]: the output kind of the jobs that write, said or decided.
//!
//! Jobs hold no format knowledge: they compose the layers below (`open`, `concat`,
//! `subset`, `copy`, `kerchunk`, `append`, `compare`, `generate`).

pub mod append;
pub mod compare;
pub mod copy;
pub mod copy_request;
pub mod edit;
pub mod generate;
pub mod inputs;
pub mod kerchunk;
pub mod kind;
pub mod migrate;
mod plan_text;

pub use crate::concat::ConcatOptions as JoinOptions;
pub use crate::error::JobError;
pub use crate::kerchunk::RefOptions;
pub use append::{AppendJob, AppendNote, AppendReport};
pub use compare::CompareJob;
pub use copy::{CopyJob, CopyRun, PreparedCopy, StartedCopy, Warning};
pub use copy_request::{copy_create_options, CopyEvents, CopyOutcome, CopyPlan, CopyRequest};
pub use edit::{EditJob, EditReport};
pub use generate::{GenerateEvents, GenerateJob};
pub use inputs::{parse_dims, InputOptions, InputView, Inputs};
pub use kerchunk::{KerchunkJob, KerchunkReport};
pub use kind::{copy_kind, kind_for_target, names_repository, OutputKind};
pub use migrate::{MigrateJob, MigrateReport};
