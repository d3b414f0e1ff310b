//! The local S3 server of `scripts/test.sh` (`NCZARR_TEST_S3_*`): a bucket prefix per
//! test, its URLs and keys, tools run against it with a clean environment.

use nczarr::cloud::s3::{resolve, s3_store, AwsInputs};
use nczarr::cloud::CloudStore;
use nczarr::store::{ReadStore, StoreKey, WritableStore};
use nczarr::url::DatasetUrl;

use crate::util::Run;

pub(crate) struct Server {
    pub(crate) endpoint: String,
    pub(crate) bucket: String,
    pub(crate) key: String,
    pub(crate) secret: String,
    /// Unique to the test, so tests run in parallel without meeting.
    pub(crate) prefix: String,
    /// An empty home and working directory.
    pub(crate) home: tempfile::TempDir,
}

pub(crate) fn server(test: &str) -> Option<Server> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let Some(endpoint) = var("NCZARR_TEST_S3_ENDPOINT") else {
        eprintln!(
            "skipped {test}: NCZARR_TEST_S3_ENDPOINT is not set (scripts/test.sh starts a local S3 server)"
        );
        return None;
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Some(Server {
        endpoint,
        bucket: var("NCZARR_TEST_S3_BUCKET").unwrap_or_else(|| "nczarr-test".into()),
        key: var("NCZARR_TEST_S3_KEY").unwrap_or_default(),
        secret: var("NCZARR_TEST_S3_SECRET").unwrap_or_default(),
        prefix: format!("{test}-{}-{nanos}", std::process::id()),
        home: tempfile::tempdir().unwrap(),
    })
}

impl Server {
    /// `http://host:port/bucket/prefix/name#mode=nczarr,s3`.
    pub(crate) fn url(&self, name: &str) -> String {
        format!(
            "{}/{}/{}/{name}#mode=nczarr,s3",
            self.endpoint, self.bucket, self.prefix
        )
    }

    pub(crate) fn keys(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", self.key.clone()),
            ("AWS_SECRET_ACCESS_KEY", self.secret.clone()),
        ]
    }

    /// Run `tool` with a clean environment plus `env`.
    pub(crate) fn run(&self, tool: &str, args: &[&str], env: &[(&str, String)]) -> Run {
        crate::util::run_clean(tool, self.home.path(), args, env)
    }

    /// A store on the server for `name` (under this test's prefix), with the keys.
    pub(crate) fn store(&self, name: &str) -> CloudStore {
        let url = DatasetUrl::parse(&self.url(name)).unwrap();
        let inputs = AwsInputs {
            vars: self
                .keys()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            ..AwsInputs::default()
        };
        s3_store(&resolve(&url, &inputs).unwrap()).unwrap()
    }

    /// Copy every key of a local store up to `name`.
    pub(crate) fn upload(&self, local: &dyn ReadStore, name: &str) {
        let target = self.store(name);
        let items: Vec<(StoreKey, Vec<u8>)> = local
            .list()
            .unwrap()
            .into_iter()
            .map(|(k, _)| {
                let v = local.get(&k).unwrap().unwrap();
                (k, v)
            })
            .collect();
        assert!(!items.is_empty());
        target.put_many(&items).unwrap();
    }
}

/// A dump without what says where and how the dataset was written.
pub(crate) fn dump_content(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains(":_NCProperties = ") && !l.starts_with("netcdf "))
        .map(|l| format!("{l}\n"))
        .collect()
}
