//! Object stores in the clouds and on web servers: for each cloud its settings (a pure
//! function of the URL and the environment, every rule tested) and its client, and
//! the [`object_store`]-backed store they share.
//!
//! - [`s3`]: AWS S3 and S3-compatible servers (profiles, regions, endpoints, rc files);
//! - [`gcs`]: Google Cloud Storage; [`azure`]: Azure Blob Storage;
//! - [`http`]: any web server, read by ranged GETs;
//! - [`CloudStore`]: one bucket's dataset, read and written, with retries and a
//!   bounded number of requests in flight ([`DEFAULT_CONCURRENCY`]).
//!
//! A new cloud is a folder here (settings and `client.rs`) and a line in
//! [`crate::place`], which opens a store for a dataset's name.

pub mod azure;
pub mod gcs;
pub mod http;
mod object;
mod place;
pub mod s3;
mod settings;
mod shared;
pub(crate) use shared::{io_runtime, web_client, WebClientOptions};
mod upload;

pub use http::HttpStore;
pub(crate) use object::cloud_target;
pub use object::CloudStore;
pub use place::CloudPlace;
pub(crate) use settings::concurrency;
pub use settings::{Secret, DEFAULT_CONCURRENCY};
