//! Google Cloud Storage settings for a dataset URL: bucket, key, credentials and
//! endpoint.
//!
//! The decisions are a pure function ([`resolve`]) of the URL and of [`GcsInputs`]
//! (environment variables and the `type` of each credentials file they name, read up
//! front by [`GcsInputs::from_process`]), so every rule is tested without touching
//! `$HOME`. The rules, first match wins:
//!
//! | setting | sources |
//! |---|---|
//! | bucket, key | `gs://bucket/key`, `gcs://bucket/key`, `https://storage.googleapis.com/bucket/key` |
//! | credentials | the URL's `gcs.token=anon`: none; `GOOGLE_SERVICE_ACCOUNT` or `GOOGLE_SERVICE_ACCOUNT_PATH` (a service-account JSON file, object_store's names); `GOOGLE_APPLICATION_CREDENTIALS` (a service-account file, or gcloud's `authorized_user` file); gcloud's application-default file (`$CLOUDSDK_CONFIG`, else `~/.config/gcloud`, `/application_default_credentials.json`); none |
//! | endpoint | a service-account file's `gcs_base_url` (emulators, with `"disable_oauth": true`); `STORAGE_EMULATOR_HOST` (the emulator variable of Google's SDKs and gcsfs); `https://storage.googleapis.com` |
//! | concurrency | the URL's `concurrency`; `NCZARR_CONCURRENCY`; 32 |
//!
//! Without credentials requests are unsigned (public buckets); nothing ever asks the
//! GCE metadata server, and writing without credentials is refused before any request.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::url::{DatasetUrl, Location};

mod client;
pub use client::gcs_store;
pub(crate) use client::writable;

/// Where the credentials of a GCS store come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GcsCredentials {
    /// Unsigned requests (public buckets).
    Anonymous,
    /// A service-account JSON file (it may carry an emulator's `gcs_base_url`).
    ServiceAccount(PathBuf),
    /// gcloud's application-default credentials (an `authorized_user` file).
    ApplicationDefault(PathBuf),
}

/// What [`resolve`] decided for a GCS dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcsSettings {
    /// The bucket.
    pub bucket: String,
    /// The dataset's root key inside the bucket, without leading or trailing `/`.
    pub key: String,
    /// How requests are signed.
    pub credentials: GcsCredentials,
    /// The endpoint when not the service account's or Google's own.
    pub base_url: Option<String>,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Each decision and where it came from, for tracing (no secrets).
    pub decisions: Vec<String>,
}

/// Everything [`resolve`] looks at besides the URL.
#[derive(Debug, Clone, Default)]
pub struct GcsInputs {
    /// Environment variables.
    pub vars: BTreeMap<String, String>,
    /// The `type` of each credentials file the environment names (`None`: the file
    /// exists but has no readable `type`); a missing file is not a key.
    pub files: BTreeMap<PathBuf, Option<String>>,
}

/// Why GCS settings could not be decided.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GcsError {
    /// The URL names no bucket.
    #[error("{0}: a GCS URL needs a bucket (gs://bucket/key)")]
    NoBucket(String),
    /// A credentials file named by a variable does not exist.
    #[error("{var} names {path}, which does not exist")]
    MissingFile {
        /// The variable.
        var: String,
        /// The file it names.
        path: String,
    },
    /// A setting with a bad value.
    #[error("{0}")]
    Invalid(String),
}

/// The variables that name a service-account file, in the order they are tried.
const SERVICE_ACCOUNT_VARS: &[&str] = &["GOOGLE_SERVICE_ACCOUNT", "GOOGLE_SERVICE_ACCOUNT_PATH"];

impl GcsInputs {
    /// Read the process environment and the credentials files it names.
    pub fn from_process() -> GcsInputs {
        GcsInputs::load(std::env::vars().collect())
    }

    /// Read the credentials files `vars` (an environment) names.
    pub fn load(vars: BTreeMap<String, String>) -> GcsInputs {
        let mut inputs = GcsInputs {
            vars,
            files: BTreeMap::new(),
        };
        let candidates: Vec<PathBuf> = SERVICE_ACCOUNT_VARS
            .iter()
            .chain(&["GOOGLE_APPLICATION_CREDENTIALS"])
            .filter_map(|v| inputs.var(v).map(PathBuf::from))
            .chain(inputs.gcloud_default())
            .collect();
        for path in candidates {
            if let Ok(text) = std::fs::read_to_string(&path) {
                let kind = crate::json::parse_str(&text).ok().and_then(|j| {
                    j.get("type")
                        .and_then(crate::json::Json::as_str)
                        .map(str::to_string)
                });
                inputs.files.insert(path, kind);
            }
        }
        inputs
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// gcloud's application-default credentials file.
    fn gcloud_default(&self) -> Option<PathBuf> {
        let dir = match self.var("CLOUDSDK_CONFIG") {
            Some(d) => PathBuf::from(d),
            None => Path::new(self.var("HOME")?).join(".config/gcloud"),
        };
        Some(dir.join("application_default_credentials.json"))
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }
}

/// The bucket and key a GCS URL names.
fn bucket_and_key(url: &DatasetUrl) -> Option<(String, String)> {
    let Location::Remote { scheme, host, path } = &url.location else {
        return None;
    };
    let path = path.trim_matches('/');
    let (bucket, key) = match scheme.as_str() {
        "gs" | "gcs" => (host.as_str(), path),
        _ => path.split_once('/').unwrap_or((path, "")),
    };
    (!bucket.is_empty()).then(|| (bucket.to_string(), key.trim_matches('/').to_string()))
}

/// Decide the GCS settings for `url`.
///
/// # Errors
/// [`GcsError`] when the URL names no bucket, a variable names a credentials file that
/// does not exist, or the concurrency is not a number.
pub fn resolve(url: &DatasetUrl, inputs: &GcsInputs) -> Result<GcsSettings, GcsError> {
    let (bucket, key) =
        bucket_and_key(url).ok_or_else(|| GcsError::NoBucket(url.original.clone()))?;
    let mut decisions = Vec::new();
    let file = |var: &str| -> Result<Option<PathBuf>, GcsError> {
        match inputs.var(var) {
            None => Ok(None),
            Some(p) if inputs.exists(Path::new(p)) => Ok(Some(PathBuf::from(p))),
            Some(p) => Err(GcsError::MissingFile {
                var: var.to_string(),
                path: p.to_string(),
            }),
        }
    };
    let mut credentials = None;
    if url
        .param("gcs.token")
        .is_some_and(|t| t.eq_ignore_ascii_case("anon"))
    {
        decisions.push("credentials: none (the URL's gcs.token=anon)".to_string());
        credentials = Some(GcsCredentials::Anonymous);
    }
    for var in SERVICE_ACCOUNT_VARS {
        if credentials.is_some() {
            break;
        }
        if let Some(path) = file(var)? {
            decisions.push(format!(
                "credentials: the service account in {} ({var})",
                path.display()
            ));
            credentials = Some(GcsCredentials::ServiceAccount(path));
        }
    }
    if credentials.is_none() {
        if let Some(path) = file("GOOGLE_APPLICATION_CREDENTIALS")? {
            let kind = inputs.files.get(&path).cloned().flatten();
            decisions.push(format!(
                "credentials: {} ({}, GOOGLE_APPLICATION_CREDENTIALS)",
                path.display(),
                kind.as_deref().unwrap_or("no type")
            ));
            credentials = Some(match kind.as_deref() {
                Some("authorized_user") => GcsCredentials::ApplicationDefault(path),
                _ => GcsCredentials::ServiceAccount(path),
            });
        }
    }
    if credentials.is_none() {
        if let Some(path) = inputs.gcloud_default().filter(|p| inputs.exists(p)) {
            decisions.push(format!(
                "credentials: gcloud's application default, {}",
                path.display()
            ));
            credentials = Some(GcsCredentials::ApplicationDefault(path));
        }
    }
    let emulator = inputs.var("STORAGE_EMULATOR_HOST").is_some();
    let credentials = credentials.unwrap_or_else(|| {
        decisions.push(if emulator {
            "credentials: none needed by the emulator (STORAGE_EMULATOR_HOST)".into()
        } else {
            "credentials: none found, requests are unsigned (public buckets only)".into()
        });
        GcsCredentials::Anonymous
    });
    let base_url = inputs.var("STORAGE_EMULATOR_HOST").map(|h| {
        let h = h.trim_end_matches('/');
        if h.starts_with("http://") || h.starts_with("https://") {
            h.to_string()
        } else {
            format!("http://{h}")
        }
    });
    match &base_url {
        Some(b) => decisions.push(format!("endpoint {b} from STORAGE_EMULATOR_HOST")),
        None => decisions.push(
            "endpoint: the service account's gcs_base_url, else https://storage.googleapis.com"
                .into(),
        ),
    }
    let concurrency =
        super::concurrency(url, inputs.var("NCZARR_CONCURRENCY"), "NCZARR_CONCURRENCY")
            .map_err(GcsError::Invalid)?;
    decisions.push(format!("{concurrency} requests in flight at most"));
    Ok(GcsSettings {
        bucket,
        key,
        credentials,
        base_url,
        concurrency,
        decisions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(vars: &[(&str, &str)], files: &[(&str, Option<&str>)]) -> GcsInputs {
        GcsInputs {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            files: files
                .iter()
                .map(|(p, t)| (PathBuf::from(p), t.map(str::to_string)))
                .collect(),
        }
    }

    fn decide(url: &str, i: &GcsInputs) -> Result<GcsSettings, GcsError> {
        resolve(&DatasetUrl::parse(url).unwrap(), i)
    }

    #[test]
    fn decision_table() {
        use GcsCredentials::*;
        let sa = || ServiceAccount(PathBuf::from("/k/sa.json"));
        let adc = |p: &str| ApplicationDefault(PathBuf::from(p));
        let gcloud = "/h/.config/gcloud/application_default_credentials.json";
        // (url, environment, files that exist with their type, credentials, base url)
        #[allow(clippy::type_complexity)]
        let cases: &[(
            &str,
            &[(&str, &str)],
            &[(&str, Option<&str>)],
            GcsCredentials,
            Option<&str>,
        )] = &[
            ("gs://b/k", &[], &[], Anonymous, None),
            (
                "gs://b/k",
                &[("HOME", "/h")],
                &[(gcloud, Some("authorized_user"))],
                adc(gcloud),
                None,
            ),
            (
                "gs://b/k",
                &[("HOME", "/h"), ("CLOUDSDK_CONFIG", "/c")],
                &[(gcloud, Some("authorized_user"))],
                Anonymous,
                None,
            ),
            (
                "gs://b/k",
                &[("GOOGLE_SERVICE_ACCOUNT", "/k/sa.json")],
                &[("/k/sa.json", Some("service_account"))],
                sa(),
                None,
            ),
            (
                "gs://b/k",
                &[("GOOGLE_SERVICE_ACCOUNT_PATH", "/k/sa.json")],
                &[("/k/sa.json", None)],
                sa(),
                None,
            ),
            (
                "gs://b/k",
                &[("GOOGLE_APPLICATION_CREDENTIALS", "/k/sa.json")],
                &[("/k/sa.json", Some("service_account"))],
                sa(),
                None,
            ),
            (
                "gs://b/k",
                &[("GOOGLE_APPLICATION_CREDENTIALS", "/k/user.json")],
                &[("/k/user.json", Some("authorized_user"))],
                adc("/k/user.json"),
                None,
            ),
            // The service-account variables come first; the URL's anon beats them all.
            (
                "gs://b/k",
                &[
                    ("GOOGLE_APPLICATION_CREDENTIALS", "/k/user.json"),
                    ("GOOGLE_SERVICE_ACCOUNT", "/k/sa.json"),
                ],
                &[
                    ("/k/user.json", Some("authorized_user")),
                    ("/k/sa.json", Some("service_account")),
                ],
                sa(),
                None,
            ),
            (
                "gs://b/k#gcs.token=anon",
                &[("GOOGLE_SERVICE_ACCOUNT", "/k/sa.json")],
                &[("/k/sa.json", Some("service_account"))],
                Anonymous,
                None,
            ),
            (
                "gs://b/k",
                &[("STORAGE_EMULATOR_HOST", "localhost:4443")],
                &[],
                Anonymous,
                Some("http://localhost:4443"),
            ),
            (
                "https://storage.googleapis.com/b/k",
                &[("STORAGE_EMULATOR_HOST", "https://e.example/")],
                &[],
                Anonymous,
                Some("https://e.example"),
            ),
        ];
        for (url, vars, files, creds, base) in cases {
            let s = decide(url, &inputs(vars, files)).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(
                (&s.bucket, s.key.as_str()),
                (&"b".to_string(), "k"),
                "{url}"
            );
            assert_eq!(&s.credentials, creds, "{url} {vars:?}");
            assert_eq!(s.base_url.as_deref(), *base, "{url} {vars:?}");
        }
    }

    #[test]
    fn addresses_concurrency_and_errors() {
        let none = GcsInputs::default();
        let s = decide("gcs://bucket#concurrency=4", &none).unwrap();
        assert_eq!(
            (s.bucket.as_str(), s.key.as_str(), s.concurrency),
            ("bucket", "", 4)
        );
        let s = decide("https://storage.googleapis.com/b/a/b.zarr/", &none).unwrap();
        assert_eq!((s.bucket.as_str(), s.key.as_str()), ("b", "a/b.zarr"));
        assert!(matches!(
            decide("https://storage.googleapis.com/", &none),
            Err(GcsError::NoBucket(_))
        ));
        let e = decide(
            "gs://b/k",
            &inputs(&[("GOOGLE_APPLICATION_CREDENTIALS", "/nope.json")], &[]),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "GOOGLE_APPLICATION_CREDENTIALS names /nope.json, which does not exist"
        );
        assert!(decide("gs://b/k", &inputs(&[("NCZARR_CONCURRENCY", "0")], &[])).is_err());
    }
}
