//! What is already at the place a new dataset is to be written: nothing, a dataset of a
//! kind the tools write (which a new one may replace), or anything else, which no tool
//! ever deletes.
//!
//! The rule is about keys, so that it is the same on a directory, in a zip archive and
//! under an S3, GCS or Azure prefix: every key must belong to a Zarr or NCZarr dataset
//! (a metadata document, or a chunk key inside an array's folder), and the root must
//! hold the document that makes it a dataset. A directory of a dataset that also holds
//! `notes.txt` is refused too: replacing the dataset would delete the note with it.
//!
//! What this module does not do: decide whether to replace (the writer's options do),
//! or read the documents (a damaged dataset of ours is still ours to replace).

use std::fs;
use std::path::Path;

use super::StoreError;

/// The names of the documents that make a folder a group or an array, of every Zarr
/// and NCZarr generation.
const METADATA_NAMES: &[&str] = &[
    ".zgroup",
    ".zarray",
    ".zattrs",
    ".zmetadata",
    "zarr.json",
    ".nczarr",
    ".nczgroup",
    ".nczarray",
    ".nczattr",
];

/// The documents at a root that make it a dataset.
const ROOT_MARKERS: &[&str] = &[".zgroup", ".zarray", ".zmetadata", "zarr.json", ".nczarr"];

/// The documents that make a folder an array (its chunks are keys inside it).
const ARRAY_MARKERS: &[&str] = &[".zarray", "zarr.json", ".nczarray"];

/// Folder of nczcopy's own notes for a copy in parts (see `nczarr::PARTS_PREFIX`).
const OWN_NOTES: &str = ".nczcopy/";

/// Files an operating system's file browser leaves in any folder it shows.
const OS_LITTER: &[&str] = &[".DS_Store", "Thumbs.db", "desktop.ini"];

/// What a place holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Existing {
    /// Nothing: no file, an empty directory, no key under the prefix.
    Nothing,
    /// A Zarr or NCZarr dataset and nothing else: a new dataset may replace it.
    Dataset,
    /// Something that is not (only) a dataset; `what` says what, for a message that
    /// ends "...; nothing was written".
    Foreign {
        /// What is there, in a few words, naming an example key or file.
        what: String,
    },
}

impl Existing {
    /// `self`, unless it is foreign: then the error that refuses to write over it at
    /// `location`.
    ///
    /// # Errors
    /// [`StoreError::Archive`] naming what is at `location`.
    pub fn or_refuse(self, location: &str) -> Result<Existing, StoreError> {
        match self {
            Existing::Foreign { what } => Err(StoreError::Archive {
                location: location.to_string(),
                message: format!(
                    "already exists and {what}; nothing was written (only a dataset is \
                     ever replaced: move it away or choose another name)"
                ),
            }),
            other => Ok(other),
        }
    }
}

/// Judge a set of keys (relative to the place, `/`-separated): [`Existing::Dataset`]
/// when the root holds a dataset's document and every key belongs to it.
pub fn judge_keys<S: AsRef<str>>(keys: &[S]) -> Existing {
    judge(keys, true)
}

/// Judge the keys under an object-store prefix: as [`judge_keys`], but keys that all
/// belong to a dataset without its root document are a dataset too. On an object store
/// (no staging, no rename) that is what a killed run of ours leaves: chunks and array
/// documents, the root's written last; `--overwrite` must be able to replace it.
pub fn judge_prefix_keys<S: AsRef<str>>(keys: &[S]) -> Existing {
    judge(keys, false)
}

fn judge<S: AsRef<str>>(keys: &[S], root_needed: bool) -> Existing {
    if keys.is_empty() {
        return Existing::Nothing;
    }
    let array_dirs: Vec<&str> = keys
        .iter()
        .filter_map(|k| {
            let k = k.as_ref();
            let (dir, name) = k.rsplit_once('/').unwrap_or(("", k));
            ARRAY_MARKERS.contains(&name).then_some(dir)
        })
        .collect();
    let rooted = keys.iter().any(|k| ROOT_MARKERS.contains(&k.as_ref()));
    let foreign: Vec<&str> = keys
        .iter()
        .map(AsRef::as_ref)
        .filter(|k| !belongs(k, &array_dirs) && (root_needed || !in_some_array(k)))
        .collect();
    let some_dataset = rooted || (!root_needed && foreign.len() < keys.len());
    match (some_dataset, foreign.first()) {
        (true, None) => Existing::Dataset,
        (true, Some(first)) => Existing::Foreign {
            what: format!(
                "holds a dataset and also '{first}'{}, which {} not part of it",
                others(foreign.len()),
                if foreign.len() == 1 { "is" } else { "are" }
            ),
        },
        (false, _) => Existing::Foreign {
            what: format!(
                "is not a Zarr or NCZarr dataset (it holds '{}'{})",
                foreign.first().copied().unwrap_or_else(|| keys[0].as_ref()),
                others(keys.len())
            ),
        },
    }
}

fn others(n: usize) -> String {
    match n {
        0 | 1 => String::new(),
        2 => " and 1 other".into(),
        n => format!(" and {} others", n - 1),
    }
}

/// Whether `key` is part of a dataset whose arrays are the folders `array_dirs`.
fn belongs(key: &str, array_dirs: &[&str]) -> bool {
    let name = key.rsplit_once('/').map_or(key, |(_, n)| n);
    if METADATA_NAMES.contains(&name) || key.starts_with(OWN_NOTES) || OS_LITTER.contains(&name) {
        return true;
    }
    array_dirs.iter().any(|a| {
        let rest = if a.is_empty() {
            Some(key)
        } else {
            key.strip_prefix(a).and_then(|r| r.strip_prefix('/'))
        };
        rest.is_some_and(is_chunk_key)
    })
}

/// Whether `key` is a chunk key inside some folder (or at the root), its array's
/// document aside: what a killed run leaves on an object store, chunks being written
/// before the documents.
fn in_some_array(key: &str) -> bool {
    is_chunk_key(key)
        || key
            .char_indices()
            .filter(|&(_, c)| c == '/')
            .any(|(i, _)| is_chunk_key(&key[i + 1..]))
}

/// A chunk key relative to its array's folder, of any generation: `0.1.2`, `0/1/2`,
/// Zarr v3's `c/0/1` and `c`, with `.` or `/` between the indices.
fn is_chunk_key(rest: &str) -> bool {
    let indices = match rest.strip_prefix('c') {
        Some("") => return true,
        Some(r) => match r.strip_prefix('/').or_else(|| r.strip_prefix('.')) {
            Some(r) => r,
            None => return false,
        },
        None => rest,
    };
    !indices.is_empty()
        && indices
            .split(['.', '/'])
            .all(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
}

/// What is at `path`, where a netCDF file is to be written: a netCDF file (classic
/// family or HDF5, by its first bytes) may be replaced, as nccopy replaces it;
/// anything else is foreign.
///
/// # Errors
/// [`StoreError::Io`] when the place cannot be looked at (permissions).
pub fn examine_file_path(path: &Path) -> Result<Existing, StoreError> {
    // A link is judged by what it leads to (the new file then replaces the link, as a
    // linked dataset directory is replaced), a link to nothing as foreign.
    let meta = match followed_metadata(path)? {
        Ok(meta) => meta,
        Err(there) => return Ok(there),
    };
    if meta.is_dir() {
        return Ok(Existing::Foreign {
            what: "is a directory, not a netCDF file".into(),
        });
    }
    if !meta.is_file() {
        return Ok(Existing::Foreign {
            what: "is neither a netCDF file nor a directory".into(),
        });
    }
    let mut head = [0u8; 8];
    let n = fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let netcdf = is_netcdf_magic(&head[..n]);
    Ok(if netcdf {
        Existing::Dataset
    } else {
        Existing::Foreign {
            what: format!("is a file ({} bytes) that is not a netCDF file", meta.len()),
        }
    })
}

/// The metadata of what `path` leads to (links followed), or, where nothing does, what
/// is there instead: nothing, or a link to nothing (which is the user's: foreign).
///
/// # Errors
/// [`StoreError::Io`] when the place cannot be looked at (permissions).
pub fn followed_metadata(path: &Path) -> Result<Result<fs::Metadata, Existing>, StoreError> {
    match fs::metadata(path) {
        Ok(m) => Ok(Ok(m)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok(Err(if fs::symlink_metadata(path).is_ok() {
                Existing::Foreign {
                    what: "is a symbolic link to nothing".into(),
                }
            } else {
                Existing::Nothing
            }))
        }
        Err(source) => Err(StoreError::Io {
            location: path.display().to_string(),
            source,
        }),
    }
}

/// Whether `head`, a file's first bytes (8 or fewer), starts a netCDF file: classic,
/// 64-bit offset, CDF-5 or HDF5.
pub fn is_netcdf_magic(head: &[u8]) -> bool {
    matches!(head.get(..4), Some(b"CDF\x01" | b"CDF\x02" | b"CDF\x05"))
        || head.starts_with(b"\x89HDF\r\n\x1a\n")
}

/// What is at `path`, where a dataset (a directory tree, or a zip archive when
/// `zip` is true) is to be written.
///
/// # Errors
/// [`StoreError::Io`] when the place cannot be looked at (permissions).
pub fn examine_path(path: &Path, zip: bool) -> Result<Existing, StoreError> {
    let meta = match followed_metadata(path)? {
        Ok(meta) => meta,
        Err(there) => return Ok(there),
    };
    if meta.is_dir() {
        let keys = walk(path)?;
        return Ok(match judge_keys(&keys) {
            Existing::Foreign { what } if zip => Existing::Foreign {
                what: format!("is a directory, not a zip archive, and {what}"),
            },
            Existing::Nothing if zip => Existing::Foreign {
                what: "is a directory, not a zip archive".into(),
            },
            judged => judged,
        });
    }
    if !meta.is_file() {
        return Ok(Existing::Foreign {
            what: "is neither a file nor a directory".into(),
        });
    }
    if !zip {
        return Ok(Existing::Foreign {
            what: format!("is a file ({} bytes), not a dataset directory", meta.len()),
        });
    }
    if meta.len() == 0 {
        return Ok(Existing::Foreign {
            what: "is an empty file, not a zip archive".into(),
        });
    }
    let names = match zip_entry_names(path) {
        Some(names) => names,
        None => {
            return Ok(Existing::Foreign {
                what: format!("is not a zip archive (a file of {} bytes)", meta.len()),
            })
        }
    };
    // netcdf-c's layout keeps the keys under one top-level folder.
    let under_top = names
        .first()
        .and_then(|n| n.split_once('/'))
        .map(|(top, _)| format!("{top}/"))
        .filter(|top| names.iter().all(|n| n.starts_with(top.as_str())))
        .map(|top| {
            names
                .iter()
                .map(|n| n[top.len()..].to_string())
                .collect::<Vec<_>>()
        });
    if let Some(inner) = under_top {
        if judge_keys(&inner) == Existing::Dataset {
            return Ok(Existing::Dataset);
        }
    }
    Ok(match judge_keys(&names) {
        Existing::Nothing => Existing::Foreign {
            what: "is a zip archive with nothing in it".into(),
        },
        Existing::Foreign { what } => Existing::Foreign {
            what: format!("is a zip archive that {what}"),
        },
        Existing::Dataset => Existing::Dataset,
    })
}

/// The names of the files in the zip archive at `path`; `None` when it is not one.
fn zip_entry_names(path: &Path) -> Option<Vec<String>> {
    let archive = zip::ZipArchive::new(fs::File::open(path).ok()?).ok()?;
    let mut names: Vec<String> = archive
        .file_names()
        .map(|n| {
            n.map_or_else(
                |_| "(a name that cannot be read)".into(),
                |n| n.into_owned(),
            )
        })
        .filter(|n| !n.ends_with('/'))
        .collect();
    names.sort();
    Some(names)
}

/// Every file under `root`, as a `/`-separated path relative to it. Symbolic links,
/// sockets and the like count as files: they are something the user put there.
fn walk(root: &Path) -> Result<Vec<String>, StoreError> {
    let mut keys = Vec::new();
    let mut todo = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = todo.pop() {
        let entries = fs::read_dir(&dir).map_err(|source| StoreError::Io {
            location: dir.display().to_string(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| StoreError::Io {
                location: dir.display().to_string(),
                source,
            })?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let key = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            match entry.file_type() {
                Ok(t) if t.is_dir() => todo.push((entry.path(), key)),
                _ => keys.push(key),
            }
        }
    }
    keys.sort();
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_keys_of_every_generation() {
        for k in ["0", "0.1.2", "0/1/2", "c", "c/0/1", "c.0.1", "12.0"] {
            assert!(is_chunk_key(k), "{k}");
        }
        for k in [
            "",
            "x",
            "0.",
            ".0",
            "0..1",
            "c0",
            "cat",
            "0.a",
            "notes.txt",
            "c/",
        ] {
            assert!(!is_chunk_key(k), "{k}");
        }
    }

    #[test]
    fn datasets_of_every_kind_are_datasets() {
        let cases: &[&[&str]] = &[
            &[
                ".zgroup",
                ".zattrs",
                "t/.zarray",
                "t/.zattrs",
                "t/0.0",
                "t/0.1",
            ],
            &[".zgroup", "g/.zgroup", "g/v/.zarray", "g/v/0/0"],
            &["zarr.json", "a/zarr.json", "a/c/0/0", "b/zarr.json", "b/c"],
            &[".zarray", "0.0", "1.0"],
            &[".nczarr", ".zgroup", "v/.zarray", "v/.nczarray", "v/0"],
            &[".zgroup", ".zmetadata", ".nczcopy/plan", ".DS_Store"],
        ];
        for keys in cases {
            assert_eq!(judge_keys(keys), Existing::Dataset, "{keys:?}");
        }
        assert_eq!(judge_keys::<&str>(&[]), Existing::Nothing);
    }

    #[test]
    fn anything_else_is_foreign_and_named() {
        let Existing::Foreign { what } = judge_keys(&["thesis.txt"]) else {
            panic!()
        };
        assert_eq!(
            what,
            "is not a Zarr or NCZarr dataset (it holds 'thesis.txt')"
        );
        let Existing::Foreign { what } =
            judge_keys(&[".zgroup", "notes.txt", "t/.zarray", "t/0", "t/plot.png"])
        else {
            panic!()
        };
        assert_eq!(
            what,
            "holds a dataset and also 'notes.txt' and 1 other, which are not part of it"
        );
        // Chunk-like names outside an array's folder are not chunks.
        assert!(matches!(
            judge_keys(&[".zgroup", "g/0.0"]),
            Existing::Foreign { .. }
        ));
        // A dataset one level down is not a dataset at this root...
        let nested = ["inner/.zgroup", "inner/t/.zarray", "inner/t/0"];
        assert!(matches!(judge_keys(&nested), Existing::Foreign { .. }));
        // ... but under an object-store prefix, where a killed run leaves a dataset
        // without its root document, keys that all belong to a dataset are one.
        assert_eq!(judge_prefix_keys(&nested), Existing::Dataset);
        assert_eq!(
            judge_prefix_keys(&["v/.zarray", "v/0.0"]),
            Existing::Dataset
        );
        // Chunks are written before their array's document.
        assert_eq!(
            judge_prefix_keys(&["v/1.0", "v/10.0", "g/w/c/0/1", "0"]),
            Existing::Dataset
        );
        assert!(matches!(
            judge_prefix_keys(&["v/.zarray", "v/0.0", "notes.txt"]),
            Existing::Foreign { .. }
        ));
    }

    #[test]
    fn paths_are_examined_by_what_they_hold() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path();
        assert_eq!(
            examine_path(&p.join("none"), false).unwrap(),
            Existing::Nothing
        );
        fs::create_dir(p.join("empty")).unwrap();
        assert_eq!(
            examine_path(&p.join("empty"), false).unwrap(),
            Existing::Nothing
        );
        fs::create_dir_all(p.join("docs/sub")).unwrap();
        fs::write(p.join("docs/sub/thesis.txt"), b"years").unwrap();
        let e = examine_path(&p.join("docs"), false).unwrap();
        assert!(
            matches!(&e, Existing::Foreign { what } if what.contains("sub/thesis.txt")),
            "{e:?}"
        );
        fs::create_dir_all(p.join("d.zarr/v")).unwrap();
        fs::write(p.join("d.zarr/.zgroup"), b"{}").unwrap();
        fs::write(p.join("d.zarr/v/.zarray"), b"{}").unwrap();
        fs::write(p.join("d.zarr/v/0"), b"").unwrap();
        assert_eq!(
            examine_path(&p.join("d.zarr"), false).unwrap(),
            Existing::Dataset
        );
        fs::write(p.join("notes.txt"), b"x").unwrap();
        let e = examine_path(&p.join("notes.txt"), false).unwrap();
        assert!(matches!(e, Existing::Foreign { .. }));
        let e = examine_path(&p.join("notes.txt"), true).unwrap();
        assert!(
            matches!(&e, Existing::Foreign { what } if what.contains("not a zip")),
            "{e:?}"
        );
        std::os::unix::fs::symlink(p.join("gone"), p.join("link")).unwrap();
        assert!(matches!(
            examine_path(&p.join("link"), false).unwrap(),
            Existing::Foreign { .. }
        ));
    }

    #[test]
    fn zip_archives_are_judged_by_their_entries() {
        use std::io::Write;
        let tmp = tempfile::tempdir().unwrap();
        let make = |name: &str, entries: &[&str]| {
            let path = tmp.path().join(name);
            let mut w = zip::ZipWriter::new(fs::File::create(&path).unwrap());
            for e in entries {
                w.start_file(*e, zip::write::SimpleFileOptions::default())
                    .unwrap();
                w.write_all(b"{}").unwrap();
            }
            w.finish().unwrap();
            path
        };
        let ds = make("ds.zip", &[".zgroup", "v/.zarray", "v/0"]);
        assert_eq!(examine_path(&ds, true).unwrap(), Existing::Dataset);
        let top = make("top.zip", &["top/.zgroup", "top/v/.zarray", "top/v/0"]);
        assert_eq!(examine_path(&top, true).unwrap(), Existing::Dataset);
        let docs = make("docs.zip", &["thesis.tex"]);
        let e = examine_path(&docs, true).unwrap();
        assert!(
            matches!(&e, Existing::Foreign { what } if what.contains("'thesis.tex'")),
            "{e:?}"
        );
    }
}
