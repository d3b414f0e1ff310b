//! nczatted: NCO's ncatted (attribute edits) on netCDF files, in place and whole or not
//! at all.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use nczarr::edit::AttEdit;
use nczarr_tools::cli;
use nczarr_tools::cli::edit_args::EditArgs;

/// Edit attributes as NCO's ncatted does: `-a ATT,VAR,MODE,TYPE,VALUE`, in place when
/// one dataset is named, into a copy when two are. MODE: a (append), c (create), d
/// (delete), m (modify), n (append if there), o (overwrite), p (prepend). TYPE: f d l i
/// s c b ub us u ui ll ull sng. VAR: a variable (every one so named, or /group/var),
/// empty for every variable, `global` for the global attributes. VALUE: numbers
/// separated by commas, or text with C's escapes (\n, \t). Every edit is checked before
/// any is made, whole or not at all: a netCDF-4 file's object headers and a classic
/// file's header (when it fits) in place, else the file rewritten beside itself and
/// renamed over the old one; a Zarr store's attribute documents; an Icechunk branch in
/// one snapshot. Without -h the command is prepended to the global
/// `history`, as NCO does. Shell completions and a man page: --generate
/// completion=bash|zsh|fish|elvish|powershell, --generate man.
#[derive(Parser, Debug)]
#[command(
    name = "nczatted",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    /// An edit: ATT,VAR,MODE,TYPE,VALUE (repeatable; made in order).
    #[arg(short = 'a', value_name = "ATT,VAR,MODE,TYPE,VALUE", required = true)]
    edits: Vec<String>,
    #[command(flatten)]
    common: EditArgs,
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let edits = args
        .edits
        .iter()
        .map(|spec| AttEdit::parse(spec))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| args.common.input.clone())?;
    args.common.job(edits, Vec::new())?.run()?;
    Ok(ExitCode::SUCCESS)
}

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() -> ExitCode {
    cli::signals::stop_on_signals("nczatted");
    let args: Args = cli::about::parse("nczatted");
    cli::run("nczatted", || run(args))
}
