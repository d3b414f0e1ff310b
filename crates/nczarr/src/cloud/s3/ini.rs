//! The INI dialect of `~/.aws/config` and `~/.aws/credentials`.
//!
//! Sections are `[name]` or `[profile name]` (the config file's spelling; both name the
//! profile `name`); entries are `key = value`, keys compared case-insensitively; a
//! section given twice is merged, later keys winning (as netcdf-c and the AWS CLI do).
//! Comment lines start with `#` or `;` (netcdf-c accepts only `;`, the AWS CLI both).
//! Indented lines under a key (the CLI's nested `s3 =` blocks) are kept as
//! `parent.key` entries so `s3.endpoint_url` can be read.

use std::collections::BTreeMap;

/// Profiles by name, each a map of lower-case keys to values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AwsIni {
    profiles: BTreeMap<String, BTreeMap<String, String>>,
}

impl AwsIni {
    /// Parse the text of a config or credentials file. Lines that are not sections,
    /// entries or comments are ignored, as the AWS tools ignore them.
    pub fn parse(text: &str) -> AwsIni {
        let mut ini = AwsIni::default();
        let mut current: Option<String> = None;
        let mut parent: Option<String> = None;
        for raw in text.lines() {
            let indented = raw.starts_with([' ', '\t']);
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                let inner = inner.trim();
                let name = match inner.strip_prefix("profile") {
                    Some(rest) if rest.starts_with([' ', '\t']) => rest.trim(),
                    _ => inner,
                };
                current = Some(name.to_string());
                parent = None;
                ini.profiles.entry(name.to_string()).or_default();
                continue;
            }
            let Some(name) = &current else { continue };
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim().to_string();
            let entries = ini.profiles.entry(name.clone()).or_default();
            if indented {
                if let Some(p) = &parent {
                    entries.insert(format!("{p}.{key}"), value);
                    continue;
                }
            }
            // `s3 =` with nothing after it opens a nested block.
            parent = value.is_empty().then(|| key.clone());
            entries.insert(key, value);
        }
        ini
    }

    /// Whether profile `name` is defined.
    pub fn has_profile(&self, name: &str) -> bool {
        self.profiles.contains_key(name)
    }

    /// Value of `key` (case-insensitive) in profile `name`.
    pub fn get(&self, name: &str, key: &str) -> Option<&str> {
        self.profiles
            .get(name)?
            .get(&key.to_ascii_lowercase())
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Every profile name, sorted.
    pub fn profile_names(&self) -> impl Iterator<Item = &str> {
        self.profiles.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_comments_and_merging() {
        let ini = AwsIni::parse(
            "# comment\n; also a comment\n[default]\naws_access_key_id = AKIA1\nAWS_Secret_Access_Key=s1\n\n\
             [profile dev]\nregion = eu-west-1\n  \n[dev]\nregion = eu-west-3\nendpoint_url = http://127.0.0.1:9000\n\
             [profile   spaced  ]\nx=1\n[profiles]\ny = 2\n",
        );
        assert_eq!(ini.get("default", "aws_access_key_id"), Some("AKIA1"));
        assert_eq!(ini.get("default", "aws_secret_access_key"), Some("s1"));
        // The same profile twice merges; the later key wins.
        assert_eq!(ini.get("dev", "region"), Some("eu-west-3"));
        assert_eq!(
            ini.get("dev", "ENDPOINT_URL"),
            Some("http://127.0.0.1:9000")
        );
        assert_eq!(ini.get("spaced", "x"), Some("1"));
        // "profiles" is a name, not "profile s".
        assert_eq!(ini.get("profiles", "y"), Some("2"));
        assert!(!ini.has_profile("nope"));
        assert_eq!(ini.get("nope", "region"), None);
    }

    #[test]
    fn nested_blocks_and_junk() {
        let ini = AwsIni::parse(
            "stray = before any section\n[p]\ns3 =\n  endpoint_url = http://x:1\n  addressing_style = path\nregion=us-west-2\nnot an entry\n",
        );
        assert_eq!(ini.get("p", "s3.endpoint_url"), Some("http://x:1"));
        assert_eq!(ini.get("p", "s3.addressing_style"), Some("path"));
        assert_eq!(ini.get("p", "region"), Some("us-west-2"));
        assert_eq!(ini.get("p", "stray"), None);
        assert_eq!(ini.profile_names().collect::<Vec<_>>(), ["p"]);
    }
}
