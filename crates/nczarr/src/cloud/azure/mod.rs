//! Azure Blob settings for a dataset URL: account, container, key, credentials and
//! endpoint.
//!
//! The decisions are a pure function ([`resolve`]) of the URL and the environment
//! ([`AzureInputs`]), so every rule is tested without a process environment. The rules,
//! first match wins:
//!
//! | setting | sources |
//! |---|---|
//! | container, key | `az://container/key`, `abfs[s]://container@account.dfs.core.windows.net/key`, `https://account.blob.core.windows.net/container/key` |
//! | account | the URL's host; `AZURE_STORAGE_ACCOUNT_NAME` (or `AZURE_STORAGE_ACCOUNT`); with the emulator `devstoreaccount1` |
//! | endpoint | `AZURE_STORAGE_ENDPOINT` (the service URL, e.g. `http://127.0.0.1:10000/devstoreaccount1`); `AZURE_STORAGE_USE_EMULATOR=true`: `AZURITE_BLOB_STORAGE_URL` or `http://127.0.0.1:10000`, then `/<account>`; `https://<account>.blob.core.windows.net` |
//! | credentials | the URL's `azure.anon`: none; `AZURE_STORAGE_ACCOUNT_KEY` (or `AZURE_STORAGE_KEY`); `AZURE_STORAGE_SAS_TOKEN` (or `AZURE_STORAGE_SAS_KEY`); the emulator's well-known key; none |
//! | concurrency | the URL's `concurrency`; `NCZARR_CONCURRENCY`; 32 |
//!
//! Without credentials requests are unsigned (public containers); nothing asks the
//! managed-identity service. Secrets are held in [`Secret`] and never printed.

use std::collections::BTreeMap;

use super::Secret;
use crate::url::{DatasetUrl, Location};

mod client;
pub use client::azure_store;

/// The account every Azure Storage emulator (Azurite) serves.
pub const EMULATOR_ACCOUNT: &str = "devstoreaccount1";
/// The emulator account's published key.
const EMULATOR_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// How requests to an Azure container are signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AzureCredentials {
    /// Unsigned requests (public containers).
    Anonymous,
    /// The account's shared key.
    AccountKey(Secret),
    /// A shared access signature (the query string, without a leading `?`).
    Sas(Secret),
}

/// What [`resolve`] decided for an Azure dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AzureSettings {
    /// The storage account.
    pub account: String,
    /// The container.
    pub container: String,
    /// The dataset's root key inside the container, without leading or trailing `/`.
    pub key: String,
    /// The blob service URL (no trailing `/`).
    pub endpoint: String,
    /// How requests are signed.
    pub credentials: AzureCredentials,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Each decision and where it came from, for tracing (no secrets).
    pub decisions: Vec<String>,
}

/// The environment [`resolve`] looks at.
#[derive(Debug, Clone, Default)]
pub struct AzureInputs {
    /// Environment variables.
    pub vars: BTreeMap<String, String>,
}

impl AzureInputs {
    /// The process environment.
    pub fn from_process() -> AzureInputs {
        AzureInputs {
            vars: std::env::vars().collect(),
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The first of `names` that is set, with its name.
    fn first(&self, names: &[&'static str]) -> Option<(&str, &'static str)> {
        names.iter().find_map(|n| self.var(n).map(|v| (v, *n)))
    }
}

/// Why Azure settings could not be decided.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AzureError {
    /// The URL names no container.
    #[error("{0}: an Azure URL needs a container (az://container/key)")]
    NoContainer(String),
    /// Neither the URL nor the environment names the storage account.
    #[error("{0}: no storage account: name it in the URL (abfss://container@account.dfs.core.windows.net/key) or set AZURE_STORAGE_ACCOUNT_NAME")]
    NoAccount(String),
    /// A setting with a bad value.
    #[error("{0}")]
    Invalid(String),
}

/// Container, key and the account the URL's host names, if it does.
pub(crate) fn address(url: &DatasetUrl) -> Option<(String, String, Option<String>)> {
    let Location::Remote { scheme, host, path } = &url.location else {
        return None;
    };
    let path = path.trim_matches('/');
    let account_of = |h: &str| {
        let h = h.split(':').next().unwrap_or("").to_ascii_lowercase();
        [".blob.core.windows.net", ".dfs.core.windows.net"]
            .iter()
            .find_map(|s| h.strip_suffix(s).map(str::to_string))
    };
    let (container, key, account) = match scheme.as_str() {
        "http" | "https" => {
            let (c, k) = path.split_once('/').unwrap_or((path, ""));
            (c.to_string(), k.to_string(), account_of(host))
        }
        _ => match host.split_once('@') {
            Some((c, h)) => (c.to_string(), path.to_string(), account_of(h)),
            None => (host.clone(), path.to_string(), None),
        },
    };
    (!container.is_empty()).then(|| (container, key.trim_matches('/').to_string(), account))
}

/// Decide the Azure settings for `url`.
///
/// # Errors
/// [`AzureError`] when the URL names no container, no account can be found, or the
/// concurrency is not a number.
pub fn resolve(url: &DatasetUrl, inputs: &AzureInputs) -> Result<AzureSettings, AzureError> {
    let (container, key, url_account) =
        address(url).ok_or_else(|| AzureError::NoContainer(url.original.clone()))?;
    let mut decisions = Vec::new();
    let emulator = inputs
        .var("AZURE_STORAGE_USE_EMULATOR")
        .is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
    let account = if let Some(a) = url_account {
        decisions.push(format!("account {a} from the URL"));
        a
    } else if let Some((a, var)) =
        inputs.first(&["AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT"])
    {
        decisions.push(format!("account {a} from {var}"));
        a.to_string()
    } else if emulator {
        decisions.push(format!("account {EMULATOR_ACCOUNT}: the emulator's"));
        EMULATOR_ACCOUNT.to_string()
    } else {
        return Err(AzureError::NoAccount(url.original.clone()));
    };
    let endpoint = if let Some(e) = inputs.var("AZURE_STORAGE_ENDPOINT") {
        decisions.push(format!("endpoint {e} from AZURE_STORAGE_ENDPOINT"));
        e.trim_end_matches('/').to_string()
    } else if emulator {
        let base = inputs
            .var("AZURITE_BLOB_STORAGE_URL")
            .unwrap_or("http://127.0.0.1:10000")
            .trim_end_matches('/');
        decisions.push(format!(
            "endpoint {base}/{account}: the emulator (AZURE_STORAGE_USE_EMULATOR)"
        ));
        format!("{base}/{account}")
    } else {
        format!("https://{account}.blob.core.windows.net")
    };
    let credentials = if url.param("azure.anon").is_some() {
        decisions.push("credentials: none (the URL's azure.anon)".into());
        AzureCredentials::Anonymous
    } else if let Some((k, var)) = inputs.first(&["AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_KEY"])
    {
        decisions.push(format!("credentials: the account key in {var}"));
        AzureCredentials::AccountKey(Secret::new(k))
    } else if let Some((t, var)) =
        inputs.first(&["AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_SAS_KEY"])
    {
        decisions.push(format!("credentials: the SAS token in {var}"));
        AzureCredentials::Sas(Secret::new(t.trim_start_matches('?')))
    } else if emulator && account == EMULATOR_ACCOUNT {
        decisions.push("credentials: the emulator's well-known key".into());
        AzureCredentials::AccountKey(Secret::new(EMULATOR_KEY))
    } else {
        decisions
            .push("credentials: none found, requests are unsigned (public containers only)".into());
        AzureCredentials::Anonymous
    };
    let concurrency =
        super::concurrency(url, inputs.var("NCZARR_CONCURRENCY"), "NCZARR_CONCURRENCY")
            .map_err(AzureError::Invalid)?;
    decisions.push(format!("{concurrency} requests in flight at most"));
    Ok(AzureSettings {
        account,
        container,
        key,
        endpoint,
        credentials,
        concurrency,
        decisions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(url: &str, vars: &[(&str, &str)]) -> Result<AzureSettings, AzureError> {
        let inputs = AzureInputs {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        resolve(&DatasetUrl::parse(url).unwrap(), &inputs)
    }

    #[test]
    fn decision_table() {
        use AzureCredentials::*;
        let key = |k: &str| AccountKey(Secret::new(k));
        // (url, environment, account, container, key, endpoint, credentials)
        #[allow(clippy::type_complexity)]
        let cases: &[(
            &str,
            &[(&str, &str)],
            &str,
            &str,
            &str,
            &str,
            AzureCredentials,
        )] = &[
            (
                "az://c/a/b.zarr",
                &[("AZURE_STORAGE_ACCOUNT_NAME", "acct")],
                "acct",
                "c",
                "a/b.zarr",
                "https://acct.blob.core.windows.net",
                Anonymous,
            ),
            (
                "abfss://c@acct.dfs.core.windows.net/k",
                &[
                    ("AZURE_STORAGE_ACCOUNT_NAME", "other"),
                    ("AZURE_STORAGE_ACCOUNT_KEY", "s3cr3t"),
                ],
                "acct",
                "c",
                "k",
                "https://acct.blob.core.windows.net",
                key("s3cr3t"),
            ),
            (
                "https://acct.blob.core.windows.net/c/k/",
                &[("AZURE_STORAGE_SAS_TOKEN", "?sv=1&sig=x")],
                "acct",
                "c",
                "k",
                "https://acct.blob.core.windows.net",
                Sas(Secret::new("sv=1&sig=x")),
            ),
            // The key beats a SAS; the URL's azure.anon beats both.
            (
                "az://c/k",
                &[
                    ("AZURE_STORAGE_ACCOUNT", "acct"),
                    ("AZURE_STORAGE_KEY", "k1"),
                    ("AZURE_STORAGE_SAS_KEY", "sv=1"),
                ],
                "acct",
                "c",
                "k",
                "https://acct.blob.core.windows.net",
                key("k1"),
            ),
            (
                "az://c/k#azure.anon",
                &[
                    ("AZURE_STORAGE_ACCOUNT", "acct"),
                    ("AZURE_STORAGE_KEY", "k1"),
                ],
                "acct",
                "c",
                "k",
                "https://acct.blob.core.windows.net",
                Anonymous,
            ),
            // The emulator: its account, address and key unless others are given.
            (
                "az://c/k",
                &[("AZURE_STORAGE_USE_EMULATOR", "true")],
                EMULATOR_ACCOUNT,
                "c",
                "k",
                "http://127.0.0.1:10000/devstoreaccount1",
                key(EMULATOR_KEY),
            ),
            (
                "az://c/k",
                &[
                    ("AZURE_STORAGE_USE_EMULATOR", "true"),
                    ("AZURITE_BLOB_STORAGE_URL", "http://127.0.0.1:4000/"),
                ],
                EMULATOR_ACCOUNT,
                "c",
                "k",
                "http://127.0.0.1:4000/devstoreaccount1",
                key(EMULATOR_KEY),
            ),
            (
                "az://c/k",
                &[
                    ("AZURE_STORAGE_ACCOUNT_NAME", "devstoreaccount1"),
                    (
                        "AZURE_STORAGE_ENDPOINT",
                        "http://127.0.0.1:5/devstoreaccount1/",
                    ),
                    ("AZURE_STORAGE_SAS_TOKEN", "sv=2"),
                ],
                EMULATOR_ACCOUNT,
                "c",
                "k",
                "http://127.0.0.1:5/devstoreaccount1",
                Sas(Secret::new("sv=2")),
            ),
        ];
        for (url, vars, account, container, k, endpoint, creds) in cases {
            let s = decide(url, vars).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(
                (
                    s.account.as_str(),
                    s.container.as_str(),
                    s.key.as_str(),
                    s.endpoint.as_str()
                ),
                (*account, *container, *k, *endpoint),
                "{url} {vars:?}"
            );
            assert_eq!(&s.credentials, creds, "{url} {vars:?}");
            assert!(!format!("{s:?}").contains("s3cr3t"), "no secret in {s:?}");
        }
    }

    #[test]
    fn errors() {
        assert!(matches!(
            decide("az://c/k", &[]),
            Err(AzureError::NoAccount(_))
        ));
        assert!(matches!(
            decide("https://acct.blob.core.windows.net/", &[]),
            Err(AzureError::NoContainer(_))
        ));
        let e = decide(
            "az://c/k",
            &[
                ("AZURE_STORAGE_ACCOUNT_NAME", "a"),
                ("NCZARR_CONCURRENCY", "x"),
            ],
        );
        assert!(e.unwrap_err().to_string().contains("NCZARR_CONCURRENCY"));
    }
}
