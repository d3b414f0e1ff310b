//! What stands at the place a new dataset is to be written, whatever kind of output it
//! will be: another dataset around it (the place is inside a Zarr directory, a zip or a
//! netCDF file, or under an object-store prefix that holds a dataset's root), and a
//! dataset already there. The entry point (`open::check_target`) turns these facts
//! into refusals; the kind-specific creators (`create.rs`) still refuse a place holding
//! something that is not a dataset of their kind.
//!
//! Why a new dataset is never written inside another: a directory or prefix inside a
//! dataset is one of its groups or arrays (`year.zarr/tas`), and swapping a new dataset
//! in there leaves the outer dataset opening with `tas` reading as fill: data lost
//! with exit 0, from a tab-completion slip.

use std::path::{Component, Path, PathBuf};

use crate::store::{
    examine_file_path, examine_path, Existing, ReadableStore, StoreError, StoreKey,
};
use crate::url::{DatasetUrl, Location, StorageKind};

/// The documents that make a folder (or a prefix) part of a dataset: a group's, an
/// array's, a root's, of every Zarr and NCZarr generation.
const DATASET_MARKERS: &[&str] = &[
    ".zgroup",
    ".zarray",
    "zarr.json",
    ".zmetadata",
    ".nczarr",
    ".nczgroup",
    ".nczarray",
];

/// The dataset a place is inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosing {
    /// The dataset (its path or URL): the outermost one around the place.
    pub dataset: String,
    /// What of it the place is, in a few words: "its array 'tas'", "its group 'obs'",
    /// "a new name inside it".
    pub what: String,
}

/// What the place a new dataset is to be written holds, and what is around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetFacts {
    /// The dataset the place is inside, if any.
    pub inside: Option<Enclosing>,
    /// The dataset at the place itself, of any kind.
    pub there: Option<Held>,
}

/// What kind of dataset a place holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// A Zarr or NCZarr dataset in a directory or under an object-store prefix: the
    /// kind `--append` grows.
    Zarr,
    /// A zip archive of one.
    Zip,
    /// A netCDF file (classic family or HDF5).
    NetcdfFile,
    /// A kerchunk reference file.
    References,
    /// An Icechunk repository (written by new snapshots, its history kept).
    Icechunk,
}

/// Look at the place `url` names before writing a new dataset there.
///
/// # Errors
/// [`StoreError`] when the place cannot be looked at (permissions, a failed listing).
pub fn inspect_target(url: &DatasetUrl) -> Result<TargetFacts, StoreError> {
    match (&url.location, url.storage) {
        (Location::Path(path), _) => inspect_path(path),
        (Location::Remote { .. }, StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure) => {
            inspect_cloud(url)
        }
        // A web server is refused by the creators (read only); nothing to look at.
        (Location::Remote { .. }, _) => Ok(TargetFacts {
            inside: None,
            there: None,
        }),
    }
}

/// `path` made absolute with its existing part's links and `..` resolved, so that
/// `year.zarr/../x.zarr` is not taken to be inside `year.zarr`.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // The names below the deepest part that exists, last first.
    let mut tail: Vec<std::ffi::OsString> = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(mut out) = std::fs::canonicalize(existing) {
            for name in tail.iter().rev() {
                match Path::new(name).components().next() {
                    Some(Component::ParentDir) => {
                        out.pop();
                    }
                    Some(Component::CurDir) | None => {}
                    Some(_) => out.push(name),
                }
            }
            return out;
        }
        let (Some(last), Some(parent)) = (existing.components().next_back(), existing.parent())
        else {
            return absolute;
        };
        tail.push(last.as_os_str().to_owned());
        existing = parent;
    }
}

fn inspect_path(path: &Path) -> Result<TargetFacts, StoreError> {
    let full = resolved(path);
    let mut inside = None;
    // Every ancestor, nearest first; the outermost dataset is the one named.
    for ancestor in full.ancestors().skip(1) {
        if let Some(found) = dataset_at(ancestor, &full)? {
            inside = Some(found);
        }
    }
    // Named as the user named the place: relative to the working directory when given so.
    if let (Some(found), true) = (&mut inside, path.is_relative()) {
        let cwd = std::env::current_dir().and_then(std::fs::canonicalize);
        if let Ok(Ok(rel)) = cwd
            .as_ref()
            .map(|c| Path::new(&found.dataset).strip_prefix(c))
        {
            if !rel.as_os_str().is_empty() {
                found.dataset = rel.display().to_string();
            }
        }
    }
    let there = if full.is_dir() && crate::place::icechunk::is_repository_dir(&full) {
        Some(Held::Icechunk)
    } else if full.is_dir() {
        (examine_path(&full, false)? == Existing::Dataset).then_some(Held::Zarr)
    } else if full.is_file() {
        if examine_file_path(&full)? == Existing::Dataset {
            Some(Held::NetcdfFile)
        } else if examine_path(&full, true)? == Existing::Dataset {
            Some(Held::Zip)
        } else {
            crate::place::starts_like_references(&full).then_some(Held::References)
        }
    } else {
        None
    };
    Ok(TargetFacts { inside, there })
}

/// The dataset `dir` is, as an ancestor of `target`: a directory holding a dataset's
/// document, or a file (a zip or netCDF file, inside which nothing can be made).
fn dataset_at(dir: &Path, target: &Path) -> Result<Option<Enclosing>, StoreError> {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(_) => return Ok(None),
    };
    let shown = dir.display().to_string();
    if meta.is_file() {
        let kind = if examine_file_path(dir)? == Existing::Dataset {
            "a netCDF file"
        } else if examine_path(dir, true)? == Existing::Dataset {
            "a zip archive"
        } else {
            "a file"
        };
        return Ok(Some(Enclosing {
            dataset: shown,
            what: format!("{kind}, not a directory"),
        }));
    }
    if crate::place::icechunk::is_repository_dir(dir) {
        return Ok(Some(Enclosing {
            dataset: shown,
            what: "an Icechunk repository, whose objects are its own".into(),
        }));
    }
    if !DATASET_MARKERS.iter().any(|m| dir.join(m).is_file()) {
        return Ok(None);
    }
    let below = target
        .strip_prefix(dir)
        .ok()
        .and_then(|rest| rest.components().next())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    let child = dir.join(&below);
    let is = |names: &[&str]| names.iter().any(|m| child.join(m).is_file());
    let what = if below.is_empty() {
        "inside it".to_string()
    } else if is(&[".zarray", ".nczarray"]) || array_v3(&child.join("zarr.json")) {
        format!("its array '{below}'")
    } else if is(&[".zgroup", ".nczgroup", "zarr.json"]) {
        format!("its group '{below}'")
    } else if child.exists() {
        format!("'{below}' inside it")
    } else {
        format!("a new name '{below}' inside it")
    };
    Ok(Some(Enclosing {
        dataset: shown,
        what,
    }))
}

/// Whether a Zarr v3 `zarr.json` describes an array (its `node_type`).
fn array_v3(doc: &Path) -> bool {
    std::fs::read(doc).is_ok_and(|bytes| node_is_array(&bytes))
}

fn node_is_array(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    text.contains("\"node_type\"") && text.contains("\"array\"")
}

/// On an object store: each prefix above the place is looked at for a dataset's
/// documents (one batch of HEAD requests), and the place itself listed.
fn inspect_cloud(url: &DatasetUrl) -> Result<TargetFacts, StoreError> {
    // As for writing: a cloud that refuses writes without credentials (GCS) says so
    // before any request.
    let place = crate::place::open_cloud(url, None, true)?;
    let parts: Vec<String> = place
        .root_key()
        .split('/')
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect();
    let bucket = place.at_root("");
    // Ancestors: "", "a", "a/b", ... (the place itself excluded), outermost first.
    let ancestors: Vec<String> = (0..parts.len()).map(|n| parts[..n].join("/")).collect();
    let mut keys = Vec::new();
    for (depth, prefix) in ancestors.iter().enumerate() {
        for marker in DATASET_MARKERS.iter().chain(&[REPO_OBJECT]) {
            let key = if prefix.is_empty() {
                (*marker).to_string()
            } else {
                format!("{prefix}/{marker}")
            };
            if let Ok(k) = StoreKey::new(&key) {
                keys.push((depth, k));
            }
        }
    }
    let found = bucket.exist_many(&keys.iter().map(|(_, k)| k.clone()).collect::<Vec<_>>())?;
    let mut outermost = None;
    for ((depth, key), there) in keys.iter().zip(found) {
        // An object named `repo` is a repository's only when Icechunk wrote it.
        let there = there
            && (key.as_str().rsplit('/').next() != Some(REPO_OBJECT)
                || holds_repository(&bucket, key));
        if there && outermost.is_none_or(|d| *depth < d) {
            outermost = Some(*depth);
        }
    }
    let inside = outermost.map(|depth| Enclosing {
        dataset: bucket.at_root(&ancestors[depth]).location(),
        what: format!("'{}' inside it", parts[depth]),
    });
    let repo_key = StoreKey::new(REPO_OBJECT).expect("static key");
    let mut there = if holds_repository(&place, &repo_key) {
        Some(Held::Icechunk)
    } else {
        (place.existing()? == Existing::Dataset).then_some(Held::Zarr)
    };
    if there.is_none() && !parts.is_empty() {
        if let Ok(key) = StoreKey::new(&parts.join("/")) {
            // An object named as the place itself: a netCDF file or a reference file.
            // HEAD first: a miss has no body to be cut short on a flaky link.
            let head = if bucket.exist_many(std::slice::from_ref(&key))?[..] == [true] {
                bucket.get_range(&key, &crate::store::ByteRange::Bounded(0..64))?
            } else {
                None
            };
            if let Some(head) = head {
                if crate::store::is_netcdf_magic(&head) {
                    there = Some(Held::NetcdfFile);
                } else if crate::place::looks_like_references(&head) {
                    there = Some(Held::References);
                }
            }
        }
    }
    Ok(TargetFacts { inside, there })
}

/// The name of an Icechunk repository's root object.
const REPO_OBJECT: &str = "repo";

/// True when `key` of `store` starts as an Icechunk repository's `repo` object does.
fn holds_repository(store: &crate::cloud::CloudStore, key: &StoreKey) -> bool {
    use crate::store::ReadableStore;
    store
        .get_range(key, &crate::store::ByteRange::Bounded(0..12))
        .is_ok_and(|h| h.as_deref() == Some(crate::place::icechunk::MAGIC))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(p: &Path) -> TargetFacts {
        inspect_target(&DatasetUrl::parse(&p.display().to_string()).unwrap()).unwrap()
    }

    #[test]
    fn places_inside_a_dataset_are_named_with_what_they_would_hit() {
        let tmp = tempfile::tempdir().unwrap();
        let ds = tmp.path().join("year.zarr");
        std::fs::create_dir_all(ds.join("tas")).unwrap();
        std::fs::create_dir_all(ds.join("obs/v")).unwrap();
        std::fs::write(ds.join(".zgroup"), b"{}").unwrap();
        std::fs::write(ds.join("tas/.zarray"), b"{}").unwrap();
        std::fs::write(ds.join("obs/.zgroup"), b"{}").unwrap();
        std::fs::write(ds.join("obs/v/.zarray"), b"{}").unwrap();
        let real = std::fs::canonicalize(&ds).unwrap().display().to_string();
        let f = facts(&ds.join("tas"));
        assert_eq!(
            f.inside,
            Some(Enclosing {
                dataset: real.clone(),
                what: "its array 'tas'".into()
            })
        );
        let f = facts(&ds.join("obs/v"));
        assert_eq!(f.inside.unwrap().what, "its group 'obs'");
        let f = facts(&ds.join("new.zarr"));
        assert_eq!(f.inside.unwrap().what, "a new name 'new.zarr' inside it");
        // `..` leads out of it.
        let f = facts(&ds.join("../other.zarr"));
        assert_eq!(f.inside, None);
        assert_eq!(f.there, None);
        let f = facts(&ds);
        assert_eq!(f.inside, None);
        assert_eq!(f.there, Some(Held::Zarr));
    }

    #[test]
    fn files_around_a_place_and_at_it() {
        let tmp = tempfile::tempdir().unwrap();
        let nc = tmp.path().join("x.nc");
        std::fs::write(&nc, b"CDF\x01\0\0\0\0").unwrap();
        let f = facts(&nc.join("y.zarr"));
        assert_eq!(f.inside.unwrap().what, "a netCDF file, not a directory");
        assert_eq!(facts(&nc).there, Some(Held::NetcdfFile));
        let txt = tmp.path().join("notes.txt");
        std::fs::write(&txt, b"x").unwrap();
        assert_eq!(facts(&txt).there, None);
        assert_eq!(
            facts(&txt.join("a")).inside.unwrap().what,
            "a file, not a directory"
        );
    }
}
