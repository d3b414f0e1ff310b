//! Every tool against Google Cloud Storage and Azure Blob emulators on 127.0.0.1
//! (fake-gcs-server and Azurite, started by `scripts/test.sh` through
//! `scripts/cloud_servers.sh`, which export `NCZARR_TEST_GCS_*` and
//! `NCZARR_TEST_AZURE_*`), and against a plain web server. Without an emulator its
//! tests print why they are skipped and pass (under `CI=true` the script fails first).
//!
//! Tools run with a clean environment: `HOME` and the working directory are empty
//! temporary directories, and only the variables a test sets.
//!
//! fake-gcs-server checks no credentials: refusals and wrong keys are tested on Azurite
//! only, and said so when the GCS part is skipped.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use nczarr::store::{DirStore, ListableStore, ReadableStore};

use crate::util::{data_dir, first_diff, run, RangeServer, Run};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Gcs,
    /// Azure with the account key.
    AzureKey,
    /// Azure with a SAS token.
    AzureSas,
}

struct Cloud {
    kind: Kind,
    /// The variables that give the tools the emulator and credentials.
    env: Vec<(&'static str, String)>,
    /// The variables that give the emulator and no credentials.
    anon_env: Vec<(&'static str, String)>,
    bucket: String,
    public_bucket: String,
    /// Unique to the test, so tests run in parallel without meeting.
    prefix: String,
    /// An empty home and working directory.
    home: tempfile::TempDir,
}

fn var(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.is_empty())
}

/// The emulators that are up, as one [`Cloud`] per way of signing in.
fn clouds(test: &str) -> Vec<Cloud> {
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
    fn scheme(&self) -> &'static str {
        match self.kind {
            Kind::Gcs => "gs",
            Kind::AzureKey | Kind::AzureSas => "az",
        }
    }

    /// `gs://bucket/prefix/name` or `az://container/prefix/name`.
    fn url(&self, name: &str) -> String {
        format!("{}://{}/{}/{name}", self.scheme(), self.bucket, self.prefix)
    }

    /// The same in the public bucket (container).
    fn public_url(&self, name: &str) -> String {
        format!(
            "{}://{}/{}/{name}",
            self.scheme(),
            self.public_bucket,
            self.prefix
        )
    }

    /// Run `tool` with a clean environment plus `env`.
    fn run(&self, tool: &str, args: &[&str], env: &[(&'static str, String)]) -> Run {
        let mut r = crate::util::run_clean(tool, self.home.path(), args, env);
        r.desc.push_str(&format!(" ({:?})", self.kind));
        r
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// `want` with its first line (`netcdf NAME {`) replaced by `got`'s.
fn renamed(want: &str, got: &str) -> String {
    want.replacen(&first_line(want), &first_line(got), 1)
}

#[test]
fn nczgen_to_gcs_and_azure_dumps_like_the_file_store() {
    let tmp = tempfile::tempdir().unwrap();
    for cloud in clouds("gen") {
        for cdl in crate::util::golden_cases() {
            let case = cdl.file_stem().unwrap().to_string_lossy().into_owned();
            let local = tmp.path().join(format!("{case}.zarr"));
            if !local.exists() {
                run(
                    "nczgen",
                    &["-o", &local.to_string_lossy(), &cdl.to_string_lossy()],
                )
                .success();
            }
            let url = cloud.url(&format!("{case}.zarr"));
            cloud
                .run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &cloud.env)
                .success();
            let want = run("nczdump", &["-s", &local.to_string_lossy()]).stdout();
            let got = cloud.run("nczdump", &["-s", &url], &cloud.env);
            got.success();
            assert_eq!(
                got.stdout(),
                want,
                "{case} ({:?}): {}",
                cloud.kind,
                first_diff(&got.stdout(), &want)
            );
        }
    }
}

#[test]
fn peer_datasets_copied_up_and_read_back_zarr3_sharded_too() {
    let stores = data_dir().join("golden/stores");
    let zarr3 = data_dir().join("zarr3/stores");
    for cloud in clouds("copy") {
        let mut locals: Vec<(String, PathBuf)> = Vec::new();
        for writer in ["ncgen49-nczarr", "nc410-nczarr", "zarrpy", "xarray"] {
            let p = stores.join(writer).join("nested_groups.file");
            if p.is_dir() {
                locals.push((writer.to_string(), p));
            }
        }
        // Shards: each index is read from the shard's end (a suffix range, which
        // Azure does not answer: the store asks the size first).
        locals.push(("sharding".into(), zarr3.join("sharding.zarr")));
        assert!(locals.len() >= 4);
        for (name, local) in &locals {
            let local = local.to_string_lossy().into_owned();
            let url = cloud.url(name);
            cloud.run("nczcopy", &[&local, &url], &cloud.env).success();
            let want = run("nczdump", &[&local]).stdout();
            let got = cloud.run("nczdump", &[&url], &cloud.env);
            got.success();
            let want = renamed(&want, &got.stdout());
            assert_eq!(
                got.stdout(),
                want,
                "{name} ({:?}): {}",
                cloud.kind,
                first_diff(&got.stdout(), &want)
            );
        }
    }
}

#[test]
fn anonymous_reads_of_public_buckets_and_refusals_of_private_ones() {
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let cdl = cdl.to_string_lossy();
    for cloud in clouds("anon") {
        if cloud.kind == Kind::AzureSas {
            continue; // the SAS is for the private container only
        }
        let public = cloud.public_url("p.zarr");
        cloud
            .run("nczgen", &["-o", &public, &cdl], &cloud.env)
            .success();
        let want = cloud.run("nczdump", &[&public], &cloud.env).stdout();
        let got = cloud.run("nczdump", &[&public], &cloud.anon_env);
        got.success();
        assert_eq!(got.stdout(), want, "{:?}", cloud.kind);
        if cloud.kind == Kind::Gcs {
            // An emulator (STORAGE_EMULATOR_HOST) needs no credentials, as with Google's
            // SDKs: writes go through unsigned (issue 38).
            let w = cloud.public_url("w.zarr");
            cloud
                .run("nczgen", &["-o", &w, &cdl], &cloud.anon_env)
                .success();
            let back = cloud.run("nczdump", &[&w], &cloud.anon_env);
            back.success();
            assert_eq!(back.stdout(), renamed(&want, &back.stdout()));
            // Google's own service with no credentials: refused before any request.
            let e = cloud
                .run("nczgen", &["-o", "gs://some-bucket/w.zarr", &cdl], &[])
                .fails_with_one_line(1);
            assert!(e.contains("writing to GCS needs credentials"), "{e}");
            eprintln!("GCS: refusal of a private bucket not tested (fake-gcs-server checks no credentials)");
            continue;
        }
        // Writing without credentials is refused in one line, before any request.
        let e = cloud
            .run(
                "nczgen",
                &["-o", &cloud.public_url("w.zarr"), &cdl],
                &cloud.anon_env,
            )
            .fails_with_one_line(1);
        assert!(e.contains("denied") || e.contains("authenticated"), "{e}");
        let private = cloud.url("q.zarr");
        cloud
            .run("nczgen", &["-o", &private, &cdl], &cloud.env)
            .success();
        let e = cloud
            .run("nczdump", &["-h", &private], &cloud.anon_env)
            .fails_with_one_line(1);
        assert!(e.contains("az://"), "{e}");
        assert!(
            e.contains("denied") || e.contains("authenticated") || e.contains("not found"),
            "{e}"
        );
    }
}

#[test]
fn wrong_keys_fail_in_one_line_without_showing_secrets() {
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let cdl = cdl.to_string_lossy();
    for cloud in clouds("wrong") {
        let url = cloud.url("w.zarr");
        cloud
            .run("nczgen", &["-o", &url, &cdl], &cloud.env)
            .success();
        let (bad_var, bad) = match cloud.kind {
            Kind::Gcs => {
                // A credentials file that is not there: named, in one line.
                let e = cloud
                    .run(
                        "nczdump",
                        &["-h", &url],
                        &[(
                            "GOOGLE_APPLICATION_CREDENTIALS",
                            "/nonexistent/sa.json".into(),
                        )],
                    )
                    .fails_with_one_line(1);
                assert!(
                    e.contains("GOOGLE_APPLICATION_CREDENTIALS names /nonexistent/sa.json"),
                    "{e}"
                );
                eprintln!("GCS: wrong keys not tested (fake-gcs-server checks no credentials)");
                continue;
            }
            // A well-formed key (base64) that is not the account's.
            Kind::AzureKey => (
                "AZURE_STORAGE_ACCOUNT_KEY",
                "bm90LXRoZS1rZXktMDEyMzQ1Njc4OWFiY2RlZg==",
            ),
            Kind::AzureSas => (
                "AZURE_STORAGE_SAS_TOKEN",
                "sv=2023-11-03&sr=c&sp=racwdl&sig=bm90LXRoZS1zaWduYXR1cmU%3D",
            ),
        };
        let mut env = cloud.anon_env.clone();
        env.push((bad_var, bad.to_string()));
        env.push(("NCTRACING", "1".into()));
        let good: Vec<String> = cloud
            .env
            .iter()
            .filter(|(k, _)| k.contains("KEY") || k.contains("SAS"))
            .map(|(_, v)| v.clone())
            .collect();
        for tool_args in [
            vec!["nczdump", "-h", &url],
            vec!["zmapdump", "list", &url],
            vec!["nczgen", "-o", &url, &cdl],
        ] {
            let r = cloud.run(tool_args[0], &tool_args[1..], &env);
            assert_ne!(r.code(), 0, "{tool_args:?}");
            let all = format!("{}{}", r.stdout(), r.stderr());
            assert!(!all.contains(bad) && !all.contains("bm90LXRoZS"), "{all}");
            for g in good.iter().filter(|g| g.len() > 20) {
                assert!(!all.contains(g.as_str()), "{all}");
            }
            let last = r.stderr().lines().last().unwrap_or("").to_string();
            assert!(
                last.contains("denied")
                    || last.contains("authenticated")
                    || last.contains("already holds a dataset"),
                "{last}"
            );
        }
    }
}

#[test]
fn zmapdump_lists_searches_and_prints_objects_on_gcs_and_azure() {
    let cdl = data_dir().join("golden/cases").join("nested_groups.cdl");
    let tmp = tempfile::tempdir().unwrap();
    let local = tmp.path().join("g.zarr");
    run(
        "nczgen",
        &["-o", &local.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let local_s = local.to_string_lossy().into_owned();
    for cloud in clouds("zmap") {
        let url = cloud.url("g.zarr");
        cloud
            .run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &cloud.env)
            .success();
        for args in [
            vec!["list"],
            vec!["search", ""],
            vec!["search", "forecast"],
            vec!["object", ".zattrs"],
        ] {
            let mut remote_args = args.clone();
            remote_args.insert(1, &url);
            let mut local_args = args.clone();
            local_args.insert(1, &local_s);
            let got = cloud.run("zmapdump", &remote_args, &cloud.env);
            got.success();
            let want = run("zmapdump", &local_args).stdout();
            assert_eq!(got.stdout(), want, "zmapdump {args:?} ({:?})", cloud.kind);
        }
        let trace = cloud.run("nczdump", &["-h", &url], &{
            let mut e = cloud.env.clone();
            e.push(("NCTRACING", "1".into()));
            e
        });
        assert_eq!(trace.code(), 0, "{}", trace.stderr());
        let cloud_name = if cloud.kind == Kind::Gcs {
            "gcs: "
        } else {
            "azure: "
        };
        assert!(trace.stderr().contains(cloud_name), "{}", trace.stderr());
        assert!(
            trace.stderr().contains("trace: get .zmetadata"),
            "{}",
            trace.stderr()
        );
    }
}

#[test]
fn existing_datasets_are_not_overwritten_on_gcs_and_azure() {
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let other = data_dir().join("golden/cases").join("scalars.cdl");
    for cloud in clouds("safe") {
        let url = cloud.url("s.zarr");
        cloud
            .run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &cloud.env)
            .success();
        let before = cloud.run("nczdump", &[&url], &cloud.env).stdout();
        let e = cloud
            .run(
                "nczgen",
                &["-o", &url, &other.to_string_lossy()],
                &cloud.env,
            )
            .fails_with_one_line(1);
        assert!(
            e.ends_with("a dataset already exists (lat = 4, lon = 5, level = 2); nothing was written: --overwrite replaces it"),
            "{e}"
        );
        assert_eq!(cloud.run("nczdump", &[&url], &cloud.env).stdout(), before);
        // A key inside it is refused, naming it.
        let inner = cloud.url("s.zarr/lat");
        let e = cloud
            .run(
                "nczgen",
                &["-O", "-o", &inner, &other.to_string_lossy()],
                &cloud.env,
            )
            .fails_with_one_line(1);
        assert!(
            e.contains(": inside the dataset ") && e.contains("/s.zarr ('lat' inside it)"),
            "{e}"
        );
        // nczcopy --overwrite replaces it.
        let src = cloud.url("src.zarr");
        cloud
            .run(
                "nczgen",
                &["-o", &src, &other.to_string_lossy()],
                &cloud.env,
            )
            .success();
        cloud
            .run("nczcopy", &["--overwrite", &src, &url], &cloud.env)
            .success();
        let after = cloud.run("nczdump", &[&url], &cloud.env).stdout();
        let want = cloud.run("nczdump", &[&src], &cloud.env).stdout();
        assert_eq!(after, renamed(&want, &after), "{:?}", cloud.kind);
    }
}

/// A directory served over HTTP (with `Range`): NCZarr, consolidated pure Zarr and
/// Zarr v3 read without listing; pure Zarr with nothing to name its arrays is a clear
/// one-line error; a netCDF file is still read by byte ranges.
#[test]
fn http_reads_nczarr_and_consolidated_pure_zarr_without_listing() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("golden/cases").join("nested_groups.cdl");
    let cdl = cdl.to_string_lossy();
    let root = tmp.path();
    run(
        "nczgen",
        &["-o", &root.join("nc.zarr").to_string_lossy(), &cdl],
    )
    .success();
    run(
        "nczgen",
        &[
            "-k",
            "zarr",
            "-o",
            &root.join("pure.zarr").to_string_lossy(),
            &cdl,
        ],
    )
    .success();
    run(
        "nczgen",
        &[
            "-k",
            "zarr3",
            "-o",
            &root.join("v3.zarr").to_string_lossy(),
            &cdl,
        ],
    )
    .success();
    // zarr-python's own pure Zarr, without .zmetadata.
    let peer = data_dir().join("golden/stores/zarrpy/nested_groups.file");
    let bare = root.join("bare.zarr");
    let copy = |from: &std::path::Path, to: &std::path::Path| {
        let s = DirStore::open(from).unwrap();
        for (k, _) in s.list().unwrap() {
            let dest = to.join(k.as_str());
            fs::create_dir_all(dest.parent().unwrap()).unwrap();
            fs::write(dest, s.get(&k).unwrap().unwrap()).unwrap();
        }
    };
    copy(&peer, &bare);
    let _ = fs::remove_file(bare.join(".zmetadata"));
    let server = RangeServer::start(root, true);
    for name in ["nc.zarr", "pure.zarr", "v3.zarr"] {
        let local = root.join(name).to_string_lossy().into_owned();
        let want = run("nczdump", &[&local]).stdout();
        let got = run("nczdump", &[&format!("{}/{name}", server.url)]);
        got.success();
        assert_eq!(
            got.stdout(),
            want,
            "{name}: {}",
            first_diff(&got.stdout(), &want)
        );
    }
    let e = run("nczdump", &[&format!("{}/bare.zarr", server.url)]).fails_with_one_line(1);
    assert!(
        e.contains("cannot list") && e.contains("consolidated metadata"),
        "{e}"
    );
    // zmapdump reads objects over HTTP, and says why it cannot list.
    let got = run(
        "zmapdump",
        &["object", &format!("{}/nc.zarr", server.url), ".zattrs"],
    );
    got.success();
    let e = run("zmapdump", &["list", &format!("{}/nc.zarr", server.url)]).fails_with_one_line(1);
    assert!(e.contains("cannot list"), "{e}");
    // A netCDF file on the same server is read by byte ranges, as before.
    if crate::util::have("ncgen") {
        let nc = root.join("f.nc");
        let made = Command::new("ncgen")
            .args(["-k", "nc4", "-o", &nc.to_string_lossy(), &cdl])
            .status()
            .unwrap();
        assert!(made.success());
        let got = run("nczdump", &[&format!("{}/f.nc", server.url)]);
        got.success();
        let want = run("nczdump", &[&nc.to_string_lossy()]).stdout();
        assert_eq!(got.stdout(), want);
    }
}

impl Cloud {
    /// Put `bytes` at `name` under this test's prefix, with the library's own client
    /// and the settings the tools would decide from `self.env`.
    fn put_object(&self, name: &str, bytes: &[u8]) {
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

/// A netCDF file in one object, read by byte ranges (`#mode=bytes`, or found when no
/// Zarr dataset is under the URL); on Azure, the HDF5 reads that end at the file's end
/// go through the store's size-then-range path.
#[test]
fn netcdf_files_in_gcs_and_azure_objects_read_by_byte_ranges() {
    if !crate::util::have("ncgen") {
        eprintln!("skipped: ncgen (netcdf-bin) is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let mut files = Vec::new();
    for (kind, name) in [("nc4", "f4.nc"), ("classic", "f3.nc")] {
        let nc = tmp.path().join(name);
        let made = Command::new("ncgen")
            .args([
                "-k",
                kind,
                "-o",
                &nc.to_string_lossy(),
                &cdl.to_string_lossy(),
            ])
            .status()
            .unwrap();
        assert!(made.success());
        files.push((name, nc));
    }
    for cloud in clouds("ncfile") {
        for (name, nc) in &files {
            cloud.put_object(name, &fs::read(nc).unwrap());
            let want = run("nczdump", &[&nc.to_string_lossy()]).stdout();
            for url in [format!("{}#mode=bytes", cloud.url(name)), cloud.url(name)] {
                let got = cloud.run("nczdump", &[&url], &cloud.env);
                got.success();
                assert_eq!(got.stdout(), want, "{url} ({:?})", cloud.kind);
            }
        }
    }
}

/// `AZURE_STORAGE_USE_EMULATOR=true`: Azurite's well-known account and key, at
/// `AZURITE_BLOB_STORAGE_URL`.
#[test]
fn the_azure_emulator_switch_finds_azurite() {
    let Some(blob_url) = var("NCZARR_TEST_AZURE_BLOB_URL") else {
        eprintln!(
            "skipped: NCZARR_TEST_AZURE_BLOB_URL is not set (scripts/test.sh starts Azurite)"
        );
        return;
    };
    let Some(cloud) = clouds("emulator")
        .into_iter()
        .find(|c| c.kind == Kind::AzureKey)
    else {
        return;
    };
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let url = cloud.url("e.zarr");
    let env = vec![
        ("AZURE_STORAGE_USE_EMULATOR", "true".to_string()),
        ("AZURITE_BLOB_STORAGE_URL", blob_url),
    ];
    cloud
        .run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &env)
        .success();
    let got = cloud.run("nczdump", &[&url], &cloud.env);
    got.success();
    assert!(got.stdout().contains("dimensions:"), "{}", got.stdout());
}
