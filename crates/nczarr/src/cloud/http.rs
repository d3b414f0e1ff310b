//! Files on a web server, read with HTTP GETs (`Range` requests for parts) through
//! `object_store`'s HTTP client: a Zarr dataset under any `http(s)://` URL (a static
//! server, fsspec's HTTP filesystem's use), or a netCDF file behind one (THREDDS
//! `fileServer`), as netcdf-c's `#mode=bytes` reads it.
//!
//! The store is rooted at the URL: the root key is the URL itself, other keys are
//! below it. A web server cannot list, so only reads are offered. A server that
//! answers a `Range` request with the whole file is refused with an error saying so,
//! rather than downloading a file of any size for each read.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use object_store::client::DnsResolver;
use object_store::http::{HttpBuilder, HttpStore as ObjHttpStore};
use object_store::path::Path as ObjPath;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt};

use super::object::{brief, get_options};
use super::settings::retry_config;
use crate::store::{ByteRange, GetResult, ListableStore, ReadableStore, StoreError, StoreKey};

/// Requests in flight at once for a batch of reads.
const CONCURRENCY: usize = 16;

/// A web server's files under one URL.
pub struct HttpStore {
    store: ObjHttpStore,
    runtime: &'static tokio::runtime::Runtime,
    url: String,
}

impl std::fmt::Debug for HttpStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpStore")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl HttpStore {
    /// A store rooted at `url` (`http://` or `https://`). No request is made yet.
    ///
    /// # Errors
    /// [`StoreError::Settings`] when the client cannot be built (a malformed URL).
    pub fn new(url: &str) -> Result<HttpStore, StoreError> {
        HttpStore::build(url, None)
    }

    /// A store rooted at `url`, a reference in a kerchunk reference file read from
    /// `origin`: its host name is reached only at the addresses [`crate::reach`]'s rules
    /// let such a file name (a public name that DNS answers with `127.0.0.1` reaches
    /// nothing from a reference file on the internet). No request is made yet.
    ///
    /// # Errors
    /// As [`HttpStore::new`].
    pub fn for_reference(url: &str, origin: crate::reach::Origin) -> Result<HttpStore, StoreError> {
        HttpStore::build(url, Some(Arc::new(super::shared::ReachDns { origin })))
    }

    fn build(url: &str, dns: Option<Arc<dyn DnsResolver>>) -> Result<HttpStore, StoreError> {
        let fail = |message: String| StoreError::Settings {
            location: url.to_string(),
            message,
        };
        super::object::check_endpoint(url).map_err(fail)?;
        let mut options = ClientOptions::new()
            .with_timeout(Duration::from_secs(120))
            .with_connect_timeout(Duration::from_secs(5))
            .with_allow_http(true)
            .with_pool_max_idle_per_host(CONCURRENCY);
        if let Some(dns) = dns {
            options = options.with_dns_resolver(dns);
        }
        let store = HttpBuilder::new()
            .with_url(url)
            .with_client_options(options)
            .with_retry(retry_config())
            .with_http_connector(super::shared::SharedConnector)
            .build()
            .map_err(|e| fail(format!("cannot set up the HTTP client: {}", brief(&e))))?;
        let runtime = super::shared::io_runtime().map_err(fail)?;
        Ok(HttpStore {
            store,
            runtime,
            url: url.to_string(),
        })
    }

    fn path_of(&self, key: &StoreKey) -> ObjPath {
        ObjPath::from(key.as_str())
    }

    fn shown(&self, key: &StoreKey) -> String {
        if key.is_root() {
            self.url.clone()
        } else {
            format!("{}/{key}", self.url.trim_end_matches('/'))
        }
    }

    fn error(&self, key: &StoreKey, e: &object_store::Error) -> StoreError {
        let text = e.to_string();
        let message = if text.contains("non-partial response")
            || text.contains("Range request not supported")
        {
            "the server does not honour Range requests (it answered a range with the whole file); \
             byte-range reading needs a server that does"
                .to_string()
        } else {
            let what = match e {
                object_store::Error::PermissionDenied { .. } => "access denied: ",
                object_store::Error::Unauthenticated { .. } => "not authenticated: ",
                _ => "",
            };
            format!("{what}{}", brief(e))
        };
        StoreError::Remote {
            location: self.shown(key),
            message,
        }
    }

    async fn fetch(&self, key: &StoreKey, range: Option<&ByteRange>) -> GetResult {
        Ok(self.fetch_sized(key, range).await?.map(|(bytes, _)| bytes))
    }

    /// [`HttpStore::fetch`], with the file's whole length (an answer to a range gives
    /// it in its `Content-Range`).
    async fn fetch_sized(
        &self,
        key: &StoreKey,
        range: Option<&ByteRange>,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        match self
            .store
            .get_opts(&self.path_of(key), get_options(range))
            .await
        {
            Ok(r) => {
                let size = r.meta.size;
                match r.bytes().await {
                    Ok(b) => Ok(Some((b.to_vec(), size))),
                    Err(e) => Err(self.error(key, &e)),
                }
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(key, &e)),
        }
    }
}

impl ReadableStore for HttpStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        self.runtime.block_on(self.fetch(key, None))
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        self.runtime.block_on(self.fetch(key, Some(range)))
    }

    fn get_range_sized(
        &self,
        key: &StoreKey,
        range: &ByteRange,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        self.runtime.block_on(self.fetch_sized(key, Some(range)))
    }

    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        self.runtime.block_on(
            futures::stream::iter(keys.iter().map(|k| self.fetch(k, None)))
                .buffered(CONCURRENCY)
                .collect(),
        )
    }

    fn get_many_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Vec<GetResult> {
        self.runtime.block_on(
            futures::stream::iter(requests.iter().map(|(k, r)| self.fetch(k, Some(r))))
                .buffered(CONCURRENCY)
                .collect(),
        )
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        match self.runtime.block_on(self.store.head(&self.path_of(key))) {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(key, &e)),
        }
    }

    fn location(&self) -> String {
        self.url.clone()
    }
}

impl ListableStore for HttpStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        Err(self.cannot_list())
    }

    fn search(&self, _prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        Err(self.cannot_list())
    }
}

impl HttpStore {
    fn cannot_list(&self) -> StoreError {
        StoreError::Refused {
            key: self.url.clone(),
            message: "a web server cannot list its files: over HTTP a dataset is read from its \
                      consolidated metadata (.zmetadata, or the root zarr.json's) or its NCZarr \
                      metadata, and this one has neither"
                .into(),
        }
    }
}
