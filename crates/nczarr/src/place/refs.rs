//! A kerchunk reference file read as a store: each key's value inline (text, or
//! `base64:` bytes) or a byte range `[url, offset, length]` (or a whole file `[url]`)
//! of another file, local or remote, fetched when asked for. Version 1
//! (`{"version": 1, "refs": {...}, "templates": {...}}`) and version 0 (the
//! references themselves) are read, templates (`{{name}}` in urls) expanded.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::open_ranged;
use crate::json::Json;
use crate::store::{
    children_of, ByteRange, GetResult, ListableStore, LocalFile, ReadAt, ReadableStore, StoreError,
    StoreKey,
};
use crate::text::decode_base64;
use crate::url::DatasetUrl;

/// One key's value.
#[derive(Debug, Clone)]
enum Reference {
    Inline(Vec<u8>),
    Range {
        url: String,
        offset: u64,
        len: Option<u64>,
    },
}

/// A reference file as a store.
pub struct ReferenceStore {
    location: String,
    /// Where relative file names are looked for (the reference file's directory, or
    /// the URL it is under).
    base: String,
    refs: BTreeMap<StoreKey, Reference>,
    files: Mutex<HashMap<String, Arc<dyn ReadAt>>>,
}

impl std::fmt::Debug for ReferenceStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ReferenceStore({}, {} keys)",
            self.location,
            self.refs.len()
        )
    }
}

/// True when `head` (a file's first bytes) look like a kerchunk reference file: a
/// JSON object naming `refs` or `version` near its start.
pub fn looks_like_references(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    text.trim_start().starts_with('{')
        && (text.contains("\"refs\"") || text.contains("\"version\""))
}

/// True when the file at `path` starts like kerchunk's references.
pub fn starts_like_references(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(512).read_to_end(&mut head))
        .is_ok_and(|_| looks_like_references(&head))
}

/// True when the remote object `file` starts like kerchunk's references.
pub fn ranged_starts_like_references(file: &dyn ReadAt) -> bool {
    let mut head = vec![0; file.len().min(512) as usize];
    file.read_at(0, &mut head).is_ok() && looks_like_references(&head)
}

/// True when the remote `url` names an object ending in `.json` (a reference file,
/// if it starts like one).
pub fn names_a_json_object(url: &DatasetUrl) -> bool {
    let name = url.original.split(['#', '?']).next().unwrap_or("");
    url.path().is_none() && name.to_ascii_lowercase().ends_with(".json")
}

impl ReferenceStore {
    /// Read the reference file at `path`.
    ///
    /// # Errors
    /// [`StoreError::Io`] when it cannot be read; [`StoreError::Archive`] naming what
    /// is wrong with its JSON or a reference.
    pub fn open(path: &Path) -> Result<ReferenceStore, StoreError> {
        let location = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| StoreError::Io {
            location: location.clone(),
            source,
        })?;
        let base = path
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        ReferenceStore::from_bytes(location, &bytes, base)
    }

    /// Read the reference file at `url` (S3, GCS, Azure or a web server), or `None`
    /// when the object there does not start like one. Relative file names in it are
    /// looked for beside it.
    ///
    /// # Errors
    /// As [`ReferenceStore::open`], and the store's errors reaching the object.
    pub fn open_remote(url: &DatasetUrl) -> Result<Option<ReferenceStore>, StoreError> {
        let bytes = super::fetch_object(url)?.ok_or_else(|| StoreError::NotFound {
            location: url.original.clone(),
        })?;
        if !url.modes.has("kerchunk") && !looks_like_references(&bytes[..bytes.len().min(512)]) {
            return Ok(None);
        }
        let name = url.original.split('#').next().unwrap_or(&url.original);
        let base = name.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
        ReferenceStore::from_bytes(name.to_string(), &bytes, base).map(Some)
    }

    /// The references in `bytes`, the file at `location`, relative names found under
    /// `base` (a directory or a URL).
    fn from_bytes(
        location: String,
        bytes: &[u8],
        base: String,
    ) -> Result<ReferenceStore, StoreError> {
        let bad = |message: String| StoreError::Archive {
            location: location.clone(),
            message,
        };
        let json = crate::json::parse(bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
        let templates: Templates = json
            .get("templates")
            .and_then(Json::as_object)
            .unwrap_or(&[])
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect();
        let entries = match json.get("refs") {
            Some(r) => r.as_object(),
            None => json.as_object(),
        }
        .ok_or_else(|| bad("no \"refs\" object".into()))?;
        let mut refs = BTreeMap::new();
        for (key, value) in entries {
            if key == "version" || key == "templates" || key == "gen" {
                continue;
            }
            let parsed = reference(value, &templates).ok_or_else(|| {
                bad(format!(
                    "reference '{key}' is not text, base64 or [url, offset, length]"
                ))
            })?;
            let key = StoreKey::new(key).map_err(|e| bad(e.to_string()))?;
            refs.insert(key, parsed);
        }
        Ok(ReferenceStore {
            location,
            base,
            refs,
            files: Mutex::new(HashMap::new()),
        })
    }

    /// The file `url` names, opened once.
    fn file(&self, url: &str) -> Result<Arc<dyn ReadAt>, StoreError> {
        if let Some(f) = self.files.lock().ok().and_then(|f| f.get(url).cloned()) {
            return Ok(f);
        }
        let local = url.strip_prefix("file://").unwrap_or(url);
        // A relative name beside a remote reference file is under its URL.
        let beside = (!local.contains("://") && Path::new(local).is_relative())
            .then(|| format!("{}/{local}", self.base))
            .filter(|u| u.contains("://"));
        let file: Arc<dyn ReadAt> = if local.contains("://") || beside.is_some() {
            let full = beside.as_deref().unwrap_or(url);
            let parsed = DatasetUrl::parse(full).map_err(|e| StoreError::Settings {
                location: full.to_string(),
                message: e.to_string(),
            })?;
            let ranged = open_ranged(&parsed, None)?.ok_or_else(|| StoreError::NotFound {
                location: url.to_string(),
            })?;
            Arc::new(ranged)
        } else {
            let p = Path::new(local);
            let p = if p.is_relative() && !p.exists() {
                Path::new(&self.base).join(p)
            } else {
                p.to_path_buf()
            };
            Arc::new(LocalFile::open(&p)?)
        };
        if let Ok(mut files) = self.files.lock() {
            files.insert(url.to_string(), Arc::clone(&file));
        }
        Ok(file)
    }

    fn fetch(&self, key: &StoreKey) -> GetResult {
        match self.refs.get(key) {
            None => Ok(None),
            Some(Reference::Inline(b)) => Ok(Some(b.clone())),
            Some(Reference::Range { url, offset, len }) => {
                let file = self.file(url)?;
                let len = len.unwrap_or_else(|| file.len().saturating_sub(*offset));
                let n = usize::try_from(len).map_err(|_| StoreError::Archive {
                    location: self.location.clone(),
                    message: format!("reference '{key}': {len} bytes is too large"),
                })?;
                let mut buf = vec![0; n];
                file.read_at(*offset, &mut buf)?;
                Ok(Some(buf))
            }
        }
    }
}

/// A reference file's `templates`: names and the text they stand for.
type Templates = std::collections::HashMap<String, String>;

/// `url` with each `{{name}}` (jinja's spelling, spaces allowed inside) replaced by
/// its template; unknown names are left as they are. One pass, whatever the number of
/// templates: a year of daily files has one each.
fn expand(url: &str, templates: &Templates) -> String {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            out.push_str(&rest[open..]);
            return out;
        };
        match templates.get(after[..close].trim()) {
            Some(text) => out.push_str(text),
            None => out.push_str(&rest[open..open + 4 + close]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

/// One reference's value: text, `base64:` bytes, or `[url(, offset, length)]`.
fn reference(value: &Json, templates: &Templates) -> Option<Reference> {
    match value {
        Json::String(s) => Some(Reference::Inline(match s.strip_prefix("base64:") {
            Some(b) => decode_base64(b)?,
            None => s.as_bytes().to_vec(),
        })),
        Json::Array(items) => {
            let url = expand(items.first()?.as_str()?, templates);
            let num = |i: usize| {
                items
                    .get(i)
                    .and_then(Json::as_i64_lenient)
                    .and_then(|n| u64::try_from(n).ok())
            };
            match items.len() {
                1 => Some(Reference::Range {
                    url,
                    offset: 0,
                    len: None,
                }),
                3 => Some(Reference::Range {
                    url,
                    offset: num(1)?,
                    len: Some(num(2)?),
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

impl ReadableStore for ReferenceStore {
    fn get(&self, key: &StoreKey) -> GetResult {
        self.fetch(key)
    }

    fn get_range(&self, key: &StoreKey, range: &ByteRange) -> GetResult {
        match self.fetch(key)? {
            Some(v) => Ok(Some(crate::store::range_of(key, range, &v)?.to_vec())),
            None => Ok(None),
        }
    }

    /// Fetched concurrently: the referenced files' byte ranges are independent reads.
    fn get_many(&self, keys: &[StoreKey]) -> Vec<GetResult> {
        keys.par_iter().map(|k| self.fetch(k)).collect()
    }

    fn location(&self) -> String {
        self.location.clone()
    }
}

impl ListableStore for ReferenceStore {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        Ok(self
            .refs
            .iter()
            .map(|(k, r)| {
                let size = match r {
                    Reference::Inline(b) => b.len() as u64,
                    Reference::Range { len, .. } => len.unwrap_or(0),
                };
                (k.clone(), size)
            })
            .collect())
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        Ok(children_of(self.refs.keys(), prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_expand_in_one_pass() {
        let t: Templates = [("f0", "/data/a.nc"), ("u", "s3://b")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(expand("{{f0}}", &t), "/data/a.nc");
        assert_eq!(expand("{{ u }}/x/{{f0}}", &t), "s3://b/x//data/a.nc");
        assert_eq!(expand("{{nope}}/y", &t), "{{nope}}/y");
        assert_eq!(expand("a{{f0", &t), "a{{f0");
        assert_eq!(expand("plain", &t), "plain");
    }
}
