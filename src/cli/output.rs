//! What nczgen and nczcopy share about the dataset they write: the output kind (`-k`)
//! and the layout options, turned into the library's [`CreateOptions`].

use anyhow::bail;
use clap::{Args, ValueEnum};
use nczarr::formats::zarr::{CharDtype, Layout, ScalarShape, WriteOptions};
use nczarr::place::ZipLayout;
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

/// ncgen's and nccopy's kind names: `true` for pure Zarr, `false` for NCZarr (every
/// netCDF-4 name, and the classic ones, as netcdf-c writes an NCZarr URL whatever the
/// kind); the 64-bit formats cannot be NCZarr.
///
/// # Errors
/// A kind NCZarr cannot be, or an unknown one.
pub fn output_kind(kind: &str) -> anyhow::Result<OutputKind> {
    Ok(if pure_for_kind(kind)? {
        OutputKind::Zarr
    } else if matches!(
        kind.to_ascii_lowercase().as_str(),
        "zarr3" | "v3" | "zarr-v3"
    ) {
        OutputKind::Zarr3
    } else {
        OutputKind::Nczarr
    })
}

fn pure_for_kind(kind: &str) -> anyhow::Result<bool> {
    match kind.to_ascii_lowercase().as_str() {
        "nczarr" | "zarr3" | "v3" | "zarr-v3" => Ok(false),
        "zarr" | "zarr2" => Ok(true),
        "netcdf-4"
        | "nc4"
        | "3"
        | "netcdf4"
        | "hdf5"
        | "enhanced"
        | "classic"
        | "nc3"
        | "1"
        | "netcdf-4 classic model"
        | "nc7"
        | "4"
        | "netcdf-4-classic"
        | "netcdf-4_classic"
        | "netcdf4_classic"
        | "hdf5-nc3"
        | "enhanced-nc3" => Ok(false),
        "64-bit offset" | "nc6" | "2" | "64-bit-offset" | "5" | "64-bit-data" | "64-bit data"
        | "nc5" | "cdf5" | "cdf-5" => {
            bail!("format '{kind}' cannot be stored as NCZarr (use nczarr, zarr or zarr3)")
        }
        other => bail!("unknown format kind '{other}' (use nczarr, zarr or zarr3)"),
    }
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
