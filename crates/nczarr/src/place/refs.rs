//! A kerchunk reference file read as a store: each key's value inline (text, or
//! `base64:` bytes) or a byte range `[url, offset, length]` (or a whole file `[url]`)
//! of another file, local or remote, fetched when asked for. Version 1
//! (`{"version": 1, "refs": {...}, "templates": {...}}`) and version 0 (the
//! references themselves) are read, templates (`{{name}}` in urls) expanded.
//!
//! Each file the references name is checked once, as the reference file is read,
//! against [`crate::reach`]'s rules: a reference file from the network names no local
//! file (unless the reader allows it), nothing names a loopback, link-local or metadata
//! address from elsewhere, and no reference chooses how a store is reached. A refused
//! reference refuses the whole file, before anything is read from where it leads.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::refs_parse::Written;
use super::remote::open_ranged_reference;
use crate::reach::{check_reference, Origin, ReferenceOptions, Target};
use crate::store::{
    children_of, ByteRange, Existing, GetResult, ListableStore, LocalFile, ReadAt, ReadableStore,
    StoreError, StoreKey,
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
    refs: BTreeMap<StoreKey, Reference>,
    files: ReferencedFiles,
}

/// The files references name, each opened once when first read: what a kerchunk
/// reference file and an Icechunk repository's virtual chunks share.
pub(crate) struct ReferencedFiles {
    /// Where relative file names are looked for (the reference file's directory, or
    /// the URL it is under).
    base: String,
    /// Where the references were read from: what they may reach.
    origin: Origin,
    files: Mutex<HashMap<String, Arc<dyn ReadAt>>>,
}

impl ReferencedFiles {
    /// Files named by references read from `origin`, relative names under `base`.
    pub(crate) fn new(base: String, origin: Origin) -> ReferencedFiles {
        ReferencedFiles {
            base,
            origin,
            files: Mutex::new(HashMap::new()),
        }
    }

    /// Where the reference `url` leads ([`crate::reach`] decides on it).
    pub(crate) fn target(&self, url: &str) -> Target {
        target_of(url, &self.base)
    }

    /// The file `url` names, opened once.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when there is no such file; store errors reaching it.
    pub(crate) fn file(&self, url: &str) -> Result<Arc<dyn ReadAt>, StoreError> {
        if let Some(f) = self.files.lock().ok().and_then(|f| f.get(url).cloned()) {
            return Ok(f);
        }
        // What the references were checked for when they were read: the same function
        // decides what is opened.
        let file: Arc<dyn ReadAt> = match target_of(url, &self.base) {
            Target::Remote(full) => {
                let parsed = DatasetUrl::parse(&full).map_err(|e| StoreError::Settings {
                    location: full.clone(),
                    message: e.to_string(),
                })?;
                let ranged = open_ranged_reference(&parsed, self.origin)?.ok_or_else(|| {
                    StoreError::NotFound {
                        location: url.to_string(),
                    }
                })?;
                Arc::new(ranged)
            }
            Target::Local(local) => {
                let p = Path::new(&local);
                let p = if p.is_relative() && !p.exists() {
                    Path::new(&self.base).join(p)
                } else {
                    p.to_path_buf()
                };
                Arc::new(LocalFile::open(&p)?)
            }
        };
        if let Ok(mut files) = self.files.lock() {
            files.insert(url.to_string(), Arc::clone(&file));
        }
        Ok(file)
    }

    /// `len` bytes (the rest of the file when `None`) from `offset` of the file `url`
    /// names; `what` (the reference's key) names a length too large in the error.
    ///
    /// # Errors
    /// As [`ReferencedFiles::file`], and the read's.
    pub(crate) fn read(
        &self,
        url: &str,
        offset: u64,
        len: Option<u64>,
        what: &str,
    ) -> Result<Vec<u8>, StoreError> {
        let file = self.file(url)?;
        let len = len.unwrap_or_else(|| file.len().saturating_sub(offset));
        let n = usize::try_from(len).map_err(|_| StoreError::Archive {
            location: url.to_string(),
            message: format!("reference '{what}': {len} bytes is too large"),
        })?;
        let mut buf = vec![0; n];
        file.read_at(offset, &mut buf)?;
        Ok(buf)
    }
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

/// What is at `path`, where a kerchunk reference file is to be written: a reference
/// file may be replaced; anything else (a directory, whatever it holds, a file of
/// another kind) is foreign. Links are followed, as the write renames over the link.
///
/// # Errors
/// [`StoreError::Io`] when the place cannot be looked at (permissions).
pub fn examine_refs_path(path: &Path) -> Result<Existing, StoreError> {
    let meta = match crate::store::followed_metadata(path)? {
        Ok(meta) => meta,
        Err(there) => return Ok(there),
    };
    if meta.is_dir() {
        return Ok(Existing::Foreign {
            what: "is a directory, not a reference file (one JSON file)".into(),
        });
    }
    if !meta.is_file() {
        return Ok(Existing::Foreign {
            what: "is neither a file nor a directory".into(),
        });
    }
    Ok(if starts_like_references(path) {
        Existing::Dataset
    } else {
        Existing::Foreign {
            what: format!(
                "is a file ({} bytes) that is not a kerchunk reference file",
                meta.len()
            ),
        }
    })
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
    /// Read the reference file at `path` (on this machine: its references may name
    /// local files).
    ///
    /// # Errors
    /// [`StoreError::Io`] when it cannot be read; [`StoreError::Archive`] naming what
    /// is wrong with its JSON or a reference; [`StoreError::ReferenceRefused`] for a
    /// reference to what [`crate::reach`] refuses.
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
        let local = ReferenceOptions::default();
        ReferenceStore::from_bytes(location, &bytes, base, Origin::Local, local)
    }

    /// Read the reference file at `url` (S3, GCS, Azure or a web server), or `None`
    /// when the object there does not start like one. Relative file names in it are
    /// looked for beside it; local files only as `options` (changed by the URL's
    /// `#refs.local=`) allow.
    ///
    /// # Errors
    /// As [`ReferenceStore::open`], and the store's errors reaching the object;
    /// [`StoreError::Settings`] for a `refs.local` that is neither `allow` nor `refuse`.
    pub fn open_remote(
        url: &DatasetUrl,
        options: ReferenceOptions,
    ) -> Result<Option<ReferenceStore>, StoreError> {
        let options = options
            .for_url(url)
            .map_err(|message| StoreError::Settings {
                location: url.original.clone(),
                message,
            })?;
        let (bytes, origin) = super::fetch_object(url)?.ok_or_else(|| StoreError::NotFound {
            location: url.original.clone(),
        })?;
        if !url.modes.has("kerchunk") && !looks_like_references(&bytes[..bytes.len().min(512)]) {
            return Ok(None);
        }
        let name = url.original.split('#').next().unwrap_or(&url.original);
        let base = name.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
        ReferenceStore::from_bytes(name.to_string(), &bytes, base, origin, options).map(Some)
    }

    /// The references in `bytes`, the file at `location` read from `origin`, relative
    /// names found under `base` (a directory or a URL), each file they name checked
    /// against [`crate::reach`]'s rules with `options`.
    fn from_bytes(
        location: String,
        bytes: &[u8],
        base: String,
        origin: Origin,
        options: ReferenceOptions,
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
            let (parsed, new_url) = reference(value, &templates, &mut urls).ok_or_else(|| {
                bad(format!(
                    "reference '{key}' is not text, base64 or [url, offset, length]"
                ))
            })?;
            // Once per file, not per chunk: a file's 10,000 chunks name it 10,000 times.
            if let Some(url) = new_url {
                check_reference(origin, &target_of(&url, &base), options).map_err(|refusal| {
                    StoreError::ReferenceRefused {
                        key: key.clone(),
                        refusal: Box::new(refusal),
                    }
                })?;
            }
            let key = StoreKey::new(&key).map_err(|e| bad(e.to_string()))?;
            refs.push((key, parsed));
        }
        // Built in one pass from the sorted references (kerchunk writes them sorted),
        // not found one by one: a file of 10,000 chunks opens as fast as its JSON parses.
        refs.sort_by(|a, b| a.0.cmp(&b.0));
        let refs: BTreeMap<StoreKey, Reference> = refs.into_iter().collect();
        Ok(ReferenceStore {
            location,
            refs,
            files: ReferencedFiles::new(base, origin),
        })
    }

    fn fetch(&self, key: &StoreKey) -> GetResult {
        match self.refs.get(key) {
            None => Ok(None),
            Some(Reference::Inline(b)) => Ok(Some(b.clone())),
            Some(Reference::Range { url, offset, len }) => {
                self.files.read(url, *offset, *len, key.as_str()).map(Some)
            }
        }
    }
}

/// Where the reference `url` leads, for a reference file whose relative names are
/// under `base` (its directory, or the URL it is under). A `file://` URL and a path
/// are local files, except that a relative one beside a remote reference file is on
/// its server; anything else with a scheme is a URL.
fn target_of(url: &str, base: &str) -> Target {
    let local = match url.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file://") => &url[7..],
        _ => url,
    };
    if local.contains("://") {
        Target::Remote(url.to_string())
    } else if Path::new(local).is_relative() && base.contains("://") {
        Target::Remote(format!("{base}/{local}"))
    } else {
        Target::Local(local.to_string())
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
    /// The shared URL `written` (with `templates` expanded) stands for, and whether no
    /// reference named it before.
    fn shared(&mut self, written: &str, templates: &Templates) -> (Arc<str>, bool) {
        if let Some((w, url)) = &self.last {
            if w == written {
                return (Arc::clone(url), false);
            }
        }
        let url = expand(written, templates);
        let (shared, new) = match self.all.get(&url) {
            Some(s) => (Arc::clone(s), false),
            None => {
                let s: Arc<str> = Arc::from(url.as_str());
                self.all.insert(url, Arc::clone(&s));
                (s, true)
            }
        };
        self.last = Some((written.to_string(), Arc::clone(&shared)));
        (shared, new)
    }
}

/// One reference's value: text, `base64:` bytes, or `[url(, offset, length)]`; with
/// the URL when no reference named it before.
fn reference(
    value: Written,
    templates: &Templates,
    urls: &mut Urls,
) -> Option<(Reference, Option<Arc<str>>)> {
    match value {
        Written::Text(s) => Some((
            Reference::Inline(match s.strip_prefix("base64:") {
                Some(b) => decode_base64(b)?,
                None => s.into_bytes(),
            }),
            None,
        )),
        Written::Range { url, span } => {
            let (url, new) = urls.shared(&url, templates);
            let first = new.then(|| Arc::clone(&url));
            let parsed = match span {
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
            };
            Some((parsed, first))
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
    use crate::reach::HostClass;

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

    #[test]
    fn targets_local_remote_and_beside_a_remote_file() {
        let local = |s: &str| Target::Local(s.into());
        let remote = |s: &str| Target::Remote(s.into());
        let web = "https://h/d";
        for (url, base, want) in [
            ("/etc/passwd", web, local("/etc/passwd")),
            ("file:///etc/passwd", web, local("/etc/passwd")),
            ("FILE:///etc/passwd", web, local("/etc/passwd")),
            ("a.nc", web, remote("https://h/d/a.nc")),
            ("./a.nc", web, remote("https://h/d/./a.nc")),
            ("file://a.nc", web, remote("https://h/d/a.nc")),
            ("a.nc", "/data", local("a.nc")),
            ("s3://b/k.nc", "/data", remote("s3://b/k.nc")),
            ("http://x/k.nc", web, remote("http://x/k.nc")),
        ] {
            assert_eq!(target_of(url, base), want, "{url} under {base}");
        }
    }

    fn read(json: &str, origin: Origin, options: ReferenceOptions) -> Result<(), StoreError> {
        let base = "https://h.example/d".to_string();
        ReferenceStore::from_bytes("refs.json".into(), json.as_bytes(), base, origin, options)
            .map(|_| ())
    }

    /// Issue 61: the refusal names the first key that leads there, and comes as the
    /// file is read, before any chunk is asked for.
    #[test]
    fn a_remote_reference_file_naming_a_local_file_is_refused_by_key() {
        let json = r#"{"version": 1, "refs": {".zgroup": "{}",
            "a/0": ["a.nc", 0, 4], "tas/0.0": ["file:///etc/passwd", 0, 10],
            "tas/0.1": ["file:///etc/passwd", 10, 10]}}"#;
        let public = Origin::Remote(HostClass::Public);
        let e = read(json, public, ReferenceOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "key 'tas/0.0': reference to local file '/etc/passwd' from a remote reference \
             file or repository refused (--allow-local-refs or #refs.local=allow allows it)"
        );
        let allow = ReferenceOptions {
            allow_local_files: true,
        };
        read(json, public, allow).unwrap();
        read(json, Origin::Local, ReferenceOptions::default()).unwrap();
    }

    #[test]
    fn templates_are_checked_as_expanded() {
        let json = r#"{"version": 1, "templates": {"u": "http://169.254.169.254/latest"},
            "refs": {"v/0": ["{{u}}/meta-data", 0, 4]}}"#;
        let e = read(json, Origin::Local, ReferenceOptions::default()).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "key 'v/0': reference to 'http://169.254.169.254/latest/meta-data' refused: \
                 169.254.169.254 is a cloud metadata service"
            ),
            "{e}"
        );
    }
}
