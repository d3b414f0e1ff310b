//! nczrename: NCO's ncrename (variables, dimensions, attributes, groups) on netCDF
//! files and Zarr stores, in place and whole or not at all.

use std::process::ExitCode;

use anyhow::{bail, Context as _};
use clap::Parser;
use nczarr::edit::{Rename, RenameKind};
use nczarr_tools::cli;
use nczarr_tools::cli::edit_args::EditArgs;

/// Rename as NCO's ncrename does: -v OLD,NEW (variables), -d OLD,NEW (dimensions), -a
/// OLD,NEW (attributes: every variable's and group's; VAR@ATT one variable's, global@ATT
/// the root's, group@ATT every group's), -g OLD,NEW (groups), each repeatable; a leading
/// '.' on OLD renames only if present. A name is every one so named in any group, or a
/// path (/g/T). A dimension and its coordinate variable renamed together keep their
/// values. In place when one dataset is named, into a copy when two are; whole or not
/// at all (a netCDF file is rewritten beside itself and renamed over the old one, a
/// classic file's header in place when it fits, a netCDF-4 file's attribute renames in
/// its object headers; a Zarr store's renamed arrays and groups keep their chunks,
/// copied to their new keys and the documents written, through a journal the next run
/// completes if one is stopped; an Icechunk branch in one snapshot). Without -h the command is prepended to the
/// global `history`, as NCO does. Shell completions and a man page: --generate
/// completion=bash|zsh|fish|elvish|powershell, --generate man.
#[derive(Parser, Debug)]
#[command(
    name = "nczrename",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Args {
    /// Rename a variable: OLD,NEW.
    #[arg(short = 'v', value_name = "OLD,NEW")]
    vars: Vec<String>,
    /// Rename a dimension: OLD,NEW.
    #[arg(short = 'd', value_name = "OLD,NEW")]
    dims: Vec<String>,
    /// Rename an attribute: OLD,NEW, OLD optionally VAR@ATT, global@ATT or group@ATT.
    #[arg(short = 'a', value_name = "OLD,NEW")]
    atts: Vec<String>,
    /// Rename a group: OLD,NEW.
    #[arg(short = 'g', value_name = "OLD,NEW")]
    groups: Vec<String>,
    #[command(flatten)]
    common: EditArgs,
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut renames = Vec::new();
    for (kind, specs) in [
        (RenameKind::Var, &args.vars),
        (RenameKind::Dim, &args.dims),
        (RenameKind::Att, &args.atts),
        (RenameKind::Group, &args.groups),
    ] {
        for spec in specs {
            renames.push(Rename::parse(kind, spec).with_context(|| args.common.input.clone())?);
        }
    }
    if renames.is_empty() {
        bail!("nothing to rename: give -v, -d, -a or -g OLD,NEW");
    }
    args.common.job(Vec::new(), renames)?.run()?;
    Ok(ExitCode::SUCCESS)
}

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() -> ExitCode {
    cli::signals::stop_on_signals("nczrename");
    let args: Args = cli::about::parse("nczrename");
    cli::run("nczrename", || run(args))
}
