//! S3 and S3-compatible servers: the `object_store` client for [`S3Settings`] (decided
//! by [`super`]), as a [`CloudStore`].

use std::sync::Arc;

use object_store::aws::AmazonS3Builder;

use super::super::object::brief;
use super::super::settings::{client_options, retry_config};
use super::{Credentials, S3Settings};
use crate::cloud::{CloudPlace, CloudStore};
use crate::store::StoreError;

/// Connect to the bucket `settings` describe. No request is made yet.
///
/// # Errors
/// [`StoreError::Settings`] when the client cannot be built (a malformed endpoint).
pub fn s3_store(settings: &S3Settings) -> Result<CloudStore, StoreError> {
    let place = CloudPlace {
        scheme: "s3",
        bucket: settings.address.bucket.clone(),
        root: settings.address.key.clone(),
        endpoint: settings.endpoint.clone(),
    };
    // Client options first: setting them replaces allow_http, set after.
    let mut builder = AmazonS3Builder::new()
        .with_client_options(client_options(settings.concurrency))
        .with_bucket_name(&settings.address.bucket)
        .with_region(&settings.region)
        .with_endpoint(&settings.endpoint)
        .with_allow_http(settings.allow_http)
        .with_virtual_hosted_style_request(false)
        .with_retry(retry_config())
        .with_http_connector(crate::cloud::shared::SharedConnector);
    builder = match &settings.credentials {
        // Unsigned: never look for credentials elsewhere (no instance metadata).
        Credentials::Anonymous => builder.with_skip_signature(true),
        Credentials::Keys {
            access_key_id,
            secret_access_key,
            session_token,
        } => {
            let b = builder
                .with_access_key_id(access_key_id)
                .with_secret_access_key(secret_access_key.expose());
            match session_token {
                Some(t) => b.with_token(t.expose()),
                None => b,
            }
        }
    };
    let store = builder.build().map_err(|e| StoreError::Settings {
        location: place.location(),
        message: format!("cannot set up the S3 client: {}", brief(&e)),
    })?;
    let store = CloudStore::new(Arc::new(store), place, settings.concurrency)?;
    let found_none = settings.credentials == Credentials::Anonymous
        && !matches!(settings.profile.as_str(), "none" | "no");
    Ok(if found_none {
        store.with_refusal_hint(
            "no credentials were found, so requests were unsigned (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or keys in ~/.aws/credentials; docs/s3.md)",
        )
    } else {
        store
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::s3::{resolve, AwsInputs};
    use crate::store::{ReadableStore, StoreKey, WritableStore};
    use crate::url::DatasetUrl;

    fn store(url: &str) -> CloudStore {
        let url = DatasetUrl::parse(url).unwrap();
        s3_store(&resolve(&url, &AwsInputs::default()).unwrap()).unwrap()
    }

    #[test]
    fn keys_are_checked_before_any_request() {
        // Nothing listens here: a request would fail differently (and slowly).
        let s = store("http://127.0.0.1:9/bucket/root/ds.zarr#mode=nczarr,s3");
        assert_eq!(s.location(), "s3://bucket/root/ds.zarr");
        let long = StoreKey::new(&"k".repeat(1020)).unwrap();
        let err = s.get(&long).unwrap_err().to_string();
        assert!(err.contains("1024-byte limit"), "{err}");
        assert!(err.contains("s3://bucket/root/ds.zarr/kkk"), "{err}");
        assert_eq!(
            s.path_of(&StoreKey::new("v/0.0").unwrap())
                .unwrap()
                .as_ref(),
            "root/ds.zarr/v/0.0"
        );
        assert_eq!(
            s.path_of(&StoreKey::root()).unwrap().as_ref(),
            "root/ds.zarr"
        );
        let at_bucket = store("http://127.0.0.1:9/bucket#mode=nczarr,s3");
        assert_eq!(at_bucket.location(), "s3://bucket");
        assert_eq!(
            at_bucket
                .path_of(&StoreKey::new(".zgroup").unwrap())
                .unwrap()
                .as_ref(),
            ".zgroup"
        );
    }

    /// A store for `name` on the local test server (`scripts/test.sh` starts one and
    /// sets `NCZARR_TEST_S3_*`), under a prefix of its own; `None` (said aloud)
    /// without a server.
    fn test_store(test: &str, name: &str) -> Option<CloudStore> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let Some(endpoint) = var("NCZARR_TEST_S3_ENDPOINT") else {
            eprintln!(
                "skipped {test}: NCZARR_TEST_S3_ENDPOINT is not set (scripts/test.sh starts a local S3 server)"
            );
            return None;
        };
        let bucket = var("NCZARR_TEST_S3_BUCKET").unwrap_or_else(|| "nczarr-test".into());
        let url = DatasetUrl::parse(&format!(
            "{endpoint}/{bucket}/unit-{test}-{}/{name}#mode=nczarr,s3",
            std::process::id()
        ))
        .unwrap();
        let inputs = AwsInputs {
            vars: [
                ("AWS_ACCESS_KEY_ID", var("NCZARR_TEST_S3_KEY")),
                ("AWS_SECRET_ACCESS_KEY", var("NCZARR_TEST_S3_SECRET")),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.unwrap_or_default()))
            .collect(),
            ..AwsInputs::default()
        };
        Some(s3_store(&resolve(&url, &inputs).unwrap()).unwrap())
    }

    #[test]
    fn read_conformance_on_the_test_server() {
        let Some(s) = test_store("read", "fixture") else {
            return;
        };
        let items: Vec<(StoreKey, Vec<u8>)> = crate::store::conformance::FIXTURE
            .iter()
            .map(|(k, v)| (StoreKey::new(k).unwrap(), v.to_vec()))
            .collect();
        s.put_many(&items).unwrap();
        crate::store::conformance::check_read_store(&s);
    }

    #[test]
    fn write_conformance_on_the_test_server() {
        if test_store("write", "probe").is_none() {
            return;
        }
        let create = || crate::cloud::cloud_target(test_store("write", "ds").unwrap(), false);
        let read_back = || -> Option<Box<dyn crate::store::ReadStore>> {
            let s = test_store("write", "ds")?;
            s.has_content().unwrap().then(|| Box::new(s) as _)
        };
        crate::store::conformance::check_staged_writes(&crate::store::conformance::WriteCase {
            create: &create,
            read_back: &read_back,
            staged: false,
            overwrite_replaces: true,
            replaces_existing: false,
        });
        crate::store::conformance::check_put_and_overwrite(&test_store("write", "direct").unwrap());
    }
}
