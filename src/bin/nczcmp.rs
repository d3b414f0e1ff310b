//! nczcmp: compare two datasets of any formats, as nccmp compares netCDF files: the
//! data, the metadata, the global attributes, with tolerances. Exit 0 when equal, 1
//! when different, 2 on an error.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::{anyhow, Context as _};
use clap::Parser;
use nczarr::compare::{compare, CompareError, CompareOptions, Difference, Report, Side};
use nczarr::json::{Json, Number};
use nczarr::DatasetSource;
use nczarr_tools::cli;

/// Compare two datasets (netCDF files, NCZarr, Zarr v2 or v3; on a directory, a .zip,
/// S3, GCS, Azure or a web server) for what their data is, not how it is stored: a
/// netCDF-4 file and its Zarr copies compare equal. nccmp's options: with none of -d,
/// -m, -g, all three are compared. One line per difference; exit 0 when equal, 1 when
/// different, 2 on an error. Shell completions and a man page: --generate
/// completion=bash|zsh|fish|elvish|powershell, --generate man.
#[derive(Parser, Debug)]
#[command(
    name = "nczcmp",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    /// Compare the variables' values.
    #[arg(short = 'd', long = "data")]
    data: bool,
    /// Compare the metadata: dimensions, variables' types and dimensions, variables'
    /// attributes.
    #[arg(short = 'm', long = "metadata")]
    metadata: bool,
    /// Compare the global (group) attributes.
    #[arg(short = 'g', long = "global")]
    global: bool,
    /// Report every differing value of a variable (and a count per variable), not only
    /// the first.
    #[arg(short = 'f', long = "force")]
    force: bool,
    /// Only these variables (comma-separated; a name in any group or a path).
    #[arg(short = 'v', long = "variable", value_name = "VAR,...")]
    include: Vec<String>,
    /// Not these variables (comma-separated).
    #[arg(short = 'x', long = "exclude", value_name = "VAR,...")]
    exclude: Vec<String>,
    /// Attributes not compared (comma-separated names).
    #[arg(short = 'A', long = "Attribute", value_name = "NAME,...")]
    ignore_attrs: Vec<String>,
    /// Absolute tolerance: values this close are equal (seconds for CF times whose
    /// units differ).
    #[arg(short = 't', long = "tolerance", value_name = "TOL")]
    abs_tol: Option<f64>,
    /// Relative tolerance in percent of the larger magnitude (added to -t's, as numpy's
    /// isclose).
    #[arg(short = 'T', long = "Tolerance", value_name = "PERCENT")]
    rel_tol: Option<f64>,
    /// NaN equals NaN.
    #[arg(short = 'N', long = "nans-are-equal")]
    nan_equal: bool,
    /// A missing (fill) value equals the other dataset's fill value, whatever its bits.
    #[arg(short = 'M', long = "missing")]
    missing_equal: bool,
    /// Say so when the datasets are identical.
    #[arg(short = 's', long = "report-identical-files")]
    report_identical: bool,
    /// Print nothing: the exit status says.
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// Indices in Fortran's order, from 1.
    #[arg(short = 'F', long = "fortran")]
    fortran: bool,
    /// Compare a subset, as ncks -d: `DIM,MIN[,MAX[,STRIDE]]`, repeatable, applied to
    /// both datasets.
    #[arg(long = "dim", value_name = "DIM,MIN[,MAX[,STRIDE]]")]
    dims: Vec<String>,
    /// Values of different types compare as numbers (else a type difference).
    #[arg(long)]
    ignore_types: bool,
    /// Chunking, codecs, byte order and format are differences too.
    #[arg(long, conflicts_with = "ignore_storage")]
    storage: bool,
    /// Chunking, codecs, byte order and format are not differences (the default).
    #[arg(long)]
    ignore_storage: bool,
    /// Print a JSON report (docs/nczcmp.md has its schema) instead of lines.
    #[arg(long)]
    json: bool,
    /// The memory the comparison may use (suffixes K, M, G).
    #[arg(long, value_name = "SIZE", default_value = "256M")]
    memory: String,
    /// Print help.
    #[arg(short = 'h', long = "help", action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Print version.
    #[arg(short = 'V', long = "version", action = clap::ArgAction::Version)]
    version: Option<bool>,
    /// The first dataset.
    a: String,
    /// The second dataset.
    b: String,
}

fn options(args: &Args) -> anyhow::Result<CompareOptions> {
    let all = !(args.data || args.metadata || args.global);
    let list = |v: &[String]| -> Vec<String> {
        v.iter()
            .flat_map(|s| s.split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    for (flag, tol) in [("-t", args.abs_tol), ("-T", args.rel_tol)] {
        if tol.is_some_and(|t| t.is_nan() || t < 0.0) {
            anyhow::bail!("{flag}: a tolerance is a number of 0 or more");
        }
    }
    let memory = cli::parse_size(&args.memory).context("--memory")?;
    Ok(CompareOptions {
        data: all || args.data,
        metadata: all || args.metadata,
        global: all || args.global,
        keep_going: args.force,
        include: list(&args.include),
        exclude: list(&args.exclude),
        ignore_attrs: list(&args.ignore_attrs),
        abs_tol: args.abs_tol,
        rel_tol: args.rel_tol,
        nan_equal: args.nan_equal,
        missing_equal: args.missing_equal,
        ignore_types: args.ignore_types,
        storage: args.storage,
        // Each side reads a slab while the other does, and one of each is compared.
        slab_bytes: (memory / 4).max(1 << 16),
    })
}

/// Open both datasets at once (their headers' requests overlap).
fn open_both(args: &Args) -> anyhow::Result<(nczarr::Opened, nczarr::Opened)> {
    let open = |name: &str| {
        let options = nczarr::OpenOptions {
            trace: cli::trace_sink("nczcmp"),
            batch_bytes: None,
        };
        nczarr::open(name, &options).with_context(|| name.to_string())
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| open(&args.a));
        let b = open(&args.b);
        (a.join(), b)
    });
    Ok((
        a.map_err(|_| anyhow!("{}: could not be opened", args.a))??,
        b?,
    ))
}

/// A difference as a JSON object.
fn difference_json(d: &Difference) -> Json {
    let text = |s: &Option<String>| s.clone().map_or(Json::Null, Json::String);
    let mut fields = vec![
        ("kind".to_string(), Json::String(d.kind.name().into())),
        ("what".to_string(), Json::String(d.what.clone())),
    ];
    if let Some(index) = &d.index {
        fields.push((
            "index".into(),
            Json::Array(
                index
                    .iter()
                    .map(|i| Json::Number(Number::from_u64(*i)))
                    .collect(),
            ),
        ));
    }
    fields.push(("a".into(), text(&d.a)));
    fields.push(("b".into(), text(&d.b)));
    if let Some(diff) = d.diff {
        fields.push(("diff".into(), Json::Number(Number::from_f64(diff))));
    }
    Json::Object(fields)
}

fn report_json(args: &Args, diffs: Vec<Json>, report: &Report) -> Json {
    let vars = report
        .vars
        .iter()
        .map(|(name, s)| {
            (
                name.clone(),
                Json::Object(vec![
                    (
                        "compared".into(),
                        Json::Number(Number::from_u64(s.compared)),
                    ),
                    (
                        "differing".into(),
                        Json::Number(Number::from_u64(s.differing)),
                    ),
                    (
                        "max_diff".into(),
                        s.max_diff
                            .map_or(Json::Null, |m| Json::Number(Number::from_f64(m))),
                    ),
                ]),
            )
        })
        .collect();
    Json::Object(vec![
        ("a".into(), Json::String(args.a.clone())),
        ("b".into(), Json::String(args.b.clone())),
        ("identical".into(), Json::Bool(report.differences == 0)),
        ("differences".into(), Json::Array(diffs)),
        ("variables".into(), Json::Object(vars)),
    ])
}

/// A comparison's error as one line naming the dataset(s) it is about.
fn named(e: CompareError, args: &Args) -> anyhow::Error {
    match e {
        CompareError::NoSuchVar { option, name } => anyhow!(
            "{option} {name}: no such variable in {} or {}",
            args.a,
            args.b
        ),
        CompareError::Read { side, source } => {
            let name = match side {
                Side::A => &args.a,
                Side::B => &args.b,
            };
            anyhow::Error::new(source).context(name.clone())
        }
        other => other.into(),
    }
}

fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let options = options(args)?;
    let (a, b) = open_both(args)?;
    let specs: Vec<nczarr::subset::DimSpec> = args
        .dims
        .iter()
        .map(|v| v.parse().map_err(|e: String| anyhow!(e)))
        .collect::<anyhow::Result<_>>()?;
    let (sa, sb) = (a.source.as_ref(), b.source.as_ref());
    let cut = |src: &dyn DatasetSource, name: &str| {
        nczarr::subset::resolve(src, &specs).with_context(|| name.to_string())
    };
    let (ca, cb) = (cut(sa, &args.a)?, cut(sb, &args.b)?);
    let (xa, xb) = (
        nczarr::subset::Subset::new(sa, &ca),
        nczarr::subset::Subset::new(sb, &cb),
    );
    let (sa, sb): (&dyn DatasetSource, &dyn DatasetSource) = if specs.is_empty() {
        (sa, sb)
    } else {
        (&xa, &xb)
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut diffs = Vec::new();
    let mut failed: Option<io::Error> = None;
    let report = compare(sa, sb, &options, &mut |d: &Difference| {
        if args.json {
            diffs.push(difference_json(d));
        } else if !args.quiet && failed.is_none() {
            if let Err(e) = writeln!(out, "{}", d.line(&args.a, &args.b, args.fortran)) {
                failed = Some(e);
            }
        }
    })
    .map_err(|e| named(e, args))?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    if args.json {
        writeln!(out, "{}", report_json(args, diffs, &report).to_pretty())?;
    } else if report.differences == 0 && args.report_identical && !args.quiet {
        writeln!(
            out,
            "Files \"{}\" and \"{}\" are identical.",
            args.a, args.b
        )?;
    }
    out.flush()?;
    Ok(if report.differences == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn main() -> ExitCode {
    let args: Args = cli::about::parse("nczcmp");
    // nczcmp has exit codes of its own (2 for an error), so it does not go through
    // `cli::run`, but it frees and allocates slabs and chunks as the other tools do,
    // and with glibc's defaults many were new pages each time (comparing two 57 MB
    // stores on S3: 85,000 page faults and 0.70 s of CPU, 77,000 and 0.57 s with it).
    cli::keep_freed_memory();
    match run(&args) {
        Ok(code) => code,
        Err(e) if cli::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "nczcmp: {}", cli::one_line(&cli::message(&e)));
            ExitCode::from(2)
        }
    }
}
