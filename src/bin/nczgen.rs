//! nczgen: compile CDL text into an NCZarr or Zarr v2 dataset, like `ncgen -4 -lb`.

use std::io;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _};
use clap::Parser;
use nczarr::cdl::CdlError;
use nczarr::generate::{CdlInput, GenError, GenOptions};
use nczarr::jobs::{GenerateEvents, GenerateJob, OutputKind};
use nczarr_tools::cli;
use nczarr_tools::cli::output::{KindFlags, LayoutArgs};

/// Compile CDL (netCDF's text form, as ncdump prints it and ncgen reads it) into an NCZarr,
/// pure Zarr v2 or Zarr v3 dataset in a directory, a zip file, or (with a URL) S3, GCS or
/// Azure, or a netCDF file. ncgen's own spelling (`-4 -lb -o URL`) works unchanged. An
/// existing dataset is replaced only with --overwrite (-O). Shell completions and a man page: --generate
/// completion=bash|zsh|fish|elvish|powershell, --generate man.
#[derive(Parser, Debug)]
#[command(name = "nczgen", version)]
struct Args {
    /// Output dataset: a directory, a .zip, a netCDF file (.nc), or a URL such as
    /// file:///d/x.file#mode=nczarr,file. Default: the CDL file's name (from standard
    /// input, its `netcdf` name) with .nc for -b, -lb or a netCDF file kind (as ncgen),
    /// else with .zarr.
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: Option<String>,
    /// Format: a netCDF file (ncgen's names and numbers: classic, nc6, cdf5, nc4, nc7; or
    /// 1..5), or nczarr, zarr (pure Zarr v2), zarr3 (Zarr v3). Default: for an output
    /// named .nc, .nc4, .cdf, .h5, .hdf5 or .netcdf a netCDF file, classic when the CDL fits it (as
    /// ncgen), else netCDF-4; otherwise nczarr. To a Zarr URL or .zarr name, the
    /// netCDF-4 and classic kinds mean nczarr (as netcdf-c).
    #[arg(short = 'k', long = "format", value_name = "KIND")]
    kind: Option<String>,
    /// Output language; only b (binary, i.e. a dataset) is produced.
    #[arg(short = 'l', value_name = "LANG")]
    lang: Option<String>,
    /// Same as -lb: a netCDF file (named from the CDL when -o is not given).
    #[arg(short = 'b')]
    binary: bool,
    #[command(flatten)]
    kind_flags: KindFlags,
    /// Use no fill values for all variables (ncgen -x).
    #[arg(short = 'x')]
    no_fill: bool,
    /// Header only: ignore the data section.
    #[arg(short = 'H')]
    header_only: bool,
    /// Replace a dataset already at the output (without it an existing dataset is
    /// refused and nothing is written). Directories, .zip and netCDF files are swapped
    /// only once the new dataset is complete; on S3, GCS or Azure the old objects are
    /// deleted then (not atomic: object stores cannot swap). -O is NCO's spelling.
    #[arg(short = 'O', long)]
    overwrite: bool,
    #[command(flatten)]
    layout: LayoutArgs,
    /// Data lists of at least this many bytes are streamed from the file (default
    /// 1 MiB); smaller ones are compiled in memory. For tests: 1 streams every list
    /// that can be.
    #[arg(long, hide = true, value_name = "BYTES")]
    stream_bytes: Option<u64>,
    /// The CDL file ('-' or nothing reads standard input).
    input: Option<String>,
}

fn located(file: &str, e: &CdlError) -> String {
    format!("{file}:{e}")
}

/// What nczgen prints of a generation as it goes.
struct Printed<'a> {
    file_label: &'a str,
}

impl GenerateEvents for Printed<'_> {
    fn cdl_warning(&mut self, w: &CdlError) {
        eprintln!(
            "nczgen: {}:{}:{}: warning: {}",
            self.file_label,
            w.line,
            w.column,
            cli::one_line(&w.message)
        );
    }

    fn output_warning(&mut self, output: &str, text: &str) {
        eprintln!("nczgen: {output}: warning: {text}");
    }
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(l) = &args.lang {
        if !matches!(l.as_str(), "b" | "binary") {
            bail!("-l {l}: only binary output (-lb) is produced; code generation is not supported");
        }
    }
    let said_kind = match args.kind.as_deref() {
        Some(k) => Some(OutputKind::parse(k)?),
        None => args.kind_flags.kind(),
    };
    let defaults = GenOptions::default();
    let mut create = args.layout.create_options()?;
    create.overwrite = args.overwrite;
    let job = GenerateJob {
        input: args.input.clone(),
        output: args.output.clone(),
        said_kind,
        binary: args.binary || args.lang.is_some(),
        create,
        no_fill: args.no_fill,
        options: GenOptions {
            header_only: args.header_only,
            stream_bytes: args.stream_bytes.unwrap_or(defaults.stream_bytes),
            ..defaults
        },
    };
    let file_label = job.input_label();
    let input = match args.input.as_deref() {
        None | Some("-") => {
            CdlInput::read_all(&mut io::stdin().lock()).context("reading standard input")?
        }
        Some(path) => {
            CdlInput::open(std::path::Path::new(path)).with_context(|| path.to_string())?
        }
    };
    let (name, result) = job.run(
        &input,
        &mut Printed {
            file_label: &file_label,
        },
    );
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(GenError::Cdl(e)) => Err(anyhow!(located(&file_label, &e))),
        Err(GenError::Read(e)) => Err(anyhow!(e).context(file_label)),
        Err(GenError::Target(e)) => Err(anyhow!(e)),
        Err(e) => Err(anyhow!(e).context(name.unwrap_or(file_label))),
    }
}

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() -> ExitCode {
    cli::signals::stop_on_signals("nczgen");
    let args: Args = cli::about::parse("nczgen");
    cli::run("nczgen", || run(args))
}
