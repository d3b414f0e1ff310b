//! Naming, finding, opening and creating a repository: on a local disk through
//! Icechunk's own file storage, in a cloud bucket through our client (`backend.rs`).

use std::sync::Arc;

use icechunk::repository::VersionInfo;
use icechunk::virtual_chunks::VirtualChunkContainer;
use icechunk::Repository;

use super::said;
use crate::reach::Origin;
use crate::store::{StoreError, TraceSink};
use crate::url::{DatasetUrl, Location, StorageKind};

/// The first bytes of every Icechunk metadata object (version 2 and later): the
/// `repo` object of a repository begins with them.
/// (`ICE🧊CHUNK`).
pub const MAGIC: &[u8; 12] = b"ICE\xF0\x9F\xA7\x8ACHUNK";

/// The object every repository of Icechunk 2 has at its root.
pub(crate) const REPO_OBJECT: &str = "repo";
/// What version 1 repositories (Icechunk 1.x) have instead.
pub(crate) const V1_MAIN_REF: &str = "refs/branch.main/ref.json";

type DynStorage = Arc<dyn icechunk::Storage + Send + Sync>;

/// Which version of a repository to read: a branch's tip, a tag, a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Version {
    /// The tip of a branch (`#branch=NAME`; `main` when nothing is said).
    Branch(String),
    /// A tag (`#tag=NAME`).
    Tag(String),
    /// A snapshot by its id (`#snapshot=ID`).
    Snapshot(String),
}

/// Refuse a branch or tag name our writes would make hard to name again: empty, with
/// blanks or control characters, starting with `-` or `.`, with `..`, `//`, or one of
/// `~^:?*[\\`, ending with `/` or `.lock` (git's rules for refs, which Icechunk
/// does not check: a repository another tool made is read whatever its names).
///
/// # Errors
/// [`StoreError::Settings`] naming `location` and the name.
pub(crate) fn check_ref_name(kind: &str, name: &str, location: &str) -> Result<(), StoreError> {
    let bad = name.is_empty()
        || name.chars().any(|c| c.is_whitespace() || c.is_control())
        || name.starts_with(['-', '.'])
        || name.contains("..")
        || name.contains("//")
        || name.contains(['~', '^', ':', '?', '*', '[', '\\'])
        || name.ends_with('/')
        || name.ends_with(".lock");
    if bad {
        return Err(StoreError::Settings {
            location: location.to_string(),
            message: format!(
                "'{name}' is not a {kind} name: one word of letters, digits and -_./ (not starting with - or ., no .. or //, as git names refs); nothing was written"
            ),
        });
    }
    Ok(())
}

/// Fragment keys a typo of which would silently choose the `main` branch instead.
const VERSION_KEYS: [&str; 3] = ["branch", "tag", "snapshot"];

/// Whether a repository's name may carry fragment key `key`: a version, or what every
/// dataset name may (tracing, reference rules, cloud settings, concurrency).
fn repository_key(key: &str) -> bool {
    VERSION_KEYS.contains(&key)
        || ["log", "show", crate::reach::LOCAL_REFS_KEY, "concurrency"].contains(&key)
        || ["aws.", "gcs.", "azure.", "s3."]
            .iter()
            .any(|p| key.starts_with(p))
}

/// The version key `key` is a near miss of (a letter wrong, missing or extra; two in
/// `branch` and `snapshot`), if any. netcdf-c's `log` is two from `tag`: not one.
fn near_version_key(key: &str) -> Option<&'static str> {
    VERSION_KEYS
        .into_iter()
        .find(|k| *k != key && edit_distance(k, key) <= (k.len() / 3).max(1))
}

/// Levenshtein distance between `a` and `b`, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

impl Version {
    /// The version `url`'s fragment chooses (`branch=`, `tag=`, `snapshot=`), the
    /// `main` branch when none.
    ///
    /// # Errors
    /// [`StoreError::Settings`] when more than one is given, or one is empty; a key
    /// one or two letters from `branch`, `tag` or `snapshot` (a typo would read `main`).
    pub fn from_url(url: &DatasetUrl) -> Result<Version, StoreError> {
        if let Some((key, meant)) = url
            .params
            .iter()
            .find_map(|(k, _)| near_version_key(k).map(|m| (k, m)))
        {
            return Err(StoreError::Settings {
                location: url.original.clone(),
                message: format!(
                    "no fragment key #{key}= (did you mean #{meant}=? a version is #branch=, #tag= or #snapshot=)"
                ),
            });
        }
        // Any other key a repository does not use is refused too: read as written,
        // `#snapshot_id=` or `#commit=` would give the tip of main.
        if let Some((key, _)) = url.params.iter().find(|(k, _)| !repository_key(k)) {
            return Err(StoreError::Settings {
                location: url.original.clone(),
                message: format!(
                    "an Icechunk repository takes no fragment key #{key}= (a version is #branch=, #tag= or #snapshot=)"
                ),
            });
        }
        let chosen: Vec<Version> = [
            ("branch", Version::Branch as fn(String) -> Version),
            ("tag", Version::Tag),
            ("snapshot", Version::Snapshot),
        ]
        .iter()
        .filter_map(|(key, make)| url.param(key).map(|v| (key, make(v.to_string()))))
        .map(|(key, v)| match &v {
            Version::Branch(n) | Version::Tag(n) | Version::Snapshot(n) if n.is_empty() => {
                Err(StoreError::Settings {
                    location: url.original.clone(),
                    message: format!("#{key}= needs a name"),
                })
            }
            _ => Ok(v),
        })
        .collect::<Result<_, _>>()?;
        match chosen.len() {
            0 => Ok(Version::Branch("main".into())),
            1 => Ok(chosen.into_iter().next().expect("one")),
            _ => Err(StoreError::Settings {
                location: url.original.clone(),
                message: "name one version: #branch=, #tag= or #snapshot=, not several".into(),
            }),
        }
    }

    /// `branch main`, `tag v1`, `snapshot ID`: for messages.
    pub fn describe(&self) -> String {
        match self {
            Version::Branch(b) => format!("branch {b}"),
            Version::Tag(t) => format!("tag {t}"),
            Version::Snapshot(s) => format!("snapshot {s}"),
        }
    }

    fn info(&self) -> Result<VersionInfo, String> {
        Ok(match self {
            Version::Branch(b) => VersionInfo::BranchTipRef(b.clone()),
            Version::Tag(t) => VersionInfo::TagRef(t.clone()),
            Version::Snapshot(s) => VersionInfo::SnapshotId(
                icechunk::format::SnapshotId::try_from(s.as_str()).map_err(|e| {
                    format!("snapshot '{s}' is not a snapshot id (20 characters of Crockford base 32): {e}")
                })?,
            ),
        })
    }
}

/// True when the directory `path` holds an Icechunk repository: its `repo` object
/// starts with [`MAGIC`], or (version 1) it has `refs/branch.main/ref.json`.
pub fn is_repository_dir(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 12];
    let v2 = std::fs::File::open(path.join(REPO_OBJECT))
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == MAGIC);
    v2 || path.join(V1_MAIN_REF).is_file()
}

/// A repository opened, with what reading it needs.
pub struct Repo {
    pub(crate) repo: Arc<Repository>,
    pub(crate) runtime: &'static tokio::runtime::Runtime,
    /// The repository's name as given, without its fragment.
    pub(crate) location: String,
    /// Where the repository is: what its virtual chunks may reach.
    pub(crate) origin: Origin,
    /// The directory (or URL) relative virtual chunk locations are under.
    pub(crate) base: String,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Repo({})", self.location)
    }
}

fn runtime(location: &str) -> Result<&'static tokio::runtime::Runtime, StoreError> {
    crate::cloud::io_runtime().map_err(|message| StoreError::Settings {
        location: location.to_string(),
        message,
    })
}

/// The storage of the repository `url` names, where it is and how it is reached.
fn storage_of(
    url: &DatasetUrl,
    trace: Option<&TraceSink>,
    write: bool,
    runtime: &'static tokio::runtime::Runtime,
) -> Result<(DynStorage, Origin, String), StoreError> {
    let location = url
        .original
        .split('#')
        .next()
        .unwrap_or(&url.original)
        .to_string();
    match (&url.location, url.storage) {
        (Location::Path(path), StorageKind::Dir) => {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            let storage = runtime
                .block_on(icechunk::new_local_filesystem_storage(&path))
                .map_err(|e| StoreError::Archive {
                    location: location.clone(),
                    message: format!("not an Icechunk repository: {}", said(&e.kind)),
                })?;
            Ok((storage, Origin::Local, path.display().to_string()))
        }
        (_, StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure) => {
            let store = crate::place::open_cloud(url, trace, write)?;
            let origin = Origin::of_address(store.endpoint());
            let storage = super::backend::storage_over(store.client(), store.root_key(), &location)
                .map_err(|message| StoreError::Settings {
                    location: location.clone(),
                    message,
                })?;
            Ok((storage, origin, location))
        }
        _ => Err(StoreError::Settings {
            location,
            message: "an Icechunk repository is read from a directory, S3, GCS or Azure".into(),
        }),
    }
}

/// Open the repository `url` names (its version is chosen later, by the session).
///
/// # Errors
/// [`StoreError::NotFound`] when there is no repository there; settings and storage
/// errors naming the repository.
pub fn open_repository(url: &DatasetUrl, trace: Option<&TraceSink>) -> Result<Repo, StoreError> {
    let runtime = runtime(&url.original)?;
    if let Some(path) = url.path() {
        let location = path.display().to_string();
        if !path.exists() {
            return Err(StoreError::NotFound { location });
        }
        if !is_repository_dir(path) {
            return Err(StoreError::Archive {
                location,
                message:
                    "not an Icechunk repository (no repo object, nor refs/branch.main/ref.json)"
                        .into(),
            });
        }
    }
    let (storage, origin, base) = storage_of(url, trace, false, runtime)?;
    let location = url
        .original
        .split('#')
        .next()
        .unwrap_or(&url.original)
        .to_string();
    let repo = runtime
        .block_on(Repository::open(storage).execute())
        .map_err(|e| match e.kind {
            icechunk::repository::RepositoryErrorKind::RepositoryDoesntExist => {
                StoreError::NotFound {
                    location: location.clone(),
                }
            }
            kind => StoreError::Archive {
                location: location.clone(),
                message: format!("Icechunk repository: {}", said(&kind)),
            },
        })?;
    if let Some(sink) = trace {
        sink(&format!("open Icechunk repository at {location}"));
    }
    Ok(Repo {
        repo: Arc::new(repo),
        runtime,
        location,
        origin,
        base,
    })
}

/// Create a new, empty repository at `url` (its `main` branch holds the initial,
/// empty snapshot), with `config` (virtual chunk containers) saved in it.
///
/// # Errors
/// Settings and storage errors; [`StoreError::Archive`] when something is there.
pub fn create_repository(
    url: &DatasetUrl,
    config: Option<icechunk::RepositoryConfig>,
) -> Result<Repo, StoreError> {
    let runtime = runtime(&url.original)?;
    let location = url
        .original
        .split('#')
        .next()
        .unwrap_or(&url.original)
        .to_string();
    if let Some(path) = url.path() {
        std::fs::create_dir_all(path).map_err(|source| StoreError::Io {
            location: location.clone(),
            source,
        })?;
    }
    let (storage, origin, base) = storage_of(url, None, true, runtime)?;
    let mut builder = Repository::create(storage);
    if let Some(config) = config {
        builder = builder.config(config);
    }
    let repo = runtime
        .block_on(builder.execute())
        .map_err(|e| StoreError::Archive {
            location: location.clone(),
            message: format!("cannot create an Icechunk repository: {}", said(&e.kind)),
        })?;
    Ok(Repo {
        repo: Arc::new(repo),
        runtime,
        location,
        origin,
        base,
    })
}

/// `repo` with `config` (its virtual chunk containers) saved in it: declared before
/// the commit that refers to them, so that the snapshot is never readable without.
///
/// # Errors
/// Icechunk's refusal, naming the repository.
pub(crate) fn with_config(
    repo: Repo,
    config: icechunk::RepositoryConfig,
) -> Result<Repo, StoreError> {
    let saved = save_config(&repo, config)?;
    Ok(Repo {
        repo: Arc::new(saved),
        ..repo
    })
}

/// Declare `containers` in `repo`'s saved config (those it has are kept), before a
/// commit that refers to them.
///
/// # Errors
/// As [`with_config`]; a container Icechunk refuses.
pub(crate) fn declare_containers(
    repo: &Repo,
    containers: &[VirtualChunkContainer],
) -> Result<(), StoreError> {
    let config = declaring(&repo.location, repo.repo.config().clone(), containers)?;
    save_config(repo, config).map(drop)
}

/// `config` with `containers` declared too (those it has are kept).
///
/// # Errors
/// [`StoreError::Settings`] naming `location` for a container Icechunk refuses.
pub(crate) fn declaring(
    location: &str,
    mut config: icechunk::RepositoryConfig,
    containers: &[VirtualChunkContainer],
) -> Result<icechunk::RepositoryConfig, StoreError> {
    for c in containers {
        config
            .set_virtual_chunk_container(c.clone())
            .map_err(|message| StoreError::Settings {
                location: location.to_string(),
                message,
            })?;
    }
    Ok(config)
}

/// Save `config` in `repo`; the repository reopened with it.
fn save_config(repo: &Repo, config: icechunk::RepositoryConfig) -> Result<Repository, StoreError> {
    let fail = |message: String| StoreError::Archive {
        location: repo.location.clone(),
        message,
    };
    let reopened = repo
        .runtime
        .block_on(repo.repo.reopen(Some(config), None))
        .map_err(|e| fail(said(&e.kind)))?;
    repo.runtime.block_on(reopened.save_config()).map_err(|e| {
        fail(format!(
            "cannot save its virtual chunk containers: {}",
            said(&e.kind)
        ))
    })?;
    Ok(reopened)
}

impl Repo {
    /// Where the repository is, as named.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// A read-only session of `version`.
    ///
    /// # Errors
    /// [`StoreError::Archive`] naming the version when it is not in the repository.
    pub(crate) fn readonly(
        &self,
        version: &Version,
    ) -> Result<icechunk::session::Session, StoreError> {
        let info = version.info().map_err(|message| StoreError::Settings {
            location: self.location.clone(),
            message,
        })?;
        self.runtime
            .block_on(self.repo.readonly_session(&info))
            .map_err(|e| self.version_error(version, &e.kind))
    }

    /// A session that writes on `branch`, from its tip.
    ///
    /// # Errors
    /// As [`Repo::readonly`].
    pub(crate) fn writable(&self, branch: &str) -> Result<icechunk::session::Session, StoreError> {
        self.runtime
            .block_on(self.repo.writable_session(branch))
            .map_err(|e| self.version_error(&Version::Branch(branch.into()), &e.kind))
    }

    fn version_error(
        &self,
        version: &Version,
        kind: &icechunk::repository::RepositoryErrorKind,
    ) -> StoreError {
        let text = said(kind);
        // A snapshot id that names no object is a storage error's "not found".
        let missing = matches!(
            kind,
            icechunk::repository::RepositoryErrorKind::Ref(_)
                | icechunk::repository::RepositoryErrorKind::SnapshotNotFound { .. }
        ) || text.contains("not found");
        StoreError::Archive {
            location: self.location.clone(),
            message: if missing {
                format!(
                    "no {} in this Icechunk repository ({text})",
                    version.describe()
                )
            } else {
                format!("{}: {text}", version.describe())
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{check_ref_name, near_version_key};

    #[test]
    fn typos_of_version_keys_are_near_and_other_keys_are_not() {
        for (key, meant) in [
            ("brnch", "branch"),
            ("branches", "branch"),
            ("tags", "tag"),
            ("tg", "tag"),
            ("snapshots", "snapshot"),
            ("snpshot", "snapshot"),
        ] {
            assert_eq!(near_version_key(key), Some(meant), "{key}");
        }
        for key in [
            "branch",
            "tag",
            "snapshot",
            "log",
            "show",
            "mask",
            "aws.region",
            "hyrax",
            "refs.local",
        ] {
            assert_eq!(near_version_key(key), None, "{key}");
        }
    }

    #[test]
    fn names_git_would_refuse_are_refused() {
        for good in ["main", "dev", "v1.2", "release/2026-11", "bad_tag"] {
            assert!(check_ref_name("tag", good, "r").is_ok(), "{good}");
        }
        for bad in [
            "", " ", "a b", "-x", ".x", "a..b", "a//b", "a:b", "a?", "a*", "a[", "a\\b", "a/",
            "x.lock", "a\tb",
        ] {
            assert!(check_ref_name("tag", bad, "r").is_err(), "{bad:?}");
        }
    }
}
