//! What every remote store of one process shares: one I/O runtime, and one HTTP
//! client for each set of client options. A client of its own for each store cost a
//! reading of the system's CA certificates each (a few milliseconds of PEM parsing:
//! most of the time of opening a year of daily files on a web server), a runtime of its
//! own two threads each, and no connection kept alive from one file to the next on
//! the same server.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use object_store::client::{HttpClient, HttpConnector, ReqwestConnector};
use object_store::ClientOptions;

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
        let client = ReqwestConnector::default().connect(options)?;
        if let Ok(mut c) = clients.lock() {
            c.entry(key).or_insert_with(|| client.clone());
        }
        Ok(client)
    }
}
