//! `nczcopy --append`: an existing Zarr dataset grown in place by the inputs.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context as _;
use nczarr::copy::MemoryBudget;
use nczarr::jobs::{AppendJob, AppendNote};
use nczarr_tools::cli;

use super::{input_options, inputs_of, output_of, progress_bar, report_differences, Args};

/// `--append`: OUTPUT grown by the inputs, in place; with only OUTPUT, an append
/// stopped in its metadata step completed.
pub(super) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let budget = MemoryBudget::new(cli::parse_size(&args.memory).context("--memory")?);
    let (output, inputs) = match output_of(args) {
        Some(output) => (output, inputs_of(args)?),
        None => (args.input.clone(), Vec::new()),
    };
    let alone = inputs.is_empty();
    let job = AppendJob {
        output: output.clone(),
        inputs,
        read: input_options(args, budget)?,
        budget,
        dry_run: args.dry_run,
        commit: super::commit_info(args, None, &output),
        virtual_refs: if args.icechunk.virtual_refs {
            Some((args.kerchunk.options()?, args.kerchunk.url_prefix.clone()))
        } else {
            None
        },
    };
    let bar = progress_bar(args);
    let report = job.run(Some(&bar), &mut |note| match note {
        AppendNote::CompletedEarlier => eprintln!(
            "nczcopy: {output}: warning: an earlier append had stopped while writing its metadata; it was completed first"
        ),
        AppendNote::Differences(lines) => report_differences(args, lines),
    });
    bar.finish();
    let report = report?;
    if alone {
        if report.completed_interrupted {
            eprintln!("nczcopy: {output}: completed an append that had stopped while writing its metadata");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(lines) = &report.plan {
        let mut out = io::stdout().lock();
        for line in lines {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    Ok(cli::exit_after_problems(
        "nczcopy",
        &output,
        &report.problems,
    ))
}
