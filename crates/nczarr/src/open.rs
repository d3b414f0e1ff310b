//! From a dataset name to a source to read or a sink to write: the URL and its
//! `#mode=` flags are parsed, S3 settings resolved, the store opened and the format
//! detected here, so no tool decides any of it.
//!
//! ```no_run
//! use nczarr::{open, OpenOptions};
//! let opened = open("file:///data/x.zarr#mode=nczarr,file", &OpenOptions::default())?;
//! println!("{}", opened.source.format().detail);
//! # Ok::<(), nczarr::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::nczarr::{ReadOptions, WriteOptions, ZarrSink, ZarrSource};
use crate::sink::DatasetSink;
use crate::source::DatasetSource;
use crate::store::{create_target, open_read, TraceSink, ZipLayout};
use crate::url::DatasetUrl;

/// How to open a dataset for reading (the name's `#mode=` flags say the rest).
#[derive(Clone, Default)]
pub struct OpenOptions {
    /// Report requests and decisions here (`NCTRACING`).
    pub trace: Option<TraceSink>,
}

/// A dataset opened for reading.
pub struct Opened {
    /// The name, parsed.
    pub url: DatasetUrl,
    /// The dataset.
    pub source: Box<dyn DatasetSource>,
}

/// Open the dataset `name` names: a path, a `.zip`, or a URL (`file://`, `s3://`,
/// `https://`) with `#mode=` flags. Reads metadata only; values stay where they are.
///
/// # Errors
/// [`Error::Url`] for a name that cannot be understood, [`Error::Store`] when the
/// dataset cannot be reached, [`Error::NotZarr`] and metadata errors naming the key
/// when it is not a dataset we can read.
pub fn open(name: &str, options: &OpenOptions) -> Result<Opened> {
    let url = DatasetUrl::parse(name)?;
    let store = open_read(&url, options.trace.clone())?;
    let modes = &url.modes;
    let read = ReadOptions {
        // `zarr` reads pure Zarr; `noxarray` (which implies `zarr`) only drops
        // `_ARRAY_DIMENSIONS`, as in netcdf-c.
        force_pure_zarr: modes.has("zarr") && !modes.has("noxarray") || modes.has("xarray"),
        ignore_xarray_dims: !modes.xarray_dims(),
        trace: options.trace.clone(),
    };
    let source = ZarrSource::open(store.store, &read)?;
    Ok(Opened {
        url,
        source: Box::new(source),
    })
}

/// How to create a dataset (the name's `#mode=` flags add to it: `zarr` for pure Zarr,
/// `noxarray` to leave out `_ARRAY_DIMENSIONS`).
#[derive(Debug, Clone, Default)]
pub struct CreateOptions {
    /// NCZarr / Zarr layout choices.
    pub zarr: WriteOptions,
    /// How a `.zip` output lays out its keys.
    pub zip_layout: ZipLayout,
}

/// Create the dataset `name` names, staged: nothing appears there (and nothing there
/// is changed) until the sink finishes.
///
/// # Errors
/// [`Error::Url`] for a name that cannot be understood, [`Error::Invalid`] for options
/// that contradict each other, [`Error::Store`] when the place cannot be written (or,
/// on S3, already holds a dataset).
pub fn create(name: &str, options: &CreateOptions) -> Result<Box<dyn DatasetSink>> {
    let url = DatasetUrl::parse(name)?;
    let mut zarr = options.zarr.clone();
    zarr.pure_zarr |= url.modes.pure_zarr();
    zarr.xarray_dims &= url.modes.xarray_dims();
    zarr.check()?;
    let target = create_target(&url, options.zip_layout).map_err(Error::from)?;
    Ok(Box::new(ZarrSink::new(target, zarr)?))
}
