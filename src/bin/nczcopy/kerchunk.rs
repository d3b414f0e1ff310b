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
    refuse_unused(args)?;
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

/// Refuse, naming the first, an option references cannot honour: they point at the
/// files' chunks as stored, whole files, and are written at once (accepted and
/// ignored, each would leave a user believing the references were subset or
/// recompressed, or a dry run that wrote).
fn refuse_unused(args: &Args) -> anyhow::Result<()> {
    let (s, v) = (&args.storage, &args.select);
    let storage = [
        ("-d", s.deflate.is_some()),
        ("-s", s.shuffle),
        ("-c", !s.chunks.is_empty()),
        ("--chunks", s.auto_chunks.is_some()),
        ("-F", !s.filters.is_empty()),
        ("--codec", !s.codec.is_empty()),
    ];
    if let Some((flag, _)) = storage.iter().find(|(_, set)| *set) {
        bail!("{flag}: references keep each file's chunks and codecs as stored; a copy (-k icechunk or zarr3, without --virtual) changes them");
    }
    let selection = [
        ("-u", v.fix_unlimited),
        ("--dim", !v.dims.is_empty()),
        ("-v", v.data_vars.is_some()),
        ("-V", v.only_vars.is_some()),
        ("-C", v.no_coords),
        ("--exclude", v.exclude.is_some()),
        ("-g", v.data_groups.is_some()),
        ("-G", v.only_groups.is_some()),
    ];
    if let Some((flag, _)) = selection.iter().find(|(_, set)| *set) {
        bail!("{flag}: references cover the whole files; a copy (-k icechunk or zarr3, without --virtual) keeps a selection");
    }
    let runs = [
        ("--dry-run", args.dry_run),
        ("--metadata-only", args.metadata_only),
        ("--part", args.part.is_some()),
        ("--finish", args.finish),
    ];
    if let Some((flag, _)) = runs.iter().find(|(_, set)| *set) {
        bail!("{flag}: references are written in one run, from the files' metadata only; nothing was written");
    }
    Ok(())
}
