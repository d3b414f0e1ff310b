//! Store keys: validated, `/`-separated, relative to a store's root.

use std::fmt;

/// The largest key S3 accepts, in bytes.
pub const MAX_KEY_BYTES: usize = 1024;

/// A key is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid key '{key}': {reason}")]
pub struct KeyError {
    /// The key as given (control characters escaped).
    pub key: String,
    /// What rule it breaks.
    pub reason: &'static str,
}

/// A validated store key such as `g1/v/.zarray` or `v/0.0`; the empty key is the
/// root prefix.
///
/// Rules (netcdf-c's zmap rules plus S3's): segments are separated by `/`, no segment
/// is empty, `.` or `..`, no control characters, at most 1024 bytes. A leading `/` is
/// accepted and dropped, so netcdf-c's `/v/.zarray` and Zarr's `v/.zarray` are the
/// same key.
///
/// ```
/// use nczarr::store::StoreKey;
/// let k = StoreKey::new("/g/v/.zarray").unwrap();
/// assert_eq!(k.as_str(), "g/v/.zarray");
/// assert_eq!(k.parent().as_str(), "g/v");
/// assert_eq!(k.name(), ".zarray");
/// assert!(StoreKey::new("g/../x").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StoreKey(String);

impl StoreKey {
    /// Validate `key`.
    ///
    /// # Errors
    /// [`KeyError`] naming the rule the key breaks.
    pub fn new(key: &str) -> Result<StoreKey, KeyError> {
        let k = key.strip_prefix('/').unwrap_or(key);
        let err = |reason| KeyError {
            key: key.escape_default().to_string(),
            reason,
        };
        if k.len() > MAX_KEY_BYTES {
            return Err(err("longer than S3's 1024-byte limit"));
        }
        if k.is_empty() {
            return Ok(StoreKey::root());
        }
        if let Some(reason) = k.split('/').find_map(segment_fault) {
            return Err(err(reason));
        }
        Ok(StoreKey(k.to_string()))
    }

    /// The root prefix (the empty key).
    pub fn root() -> StoreKey {
        StoreKey(String::new())
    }

    /// True for the root prefix.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The key text, without a leading `/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `self/segment`, validated.
    ///
    /// # Errors
    /// [`KeyError`] when `segment` contains `/` or breaks a key rule.
    pub fn join(&self, segment: &str) -> Result<StoreKey, KeyError> {
        if segment.contains('/') || segment.is_empty() {
            return Err(KeyError {
                key: format!("{}/{}", self.0, segment.escape_default()),
                reason: "a name may not be empty or contain '/'",
            });
        }
        // `self` is valid: only the new segment and the length are checked (a dataset
        // of thousands of variables joins tens of thousands of keys).
        let mut key = String::with_capacity(self.0.len() + 1 + segment.len());
        if !self.is_root() {
            key.push_str(&self.0);
            key.push('/');
        }
        key.push_str(segment);
        // In `new`'s order: the length first, then the segment.
        let fault = (key.len() > MAX_KEY_BYTES)
            .then_some("longer than S3's 1024-byte limit")
            .or_else(|| segment_fault(segment));
        match fault {
            Some(reason) => Err(KeyError {
                key: key.escape_default().to_string(),
                reason,
            }),
            None => Ok(StoreKey(key)),
        }
    }

    /// `self/a/b/...` for a relative path of several segments.
    ///
    /// # Errors
    /// As [`StoreKey::new`].
    pub fn join_path(&self, path: &str) -> Result<StoreKey, KeyError> {
        if self.is_root() {
            StoreKey::new(path)
        } else {
            StoreKey::new(&format!("{}/{}", self.0, path))
        }
    }

    /// The key one level up (the root's parent is the root).
    pub fn parent(&self) -> StoreKey {
        match self.0.rfind('/') {
            Some(i) => StoreKey(self.0[..i].to_string()),
            None => StoreKey::root(),
        }
    }

    /// The last segment (empty for the root).
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// The segments in order.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// True when `self` is `prefix` or lies under it.
    pub fn starts_with(&self, prefix: &StoreKey) -> bool {
        prefix.is_root()
            || self.0 == prefix.0
            || (self.0.starts_with(&prefix.0)
                && self.0.as_bytes().get(prefix.0.len()) == Some(&b'/'))
    }

    /// The part of `self` below `prefix`, if `self` lies under it.
    pub fn strip_prefix(&self, prefix: &StoreKey) -> Option<&str> {
        if prefix.is_root() {
            return Some(&self.0);
        }
        self.0.strip_prefix(&prefix.0)?.strip_prefix('/')
    }
}

impl fmt::Display for StoreKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What is wrong with one segment of a key, if anything.
fn segment_fault(seg: &str) -> Option<&'static str> {
    if seg.is_empty() {
        Some("empty path segment")
    } else if seg == "." || seg == ".." {
        Some("'.' and '..' segments are not allowed")
    } else if seg.chars().any(char::is_control) {
        Some("control characters are not allowed")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(StoreKey::new("a/b").unwrap().as_str(), "a/b");
        assert_eq!(StoreKey::new("/").unwrap(), StoreKey::root());
        assert_eq!(
            StoreKey::new("a//b").unwrap_err().reason,
            "empty path segment"
        );
        assert_eq!(
            StoreKey::new("a/b/").unwrap_err().reason,
            "empty path segment"
        );
        assert!(StoreKey::new("../x").is_err());
        assert!(StoreKey::new("a/./x").is_err());
        assert!(StoreKey::new("a\u{1}b").is_err());
        assert!(StoreKey::new("a\nb").is_err());
        assert!(StoreKey::new(&"k".repeat(1025)).is_err());
        assert!(StoreKey::new(&"k".repeat(1024)).is_ok());
        // Names that object_store would percent-encode are kept byte-exact.
        assert_eq!(
            StoreKey::new("a[1]/x{2}#3 y").unwrap().as_str(),
            "a[1]/x{2}#3 y"
        );
        assert!(StoreKey::new(".zgroup").is_ok());
    }

    #[test]
    fn join_and_prefixes() {
        let g = StoreKey::new("g").unwrap();
        let k = g.join("v").unwrap().join(".zarray").unwrap();
        assert_eq!(k.as_str(), "g/v/.zarray");
        assert!(k.starts_with(&g));
        assert!(!StoreKey::new("gx/v").unwrap().starts_with(&g));
        assert_eq!(k.strip_prefix(&g), Some("v/.zarray"));
        assert_eq!(StoreKey::root().join("x").unwrap().as_str(), "x");
        assert!(g.join("a/b").is_err());
        // A joined key obeys the rules a key built whole does, with the same messages.
        for bad in ["..", ".", "a\u{1}b", "x\u{85}"] {
            let joined = g.join(bad).unwrap_err();
            let whole = StoreKey::new(&format!("g/{bad}")).unwrap_err();
            assert_eq!(joined, whole, "{bad:?}");
        }
        let long = "k".repeat(1022);
        assert_eq!(g.join(&long).unwrap().as_str().len(), 1024);
        let longer = format!("{long}k");
        let base = StoreKey::new(&"k".repeat(1023)).unwrap();
        for bad in ["..", "\u{1}"] {
            let joined = base.join(bad).unwrap_err();
            assert_eq!(joined.reason, "longer than S3's 1024-byte limit");
            assert_eq!(
                joined,
                StoreKey::new(&format!("{base}/{bad}")).unwrap_err(),
                "both rules broken: the length is named first, as whole"
            );
        }
        assert_eq!(
            g.join(&longer).unwrap_err(),
            StoreKey::new(&format!("g/{longer}")).unwrap_err()
        );
        assert_eq!(
            StoreKey::root().join("..").unwrap_err().reason,
            "'.' and '..' segments are not allowed"
        );
        assert_eq!(g.join_path("a/b").unwrap().as_str(), "g/a/b");
        assert_eq!(StoreKey::new("x").unwrap().parent(), StoreKey::root());
    }
}
