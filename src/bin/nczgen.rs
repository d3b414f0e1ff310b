//! nczgen: compile CDL text into an NCZarr or Zarr v2 dataset, like `ncgen -4 -lb`.

use std::io::{self, Read};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _};
use clap::{Parser, ValueEnum};
use nczarr::cdl::{compile, parse, CdlError};
use nczarr::copy::{plan, write_dataset, CopyOptions};
use nczarr::encoding::PlanOptions;
use nczarr::nczarr::{CharDtype, Layout, ScalarShape, WriteOptions};
use nczarr::store::ZipLayout;
use nczarr::{create, CreateOptions};
use nczarr_tools::cli;

/// Compile CDL (netCDF's text form, as ncdump prints it and ncgen reads it) into an NCZarr
/// or pure Zarr v2 dataset in a directory, a zip file, or (with a URL) a store.
/// ncgen's own spelling (`-4 -lb -o URL`) works unchanged.
#[derive(Parser, Debug)]
#[command(name = "nczgen", version)]
struct Args {
    /// Output dataset: a directory, a .zip, or a URL such as file:///d/x.file#mode=nczarr,file
    /// (default: the CDL file's name with .zarr).
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: Option<String>,
    /// Format: nczarr (default) or zarr (pure Zarr); ncgen's netCDF-4 kind names mean nczarr.
    #[arg(short = 'k', value_name = "KIND")]
    kind: Option<String>,
    /// Output language; only b (binary, i.e. a dataset) is produced.
    #[arg(short = 'l', value_name = "LANG")]
    lang: Option<String>,
    /// Same as -lb.
    #[arg(short = 'b')]
    binary: bool,
    /// netCDF-4 format (accepted for ncgen compatibility: NCZarr is netCDF-4).
    #[arg(short = '4')]
    nc4: bool,
    /// netCDF classic (accepted: the dataset is NCZarr, as with netcdf-c).
    #[arg(short = '3')]
    classic: bool,
    /// netCDF-4 classic model (accepted: the dataset is NCZarr).
    #[arg(short = '7')]
    nc4_classic: bool,
    /// Use no fill values for all variables (ncgen -x).
    #[arg(short = 'x')]
    no_fill: bool,
    /// Header only: ignore the data section.
    #[arg(short = 'H')]
    header_only: bool,
    /// How char variables are typed: zarr (|S1, readable by zarr-python/xarray) or netcdf (>S1,
    /// netcdf-c's marking).
    #[arg(long, value_enum, default_value_t = CharMode::Zarr)]
    char_dtype: CharMode,
    /// How scalars are stored in NCZarr: one (shape `[1]`, netcdf-c) or 0d (shape `[]`, Zarr).
    #[arg(long, value_enum, default_value_t = ScalarMode::One)]
    scalar: ScalarMode,
    /// NCZarr metadata generation: current (netcdf-c 4.9.3+/4.10; read by netcdf-c 4.10,
    /// zarr-python and xarray) or 4.9.0 (for ncdump/ncgen 4.9.0, which crash on the current
    /// layout's char, string and scalar arrays; no strings, no unlimited dimensions).
    #[arg(long, value_enum, default_value_t = LayoutMode::Current)]
    nczarr_layout: LayoutMode,
    /// Zip layout: root (keys at the archive root, zarr-python) or dir (one top-level
    /// directory named after the file, netcdf-c).
    #[arg(long, value_enum, default_value_t = ZipMode::Root)]
    zip_layout: ZipMode,
    /// Chunk key separator: . or /.
    #[arg(long, default_value = ".")]
    separator: char,
    /// The CDL file ('-' or nothing reads standard input).
    input: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CharMode {
    Zarr,
    Netcdf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ScalarMode {
    One,
    #[value(name = "0d")]
    ZeroD,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LayoutMode {
    Current,
    #[value(name = "4.9.0")]
    V490,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ZipMode {
    Root,
    Dir,
}

/// ncgen's kind names that mean netCDF-4 (NCZarr), and the formats NCZarr cannot be.
fn pure_for_kind(kind: &str) -> anyhow::Result<bool> {
    match kind.to_ascii_lowercase().as_str() {
        "nczarr" => Ok(false),
        "zarr" => Ok(true),
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
            bail!("format '{kind}' cannot be stored as NCZarr (use nczarr or zarr)")
        }
        other => bail!("unknown format kind '{other}' (use nczarr or zarr)"),
    }
}

fn located(file: &str, e: &CdlError) -> String {
    format!("{file}:{e}")
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(l) = &args.lang {
        if !matches!(l.as_str(), "b" | "binary") {
            bail!("-l {l}: only binary output (-lb) is produced; code generation is not supported");
        }
    }
    let _ = (args.binary, args.nc4, args.classic, args.nc4_classic);
    let (file_label, text) = match args.input.as_deref() {
        None | Some("-") => {
            let mut s = String::new();
            io::stdin()
                .read_to_string(&mut s)
                .context("reading standard input")?;
            ("<stdin>".to_string(), s)
        }
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| path.to_string())?;
            let text = String::from_utf8(bytes).map_err(|e| {
                let offset = e.utf8_error().valid_up_to();
                let s = String::from_utf8_lossy(e.as_bytes());
                let (line, col) = nczarr::cdl::parse::line_col(&s, offset);
                anyhow!("{path}:{line}:{col}: the file is not valid UTF-8")
            })?;
            (path.to_string(), text)
        }
    };
    let ast = parse(&text).map_err(|e| anyhow!(located(&file_label, &e)))?;
    let mut compiled = compile(&text, &ast).map_err(|e| anyhow!(located(&file_label, &e)))?;
    // A large data section makes a syntax tree of millions of nodes; freeing it takes a
    // while and nothing needs it any more, so it is freed beside the writing.
    let freeing = std::thread::spawn(move || drop(ast));
    for w in &compiled.warnings {
        eprintln!(
            "nczgen: {file_label}:{}:{}: warning: {}",
            w.line,
            w.column,
            cli::one_line(&w.message)
        );
    }
    let output = args.output.clone().unwrap_or_else(|| {
        let stem = match args.input.as_deref() {
            None | Some("-") => None,
            Some(p) => std::path::Path::new(p).file_stem(),
        };
        let stem = stem.map_or(compiled.name.clone(), |s| s.to_string_lossy().into_owned());
        format!("{stem}.zarr")
    });
    let plan_options = PlanOptions {
        no_fill: args.no_fill,
        ..PlanOptions::default()
    };
    let mut plan = plan(&compiled, &plan_options).with_context(|| file_label.clone())?;
    if args.header_only {
        compiled.data.clear();
    }
    let sink = create(&output, &create_options(&args)?).with_context(|| output.clone())?;
    for w in sink
        .prepare(&compiled.dataset, &mut plan)
        .with_context(|| output.clone())?
    {
        eprintln!("nczgen: {output}: warning: {w}");
    }
    write_dataset(
        &compiled,
        &compiled.dataset,
        &plan,
        sink,
        &CopyOptions::default(),
    )
    .with_context(|| output.clone())?;
    let _ = freeing.join();
    Ok(ExitCode::SUCCESS)
}

/// The output's format and layout from `-k` and the layout options.
fn create_options(args: &Args) -> anyhow::Result<CreateOptions> {
    let pure_zarr = match &args.kind {
        Some(k) => pure_for_kind(k)?,
        None => false,
    };
    Ok(CreateOptions {
        zarr: WriteOptions {
            pure_zarr,
            char_dtype: match args.char_dtype {
                CharMode::Zarr => CharDtype::Zarr,
                CharMode::Netcdf => CharDtype::Netcdf,
            },
            scalar_shape: match args.scalar {
                ScalarMode::One => ScalarShape::One,
                ScalarMode::ZeroD => ScalarShape::ZeroD,
            },
            separator: args.separator,
            layout: match args.nczarr_layout {
                LayoutMode::Current => Layout::Current,
                LayoutMode::V490 => Layout::Netcdf490,
            },
            ..WriteOptions::default()
        },
        zip_layout: match args.zip_layout {
            ZipMode::Root => ZipLayout::Root,
            ZipMode::Dir => ZipLayout::TopDirectory,
        },
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    cli::run("nczgen", || run(args))
}
