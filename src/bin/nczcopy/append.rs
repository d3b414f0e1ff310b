//! `nczcopy --append`: an existing Zarr dataset grown in place by the inputs.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context as _;
use nczarr::copy::MemoryBudget;
use nczarr::DatasetSource;
use nczarr_tools::cli;

use super::{
    concat_options, inputs_of, open_inputs, output_of, progress_bar, report_differences, Args,
};

/// `--append`: OUTPUT grown by the inputs, in place.
pub(super) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let budget = MemoryBudget::new(cli::parse_size(&args.memory).context("--memory")?);
    let options = nczarr::OpenOptions {
        trace: cli::trace_sink("nczcopy"),
        batch_bytes: Some(budget.batch),
        refs: args.read.refs(),
    };
    let Some(output) = output_of(args) else {
        // Only OUTPUT: complete an append that was stopped in its metadata step.
        let output = &args.input;
        let target = nczarr::append::AppendTarget::open(output, &options, true)
            .with_context(|| output.clone())?;
        if target.completed_interrupted {
            eprintln!("nczcopy: {output}: completed an append that had stopped while writing its metadata");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let target = nczarr::append::AppendTarget::open(&output, &options, !args.dry_run)
        .with_context(|| output.clone())?;
    if target.completed_interrupted {
        eprintln!(
            "nczcopy: {output}: warning: an earlier append had stopped while writing its metadata; it was completed first"
        );
    }
    let names = inputs_of(args)?;
    let opened = open_inputs(&names, &output, budget, args.read.refs())?;
    let mut inputs: Vec<(String, &dyn DatasetSource)> = vec![(output.clone(), target.source())];
    inputs.extend(
        names
            .iter()
            .cloned()
            .zip(opened.iter().map(|o| o.source.as_ref())),
    );
    let joined = nczarr::concat::Concat::new(inputs, &concat_options(args)?)?;
    report_differences(args, &joined);
    let plan = target.plan(&joined).with_context(|| output.clone())?;
    if args.dry_run {
        let mut out = io::stdout().lock();
        writeln!(
            out,
            "append to {output}: dimension '{}' from {} to {}",
            plan.dim.name, plan.old_len, plan.new_len
        )?;
        for (var, block) in &plan.blocks {
            writeln!(out, "{var}: writes {block}")?;
        }
        for doc in plan.documents() {
            writeln!(out, "then: {doc}")?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let bar = progress_bar(args);
    let copy = nczarr::copy::CopyOptions {
        slab_bytes: budget.slab,
        progress: Some(&bar),
        ..Default::default()
    };
    let written = target.write(&joined, &plan, &copy);
    bar.finish();
    written.with_context(|| format!("{} -> {output}", names.join(" ")))?;
    Ok(cli::exit_after_problems(
        "nczcopy",
        &output,
        joined.problems(),
    ))
}
