//! `nczcopy -k kerchunk`: kerchunk's references to the chunks of netCDF files.

use std::process::ExitCode;

use anyhow::{bail, Context as _};
use nczarr::copy::MemoryBudget;
use nczarr::jobs::KerchunkJob;
use nczarr_tools::cli;

use super::{input_options, inputs_of, output_of, report_differences, Args};

/// `-k kerchunk`: references to the chunks of one netCDF file, or of several joined
/// into one virtual dataset, as kerchunk's JSON; `-k icechunk --virtual`: the same
/// references committed as a snapshot of an Icechunk repository.
pub(super) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    cli::copy_args::refuse_for_references(
        &args.storage,
        &args.select,
        &[
            ("--dry-run", args.dry_run),
            ("--metadata-only", args.metadata_only),
            ("--part", args.part.is_some()),
            ("--finish", args.finish),
        ],
    )?;
    let names = inputs_of(args)?;
    let Some(output) = output_of(args) else {
        bail!("give INPUT and OUTPUT");
    };
    let budget = MemoryBudget::new(cli::parse_size(&args.memory).context("--memory")?);
    let icechunk = args
        .icechunk
        .virtual_refs
        .then(|| super::commit_info(args, Some(nczarr::jobs::OutputKind::Icechunk), &output));
    let job = KerchunkJob {
        inputs: names,
        output,
        overwrite: args.overwrite,
        read: input_options(args, budget)?,
        url_prefix: args.kerchunk.url_prefix.clone(),
        refs: args.kerchunk.options()?,
        icechunk,
    };
    let report = job.run(&mut |lines| report_differences(args, lines))?;
    for note in &report.inlined_instead {
        eprintln!("nczcopy: warning: {}", cli::one_line(note));
    }
    Ok(ExitCode::SUCCESS)
}
