//! What every cloud's settings share: secrets that never print, and how many
//! requests a store keeps in flight.

use std::fmt;

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
