//! What nczatted and nczrename share on their command lines: NCO's `-h`, `-O`, `-o`,
//! `-D`, the dataset and the optional second name; and the job built from them (the
//! history line and the snapshot message from the command line).

use clap::Args;
use nczarr::edit::{history_line, AttEdit, Rename};
use nczarr::jobs::EditJob;

/// The options both editing tools take.
#[derive(Args, Debug)]
pub struct EditArgs {
    /// No history: leave the global `history` attribute as it is.
    #[arg(short = 'h', long = "no-history")]
    pub no_history: bool,
    /// Replace OUTPUT when it exists (without it an existing dataset is refused).
    #[arg(short = 'O', long)]
    pub overwrite: bool,
    /// The output (as the second name).
    #[arg(short = 'o', value_name = "OUTPUT")]
    pub output: Option<String>,
    /// NCO's debug level: accepted, prints nothing more.
    #[arg(short = 'D', value_name = "LEVEL", hide_short_help = true)]
    pub debug: Option<String>,
    /// Print help.
    #[arg(long = "help", action = clap::ArgAction::Help)]
    pub help: Option<bool>,
    /// Print version.
    #[arg(long = "version", action = clap::ArgAction::Version)]
    pub version: Option<bool>,
    /// The dataset to edit (in place unless OUTPUT is given).
    pub input: String,
    /// Where the edited copy goes.
    pub more: Option<String>,
}

impl EditArgs {
    /// The job of `edits` and `renames` on the dataset these options name.
    ///
    /// # Errors
    /// OUTPUT given twice (`-o` and a second name).
    pub fn job(self, edits: Vec<AttEdit>, renames: Vec<Rename>) -> anyhow::Result<EditJob> {
        let output = match (self.more, self.output) {
            (Some(_), Some(_)) => {
                anyhow::bail!("give OUTPUT once: as -o OUTPUT or as the second name")
            }
            (a, b) => a.or(b),
        };
        let when = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        let command = super::command_line();
        let history =
            (!self.no_history).then(|| history_line(std::slice::from_ref(&command), when));
        Ok(EditJob {
            dataset: self.input,
            output,
            edits,
            renames,
            history,
            overwrite: self.overwrite,
            message: command,
        })
    }
}
