//! nczcmp: compare two datasets of any formats, as nccmp compares netCDF files: the
//! data, the metadata, the global attributes, with tolerances. Exit 0 when equal, 1
//! when different, 2 on an error.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use nczarr::compare::{CompareOptions, Difference, Report};
use nczarr::jobs::{parse_dims, CompareJob, InputOptions};
use nczarr::json::{Json, Number};
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
    /// Compare the global (group) attributes, but `history` (as nccmp: -h compares it).
    #[arg(short = 'g', long = "global")]
    global: bool,
    /// Compare the global `history` attribute too (nccmp's -h; help is -H).
    #[arg(short = 'h', long = "history")]
    history: bool,
    /// Global (group) attributes not compared (comma-separated names), as nccmp's -G.
    #[arg(short = 'G', long = "globalex", value_name = "NAME,...")]
    ignore_global_attrs: Vec<String>,
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
    #[command(flatten)]
    read: cli::ReadArgs,
    /// Print help (-H, as nccmp: -h is --history).
    #[arg(short = 'H', long = "help", action = clap::ArgAction::Help)]
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
        // nccmp leaves the global `history` out unless -h: it differs from run to run.
        ignore_global_attrs: list(&args.ignore_global_attrs)
            .into_iter()
            .chain((!args.history).then(|| "history".to_string()))
            .collect(),
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
    if let Some((ta, tb)) = &d.types {
        fields.push((
            "types".into(),
            Json::Array(vec![Json::String(ta.clone()), Json::String(tb.clone())]),
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

fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let job = CompareJob {
        a: args.a.clone(),
        b: args.b.clone(),
        read: InputOptions {
            open: nczarr::OpenOptions {
                trace: cli::trace_sink("nczcmp"),
                batch_bytes: None,
                refs: args.read.refs(),
            },
            dims: parse_dims(&args.dims)?,
            ..InputOptions::default()
        },
        options: options(args)?,
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut diffs = Vec::new();
    let mut failed: Option<io::Error> = None;
    let report = job.run(&mut |d: &Difference| {
        if args.json {
            diffs.push(difference_json(d));
        } else if !args.quiet && failed.is_none() {
            if let Err(e) = writeln!(out, "{}", d.line(&args.a, &args.b, args.fortran)) {
                failed = Some(e);
            }
        }
    })?;
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

/// The switches of one letter, which may be written together (`-dm`).
const SWITCHES: &str = "dmgfNMsqFh";
/// The options that take a value in the next argument.
const WITH_VALUE: [&str; 15] = [
    "-G",
    "--globalex",
    "-v",
    "--variable",
    "-x",
    "--exclude",
    "-A",
    "--Attribute",
    "-t",
    "--tolerance",
    "-T",
    "--Tolerance",
    "--dim",
    "--memory",
    "--generate",
];

/// The hyperslab given to `-d`, if one is: nczcmp's `-d` is nccmp's `--data`, a switch,
/// while NCO's `-d` (what `ncks -d time,0,9` means) is nczcmp's `--dim`. Without this,
/// `-d time,0,9 a.nc b.nc` reads `time,0,9` as the first dataset and clap says only
/// that there is an argument too many.
fn hyperslab_after_data(args: &[String]) -> Option<String> {
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].as_str();
        if arg == "--" {
            return None;
        }
        let next = || {
            args.get(i + 1)
                .filter(|n| cli::looks_like_hyperslab(n))
                .cloned()
        };
        if let Some(value) = arg.strip_prefix("--data=") {
            return Some(value.to_string());
        }
        if arg == "--data" {
            if let Some(spec) = next() {
                return Some(spec);
            }
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            // `-dtime,0,9`: clap would read `-d -t ime,0,9`.
            if let Some(rest) = cluster.strip_prefix('d').filter(|r| r.contains(',')) {
                return Some(rest.to_string());
            }
            if cluster.ends_with('d') && cluster.chars().all(|c| SWITCHES.contains(c)) {
                if let Some(spec) = next() {
                    return Some(spec);
                }
            }
        }
        if WITH_VALUE.contains(&arg) {
            i += 1;
        }
        i += 1;
    }
    None
}

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() -> ExitCode {
    let argv: Vec<String> = cli::args_os()
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(spec) = hyperslab_after_data(&argv) {
        let _ = writeln!(
            io::stderr(),
            "nczcmp: -d is nccmp's --data (compare the values); for a hyperslab write --dim {spec}"
        );
        return ExitCode::from(2);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn slab(args: &[&str]) -> Option<String> {
        let mut all = vec!["nczcmp".to_string()];
        all.extend(args.iter().map(|a| a.to_string()));
        hyperslab_after_data(&all)
    }

    #[test]
    fn data_given_a_hyperslab_is_caught() {
        assert_eq!(
            slab(&["-d", "time,0,9", "a", "b"]).as_deref(),
            Some("time,0,9")
        );
        assert_eq!(slab(&["-dtime,0,9", "a", "b"]).as_deref(), Some("time,0,9"));
        assert_eq!(
            slab(&["-md", "lat,-30.,30.", "a", "b"]).as_deref(),
            Some("lat,-30.,30.")
        );
        assert_eq!(
            slab(&["--data", "time,1", "a", "b"]).as_deref(),
            Some("time,1")
        );
        assert_eq!(
            slab(&["--data=time,1", "a", "b"]).as_deref(),
            Some("time,1")
        );
    }

    #[test]
    fn data_as_a_switch_is_left_alone() {
        assert_eq!(slab(&["-d", "a.nc", "b.nc"]), None);
        assert_eq!(slab(&["-dm", "-v", "tas,pr", "a.nc", "b.nc"]), None);
        // `-v d` is the variable `d`; `-x` takes a list that looks like a hyperslab.
        assert_eq!(slab(&["-v", "d", "x,1", "b.nc"]), None);
        assert_eq!(slab(&["-x", "tas,pr", "-d", "a.nc", "b.nc"]), None);
        assert_eq!(slab(&["--dim", "time,0,9", "-d", "a.nc", "b.nc"]), None);
        assert_eq!(slab(&["-d", "--", "time,0", "b.nc"]), None);
        assert_eq!(slab(&["-d", "s3://bucket/a,b.zarr", "b.nc"]), None);
    }
}
