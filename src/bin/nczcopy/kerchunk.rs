//! `nczcopy -k kerchunk`: kerchunk's references to the chunks of netCDF files.

use std::process::ExitCode;

use anyhow::{bail, Context as _};
use nczarr::copy::MemoryBudget;
use nczarr::jobs::KerchunkJob;
use nczarr::kerchunk::RefOptions;
use nczarr_tools::cli;

use super::{input_options, inputs_of, output_of, report_differences, Args};

/// `-k kerchunk`: references to the chunks of one netCDF file, or of several joined
/// into one virtual dataset, as kerchunk's JSON.
pub(super) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let names = inputs_of(args)?;
    let Some(output) = output_of(args) else {
        bail!("give INPUT and OUTPUT");
    };
    let budget = MemoryBudget::new(cli::parse_size(&args.memory).context("--memory")?);
    let defaults = RefOptions::default();
    let size = |given: &Option<String>, option: &str, default: u64| match given {
        Some(text) => cli::parse_size(text).with_context(|| option.to_string()),
        None => Ok(default),
    };
    let job = KerchunkJob {
        inputs: names,
        output,
        overwrite: args.overwrite,
        read: input_options(args, budget)?,
        url_prefix: args.url_prefix.clone(),
        refs: RefOptions {
            url: String::new(),
            inline_all: args.inline_all,
            inline_threshold: size(
                &args.inline_threshold,
                "--inline-threshold",
                defaults.inline_threshold,
            )?,
            inline_limit: size(&args.inline_limit, "--inline-limit", defaults.inline_limit)?,
            split: size(&args.split, "--split", defaults.split)?,
        },
    };
    let report = job.run(&mut |lines| report_differences(args, lines))?;
    for note in &report.inlined_instead {
        eprintln!("nczcopy: warning: {}", cli::one_line(note));
    }
    Ok(ExitCode::SUCCESS)
}
