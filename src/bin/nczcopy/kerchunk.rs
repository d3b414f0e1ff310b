//! `nczcopy -k kerchunk`: kerchunk's references to the chunks of a netCDF file.

use std::process::ExitCode;

use anyhow::{bail, Context as _};

use super::{inputs_of, output_of, Args};

/// `-k kerchunk`: references to the chunks of one netCDF file, as kerchunk's JSON.
pub(super) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let names = inputs_of(args)?;
    let Some(output) = output_of(args) else {
        bail!("give INPUT and OUTPUT");
    };
    if names.len() > 1 {
        bail!("-k kerchunk: references to several files joined into one dataset are not built yet; give one input");
    }
    let input = &names[0];
    let opened =
        nczarr::open(input, &nczarr::OpenOptions::default()).with_context(|| input.clone())?;
    let source = opened.source.as_ref();
    if source.file_location().is_none() {
        bail!("{input}: kerchunk references point into a netCDF file; this is a Zarr dataset, which xarray opens as it is");
    }
    let url = match opened.url.path() {
        Some(p) => std::fs::canonicalize(p)
            .with_context(|| input.clone())?
            .display()
            .to_string(),
        None => input.split('#').next().unwrap_or(input).to_string(),
    };
    // --url-prefix: the file named where it will be served (indexed locally, read from
    // the cloud): the prefix, then the file's name.
    let url = match &args.url_prefix {
        Some(prefix) => {
            let name = url.rsplit('/').next().unwrap_or(&url);
            format!("{}/{name}", prefix.trim_end_matches('/'))
        }
        None => url,
    };
    let options = nczarr::kerchunk::RefOptions {
        url,
        inline_all: args.inline_all,
        ..Default::default()
    };
    let (refs, _) =
        nczarr::kerchunk::references(source, &options).with_context(|| input.clone())?;
    let path = std::path::Path::new(&output);
    if let Ok(existing) = std::fs::read(path) {
        let text = String::from_utf8_lossy(&existing[..existing.len().min(4096)]).into_owned();
        if !(text.trim_start().starts_with('{') && text.contains("\"refs\"")) {
            bail!("{output}: already exists and is not a kerchunk reference file; nothing was written (only such a file is ever replaced)");
        }
    }
    let staged = nczarr::store::Staged::beside(path).with_context(|| output.clone())?;
    std::fs::write(&staged.temp, refs.to_text()).with_context(|| output.clone())?;
    staged.commit().with_context(|| output.clone())?;
    Ok(ExitCode::SUCCESS)
}
