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
use super::refs_parse::Written;
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
        /// Shared by every reference to the file (a file's 10,000 chunks name it
        /// 10,000 times).
        url: Arc<str>,
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
        let written = super::refs_parse::parse(bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
        let templates = written.templates;
        let mut refs = Vec::with_capacity(written.refs.len());
        let mut urls = Urls::default();
        for (key, value) in written.refs {
            let parsed = reference(value, &templates, &mut urls).ok_or_else(|| {
                bad(format!(
                    "reference '{key}' is not text, base64 or [url, offset, length]"
                ))
            })?;
            let key = StoreKey::new(&key).map_err(|e| bad(e.to_string()))?;
            refs.push((key, parsed));
        }
        // Built in one pass from the sorted references (kerchunk writes them sorted),
        // not found one by one: a file of 10,000 chunks opens as fast as its JSON parses.
        refs.sort_by(|a, b| a.0.cmp(&b.0));
        let refs: BTreeMap<StoreKey, Reference> = refs.into_iter().collect();
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

/// The files' URLs, each held once and shared by its references.
#[derive(Default)]
struct Urls {
    /// The last URL as written (before templates) and as shared: references to one
    /// file mostly follow each other, and then nothing is hashed or allocated.
    last: Option<(String, Arc<str>)>,
    all: HashMap<String, Arc<str>>,
}

impl Urls {
    /// The shared URL `written` (with `templates` expanded) stands for.
    fn shared(&mut self, written: &str, templates: &Templates) -> Arc<str> {
        if let Some((w, url)) = &self.last {
            if w == written {
                return Arc::clone(url);
            }
        }
        let url = expand(written, templates);
        let shared = match self.all.get(&url) {
            Some(s) => Arc::clone(s),
            None => {
                let s: Arc<str> = Arc::from(url.as_str());
                self.all.insert(url, Arc::clone(&s));
                s
            }
        };
        self.last = Some((written.to_string(), Arc::clone(&shared)));
        shared
    }
}

/// One reference's value: text, `base64:` bytes, or `[url(, offset, length)]`.
fn reference(value: Written, templates: &Templates, urls: &mut Urls) -> Option<Reference> {
    match value {
        Written::Text(s) => Some(Reference::Inline(match s.strip_prefix("base64:") {
            Some(b) => decode_base64(b)?,
            None => s.into_bytes(),
        })),
        Written::Range { url, span } => {
            let url = urls.shared(&url, templates);
            Some(match span {
                None => Reference::Range {
                    url,
                    offset: 0,
                    len: None,
                },
                Some((offset, len)) => Reference::Range {
                    url,
                    offset,
                    len: Some(len),
                },
            })
        }
        Written::Other => None,
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
