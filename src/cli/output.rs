//! What nczgen and nczcopy share about the dataset they write: the output kind (`-k`)
//! and the layout options, turned into the library's [`CreateOptions`].

use anyhow::bail;
use clap::{Args, ValueEnum};
use nczarr::formats::zarr::{CharDtype, Layout, ScalarShape, WriteOptions};
use nczarr::formats::NcFileKind;
use nczarr::place::ZipLayout;
use nczarr::url::{DatasetUrl, StorageKind};
use nczarr::CreateOptions;

/// Layout choices for the datasets nczgen and nczcopy write (`docs/layout.md`).
#[derive(Args, Debug, Clone)]
pub struct LayoutArgs {
    /// How char variables are typed: zarr (|S1, readable by zarr-python/xarray) or netcdf (>S1,
    /// netcdf-c's marking).
    #[arg(long, value_enum, default_value_t = CharMode::Zarr)]
    pub char_dtype: CharMode,
    /// How scalars are stored in NCZarr: one (shape `[1]`, netcdf-c) or 0d (shape `[]`, Zarr).
    #[arg(long, value_enum, default_value_t = ScalarMode::One)]
    pub scalar: ScalarMode,
    /// NCZarr metadata generation: current (netcdf-c 4.9.3+/4.10; read by netcdf-c 4.10,
    /// zarr-python and xarray) or 4.9.0 (for ncdump/ncgen 4.9.0, which crash on the current
    /// layout's char, string and scalar arrays; no strings, no unlimited dimensions).
    #[arg(long, value_enum, default_value_t = LayoutMode::Current)]
    pub nczarr_layout: LayoutMode,
    /// Zip layout: root (keys at the archive root, zarr-python) or dir (one top-level
    /// directory named after the file, netcdf-c).
    #[arg(long, value_enum, default_value_t = ZipMode::Root)]
    pub zip_layout: ZipMode,
    /// Chunk key separator of Zarr v2 output: . or / (Zarr v3 output uses v3's default
    /// keys, c/0/1).
    #[arg(long, default_value = ".")]
    pub separator: char,
    /// Zarr v3 shards, like -c: dim/len,... gives each shard `len` (rounded up to whole
    /// chunks) along `dim`; other dimensions have one chunk per shard (needs -k zarr3).
    #[arg(long, value_name = "SPEC")]
    pub shards: Option<String>,
}

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
}

/// `--char-dtype`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CharMode {
    /// `|S1`.
    Zarr,
    /// `>S1`.
    Netcdf,
}

/// `--scalar`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScalarMode {
    /// Shape `[1]`.
    One,
    /// Shape `[]`.
    #[value(name = "0d")]
    ZeroD,
}

/// `--nczarr-layout`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LayoutMode {
    /// netcdf-c 4.9.3+/4.10.
    Current,
    /// netcdf-c 4.9.0.
    #[value(name = "4.9.0")]
    V490,
}

/// `--zip-layout`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ZipMode {
    /// Keys at the archive root.
    Root,
    /// Keys under one top-level directory.
    Dir,
}

/// ncgen's and nccopy's kind names and numbers, and ours (`nczarr`, `zarr`, `zarr3`).
///
/// # Errors
/// An unknown kind.
pub fn output_kind(kind: &str) -> anyhow::Result<OutputKind> {
    Ok(match kind.to_ascii_lowercase().as_str() {
        "nczarr" => OutputKind::Nczarr,
        "zarr" | "zarr2" => OutputKind::Zarr,
        "zarr3" | "v3" | "zarr-v3" => OutputKind::Zarr3,
        "classic" | "nc3" | "1" => OutputKind::File(NcFileKind::Classic),
        "64-bit offset" | "64-bit-offset" | "nc6" | "2" => OutputKind::File(NcFileKind::Offset64),
        "cdf5" | "cdf-5" | "nc5" | "5" | "64-bit data" | "64-bit-data" => {
            OutputKind::File(NcFileKind::Cdf5)
        }
        "netcdf-4" | "netcdf4" | "nc4" | "3" | "hdf5" | "enhanced" => {
            OutputKind::File(NcFileKind::Netcdf4)
        }
        "netcdf-4 classic model" | "netcdf-4-classic" | "netcdf-4_classic"
        | "netcdf4_classic" | "nc7" | "4" | "hdf5-nc3" | "enhanced-nc3" => {
            OutputKind::File(NcFileKind::Netcdf4Classic)
        }
        other => bail!(
            "unknown format kind '{other}' (use classic, nc6, cdf5, nc4, nc7, nczarr, zarr or zarr3)"
        ),
    })
}

/// ncgen's and nccopy's kind flags, `-3 -4 -5 -6 -7`: one each for `-k`'s numbered
/// kinds, shared by nczgen and nczcopy.
#[derive(Args, Debug, Clone, Default)]
pub struct KindFlags {
    /// -k classic.
    #[arg(short = '3')]
    pub classic: bool,
    /// -k nc4.
    #[arg(short = '4')]
    pub nc4: bool,
    /// -k cdf5.
    #[arg(short = '5')]
    pub cdf5: bool,
    /// -k nc6 (64-bit offset).
    #[arg(short = '6')]
    pub offset64: bool,
    /// -k nc7 (netCDF-4 classic model).
    #[arg(short = '7')]
    pub nc4_classic: bool,
}

impl KindFlags {
    /// The kind the first flag given says, if any.
    pub fn kind(&self) -> Option<OutputKind> {
        let flags = [
            (self.classic, NcFileKind::Classic),
            (self.nc4, NcFileKind::Netcdf4),
            (self.cdf5, NcFileKind::Cdf5),
            (self.offset64, NcFileKind::Offset64),
            (self.nc4_classic, NcFileKind::Netcdf4Classic),
        ];
        flags
            .into_iter()
            .find(|(on, _)| *on)
            .map(|(_, k)| OutputKind::File(k))
    }
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
        || (url.storage != StorageKind::Dir && !file_like_name(url))
}

/// Whether `target`'s name ends like a netCDF file's: `.nc`, `.nc4`, `.cdf` or `.h5`.
fn file_like_name(url: &DatasetUrl) -> bool {
    let name = url
        .original
        .split('#')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    [".nc", ".nc4", ".cdf", ".h5"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// Whether `target` is named as a netCDF file: a path or object name ending like one.
fn names_netcdf_file(url: &DatasetUrl) -> bool {
    !names_zarr(url) && file_like_name(url)
}

/// What is written at `target`: the kind `said` (`-k`, `-3`...), where a Zarr target
/// turns netCDF-4 and classic kinds into NCZarr (as netcdf-c does for an NCZarr URL);
/// unsaid, a netCDF file of kind `file_default()` for a target named as one, else
/// `default`.
///
/// # Errors
/// A 64-bit kind for a Zarr target (NCZarr cannot be one), a target that does not parse.
pub fn kind_for_target(
    said: Option<OutputKind>,
    target: &str,
    file_default: impl FnOnce() -> NcFileKind,
    default: OutputKind,
) -> anyhow::Result<OutputKind> {
    let url = DatasetUrl::parse(target)?;
    Ok(match said {
        Some(OutputKind::File(k)) if names_zarr(&url) => match k {
            NcFileKind::Offset64 | NcFileKind::Cdf5 => bail!(
                "format '{}' cannot be stored as NCZarr (use nczarr, zarr or zarr3, or write a file: {}.nc)",
                k.name(),
                url.base_name()
            ),
            _ => OutputKind::Nczarr,
        },
        Some(kind) => kind,
        None if names_netcdf_file(&url) => OutputKind::File(file_default()),
        None => default,
    })
}

impl LayoutArgs {
    /// The library's options for writing, pure Zarr or NCZarr.
    ///
    /// # Errors
    /// A `--shards` spec that cannot be parsed.
    pub fn create_options(&self, kind: OutputKind) -> anyhow::Result<CreateOptions> {
        let shards = match &self.shards {
            Some(spec) => parse_shards(spec)?,
            None => Vec::new(),
        };
        Ok(CreateOptions {
            zarr: WriteOptions {
                pure_zarr: kind == OutputKind::Zarr,
                zarr3: kind == OutputKind::Zarr3,
                shards,
                char_dtype: match self.char_dtype {
                    CharMode::Zarr => CharDtype::Zarr,
                    CharMode::Netcdf => CharDtype::Netcdf,
                },
                scalar_shape: match self.scalar {
                    ScalarMode::One => ScalarShape::One,
                    ScalarMode::ZeroD => ScalarShape::ZeroD,
                },
                separator: self.separator,
                layout: match self.nczarr_layout {
                    LayoutMode::Current => Layout::Current,
                    LayoutMode::V490 => Layout::Netcdf490,
                },
                ..WriteOptions::default()
            },
            zip_layout: match self.zip_layout {
                ZipMode::Root => ZipLayout::Root,
                ZipMode::Dir => ZipLayout::TopDirectory,
            },
            overwrite: false,
            offer_append: false,
            netcdf: match kind {
                OutputKind::File(k) => Some(k),
                _ => None,
            },
        })
    }
}

/// `--shards dim/len,...`: `-c`'s per-dimension syntax (escaped commas, C integers),
/// each length given.
fn parse_shards(spec: &str) -> anyhow::Result<Vec<(String, u64)>> {
    nczarr::copy::chunkspec::dim_lengths(spec, "shard")
        .map_err(|e| anyhow::anyhow!("--shards '{}': {} (e.g. time/73)", e.spec, e.reason))?
        .into_iter()
        .map(|(dim, len)| match len {
            Some(n) => Ok((dim, n)),
            None => bail!("--shards '{spec}': '{dim}/' gives no length (e.g. {dim}/73)"),
        })
        .collect()
}
