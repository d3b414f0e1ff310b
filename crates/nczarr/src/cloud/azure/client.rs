//! Azure Blob: the `object_store` client for [`AzureSettings`] (decided by
//! [`super`]), as a [`CloudStore`].

use std::sync::Arc;

use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};

use super::super::object::brief;
use super::super::settings::{client_options, retry_config};
use super::{AzureCredentials, AzureSettings};
use crate::cloud::{CloudPlace, CloudStore};
use crate::store::StoreError;

/// Connect to the container `settings` describe. No request is made yet.
///
/// # Errors
/// [`StoreError::Settings`] when the client cannot be built (a malformed endpoint or
/// SAS token).
pub fn azure_store(settings: &AzureSettings) -> Result<CloudStore, StoreError> {
    let place = CloudPlace {
        scheme: "az",
        bucket: settings.container.clone(),
        root: settings.key.clone(),
        endpoint: settings.endpoint.clone(),
    };
    // `new()`, not `from_env()`, and the endpoint given rather than the emulator
    // switch (which ignores it): every setting is ours, decided and traced.
    let allow_http = settings.endpoint.starts_with("http://");
    let mut builder = MicrosoftAzureBuilder::new()
        .with_client_options(client_options(settings.concurrency))
        .with_account(&settings.account)
        .with_container_name(&settings.container)
        .with_endpoint(settings.endpoint.clone())
        .with_allow_http(allow_http)
        .with_retry(retry_config())
        .with_http_connector(crate::cloud::shared::SharedConnector);
    builder = match &settings.credentials {
        // Unsigned: never the managed-identity service.
        AzureCredentials::Anonymous => builder.with_skip_signature(true),
        AzureCredentials::AccountKey(k) => builder.with_access_key(k.expose()),
        AzureCredentials::Sas(t) => builder.with_config(AzureConfigKey::SasKey, t.expose()),
    };
    let store = builder.build().map_err(|e| StoreError::Settings {
        location: place.location(),
        message: format!("cannot set up the Azure client: {}", brief(&e)),
    })?;
    // Azure answers no suffix range (`bytes=-N`): the store asks the size first.
    Ok(CloudStore::new(Arc::new(store), place, settings.concurrency)?.without_suffix_ranges())
}
