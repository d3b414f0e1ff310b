//! GETs to an OPeNDAP server: one client and the shared I/O runtime, failed requests
//! retried, several in flight at once, and every answer checked for the ways servers
//! say no (a status, a DAP `Error {}` body, an HTML page).

use std::time::Duration;

use futures::StreamExt;

use super::settings::HttpSettings;
use crate::error::DapError;

/// Requests in flight at once.
pub(crate) const IN_FLIGHT: usize = 8;

/// Tries of a request that failed for a reason that may pass (a connection dropped, a
/// 502/503/504).
const TRIES: u32 = 4;

/// A client for one server's answers.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    runtime: &'static tokio::runtime::Runtime,
    trace: Option<crate::store::TraceSink>,
    /// Logins, the dataset's host, and the cookies servers have set.
    session: std::sync::Arc<Session>,
}

/// What the requests of one dataset share: who to log in as where, and the cookies
/// servers set on the way (NASA Earthdata Login's: the login host's redirect back
/// carries one, and every later request shows it).
struct Session {
    settings: HttpSettings,
    dataset_host: String,
    /// `(domain, name, value)`.
    cookies: std::sync::Mutex<Vec<(String, String, String)>>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").finish_non_exhaustive()
    }
}

/// Redirects followed at most.
const MAX_REDIRECTS: usize = 10;

impl Fetcher {
    /// A client with `settings` for the dataset at `url`.
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
        let client = crate::cloud::web_client(&crate::cloud::WebClientOptions {
            agent: settings.user_agent.clone(),
            timeout: settings.timeout,
            connect_timeout: settings.connect_timeout,
            verify_peer: settings.verify_peer,
            proxy: settings.proxy.clone(),
        })
        .map_err(fail)?;
        let dataset_host = url::Url::parse(url)
            .ok()
            .map(|u| host_key(&u))
            .unwrap_or_default();
        let cookies = settings
            .cookies
            .iter()
            .filter_map(|(domain, pair)| {
                let (n, v) = pair.split_once('=')?;
                Some((domain.clone(), n.to_string(), v.to_string()))
            })
            .collect();
        Ok(Fetcher {
            client,
            runtime,
            trace,
            session: std::sync::Arc::new(Session {
                settings: settings.clone(),
                dataset_host,
                cookies: std::sync::Mutex::new(cookies),
            }),
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
        let session = &*self.session;
        self.runtime.block_on(async move {
            futures::stream::iter(urls.into_iter().map(|url| async move {
                if let Some(t) = trace {
                    t(&format!("fetch: {url}"));
                }
                let got = match url.strip_prefix("file://") {
                    Some(path) => read_saved(&url, path),
                    None => get_once_retried(client, session, &url).await,
                };
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

/// A saved answer (netcdf-c's `file://` DAP2): the file, which cannot be asked for
/// part of itself.
fn read_saved(url: &str, path: &str) -> Result<Vec<u8>, DapError> {
    if path.contains('?') {
        return Err(DapError::Request {
            url: url.to_string(),
            message: "a dataset in files cannot be constrained (netcdf-c's file:// DAP2 neither)"
                .into(),
        });
    }
    let body = std::fs::read(path).map_err(|e| DapError::Request {
        url: url.to_string(),
        message: e.to_string(),
    })?;
    if let Some(message) = dap_error(&body) {
        return Err(DapError::Server {
            url: url.to_string(),
            status: 200,
            message,
            dap: true,
        });
    }
    Ok(body)
}

/// A URL's host as logins and cookies know it: its name, and `:port` when given.
fn host_key(u: &url::Url) -> String {
    let host = u.host_str().unwrap_or("").to_ascii_lowercase();
    match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

async fn get_once_retried(
    client: &reqwest::Client,
    session: &Session,
    url: &str,
) -> Result<Vec<u8>, DapError> {
    let mut wait = Duration::from_millis(200);
    let mut tries = 0;
    loop {
        tries += 1;
        match get_once(client, session, url).await {
            Err(Passing(_)) if tries < TRIES => {
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

/// One GET of `url`, redirects followed by hand: each hop checked by
/// [`crate::reach::check_redirect`] from the first URL, a login sent only to the host
/// it is for (and, like curl, only once that host asks: a 401 is asked again with
/// it), cookies kept from hop to hop.
async fn get_once(
    client: &reqwest::Client,
    session: &Session,
    url: &str,
) -> Result<Vec<u8>, Failure> {
    let request_failed = |e: reqwest::Error| {
        let err = DapError::Request {
            url: url.to_string(),
            message: brief(&e),
        };
        // A stalled server stalls again (HTTP.TIMEOUT is the wait, not a quarter of it).
        if e.is_builder() || e.is_timeout() {
            Final(err)
        } else {
            Passing(err)
        }
    };
    let first = url::Url::parse(url).map_err(|e| {
        Final(DapError::Request {
            url: url.to_string(),
            message: format!("not a URL: {e}"),
        })
    })?;
    let mut at = first.clone();
    let mut with_login = false;
    let mut hops = 0;
    let answer = loop {
        let host = host_key(&at);
        let mut request = client.get(at.clone());
        if let Some(cookie) = session.cookie_header(&host) {
            request = request.header(reqwest::header::COOKIE, cookie);
        }
        let login = session.settings.login_for(&host, &session.dataset_host);
        if let (true, Some(l)) = (with_login, login) {
            request = request.basic_auth(&l.user, Some(&l.password));
        }
        let answer = request.send().await.map_err(request_failed)?;
        session.keep_cookies(&host, answer.headers());
        let status = answer.status();
        if status == reqwest::StatusCode::UNAUTHORIZED && !with_login && login.is_some() {
            with_login = true;
            continue;
        }
        if !status.is_redirection() {
            break answer;
        }
        let Some(next) = answer
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .and_then(|l| at.join(l).ok())
        else {
            break answer;
        };
        hops += 1;
        if hops > MAX_REDIRECTS {
            return Err(Final(DapError::Request {
                url: url.to_string(),
                message: format!("more than {MAX_REDIRECTS} redirects"),
            }));
        }
        if let Err(refusal) = crate::reach::check_redirect(&first, &next) {
            return Err(Final(DapError::Request {
                url: url.to_string(),
                message: refusal.to_string(),
            }));
        }
        // A login goes with the first request to a host only where it is for that
        // host and the host is the login host of a redirect chain (Earthdata Login
        // asks at once, without a 401).
        with_login = next.host_str() != first.host_str()
            && session
                .settings
                .login_for(&host_key(&next), &session.dataset_host)
                .is_some_and(|l| l.machine.is_some());
        at = next;
    };
    let status = answer.status();
    let body = answer.bytes().await.map_err(request_failed)?.to_vec();
    if !status.is_success() {
        let mut message = server_message(&body).unwrap_or_else(|| {
            status
                .canonical_reason()
                .unwrap_or("no reason given")
                .to_string()
        });
        if status == reqwest::StatusCode::UNAUTHORIZED {
            let key = host_key(&at);
            let host = at.host_str().unwrap_or("");
            message.push_str(
                &match session.settings.login_for(&key, &session.dataset_host) {
                    Some(_) => format!(" (the login for {host} was refused)"),
                    None => format!(
                    " (a login for {host} goes in ~/.netrc, or the file .ncrc's HTTP.NETRC names)"
                ),
                },
            );
        }
        let err = DapError::Server {
            url: url.to_string(),
            status: status.as_u16(),
            message,
            dap: dap_error(&body).is_some(),
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
            dap: true,
        }));
    }
    Ok(body)
}

impl Session {
    /// The `Cookie` header for a request to `host`: the cookies of its domain and of
    /// the domains it is under.
    fn cookie_header(&self, host: &str) -> Option<String> {
        let bare = host.split(':').next().unwrap_or(host);
        let cookies = self.cookies.lock().ok()?;
        let pairs: Vec<String> = cookies
            .iter()
            .filter(|(d, _, _)| bare == d || bare.ends_with(&format!(".{d}")) || host == d)
            .map(|(_, n, v)| format!("{n}={v}"))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }

    /// Keep the cookies an answer from `host` sets (its `Domain`, or the host).
    fn keep_cookies(&self, host: &str, headers: &reqwest::header::HeaderMap) {
        let bare = host.split(':').next().unwrap_or(host).to_string();
        let Ok(mut cookies) = self.cookies.lock() else {
            return;
        };
        for value in headers.get_all(reqwest::header::SET_COOKIE) {
            let Ok(text) = value.to_str() else { continue };
            let mut parts = text.split(';').map(str::trim);
            let Some((name, value)) = parts.next().and_then(|p| p.split_once('=')) else {
                continue;
            };
            let domain = parts
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| k.eq_ignore_ascii_case("domain"))
                .map(|(_, d)| d.trim_start_matches('.').to_ascii_lowercase())
                // A cookie for another domain than the host's is not kept.
                .filter(|d| bare == *d || bare.ends_with(&format!(".{d}")))
                .unwrap_or_else(|| bare.clone());
            cookies.retain(|(d, n, _)| !(d == &domain && n == name));
            cookies.push((domain, name.to_string(), value.to_string()));
        }
    }
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
    let inner = |tag: &str| {
        let open = lower.find(&format!("<{tag}"))?;
        let start = open + lower[open..].find('>')? + 1;
        let end = start + lower[start..].find(&format!("</{tag}"))?;
        Some(strip_tags(&text[start..end]))
    };
    // DAP4's error document: <Error httpcode="..."><Message>...</Message>...
    if lower.contains("<error") {
        if let Some(m) = inner("message").filter(|m| !m.is_empty()) {
            return Some(one_line(
                &m.replace("&quot;", "\"")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&"),
            ));
        }
    }
    if lower.contains("<html") || lower.contains("<!doctype") {
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
