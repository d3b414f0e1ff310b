//! nczarr: netCDF datasets stored as Zarr: the netCDF-4 data model over Zarr version 2
//! storage (NCZarr), as netcdf-c defines it, with every metadata generation netcdf-c
//! has written and pure Zarr from zarr-python and xarray.
//!
//! One dataset I/O layer serves every tool: [`open()`] turns a name into a
//! [`DatasetSource`] (the model, the format, how each variable is stored, values by
//! region); [`copy::plan`] (over [`encoding::complete`]) decides how a dataset will be stored; [`create()`] gives a
//! [`DatasetSink`]; [`copy::write_dataset`] moves values from any source to any sink.
//! `docs/architecture.md` draws the layers.
//!
//! Modules, lowest first (each uses only modules above it in this list):
//! - `mem`: room for buffers reused from one slab to the next; [`cancel`]: a run asked
//!   to stop, and the staging places to remove then;
//! - [`text`], [`json`], [`model`], [`chunking`], [`cftime`]: text that may hold raw bytes,
//!   JSON, the netCDF data model, region and chunk arithmetic, CF time (no I/O);
//! - [`url`], [`rc`]: dataset names and their `#mode=` fragments, netcdf-c's rc files;
//!   [`reach`]: what a reference file or a redirect may make us read (address classes);
//! - [`codec`]: numcodecs-compatible codecs and their chains;
//! - [`store`]: the key/value store interface, the local stores, staged targets;
//! - [`cloud`]: S3, GCS, Azure and web servers: each cloud's settings and store;
//! - [`place`]: the store a dataset's name opens, the target a new one is written to;
//! - [`encoding`]: how a variable is stored, in netCDF's vocabulary, and planning it;
//! - [`mod@source`], [`sink`]: the traits every format implements;
//! - [`formats`]: every format, one family per folder (Zarr with NCZarr, netCDF classic,
//!   netCDF-4), each with its documents, source and sink, and telling files apart;
//! - [`cdl`]: CDL text: parser, compiler (a source in memory), ncdump-exact printer;
//! - [`copy`]: source -> sink; [`generate`]: nczgen's streaming CDL-to-dataset driver;
//! - [`mod@open`]: names to sources and sinks;
//! - [`jobs`]: what each tool does (copy, join, subset, append, kerchunk, compare,
//!   generate), options in and a report out, every one through the same inputs step.
#![warn(missing_docs, unreachable_pub, clippy::unwrap_used)]

pub mod append;
pub mod cancel;
pub mod cdl;
pub mod cftime;
pub mod chunking;
pub mod cloud;
pub mod codec;
pub mod compare;
pub mod concat;
pub mod copy;
pub mod edit;
pub mod encoding;
mod error;
pub mod formats;
pub mod generate;
pub mod jobs;
pub mod json;
pub mod kerchunk;
mod mem;
pub mod model;
pub mod open;
pub mod place;
pub mod rc;
pub mod reach;
pub mod sink;
pub mod source;
pub mod store;
pub mod subset;
pub mod text;
pub mod url;
pub mod view;

pub use error::{Error, JobError, Result};
pub use open::{
    check_not_inside, check_target, create, create_parts, open, same_dataset, CreateOptions,
    OpenOptions, Opened,
};
pub use sink::{DatasetSink, WriteStage};
pub use source::{ChunkPlace, DataSource, DatasetSource, FormatInfo};
