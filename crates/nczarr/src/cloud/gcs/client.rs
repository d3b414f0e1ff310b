//! Google Cloud Storage: the `object_store` client for [`GcsSettings`] (decided by
//! [`super`]), as a [`CloudStore`].

use std::sync::Arc;

use object_store::gcp::GoogleCloudStorageBuilder;

use super::super::object::brief;
use super::super::settings::{client_options, retry_config};
use super::{GcsCredentials, GcsSettings};
use crate::cloud::{CloudPlace, CloudStore};
use crate::store::StoreError;

/// Connect to the bucket `settings` describe. No request is made yet.
///
/// # Errors
/// [`StoreError::Settings`] when the client cannot be built (an unreadable service
/// account file, a malformed endpoint).
pub fn gcs_store(settings: &GcsSettings) -> Result<CloudStore, StoreError> {
    let place = CloudPlace {
        scheme: "gs",
        bucket: settings.bucket.clone(),
        root: settings.key.clone(),
        // The endpoint requests really go to, for messages: an emulator named by
        // STORAGE_EMULATOR_HOST or by the service-account file's `gcs_base_url`.
        endpoint: settings
            .base_url
            .clone()
            .or_else(|| service_account_base_url(&settings.credentials))
            .unwrap_or_else(|| "https://storage.googleapis.com".into()),
    };
    // `new()`, not `from_env()`: the settings are ours, every one decided and traced.
    let mut builder = GoogleCloudStorageBuilder::new()
        .with_client_options(client_options(settings.concurrency).with_allow_http(true))
        .with_bucket_name(&settings.bucket)
        .with_retry(retry_config())
        .with_http_connector(crate::cloud::shared::SharedConnector);
    if let Some(b) = &settings.base_url {
        builder = builder.with_base_url(b);
    }
    builder = match &settings.credentials {
        // An emulator (STORAGE_EMULATOR_HOST) takes requests without credentials, as
        // Google's SDKs and gcsfs send them: a key that tells object_store to sign
        // nothing, so that writes need no metadata server either.
        GcsCredentials::Anonymous if settings.base_url.is_some() => {
            builder.with_service_account_key(EMULATOR_KEY)
        }
        // Unsigned: never the metadata server. Writes are refused before they get here
        // (see `writable`), since object_store signs them whatever this says.
        GcsCredentials::Anonymous => builder.with_skip_signature(true),
        GcsCredentials::ServiceAccount(p) => {
            builder.with_service_account_path(p.to_string_lossy().into_owned())
        }
        GcsCredentials::ApplicationDefault(p) => {
            builder.with_application_credentials(p.to_string_lossy().into_owned())
        }
    };
    let store = builder.build().map_err(|e| StoreError::Settings {
        location: place.location(),
        message: format!("cannot set up the GCS client: {}", brief(&e)),
    })?;
    CloudStore::new(Arc::new(store), place, settings.concurrency)
}

/// A service-account key with OAuth disabled: object_store then sends requests
/// unsigned, to an emulator.
const EMULATOR_KEY: &str = r#"{"disable_oauth": true, "client_email": "emulator@localhost", "private_key_id": "", "private_key": ""}"#;

/// The `gcs_base_url` a service-account file names (an emulator's), if it names one.
fn service_account_base_url(credentials: &GcsCredentials) -> Option<String> {
    let GcsCredentials::ServiceAccount(path) = credentials else {
        return None;
    };
    let text = std::fs::read(path).ok()?;
    let doc = crate::json::parse(&text).ok()?;
    doc.get("gcs_base_url")?.as_str().map(str::to_string)
}

/// Refuse to write with no credentials: object_store would then ask the GCE metadata
/// server for a token, which is never what a user outside Google Cloud means. An
/// emulator (STORAGE_EMULATOR_HOST) needs none.
///
/// # Errors
/// [`StoreError::Settings`] for anonymous settings.
pub(crate) fn writable(settings: &GcsSettings) -> Result<(), StoreError> {
    if settings.credentials == GcsCredentials::Anonymous && settings.base_url.is_none() {
        return Err(StoreError::Settings {
            location: CloudPlace {
                scheme: "gs",
                bucket: settings.bucket.clone(),
                root: settings.key.clone(),
                endpoint: String::new(),
            }
            .location(),
            message: "writing to GCS needs credentials: set GOOGLE_APPLICATION_CREDENTIALS (or GOOGLE_SERVICE_ACCOUNT) to a service-account file, or run `gcloud auth application-default login`".into(),
        });
    }
    Ok(())
}
