//! The GCS and Azure emulators of `scripts/cloud_servers.sh` (`NCZARR_TEST_GCS_*`,
//! `NCZARR_TEST_AZURE_*`): one `Cloud` per emulator present, its URLs and environment.

use crate::util::{first_line, Run};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Gcs,
    /// Azure with the account key.
    AzureKey,
    /// Azure with a SAS token.
    AzureSas,
}

pub(crate) struct Cloud {
    pub(crate) kind: Kind,
    /// The variables that give the tools the emulator and credentials.
    pub(crate) env: Vec<(&'static str, String)>,
    /// The variables that give the emulator and no credentials.
    pub(crate) anon_env: Vec<(&'static str, String)>,
    pub(crate) bucket: String,
    pub(crate) public_bucket: String,
    /// Unique to the test, so tests run in parallel without meeting.
    pub(crate) prefix: String,
    /// An empty home and working directory.
    pub(crate) home: tempfile::TempDir,
}

pub(crate) fn var(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.is_empty())
}

/// The emulators that are up, as one [`Cloud`] per way of signing in.
pub(crate) fn clouds(test: &str) -> Vec<Cloud> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let prefix = format!("{test}-{}-{nanos}", std::process::id());
    let mut out = Vec::new();
    match (var("NCZARR_TEST_GCS_ENDPOINT"), var("NCZARR_TEST_GCS_SERVICE_ACCOUNT")) {
        (Some(endpoint), Some(sa)) => out.push(Cloud {
            kind: Kind::Gcs,
            env: vec![("GOOGLE_APPLICATION_CREDENTIALS", sa)],
            anon_env: vec![("STORAGE_EMULATOR_HOST", endpoint)],
            bucket: var("NCZARR_TEST_GCS_BUCKET").unwrap_or_else(|| "nczarr-test".into()),
            public_bucket: var("NCZARR_TEST_GCS_PUBLIC_BUCKET")
                .unwrap_or_else(|| "nczarr-public".into()),
            prefix: prefix.clone(),
            home: tempfile::tempdir().unwrap(),
        }),
        _ => eprintln!(
            "skipped {test} on GCS: NCZARR_TEST_GCS_ENDPOINT is not set (scripts/test.sh starts fake-gcs-server)"
        ),
    }
    match (
        var("NCZARR_TEST_AZURE_ENDPOINT"),
        var("NCZARR_TEST_AZURE_KEY"),
        var("NCZARR_TEST_AZURE_SAS"),
    ) {
        (Some(endpoint), Some(key), Some(sas)) => {
            let account = var("NCZARR_TEST_AZURE_ACCOUNT").unwrap_or_else(|| "devstoreaccount1".into());
            let base = vec![
                ("AZURE_STORAGE_ACCOUNT_NAME", account),
                ("AZURE_STORAGE_ENDPOINT", endpoint),
            ];
            for (kind, secret) in [
                (Kind::AzureKey, ("AZURE_STORAGE_ACCOUNT_KEY", key)),
                (Kind::AzureSas, ("AZURE_STORAGE_SAS_TOKEN", sas)),
            ] {
                let mut env = base.clone();
                env.push(secret);
                out.push(Cloud {
                    kind,
                    env,
                    anon_env: base.clone(),
                    bucket: var("NCZARR_TEST_AZURE_CONTAINER").unwrap_or_else(|| "nczarr-test".into()),
                    public_bucket: var("NCZARR_TEST_AZURE_PUBLIC_CONTAINER")
                        .unwrap_or_else(|| "nczarr-public".into()),
                    prefix: format!("{prefix}-{kind:?}"),
                    home: tempfile::tempdir().unwrap(),
                });
            }
        }
        _ => eprintln!(
            "skipped {test} on Azure: NCZARR_TEST_AZURE_ENDPOINT is not set (scripts/test.sh starts Azurite)"
        ),
    }
    out
}

impl Cloud {
    pub(crate) fn scheme(&self) -> &'static str {
        match self.kind {
            Kind::Gcs => "gs",
            Kind::AzureKey | Kind::AzureSas => "az",
        }
    }

    /// `gs://bucket/prefix/name` or `az://container/prefix/name`.
    pub(crate) fn url(&self, name: &str) -> String {
        format!("{}://{}/{}/{name}", self.scheme(), self.bucket, self.prefix)
    }

    /// The same in the public bucket (container).
    pub(crate) fn public_url(&self, name: &str) -> String {
        format!(
            "{}://{}/{}/{name}",
            self.scheme(),
            self.public_bucket,
            self.prefix
        )
    }

    /// Run `tool` with a clean environment plus `env`.
    pub(crate) fn run(&self, tool: &str, args: &[&str], env: &[(&'static str, String)]) -> Run {
        let mut r = crate::util::run_clean(tool, self.home.path(), args, env);
        r.desc.push_str(&format!(" ({:?})", self.kind));
        r
    }
}

/// `want` with its first line (`netcdf NAME {`) replaced by `got`'s.
pub(crate) fn renamed(want: &str, got: &str) -> String {
    want.replacen(&first_line(want), &first_line(got), 1)
}

impl Cloud {
    /// Put `bytes` at `name` under this test's prefix, with the library's own client
    /// and the settings the tools would decide from `self.env`.
    pub(crate) fn put_object(&self, name: &str, bytes: &[u8]) {
        use nczarr::store::{StoreKey, WritableStore};
        let url = nczarr::url::DatasetUrl::parse(&self.url(name)).unwrap();
        let vars = self
            .env
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let store = match self.kind {
            Kind::Gcs => nczarr::cloud::gcs::gcs_store(
                &nczarr::cloud::gcs::resolve(&url, &nczarr::cloud::gcs::GcsInputs::load(vars))
                    .unwrap(),
            ),
            Kind::AzureKey | Kind::AzureSas => nczarr::cloud::azure::azure_store(
                &nczarr::cloud::azure::resolve(&url, &nczarr::cloud::azure::AzureInputs { vars })
                    .unwrap(),
            ),
        }
        .unwrap();
        store.put(&StoreKey::root(), bytes).unwrap();
    }
}
