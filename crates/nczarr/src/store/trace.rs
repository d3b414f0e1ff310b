//! A store decorator that reports every request to a sink (`NCTRACING`).
//!
//! The library never prints: the sink is a callback the binary supplies.

use std::sync::Arc;
use std::time::Instant;

use super::{ByteRange, GetResult, ListableStore, ReadStore, ReadableStore, StoreError, StoreKey};

/// Where trace lines go.
pub type TraceSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Wraps a store and reports each request (key, size or miss, time) to a [`TraceSink`].
pub struct TracingStore {
    inner: Box<dyn ReadStore>,
    sink: TraceSink,
}

impl std::fmt::Debug for TracingStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TracingStore")
            .field("inner", &self.inner)
            .finish()
    }
}

impl TracingStore {
    /// Wrap `inner`.
    pub fn new(inner: Box<dyn ReadStore>, sink: TraceSink) -> TracingStore {
        TracingStore { inner, sink }
    }
}

/// A key as traced: the root (a whole-file object) as `/`.
fn shown(key: &StoreKey) -> &str {
    if key.is_root() {
        "/"
    } else {
        key.as_str()
    }
}

fn describe(r: &GetResult) -> String {
    match r {
        Ok(Some(b)) => format!("{} bytes", b.len()),
        Ok(None) => "missing".to_string(),
        Err(e) => format!("error: {e}"),
    }
}

impl ReadableStore for TracingStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        let t = Instant::now();
        let r = self.inner.get(key);
        (self.sink)(&format!(
            "get {} -> {} ({:.3} ms)",
            shown(key),
            describe(&r),
            t.elapsed().as_secs_f64() * 1e3
        ));
        r
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        let t = Instant::now();
        let r = self.inner.get_range(key, range);
        (self.sink)(&format!(
            "get {} {} -> {} ({:.3} ms)",
            shown(key),
            range,
            describe(&r),
            t.elapsed().as_secs_f64() * 1e3
        ));
        r
    }

    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        let t = Instant::now();
        let r = self.inner.get_many(keys);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        for (k, got) in keys.iter().zip(&r) {
            (self.sink)(&format!("get {} -> {}", shown(k), describe(got)));
        }
        (self.sink)(&format!(
            "  ({} requests in one batch, {ms:.3} ms)",
            keys.len()
        ));
        r
    }

    fn get_many_ranges(&self, requests: &[(StoreKey, ByteRange)]) -> Vec<GetResult> {
        let t = Instant::now();
        let r = self.inner.get_many_ranges(requests);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        for ((k, range), got) in requests.iter().zip(&r) {
            (self.sink)(&format!("get {} {} -> {}", shown(k), range, describe(got)));
        }
        (self.sink)(&format!(
            "  ({} requests in one batch, {ms:.3} ms)",
            requests.len()
        ));
        r
    }

    fn get_range_sized(
        &self,
        key: &StoreKey,
        range: &ByteRange,
    ) -> Result<Option<(Vec<u8>, u64)>, StoreError> {
        let t = Instant::now();
        let r = self.inner.get_range_sized(key, range);
        (self.sink)(&format!(
            "get {} {} -> {} ({:.3} ms)",
            shown(key),
            range,
            match &r {
                Ok(Some((bytes, len))) => format!("{} bytes of {len}", bytes.len()),
                Ok(None) => "missing".to_string(),
                Err(e) => format!("error: {e}"),
            },
            t.elapsed().as_secs_f64() * 1e3
        ));
        r
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StoreError> {
        let t = Instant::now();
        let r = self.inner.size(key);
        (self.sink)(&format!(
            "head {} -> {} ({:.3} ms)",
            shown(key),
            match &r {
                Ok(Some(n)) => format!("{n} bytes"),
                Ok(None) => "missing".to_string(),
                Err(e) => format!("error: {e}"),
            },
            t.elapsed().as_secs_f64() * 1e3
        ));
        r
    }

    fn location(&self) -> String {
        self.inner.location()
    }

    /// Never: a traced read keeps its documents in batches, so that the trace shows
    /// each batch (and its time) as `docs/nczdump.md` describes, not thousands of
    /// interleaved two-key batches from the reading threads.
    fn reads_are_cheap(&self) -> bool {
        false
    }
}

impl ListableStore for TracingStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        let r = self.inner.list();
        (self.sink)(&format!(
            "list -> {}",
            r.as_ref()
                .map_or_else(|e| e.to_string(), |v| format!("{} keys", v.len()))
        ));
        r
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        let r = self.inner.search(prefix);
        (self.sink)(&format!(
            "search '{}' -> {}",
            prefix,
            r.as_ref()
                .map_or_else(|e| e.to_string(), |v| format!("{v:?}"))
        ));
        r
    }
}
