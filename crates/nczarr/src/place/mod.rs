//! Where a dataset lives: the store a name opens for reading (a directory, a zip, a
//! file read by range, S3, GCS, Azure, a web server, a version of an Icechunk
//! repository) and the staged target a new dataset is written into. Above [`crate::store`] (the interface and the local
//! stores) and [`crate::cloud`] (the remote ones): a new store is its module there and
//! its line here.

mod create;
mod guard;
pub mod icechunk;
mod open;
mod refs;
mod refs_parse;
mod remote;

pub use create::{create_file, create_target, parts_target, FileTarget, PartsRun, ZipLayout};
pub use guard::{inspect_target, Enclosing, Held, TargetFacts};
pub use open::{open_read, OpenedStore};
pub(crate) use refs::ReferencedFiles;
pub use refs::{
    examine_refs_path, looks_like_references, names_a_json_object, ranged_starts_like_references,
    starts_like_references, ReferenceStore,
};
pub use remote::{fetch_object, open_cloud, open_ranged, open_s3};
