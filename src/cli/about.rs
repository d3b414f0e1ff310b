//! What every binary says about itself: `--version` with what this build holds, and
//! the hidden `--generate` that writes shell completions and man pages from the clap
//! definitions (for packagers and the README's install steps).

use std::io::{self, Write};
use std::sync::LazyLock;

use clap::{CommandFactory, FromArgMatches};

/// `--version`: the crate version, then the formats, codecs and stores compiled in.
static LONG_VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{}\nformats: NCZarr (every netcdf-c generation: 4.8 V1, 4.9.0, 4.9.1-4.9.2, 4.9.3+/4.10), Zarr v2, Zarr v3 (sharding), netCDF classic, 64-bit offset, CDF-5, netCDF-4/HDF5 (other HDF5 files read), kerchunk references (JSON, read and written)\ncodecs: {}, vlen-utf8/vlen-bytes; v3: bytes, transpose, sharding_indexed\nstores: directory, zip, S3, Google Cloud Storage, Azure Blob, HTTP (read)",
        env!("CARGO_PKG_VERSION"),
        nczarr::codec::table::CODECS
            .iter()
            .map(|c| c.id)
            .filter(|id| !id.starts_with("vlen-"))
            .collect::<Vec<_>>()
            .join(", ")
    )
});

/// Parse the command line into `A`, with the long version above; `--generate WHAT`
/// (anywhere, before any other check) writes WHAT for `tool` to stdout and exits.
pub fn parse<A: CommandFactory + FromArgMatches>(tool: &str) -> A {
    let args: Vec<String> = super::args_os()
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(what) = generate_request(&args) {
        std::process::exit(match generate::<A>(tool, &what) {
            Ok(()) => 0,
            // `--generate man | head`: the reader's choice, as for every output.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            Err(e) => {
                let _ = writeln!(io::stderr(), "{tool}: --generate {what}: {e}");
                2
            }
        });
    }
    let matches = A::command()
        .long_version(LONG_VERSION.as_str())
        .get_matches_from(args);
    A::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The value of `--generate VALUE` or `--generate=VALUE`, if given.
fn generate_request(args: &[String]) -> Option<String> {
    let i = args
        .iter()
        .position(|a| a == "--generate" || a.starts_with("--generate="))?;
    match args[i].strip_prefix("--generate=") {
        Some(v) => Some(v.to_string()),
        None => Some(args.get(i + 1).cloned().unwrap_or_default()),
    }
}

/// Write `completion=SHELL` or `man` for `A`'s command.
fn generate<A: CommandFactory>(tool: &str, what: &str) -> io::Result<()> {
    let mut cmd = A::command().long_version(LONG_VERSION.as_str());
    let mut out = io::stdout().lock();
    if what == "man" {
        return clap_mangen::Man::new(cmd).render(&mut out);
    }
    let shell = what
        .strip_prefix("completion=")
        .and_then(|s| s.parse::<clap_complete::Shell>().ok())
        .ok_or_else(|| {
            io::Error::other("expected completion=bash|zsh|fish|elvish|powershell, or man")
        })?;
    // Into memory first: clap_complete panics on a write error, and a reader that
    // closes the pipe early (`| head`) is not an error.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, tool, &mut script);
    out.write_all(&script)?;
    out.flush()
}
