//! `nczcopy -k icechunk --virtual`: a snapshot whose chunks are references to the
//! chunks of netCDF files (what `-k kerchunk` writes as JSON, `crate::kerchunk` finds
//! them), in Icechunk's manifests. The repository declares a virtual chunk container
//! for the files' places (each local file's directory, each bucket, each web server;
//! `--url-prefix` names the place the files are read from), saved before the commit
//! that refers to them. A local file's reference keeps its modification time: a file
//! changed since is refused by every reader rather than read wrong.

use std::collections::BTreeMap;
use std::path::PathBuf;

use icechunk::config::S3Options;
use icechunk::format::manifest::{
    Checksum, SecondsSinceEpoch, VirtualChunkLocation, VirtualChunkRef,
};
use icechunk::virtual_chunks::VirtualChunkContainer;
use icechunk::ObjectStoreConfig;

use crate::cloud::s3::{resolve, AwsInputs, Credentials};

use crate::kerchunk::Virtual;
use crate::place::icechunk::{chunk_of, said, write, CommitInfo, Committed};
use crate::store::{ListableStore, ReadableStore, StoreError, WritableStore};
use crate::url::DatasetUrl;

/// The URL a virtual reference names a file by: `file:///abs/path` for a local file.
fn location_url(url: &str) -> String {
    if url.starts_with('/') {
        format!("file://{url}")
    } else {
        url.to_string()
    }
}

/// When the local file `url` (`file://...`) last changed, in whole seconds rounded up
/// (readers refuse a file changed after that second, and a time cut to its second
/// would be before the change that made the file); `None` for another URL.
fn modified_of(url: &str) -> Option<u32> {
    let path = url.strip_prefix("file://")?;
    let m = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let since = m.duration_since(std::time::UNIX_EPOCH).ok()?;
    u32::try_from(since.as_secs() + u64::from(since.subsec_nanos() > 0)).ok()
}

/// `v`'s files as Icechunk's references name them, each with the time of change a
/// local file's references carry: what makes a reference of a range.
pub(crate) struct FileRefs {
    urls: Vec<String>,
    modified: Vec<Option<u32>>,
}

impl FileRefs {
    /// The files of `v` (a local file's time of change read once).
    pub(crate) fn of(v: &Virtual) -> FileRefs {
        let urls: Vec<String> = v.urls.iter().map(|u| location_url(u)).collect();
        let modified = urls.iter().map(|u| modified_of(u)).collect();
        FileRefs { urls, modified }
    }

    /// The reference to `length` bytes at `offset` of file `file` (an index into
    /// `v.urls`).
    ///
    /// # Errors
    /// A message naming a URL Icechunk cannot refer to.
    pub(crate) fn chunk_ref(
        &self,
        file: usize,
        offset: u64,
        length: u64,
    ) -> Result<VirtualChunkRef, String> {
        let url = &self.urls[file];
        let location =
            VirtualChunkLocation::from_url(url).map_err(|e| format!("{url}: {}", said(&e)))?;
        Ok(VirtualChunkRef {
            location,
            offset,
            length,
            checksum: self.modified[file].map(|s| Checksum::LastModified(SecondsSinceEpoch(s))),
        })
    }
}

/// The containers `v`'s files are in, each once.
///
/// # Errors
/// A message for a file URL Icechunk cannot refer to.
pub(crate) fn containers_of(v: &Virtual) -> Result<Vec<VirtualChunkContainer>, String> {
    let mut containers: BTreeMap<String, VirtualChunkContainer> = BTreeMap::new();
    for u in &v.urls {
        let c = container_of(&location_url(u))?;
        containers.insert(c.url_prefix().to_string(), c);
    }
    Ok(containers.into_values().collect())
}

/// The container a file's URL is in: a local file's directory, a bucket, a server.
///
/// # Errors
/// A message for a URL of no kind Icechunk can refer to.
fn container_of(url: &str) -> Result<VirtualChunkContainer, String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("'{url}' is not a URL"))?;
    let (prefix, store) = match scheme {
        "file" => {
            let dir = rest.rsplit_once('/').map_or("", |(d, _)| d);
            (
                format!("file://{dir}/"),
                ObjectStoreConfig::LocalFileSystem(PathBuf::from(dir)),
            )
        }
        "s3" | "gs" | "gcs" | "az" | "azure" | "http" | "https" => {
            let host = rest.split('/').next().unwrap_or("");
            let store = match scheme {
                "s3" => ObjectStoreConfig::S3(s3_options_of(url)),
                "gs" | "gcs" => ObjectStoreConfig::Gcs(Default::default()),
                "az" | "azure" => ObjectStoreConfig::Azure(Default::default()),
                _ => ObjectStoreConfig::Http(Default::default()),
            };
            (format!("{scheme}://{host}/"), store)
        }
        other => return Err(format!("'{url}': Icechunk refers to no {other}:// files")),
    };
    VirtualChunkContainer::new(prefix, store)
}

/// Where a reader finds the bucket of the S3 file `url`: the region and, for a server
/// that is not AWS (an `AWS_ENDPOINT_URL`, a profile's endpoint), its address, as our
/// settings decide them for the file, so icechunk-python reads the repository's
/// references with no configuration of its own. Credentials are never written: each
/// reader brings its own. Icechunk's defaults when no settings can be decided.
fn s3_options_of(url: &str) -> S3Options {
    let Some(settings) = DatasetUrl::parse(url)
        .ok()
        .and_then(|u| resolve(&u, &AwsInputs::from_process()).ok())
    else {
        return S3Options::default();
    };
    let custom = !settings.endpoint.contains(".amazonaws.com");
    // Non-exhaustive: set field by field.
    let mut options = S3Options::default();
    options.region = Some(settings.region);
    options.endpoint_url = custom.then(|| settings.endpoint.clone());
    options.anonymous = settings.credentials == Credentials::Anonymous;
    options.allow_http = settings.allow_http;
    options.force_path_style = custom;
    options
}

/// Commit `v`, the virtual dataset of files, as a snapshot of the repository at `url`
/// (a new one, or with `overwrite` a new snapshot of one).
///
/// # Errors
/// As a copy into a repository; a file URL Icechunk cannot
/// refer to; Icechunk's refusal of a reference.
pub(crate) fn commit_virtual(
    v: &Virtual,
    url: &DatasetUrl,
    overwrite: bool,
    info: CommitInfo,
) -> Result<Committed, StoreError> {
    let fail = |message: String| StoreError::Archive {
        location: url.original.clone(),
        message,
    };
    let files = FileRefs::of(v);
    let containers = containers_of(v).map_err(fail)?;
    let writing = write::start(url, overwrite, info, Some(containers))?;
    let store = &writing.store;
    // The documents and inlined chunks (the writer's order: chunks wait for their
    // array's document).
    let items: Vec<(crate::store::StoreKey, Vec<u8>)> = v
        .memory
        .list()?
        .into_iter()
        .filter_map(|(k, _)| v.memory.get(&k).transpose().map(|b| b.map(|b| (k, b))))
        .collect::<Result<_, _>>()?;
    store.put_many(&items)?;
    let mut by_array: BTreeMap<String, Vec<(icechunk::format::ChunkIndices, VirtualChunkRef)>> =
        BTreeMap::new();
    for (key, file, offset, len) in &v.ranges {
        let (path, coords) =
            chunk_of(key).ok_or_else(|| fail(format!("'{key}' is not a chunk key")))?;
        let chunk = files.chunk_ref(*file, *offset, *len).map_err(fail)?;
        by_array
            .entry(path.as_str().to_string())
            .or_default()
            .push((coords, chunk));
    }
    let runtime = store.runtime();
    for (path, refs) in by_array {
        let node = icechunk::format::Path::new(&path).map_err(|e| fail(e.to_string()))?;
        let result = runtime
            .block_on(store.icechunk_store().set_virtual_refs(&node, true, refs))
            .map_err(|e| fail(format!("array '{path}': {}", said(&e.kind))))?;
        if let icechunk::store::SetVirtualRefsResult::FailedRefs(failed) = result {
            return Err(fail(format!(
                "array '{path}': {} references were refused (first: chunk {:?})",
                failed.len(),
                failed.first().map(|c| c.0.clone()).unwrap_or_default()
            )));
        }
    }
    writing.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_directories_buckets_and_servers() {
        let c = container_of("file:///data/daily/tas_2020.nc").unwrap();
        assert_eq!(c.url_prefix(), "file:///data/daily/");
        let c = container_of("s3://bucket/a/b/x.nc").unwrap();
        assert_eq!(c.url_prefix(), "s3://bucket/");
        let c = container_of("https://host.org/files/x.nc").unwrap();
        assert_eq!(c.url_prefix(), "https://host.org/");
        assert!(container_of("ftp://x/y").is_err());
        assert_eq!(location_url("/a/b.nc"), "file:///a/b.nc");
    }
}
