//! Virtual chunks: byte ranges of other files (netCDF-4/HDF5, local, S3, GCS, Azure or
//! on a web server) that a repository refers to, read through our own stores with our
//! settings and credentials, never through a client the repository configures.
//!
//! A reference is followed only when it is inside one of the virtual chunk containers
//! the repository declares (its config's URL prefixes: what its writer said it would
//! refer to), and when [`crate::reach`]'s rules for reference files allow it: a
//! repository reached over the network names no file on this machine unless the reader
//! allows it (`--allow-local-refs`, `#refs.local=allow`), and nothing names a loopback,
//! link-local or metadata address from elsewhere. A chunk whose file changed after it
//! was referenced (a local file modified since the time the reference keeps) is refused.

use std::collections::HashSet;
use std::sync::Mutex;

use icechunk::session::Session;

use crate::place::ReferencedFiles;
use crate::reach::{check_reference, Origin, ReferenceOptions, Target};
use crate::store::StoreError;

/// A virtual chunk located: where its bytes are.
pub(super) struct VirtualChunk {
    /// The chunk's key in the repository.
    pub key: String,
    /// Inside one of the repository's declared containers.
    pub declared: bool,
    /// The file's URL (`file:///...`, `s3://...`, `https://...`).
    pub url: String,
    pub offset: u64,
    pub length: u64,
    /// The file was referenced at this time (seconds since 1970) and must not have
    /// changed since.
    pub modified: Option<u32>,
}

/// The files a repository's virtual chunks name, opened once each.
pub(super) struct VirtualFiles {
    files: ReferencedFiles,
    origin: Origin,
    options: ReferenceOptions,
    /// The URL prefixes of the repository's declared containers, for messages.
    containers: Vec<String>,
    /// Files already checked against the rules.
    allowed: Mutex<HashSet<String>>,
}

impl VirtualFiles {
    pub(super) fn new(
        session: &Session,
        base: String,
        origin: Origin,
        options: ReferenceOptions,
    ) -> VirtualFiles {
        let containers = session
            .config()
            .virtual_chunk_containers()
            .map(|c| c.url_prefix().to_string())
            .collect();
        VirtualFiles {
            files: ReferencedFiles::new(base, origin),
            origin,
            options,
            containers,
            allowed: Mutex::new(HashSet::new()),
        }
    }

    /// The bytes of `chunk`, once its file is allowed.
    ///
    /// # Errors
    /// [`StoreError::ReferenceRefused`] outside the declared containers or against the
    /// rules; [`StoreError::Corrupt`] for a file changed since; read errors.
    pub(super) fn read(&self, chunk: &VirtualChunk) -> Result<Vec<u8>, StoreError> {
        self.check(chunk)?;
        self.files
            .read(&chunk.url, chunk.offset, Some(chunk.length), &chunk.key)
    }

    fn check(&self, chunk: &VirtualChunk) -> Result<(), StoreError> {
        let known = self
            .allowed
            .lock()
            .map(|a| a.contains(&chunk.url))
            .unwrap_or(false);
        if known {
            return Ok(());
        }
        let refuse = |refusal: crate::reach::Refusal| StoreError::ReferenceRefused {
            key: chunk.key.clone(),
            refusal: Box::new(refusal),
        };
        if !chunk.declared {
            let declared = if self.containers.is_empty() {
                "it declares none".to_string()
            } else {
                format!("it declares {}", self.containers.join(", "))
            };
            return Err(refuse(crate::reach::Refusal::Malformed {
                url: chunk.url.clone(),
                reason: format!("outside the repository's virtual chunk containers ({declared})"),
            }));
        }
        let target = self.files.target(&chunk.url);
        check_reference(self.origin, &target, self.options).map_err(refuse)?;
        if let (Target::Local(path), Some(at)) = (&target, chunk.modified) {
            let changed = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .is_some_and(|d| d.as_secs() > u64::from(at));
            if changed {
                return Err(StoreError::Corrupt {
                    key: chunk.key.clone(),
                    message: format!(
                        "{path} changed after the repository referred to it (the chunk may not be there any more); re-reference the file"
                    ),
                });
            }
        }
        if let Ok(mut allowed) = self.allowed.lock() {
            allowed.insert(chunk.url.clone());
        }
        Ok(())
    }
}
