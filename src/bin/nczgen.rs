//! nczgen: compile CDL text into an NCZarr or Zarr v2 dataset, like `ncgen -4 -lb`.

use std::io;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _};
use clap::Parser;
use nczarr::cdl::{CdlError, Compiled};
use nczarr::copy::plan;
use nczarr::create;
use nczarr::encoding::{Plan, PlanOptions};
use nczarr::formats::NcFileKind;
use nczarr::generate::{generate, CdlInput, GenError, GenOptions, GenTarget};
use nczarr::sink::DatasetSink;
use nczarr_tools::cli;
use nczarr_tools::cli::output::{kind_for_target, output_kind, KindFlags, LayoutArgs};

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
    /// named .nc, .nc4, .cdf or .h5 a netCDF file, classic when the CDL fits it (as
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

/// Where nczgen's dataset goes: named by the arguments (or the CDL's name), stored
/// as they say.
struct Output<'a> {
    args: &'a Args,
    /// The kind `-k` or `-3`... said.
    said: Option<cli::output::OutputKind>,
    file_label: &'a str,
    /// Once known.
    name: Option<String>,
}

impl GenTarget for Output<'_> {
    fn warnings(&mut self, warnings: Vec<CdlError>) {
        for w in warnings {
            eprintln!(
                "nczgen: {}:{}:{}: warning: {}",
                self.file_label,
                w.line,
                w.column,
                cli::one_line(&w.message)
            );
        }
    }

    fn open(
        &mut self,
        compiled: &mut Compiled,
    ) -> Result<(Box<dyn DatasetSink>, Plan), Box<dyn std::error::Error + Send + Sync>> {
        let args = self.args;
        let output = args
            .output
            .clone()
            .unwrap_or_else(|| self.default_name(compiled));
        self.name = Some(output.clone());
        let kind = kind_for_target(
            self.said,
            &output,
            || {
                if nczarr::formats::nc3::fits(
                    &compiled.dataset,
                    nczarr::formats::nc3::Version::Classic,
                ) {
                    NcFileKind::Classic
                } else {
                    NcFileKind::Netcdf4
                }
            },
            cli::output::OutputKind::Nczarr,
        )?;
        let made_atomic = match kind {
            cli::output::OutputKind::File(NcFileKind::Netcdf4) => Vec::new(),
            _ => self.atomic_types(compiled)?,
        };
        let plan_options = PlanOptions {
            no_fill: args.no_fill,
            netcdf4: matches!(kind, cli::output::OutputKind::File(k) if k.is_netcdf4()),
            ..PlanOptions::default()
        };
        let mut plan =
            plan(compiled, &plan_options).with_context(|| self.file_label.to_string())?;
        let mut create_options = args.layout.create_options(kind)?;
        create_options.overwrite = args.overwrite;
        let sink = create(&output, &create_options).with_context(|| output.clone())?;
        for w in sink
            .prepare(&compiled.dataset, &mut plan)
            .with_context(|| output.clone())?
            .into_iter()
            .chain(made_atomic)
        {
            eprintln!("nczgen: {output}: warning: {w}");
        }
        Ok((sink, plan))
    }
}

impl Output<'_> {
    /// The output's name when `-o` is not given: the CDL file's name (from standard
    /// input, the CDL's `netcdf` name), as ncgen 4.9 names it, with `.nc` when a
    /// netCDF file is asked for (`-b`, `-lb`, or a file kind with `-k`/`-3`...), else
    /// `.zarr` (an NCZarr dataset).
    fn default_name(&self, compiled: &Compiled) -> String {
        let args = self.args;
        let wants_file = matches!(self.said, Some(cli::output::OutputKind::File(_)))
            || (self.said.is_none() && (args.binary || args.lang.is_some()));
        let stem = match args.input.as_deref() {
            None | Some("-") => None,
            Some(p) => std::path::Path::new(p).file_stem(),
        };
        let stem = stem.map_or(compiled.name.clone(), |s| s.to_string_lossy().into_owned());
        format!("{stem}.{}", if wants_file { "nc" } else { "zarr" })
    }

    /// The dataset as an output without user-defined types holds it (only netCDF-4
    /// files have them): an enum variable becomes its base type with CF's flag
    /// attributes, which the warnings returned say; the other kinds are refused.
    fn atomic_types(&self, compiled: &mut Compiled) -> anyhow::Result<Vec<String>> {
        if !compiled.dataset.has_user_types() {
            return Ok(Vec::new());
        }
        let (atomic, losses) = nczarr::model::user::written_view(&compiled.dataset, false);
        if let Some(first) = losses.first() {
            bail!("{}: {first} (write it with -k nc4)", self.file_label);
        }
        let warnings = compiled
            .dataset
            .vars()
            .into_iter()
            .filter_map(|(path, var)| {
                let id = var.user_type.as_ref()?;
                Some(format!(
                    "variable '{path}' of the enum type {id} is written as {} with flag_values and flag_meanings: only netCDF-4 files hold enum types",
                    var.nc_type
                ))
            })
            .collect();
        compiled.dataset = atomic;
        Ok(warnings)
    }
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(l) = &args.lang {
        if !matches!(l.as_str(), "b" | "binary") {
            bail!("-l {l}: only binary output (-lb) is produced; code generation is not supported");
        }
    }
    let (file_label, input) = match args.input.as_deref() {
        None | Some("-") => (
            "<stdin>".to_string(),
            CdlInput::read_all(&mut io::stdin().lock()).context("reading standard input")?,
        ),
        Some(path) => (
            path.to_string(),
            CdlInput::open(std::path::Path::new(path)).with_context(|| path.to_string())?,
        ),
    };
    let said = match args.kind.as_deref() {
        Some(k) => Some(output_kind(k)?),
        None => args.kind_flags.kind(),
    };
    let defaults = GenOptions::default();
    let options = GenOptions {
        header_only: args.header_only,
        stream_bytes: args.stream_bytes.unwrap_or(defaults.stream_bytes),
        ..defaults
    };
    let mut output = Output {
        args: &args,
        said,
        file_label: &file_label,
        name: None,
    };
    match generate(&input, &options, &mut output) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(GenError::Cdl(e)) => Err(anyhow!(located(&file_label, &e))),
        Err(GenError::Read(e)) => Err(anyhow!(e).context(file_label)),
        Err(GenError::Target(e)) => Err(anyhow!(e)),
        Err(e) => Err(anyhow!(e).context(output.name.unwrap_or(file_label))),
    }
}

fn main() -> ExitCode {
    cli::signals::stop_on_signals("nczgen");
    let args: Args = cli::about::parse("nczgen");
    cli::run("nczgen", || run(args))
}
