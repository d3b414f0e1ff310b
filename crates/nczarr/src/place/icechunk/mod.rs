//! Icechunk repositories: versioned, transactional Zarr version 3, through the
//! reference implementation (the `icechunk` crate, the Rust core icechunk-python runs).
//!
//! A repository is told by its content (its `repo` object, or version 1's
//! `refs/branch.main/ref.json`), never by its name; a version is chosen in the name's
//! fragment (`#branch=dev`, `#tag=v1`, `#snapshot=ID`, default the `main` branch).
//! Opened, a version is a Zarr version 3 store ([`IcechunkStore`]) that the Zarr
//! reader and writer use as any other; writes go into a session that one commit makes
//! a snapshot ([`Commit`]), so a killed run leaves the branch where it was.
//!
//! - `backend.rs`: a cloud repository reached through our own `object_store` client;
//! - `repo.rs`: naming, finding, opening and creating a repository;
//! - `store.rs`: a session as a store; virtual chunks read by `virtual_read.rs`
//!   through our stores, checked against the repository's declared containers and
//!   [`crate::reach`]'s rules;
//! - `parts.rs`: a copy in parts, committed once by its finishing run;
//! - `commit.rs`: the commit (message, tag, a lost race retried once);
//! - `write.rs`: the target of a copy (a new repository, or a new snapshot);
//! - `history.rs`: snapshots and references, for `zmapdump history` and `refs`.
//!
//! Above this layer: `kerchunk::icechunk` commits references to netCDF files' chunks
//! (`--virtual`), `append::virtual_refs` adds them to a repository (`--append --virtual`).

mod backend;
mod commit;
mod history;
pub(crate) mod parts;
mod repo;
mod store;
mod virtual_read;
pub(crate) mod write;

pub use commit::{check_moves, move_nodes, Commit, CommitInfo, Committed};
pub use history::{history, references, Reference, SnapshotLine};
pub(crate) use repo::declare_containers;
pub use repo::{create_repository, is_repository_dir, open_repository, Repo, Version, MAGIC};
pub(crate) use store::chunk_of;
pub use store::IcechunkStore;

/// An Icechunk error in one line: its kind's message, without the trace of spans
/// Icechunk's `Display` adds.
pub(crate) fn said(error: &impl std::fmt::Display) -> String {
    let text = error.to_string();
    let first = text.split("\n\ncontext:").next().unwrap_or(&text);
    first.split_whitespace().collect::<Vec<_>>().join(" ")
}
