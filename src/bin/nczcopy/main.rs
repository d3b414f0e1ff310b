//! nczcopy: copy a dataset to another store or format, like nccopy: convert, rechunk,
//! recompress, subset, in bounded memory.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use clap::Parser;
use nczarr::copy::{finish_parts, MemoryBudget, Part};
use nczarr::jobs::{
    copy_create_options, names_repository, parse_dims, CopyEvents, CopyJob, CopyOutcome,
    CopyRequest, CopyRun, InputOptions, OutputKind, Warning,
};
use nczarr::place::icechunk::CommitInfo;
use nczarr_tools::cli;
use nczarr_tools::cli::copy_args::{
    IcechunkArgs, JoinArgs, KerchunkArgs, MigrateArgs, NccopyArgs, SelectArgs, StorageArgs,
};
use nczarr_tools::cli::output::{KindFlags, LayoutArgs};
use nczarr_tools::cli::progress::{Bar, Show};

mod append;
mod kerchunk;

/// Copy a netCDF dataset (NCZarr, Zarr v2 or v3, or a netCDF file; on a directory, a
/// .zip, S3, GCS, Azure or a web server) to another place and format, changing its
/// chunking, compression and contents on the way, like nccopy. Memory stays under
/// --memory whatever the dataset's size; nccopy's -m, -h, -e, -r, -w and -x buffer and
/// cache options are accepted and have no effect. An existing dataset at OUTPUT is
/// replaced only with --overwrite (-O), grown with --append. Shell completions and a man page: --generate
/// completion=bash|zsh|fish|elvish|powershell, --generate man.
#[derive(Parser, Debug)]
#[command(
    name = "nczcopy",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    /// Output kind: a netCDF file (nccopy's names and numbers: classic, nc6, cdf5, nc4,
    /// nc7; or 1..5), or nczarr, zarr (pure Zarr v2), zarr3 (Zarr v3), icechunk (an
    /// Icechunk repository: the copy is one snapshot, see --message, --tag), or kerchunk
    /// (references to a netCDF input's chunks, as JSON; see --url-prefix). Default: for an
    /// OUTPUT named .nc, .nc4, .cdf, .h5, .hdf5 or .netcdf a netCDF file of the input's kind (netCDF-4
    /// for a Zarr input); otherwise the input's Zarr version (v3 stays v3, the rest
    /// become nczarr). To a Zarr URL or .zarr name, the netCDF-4 and classic kinds mean
    /// nczarr (as netcdf-c).
    #[arg(short = 'k', long = "format", value_name = "KIND")]
    kind: Option<String>,
    #[command(flatten)]
    kind_flags: KindFlags,
    #[command(flatten)]
    storage: StorageArgs,
    #[command(flatten)]
    select: SelectArgs,
    /// The memory the copy may use (suffixes K, M, G: powers of 1024).
    #[arg(long, value_name = "SIZE", default_value = "256M")]
    memory: String,
    /// Threads for encoding and decoding (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Show progress also when stderr is not a terminal (a line per variable).
    #[arg(long, conflicts_with = "quiet")]
    progress: bool,
    /// No progress.
    #[arg(long)]
    quiet: bool,
    /// Print the plan (per variable: chunking, codecs, bytes to read and write) and the
    /// memory it needs, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// A copy in parts, first run: write the metadata only (the dataset does not open
    /// until --finish). Then run --part 1/N ... N/N, anywhere, with the same options.
    #[arg(long, conflicts_with_all = ["part", "finish", "dry_run"])]
    metadata_only: bool,
    /// A copy in parts: write the K-th of N disjoint shares of the chunks (K from 1).
    #[arg(long, value_name = "K/N", conflicts_with_all = ["finish", "dry_run"])]
    part: Option<String>,
    /// A copy in parts, last run: check that every part is done and make the dataset
    /// openable (a directory is moved into place). Takes only OUTPUT.
    #[arg(long)]
    finish: bool,
    /// Copy what can be read, leaving out with a warning each variable this build cannot
    /// read (an unknown codec or filter); without it such a variable is an error.
    #[arg(long)]
    skip_unreadable: bool,
    #[command(flatten)]
    read: cli::ReadArgs,
    /// Replace a dataset already at OUTPUT (without it an existing dataset is refused
    /// and nothing is written). Directories, .zip and netCDF files are swapped only once
    /// the copy is complete; on S3, GCS or Azure the old objects are deleted then (not
    /// atomic: object stores cannot swap). -O is NCO's spelling.
    #[arg(short = 'O', long)]
    overwrite: bool,
    #[command(flatten)]
    layout: LayoutArgs,
    #[command(flatten)]
    nccopy: NccopyArgs,
    /// Print help.
    #[arg(long = "help", action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Print version.
    #[arg(long = "version", action = clap::ArgAction::Version)]
    version: Option<bool>,
    #[command(flatten)]
    join: JoinArgs,
    #[command(flatten)]
    kerchunk: KerchunkArgs,
    #[command(flatten)]
    icechunk: IcechunkArgs,
    /// With several inputs, report each attribute that differs between them, once (the
    /// first input's is kept).
    #[arg(long)]
    verbose: bool,
    /// Grow OUTPUT, an existing Zarr dataset (NCZarr, Zarr v2 or v3, whoever wrote
    /// it), by the inputs, joined onto its end along the record dimension or --concat's:
    /// its partial last chunk is completed, new chunks are written in its own chunking
    /// and codecs, and the metadata that gives the new length comes last, so that a run
    /// stopped at any point leaves the dataset as it was.
    #[arg(long, conflicts_with_all = [
        "kind", "classic", "nc4", "cdf5", "offset64", "nc4_classic", "deflate", "shuffle",
        "chunks", "auto_chunks", "filters", "codec", "fix_unlimited", "dims", "data_vars",
        "only_vars", "data_groups", "only_groups", "metadata_only", "part", "finish",
        "overwrite",
    ])]
    append: bool,
    #[command(flatten)]
    migrate: MigrateArgs,
    /// The dataset to copy.
    input: String,
    /// More inputs (joined along a dimension), then where to write the copy.
    more: Vec<String>,
}

/// The output kind from `-k` and `-3/-4/-5/-6/-7`; `None` when not said.
fn output_kind_of(args: &Args) -> anyhow::Result<Option<OutputKind>> {
    match args.kind.as_deref() {
        Some(k) => Ok(Some(OutputKind::parse(k)?)),
        None => Ok(args.kind_flags.kind()),
    }
}

/// The commit an Icechunk output gets (`--message`, `-m`, `--tag`).
fn commit_info(args: &Args, kind: Option<OutputKind>, output: &str) -> CommitInfo {
    let repository = names_repository(kind, output);
    args.icechunk
        .commit(args.nccopy.buffer.as_deref(), repository)
}

/// A warning of the copy, as nczcopy prints it.
fn print_warning(w: &Warning) {
    match &w.about {
        Some(about) => eprintln!("nczcopy: {about}: warning: {}", cli::one_line(&w.text)),
        None => eprintln!("nczcopy: warning: {}", cli::one_line(&w.text)),
    }
}

/// Where to write: the last positional name, when there are several, or the only one
/// with `--inputs-from` (every input then comes from the list).
fn output_of(args: &Args) -> Option<String> {
    match args.more.last() {
        Some(out) => Some(out.clone()),
        None if args.join.inputs_from.is_some() => Some(args.input.clone()),
        None => None,
    }
}

/// The inputs: every positional name before OUTPUT, then `--inputs-from`'s.
fn inputs_of(args: &Args) -> anyhow::Result<Vec<String>> {
    let mut given = Vec::new();
    if let Some((_, before)) = args.more.split_last() {
        given.push(args.input.clone());
        given.extend(before.iter().cloned());
    }
    args.join.inputs(given)
}

/// The options as a copy job from `input` (the first input).
fn job(args: &Args, input: &str) -> anyhow::Result<CopyJob> {
    let Some(output) = output_of(args) else {
        bail!("give INPUT and OUTPUT");
    };
    let asked = cli::parse_size(&args.memory).context("--memory")?;
    if asked < nczarr::copy::budget::LEAST {
        eprintln!(
            "nczcopy: warning: --memory {} is below the least a copy uses; using 1M",
            args.memory
        );
    }
    let part = args.part.as_deref().map(str::parse::<Part>).transpose()?;
    let selection = args.select.selection()?;
    let changes = args.storage.changes(args.nccopy.min_chunk.as_deref())?;
    Ok(CopyJob {
        input: input.to_string(),
        output,
        selection,
        changes,
        create: copy_create_options(args.layout.create_options()?, args.overwrite),
        budget: MemoryBudget::new(asked),
        skip_unreadable: args.skip_unreadable,
        refs: args.read.refs(),
        run: match part {
            Some(p) => CopyRun::Part(p),
            None if args.metadata_only => CopyRun::Start,
            None => CopyRun::Whole,
        },
    })
}

/// How inputs are read: traced as `NCTRACING` says, joined as `--concat`, `--check`,
/// `--sort` and `--allow-gaps` say, cut to `--dim`.
fn input_options(args: &Args, budget: MemoryBudget) -> anyhow::Result<InputOptions> {
    Ok(InputOptions {
        open: nczarr::OpenOptions {
            trace: cli::trace_sink("nczcopy"),
            batch_bytes: Some(budget.batch),
            refs: args.read.refs(),
        },
        join: args.join.options(args.metadata_only, args.append)?,
        dims: parse_dims(&args.select.dims)?,
        output: output_of(args),
    })
}

/// The progress bar `--quiet` and `--progress` ask for.
fn progress_bar(args: &Args) -> Bar {
    Bar::new(if args.quiet {
        Show::Never
    } else if args.progress {
        Show::Always
    } else {
        Show::Auto
    })
}

/// With `--verbose`, the attributes that differ between the joined inputs, one line each.
fn report_differences(args: &Args, lines: &[String]) {
    if args.verbose {
        for d in lines {
            eprintln!("nczcopy: note: {}", cli::one_line(d));
        }
    }
}

/// What nczcopy prints of a copy as it goes.
struct Printed<'a> {
    args: &'a Args,
    bar: Bar,
}

impl CopyEvents for Printed<'_> {
    fn warning(&mut self, warning: &Warning) {
        print_warning(warning);
    }

    fn differences(&mut self, lines: &[String]) {
        report_differences(self.args, lines);
    }

    fn progress(&self) -> Option<&dyn nczarr::copy::Progress> {
        Some(&self.bar)
    }
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.migrate.in_place {
        return args
            .migrate
            .run(args.kind.as_deref(), &args.input, &args.more);
    }
    if args.append {
        return append::run(&args);
    }
    if args.kind.as_deref() == Some("kerchunk") {
        return kerchunk::run(&args);
    }
    if args.icechunk.virtual_refs {
        if !names_repository(
            output_kind_of(&args)?,
            &output_of(&args).unwrap_or_default(),
        ) {
            bail!("--virtual writes an Icechunk repository (-k icechunk); -k kerchunk writes the same references as JSON");
        }
        return kerchunk::run(&args);
    }
    if args.finish {
        if !args.more.is_empty() {
            bail!("--finish takes only OUTPUT");
        }
        let output = &args.input;
        let commit = commit_info(&args, None, output);
        finish_parts(output, &commit).with_context(|| output.clone())?;
        return Ok(ExitCode::SUCCESS);
    }
    let said_kind = output_kind_of(&args)?;
    let names = inputs_of(&args)?;
    let mut job = job(&args, &names[0])?;
    job.create.commit = commit_info(&args, said_kind, &job.output);
    if let Some(jobs) = args.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build_global()
            .context("--jobs")?;
    }
    let (input, output, budget) = (names[0].clone(), job.output.clone(), job.budget);
    let request = CopyRequest {
        inputs: names,
        read: input_options(&args, budget)?,
        job,
        said_kind,
        dry_run: args.dry_run,
    };
    let mut events = Printed {
        args: &args,
        bar: progress_bar(&args),
    };
    let outcome = request.run(&mut events);
    events.bar.finish();
    let outcome = match outcome {
        Err(nczarr::Error::Named { name, source }) if name == input => match *source {
            nczarr::Error::Unreadable(what) => {
                bail!("{input}: {what} (--skip-unreadable copies the rest without it)")
            }
            other => return Err(anyhow::Error::new(other).context(name)),
        },
        other => other?,
    };
    match outcome {
        CopyOutcome::Planned(plan) => {
            let mut out = io::stdout().lock();
            plan.write_text(&mut out, &output, budget)?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        CopyOutcome::Copied { problems } => {
            Ok(cli::exit_after_problems("nczcopy", &input, &problems))
        }
    }
}

/// NCO's `-x -v a,b` ("all but a and b"), where nczcopy's -x is nccopy's cache switch
/// and would copy the definitions of all and the data of a and b.
fn ncos_exclusion(args: &Args) -> bool {
    args.nccopy.experimental && (args.select.data_vars.is_some() || args.select.only_vars.is_some())
}

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() -> ExitCode {
    cli::signals::stop_on_signals("nczcopy");
    let argv: Vec<String> = cli::args_os()
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(spec) = cli::copy_args::hyperslab_after_deflate(&argv) {
        eprintln!(
            "nczcopy: -d is nccopy's deflate level (0-9); for a hyperslab (ncks -d) write --dim {spec}"
        );
        return ExitCode::from(2);
    }
    let args: Args = cli::about::parse("nczcopy");
    if ncos_exclusion(&args) {
        eprintln!("nczcopy: -x is nccopy's experimental caches switch, not NCO's exclusion: for every variable but these, write --exclude VAR,...");
        return ExitCode::from(2);
    }
    if args.more.is_empty()
        && !args.finish
        && !args.append
        && !args.migrate.in_place
        && args.join.inputs_from.is_none()
    {
        // A usage error, as the parser's own (exit 2): OUTPUT is optional only for
        // --finish, which takes just it.
        <Args as clap::CommandFactory>::command()
            .error(
                clap::error::ErrorKind::MissingRequiredArgument,
                "OUTPUT is required: nczcopy [OPTIONS] INPUT... OUTPUT",
            )
            .exit();
    }
    cli::run("nczcopy", || run(args))
}
