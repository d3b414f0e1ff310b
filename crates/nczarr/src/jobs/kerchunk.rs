//! [`KerchunkJob`]: kerchunk's references to the chunks of one netCDF file, or of
//! several joined into one virtual dataset, written as one local JSON file
//! (`nczcopy -k kerchunk`). How each file is named in the references is decided here
//! (a local path made absolute, an S3 object as `s3://bucket/key`, or a prefix given).

use std::path::PathBuf;

use super::inputs::{check_not_output, InputOptions, Inputs};
use crate::concat::{Concat, ConcatOptions};
use crate::error::{Error, JobError, Result};
use crate::kerchunk::{references, references_joined, RefOptions, Virtual};
use crate::open::{check_target, CreateOptions, Opened};
use crate::url::{DatasetUrl, StorageKind};

/// References to write, as nczcopy's options describe them.
pub struct KerchunkJob {
    /// The netCDF files, in the order given (several are joined).
    pub inputs: Vec<String>,
    /// The reference file written.
    pub output: String,
    /// Replace a reference file already there.
    pub overwrite: bool,
    /// How the inputs are opened and joined.
    pub read: InputOptions,
    /// Name each file in the references as this prefix and the file's name.
    pub url_prefix: Option<String>,
    /// What is inlined and split (its `url` is set here).
    pub refs: RefOptions,
    /// Commit the references as a snapshot of an Icechunk repository at the output
    /// (`-k icechunk --virtual`) instead of writing kerchunk's JSON.
    pub icechunk: Option<crate::place::icechunk::CommitInfo>,
}

/// What the references hold, for the caller to say.
pub struct KerchunkReport {
    /// Variables inlined as values instead of referenced, each with the reason.
    pub inlined_instead: Vec<String>,
}

impl KerchunkJob {
    /// Write the references. `differences` hears the attributes that differ between
    /// joined inputs before anything is written.
    ///
    /// # Errors
    /// The output's place (a directory or another kind of file is never replaced; a
    /// reference file only with `overwrite`), named after the output; an input that
    /// is a Zarr dataset; open, join, read and write errors, named.
    pub fn run(mut self, differences: &mut dyn FnMut(&[String])) -> Result<KerchunkReport> {
        let output = self.output.clone();
        let place = CreateOptions {
            overwrite: self.overwrite,
            ..Default::default()
        };
        check_not_output(&self.inputs, Some(&output))?;
        // What a reference file may never replace first: `overwrite` would not help.
        if self.icechunk.is_none() {
            refs_place(&output)?;
        }
        check_target(&output, &place).map_err(|e| e.named(&output))?;
        self.read.output = Some(output.clone());
        let inputs = Inputs::open(&self.inputs, &self.read)?;
        let names = inputs.names();
        let urls = reference_urls(&inputs, self.url_prefix.as_deref())?;
        self.refs.url = urls[0].clone();
        if let Some(info) = self.icechunk.take() {
            return self.commit_virtual(&inputs, &urls, info, differences);
        }
        let (refs, counts) = if names.len() == 1 {
            references(inputs.first().source.as_ref(), &self.refs)
                .map_err(|e| e.named(&names[0]))?
        } else {
            let joined = Concat::new(inputs.named_sources(None), &self.read.join)?;
            differences(&joined.attribute_differences());
            references_joined(&joined, join_order(&joined, names, &urls), &self.refs)
                .map_err(|e| e.named(format!("{} -> {output}", names.join(" "))))?
        };
        write_refs(&output, &refs.to_text())?;
        Ok(KerchunkReport {
            inlined_instead: counts.inlined_instead,
        })
    }

    /// The references committed as a snapshot of the Icechunk repository at the
    /// output.
    fn commit_virtual(
        &self,
        inputs: &Inputs,
        urls: &[String],
        info: crate::place::icechunk::CommitInfo,
        differences: &mut dyn FnMut(&[String]),
    ) -> Result<KerchunkReport> {
        let output = &self.output;
        let what = format!("{} -> {output}", inputs.names().join(" "));
        let v = virtual_of(
            inputs,
            urls,
            &self.read.join,
            &self.refs,
            differences,
            &what,
        )?;
        let url = DatasetUrl::parse(output).map_err(|e| Error::from(e).named(output))?;
        crate::kerchunk::icechunk::commit_virtual(&v, &url, self.overwrite, info)
            .map_err(|e| Error::from(e).named(output))?;
        Ok(KerchunkReport {
            inlined_instead: v.counts.inlined_instead,
        })
    }
}

/// The URLs references name `inputs` by (see [`reference_url`]), in the order given.
///
/// # Errors
/// As [`reference_url`].
pub(crate) fn reference_urls(inputs: &Inputs, url_prefix: Option<&str>) -> Result<Vec<String>> {
    inputs
        .names()
        .iter()
        .zip(inputs.opened())
        .map(|(name, input)| reference_url(name, input, url_prefix))
        .collect()
}

/// `urls` (one per input named in `names`, in the order given) in the order `joined`
/// joins the inputs (`sort` may have changed it).
fn join_order(joined: &Concat, names: &[String], urls: &[String]) -> Vec<String> {
    joined
        .input_names()
        .filter_map(|n| names.iter().position(|m| m == n))
        .map(|i| urls[i].clone())
        .collect()
}

/// The virtual dataset (Zarr version 3 documents, the chunks' ranges) of `inputs`,
/// references naming them by `urls`: one file, or several joined by `join` (the
/// attributes they differ in told to `differences`). `what` names a failed join.
///
/// # Errors
/// An input's read errors, named; a join that does not fit, named by `what`.
pub(crate) fn virtual_of(
    inputs: &Inputs,
    urls: &[String],
    join: &ConcatOptions,
    refs: &RefOptions,
    differences: &mut dyn FnMut(&[String]),
    what: &str,
) -> Result<Virtual> {
    let names = inputs.names();
    let refs = RefOptions {
        url: urls[0].clone(),
        ..refs.clone()
    };
    if names.len() == 1 {
        return crate::kerchunk::virtual_one(inputs.first().source.as_ref(), &refs)
            .map_err(|e| e.named(&names[0]));
    }
    let joined = Concat::new(inputs.named_sources(None), join)?;
    differences(&joined.attribute_differences());
    crate::kerchunk::virtual_joined(&joined, join_order(&joined, names, urls), &refs)
        .map_err(|e| e.named(what))
}

/// How references name the input `name`: what the user gave, a local path made
/// absolute, an S3 object as `s3://bucket/key`; with a URL prefix, the prefix and the
/// file's name (indexed locally, read from the cloud).
///
/// # Errors
/// A Zarr input (references are to files' chunks); a path that cannot be resolved.
pub(crate) fn reference_url(
    name: &str,
    input: &Opened,
    url_prefix: Option<&str>,
) -> Result<String> {
    if input.source.file_location().is_none() {
        return Err(JobError::ZarrForReferences {
            name: name.to_string(),
        }
        .into());
    }
    let url = match input.url.path() {
        Some(p) => std::fs::canonicalize(p)
            .map_err(|e| Error::from(e).named(name))?
            .display()
            .to_string(),
        // An S3 object named by its endpoint (`http://host/bucket/key#mode=s3`) is
        // `s3://bucket/key`, as fsspec names it; the endpoint is the reader's
        // setting.
        None if input.url.storage == StorageKind::S3 => {
            let at = crate::cloud::s3::S3Address::from_url(&input.url)
                .map_err(|e| Error::from(e).named(name))?;
            format!("s3://{}/{}", at.bucket, at.key)
        }
        None => name.split('#').next().unwrap_or(name).to_string(),
    };
    Ok(match url_prefix {
        Some(prefix) => {
            let file = url.rsplit('/').next().unwrap_or(&url);
            format!("{}/{file}", prefix.trim_end_matches('/'))
        }
        None => url,
    })
}

/// `text` written to `output` as a whole (staged, then renamed), replacing only a
/// reference file (and that only with `overwrite`, checked before the inputs were
/// read).
fn write_refs(output: &str, text: &str) -> Result<()> {
    let path = refs_place(output)?;
    let named = |e: Error| e.named(output);
    let staged = crate::store::Staged::beside(&path).map_err(|e| named(e.into()))?;
    std::fs::write(&staged.temp, text).map_err(|e| named(e.into()))?;
    staged.commit().map_err(|e| named(e.into()))?;
    Ok(())
}

/// The local path a reference file is written to, after checking what is there: a
/// directory (whatever it holds, a dataset too) or a file of another kind is never
/// replaced by a reference file, `overwrite` or not.
fn refs_place(output: &str) -> Result<PathBuf> {
    let url = DatasetUrl::parse(output).map_err(|e| Error::from(e).named(output))?;
    let Some(path) = url.path().filter(|_| !output.ends_with('/')) else {
        return Err(JobError::ReferencesNotLocal {
            output: output.to_string(),
        }
        .into());
    };
    crate::place::examine_refs_path(path)
        .and_then(|e| e.or_refuse(output))
        .map_err(|e| Error::from(e).named(output))?;
    Ok(path.to_path_buf())
}
