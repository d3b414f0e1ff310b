//! netcdf-c's run-control files: `.ncrc`, `.daprc`, `.dodsrc`.
//!
//! Lines are `KEY=VALUE` or `[URL]KEY=VALUE`; `#` starts a comment line. An entry with
//! a URL applies only to datasets under that URL: the same host (and port), and a path
//! that starts with the entry's path at a `/` boundary. S3 URLs are compared by bucket
//! and key whatever their spelling (`s3://b/k`, `https://b.s3.<region>.amazonaws.com/k`,
//! `https://s3.<region>.amazonaws.com/b/k`), as netcdf-c rewrites them to one form first.
//!
//! Files are found as netcdf-c finds them: only `$NCRCENV_RC` when it is set; otherwise
//! `.ncrc`, `.daprc`, `.dodsrc` in `$NCRCENV_HOME` (or `$HOME`), then in the current
//! directory; every file found is read, a later one overriding an earlier one.
//! `NCRCENV_IGNORE` turns them all off.
//!
//! Two netcdf-c behaviours are not copied: it deletes every blank inside a line (so
//! `AWS.PROFILE = my profile` named `myprofile`), and it compares entry paths for
//! equality where its documentation promises a prefix match.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a dataset is, as rc entries are matched: host (with port) and path. AWS
/// hosts are all `s3.amazonaws.com` with the bucket as the first path segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RcTarget {
    /// Lower-case host with optional `:port`.
    pub host: String,
    /// Path without leading or trailing `/`.
    pub path: String,
}

impl RcTarget {
    /// The target for a URL's scheme, host and path (the path without its leading `/`).
    pub fn new(scheme: &str, host: &str, path: &str) -> RcTarget {
        let host = host.to_ascii_lowercase();
        let path = path.trim_matches('/');
        let aws = |bucket: &str, key: &str| RcTarget {
            host: "s3.amazonaws.com".into(),
            path: [bucket, key]
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("/"),
        };
        if scheme.eq_ignore_ascii_case("s3") {
            return aws(&host, path);
        }
        if let Some(front) = host.strip_suffix(".amazonaws.com") {
            // bucket.s3.region / bucket.s3 (virtual) or s3.region / s3 (path style).
            if front == "s3" || front.starts_with("s3.") || front.starts_with("s3-") {
                return aws("", path);
            }
            if let Some(i) = front.find(".s3") {
                return aws(&front[..i], path);
            }
        }
        RcTarget {
            host,
            path: path.to_string(),
        }
    }

    fn from_prefix(url: &str) -> Option<RcTarget> {
        let (scheme, rest) = url.split_once("://")?;
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        Some(RcTarget::new(scheme, host, path))
    }

    fn covers(&self, other: &RcTarget) -> bool {
        self.host == other.host
            && (self.path.is_empty()
                || other.path == self.path
                || other
                    .path
                    .strip_prefix(&self.path)
                    .is_some_and(|r| r.starts_with('/')))
    }
}

/// One `[URL]KEY=VALUE` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RcEntry {
    /// The URL it is limited to, if any.
    pub target: Option<RcTarget>,
    /// The key, upper-cased (netcdf-c compares keys case-insensitively).
    pub key: String,
    /// The value, trimmed.
    pub value: String,
    /// `FILE:LINE`, for tracing where a setting came from.
    pub origin: String,
}

/// Every entry of every rc file read, in reading order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RcEntries {
    entries: Vec<RcEntry>,
}

impl RcEntries {
    /// Add the entries of one file's text; `name` labels them.
    pub fn add_text(&mut self, name: &str, text: &str) {
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (target, rest) = match line.strip_prefix('[').and_then(|l| l.split_once(']')) {
                Some((url, rest)) => match RcTarget::from_prefix(url.trim()) {
                    Some(t) => (Some(t), rest),
                    // A bare host, as in "[example.com]KEY=V".
                    None => (Some(RcTarget::new("https", url.trim(), "")), rest),
                },
                None => (None, line),
            };
            let Some((key, value)) = rest.split_once('=') else {
                continue;
            };
            self.entries.push(RcEntry {
                target,
                key: key.trim().to_ascii_uppercase(),
                value: value.trim().to_string(),
                origin: format!("{name}:{}", n + 1),
            });
        }
    }

    /// The entry for `key` that applies to `target`: among entries whose URL covers the
    /// target, the most specific (longest path), else an entry without a URL; the last
    /// read wins among equals.
    pub fn lookup(&self, key: &str, target: Option<&RcTarget>) -> Option<&RcEntry> {
        let key = key.to_ascii_uppercase();
        let mut best: Option<(usize, &RcEntry)> = None;
        for e in self.entries.iter().filter(|e| e.key == key) {
            let rank = match (&e.target, target) {
                (None, _) => 0,
                (Some(t), Some(want)) if t.covers(want) => 1 + t.path.len(),
                _ => continue,
            };
            if best.is_none_or(|(r, _)| rank >= r) {
                best = Some((rank, e));
            }
        }
        best.map(|(_, e)| e)
    }

    /// Whether any entry was read.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The rc files netcdf-c would read, in order, given the environment and the current
/// directory (whether they exist is not checked).
pub fn rc_paths(vars: &BTreeMap<String, String>, cwd: Option<&Path>) -> Vec<PathBuf> {
    if vars.contains_key("NCRCENV_IGNORE") {
        return Vec::new();
    }
    if let Some(rc) = vars.get("NCRCENV_RC").filter(|v| !v.is_empty()) {
        return vec![PathBuf::from(rc)];
    }
    let home = vars
        .get("NCRCENV_HOME")
        .or_else(|| vars.get("HOME"))
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let mut out = Vec::new();
    for dir in [home, cwd.map(Path::to_path_buf)].into_iter().flatten() {
        for name in [".ncrc", ".daprc", ".dodsrc"] {
            let p = dir.join(name);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn which_files() {
        let cwd = Path::new("/work");
        assert_eq!(
            rc_paths(&vars(&[("HOME", "/h")]), Some(cwd)),
            [
                "/h/.ncrc",
                "/h/.daprc",
                "/h/.dodsrc",
                "/work/.ncrc",
                "/work/.daprc",
                "/work/.dodsrc"
            ]
            .map(PathBuf::from)
        );
        assert_eq!(
            rc_paths(&vars(&[("HOME", "/h"), ("NCRCENV_HOME", "/o")]), None)[0],
            PathBuf::from("/o/.ncrc")
        );
        assert_eq!(
            rc_paths(&vars(&[("HOME", "/h"), ("NCRCENV_RC", "/x/rc")]), Some(cwd)),
            [PathBuf::from("/x/rc")]
        );
        assert!(rc_paths(&vars(&[("HOME", "/h"), ("NCRCENV_IGNORE", "1")]), Some(cwd)).is_empty());
        // The same directory twice is read once.
        assert_eq!(rc_paths(&vars(&[("HOME", "/work")]), Some(cwd)).len(), 3);
    }

    #[test]
    fn entries_and_matching() {
        let mut rc = RcEntries::default();
        rc.add_text(
            "home/.ncrc",
            "# comment\nAWS.PROFILE = base\n aws.region=us-west-1 \n[s3://bucket/data]AWS.PROFILE=data\n\
             [https://bucket.s3.eu-west-1.amazonaws.com/data/deep]AWS.PROFILE=deep\n\
             [http://127.0.0.1:9000/bkt]AWS.REGION=local\nno equals sign\n",
        );
        rc.add_text("cwd/.ncrc", "AWS.REGION=later\n");
        let t = |s: &str, h: &str, p: &str| RcTarget::new(s, h, p);
        let get =
            |key: &str, target: Option<&RcTarget>| rc.lookup(key, target).map(|e| e.value.clone());
        // Unqualified entries apply everywhere; the later file wins.
        assert_eq!(get("aws.region", None).as_deref(), Some("later"));
        assert_eq!(get("AWS.PROFILE", None).as_deref(), Some("base"));
        // URL-qualified: any spelling of the same bucket/key, prefix at '/' boundaries.
        let s3 = t("s3", "bucket", "data/x.zarr");
        assert_eq!(get("AWS.PROFILE", Some(&s3)).as_deref(), Some("data"));
        let virt = t("https", "bucket.s3.us-east-2.amazonaws.com", "data/deep/y");
        assert_eq!(get("AWS.PROFILE", Some(&virt)).as_deref(), Some("deep"));
        let path = t("https", "s3.us-east-2.amazonaws.com", "bucket/data");
        assert_eq!(get("AWS.PROFILE", Some(&path)).as_deref(), Some("data"));
        let sibling = t("s3", "bucket", "database");
        assert_eq!(get("AWS.PROFILE", Some(&sibling)).as_deref(), Some("base"));
        let local = t("http", "127.0.0.1:9000", "bkt/k");
        assert_eq!(get("AWS.REGION", Some(&local)).as_deref(), Some("local"));
        let other_port = t("http", "127.0.0.1:9001", "bkt/k");
        assert_eq!(
            get("AWS.REGION", Some(&other_port)).as_deref(),
            Some("later")
        );
        assert_eq!(
            rc.lookup("AWS.PROFILE", Some(&s3))
                .map(|e| e.origin.as_str()),
            Some("home/.ncrc:4")
        );
        // Blanks inside a value are kept (netcdf-c deletes them).
        let mut rc2 = RcEntries::default();
        rc2.add_text("x", "AWS.PROFILE = my profile\n");
        assert_eq!(rc2.lookup("AWS.PROFILE", None).unwrap().value, "my profile");
    }
}
