//! What kind of dataset a writing job makes ([`OutputKind`]): `-k`'s names and
//! numbers (ncgen's, nccopy's and ours), and the kind decided when `-k` is silent, from
//! the output's name and what is written (nczgen and nczcopy decide it here, alike).

use crate::error::JobError;
use crate::formats::NcFileKind;
use crate::open::CreateOptions;
use crate::source::FormatInfo;
use crate::url::{has_netcdf_extension, DatasetUrl, StorageKind};

/// What kind of dataset is written (`-k` / `--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// NCZarr (Zarr v2 with netCDF metadata).
    Nczarr,
    /// Pure Zarr version 2.
    Zarr,
    /// Zarr version 3.
    Zarr3,
    /// A netCDF file.
    File(NcFileKind),
    /// An Icechunk repository (Zarr version 3, committed as a snapshot).
    Icechunk,
}

impl OutputKind {
    /// ncgen's and nccopy's kind names and numbers, and ours (`nczarr`, `zarr`,
    /// `zarr3`), in any case.
    ///
    /// # Errors
    /// [`JobError::UnknownKind`].
    pub fn parse(kind: &str) -> Result<OutputKind, JobError> {
        Ok(match kind.to_ascii_lowercase().as_str() {
            "nczarr" => OutputKind::Nczarr,
            "zarr" | "zarr2" => OutputKind::Zarr,
            "zarr3" | "v3" | "zarr-v3" => OutputKind::Zarr3,
            "icechunk" => OutputKind::Icechunk,
            "classic" | "nc3" | "1" => OutputKind::File(NcFileKind::Classic),
            "64-bit offset" | "64-bit-offset" | "nc6" | "2" => {
                OutputKind::File(NcFileKind::Offset64)
            }
            "cdf5" | "cdf-5" | "nc5" | "5" | "64-bit data" | "64-bit-data" => {
                OutputKind::File(NcFileKind::Cdf5)
            }
            "netcdf-4" | "netcdf4" | "nc4" | "3" | "hdf5" | "enhanced" => {
                OutputKind::File(NcFileKind::Netcdf4)
            }
            "netcdf-4 classic model"
            | "netcdf-4-classic"
            | "netcdf-4_classic"
            | "netcdf4_classic"
            | "nc7"
            | "4"
            | "hdf5-nc3"
            | "enhanced-nc3" => OutputKind::File(NcFileKind::Netcdf4Classic),
            other => {
                return Err(JobError::UnknownKind {
                    kind: other.to_string(),
                })
            }
        })
    }

    /// The kind's netCDF file kind, for a file.
    pub fn file(self) -> Option<NcFileKind> {
        match self {
            OutputKind::File(k) => Some(k),
            _ => None,
        }
    }

    /// Whether the kind is a netCDF-4 file (of either model).
    pub fn is_netcdf4_file(self) -> bool {
        self.file().is_some_and(NcFileKind::is_netcdf4)
    }

    /// `options` set for this kind: pure Zarr v2, Zarr v3, or a netCDF file.
    pub fn apply(self, options: &mut CreateOptions) {
        options.zarr.pure_zarr = self == OutputKind::Zarr;
        options.zarr.zarr3 = matches!(self, OutputKind::Zarr3 | OutputKind::Icechunk);
        options.netcdf = self.file();
        options.icechunk = self == OutputKind::Icechunk;
    }
}

/// True when `output` is (or is to be) an Icechunk repository: the kind `said` is
/// `icechunk`, or the name says so (`#mode=icechunk`) or names a repository on a disk.
pub fn names_repository(said: Option<OutputKind>, output: &str) -> bool {
    said == Some(OutputKind::Icechunk)
        || DatasetUrl::parse(output).is_ok_and(|u| {
            u.modes.has("icechunk")
                || u.path()
                    .is_some_and(crate::place::icechunk::is_repository_dir)
        })
}

/// Whether `target` says it is a Zarr store: `#mode=` flags of NCZarr or Zarr, a
/// `.zip`, or a name ending in `.zarr`.
fn says_zarr(url: &DatasetUrl) -> bool {
    let zarr_modes = [
        "nczarr", "zarr", "zarr3", "v3", "v2", "xarray", "noxarray", "file", "zip",
    ];
    // The flags written in the name: a cloud URL gets `nczarr` implied, which says
    // nothing of what the user named.
    let fragment = url.original.split_once('#').map_or("", |(_, f)| f);
    let written = fragment
        .split(['&', ',', '='])
        .any(|w| zarr_modes.contains(&w.trim()));
    url.storage == StorageKind::Zip
        || (written && zarr_modes.iter().any(|m| url.modes.has(m)))
        || url
            .original
            .split('#')
            .next()
            .unwrap_or("")
            .trim_end_matches('/')
            .ends_with(".zarr")
}

/// Whether `target` names a Zarr store rather than a file: what says so (a mode, a
/// `.zarr` name, a zip), and an object-store name not ending like a file's.
fn names_zarr(url: &DatasetUrl) -> bool {
    url.storage == StorageKind::Zip
        || says_zarr(url)
        || (url.storage != StorageKind::Dir && !has_netcdf_extension(&url.original))
}

/// Whether `target` is named as a netCDF file: a path or object name ending like one.
fn names_netcdf_file(url: &DatasetUrl) -> bool {
    !names_zarr(url) && has_netcdf_extension(&url.original)
}

/// What is written at `target`: the kind `said` (`-k`, `-3`...), where a Zarr target
/// turns netCDF-4 and classic kinds into NCZarr (as netcdf-c does for an NCZarr URL);
/// unsaid, a netCDF file of kind `file_default()` for a target named as one, else
/// `default`.
///
/// # Errors
/// [`JobError::NotZarrKind`] for a 64-bit kind and a Zarr target (NCZarr cannot be
/// one); a target that does not parse.
pub fn kind_for_target(
    said: Option<OutputKind>,
    target: &str,
    file_default: impl FnOnce() -> NcFileKind,
    default: OutputKind,
) -> crate::Result<OutputKind> {
    let url = DatasetUrl::parse(target)?;
    // An Icechunk repository written to again, or named as one.
    let icechunk = url.modes.has("icechunk")
        || url
            .path()
            .is_some_and(crate::place::icechunk::is_repository_dir);
    Ok(match said {
        None if icechunk => OutputKind::Icechunk,
        Some(OutputKind::File(k)) if names_zarr(&url) => match k {
            NcFileKind::Offset64 | NcFileKind::Cdf5 => {
                return Err(JobError::NotZarrKind {
                    kind: k.name(),
                    base: url.base_name(),
                }
                .into())
            }
            _ => OutputKind::Nczarr,
        },
        Some(kind) => kind,
        None if names_netcdf_file(&url) => OutputKind::File(file_default()),
        None => default,
    })
}

/// The kind a copy writes when `-k` does not say, as nccopy keeps the input's kind: a
/// netCDF file of the input's kind (`format`) for an output named as a file (netCDF-4
/// for a Zarr input); else the input's Zarr version (v3 stays v3, the rest become
/// NCZarr).
///
/// # Errors
/// As [`kind_for_target`].
pub fn copy_kind(
    said: Option<OutputKind>,
    output: &str,
    format: &FormatInfo,
) -> crate::Result<OutputKind> {
    let zarr = match format.zarr_version {
        Some(3) => OutputKind::Zarr3,
        _ => OutputKind::Nczarr,
    };
    // A netCDF input's kind is what `-k`/ncdump call it (`FormatInfo::kind`).
    let file = || {
        [
            NcFileKind::Classic,
            NcFileKind::Offset64,
            NcFileKind::Cdf5,
            NcFileKind::Netcdf4Classic,
        ]
        .into_iter()
        .find(|k| k.name() == format.kind)
        .unwrap_or(NcFileKind::Netcdf4)
    };
    kind_for_target(said, output, file, zarr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers() {
        assert_eq!(
            OutputKind::parse("NC4").unwrap(),
            OutputKind::File(NcFileKind::Netcdf4)
        );
        assert_eq!(
            OutputKind::parse("2").unwrap(),
            OutputKind::File(NcFileKind::Offset64)
        );
        assert_eq!(OutputKind::parse("v3").unwrap(), OutputKind::Zarr3);
        let e = OutputKind::parse("nc9").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown format kind 'nc9' (use classic, nc6, cdf5, nc4, nc7, nczarr, zarr or zarr3)"
        );
    }

    #[test]
    fn a_target_named_as_a_file_is_one() {
        let nc4 = || NcFileKind::Netcdf4;
        let k = |said, t: &str| kind_for_target(said, t, nc4, OutputKind::Nczarr).unwrap();
        assert_eq!(k(None, "x.nc"), OutputKind::File(NcFileKind::Netcdf4));
        assert_eq!(k(None, "x.H5"), OutputKind::File(NcFileKind::Netcdf4));
        // One list with reading: what a URL is read as a file by is written as one.
        assert_eq!(k(None, "x.hdf5"), OutputKind::File(NcFileKind::Netcdf4));
        assert_eq!(
            k(None, "s3://b/x.netcdf"),
            OutputKind::File(NcFileKind::Netcdf4)
        );
        assert_eq!(k(None, "x.zarr"), OutputKind::Nczarr);
        assert_eq!(k(None, "x.nc.zip"), OutputKind::Nczarr);
        let classic = Some(OutputKind::File(NcFileKind::Classic));
        assert_eq!(k(classic, "x.zarr"), OutputKind::Nczarr);
        let e = kind_for_target(
            Some(OutputKind::File(NcFileKind::Cdf5)),
            "x.zarr",
            nc4,
            OutputKind::Nczarr,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("format 'cdf5' cannot be stored as NCZarr"),
            "{e}"
        );
    }
}
