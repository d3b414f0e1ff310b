//! nczview: a quick look at one 2-D slice of a variable, as a PNG or in the terminal.

use std::fs;
use std::io::{self, IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use clap::Parser;
use nczarr::jobs::{parse_dims, InputOptions, Inputs};
use nczarr::view::field::default_var;
use nczarr::view::{
    choose, picture, raster, read_field, term, Colormap, Field, FieldRequest, Limits, Scale,
};
use nczarr_tools::cli;

/// Draw one 2-D slice of a variable of any dataset the tools read (NCZarr, Zarr v2/v3,
/// netCDF files, kerchunk references, Icechunk, OPeNDAP; local or remote): the last two
/// dimensions (or --x/--y), the others at their first index or cut by --dim as ncks -d.
/// Values are decoded as CF says (scale_factor/add_offset; _FillValue, missing_value and
/// valid_range masked) and coloured as xarray's .plot() colours them: viridis, or RdBu_r
/// centred on 0 when the data straddle 0. Without -o the picture goes to the terminal
/// (24-bit colour half blocks, or the kitty graphics protocol where the terminal speaks
/// it). Shell completions and a man page: --generate
/// completion=bash|zsh|fish|elvish|powershell, --generate man.
#[derive(Parser, Debug)]
#[command(
    name = "nczview",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    /// The variable (a name, or a path g/v); default: the first variable of two or more
    /// dimensions that is not a coordinate.
    #[arg(short = 'v', long = "var", value_name = "VAR")]
    var: Option<String>,
    /// A subset, as ncks -d: `DIM,MIN[,MAX[,STRIDE]]` (indices; coordinate values with a
    /// decimal point, `lon,-180.,180.` wrapping; dates on a time axis), repeatable.
    #[arg(short = 'd', long = "dim", value_name = "DIM,MIN[,MAX[,STRIDE]]")]
    dims: Vec<String>,
    /// The dimension drawn across (default: the last).
    #[arg(long = "x", value_name = "DIM")]
    x: Option<String>,
    /// The dimension drawn up (default: the one before the last).
    #[arg(long = "y", value_name = "DIM")]
    y: Option<String>,
    /// Write a PNG here (`-` for standard output): the decorated picture (axes, colour
    /// bar, title), or with --raster one pixel per cell.
    #[arg(short = 'o', long = "output", value_name = "FILE.png")]
    output: Option<String>,
    /// One pixel per cell, no decoration, transparent where masked (as gdal_translate -of
    /// PNG): for pipelines and tests. Slices over 16384 cells across or down are reduced.
    #[arg(long, requires = "output", conflicts_with = "term")]
    raster: bool,
    /// Draw in the terminal (the default without -o): half blocks fitted to COLUMNS.
    #[arg(long, conflicts_with = "output")]
    term: bool,
    /// Terminal columns to fill (default: $COLUMNS, else 80).
    #[arg(long, value_name = "N")]
    width: Option<usize>,
    /// A matplotlib colour map: viridis plasma inferno magma cividis turbo hot RdBu
    /// coolwarm bwr seismic BrBG PuOr Spectral gray Greys Blues Reds YlOrRd jet, each
    /// reversed with _r.
    #[arg(long, value_name = "NAME")]
    cmap: Option<String>,
    /// The colour scale's limits (values outside take the end colours).
    #[arg(long, value_name = "MIN,MAX", allow_hyphen_values = true)]
    range: Option<String>,
    /// Limits at the 2nd and 98th percentiles (xarray's robust=True).
    #[arg(long, conflicts_with = "range")]
    robust: bool,
    /// A logarithmic colour scale (values <= 0 masked).
    #[arg(long)]
    log: bool,
    /// Replace an existing output file.
    #[arg(short = 'O', long)]
    overwrite: bool,
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

/// The most lines a picture takes in the terminal.
const TERM_LINES: usize = 40;

/// Largest raster across or down: beyond it a slice is reduced by block means.
const RASTER_MAX: usize = 16384;

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cmap_name = args.cmap.as_deref();
    let chosen_cmap = match cmap_name {
        Some(n) => Some(Colormap::by_name(n).with_context(|| {
            format!(
                "--cmap {n}: no such colour map (known: {}; each also _r)",
                Colormap::names().collect::<Vec<_>>().join(" ")
            )
        })?),
        None => None,
    };
    let limits = Limits {
        range: args.range.as_deref().map(parse_range).transpose()?,
        robust: args.robust,
        log: args.log,
    };
    let to_term = args.output.is_none();
    if args.output.as_deref() == Some("-") && io::stdout().is_terminal() {
        bail!(
            "-o -: standard output is a terminal, not a PNG file (drop -o to draw in the terminal)"
        );
    }
    if let Some(out) = args.output.as_deref().filter(|o| *o != "-") {
        check_output(Path::new(out), args.overwrite)?;
    }
    let read = InputOptions {
        open: nczarr::OpenOptions {
            trace: cli::trace_sink("nczview"),
            refs: args.read.refs(),
            ..nczarr::OpenOptions::default()
        },
        ..InputOptions::default()
    };
    let name = &args.dataset;
    let inputs = Inputs::open(std::slice::from_ref(name), &read)?;
    let view = inputs.view(&read)?;
    let source = view.source();
    let var = match &args.var {
        Some(v) => v.clone(),
        None => default_var(source.dataset()).with_context(|| {
            format!(
                "{name}: no variable of two or more numeric dimensions to draw (name one with -v)"
            )
        })?,
    };
    let columns = args
        .width
        .or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()))
        .unwrap_or(80)
        .max(8);
    let (max_width, max_height) = if to_term {
        // The terminal's columns across; two values a line, at most TERM_LINES lines.
        (columns, 2 * TERM_LINES)
    } else if args.raster {
        (RASTER_MAX, RASTER_MAX)
    } else {
        // The plot area's pixels: more cells are averaged.
        picture::PLOT_MAX
    };
    let request = FieldRequest {
        var,
        x: args.x.clone(),
        y: args.y.clone(),
        max_width,
        max_height,
    };
    let field =
        read_field(source, &parse_dims(&args.dims)?, &request).with_context(|| name.clone())?;
    let scale = choose(&field.values, &limits).map_err(|error| {
        anyhow::anyhow!(
            "{name}: {}",
            nczarr::view::ViewError::Scale {
                var: field.var.name.clone(),
                error
            }
        )
    })?;
    let cmap = chosen_cmap.unwrap_or_else(|| Colormap::default_for(scale.diverging));
    let pixels = raster::rgba(&field.values, &scale.norm, &cmap);
    if to_term {
        show_in_terminal(&field, &scale, &cmap, &pixels, columns)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (png, w, h) = if args.raster {
        (pixels, field.width, field.height)
    } else {
        let p = picture::draw(&field, &pixels, &scale.norm, &cmap);
        (p.rgba, p.width, p.height)
    };
    let (t1, t2) = picture::title_lines(&field);
    // Without a long name the first line is the variable's name, as the second begins.
    let title = if t2.starts_with(&t1) {
        t2.clone()
    } else {
        format!("{t1}; {t2}")
    };
    let text = [
        ("Title", title),
        (
            "Comment",
            format!("{} colour map, {} scale", cmap.name(), scale.norm),
        ),
        ("Software", format!("nczview {}", env!("CARGO_PKG_VERSION"))),
    ];
    let mut bytes = Vec::new();
    raster::write_png(&mut bytes, w, h, &png, &text)?;
    match args.output.as_deref() {
        Some("-") | None => {
            let mut out = io::stdout().lock();
            out.write_all(&bytes)?;
            out.flush()?;
        }
        Some(path) => write_replacing(Path::new(path), &bytes, args.overwrite)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_range(text: &str) -> anyhow::Result<(f64, f64)> {
    let parsed = text
        .split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
    match parsed {
        Some((a, b)) if f64::is_finite(a) && f64::is_finite(b) && a < b => Ok((a, b)),
        _ => bail!("--range {text}: not MIN,MAX with two numbers, MIN < MAX"),
    }
}

fn show_in_terminal(
    field: &Field,
    scale: &Scale,
    cmap: &Colormap,
    pixels: &[u8],
    columns: usize,
) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    let (t1, t2) = picture::title_lines(field);
    let kitty = io::stdout().is_terminal() && term::speaks_kitty(|k| std::env::var(k).ok());
    if !kitty {
        // The kitty picture carries its own title.
        writeln!(out, "{t1}")?;
        writeln!(out, "{t2}")?;
    }
    if kitty {
        let p = picture::draw(field, pixels, &scale.norm, cmap);
        let mut png = Vec::new();
        raster::write_png(&mut png, p.width, p.height, &p.rgba, &[])?;
        out.write_all(term::kitty(&png).as_bytes())?;
    } else {
        let (px, w, h) = term::shrink(pixels, field.width, field.height, columns);
        // Two values a line: at most TERM_LINES lines of picture.
        let (px, w, h) = term::enlarge(&px, w, h, columns, 2 * TERM_LINES);
        out.write_all(term::half_blocks(&px, w, h).as_bytes())?;
        let (lo, hi) = scale.norm.limits();
        let (lo, hi) = (
            nczarr::view::ticks::label(lo),
            nczarr::view::ticks::label(hi),
        );
        let n = w
            .saturating_sub(lo.chars().count() + hi.chars().count() + 2)
            .max(8);
        let colours: Vec<[u8; 3]> = (0..n)
            .filter_map(|i| cmap.rgb((i as f64 + 0.5) / n as f64))
            .collect();
        writeln!(out, "{}", term::scale_line(&colours, &lo, &hi))?;
    }
    if let Some(u) = &field.units {
        writeln!(out, "{u}; {} colour map, {} scale", cmap.name(), scale.norm)?;
    }
    out.flush()?;
    Ok(())
}

/// Refuse an output that is a directory (a dataset, perhaps), a file inside a
/// dataset, or a file that exists when -O was not given; before anything is read.
fn check_output(path: &Path, overwrite: bool) -> anyhow::Result<()> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        bail!("-o: an empty file name");
    }
    if path.is_dir() {
        bail!("{shown}: a directory, not a PNG file: nothing was written");
    }
    if nczarr::open::check_not_inside(&path.to_string_lossy()).is_err() {
        bail!("{shown}: inside a dataset: a picture is not written among its keys");
    }
    let Ok(meta) = fs::metadata(path) else {
        return Ok(());
    };
    // A device, a pipe, another program's file: never renamed over.
    if !meta.is_file() || (meta.len() > 0 && !is_png(path)) {
        bail!("{shown}: exists and is not a PNG file: not replaced, even with -O");
    }
    if !overwrite {
        bail!("{shown}: exists; give -O to replace it");
    }
    Ok(())
}

fn is_png(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 8];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head == *b"\x89PNG\r\n\x1a\n"
}

/// Write `bytes` beside `path` and rename it over: a killed run leaves the old file
/// (or none), never half a picture.
fn write_replacing(path: &Path, bytes: &[u8], overwrite: bool) -> anyhow::Result<()> {
    check_output(path, overwrite)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    let staged = dir.join(format!(
        ".{}.nczview-{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> io::Result<()> {
        let mut f = fs::File::create(&staged)?;
        f.write_all(bytes)?;
        // Durable before it replaces the old picture, as every writer of ours
        // (NCZARR_FSYNC=0: not).
        if nczarr::store::durable() {
            f.sync_all()?;
        }
        fs::rename(&staged, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&staged);
        return Err(e).with_context(|| path.display().to_string());
    }
    Ok(())
}

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() -> ExitCode {
    cli::start_workers();
    let args: Args = cli::about::parse("nczview");
    cli::run("nczview", || run(args))
}
