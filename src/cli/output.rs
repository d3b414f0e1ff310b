//! What nczgen and nczcopy share about the dataset they write: the kind flags
//! (`-3`...`-7`) and the layout options, turned into the library's [`OutputKind`] and
//! [`CreateOptions`].

use anyhow::bail;
use clap::{Args, ValueEnum};
use nczarr::formats::zarr::{CharDtype, Layout, ScalarShape, WriteOptions};
use nczarr::formats::NcFileKind;
use nczarr::jobs::OutputKind;
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

impl LayoutArgs {
    /// The library's options for writing, before the output's kind is applied
    /// ([`OutputKind::apply`]).
    ///
    /// # Errors
    /// A `--shards` spec that cannot be parsed.
    pub fn create_options(&self) -> anyhow::Result<CreateOptions> {
        let shards = match &self.shards {
            Some(spec) => parse_shards(spec)?,
            None => Vec::new(),
        };
        Ok(CreateOptions {
            zarr: WriteOptions {
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
            netcdf: None,
            icechunk: false,
            commit: nczarr::place::icechunk::CommitInfo::default(),
            nc_properties: None,
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
