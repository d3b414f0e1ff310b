//! S3 settings for a dataset URL: profile, region, credentials and endpoint.
//!
//! The decisions are a pure function ([`resolve`]) of the URL and of [`AwsInputs`]
//! (environment variables, the AWS config and credentials files, netcdf-c's rc
//! entries), gathered up front by [`AwsInputs::from_process`], so every rule is tested
//! without touching `$HOME`. The rules, first match wins:
//!
//! | setting | sources |
//! |---|---|
//! | profile | `aws.profile` fragment key; `AWS.PROFILE` in an rc file (URL-qualified entries first); `AWS_PROFILE`; `default` |
//! | credentials | profile `none` or `no`: unsigned requests. A profile named by the fragment or an rc file: its keys, else the environment's, else unsigned. Otherwise: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`), else the profile's keys, else unsigned |
//! | region | `aws.region` fragment key; the region in an AWS host of the URL; the profile's `region` (or 4.9's `aws_region`); `AWS.REGION` in an rc file; `AWS_REGION`, `AWS_DEFAULT_REGION`; `us-east-1` |
//! | endpoint | the URL's own host (non-AWS); `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`; the profile's `endpoint_url` (or `s3 = endpoint_url`); `https://s3.<region>.amazonaws.com` |
//! | plain HTTP | allowed when the URL itself says `http://`, or `AWS_ALLOW_HTTP=true` |
//!
//! A profile's keys come from the credentials file, then the config file. A region in
//! the URL's host beats the profile and environment because requests go to that host,
//! and AWS accepts only signatures made for the host's region.
//!
//! Nothing ever falls back to the EC2 instance metadata service: with no keys found the
//! requests are unsigned, and a private bucket answers with a clear "access denied".
//! Secrets are held in [`Secret`], whose `Debug` and `Display` print `****`.

mod address;
mod client;
mod ini;

pub use address::{AddressError, S3Address};
pub use client::s3_store;
pub use ini::AwsIni;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::settings::{concurrency, Secret};
use crate::rc::{rc_paths, RcEntries, RcTarget};
use crate::url::DatasetUrl;

/// How requests are signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// Unsigned requests (public buckets; profile `none`).
    Anonymous,
    /// Access keys.
    Keys {
        /// The access key id (not secret; shown in traces as its last 4 characters).
        access_key_id: String,
        /// The secret access key.
        secret_access_key: Secret,
        /// A session token, for temporary credentials.
        session_token: Option<Secret>,
    },
}

/// Everything needed to talk to the bucket holding a dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Settings {
    /// Bucket and root key.
    pub address: S3Address,
    /// `scheme://host[:port]` requests go to (path-style).
    pub endpoint: String,
    /// The signing region.
    pub region: String,
    /// The active profile's name.
    pub profile: String,
    /// How requests are signed.
    pub credentials: Credentials,
    /// Plain `http://` endpoints are allowed.
    pub allow_http: bool,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Where each setting came from, for `NCTRACING` (no secrets).
    pub decisions: Vec<String>,
}

/// What the resolver reads, gathered in one place.
#[derive(Debug, Clone, Default)]
pub struct AwsInputs {
    /// Environment variables.
    pub vars: BTreeMap<String, String>,
    /// `~/.aws/config` (or `$AWS_CONFIG_FILE`).
    pub config: AwsIni,
    /// `~/.aws/credentials` (or `$AWS_SHARED_CREDENTIALS_FILE`).
    pub credentials: AwsIni,
    /// netcdf-c's rc files.
    pub rc: RcEntries,
    /// Which files were read or missing, for tracing.
    pub notes: Vec<String>,
}

impl AwsInputs {
    /// Read the process environment, the AWS files and the rc files.
    pub fn from_process() -> AwsInputs {
        let vars: BTreeMap<String, String> = std::env::vars().collect();
        let cwd = std::env::current_dir().ok();
        AwsInputs::load(vars, cwd.as_deref())
    }

    /// Read the files that `vars` (an environment) points at.
    pub fn load(vars: BTreeMap<String, String>, cwd: Option<&Path>) -> AwsInputs {
        let mut notes = Vec::new();
        let home = vars
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let aws_file = |var: &str, name: &str| -> Option<PathBuf> {
            vars.get(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".aws").join(name)))
        };
        let mut read = |path: Option<PathBuf>| -> Option<String> {
            let path = path?;
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    notes.push(format!("read {}", path.display()));
                    Some(text)
                }
                Err(e) => {
                    notes.push(format!("not read: {}: {e}", path.display()));
                    None
                }
            }
        };
        let config = read(aws_file("AWS_CONFIG_FILE", "config"))
            .map(|t| AwsIni::parse(&t))
            .unwrap_or_default();
        let credentials = read(aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials"))
            .map(|t| AwsIni::parse(&t))
            .unwrap_or_default();
        let mut rc = RcEntries::default();
        for path in rc_paths(&vars, cwd) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                notes.push(format!("read {}", path.display()));
                rc.add_text(&path.display().to_string(), &text);
            }
        }
        AwsInputs {
            vars,
            config,
            credentials,
            rc,
            notes,
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A profile's setting: the config file first for settings, the credentials file
    /// first for keys (as the AWS CLI reads them).
    fn profile_get(&self, profile: &str, key: &str, keys_first: bool) -> Option<&str> {
        let (a, b) = if keys_first {
            (&self.credentials, &self.config)
        } else {
            (&self.config, &self.credentials)
        };
        a.get(profile, key).or_else(|| b.get(profile, key))
    }
}

/// Why S3 settings could not be decided.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AwsError {
    /// The URL does not name a bucket.
    #[error(transparent)]
    Address(#[from] AddressError),
    /// A profile was asked for by name and is defined nowhere.
    #[error("AWS profile '{profile}' (from {origin}) is not defined in the AWS config or credentials file")]
    UnknownProfile {
        /// The profile.
        profile: String,
        /// Who asked for it.
        origin: String,
    },
    /// The endpoint is plain HTTP and that was not allowed.
    #[error(
        "endpoint {endpoint} (from {origin}) is plain HTTP; set AWS_ALLOW_HTTP=true to allow it"
    )]
    HttpNotAllowed {
        /// The endpoint.
        endpoint: String,
        /// Where it came from.
        origin: String,
    },
    /// A setting that does not parse.
    #[error("{0}")]
    Invalid(String),
}

/// Decide the S3 settings for `url`.
///
/// # Errors
/// [`AwsError`] when the URL names no bucket, a named profile does not exist, an
/// endpoint is plain HTTP without permission, or the concurrency is not a number.
pub fn resolve(url: &DatasetUrl, inputs: &AwsInputs) -> Result<S3Settings, AwsError> {
    let address = S3Address::from_url(url)?;
    let target = RcTarget::new(&address.scheme, &address.host, &address.path);
    let rc = |key: &str| inputs.rc.lookup(key, Some(&target));
    let mut decisions = Vec::new();

    // Profile.
    let (profile, source, explicit) = if let Some(p) = url.param("aws.profile") {
        (p.to_string(), "the URL's aws.profile".to_string(), true)
    } else if let Some(e) = rc("AWS.PROFILE") {
        (
            e.value.clone(),
            format!("AWS.PROFILE at {}", e.origin),
            true,
        )
    } else if let Some(p) = inputs.var("AWS_PROFILE") {
        (p.to_string(), "AWS_PROFILE".to_string(), false)
    } else {
        ("default".to_string(), "the default".to_string(), false)
    };
    let unsigned_profile = matches!(profile.as_str(), "none" | "no");
    let defined = inputs.config.has_profile(&profile) || inputs.credentials.has_profile(&profile);
    if !unsigned_profile && !defined && source != "the default" {
        return Err(AwsError::UnknownProfile {
            profile,
            origin: source,
        });
    }
    decisions.push(format!("profile '{profile}' from {source}"));

    // Credentials.
    let env_keys = match (
        inputs.var("AWS_ACCESS_KEY_ID"),
        inputs.var("AWS_SECRET_ACCESS_KEY"),
    ) {
        (Some(id), Some(secret)) => Some(Credentials::Keys {
            access_key_id: id.to_string(),
            secret_access_key: Secret::new(secret),
            session_token: inputs.var("AWS_SESSION_TOKEN").map(Secret::new),
        }),
        _ => None,
    };
    let profile_keys = match (
        inputs.profile_get(&profile, "aws_access_key_id", true),
        inputs.profile_get(&profile, "aws_secret_access_key", true),
    ) {
        (Some(id), Some(secret)) => Some(Credentials::Keys {
            access_key_id: id.to_string(),
            secret_access_key: Secret::new(secret),
            session_token: inputs
                .profile_get(&profile, "aws_session_token", true)
                .map(Secret::new),
        }),
        _ => None,
    };
    let (credentials, cred_source) = if unsigned_profile {
        (Credentials::Anonymous, format!("profile '{profile}'"))
    } else {
        let from_profile = profile_keys.map(|c| (c, format!("profile '{profile}'")));
        let from_env = env_keys.map(|c| (c, "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY".into()));
        let found = if explicit {
            from_profile.or(from_env)
        } else {
            from_env.or(from_profile)
        };
        found.unwrap_or((Credentials::Anonymous, "no keys found".into()))
    };
    decisions.push(match &credentials {
        Credentials::Anonymous => format!("unsigned requests ({cred_source})"),
        Credentials::Keys {
            access_key_id,
            session_token,
            ..
        } => format!(
            "keys ...{} from {cred_source}{}",
            tail(access_key_id),
            if session_token.is_some() {
                " with a session token"
            } else {
                ""
            }
        ),
    });

    // Region.
    let region_sources: [(Option<String>, String); 6] = [
        (
            url.param("aws.region").map(str::to_string),
            "the URL's aws.region".into(),
        ),
        (address.host_region.clone(), "the URL's host".into()),
        (
            inputs
                .profile_get(&profile, "region", false)
                .or_else(|| inputs.profile_get(&profile, "aws_region", false))
                .map(str::to_string),
            format!("profile '{profile}'"),
        ),
        (
            rc("AWS.REGION").map(|e| e.value.clone()),
            rc("AWS.REGION")
                .map(|e| format!("AWS.REGION at {}", e.origin))
                .unwrap_or_default(),
        ),
        (
            inputs
                .var("AWS_REGION")
                .or_else(|| inputs.var("AWS_DEFAULT_REGION"))
                .map(str::to_string),
            if inputs.var("AWS_REGION").is_some() {
                "AWS_REGION".into()
            } else {
                "AWS_DEFAULT_REGION".into()
            },
        ),
        (Some("us-east-1".into()), "the default".into()),
    ];
    let (region, region_source) = region_sources
        .into_iter()
        .find_map(|(v, s)| v.filter(|v| !v.is_empty()).map(|v| (v, s)))
        .unwrap_or_else(|| ("us-east-1".into(), "the default".into()));
    decisions.push(format!("region {region} from {region_source}"));

    // Endpoint.
    let (endpoint, endpoint_source) = if let Some(e) = &address.endpoint {
        (e.clone(), "the URL".to_string())
    } else if let Some(e) = inputs.var("AWS_ENDPOINT_URL_S3") {
        (e.to_string(), "AWS_ENDPOINT_URL_S3".into())
    } else if let Some(e) = inputs.var("AWS_ENDPOINT_URL") {
        (e.to_string(), "AWS_ENDPOINT_URL".into())
    } else if let Some(e) = inputs
        .profile_get(&profile, "s3.endpoint_url", false)
        .or_else(|| inputs.profile_get(&profile, "endpoint_url", false))
    {
        (e.to_string(), format!("profile '{profile}'"))
    } else {
        (
            format!("https://s3.{region}.amazonaws.com"),
            "the region".into(),
        )
    };
    let endpoint = endpoint.trim_end_matches('/').to_string();
    let allow_http = inputs
        .var("AWS_ALLOW_HTTP")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || (endpoint_source == "the URL" && address.scheme == "http");
    if endpoint.starts_with("http://") && !allow_http {
        return Err(AwsError::HttpNotAllowed {
            endpoint,
            origin: endpoint_source,
        });
    }
    decisions.push(format!("endpoint {endpoint} from {endpoint_source}"));

    let concurrency = concurrency(
        url,
        inputs.var("NCZARR_S3_CONCURRENCY"),
        "NCZARR_S3_CONCURRENCY",
    )
    .map_err(AwsError::Invalid)?;
    decisions.push(format!("{concurrency} requests in flight at most"));

    Ok(S3Settings {
        address,
        endpoint,
        region,
        profile,
        credentials,
        allow_http,
        concurrency,
        decisions,
    })
}

/// The last 4 characters of an access key id: enough to tell keys apart in a trace.
fn tail(id: &str) -> &str {
    let n = id.chars().count();
    let skip = n.saturating_sub(4);
    id.char_indices().nth(skip).map_or(id, |(i, _)| &id[i..])
}

#[cfg(test)]
mod tests;
