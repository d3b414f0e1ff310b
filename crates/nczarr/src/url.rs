//! Dataset names: plain paths and netcdf-c style URLs with a `#mode=...` fragment.
//!
//! Recognised forms:
//! - a plain path: a directory is a file store, a name ending in `.zip` a zip store;
//! - `file:///abs/path#mode=nczarr,file` (netcdf-c's spelling; `file://rel/x` is relative);
//! - `s3://bucket/key` (implies `mode=nczarr,s3`);
//! - `https://host/...` with `mode=...,s3`, or any `*.amazonaws.com` host;
//! - `gs://bucket/key`, `gcs://bucket/key`, `https://storage.googleapis.com/bucket/key`
//!   (Google Cloud Storage; with `mode=s3` or `gs3`, Google's S3 API instead);
//! - `az://container/key`, `abfs[s]://container@account.dfs.core.windows.net/key`,
//!   `https://account.blob.core.windows.net/container/key` (Azure Blob);
//! - any other `http(s)://` URL: a web server, read-only.
//!
//! The fragment is `key=value&key=value...`, keys case-insensitive; repeated keys merge
//! (`mode=zarr&mode=file` is `mode=zarr,file`), and a key without a value is one of
//! netcdf-c's macros (`#s3`, `#zarr`, `#xarray`, `#noxarray`). Mode flags then get
//! netcdf-c's inferences (`zarr` adds `nczarr`, `xarray` adds `zarr`, `noxarray` adds
//! `zarr` and removes `xarray`). Unknown mode flags are an error, not silently ignored.
//!
//! ```
//! use nczarr::url::{DatasetUrl, StorageKind};
//! let u = DatasetUrl::parse("file:///data/x.zarr#mode=zarr,file").unwrap();
//! assert_eq!(u.storage, StorageKind::Dir);
//! assert!(u.modes.pure_zarr());
//! let u = DatasetUrl::parse("s3://bucket/a/b.zarr").unwrap();
//! assert_eq!(u.storage, StorageKind::S3);
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a dataset name could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlError {
    /// A mode flag netcdf-c does not define.
    #[error("unknown mode flag '{flag}' (known: nczarr, zarr, xarray, noxarray, file, zip, s3, gs3, consolidated, v2, zarr3, v3, bytes, kerchunk, dap2, dap4, icechunk)")]
    UnknownMode {
        /// The flag as given.
        flag: String,
    },
    /// A mode netcdf-c defines but that is not about Zarr storage.
    #[error("mode '{flag}' is not one nczarr-tools reads (NCZarr, Zarr, netCDF files, OPeNDAP)")]
    UnsupportedMode {
        /// The flag as given.
        flag: String,
    },
    /// Two storage kinds requested at once.
    #[error("conflicting storage modes '{a}' and '{b}'")]
    ConflictingStorage {
        /// First kind.
        a: String,
        /// Second kind.
        b: String,
    },
    /// A URL scheme we do not handle.
    #[error("unsupported URL scheme '{scheme}' (use a path, file://, s3://, gs://, az://, abfs:// or https://)")]
    UnsupportedScheme {
        /// The scheme as given.
        scheme: String,
    },
    /// A URL that is not well formed.
    #[error("malformed URL: {reason}")]
    Malformed {
        /// What is wrong.
        reason: String,
    },
}

/// Where the dataset's bytes live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageKind {
    /// A directory tree (`mode=file`).
    Dir,
    /// A zip archive (`mode=zip`).
    Zip,
    /// An S3 (or S3-compatible) bucket (`mode=s3`, `mode=gs3`).
    S3,
    /// A Google Cloud Storage bucket (`gs://`, `gcs://`, `https://storage.googleapis.com/`).
    Gcs,
    /// An Azure Blob container (`az://`, `abfs[s]://`, `https://<account>.blob.core.windows.net/`).
    Azure,
    /// A web server (any other `http(s)://` URL), read-only: a Zarr dataset under the
    /// URL, or a netCDF file read by byte ranges.
    Http,
}

/// The location part of a dataset name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A local path (from a plain path or a `file://` URL).
    Path(PathBuf),
    /// A remote URL (`s3://`, `gs3://`, `gs://`, `gcs://`, `az://`, `abfs[s]://`,
    /// `http://`, `https://`).
    Remote {
        /// Lower-case scheme.
        scheme: String,
        /// Host with optional `:port` (for `s3://bucket/key` this is the bucket).
        host: String,
        /// Path after the host, percent-decoded, without a leading `/`.
        path: String,
    },
}

/// The set of mode flags after netcdf-c's inferences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModeSet {
    flags: Vec<String>,
}

impl ModeSet {
    /// True if `flag` is set.
    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    fn add(&mut self, flag: &str) -> bool {
        if self.has(flag) {
            false
        } else {
            self.flags.push(flag.to_string());
            true
        }
    }

    fn remove(&mut self, flag: &str) {
        self.flags.retain(|f| f != flag);
    }

    /// The flags in the order they were given or inferred.
    pub fn flags(&self) -> &[String] {
        &self.flags
    }

    /// True when the user asked for pure Zarr (`mode=zarr`, `xarray` or `noxarray`).
    pub fn pure_zarr(&self) -> bool {
        self.has("zarr")
    }

    /// True when the user asked for Zarr version 3 (`mode=zarr3` or `v3`).
    pub fn zarr3(&self) -> bool {
        self.has("zarr3")
    }

    /// False when `_ARRAY_DIMENSIONS` must be neither read nor written (`noxarray`).
    pub fn xarray_dims(&self) -> bool {
        !self.has("noxarray")
    }
}

/// A parsed dataset name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetUrl {
    /// The text the user gave.
    pub original: String,
    /// Where the bytes are.
    pub location: Location,
    /// Storage kind, given or inferred.
    pub storage: StorageKind,
    /// Mode flags after inference.
    pub modes: ModeSet,
    /// Other fragment keys (lower-cased) with their values, e.g. `aws.profile`, `log`.
    pub params: Vec<(String, String)>,
    /// True when the name was a URL (has a scheme), false for a plain path.
    pub is_url: bool,
    /// The query of a web URL (after `?`, before `#`): an OPeNDAP constraint
    /// expression (`tas[0:1:9]`), kept as given.
    pub query: Option<String>,
}

/// The OPeNDAP protocol a name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DapProtocol {
    /// DAP2: DDS, DAS and DODS answers.
    Dap2,
    /// DAP4: DMR and chunked DAP answers.
    Dap4,
}

/// Mode flags netcdf-c defines for NCZarr.
const ZARR_FLAGS: &[&str] = &[
    "nczarr",
    "zarr",
    "xarray",
    "noxarray",
    "file",
    "zip",
    "s3",
    "gs3",
    "consolidated",
    "v2",
    "bytes",
    "v3",
    "zarr3",
    "kerchunk",
    // Ours: an Icechunk repository.
    "icechunk",
];
/// Mode flags netcdf-c defines for OPeNDAP.
const DAP_FLAGS: &[&str] = &["dap2", "dap4"];
/// Mode flags netcdf-c defines for other dispatchers.
const OTHER_FLAGS: &[&str] = &["zoh"];

impl DatasetUrl {
    /// Parse a dataset name.
    ///
    /// # Errors
    /// [`UrlError`] for unknown or unsupported mode flags, conflicting storage modes,
    /// unsupported schemes and malformed URLs.
    pub fn parse(text: &str) -> Result<DatasetUrl, UrlError> {
        // netcdf-c's `[key=value]` prefixes (`[log][show=fetch]http://...`): the same
        // parameters as the fragment's.
        let (prefixes, text_after) = split_prefixes(text)?;
        let (before, fragment) = match text_after.find('#') {
            Some(i) if has_scheme(text_after) || fragment_of_path(text_after, i) => {
                (&text_after[..i], Some(&text_after[i + 1..]))
            }
            _ => (text_after, None),
        };
        let query = has_scheme(before)
            .then(|| before.split_once('?').map(|(_, q)| q.to_string()))
            .flatten();
        let (mut location, is_url) = parse_location(before)?;
        let mut joined = prefixes.join("&");
        if let Some(f) = fragment.filter(|f| !f.is_empty()) {
            if !joined.is_empty() {
                joined.push('&');
            }
            joined.push_str(f);
        }
        let (mut modes, params) = parse_fragment(&joined)?;
        // `dods://` and `dap4://` are http with the protocol said (netcdf-c's rule).
        if let Location::Remote { scheme, .. } = &mut location {
            match scheme.as_str() {
                "dods" => {
                    *scheme = "http".into();
                    modes.add("dap2");
                }
                "dap4" => {
                    *scheme = "http".into();
                    modes.add("dap4");
                }
                _ => {}
            }
        }
        if let Some(p) = params.iter().find(|(k, _)| k == "protocol") {
            match p.1.to_ascii_lowercase().as_str() {
                "dap4" => {
                    modes.add("dap4");
                }
                "dap2" | "dap" => {
                    modes.add("dap2");
                }
                other => {
                    return Err(UrlError::Malformed {
                        reason: format!("'#protocol={other}' is not one of dap2, dap4"),
                    })
                }
            }
        }
        if modes.has("dap2") && modes.has("dap4") {
            return Err(UrlError::ConflictingStorage {
                a: "dap2".into(),
                b: "dap4".into(),
            });
        }
        if let Location::Remote { scheme, host, .. } = &location {
            match scheme.as_str() {
                "s3" => {
                    modes.add("s3");
                    modes.add("nczarr");
                }
                "gs3" => {
                    modes.add("gs3");
                    modes.add("nczarr");
                }
                "gs" | "gcs" | "az" | "abfs" | "abfss" => {
                    modes.add("nczarr");
                }
                "http" | "https" => {
                    let h = host.split(':').next().unwrap_or("").to_ascii_lowercase();
                    if h.ends_with(".amazonaws.com") {
                        modes.add("s3");
                    }
                }
                _ => {}
            }
        }
        infer_modes(&mut modes);
        let storage = decide_storage(&modes, &location)?;
        if let Some(dap) = DAP_FLAGS.iter().find(|f| modes.has(f)) {
            // netcdf-c also reads a DAP2 answer saved in files (`file:///x` for
            // `x.dds`, `x.das`, `x.dods`).
            let web = matches!(&location, Location::Remote { scheme, .. } if scheme == "http" || scheme == "https");
            let file = matches!(&location, Location::Path(_)) && is_url;
            if !web && !file {
                return Err(UrlError::Malformed {
                    reason: format!(
                        "'#mode={dap}' names an OPeNDAP server: an http://, https:// or file:// URL"
                    ),
                });
            }
            if let Some(other) = ["nczarr", "s3", "gs3", "bytes", "kerchunk", "file", "zip"]
                .iter()
                .find(|f| modes.has(f))
            {
                return Err(UrlError::ConflictingStorage {
                    a: (*dap).to_string(),
                    b: (*other).to_string(),
                });
            }
        }
        if matches!(storage, StorageKind::Dir | StorageKind::Zip) {
            if let Location::Remote { scheme, .. } = &location {
                return Err(UrlError::Malformed {
                    reason: format!(
                        "a {scheme}:// dataset is remote; '#mode=file' and '#mode=zip' name local paths"
                    ),
                });
            }
        }
        Ok(DatasetUrl {
            original: text.to_string(),
            location,
            storage,
            modes,
            params,
            is_url,
            query,
        })
    }

    /// The OPeNDAP protocol the name asks for (`#mode=dap2`, `#dap4`, `dods://`,
    /// `dap4://`, `#protocol=dap4`), if it asks for one. A web URL that asks for none
    /// may still be one an OPeNDAP server answers (`open()` asks it).
    pub fn dap(&self) -> Option<DapProtocol> {
        if self.modes.has("dap4") {
            Some(DapProtocol::Dap4)
        } else if self.modes.has("dap2") {
            Some(DapProtocol::Dap2)
        } else {
            None
        }
    }

    /// The web URL without the query or the fragment (and without netcdf-c's
    /// `[key=value]` prefixes): what an OPeNDAP answer's suffix (`.dds`) is added to.
    pub fn web_base(&self) -> Option<String> {
        match &self.location {
            Location::Remote { scheme, host, .. } if scheme == "http" || scheme == "https" => {
                let (_, text) = split_prefixes(&self.original).ok()?;
                let text = text.split('#').next().unwrap_or(text);
                let text = text.split('?').next().unwrap_or(text);
                let rest = &text[text.find("://")? + 3..];
                Some(format!(
                    "{scheme}://{host}{}",
                    &rest[host.len().min(rest.len())..]
                ))
            }
            _ => None,
        }
    }

    /// The local path, for directory and zip stores.
    pub fn path(&self) -> Option<&Path> {
        match &self.location {
            Location::Path(p) => Some(p),
            Location::Remote { .. } => None,
        }
    }

    /// The value of fragment key `key` (lower-case), if given.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The dataset's base name as ncdump derives it: last path segment without its
    /// last extension (`g1.file` gives `g1`, `zp.zarr` gives `zp`).
    pub fn base_name(&self) -> String {
        let last = match &self.location {
            Location::Path(p) => {
                let s = p.to_string_lossy().trim_end_matches('/').to_string();
                let last = s.rsplit('/').next().unwrap_or("").to_string();
                // `nczdump .` inside a store: the directory's own name, not "".
                if matches!(last.as_str(), "." | ".." | "") {
                    if let Some(name) = std::fs::canonicalize(p)
                        .ok()
                        .and_then(|c| c.file_name().map(|n| n.to_string_lossy().into_owned()))
                    {
                        return name.rsplit_once('.').map_or(name.clone(), |(stem, _)| {
                            if stem.is_empty() {
                                name.clone()
                            } else {
                                stem.to_string()
                            }
                        });
                    }
                }
                last
            }
            Location::Remote { host, path, .. } => {
                let p = path.trim_end_matches('/');
                if p.is_empty() {
                    host.clone()
                } else {
                    p.rsplit('/').next().unwrap_or("").to_string()
                }
            }
        };
        match last.rfind('.') {
            Some(i) => last[..i].to_string(),
            None => last,
        }
    }
}

/// The extensions that name a netCDF file (`x.nc`, `x.h5`): such a web URL is read
/// as a file, and such an output is written as one unless told otherwise. The one
/// list, for reading and writing alike.
pub const NETCDF_FILE_EXTENSIONS: [&str; 6] = ["nc", "nc4", "cdf", "h5", "hdf5", "netcdf"];

/// Whether the last segment of `name` (a path or URL, without its `#` fragment) ends
/// in one of [`NETCDF_FILE_EXTENSIONS`], in any case.
pub fn has_netcdf_extension(name: &str) -> bool {
    let name = name.split('#').next().unwrap_or("");
    name.rsplit('/')
        .next()
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(_, e)| {
            NETCDF_FILE_EXTENSIONS
                .iter()
                .any(|x| e.eq_ignore_ascii_case(x))
        })
}

impl fmt::Display for DatasetUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.original)
    }
}

/// netcdf-c's `[key=value]` (or `[key]`) prefixes of a URL, each as `key=value`, and
/// the text after them. A name that does not start with `[` has none.
fn split_prefixes(text: &str) -> Result<(Vec<String>, &str), UrlError> {
    let mut rest = text;
    let mut out = Vec::new();
    while let Some(inner) = rest.strip_prefix('[') {
        let end = inner.find(']').ok_or_else(|| UrlError::Malformed {
            reason: format!("'[' without ']' in '{text}'"),
        })?;
        let item = inner[..end].trim();
        if !item.is_empty() {
            out.push(item.to_string());
        }
        rest = &inner[end + 1..];
    }
    // A plain path may start with '[': prefixes are only taken before a URL.
    if !out.is_empty() && !has_scheme(rest) {
        return Ok((Vec::new(), text));
    }
    Ok((out, rest))
}

/// True when the `#` at `at` of the plain path `text` starts a fragment: the whole
/// name does not exist (a file name may hold a `#`; a name that exists whole is that
/// file), and either the path before it exists and what follows holds a `=`
/// (`x#branch=dev`), or what follows is only `mode=`, `branch=`, `tag=` or
/// `snapshot=` items (`new.ice#mode=icechunk`, a repository to make: without this
/// it would be made under the literal name).
fn fragment_of_path(text: &str, at: usize) -> bool {
    let (before, after) = (&text[..at], &text[at + 1..]);
    if before.is_empty() || Path::new(text).exists() {
        return false;
    }
    let only_known_keys = !after.is_empty()
        && after.split('&').all(|item| {
            item.split_once('=').is_some_and(|(k, v)| {
                !v.is_empty()
                    && ["mode", "branch", "tag", "snapshot"]
                        .iter()
                        .any(|known| k.eq_ignore_ascii_case(known))
            })
        });
    (Path::new(before).exists() && after.contains('=')) || only_known_keys
}

fn has_scheme(text: &str) -> bool {
    scheme_of(text).is_some()
}

fn scheme_of(text: &str) -> Option<&str> {
    let i = text.find("://")?;
    let scheme = &text[..i];
    let ok = !scheme.is_empty()
        && scheme.as_bytes()[0].is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    ok.then_some(scheme)
}

fn parse_location(text: &str) -> Result<(Location, bool), UrlError> {
    let Some(scheme) = scheme_of(text) else {
        if text.is_empty() {
            return Err(UrlError::Malformed {
                reason: "empty dataset name".into(),
            });
        }
        return Ok((Location::Path(PathBuf::from(text)), false));
    };
    let lower = scheme.to_ascii_lowercase();
    let rest = &text[scheme.len() + 3..];
    // Drop a query string: netcdf-c keeps it for DAP, Zarr stores have no use for it.
    let rest = rest.split('?').next().unwrap_or("");
    match lower.as_str() {
        "file" => {
            let (host, path) = match rest.find('/') {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            let path = percent_decode(path)?;
            let path = if host.is_empty() || host.eq_ignore_ascii_case("localhost") {
                path
            } else {
                // netcdf-c: file://rel/x is the relative path rel/x.
                format!("{}{}", percent_decode(host)?, path)
            };
            if path.is_empty() {
                return Err(UrlError::Malformed {
                    reason: "file URL without a path".into(),
                });
            }
            Ok((Location::Path(PathBuf::from(path)), true))
        }
        "s3" | "gs3" | "gs" | "gcs" | "az" | "abfs" | "abfss" | "http" | "https" | "dods"
        | "dap4" => {
            let (host, path) = match rest.find('/') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, ""),
            };
            if host.is_empty() {
                return Err(UrlError::Malformed {
                    reason: format!("{lower}:// URL without a host or bucket"),
                });
            }
            let path = percent_decode(path)?;
            Ok((
                Location::Remote {
                    scheme: lower,
                    host: host.to_string(),
                    path,
                },
                true,
            ))
        }
        _ => Err(UrlError::UnsupportedScheme {
            scheme: scheme.to_string(),
        }),
    }
}

fn percent_decode(s: &str) -> Result<String, UrlError> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| UrlError::Malformed {
                    reason: format!("bad percent escape in '{s}'"),
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| UrlError::Malformed {
        reason: format!("'{s}' is not UTF-8"),
    })
}

fn parse_fragment(fragment: &str) -> Result<(ModeSet, Vec<(String, String)>), UrlError> {
    let mut modes = ModeSet::default();
    let mut params: Vec<(String, String)> = Vec::new();
    for item in fragment.split('&').filter(|s| !s.is_empty()) {
        let (key, value) = match item.find('=') {
            Some(i) => (item[..i].to_ascii_lowercase(), Some(&item[i + 1..])),
            None => (item.to_ascii_lowercase(), None),
        };
        match (key.as_str(), value) {
            ("mode", Some(v)) => {
                for flag in v.split(',').map(str::trim).filter(|f| !f.is_empty()) {
                    let flag = flag.to_ascii_lowercase();
                    if DAP_FLAGS.contains(&flag.as_str()) {
                        modes.add(&flag);
                        continue;
                    }
                    if OTHER_FLAGS.contains(&flag.as_str()) {
                        return Err(UrlError::UnsupportedMode { flag });
                    }
                    if !ZARR_FLAGS.contains(&flag.as_str()) {
                        return Err(UrlError::UnknownMode { flag });
                    }
                    modes.add(&flag);
                }
            }
            // netcdf-c's singleton macros.
            (m, None) if DAP_FLAGS.contains(&m) => {
                modes.add(m);
            }
            (m, None) if ZARR_FLAGS.contains(&m) || OTHER_FLAGS.contains(&m) => {
                if OTHER_FLAGS.contains(&m) {
                    return Err(UrlError::UnsupportedMode {
                        flag: m.to_string(),
                    });
                }
                match m {
                    "s3" | "gs3" => {
                        modes.add(m);
                        modes.add("nczarr");
                    }
                    "xarray" => {
                        modes.add("zarr");
                    }
                    "noxarray" => {
                        modes.add("nczarr");
                        modes.add("noxarray");
                    }
                    "zarr" => {
                        modes.add("nczarr");
                        modes.add("zarr");
                    }
                    other => {
                        modes.add(other);
                    }
                }
            }
            (k, v) => {
                let v = v.unwrap_or("").to_string();
                match params.iter_mut().find(|(pk, _)| pk == k) {
                    Some(slot) => {
                        slot.1.push(',');
                        slot.1.push_str(&v);
                    }
                    None => params.push((k.to_string(), v)),
                }
            }
        }
    }
    Ok((modes, params))
}

fn infer_modes(modes: &mut ModeSet) {
    loop {
        let mut changed = false;
        if modes.has("zarr") {
            changed |= modes.add("nczarr");
        }
        if modes.has("xarray") {
            changed |= modes.add("zarr");
        }
        if modes.has("noxarray") {
            changed |= modes.add("nczarr");
            changed |= modes.add("zarr");
        }
        // Zarr version 3 (`v3` is its short name): pure Zarr in netcdf-c's terms.
        if modes.has("v3") {
            changed |= modes.add("zarr3");
        }
        if modes.has("zarr3") {
            changed |= modes.add("nczarr");
        }
        if !changed {
            break;
        }
    }
    if modes.has("noxarray") {
        modes.remove("xarray");
    }
}

fn decide_storage(modes: &ModeSet, location: &Location) -> Result<StorageKind, UrlError> {
    let mut chosen: Option<(&str, StorageKind)> = None;
    for (flag, kind) in [
        ("file", StorageKind::Dir),
        ("zip", StorageKind::Zip),
        ("s3", StorageKind::S3),
        ("gs3", StorageKind::S3),
    ] {
        if modes.has(flag) {
            match chosen {
                Some((a, k)) if k != kind => {
                    return Err(UrlError::ConflictingStorage {
                        a: a.to_string(),
                        b: flag.to_string(),
                    });
                }
                _ => chosen = Some((flag, kind)),
            }
        }
    }
    if let Some((_, kind)) = chosen {
        return Ok(kind);
    }
    Ok(match location {
        Location::Path(p) if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip")) => StorageKind::Zip,
        Location::Path(_) => StorageKind::Dir,
        Location::Remote { scheme, host, .. } => match scheme.as_str() {
            "gs" | "gcs" => StorageKind::Gcs,
            "az" | "abfs" | "abfss" => StorageKind::Azure,
            "http" | "https" => {
                let h = host.split(':').next().unwrap_or("").to_ascii_lowercase();
                if h == "storage.googleapis.com" {
                    StorageKind::Gcs
                } else if h.ends_with(".blob.core.windows.net") || h.ends_with(".dfs.core.windows.net")
                {
                    StorageKind::Azure
                } else {
                    StorageKind::Http
                }
            }
            _ => {
                return Err(UrlError::Malformed {
                    reason: format!(
                        "a {scheme}:// dataset must be on S3; add '#mode=nczarr,s3' for an S3-compatible server"
                    ),
                })
            }
        },
    })
}

#[cfg(test)]
mod tests;
