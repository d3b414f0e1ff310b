//! nczcopy: copy a dataset to another store or format, like nccopy: convert, rechunk,
//! recompress, subset, in bounded memory.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _};
use clap::Parser;
use nczarr::copy::{
    finish_parts, parse_codec, ChunkSpec, Compression, FilterSpec, MemoryBudget, Part, Selection,
    StorageChanges,
};
use nczarr::copy_job::{CopyJob, CopyRun, Warning};
use nczarr::formats::NcFileKind;
use nczarr::json::Json;
use nczarr::url::DatasetUrl;
use nczarr::DatasetSource;
use nczarr_tools::cli;

mod append;
mod dry_run;
mod kerchunk;
use nczarr_tools::cli::output::{kind_for_target, output_kind, KindFlags, LayoutArgs, OutputKind};
use nczarr_tools::cli::progress::{Bar, Show};

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
    /// nc7; or 1..5), or nczarr, zarr (pure Zarr v2), zarr3 (Zarr v3), or kerchunk
    /// (references to a netCDF input's chunks, as JSON; see --url-prefix). Default: for an
    /// OUTPUT named .nc, .nc4, .cdf or .h5 a netCDF file of the input's kind (netCDF-4
    /// for a Zarr input); otherwise the input's Zarr version (v3 stays v3, the rest
    /// become nczarr). To a Zarr URL or .zarr name, the netCDF-4 and classic kinds mean
    /// nczarr (as netcdf-c).
    #[arg(short = 'k', long = "format", value_name = "KIND")]
    kind: Option<String>,
    #[command(flatten)]
    kind_flags: KindFlags,
    /// Deflate level 1-9 for every variable; 0 removes every filter.
    #[arg(short = 'd', value_name = "N")]
    deflate: Option<u32>,
    /// Shuffle before the compressor -d or --codec adds.
    #[arg(short = 's')]
    shuffle: bool,
    /// Chunk shapes, nccopy's forms: dim/len,dim2/len2 (dim/ is the whole dimension;
    /// unnamed dimensions keep the input's chunking), var:len,len, var: (one chunk).
    /// Repeatable.
    #[arg(short = 'c', value_name = "SPEC")]
    chunks: Vec<String>,
    /// Balanced default chunk shapes of about BYTES (default 4 MiB) for every variable
    /// -c does not name: `auto` or `auto=BYTES`.
    #[arg(long = "chunks", value_name = "auto[=BYTES]")]
    auto_chunks: Option<String>,
    /// Filters, nccopy's form VARS,FILTERS: VARS is * or names joined by & or |, FILTERS
    /// is id,params|id,params (HDF5 ids) or none. Repeatable.
    #[arg(short = 'F', value_name = "SPEC")]
    filters: Vec<String>,
    /// A numcodecs codec for every variable: a compressor (zstd, zstd:level=5,
    /// blosc:cname=lz4,clevel=5,shuffle=1, lz4, zlib:level=4, gzip, bz2) replaces the
    /// variable's; a filter goes before it (bitround:keepbits=N and quantize:digits=N,
    /// lossy, on float variables; fixedscaleoffset, astype, delta, packbits). Or its
    /// JSON. Repeatable, in order.
    #[arg(long, value_name = "CODEC")]
    codec: Vec<String>,
    /// Unlimited dimensions become fixed.
    #[arg(short = 'u')]
    fix_unlimited: bool,
    /// A subset, as ncks -d: `DIM,MIN[,MAX[,STRIDE]]` (indices; coordinate values with a
    /// decimal point; dates on a time axis), repeatable. (-d is the deflate level, as
    /// nccopy's.)
    #[arg(long = "dim", value_name = "DIM,MIN[,MAX[,STRIDE]]")]
    dims: Vec<String>,
    /// Data only for these variables (comma-separated); definitions for all.
    #[arg(short = 'v', value_name = "VAR,...")]
    data_vars: Option<String>,
    /// Only these variables (comma-separated), with their coordinate variables and the
    /// variables they name by CF's attributes (coordinates, bounds, climatology,
    /// grid_mapping, ancillary_variables, cell_measures, formula_terms), as ncks -v.
    #[arg(short = 'V', value_name = "VAR,...")]
    only_vars: Option<String>,
    /// With -V: leave out the coordinate variables and CF-named variables -V would
    /// bring (ncks's -C); attributes naming them lose those names.
    #[arg(short = 'C')]
    no_coords: bool,
    /// Every variable but these (comma-separated), as NCO's -x -v; attributes naming
    /// them lose those names.
    #[arg(long, value_name = "VAR,...", conflicts_with_all = ["data_vars", "only_vars"])]
    exclude: Option<String>,
    /// Data only for variables in these groups (comma-separated); all groups' definitions.
    #[arg(short = 'g', value_name = "GROUP,...")]
    data_groups: Option<String>,
    /// Only these groups (comma-separated), and the groups that contain them.
    #[arg(short = 'G', value_name = "GROUP,...")]
    only_groups: Option<String>,
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
    /// nccopy's copy buffer size (accepted; memory is bounded by --memory).
    #[arg(short = 'm', value_name = "N", hide_short_help = true)]
    buffer: Option<String>,
    /// nccopy's chunk cache size (accepted; no effect).
    #[arg(short = 'h', value_name = "N", hide_short_help = true)]
    cache: Option<String>,
    /// nccopy's chunk cache elements (accepted; no effect).
    #[arg(short = 'e', value_name = "N", hide_short_help = true)]
    cache_elems: Option<String>,
    /// With -c dim/len: a variable with no unlimited dimension whose chunks would be
    /// smaller than N bytes (default 8192, as nccopy) is stored as one chunk.
    #[arg(short = 'M', value_name = "N")]
    min_chunk: Option<String>,
    /// nccopy's diskless read (accepted; no effect).
    #[arg(short = 'r', hide_short_help = true)]
    diskless_read: bool,
    /// nccopy's diskless write (accepted; no effect).
    #[arg(short = 'w', hide_short_help = true)]
    diskless_write: bool,
    /// nccopy's experimental caches (accepted; no effect).
    #[arg(short = 'x', hide_short_help = true)]
    experimental: bool,
    /// Log level (accepted; use NCTRACING=1 for tracing).
    #[arg(short = 'L', value_name = "N", hide_short_help = true)]
    log_level: Option<String>,
    /// Print help.
    #[arg(long = "help", action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Print version.
    #[arg(long = "version", action = clap::ArgAction::Version)]
    version: Option<bool>,
    /// Join several inputs along this dimension (a name or a path; default: the record
    /// dimension), as ncrcat does.
    #[arg(long = "concat", value_name = "DIM")]
    concat: Option<String>,
    /// Join the inputs in the order of their first coordinate value along the joined
    /// dimension (dates compared as dates), not the order given.
    #[arg(long = "sort")]
    sort: bool,
    /// Join inputs even where the joined coordinate jumps between two of them by more
    /// than its regular step.
    #[arg(long = "allow-gaps")]
    allow_gaps: bool,
    /// More inputs, one name a line (`-` for stdin), after those given as arguments
    /// (with it, OUTPUT may be the only name given).
    #[arg(long = "inputs-from", value_name = "FILE")]
    inputs_from: Option<String>,
    /// `--check first`: take the variables without the joined dimension from the first
    /// input without reading the others' (default: all are read and must be equal).
    #[arg(long = "check", value_name = "first|all")]
    check: Option<String>,
    /// With -k kerchunk: name the file in the references as PREFIX/NAME (index a local
    /// copy, serve it from s3://bucket/dir or https://host/dir).
    #[arg(long, value_name = "PREFIX")]
    url_prefix: Option<String>,
    /// With -k kerchunk: inline (as values) every variable whose chunks cannot be
    /// referenced, however large, instead of refusing it.
    #[arg(long)]
    inline_all: bool,
    /// With -k kerchunk: variables of at most SIZE bytes are inlined as values, not
    /// referenced (kerchunk's inline_threshold; default 500).
    #[arg(long, value_name = "SIZE")]
    inline_threshold: Option<String>,
    /// With -k kerchunk: a variable whose chunks cannot be referenced is inlined as
    /// values up to SIZE bytes, refused over it (default 16M; 0 inlines none).
    #[arg(long, value_name = "SIZE")]
    inline_limit: Option<String>,
    /// With -k kerchunk: a contiguous variable larger than SIZE is referenced in pieces
    /// of at most SIZE along its first dimension (default 16M; 0 never cuts).
    #[arg(long, value_name = "SIZE")]
    split: Option<String>,
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
    /// The dataset to copy.
    input: String,
    /// More inputs (joined along a dimension), then where to write the copy.
    more: Vec<String>,
}

/// `-v`/`-V`, `-C`, `--exclude`, `-g`/`-G` and `-u` as a selection.
fn selection(args: &Args) -> anyhow::Result<Selection> {
    if args.data_vars.is_some() && args.only_vars.is_some() {
        bail!("-v and -V cannot be given together");
    }
    if args.no_coords && args.only_vars.is_none() {
        // With -v every variable is defined anyway: -C would only leave the coordinate
        // variables without values (nccopy's flaw), and alone it does nothing.
        bail!("-C leaves out what -V brings along (coordinate variables and the variables named by CF's attributes): give it with -V");
    }
    if args.data_groups.is_some() && args.only_groups.is_some() {
        bail!("-g and -G cannot be given together");
    }
    Ok(Selection {
        vars: cli::comma_list(if args.only_vars.is_some() {
            &args.only_vars
        } else {
            &args.data_vars
        }),
        vars_data_only: args.data_vars.is_some(),
        groups: cli::comma_list(if args.only_groups.is_some() {
            &args.only_groups
        } else {
            &args.data_groups
        }),
        groups_data_only: args.data_groups.is_some(),
        fix_unlimited: args.fix_unlimited,
        no_coords: args.no_coords,
        exclude: cli::comma_list(&args.exclude),
    })
}

/// `-c`, `--chunks`, `-d`, `-s`, `-F` and `--codec` as storage changes.
fn changes(args: &Args) -> anyhow::Result<StorageChanges> {
    let codecs: Vec<Json> = args
        .codec
        .iter()
        .map(|c| parse_codec(c))
        .collect::<Result<_, _>>()?;
    if let Some(d) = args.deflate {
        if d > 9 {
            bail!("invalid deflation level: {d} (0 to 9)");
        }
        if !codecs.is_empty() && codecs.iter().any(is_compressor) {
            bail!(
                "-d {d} and --codec both choose the compressor: give one (--codec zlib:level={d} is -d {d})"
            );
        }
    }
    let auto_chunks = match args.auto_chunks.as_deref() {
        None => None,
        Some("auto") => Some(nczarr::chunking::DEFAULT_CHUNK_BYTES),
        Some(s) => match s.strip_prefix("auto=") {
            Some(bytes) => Some(cli::parse_size(bytes)?.max(1)),
            None => bail!("--chunks takes auto or auto=BYTES, not '{s}'"),
        },
    };
    let mut chunks = ChunkSpec::parse(&args.chunks)?;
    if let Some(m) = &args.min_chunk {
        chunks.min_chunk_bytes = cli::parse_size(m).context("-M")?;
    }
    Ok(StorageChanges {
        chunks,
        auto_chunks,
        compression: Compression {
            deflate: args.deflate,
            shuffle: args.shuffle,
            filters: args
                .filters
                .iter()
                .map(|f| FilterSpec::parse(f))
                .collect::<Result<_, _>>()?,
            codec: codecs,
        },
    })
}

/// Whether `--codec`'s codec compresses (and so chooses what `-d` would).
fn is_compressor(codec: &Json) -> bool {
    nczarr::copy::filters::is_compressor(codec)
}

/// The output kind from `-k` and `-3/-4/-5/-6/-7`; `None` when not said.
fn output_kind_of(args: &Args) -> anyhow::Result<Option<OutputKind>> {
    match args.kind.as_deref() {
        Some(k) => output_kind(k).map(Some),
        None => Ok(args.kind_flags.kind()),
    }
}

/// The output kind when `-k` does not say, as nccopy keeps the input's kind: a
/// netCDF file of the input's kind for an OUTPUT named as a file (netCDF-4 for a Zarr
/// input); else the input's Zarr version (v3 stays v3, the rest become NCZarr).
fn default_kind(
    said: Option<OutputKind>,
    output: &str,
    source: &dyn DatasetSource,
) -> anyhow::Result<OutputKind> {
    let format = source.format();
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
        None if args.inputs_from.is_some() => Some(args.input.clone()),
        None => None,
    }
}

/// The inputs: every positional name before OUTPUT, then `--inputs-from`'s (read once:
/// it may be stdin).
fn inputs_of(args: &Args) -> anyhow::Result<Vec<String>> {
    let mut all = Vec::new();
    if !args.more.is_empty() {
        all.push(args.input.clone());
        all.extend(args.more[..args.more.len() - 1].iter().cloned());
    }
    if let Some(file) = &args.inputs_from {
        let text = if file == "-" {
            io::read_to_string(io::stdin()).context("--inputs-from -")?
        } else {
            std::fs::read_to_string(file).with_context(|| format!("--inputs-from {file}"))?
        };
        all.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
        if all.is_empty() {
            bail!("--inputs-from {file}: no input names in it");
        }
    }
    if all.is_empty() {
        bail!("give INPUT... and OUTPUT");
    }
    Ok(all)
}

/// The options as a copy job from `input` (the first input), but for how the output is
/// created.
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
    let selection = selection(args)?;
    let changes = changes(args)?;
    Ok(CopyJob {
        input: input.to_string(),
        output,
        selection,
        changes,
        // Set once the input is open: the output's kind defaults to the input's.
        create: Default::default(),
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

/// Refuse an input that is `output`; say whether any input is remote.
fn check_not_output(names: &[String], output: &str) -> anyhow::Result<bool> {
    let out_url = DatasetUrl::parse(output).with_context(|| output.to_string())?;
    let mut remote = false;
    for name in names {
        let url = DatasetUrl::parse(name).with_context(|| name.clone())?;
        if nczarr::same_dataset(&url, &out_url) {
            bail!("{output}: also an input; a dataset cannot be copied onto itself");
        }
        remote |= url.path().is_none();
    }
    Ok(remote)
}

/// Open `names`, the inputs after the first, checking that none is `output`. Their
/// headers are read concurrently: by up to 16 threads when one is remote (its reads
/// are requests whose latency overlaps), by one a core when all are local (reading
/// them is the cores' work, and each thread more was an allocator arena more to grow).
fn open_inputs(
    names: &[String],
    output: &str,
    budget: MemoryBudget,
    refs: nczarr::reach::ReferenceOptions,
) -> anyhow::Result<Vec<nczarr::Opened>> {
    let remote = check_not_output(names, output)?;
    let threads = if remote {
        16
    } else {
        std::thread::available_parallelism().map_or(2, usize::from)
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<anyhow::Result<nczarr::Opened>>>> =
        names.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let open_next = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(name) = names.get(i) else { break };
        let options = nczarr::OpenOptions {
            trace: cli::trace_sink("nczcopy"),
            batch_bytes: Some(budget.batch),
            refs,
        };
        let opened = nczarr::open(name, &options).with_context(|| name.clone());
        if let Ok(mut slot) = slots[i].lock() {
            *slot = Some(opened);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..names.len().clamp(1, threads) {
            scope.spawn(open_next);
        }
    });
    slots
        .into_iter()
        .zip(names)
        .map(|(slot, name)| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(anyhow!("{name}: not opened")))
        })
        .collect()
}

/// How inputs are joined: `--concat`, `--check`, `--sort`, `--allow-gaps`.
fn concat_options(args: &Args) -> anyhow::Result<nczarr::concat::ConcatOptions> {
    let trust_first = match args.check.as_deref() {
        None | Some("all") => false,
        Some("first") => true,
        Some(other) => bail!("--check {other}: first or all"),
    };
    Ok(nczarr::concat::ConcatOptions {
        dim: args.concat.clone(),
        trust_first,
        sort: args.sort,
        allow_gaps: args.allow_gaps,
        headers_only: args.metadata_only,
        appending: args.append,
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
fn report_differences(args: &Args, joined: &nczarr::concat::Concat<'_>) {
    if args.verbose {
        for d in joined.attribute_differences() {
            eprintln!("nczcopy: note: {}", cli::one_line(&d));
        }
    }
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.append {
        return append::run(&args);
    }
    if args.kind.as_deref() == Some("kerchunk") {
        return kerchunk::run(&args);
    }
    if args.finish {
        if !args.more.is_empty() {
            bail!("--finish takes only OUTPUT");
        }
        let output = &args.input;
        finish_parts(output).with_context(|| output.clone())?;
        return Ok(ExitCode::SUCCESS);
    }
    let said_kind = output_kind_of(&args)?;
    let names = inputs_of(&args)?;
    let mut job = job(&args, &names[0])?;
    if let Some(jobs) = args.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build_global()
            .context("--jobs")?;
    }
    let (input, output) = (names[0].clone(), job.output.clone());
    DatasetUrl::parse(&input).with_context(|| input.clone())?;
    DatasetUrl::parse(&output).with_context(|| output.clone())?;
    job.create.overwrite = args.overwrite;
    job.create.offer_append = true;
    check_not_output(&names, &output)?;
    // A dry run writes nothing: what is at OUTPUT is the real run's to refuse (and a
    // plan for an object store is printed without asking it).
    if !args.dry_run {
        job.check().with_context(|| output.clone())?;
    }
    let opened = job
        .open(cli::trace_sink("nczcopy"))
        .with_context(|| input.clone())?;
    // More inputs: each opened as the first, and all seen as one, joined.
    let more = open_inputs(&names[1..], &output, job.budget, job.refs)?;
    let joined = if more.is_empty() {
        // One input joins nothing, but a --concat naming no dimension of it is a typo
        // to say, not to copy past.
        if args.concat.is_some() {
            let one = vec![(names[0].clone(), opened.source.as_ref())];
            nczarr::concat::Concat::new(one, &concat_options(&args)?)?;
        }
        None
    } else {
        let mut inputs: Vec<(String, &dyn nczarr::DatasetSource)> =
            vec![(names[0].clone(), opened.source.as_ref())];
        inputs.extend(
            names[1..]
                .iter()
                .cloned()
                .zip(more.iter().map(|o| o.source.as_ref())),
        );
        let joined = nczarr::concat::Concat::new(inputs, &concat_options(&args)?)?;
        report_differences(&args, &joined);
        Some(joined)
    };
    let source: &dyn nczarr::DatasetSource = match &joined {
        Some(j) => j,
        None => opened.source.as_ref(),
    };
    let specs: Vec<nczarr::subset::DimSpec> = args
        .dims
        .iter()
        .map(|v| v.parse().map_err(anyhow::Error::from))
        .collect::<anyhow::Result<_>>()?;
    let selections = nczarr::subset::resolve(source, &specs).with_context(|| input.clone())?;
    let subset = nczarr::subset::Subset::new(source, &selections);
    let source: &dyn nczarr::DatasetSource = if specs.is_empty() { source } else { &subset };
    let kind = default_kind(said_kind, &output, source)?;
    job.create = args.layout.create_options(kind)?;
    job.create.overwrite = args.overwrite;
    job.create.offer_append = true;
    let prepared = match job.prepare(source) {
        Err(nczarr::Error::Unreadable(what)) => {
            bail!("{input}: {what} (--skip-unreadable copies the rest without it)")
        }
        other => other.with_context(|| input.clone())?,
    };
    for w in &prepared.warnings {
        print_warning(w);
    }
    if args.dry_run {
        let mut out = io::stdout().lock();
        writeln!(
            out,
            "output: {}",
            dry_run::kind_text(kind, said_kind.is_some())
        )?;
        // What the real run would refuse at OUTPUT, said (a local place only: a plan
        // for an object store is printed without asking it).
        let local = DatasetUrl::parse(&output).is_ok_and(|u| u.path().is_some());
        if let Some(e) = local.then(|| job.check().err()).flatten() {
            writeln!(out, "note: {output}: {}", cli::one_line(&e.to_string()))?;
        }
        let netcdf4 = matches!(kind, OutputKind::File(k) if k.is_netcdf4());
        dry_run::print_cost(&mut out, &prepared.cost(job.budget), job.budget, netcdf4)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let started = job
        .create(prepared, &mut |w| print_warning(&w))
        .with_context(|| output.clone())?;
    let bar = progress_bar(&args);
    let copied = started.write(Some(&bar));
    bar.finish();
    copied.with_context(|| format!("{input} -> {output}"))?;
    Ok(cli::exit_after_problems(
        "nczcopy",
        &input,
        source.problems(),
    ))
}

/// NCO's `-x -v a,b` ("all but a and b"), where nczcopy's -x is nccopy's cache switch
/// and would copy the definitions of all and the data of a and b.
fn ncos_exclusion(args: &Args) -> bool {
    args.experimental && (args.data_vars.is_some() || args.only_vars.is_some())
}

/// The hyperslab given to `-d`, if one is: nczcopy's `-d` is nccopy's deflate level,
/// while NCO's `-d` (`ncks -d time,0,9`) is nczcopy's `--dim`; clap would say only
/// that `time,0,9` is not a number.
fn hyperslab_after_deflate(args: &[String]) -> Option<String> {
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        if arg == "--" {
            return None;
        }
        if arg == "-d" {
            if let Some(next) = it.next().filter(|n| cli::looks_like_hyperslab(n)) {
                return Some(next.clone());
            }
        } else if let Some(rest) = arg.strip_prefix("-d").filter(|r| r.contains(',')) {
            return Some(rest.to_string());
        }
    }
    None
}

fn main() -> ExitCode {
    cli::signals::stop_on_signals("nczcopy");
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(spec) = hyperslab_after_deflate(&argv) {
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
    if args.more.is_empty() && !args.finish && !args.append && args.inputs_from.is_none() {
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
