//! `nczcopy -k kerchunk`: kerchunk's references to the chunks of netCDF files.

use std::process::ExitCode;

use anyhow::{bail, Context as _};
use nczarr::copy::MemoryBudget;
use nczarr::DatasetSource;
use nczarr_tools::cli;

use super::{
    check_not_output, concat_options, inputs_of, open_inputs, output_of, report_differences, Args,
};

/// `-k kerchunk`: references to the chunks of one netCDF file, or of several joined
/// into one virtual dataset, as kerchunk's JSON.
pub(super) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let names = inputs_of(args)?;
    let Some(output) = output_of(args) else {
        bail!("give INPUT and OUTPUT");
    };
    let budget = MemoryBudget::new(cli::parse_size(&args.memory).context("--memory")?);
    let place = nczarr::CreateOptions {
        overwrite: args.overwrite,
        ..Default::default()
    };
    check_not_output(&names, &output)?;
    // What a reference file may never replace first: --overwrite would not help.
    refs_place(&output)?;
    nczarr::check_target(&output, &place).with_context(|| output.clone())?;
    let opened = open_inputs(&names, &output, budget, args.read.refs())?;
    let mut urls = Vec::with_capacity(names.len());
    for (name, input) in names.iter().zip(&opened) {
        urls.push(url_of(args, name, input)?);
    }
    let defaults = nczarr::kerchunk::RefOptions::default();
    let size = |given: &Option<String>, option: &str, default: u64| match given {
        Some(text) => cli::parse_size(text).with_context(|| option.to_string()),
        None => Ok(default),
    };
    let options = nczarr::kerchunk::RefOptions {
        url: urls[0].clone(),
        inline_all: args.inline_all,
        inline_threshold: size(
            &args.inline_threshold,
            "--inline-threshold",
            defaults.inline_threshold,
        )?,
        inline_limit: size(&args.inline_limit, "--inline-limit", defaults.inline_limit)?,
        split: size(&args.split, "--split", defaults.split)?,
    };
    let (refs, counts) = if names.len() == 1 {
        nczarr::kerchunk::references(opened[0].source.as_ref(), &options)
            .with_context(|| names[0].clone())?
    } else {
        let inputs: Vec<(String, &dyn DatasetSource)> = names
            .iter()
            .cloned()
            .zip(opened.iter().map(|o| o.source.as_ref()))
            .collect();
        let joined = nczarr::concat::Concat::new(inputs, &concat_options(args)?)?;
        report_differences(args, &joined);
        // The files in the order they are joined (--sort may have changed it).
        let order: Vec<String> = joined
            .input_names()
            .filter_map(|n| names.iter().position(|m| m == n))
            .map(|i| urls[i].clone())
            .collect();
        nczarr::kerchunk::references_joined(&joined, order, &options)
            .with_context(|| format!("{} -> {output}", names.join(" ")))?
    };
    for note in &counts.inlined_instead {
        eprintln!("nczcopy: warning: {}", cli::one_line(note));
    }
    write_refs(&output, &refs.to_text())?;
    Ok(ExitCode::SUCCESS)
}

/// How the references name the input `name`: what the user gave, a local path made
/// absolute, an S3 object as `s3://bucket/key`; with --url-prefix, the prefix and the file's name (indexed locally, read
/// from the cloud).
fn url_of(args: &Args, name: &str, input: &nczarr::Opened) -> anyhow::Result<String> {
    if input.source.file_location().is_none() {
        bail!("{name}: kerchunk references point into a netCDF file; this is a Zarr dataset, which xarray opens as it is");
    }
    let url = match input.url.path() {
        Some(p) => std::fs::canonicalize(p)
            .with_context(|| name.to_string())?
            .display()
            .to_string(),
        // An S3 object named by its endpoint (`http://host/bucket/key#mode=s3`) is
        // `s3://bucket/key`, as fsspec names it; the endpoint is the reader's setting.
        None if input.url.storage == nczarr::url::StorageKind::S3 => {
            let at = nczarr::cloud::s3::S3Address::from_url(&input.url)
                .with_context(|| name.to_string())?;
            format!("s3://{}/{}", at.bucket, at.key)
        }
        None => name.split('#').next().unwrap_or(name).to_string(),
    };
    Ok(match &args.url_prefix {
        Some(prefix) => {
            let file = url.rsplit('/').next().unwrap_or(&url);
            format!("{}/{file}", prefix.trim_end_matches('/'))
        }
        None => url,
    })
}

/// `text` written to `output` as a whole (staged, then renamed), replacing only a
/// reference file (and that only with --overwrite, checked before the inputs were read).
fn write_refs(output: &str, text: &str) -> anyhow::Result<()> {
    let path = refs_place(output)?;
    let staged = nczarr::store::Staged::beside(&path).with_context(|| output.to_string())?;
    std::fs::write(&staged.temp, text).with_context(|| output.to_string())?;
    staged.commit().with_context(|| output.to_string())?;
    Ok(())
}

/// The local path a reference file is written to, after checking what is there: a
/// directory (whatever it holds, a dataset too) or a file of another kind is never
/// replaced by a reference file, --overwrite or not.
fn refs_place(output: &str) -> anyhow::Result<std::path::PathBuf> {
    let url = nczarr::url::DatasetUrl::parse(output).with_context(|| output.to_string())?;
    let Some(path) = url.path().filter(|_| !output.ends_with('/')) else {
        bail!("{output}: a reference file is one local file, named without a trailing '/' (put it on a server or in a bucket with that store's own tools)");
    };
    nczarr::place::examine_refs_path(path)
        .and_then(|e| e.or_refuse(output))
        .with_context(|| output.to_string())?;
    Ok(path.to_path_buf())
}
