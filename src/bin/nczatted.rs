//! nczatted: NCO's ncatted (attribute edits) on netCDF files, in place and whole or not
//! at all.

use std::process::ExitCode;

use anyhow::{bail, Context as _};
use clap::Parser;
use nczarr::edit::{history_line, AttEdit};
use nczarr::jobs::EditJob;
use nczarr_tools::cli;

/// Edit attributes as NCO's ncatted does: `-a ATT,VAR,MODE,TYPE,VALUE`, in place when
/// one dataset is named, into a copy when two are. MODE: a (append), c (create), d
/// (delete), m (modify), n (append if there), o (overwrite), p (prepend). TYPE: f d l i
/// s c b ub us u ui ll ull sng. VAR: a variable (every one so named, or /group/var),
/// empty for every variable, `global` for the global attributes. VALUE: numbers
/// separated by commas, or text with C's escapes (\n, \t). Every edit is checked before
/// any is made; the file is rewritten beside itself and renamed over the old one, so a
/// stopped run leaves it as it was. Without -h the command is prepended to the global
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
    /// No history: leave the global `history` attribute as it is.
    #[arg(short = 'h', long = "no-history")]
    no_history: bool,
    /// Replace OUTPUT when it exists (without it an existing dataset is refused).
    #[arg(short = 'O', long)]
    overwrite: bool,
    /// The output (as the second name).
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: Option<String>,
    /// NCO's debug level: accepted, prints nothing more.
    #[arg(short = 'D', value_name = "LEVEL", hide_short_help = true)]
    debug: Option<String>,
    /// Print help.
    #[arg(long = "help", action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Print version.
    #[arg(long = "version", action = clap::ArgAction::Version)]
    version: Option<bool>,
    /// The dataset to edit (in place unless OUTPUT is given).
    input: String,
    /// Where the edited copy goes.
    more: Option<String>,
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let output = match (args.more, args.output) {
        (Some(_), Some(_)) => bail!("give OUTPUT once: as -o OUTPUT or as the second name"),
        (a, b) => a.or(b),
    };
    let edits = args
        .edits
        .iter()
        .map(|spec| AttEdit::parse(spec))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| args.input.clone())?;
    let when = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let command = cli::command_line();
    let history = (!args.no_history).then(|| history_line(std::slice::from_ref(&command), when));
    EditJob {
        dataset: args.input,
        output,
        edits,
        renames: Vec::new(),
        history,
        overwrite: args.overwrite,
        message: command,
    }
    .run()?;
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    cli::signals::stop_on_signals("nczatted");
    let args: Args = cli::about::parse("nczatted");
    cli::run("nczatted", || run(args))
}
