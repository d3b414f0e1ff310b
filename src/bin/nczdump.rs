//! nczdump: print an NCZarr or Zarr dataset as CDL, like ncdump.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use clap::Parser;
use nczarr::cdl::print::{
    check_ncml, check_selection, print_cdl, print_json, print_ncml, IndexStyle, JsonFill,
    PrintOptions,
};
use nczarr::jobs::{parse_dims, InputOptions, Inputs};
use nczarr_tools::cli;

/// Print a netCDF dataset as CDL text, byte-identical to ncdump's output, or as JSON:
/// NCZarr of every netcdf-c generation, Zarr v2 and v3, and netCDF files (classic,
/// 64-bit offset, CDF-5, netCDF-4/HDF5). DATASET is a path (directory, .zip or .nc
/// file) or a URL: file:///data/x.zarr#mode=nczarr,file, s3://bucket/key, gs://...,
/// az://..., https://host/x.zarr, https://host/x.nc#mode=bytes. Shell completions and a
/// man page: --generate completion=bash|zsh|fish|elvish|powershell, --generate man.
#[derive(Parser, Debug)]
#[command(
    name = "nczdump",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    /// Header only, no data.
    #[arg(short = 'h')]
    header_only: bool,
    /// Header, and data of coordinate variables only.
    #[arg(short = 'c')]
    coords: bool,
    /// Data only for these variables (comma-separated; group-qualified names like g/v allowed).
    #[arg(short = 'v', value_name = "VAR,...")]
    vars: Option<String>,
    /// Brief annotation of each data row with C (c) or Fortran (f) indices.
    #[arg(short = 'b', value_name = "c|f")]
    brief: Option<String>,
    /// Full annotation of every data value with C (c) or Fortran (f) indices.
    #[arg(short = 'f', value_name = "c|f")]
    full: Option<String>,
    /// Maximum line length in the data section (default 80, at least 10).
    #[arg(short = 'l', value_name = "LEN")]
    line_len: Option<String>,
    /// Name for the dataset in `netcdf NAME {` (default: file name without extension).
    #[arg(short = 'n', value_name = "NAME")]
    name: Option<String>,
    /// Significant digits for float and double values: `FLOAT[,DOUBLE]`.
    #[arg(short = 'p', value_name = "F[,D]")]
    precision: Option<String>,
    /// A subset, as ncks -d: `DIM,MIN[,MAX[,STRIDE]]` (indices; coordinate values with a
    /// decimal point; dates on a time axis), repeatable. (`-d F[,D]`, digits only, is
    /// the deprecated spelling of -p.)
    #[arg(short = 'd', long = "dim", value_name = "DIM,MIN[,MAX[,STRIDE]]")]
    dims: Vec<String>,
    /// Print the kind of file (netCDF-4 for NCZarr and Zarr; classic, 64-bit offset,
    /// cdf5 or netCDF-4 for files) and exit.
    #[arg(short = 'k')]
    kind: bool,
    /// Print the storage format in detail (NCZarr generation, Zarr v2 or v3, netCDF file
    /// version) and exit.
    #[arg(short = 'K')]
    kind_extended: bool,
    /// Values of CF time variables (units "UNIT since DATE", and their bounds) as
    /// dates, and the numeric attributes of such variables as dates in comments.
    #[arg(short = 't')]
    times: bool,
    /// As -t, with ISO 8601's 'T' between date and time.
    #[arg(short = 'i')]
    iso_times: bool,
    /// Print special virtual attributes (_Storage, _ChunkSizes, _Filter, _Codecs, ...).
    #[arg(short = 's')]
    special: bool,
    /// Data only for these groups (comma-separated).
    #[arg(short = 'g', value_name = "GROUP,...")]
    groups: Option<String>,
    /// NcML output of the header, as ncdump -x: for classic, 64-bit offset, CDF-5 and
    /// netCDF-4 classic model files; refused for netCDF-4 files, NCZarr and Zarr, as
    /// ncdump refuses them.
    #[arg(short = 'x', conflicts_with = "json")]
    xml: bool,
    /// Show _Filter/_Codecs instead of _Fletcher32/_Shuffle/_DeflateLevel with -s.
    #[arg(short = 'F')]
    filters: bool,
    /// Extra options: -XF prints the type of _FillValue; -Xp and -Xm are accepted and ignored.
    #[arg(short = 'X', value_name = "F|p|m")]
    extra: Option<String>,
    /// Log level (accepted for ncdump compatibility; use NCTRACING=1 for tracing).
    #[arg(short = 'L', value_name = "N")]
    log_level: Option<String>,
    /// DAP client cache (accepted for ncdump compatibility; no effect).
    #[arg(short = 'w')]
    dap_cache: bool,
    /// Print the header (and the data the other options select) as JSON instead of CDL
    /// (schema: docs/json.md).
    #[arg(long = "json")]
    json: bool,
    /// With --json: write data values equal to the fill value as `value` (default) or
    /// `null`.
    #[arg(long = "json-fill", value_name = "value|null", requires = "json")]
    json_fill: Option<String>,
    #[command(flatten)]
    read: cli::ReadArgs,
    /// Print help.
    #[arg(long = "help", action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Print version.
    #[arg(long = "version", action = clap::ArgAction::Version)]
    version: Option<bool>,
    /// The dataset.
    dataset: String,
}

fn index_style(flag: &str, value: &str) -> anyhow::Result<IndexStyle> {
    match value.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('c') => Ok(IndexStyle::C),
        Some('f') => Ok(IndexStyle::Fortran),
        _ => bail!("invalid value for -{flag} option: {value}"),
    }
}

fn digits(value: &str) -> anyhow::Result<(Option<usize>, Option<usize>)> {
    let (f, d) = match value.split_once(',') {
        Some((f, d)) => (f, Some(d)),
        None => (value, None),
    };
    let parse = |s: &str, what: &str| -> anyhow::Result<usize> {
        match s.trim().parse::<usize>() {
            Ok(n) if (1..=20).contains(&n) => Ok(n),
            _ => bail!("unreasonable value for {what} significant digits: {s}"),
        }
    };
    let f = if f.is_empty() {
        None
    } else {
        Some(parse(f, "float")?)
    };
    let d = d.map(|d| parse(d, "double")).transpose()?;
    Ok((f, d))
}

fn options(args: &Args, default_name: String) -> anyhow::Result<PrintOptions> {
    let mut o = PrintOptions {
        name: args.name.clone().unwrap_or(default_name),
        ..PrintOptions::default()
    };
    o.header_only = args.header_only;
    o.times = if args.iso_times {
        Some('T')
    } else {
        args.times.then_some(' ')
    };
    o.coords_only = args.coords;
    o.vars = cli::comma_list(&args.vars);
    o.groups = cli::comma_list(&args.groups);
    o.brief = args
        .brief
        .as_deref()
        .map(|v| index_style("b", v))
        .transpose()?;
    o.full = args
        .full
        .as_deref()
        .map(|v| index_style("f", v))
        .transpose()?;
    if let Some(l) = &args.line_len {
        let n: i64 = l.trim().parse().unwrap_or(0);
        if n < 10 {
            bail!("unreasonably small line length specified: {n}");
        }
        o.max_line_len = usize::try_from(n)?;
    }
    if let Some(p) = args.precision.as_deref().or(digits_given(args)) {
        let (f, d) = digits(p)?;
        o.float_digits = f;
        o.double_digits = d;
    }
    o.special = args.special;
    o.filter_atts = args.filters;
    match args
        .extra
        .as_deref()
        .map(|x| x.chars().next().map(|c| c.to_ascii_lowercase()))
    {
        None | Some(Some('p' | 'm')) => {}
        Some(Some('f')) => o.fill_type = true,
        Some(_) => bail!(
            "invalid value for -X option: {}",
            args.extra.as_deref().unwrap_or("")
        ),
    }
    Ok(o)
}

/// `--json` with an option that only shapes CDL text: refused, not ignored (the JSON
/// holds numbers as they are, every attribute, no layout; docs/json.md).
fn refuse_cdl_only_options(args: &Args) -> anyhow::Result<()> {
    let given = [
        (args.times, "-t (dates)"),
        (args.iso_times, "-i (dates)"),
        (args.special, "-s (special attributes)"),
        (args.filters, "-F"),
        (args.brief.is_some(), "-b (row indices)"),
        (args.full.is_some(), "-f (value indices)"),
        (args.line_len.is_some(), "-l (line length)"),
        (
            args.precision.is_some() || digits_given(args).is_some(),
            "-p (digits)",
        ),
        (args.extra.is_some(), "-X"),
    ];
    if let Some((_, what)) = given.iter().find(|(on, _)| *on) {
        bail!(
            "--json does not take {what}: it shapes CDL text, and the JSON holds values as stored (--json takes -h, -c, -v, -g and -n)"
        );
    }
    Ok(())
}

/// The `location` NcML gives `name`: as given, but for the `\#` a shell may leave
/// before `#`, which ncdump's `NC_shellUnescape` drops.
fn ncml_location(name: &str) -> String {
    name.replace("\\#", "#")
}

/// Bytes of output gathered before a write: header lines and short pieces of data.
const STDOUT_BUFFER: usize = 64 << 10;

/// True for `-d F[,D]`, ncdump's deprecated digits: numbers only, which no `--dim` is.
fn is_digits(v: &str) -> bool {
    v.split(',').all(|p| p.parse::<u32>().is_ok())
}

/// The last `-d F[,D]` (digits).
fn digits_given(args: &Args) -> Option<&str> {
    args.dims
        .iter()
        .rev()
        .find(|v| is_digits(v))
        .map(String::as_str)
}

/// The `-d`/`--dim` options that are subsets.
fn dim_specs(args: &Args) -> Vec<String> {
    args.dims
        .iter()
        .filter(|v| !is_digits(v))
        .cloned()
        .collect()
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let name = &args.dataset;
    let read = InputOptions {
        open: nczarr::OpenOptions {
            trace: cli::trace_sink("nczdump"),
            refs: args.read.refs(),
            ..nczarr::OpenOptions::default()
        },
        dims: parse_dims(&dim_specs(&args))?,
        ..InputOptions::default()
    };
    let inputs = Inputs::open(std::slice::from_ref(name), &read)?;
    let opened = inputs.first();
    let view = inputs.view(&read)?;
    let source = view.source();
    // Small: the data's pieces of text (tens to hundreds of KiB) are larger, and go
    // out as they are rather than copied into the buffer first.
    let mut stdout = BufWriter::with_capacity(STDOUT_BUFFER, io::stdout().lock());
    if args.kind || args.kind_extended {
        let format = source.format();
        let line = if args.kind {
            &format.kind
        } else {
            &format.detail
        };
        writeln!(stdout, "{line}")?;
        stdout.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let opts = options(&args, opened.url.base_name())?;
    check_selection(source.dataset(), &opts.vars, &opts.groups)?;
    if args.xml {
        // ncdump's refusal names no dataset: the message alone, as it prints it.
        check_ncml(source.format())?;
        let notes = print_ncml(&mut stdout, source, &opts, &ncml_location(name))
            .with_context(|| name.clone())?;
        stdout.flush()?;
        // ncdump's remarks (NUL characters in a text), without the tool's name as
        // ncdump writes them; the run still succeeds.
        let mut stderr = io::stderr().lock();
        for n in notes {
            writeln!(stderr, "{n}")?;
        }
        return Ok(cli::exit_after_problems("nczdump", name, source.problems()));
    }
    // A variable this build cannot read (an unknown codec) is left out with a problem,
    // the rest printed; one `-v` names is read, and its error said.
    let named = |p: &nczarr::model::VarPath| {
        opts.vars
            .iter()
            .any(|v| nczarr::model::select::var_matches(v, &p.group, &p.name))
    };
    let unreadable: Vec<_> = if opts.header_only {
        // Only data is unreadable: a header prints every variable.
        Vec::new()
    } else {
        source
            .unreadable()
            .into_iter()
            .filter(|(p, _)| !named(p))
            .collect()
    };
    let without = nczarr::source::Without::new(source, &unreadable);
    let source: &dyn nczarr::DatasetSource = if unreadable.is_empty() {
        source
    } else {
        &without
    };
    // JSON holds the atomic types: enums as their base type (with CF's flags), the
    // other user-defined types left out, each said.
    let (atomic, losses) = nczarr::model::user::atomic_view(source.dataset());
    let atomic_source = nczarr::source::Without::replaced(
        source,
        atomic,
        losses
            .into_iter()
            .map(|l| format!("{l}; left out of the JSON"))
            .collect(),
    );
    let source: &dyn nczarr::DatasetSource = if args.json { &atomic_source } else { source };
    if args.json {
        refuse_cdl_only_options(&args)?;
        let fill = match args.json_fill.as_deref() {
            None | Some("value") => JsonFill::Value,
            Some("null") => JsonFill::Null,
            Some(other) => bail!("invalid value for --json-fill: {other} (value or null)"),
        };
        print_json(&mut stdout, source, &opts, fill).with_context(|| name.clone())?;
    } else {
        print_cdl(&mut stdout, source, &opts).with_context(|| name.clone())?;
    }
    stdout.flush()?;
    let code = cli::exit_after_problems("nczdump", name, source.problems());
    // The process ends now (`cli::exit_now`): taking apart what was read (a
    // 5,000-variable tree, 3 ms) is work the kernel's unmapping does anyway.
    std::mem::forget(view);
    std::mem::forget(inputs);
    Ok(code)
}

/// mimalloc rather than the system allocator for the dump: it allocates and frees
/// slabs, chunks and text buffers over and over, and many small pieces while reading
/// metadata, which glibc's allocator did at a higher cost (1000x1000 strings 0.16 ->
/// 0.12 s when each string was an allocation; still slower after, 0.093 vs 0.080 s). Not for
/// nczgen: mimalloc's purging of freed pages doubled its time on the 10M-value CDL.
#[cfg(not(nczarr_multicall))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Small pages from before the Rust runtime's first allocation (see
/// [`cli::small_pages_from_start`]): glibc runs `.init_array` before `main`, the
/// prioritised entries in their order first (std's own is `.00099`), so this runs
/// before any unprioritised constructor. `main` lets huge pages back for runs that
/// read data.
#[cfg(all(target_os = "linux", not(nczarr_multicall)))]
#[used]
#[link_section = ".init_array.00100"]
static SMALL_PAGES_FROM_START: extern "C" fn() = cli::small_pages_from_start;

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() {
    cli::start_workers();
    let args: Args = cli::about::parse("nczdump");
    cli::small_pages(args.header_only || args.xml);
    cli::exit_now(cli::run("nczdump", || run(args)))
}
