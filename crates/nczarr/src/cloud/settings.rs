//! What every cloud's settings share: secrets that never print, how many requests a
//! store keeps in flight, and the client's timeouts and retries.

use std::fmt;
use std::time::Duration;

use object_store::{BackoffConfig, ClientOptions, RetryConfig};

use crate::url::DatasetUrl;

/// Requests in flight at once, unless the URL (`#...&concurrency=N`) or
/// `NCZARR_S3_CONCURRENCY` says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 32;

/// A secret value: never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wrap a secret.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }

    /// The secret itself, for the request signer only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("****")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("****")
    }
}

/// Requests in flight at once: the URL's `concurrency` key, else the environment
/// variable `var` (holding `value`), else [`DEFAULT_CONCURRENCY`]. Every cloud decides
/// it so.
///
/// # Errors
/// A message when the value is not a number from 1 to 1024.
pub(crate) fn concurrency(
    url: &DatasetUrl,
    value: Option<&str>,
    var: &str,
) -> Result<usize, String> {
    let given = url
        .param("concurrency")
        .map(|v| (v, "the URL's concurrency"))
        .or_else(|| value.map(|v| (v, var)));
    match given {
        Some((v, source)) => match v.trim().parse::<usize>() {
            Ok(n) if (1..=1024).contains(&n) => Ok(n),
            _ => Err(format!(
                "{source} must be a number from 1 to 1024, not '{v}'"
            )),
        },
        None => Ok(DEFAULT_CONCURRENCY),
    }
}

/// How long one request may take, and how long to wait for a connection. Generous for
/// large chunks on slow links, short enough that an unreachable endpoint fails fast.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The client options every cloud uses: timeouts, and idle connections for
/// `concurrency` requests in flight.
pub(super) fn client_options(concurrency: usize) -> ClientOptions {
    ClientOptions::new()
        .with_timeout(REQUEST_TIMEOUT)
        .with_connect_timeout(CONNECT_TIMEOUT)
        .with_pool_max_idle_per_host(concurrency)
}

/// Retries with backoff, the same for every cloud: 4 retries of a failed request
/// (connection errors, 5xx, throttling), from 100 ms to 5 s apart, within 60 s.
pub(super) fn retry_config() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            base: 2.0,
        },
        max_retries: 4,
        retry_timeout: Duration::from_secs(60),
    }
}
