//! GETs to an OPeNDAP server: one client and the shared I/O runtime, failed requests
//! retried, several in flight at once, and every answer checked for the ways servers
//! say no (a status, a DAP `Error {}` body, an HTML page).

use std::time::Duration;

use futures::StreamExt;

use super::error::DapError;

/// Requests in flight at once.
pub(crate) const IN_FLIGHT: usize = 8;

/// Tries of a request that failed for a reason that may pass (a connection dropped, a
/// 502/503/504).
const TRIES: u32 = 4;

/// How a server is reached: `.ncrc`'s `HTTP.*` keys, in the library's terms.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    /// `HTTP.USERAGENT`.
    pub user_agent: Option<String>,
    /// `HTTP.TIMEOUT`: the most a request waits for its next bytes.
    pub timeout: Duration,
    /// `HTTP.SSL.VERIFYPEER=0` turns certificate checks off.
    pub verify_peer: bool,
}

impl Default for HttpSettings {
    fn default() -> HttpSettings {
        HttpSettings {
            user_agent: None,
            timeout: Duration::from_secs(120),
            verify_peer: true,
        }
    }
}

/// A client for one server's answers.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    runtime: &'static tokio::runtime::Runtime,
    trace: Option<crate::store::TraceSink>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A client with `settings`.
    ///
    /// # Errors
    /// [`DapError::Request`] when the client or the runtime cannot start.
    pub(crate) fn new(
        url: &str,
        settings: &HttpSettings,
        trace: Option<crate::store::TraceSink>,
    ) -> Result<Fetcher, DapError> {
        let fail = |message: String| DapError::Request {
            url: url.to_string(),
            message,
        };
        let runtime = crate::cloud::io_runtime().map_err(fail)?;
        let client = crate::cloud::web_client(
            settings.user_agent.as_deref(),
            settings.timeout,
            settings.verify_peer,
        )
        .map_err(fail)?;
        Ok(Fetcher {
            client,
            runtime,
            trace,
        })
    }

    /// The body of `url`, or why there is none.
    ///
    /// # Errors
    /// As [`Fetcher::get_many`].
    pub(crate) fn get(&self, url: &str) -> Result<Vec<u8>, DapError> {
        self.get_many(vec![url.to_string()])
            .pop()
            .unwrap_or_else(|| {
                Err(DapError::Request {
                    url: url.to_string(),
                    message: "no answer".into(),
                })
            })
    }

    /// The bodies of `urls`, in their order, up to [`IN_FLIGHT`] asked at once.
    ///
    /// # Errors
    /// Each: [`DapError::Request`] when no answer came, [`DapError::Server`] for a
    /// status other than 2xx or a DAP error body.
    pub(crate) fn get_many(&self, urls: Vec<String>) -> Vec<Result<Vec<u8>, DapError>> {
        let client = &self.client;
        let trace = &self.trace;
        self.runtime.block_on(async move {
            futures::stream::iter(urls.into_iter().map(|url| async move {
                if let Some(t) = trace {
                    t(&format!("fetch: {url}"));
                }
                let got = get_once_retried(client, &url).await;
                if let (Some(t), Ok(body)) = (trace, &got) {
                    t(&format!("fetch complete: {url}: {} bytes", body.len()));
                }
                got
            }))
            .buffered(IN_FLIGHT)
            .collect::<Vec<_>>()
            .await
        })
    }
}

async fn get_once_retried(client: &reqwest::Client, url: &str) -> Result<Vec<u8>, DapError> {
    let mut wait = Duration::from_millis(200);
    let mut tries = 0;
    loop {
        tries += 1;
        match get_once(client, url).await {
            Err(Passing(e)) if tries < TRIES => {
                let _ = e;
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            Err(Passing(e) | Final(e)) => return Err(e),
            Ok(body) => return Ok(body),
        }
    }
}

/// A failure that may pass when asked again, or one that will not.
enum Failure {
    Passing(DapError),
    Final(DapError),
}
use Failure::{Final, Passing};

async fn get_once(client: &reqwest::Client, url: &str) -> Result<Vec<u8>, Failure> {
    let request_failed = |e: reqwest::Error| {
        let message = brief(&e);
        let err = DapError::Request {
            url: url.to_string(),
            message,
        };
        // A redirect refused or a certificate rejected will be refused again.
        if e.is_redirect() || e.is_builder() {
            Final(err)
        } else {
            Passing(err)
        }
    };
    let answer = client.get(url).send().await.map_err(request_failed)?;
    let status = answer.status();
    let body = answer.bytes().await.map_err(request_failed)?.to_vec();
    if !status.is_success() {
        let err = DapError::Server {
            url: url.to_string(),
            status: status.as_u16(),
            message: server_message(&body).unwrap_or_else(|| {
                status
                    .canonical_reason()
                    .unwrap_or("no reason given")
                    .to_string()
            }),
        };
        return Err(if matches!(status.as_u16(), 502..=504) {
            Passing(err)
        } else {
            Final(err)
        });
    }
    // Some servers answer an error with 200 and a DAP `Error {}` body.
    if let Some(message) = dap_error(&body) {
        return Err(Final(DapError::Server {
            url: url.to_string(),
            status: status.as_u16(),
            message,
        }));
    }
    Ok(body)
}

/// A reqwest error in one line, with its causes.
fn brief(e: &reqwest::Error) -> String {
    let mut s = if e.is_timeout() {
        "the server stopped answering (timed out)".to_string()
    } else if e.is_connect() {
        "cannot connect".to_string()
    } else {
        "request failed".to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        source = cause.source();
    }
    s
}

/// The message of a DAP2 `Error { code = N; message = "..."; };` body.
pub(crate) fn dap_error(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    if !t.starts_with("Error") || !t[5..].trim_start().starts_with('{') {
        return None;
    }
    let message = t
        .find("message")
        .and_then(|i| {
            let rest = &t[i..];
            let open = rest.find('"')? + 1;
            let close = rest[open..]
                .find("\";")
                .or_else(|| rest[open..].rfind('"'))?;
            Some(
                rest[open..open + close]
                    .replace("\\\"", "\"")
                    .replace("\\n", " "),
            )
        })
        .unwrap_or_else(|| t.lines().take(3).collect::<Vec<_>>().join(" "));
    Some(one_line(&message))
}

/// What a failed answer says: a DAP error's message, an HTML page's title (or first
/// text), or the start of a text body.
pub(crate) fn server_message(body: &[u8]) -> Option<String> {
    if let Some(m) = dap_error(body) {
        return Some(m);
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(16384)]);
    let lower = text.to_ascii_lowercase();
    if lower.contains("<html") || lower.contains("<!doctype") {
        let inner = |tag: &str| {
            let open = lower.find(&format!("<{tag}"))?;
            let start = open + lower[open..].find('>')? + 1;
            let end = start + lower[start..].find(&format!("</{tag}"))?;
            Some(strip_tags(&text[start..end]))
        };
        let said = inner("title")
            .filter(|t| !t.is_empty())
            .or_else(|| inner("h1"))?;
        return Some(format!("an HTML page: {}", one_line(&said)));
    }
    let t = one_line(&text);
    (!t.is_empty()).then(|| t.chars().take(200).collect())
}

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in s.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_messages() {
        assert_eq!(
            dap_error(b"Error {\n  code = 404;\n  message = \"No such file: \\\"x.nc\\\"\";\n};")
                .as_deref(),
            Some("No such file: \"x.nc\"")
        );
        assert_eq!(dap_error(b"Dataset { } x;"), None);
        assert_eq!(
            server_message(b"<html><head><title>404 Not Found</title></head></html>").as_deref(),
            Some("an HTML page: 404 Not Found")
        );
        assert_eq!(server_message(b"").as_deref(), None);
    }
}
