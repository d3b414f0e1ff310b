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

use crate::cloud::s3::S3Address;
use crate::error::{Error, Result};
use crate::formats::zarr::{ReadOptions, WriteOptions, ZarrSink, ZarrSource};
use crate::formats::{FileKind, NcFileKind};
use crate::place::{
    create_target, open_ranged, open_read, parts_target, Held, PartsRun, ZipLayout,
};
use crate::reach::ReferenceOptions;
use crate::sink::DatasetSink;
use crate::sink::WriteStage;
use crate::source::DatasetSource;
use crate::store::{ReadAt, ReadStore, TraceSink};
use crate::url::{DatasetUrl, Location, StorageKind};
use std::sync::Arc;

/// How to open a dataset for reading (the name's `#mode=` flags say the rest).
#[derive(Clone, Default)]
pub struct OpenOptions {
    /// Report requests and decisions here (`NCTRACING`).
    pub trace: Option<TraceSink>,
    /// About how many bytes of decoded chunks a read holds at once (default 64 MiB).
    pub batch_bytes: Option<u64>,
    /// What a kerchunk reference file read over the network may name beyond
    /// [`crate::reach`]'s rules (local files, with `--allow-local-refs`).
    pub refs: ReferenceOptions,
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
    open_with(name, options, false)
}

/// As [`open`], a Zarr store's documents kept as read (`remember`), so that a job
/// reading them again (an attribute edit) asks the store once
/// ([`crate::store::MemoStore`]).
pub(crate) fn open_with(name: &str, options: &OpenOptions, remember: bool) -> Result<Opened> {
    let url = DatasetUrl::parse(name)?;
    if let Some(protocol) = url.dap() {
        return open_dap(url, protocol, None, options);
    }
    // netcdf-c's DAP2 answer saved in files: `file:///x` for `x.dds` (and `x.das`,
    // `x.dods`), where `x` itself is not there.
    if let (true, Some(p)) = (url.is_url, url.path()) {
        let mut dds = p.as_os_str().to_owned();
        dds.push(".dds");
        if !p.exists() && std::path::Path::new(&dds).is_file() {
            return open_dap(url, crate::url::DapProtocol::Dap2, None, options);
        }
        // ... and a DAP4 response saved as `x.dap`.
        let mut dap = p.as_os_str().to_owned();
        dap.push(".dap");
        if !p.exists() && std::path::Path::new(&dap).is_file() {
            return open_dap(url, crate::url::DapProtocol::Dap4, None, options);
        }
    }
    // An Icechunk repository, known by its `repo` object (on a disk: one file check).
    if url.modes.has("icechunk")
        || url
            .path()
            .is_some_and(crate::place::icechunk::is_repository_dir)
    {
        return open_icechunk(url, options);
    }
    if let Some(path) = url.path().filter(|p| p.is_file()) {
        // kerchunk's references (JSON), known by their first bytes or `#mode=kerchunk`:
        // a Zarr dataset whose chunks are byte ranges of other files.
        if url.modes.has("kerchunk") || crate::place::starts_like_references(path) {
            let store = crate::place::ReferenceStore::open(path)?;
            return open_references(url, store, options);
        }
        // A file rather than a directory tree: a netCDF file is known by its first
        // bytes, whatever its name; anything else goes on to the zip store.
        match crate::formats::sniff_file(path)? {
            Some(FileKind::Classic) => {
                let source = crate::formats::nc3::Nc3Source::open(path)?;
                return Ok(Opened {
                    url,
                    source: Box::new(source),
                });
            }
            Some(FileKind::Hdf5) => {
                let source = crate::formats::nc4::Hdf5Source::open(path)?;
                return Ok(Opened {
                    url,
                    source: Box::new(source),
                });
            }
            // Not netCDF, and not a zip archive by name or by its first bytes: say what
            // it is not, rather than that it is not a directory.
            None if url.storage == StorageKind::Dir && !starts_like_zip(path) => {
                return Err(Error::NotDataset {
                    location: path.display().to_string(),
                    message: format!(
                        "{}: not a netCDF file (no netCDF or HDF5 signature in its first bytes), nor a Zarr dataset (a directory or a .zip)",
                        path.display()
                    ),
                });
            }
            None => {}
        }
    }
    if url.path().is_none() && named_like_repository(&url) {
        // An object-store name ending in `.ice` or `.icechunk`: a repository is asked
        // for first, in Icechunk's own requests (none spent on Zarr's documents).
        match open_icechunk(url.clone(), options) {
            Err(Error::Store(crate::store::StoreError::NotFound { .. })) => {}
            other => return other,
        }
    }
    if url.path().is_none() {
        // A web URL an OPeNDAP server answers: its DDS, asked for first (one request
        // more for a web server that is not one; none for a server that is).
        if may_be_opendap(&url) {
            if let Some(base) = url.web_base() {
                let dap = dap_options(&url, options);
                if let Some(dds) =
                    crate::formats::dap::DapSource::probe(&base, url.query.as_deref(), &dap)?
                {
                    return open_dap(url, crate::url::DapProtocol::Dap2, Some(dds), options);
                }
            }
        }
        // A remote URL names either a netCDF file in one object (`#mode=bytes`, or
        // known by its first bytes), kerchunk's references (`#mode=kerchunk`, or a
        // `.json` object that starts like them), or a Zarr dataset under a prefix.
        if url.modes.has("bytes") || names_a_netcdf_file(&url) {
            return open_remote_file(url, options);
        }
        if url.modes.has("kerchunk") || crate::place::names_a_json_object(&url) {
            if let Some(refs) = crate::place::ReferenceStore::open_remote(&url, options.refs)? {
                return open_references(url, refs, options);
            }
        }
        return match open_zarr(&url, options, remember) {
            // Not a Zarr dataset: perhaps an Icechunk repository (the Zarr reader looked
            // for its `repo` object), or one object that is a netCDF file.
            Err(Error::IcechunkRepository { .. }) => open_icechunk(url, options),
            Err(e @ Error::NotZarr { .. }) => match open_ranged(&url, options.trace.clone()) {
                Ok(Some(file)) => match crate::formats::sniff_at(&file) {
                    Ok(Some(_)) => open_remote_file(url, options),
                    _ if crate::place::ranged_starts_like_references(&file) => {
                        match crate::place::ReferenceStore::open_remote(&url, options.refs)? {
                            Some(refs) => open_references(url, refs, options),
                            None => Err(e),
                        }
                    }
                    _ => Err(Error::NotDataset {
                        location: url.original.clone(),
                        message: format!(
                            "{} is not a netCDF file (no netCDF or HDF5 signature in its first bytes), and no Zarr dataset is under it",
                            url.original
                        ),
                    }),
                },
                _ => Err(e),
            },
            other => other.map(|source| Opened { url, source }),
        };
    }
    let source = open_zarr(&url, options, remember)?;
    Ok(Opened { url, source })
}

/// The version of the Icechunk repository `url` names (`#branch=`, `#tag=`,
/// `#snapshot=`; the `main` branch by default), read as Zarr version 3.
fn open_icechunk(url: DatasetUrl, options: &OpenOptions) -> Result<Opened> {
    use crate::place::icechunk::{open_repository, IcechunkStore, Version};
    use crate::store::ReadableStore;
    let version = Version::from_url(&url)?;
    let refs =
        options
            .refs
            .for_url(&url)
            .map_err(|message| crate::store::StoreError::Settings {
                location: url.original.clone(),
                message,
            })?;
    let repo = open_repository(&url, options.trace.as_ref())?;
    let store = IcechunkStore::reader(&repo, &version, refs)?;
    let root = crate::store::StoreKey::new(crate::formats::zarr::v3::ZARR_JSON)?;
    if store.get(&root)?.is_none() {
        return Err(Error::NotDataset {
            location: url.original.clone(),
            message: format!(
                "{}: the Icechunk repository's {} holds nothing yet (no root group)",
                repo.location(),
                version.describe()
            ),
        });
    }
    let mut read = zarr_read_options(&url, options);
    read.force_v3 = true;
    read.force_v2 = false;
    let mut source = ZarrSource::open(Box::new(store), &read)?;
    source.describe_as(
        "icechunk",
        &format!("Icechunk repository, {}", version.describe()),
    );
    Ok(Opened {
        url,
        source: Box::new(source),
    })
}

/// True for an object-store URL whose last name ends in `.ice` or `.icechunk`.
fn named_like_repository(url: &DatasetUrl) -> bool {
    let Location::Remote { path, .. } = &url.location else {
        return false;
    };
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let lower = last.to_ascii_lowercase();
    matches!(
        url.storage,
        StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure
    ) && (lower.ends_with(".ice") || lower.ends_with(".icechunk"))
}

/// True for a web URL that may name an OPeNDAP dataset: no mode says what it is, and
/// its name is not a Zarr store's, a zip's or a reference file's.
fn may_be_opendap(url: &DatasetUrl) -> bool {
    let Location::Remote { path, .. } = &url.location else {
        return false;
    };
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let ext = last.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    url.storage == StorageKind::Http
        && url.modes.flags().is_empty()
        && !matches!(ext.as_deref(), Some("zarr" | "zip" | "json" | "zarr3"))
}

/// How the OPeNDAP dataset `url` names is read.
fn dap_options(url: &DatasetUrl, options: &OpenOptions) -> crate::formats::dap::DapOptions {
    // netcdf-c's `[show=fetch]` (and `[log]`) say each request on standard error.
    let show_fetch =
        url.param("show").is_some_and(|v| v.contains("fetch")) || url.param("log").is_some();
    let trace = options.trace.clone().or_else(|| {
        show_fetch.then(|| {
            let sink: crate::store::TraceSink =
                std::sync::Arc::new(|line: &str| eprintln!("{line}"));
            sink
        })
    });
    let http = match &url.location {
        Location::Remote { scheme, host, path } => {
            crate::formats::dap::HttpSettings::load(scheme, host, path)
        }
        Location::Path(_) => crate::formats::dap::HttpSettings::default(),
    };
    if let Some(t) = &trace {
        for note in &http.notes {
            t(&format!("opendap: {note}"));
        }
    }
    crate::formats::dap::DapOptions {
        http,
        params: url.params.clone(),
        trace,
    }
}

/// The OPeNDAP dataset `url` names (`dds` when a probe has it already).
fn open_dap(
    url: DatasetUrl,
    protocol: crate::url::DapProtocol,
    dds: Option<String>,
    options: &OpenOptions,
) -> Result<Opened> {
    // A saved answer (`file:///x` for `x.dds`, `x.das`, `x.dods`), or a server's.
    let base = match url.path() {
        Some(p) => format!(
            "file://{}",
            std::path::absolute(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
        ),
        None => url.web_base().ok_or_else(|| {
            Error::Url(crate::url::UrlError::Malformed {
                reason: format!(
                    "{}: OPeNDAP needs an http://, https:// or file:// URL",
                    url.original
                ),
            })
        })?,
    };
    let dap = dap_options(&url, options);
    if protocol == crate::url::DapProtocol::Dap4 {
        // netcdf-c's `#hyrax`: Hyrax's checksums of strings cover their bytes only.
        let hyrax = url.modes.has("hyrax") || url.param("hyrax").is_some();
        let source =
            crate::formats::dap::Dap4Source::open(&base, url.query.as_deref(), &dap, hyrax)?;
        return Ok(Opened {
            url,
            source: Box::new(source),
        });
    }
    let source = crate::formats::dap::DapSource::open(&base, url.query.as_deref(), dds, &dap)?;
    Ok(Opened {
        url,
        source: Box::new(source),
    })
}

/// The Zarr dataset kerchunk's references `refs` describe.
fn open_references(
    url: DatasetUrl,
    refs: crate::place::ReferenceStore,
    options: &OpenOptions,
) -> Result<Opened> {
    let source = ZarrSource::open(Box::new(refs), &zarr_read_options(&url, options))?;
    Ok(Opened {
        url,
        source: Box::new(source),
    })
}

/// True when the file at `path` starts with a zip archive's local-file signature.
fn starts_like_zip(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == *b"PK\x03\x04")
}

/// True for a web URL whose name ends like a netCDF file's
/// ([`crate::url::NETCDF_FILE_EXTENSIONS`]): read as a file first, without asking for
/// Zarr metadata below it.
fn names_a_netcdf_file(url: &DatasetUrl) -> bool {
    let Location::Remote { path, .. } = &url.location else {
        return false;
    };
    url.storage == StorageKind::Http && crate::url::has_netcdf_extension(path)
}

/// The Zarr dataset `url` names.
fn open_zarr(
    url: &DatasetUrl,
    options: &OpenOptions,
    remember: bool,
) -> Result<Box<dyn DatasetSource>> {
    let mut store = open_read(url, options.trace.clone(), options.refs)?.store;
    if remember {
        store = Box::new(crate::store::MemoStore::new(store));
    }
    let source = ZarrSource::open(store, &zarr_read_options(url, options))?;
    Ok(Box::new(source))
}

/// How the Zarr dataset `url` names is read, as its `#mode=` flags say.
pub(crate) fn zarr_read_options(url: &DatasetUrl, options: &OpenOptions) -> ReadOptions {
    let modes = &url.modes;
    ReadOptions {
        // `zarr` reads pure Zarr; `noxarray` (which implies `zarr`) only drops
        // `_ARRAY_DIMENSIONS`, as in netcdf-c.
        force_pure_zarr: modes.has("zarr") && !modes.has("noxarray") || modes.has("xarray"),
        ignore_xarray_dims: !modes.xarray_dims(),
        force_v3: modes.zarr3(),
        force_v2: modes.has("v2") && !modes.zarr3(),
        trace: options.trace.clone(),
        batch_bytes: options.batch_bytes,
    }
}

/// The netCDF file in the remote object `url` names, read by byte ranges.
fn open_remote_file(url: DatasetUrl, options: &OpenOptions) -> Result<Opened> {
    let file = open_ranged(&url, options.trace.clone())?.ok_or_else(|| {
        Error::Store(crate::store::StoreError::NotFound {
            location: url.original.clone(),
        })
    })?;
    let file: Arc<dyn ReadAt> = Arc::new(file);
    let source: Box<dyn DatasetSource> = match crate::formats::sniff_at(file.as_ref())? {
        Some(FileKind::Classic) => Box::new(crate::formats::nc3::Nc3Source::from_file(file)?),
        Some(FileKind::Hdf5) => Box::new(crate::formats::nc4::Hdf5Source::from_file(file, true)?),
        None => {
            return Err(Error::NotDataset {
                location: file.location(),
                message: format!(
                    "{} is not a netCDF file (no netCDF or HDF5 signature in its first bytes)",
                    file.location()
                ),
            })
        }
    };
    Ok(Opened { url, source })
}

/// How to create a dataset (the name's `#mode=` flags add to it: `zarr` for pure Zarr,
/// `noxarray` to leave out `_ARRAY_DIMENSIONS`).
#[derive(Debug, Clone, Default)]
pub struct CreateOptions {
    /// NCZarr / Zarr layout choices.
    pub zarr: WriteOptions,
    /// How a `.zip` output lays out its keys.
    pub zip_layout: ZipLayout,
    /// Replace a dataset already there (`--overwrite`): directories, zip and netCDF
    /// files are swapped whole once the new one is complete; on an object store the old
    /// objects are deleted then (not atomic: object stores cannot swap). Without it an
    /// existing dataset is refused ([`check_target`]).
    pub overwrite: bool,
    /// The caller can also add to an existing dataset (nczcopy's `--append`): the
    /// refusal of an existing dataset says so.
    pub offer_append: bool,
    /// Write a netCDF file of this kind instead of a Zarr dataset.
    pub netcdf: Option<NcFileKind>,
    /// Write an Icechunk repository (a new one, or with `overwrite` a new snapshot of
    /// one), committed as `commit` says.
    pub icechunk: bool,
    /// The commit's message, tag and branch, for an Icechunk output.
    pub commit: crate::place::icechunk::CommitInfo,
    /// A netCDF-4 file's `_NCProperties` (what made it) when it is not ours: an edit
    /// rewrites a file but keeps saying what made it, as netcdf-c would.
    pub nc_properties: Option<String>,
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
    check_target(name, options)?;
    if let Some(kind) = options.netcdf {
        return create_netcdf_file(&url, kind, options.nc_properties.clone());
    }
    let mut zarr = options.zarr.clone();
    zarr.pure_zarr |= url.modes.pure_zarr();
    zarr.zarr3 |= url.modes.zarr3();
    zarr.xarray_dims &= url.modes.xarray_dims();
    if options.icechunk || url.modes.has("icechunk") {
        // Zarr version 3 is all a repository holds; no consolidated copy of the
        // metadata for other writers to leave stale.
        zarr.zarr3 = true;
        zarr.unconsolidated = true;
        zarr.check()?;
        let target = crate::place::icechunk::write::create_target(
            &url,
            options.overwrite,
            options.commit.clone(),
        )?;
        return Ok(Box::new(ZarrSink::new(target, zarr)?));
    }
    zarr.check()?;
    let target = create_target(&url, options.zip_layout, options.overwrite).map_err(Error::from)?;
    Ok(Box::new(ZarrSink::new(target, zarr)?))
}

/// Refuse to write a new dataset at `name` when the place is inside another dataset
/// (a group or array of it would be replaced), or holds a dataset and
/// `options.overwrite` is not set. Nothing is read or written but what it takes to
/// look: a few file checks, or one listing and one batch of small reads on an object
/// store. Where it differs from nccopy and ncgen (which replace an existing file
/// unasked): as xarray's `to_zarr` and zarr-python, an existing dataset is replaced only
/// when asked.
///
/// # Errors
/// [`Error::Target`] naming what is there and the ways on; [`Error::Url`],
/// [`Error::Store`] when the place cannot be looked at.
pub fn check_target(name: &str, options: &CreateOptions) -> Result<()> {
    let url = DatasetUrl::parse(name)?;
    let facts = crate::place::inspect_target(&url)?;
    refuse_inside(name, facts.inside)?;
    // A directory (a Zarr store, a repository) never replaces a file, even a dataset's:
    // say so now rather than offer --overwrite and refuse it after.
    // (A reference file is the kerchunk job's to replace, and refused by it otherwise.)
    let directory = options.netcdf.is_none() && url.storage == StorageKind::Dir;
    if let Some(held @ (Held::NetcdfFile | Held::Zip)) = facts.there.filter(|_| directory) {
        let what = if held == Held::NetcdfFile {
            "a netCDF file"
        } else {
            "a zip archive"
        };
        return Err(Error::Target {
            location: name.to_string(),
            message: format!(
                "{what} is there{}; nothing was written: this output is a directory, which never replaces a file (move it away or choose another name)",
                existing_summary(name)
            ),
        });
    }
    let Some(held) = facts.there.filter(|_| !options.overwrite) else {
        return Ok(());
    };
    if held == Held::Icechunk {
        return Err(Error::Target {
            location: name.to_string(),
            message: "an Icechunk repository already exists; nothing was written: --append adds the inputs as a new snapshot, --overwrite replaces its contents in a new snapshot (its history is kept)".into(),
        });
    }
    let ways = if options.offer_append && held == Held::Zarr {
        "--append adds to it, --overwrite replaces it"
    } else {
        "--overwrite replaces it"
    };
    Err(Error::Target {
        location: name.to_string(),
        message: format!(
            "a dataset already exists{}; nothing was written: {ways}",
            existing_summary(name)
        ),
    })
}

/// Refuse to write at `name` when the place is inside another dataset: what
/// [`check_target`] refuses first, and all a later run of a copy in parts checks (its
/// place holds the first run's work).
///
/// # Errors
/// [`Error::Target`] naming the dataset; [`Error::Url`], [`Error::Store`] when the
/// place cannot be looked at.
pub fn check_not_inside(name: &str) -> Result<()> {
    let url = DatasetUrl::parse(name)?;
    refuse_inside(name, crate::place::inspect_target(&url)?.inside)
}

/// Refuse to edit in place what is a part of another dataset (an array or group of a
/// store named by its path): the edit would pass by that dataset's consolidated
/// metadata and leave it stale.
///
/// # Errors
/// [`Error::Target`] naming the dataset; [`Error::Url`], [`Error::Store`] when the
/// place cannot be looked at.
pub fn check_not_part(name: &str) -> Result<()> {
    let url = DatasetUrl::parse(name)?;
    match crate::place::inspect_target(&url)?.inside {
        None => Ok(()),
        Some(around) => Err(Error::Target {
            location: name.to_string(),
            message: format!(
                "a part of the dataset {} ({}), not a dataset: nothing was changed (name the dataset {} itself)",
                around.dataset, around.what, around.dataset
            ),
        }),
    }
}

fn refuse_inside(name: &str, inside: Option<crate::place::Enclosing>) -> Result<()> {
    match inside {
        None => Ok(()),
        Some(around) => Err(Error::Target {
            location: name.to_string(),
            message: format!(
                "inside the dataset {} ({}); a new dataset is never written into another: nothing was written (choose a name outside it)",
                around.dataset, around.what
            ),
        }),
    }
}

/// ` (time = 396)`: the unlimited dimensions of the dataset at `name` (in any group,
/// a group's as `obs/time`), else its first root dimensions, else how many variables
/// and groups it holds, so that a refusal says what would have been lost.
fn existing_summary(name: &str) -> String {
    let Ok(opened) = open(name, &OpenOptions::default()) else {
        return " (it does not open)".into();
    };
    let ds = opened.source.dataset();
    let mut unlimited = Vec::new();
    let mut todo: Vec<(String, &crate::model::Group)> = vec![(String::new(), &ds.root)];
    let mut groups = 0;
    while let Some((path, g)) = todo.pop() {
        for d in g.dims.iter().filter(|d| d.unlimited) {
            unlimited.push(format!("{path}{} = {}", d.name, d.len));
        }
        for c in g.groups.iter().rev() {
            groups += 1;
            todo.push((format!("{path}{}/", c.name), c));
        }
    }
    let root = &ds.root;
    let mut parts: Vec<String> = if unlimited.is_empty() {
        root.dims
            .iter()
            .take(3)
            .map(|d| format!("{} = {}", d.name, d.len))
            .collect()
    } else {
        unlimited
    };
    if parts.len() == 3 && root.dims.len() > 3 {
        parts.push("...".into());
    }
    if parts.is_empty() {
        let vars = ds.vars().len();
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        parts.push(match (vars, groups) {
            (0, 0) => "empty".to_string(),
            (v, 0) => plural(v, "variable"),
            (v, g) => format!("{} in {}", plural(v, "variable"), plural(g + 1, "group")),
        });
    }
    format!(" ({})", parts.join(", "))
}

/// A netCDF file of `kind` at `url`, staged beside it.
fn create_netcdf_file(
    url: &DatasetUrl,
    kind: NcFileKind,
    nc_properties: Option<String>,
) -> Result<Box<dyn DatasetSink>> {
    let (staged, file) = crate::place::create_file(url)?;
    Ok(match kind.classic_version() {
        Some(version) => Box::new(crate::formats::nc3::Nc3Sink::new(version, staged, file)),
        None => Box::new(crate::formats::nc4::Nc4Sink::new(
            kind == NcFileKind::Netcdf4Classic,
            staged,
            file,
            nc_properties,
        )),
    })
}

/// Create one run's sink of a copy in parts (see `docs/nczcopy.md`): the `Start` run
/// writes the metadata, `Resume` runs write values; `stage` says which. Also gives a
/// reader of the same place, to check what earlier runs left.
///
/// # Errors
/// As [`create`]; and a zip output (it cannot be written in parts), or no copy in parts
/// started at `name` for a `Resume` run.
pub fn create_parts(
    name: &str,
    options: &CreateOptions,
    run: PartsRun,
    stage: WriteStage,
) -> Result<(Box<dyn DatasetSink>, Box<dyn ReadStore>)> {
    let url = DatasetUrl::parse(name)?;
    if run == PartsRun::Start {
        check_target(name, options)?;
    }
    if let Some(kind) = options.netcdf {
        return Err(Error::Unsupported(format!(
            "{}: a {} file is written in one run, not in parts",
            url.original,
            kind.name()
        )));
    }
    let mut zarr = options.zarr.clone();
    zarr.pure_zarr |= url.modes.pure_zarr();
    zarr.zarr3 |= url.modes.zarr3();
    zarr.xarray_dims &= url.modes.xarray_dims();
    if options.icechunk || crate::place::icechunk::write::names_repository(&url)? {
        zarr.zarr3 = true;
        zarr.unconsolidated = true;
        zarr.check()?;
        let (target, reader) = crate::place::icechunk::parts::parts_target(
            &url,
            run,
            options.overwrite,
            options.commit.clone(),
        )?;
        return Ok((
            Box::new(ZarrSink::new(target, zarr)?.with_stage(stage)),
            reader,
        ));
    }
    zarr.check()?;
    let (target, reader) = parts_target(&url, run, options.overwrite)?;
    Ok((
        Box::new(ZarrSink::new(target, zarr)?.with_stage(stage)),
        reader,
    ))
}

/// True when `a` and `b` name the same dataset: the same local path (after following
/// links, where it exists), or the same bucket and key on the same S3 endpoint.
pub fn same_dataset(a: &DatasetUrl, b: &DatasetUrl) -> bool {
    match (&a.location, &b.location) {
        (Location::Path(p), Location::Path(q)) => {
            let resolve = |p: &std::path::Path| {
                p.canonicalize()
                    .or_else(|_| std::path::absolute(p))
                    .unwrap_or_else(|_| p.to_path_buf())
            };
            resolve(p) == resolve(q)
        }
        (Location::Remote { .. }, Location::Remote { .. })
            if a.storage == StorageKind::Azure && b.storage == StorageKind::Azure =>
        {
            match (
                crate::cloud::azure::address(a),
                crate::cloud::azure::address(b),
            ) {
                (Some((c, k, x)), Some((d, l, y))) => {
                    c == d && k == l && (x.is_none() || y.is_none() || x == y)
                }
                _ => a.original == b.original,
            }
        }
        (Location::Remote { .. }, Location::Remote { .. }) => {
            match (S3Address::from_url(a), S3Address::from_url(b)) {
                (Ok(x), Ok(y)) => {
                    x.bucket == y.bucket
                        && x.key.trim_matches('/') == y.key.trim_matches('/')
                        && x.endpoint == y.endpoint
                }
                _ => a.original == b.original,
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_dataset_under_other_names() {
        let u = |s: &str| DatasetUrl::parse(s).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("d.zarr");
        std::fs::create_dir(&d).unwrap();
        let plain = d.display().to_string();
        let url = format!("file://{}#mode=nczarr,file", d.display());
        assert!(same_dataset(&u(&plain), &u(&url)));
        assert!(same_dataset(&u(&format!("{plain}/")), &u(&plain)));
        assert!(!same_dataset(&u(&plain), &u(&format!("{plain}2"))));
        assert!(same_dataset(
            &u("s3://bucket/a/ds.zarr"),
            &u("https://bucket.s3.eu-west-1.amazonaws.com/a/ds.zarr")
        ));
        assert!(!same_dataset(&u("s3://bucket/a"), &u("s3://bucket/b")));
        assert!(!same_dataset(&u("s3://bucket/a"), &u(&plain)));
        assert!(same_dataset(
            &u("gs://b/a/ds.zarr"),
            &u("https://storage.googleapis.com/b/a/ds.zarr/")
        ));
        assert!(same_dataset(
            &u("az://c/a/ds.zarr"),
            &u("abfss://c@acct.dfs.core.windows.net/a/ds.zarr")
        ));
        assert!(!same_dataset(
            &u("https://one.blob.core.windows.net/c/a"),
            &u("https://two.blob.core.windows.net/c/a")
        ));
        assert!(!same_dataset(&u("az://c/a"), &u("az://c/b")));
    }
}
