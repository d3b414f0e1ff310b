//! What every remote store of one process shares: one I/O runtime, and one HTTP
//! client for each set of client options. A client of its own for each store cost a
//! reading of the system's CA certificates each (a few milliseconds of PEM parsing:
//! most of the time of opening a year of daily files on a web server), a runtime of its
//! own two threads each, and no connection kept alive from one file to the next on
//! the same server.
//!
//! The clients are built here rather than by `object_store`, whose own builder follows
//! any redirect: a web server could send us on to `http://169.254.169.254/` (a cloud
//! machine's credentials) or to this machine's own services. Ours follows a redirect
//! only as [`crate::reach::check_redirect`] allows.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use object_store::client::{DnsError, DnsFuture, DnsResolver, HttpClient, HttpConnector};
use object_store::{ClientConfigKey, ClientOptions};

/// The runtime every remote store drives its requests on (two worker threads for the
/// connections' tasks; each caller's `block_on` drives its own requests).
///
/// # Errors
/// The reason when the runtime cannot be started.
pub(crate) fn io_runtime() -> Result<&'static tokio::runtime::Runtime, String> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("nczarr-io")
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the I/O runtime: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// An [`HttpConnector`] that builds one client for each set of client options and
/// hands it to every store asking with the same options.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct SharedConnector;

impl HttpConnector for SharedConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        static CLIENTS: OnceLock<Mutex<HashMap<String, HttpClient>>> = OnceLock::new();
        // The options' every field, printed: equal options, one client.
        let key = format!("{options:?}");
        let clients = CLIENTS.get_or_init(|| Mutex::new(HashMap::new()));
        if let Some(client) = clients.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(client);
        }
        let client = HttpClient::new(reqwest_client(options)?);
        if let Ok(mut c) = clients.lock() {
            c.entry(key).or_insert_with(|| client.clone());
        }
        Ok(client)
    }
}

/// Redirects followed at most, one after another (reqwest's own limit).
const MAX_REDIRECTS: usize = 10;

/// The client `object_store` would build from `options` (its `ClientOptions::client`),
/// following redirects only as [`crate::reach::check_redirect`] allows.
///
/// The options this crate sets are mapped; any other set one is an error rather than
/// silently dropped (default headers and root certificates cannot be read back from
/// `ClientOptions`: this crate sets none).
///
/// # Errors
/// An option this function does not map, a duration that does not parse, or the
/// client failing to build.
fn reqwest_client(options: &ClientOptions) -> object_store::Result<reqwest::Client> {
    use ClientConfigKey as Key;
    let fail = |message: String| object_store::Error::Generic {
        store: "HTTP",
        source: message.into(),
    };
    let value = |key: Key| options.get_config_value(&key);
    let on = |key: Key| value(key).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let duration = |key: Key| -> object_store::Result<Option<Duration>> {
        value(key)
            .map(|v| {
                humantime::parse_duration(&v)
                    .map_err(|e| fail(format!("client option {key:?} '{v}': {e}")))
            })
            .transpose()
    };
    let unmapped = [
        Key::ProxyUrl,
        Key::ProxyCaCertificate,
        Key::ProxyExcludes,
        Key::ReadTimeout,
        Key::PoolIdleTimeout,
        Key::Http2KeepAliveInterval,
        Key::Http2KeepAliveTimeout,
        Key::Http2MaxFrameSize,
    ]
    .into_iter()
    .filter(|k| value(*k).is_some())
    .chain(
        [
            Key::AllowInvalidCertificates,
            Key::NoSystemCertificates,
            Key::Http2Only,
            Key::Http2KeepAliveWhileIdle,
        ]
        .into_iter()
        .filter(|k| on(*k)),
    )
    .next();
    if let Some(key) = unmapped {
        return Err(fail(format!(
            "client option {key:?} is not one nczarr's HTTP client maps"
        )));
    }
    let agent =
        value(Key::UserAgent).unwrap_or_else(|| format!("nczarr/{}", env!("CARGO_PKG_VERSION")));
    // As object_store: no transparent decompression, which would make the
    // Content-Length (an object's size) disagree with the bytes read.
    let mut builder = reqwest::Client::builder()
        .user_agent(agent)
        .redirect(redirect_policy())
        .no_gzip()
        .no_brotli()
        .no_zstd()
        .no_deflate()
        .https_only(!on(Key::AllowHttp));
    let resolver: Option<Arc<dyn DnsResolver>> = match options.dns_resolver() {
        Some(r) => Some(Arc::clone(r)),
        None if on(Key::RandomizeAddresses) => Some(Arc::new(ShuffledDns)),
        None => None,
    };
    if let Some(resolver) = resolver {
        builder = builder.dns_resolver(Arc::new(ReqwestDns(resolver)));
    }
    if on(Key::Http1Only) {
        builder = builder.http1_only();
    }
    if let Some(t) = duration(Key::Timeout)? {
        builder = builder.timeout(t);
    }
    if let Some(t) = duration(Key::ConnectTimeout)? {
        builder = builder.connect_timeout(t);
    }
    if let Some(n) = value(Key::PoolMaxIdlePerHost) {
        let n = n
            .parse()
            .map_err(|_| fail(format!("client option PoolMaxIdlePerHost '{n}'")))?;
        builder = builder.pool_max_idle_per_host(n);
    }
    builder
        .build()
        .map_err(|e| fail(format!("cannot build the HTTP client: {e}")))
}

/// How [`web_client`] builds its client.
#[derive(Debug, Clone)]
pub(crate) struct WebClientOptions {
    /// The `User-Agent` (ours when `None`).
    pub(crate) agent: Option<String>,
    /// The most a request waits for its next bytes.
    pub(crate) timeout: Duration,
    /// The most a connection takes.
    pub(crate) connect_timeout: Duration,
    /// False turns certificate checks off (netcdf-c's `HTTP.SSL.VERIFYPEER=0`).
    pub(crate) verify_peer: bool,
    /// Every request through this proxy.
    pub(crate) proxy: Option<String>,
}

/// A client for a protocol spoken over plain HTTP GETs (OPeNDAP), whose caller
/// follows redirects itself (logins and cookies hop by hop, each hop checked by
/// [`crate::reach::check_redirect`]): answers decompressed (servers gzip DAP answers).
///
/// # Errors
/// The reason when the client cannot be built.
pub(crate) fn web_client(options: &WebClientOptions) -> Result<reqwest::Client, String> {
    let agent = options
        .agent
        .clone()
        .unwrap_or_else(|| format!("nczarr/{}", env!("CARGO_PKG_VERSION")));
    let mut builder = reqwest::Client::builder()
        .user_agent(agent)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(options.connect_timeout)
        .read_timeout(options.timeout)
        .pool_max_idle_per_host(16);
    if !options.verify_peer {
        builder = builder.tls_danger_accept_invalid_certs(true);
    }
    if let Some(proxy) = &options.proxy {
        let p =
            reqwest::Proxy::all(proxy).map_err(|e| format!("HTTP.PROXY.SERVER '{proxy}': {e}"))?;
        builder = builder.proxy(p);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// Follow a redirect only where [`crate::reach::check_redirect`] allows, judged from
/// the URL first asked for (a chain of hops cannot launder a loopback address through
/// a public one), and at most [`MAX_REDIRECTS`] times.
fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() >= MAX_REDIRECTS {
            let message = format!("more than {MAX_REDIRECTS} redirects");
            return attempt.error(message);
        }
        let refusal = attempt
            .previous()
            .first()
            .and_then(|first| crate::reach::check_redirect(first, attempt.url()).err());
        match refusal {
            Some(refusal) => attempt.error(refusal),
            None => attempt.follow(),
        }
    })
}

/// The addresses the system resolves `host` to, in a random order: object_store's
/// default (`RandomizeAddresses`), which spreads connections over the addresses a
/// service such as S3 answers with rather than sending them all to the first.
async fn resolve_shuffled(host: String) -> Result<Vec<IpAddr>, DnsError> {
    let found = tokio::task::spawn_blocking(move || {
        (host.as_str(), 0)
            .to_socket_addrs()
            .map(|addrs| addrs.map(|a| a.ip()).collect::<Vec<_>>())
    })
    .await
    .map_err(|e| Box::new(e) as DnsError)??;
    // A new RandomState hashes with new keys: each resolution its own order.
    let order = std::collections::hash_map::RandomState::new();
    let mut found = found;
    found.sort_by_cached_key(|ip| order.hash_one(ip));
    Ok(found)
}

/// Host names resolved by the system, shuffled ([`resolve_shuffled`]).
#[derive(Debug)]
struct ShuffledDns;

impl DnsResolver for ShuffledDns {
    fn resolve(&self, host: &str) -> DnsFuture {
        Box::pin(resolve_shuffled(host.to_string()))
    }
}

/// Host names of references resolved for a reference file read from `origin`, keeping
/// the addresses [`crate::reach::check_resolved`] allows: a public name that DNS
/// answers with `127.0.0.1` or `169.254.169.254` reaches nothing from a reference file
/// on the internet, whatever its name said. (IP literals are not resolved: they were
/// checked with the reference.)
#[derive(Debug)]
pub(crate) struct ReachDns {
    /// Where the reference file was read from.
    pub(crate) origin: crate::reach::Origin,
}

impl DnsResolver for ReachDns {
    fn resolve(&self, host: &str) -> DnsFuture {
        let (host, origin) = (host.to_string(), self.origin);
        Box::pin(async move {
            let found = resolve_shuffled(host.clone()).await?;
            crate::reach::check_resolved(origin, &host, found).map_err(|e| Box::new(e) as DnsError)
        })
    }
}

/// An object_store [`DnsResolver`] as reqwest's resolver (the port is reqwest's: 0
/// stands for the URL's).
struct ReqwestDns(Arc<dyn DnsResolver>);

impl reqwest::dns::Resolve for ReqwestDns {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let found = self.0.resolve(name.as_str());
        Box::pin(async move {
            let ips = found.await?;
            Ok(Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0))) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every set of options this crate gives object_store builds a client: none is
    /// one `reqwest_client` would refuse as unmapped.
    #[test]
    fn the_options_we_set_are_all_mapped() {
        let options = [
            super::super::settings::client_options(32),
            super::super::settings::client_options(8).with_allow_http(true),
            ClientOptions::new()
                .with_timeout(Duration::from_secs(120))
                .with_connect_timeout(Duration::from_millis(1500))
                .with_allow_http(true)
                .with_pool_max_idle_per_host(16),
            ClientOptions::default(),
        ];
        for o in options {
            reqwest_client(&o).unwrap_or_else(|e| panic!("{o:?}: {e}"));
        }
        let proxied = ClientOptions::new().with_proxy_url("http://proxy:3128");
        let e = reqwest_client(&proxied).unwrap_err().to_string();
        assert!(e.contains("ProxyUrl"), "{e}");
    }
}
