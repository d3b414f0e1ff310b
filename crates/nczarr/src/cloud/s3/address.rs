//! Where an S3 dataset is: bucket, root key, and the endpoint or region its URL names.
//!
//! Every spelling netcdf-c accepts, reduced (as netcdf-c does) to path-style addressing
//! with the bucket as the first key segment:
//! - `s3://bucket/key` (endpoint and region come from the resolver);
//! - `https://bucket.s3.<region>.amazonaws.com/key` and `https://bucket.s3.amazonaws.com/key`
//!   (virtual-hosted), also the older `bucket.s3-<region>.amazonaws.com`;
//! - `https://s3.<region>.amazonaws.com/bucket/key` and `https://s3.amazonaws.com/bucket/key`;
//! - `gs3://bucket/key`, and `gs://`, `gcs://` or `https://storage.googleapis.com/bucket/key`
//!   with `mode=s3`/`gs3` (Google's S3 API; without it they are native GCS URLs);
//! - any other host (MinIO, Ceph, SeaweedFS, ...): `http[s]://host[:port]/bucket/key`, the
//!   host being the endpoint.

use crate::url::{DatasetUrl, Location};

/// The S3 location of a dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Address {
    /// The bucket.
    pub bucket: String,
    /// The dataset's root key inside the bucket, without leading or trailing `/`.
    pub key: String,
    /// The endpoint the URL itself names (`http://127.0.0.1:9000`), for non-AWS hosts.
    pub endpoint: Option<String>,
    /// The region an AWS host names (`eu-west-1` in `s3.eu-west-1.amazonaws.com`).
    pub host_region: Option<String>,
    /// The URL's scheme, lower case.
    pub scheme: String,
    /// The URL's host (for `s3://` the bucket), for matching rc entries.
    pub host: String,
    /// The URL's path, for matching rc entries.
    pub path: String,
}

/// Why a URL does not name an S3 location.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url}: {reason}")]
pub struct AddressError {
    /// The URL as given.
    pub url: String,
    /// What is missing or wrong.
    pub reason: String,
}

const GOOGLE: &str = "storage.googleapis.com";

impl S3Address {
    /// The S3 location `url` names.
    ///
    /// # Errors
    /// [`AddressError`] for a local path, a URL without a bucket, or an `amazonaws.com`
    /// host that is not an S3 endpoint.
    pub fn from_url(url: &DatasetUrl) -> Result<S3Address, AddressError> {
        let err = |reason: &str| AddressError {
            url: url.original.clone(),
            reason: reason.to_string(),
        };
        let Location::Remote { scheme, host, path } = &url.location else {
            return Err(err("not a remote URL"));
        };
        let path_trimmed = path.trim_matches('/');
        let split_first = |p: &str| -> (String, String) {
            match p.split_once('/') {
                Some((b, k)) => (b.to_string(), k.trim_matches('/').to_string()),
                None => (p.to_string(), String::new()),
            }
        };
        let lower_host = host.to_ascii_lowercase();
        let (bucket, key, endpoint, host_region) = match scheme.as_str() {
            "s3" => (host.clone(), path_trimmed.to_string(), None, None),
            // Google's S3 API (`gs://` only with `mode=s3`: otherwise it is native GCS).
            "gs3" | "gs" | "gcs" => (
                host.clone(),
                path_trimmed.to_string(),
                Some(format!("https://{GOOGLE}")),
                None,
            ),
            _ if lower_host == GOOGLE => {
                let (b, k) = split_first(path_trimmed);
                (b, k, Some(format!("https://{GOOGLE}")), None)
            }
            _ if lower_host.ends_with(".amazonaws.com") => {
                let front = &lower_host[..lower_host.len() - ".amazonaws.com".len()];
                let region_of = |s: &str| -> Option<String> {
                    let r = s.trim_start_matches(['.', '-']);
                    (!r.is_empty()).then(|| r.to_string())
                };
                if front == "s3" || front.starts_with("s3.") || front.starts_with("s3-") {
                    // Path style: the bucket is the first path segment.
                    let (b, k) = split_first(path_trimmed);
                    (b, k, None, region_of(&front[2..]))
                } else if let Some(i) = front.find(".s3") {
                    // Virtual-hosted style: the bucket is in the host.
                    let rest = &front[i + 3..];
                    if !(rest.is_empty() || rest.starts_with('.') || rest.starts_with('-')) {
                        return Err(err("an amazonaws.com host that is not an S3 endpoint"));
                    }
                    (
                        host[..i].to_string(),
                        path_trimmed.to_string(),
                        None,
                        region_of(rest),
                    )
                } else {
                    return Err(err("an amazonaws.com host that is not an S3 endpoint"));
                }
            }
            _ => {
                let (b, k) = split_first(path_trimmed);
                (b, k, Some(format!("{scheme}://{host}")), None)
            }
        };
        if bucket.is_empty() {
            return Err(err("the URL names no bucket"));
        }
        Ok(S3Address {
            bucket,
            key,
            endpoint,
            host_region,
            scheme: scheme.clone(),
            host: host.clone(),
            path: path.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(u: &str) -> S3Address {
        S3Address::from_url(&DatasetUrl::parse(u).unwrap()).unwrap()
    }

    /// Bucket, key, endpoint, host region.
    type Parts<'a> = (&'a str, &'a str, Option<&'a str>, Option<&'a str>);

    fn parts(a: &S3Address) -> Parts<'_> {
        (
            &a.bucket,
            &a.key,
            a.endpoint.as_deref(),
            a.host_region.as_deref(),
        )
    }

    #[test]
    fn every_spelling() {
        let table: &[(&str, Parts)] = &[
            (
                "s3://mybucket/a/b/c.zarr",
                ("mybucket", "a/b/c.zarr", None, None),
            ),
            ("s3://mybucket", ("mybucket", "", None, None)),
            ("s3://mybucket/x/#mode=zarr", ("mybucket", "x", None, None)),
            (
                "https://mybucket.s3.us-west-2.amazonaws.com/a/b",
                ("mybucket", "a/b", None, Some("us-west-2")),
            ),
            (
                "https://my.dotted.bucket.s3.eu-west-1.amazonaws.com/k",
                ("my.dotted.bucket", "k", None, Some("eu-west-1")),
            ),
            (
                "https://mybucket.s3.amazonaws.com/x",
                ("mybucket", "x", None, None),
            ),
            (
                "https://mybucket.s3-ap-south-1.amazonaws.com/x",
                ("mybucket", "x", None, Some("ap-south-1")),
            ),
            (
                "https://s3.us-west-2.amazonaws.com/mybucket/a/b",
                ("mybucket", "a/b", None, Some("us-west-2")),
            ),
            (
                "https://s3.amazonaws.com/mybucket/x",
                ("mybucket", "x", None, None),
            ),
            (
                "gs3://bkt/k",
                ("bkt", "k", Some("https://storage.googleapis.com"), None),
            ),
            (
                "https://storage.googleapis.com/bkt/k",
                ("bkt", "k", Some("https://storage.googleapis.com"), None),
            ),
            (
                "https://minio.example.com:9000/bkt/key#mode=nczarr,s3",
                ("bkt", "key", Some("https://minio.example.com:9000"), None),
            ),
            (
                "http://127.0.0.1:8333/bucket/ds.zarr#mode=nczarr,s3",
                ("bucket", "ds.zarr", Some("http://127.0.0.1:8333"), None),
            ),
        ];
        for (url, want) in table {
            assert_eq!(parts(&addr(url)), *want, "{url}");
        }
    }

    #[test]
    fn refusals() {
        for (url, why) in [
            ("/local/path", "not a remote URL"),
            ("https://s3.us-east-1.amazonaws.com/", "names no bucket"),
            ("http://127.0.0.1:9000/#mode=s3", "names no bucket"),
            (
                "https://ec2.us-east-1.amazonaws.com/x",
                "not an S3 endpoint",
            ),
            ("https://bucket.s3x.amazonaws.com/x", "not an S3 endpoint"),
        ] {
            let e = S3Address::from_url(&DatasetUrl::parse(url).unwrap()).unwrap_err();
            assert!(e.to_string().contains(why), "{url}: {e}");
        }
    }
}
