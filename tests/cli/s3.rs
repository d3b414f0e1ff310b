//! Every tool against a real S3 server on 127.0.0.1 (SeaweedFS, started by
//! `scripts/test.sh`, which exports `NCZARR_TEST_S3_*`). Without a server each test
//! prints why it is skipped and passes.
//!
//! Tools run with a clean environment: `HOME` and the working directory are empty
//! temporary directories (no `~/.aws`, no `.ncrc`), and only the variables a test sets.

use std::fs;
use std::time::{Duration, Instant};

use nczarr::cloud::s3::{resolve, s3_store, AwsInputs};
use nczarr::cloud::CloudStore;
use nczarr::store::{
    DirStore, ListableStore, ReadStore, ReadableStore, StoreKey, WritableStore, ZipStore,
};
use nczarr::url::DatasetUrl;

use crate::util::{data_dir, first_diff, run, Run};

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
    fn upload(&self, local: &dyn ReadStore, name: &str) {
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

#[test]
fn nczgen_to_s3_dumps_like_the_file_store() {
    let Some(s3) = server("gen") else { return };
    let tmp = tempfile::tempdir().unwrap();
    for cdl in crate::util::golden_cases() {
        let case = cdl.file_stem().unwrap().to_string_lossy().into_owned();
        let local = tmp.path().join(format!("{case}.zarr"));
        run(
            "nczgen",
            &["-o", &local.to_string_lossy(), &cdl.to_string_lossy()],
        )
        .success();
        let url = s3.url(&format!("{case}.zarr"));
        s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &s3.keys())
            .success();
        let want = run("nczdump", &["-s", &local.to_string_lossy()]).stdout();
        let got = s3.run("nczdump", &["-s", &url], &s3.keys());
        got.success();
        assert_eq!(
            got.stdout(),
            want,
            "{case}: {}",
            first_diff(&got.stdout(), &want)
        );
    }
}

#[test]
fn s3_scheme_with_an_endpoint_from_the_environment() {
    let Some(s3) = server("scheme") else { return };
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let url = format!("s3://{}/{}/c.zarr", s3.bucket, s3.prefix);
    let mut env = s3.keys();
    env.push(("AWS_ENDPOINT_URL", s3.endpoint.clone()));
    // Plain HTTP must be allowed explicitly when it does not come from the URL.
    let refused = s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &env);
    let err = refused.fails_with_one_line(1);
    assert!(err.contains("set AWS_ALLOW_HTTP=true"), "{err}");
    env.push(("AWS_ALLOW_HTTP", "true".into()));
    s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &env)
        .success();
    let dump = s3.run("nczdump", &["-n", "coords", &url], &env);
    dump.success();
    let want = fs::read_to_string(data_dir().join("golden/expected/coords.cdl")).unwrap();
    assert_eq!(dump.stdout(), want);
}

#[test]
fn file_and_zip_datasets_copied_up_read_back() {
    let Some(s3) = server("copy") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("golden/cases").join("nested_groups.cdl");
    let zip = tmp.path().join("g.zip");
    run(
        "nczgen",
        &["-o", &zip.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    // Datasets written by the peers, in every metadata generation.
    let stores = data_dir().join("golden/stores");
    let mut locals: Vec<(String, Box<dyn ReadStore>)> = vec![(
        "zip".into(),
        Box::new(ZipStore::open(&zip).unwrap()) as Box<dyn ReadStore>,
    )];
    for writer in ["ncgen49-nczarr", "nc410-nczarr", "zarrpy", "xarray"] {
        let p = stores.join(writer).join("nested_groups.file");
        if p.is_dir() {
            locals.push((writer.into(), Box::new(DirStore::open(&p).unwrap())));
        }
    }
    assert!(locals.len() >= 3);
    for (name, local) in &locals {
        s3.upload(local.as_ref(), name);
        let want = run("nczdump", &[&local.location()]).stdout();
        let got = s3.run("nczdump", &[&s3.url(name)], &s3.keys());
        got.success();
        let want = want.replacen(&first_line(&want), &first_line(&got.stdout()), 1);
        assert_eq!(
            got.stdout(),
            want,
            "{name}: {}",
            first_diff(&got.stdout(), &want)
        );
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

#[test]
fn a_profile_named_in_the_url_with_keys_only_in_the_credentials_file() {
    let Some(s3) = server("profile") else { return };
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let aws = s3.home.path().join(".aws");
    fs::create_dir_all(&aws).unwrap();
    fs::write(
        aws.join("credentials"),
        format!(
            "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n[tester]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            s3.key, s3.secret
        ),
    )
    .unwrap();
    let url = s3
        .url("p.zarr")
        .replace("#mode=nczarr,s3", "#mode=nczarr,s3&aws.profile=tester");
    s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &[])
        .success();
    s3.run("nczdump", &["-h", &url], &[]).success();
    // The default profile's (wrong) keys are refused by the server: one line.
    let plain = s3.url("p.zarr");
    let err = s3
        .run("nczdump", &["-h", &plain], &[])
        .fails_with_one_line(1);
    assert!(
        err.contains("InvalidAccessKeyId") || err.contains("denied"),
        "{err}"
    );
    // A profile that does not exist is named.
    let bad = s3
        .url("p.zarr")
        .replace("#mode=nczarr,s3", "#mode=nczarr,s3&aws.profile=nobody");
    let err = s3.run("nczdump", &["-h", &bad], &[]).fails_with_one_line(1);
    assert!(err.contains("AWS profile 'nobody'"), "{err}");
}

#[test]
fn unsigned_requests_are_refused_by_a_private_bucket_quickly() {
    let Some(s3) = server("unsigned") else { return };
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let url = s3.url("u.zarr");
    s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &s3.keys())
        .success();
    // Nothing configured at all: unsigned requests (never the instance metadata
    // service, which would hang for seconds), refused in one line.
    let started = Instant::now();
    let err = s3.run("nczdump", &["-h", &url], &[]).fails_with_one_line(1);
    assert!(err.contains("denied"), "{err}");
    // ... and says why: no credentials were found (issue 38).
    assert!(
        err.contains("no credentials were found, so requests were unsigned"),
        "{err}"
    );
    // The refused object is named, as s3://bucket/key.
    let object = format!("s3://{}/{}/u.zarr/", s3.bucket, s3.prefix);
    assert!(err.contains(&object), "{err}");
    assert!(!err.contains("169.254"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(20));
    // Profile none: unsigned even with keys in the environment.
    let none = url.replace("#mode=nczarr,s3", "#mode=nczarr,s3&aws.profile=none");
    let err = s3
        .run("nczdump", &["-h", &none], &s3.keys())
        .fails_with_one_line(1);
    assert!(err.contains("denied"), "{err}");
    // Unsigned because asked: no hint about credentials.
    assert!(!err.contains("no credentials were found"), "{err}");
}

#[test]
fn unsigned_requests_read_a_public_bucket() {
    let Some(s3) = server("public") else { return };
    let Ok(public) = std::env::var("NCZARR_TEST_S3_PUBLIC_BUCKET") else {
        eprintln!("skipped: NCZARR_TEST_S3_PUBLIC_BUCKET is not set");
        return;
    };
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let url = format!(
        "{}/{public}/{}/pub.zarr#mode=nczarr,s3",
        s3.endpoint, s3.prefix
    );
    s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &s3.keys())
        .success();
    let want = fs::read_to_string(data_dir().join("golden/expected/coords.cdl")).unwrap();
    // No credentials anywhere, and profile none with keys present: both unsigned.
    let none = url.replace("#mode=nczarr,s3", "#mode=nczarr,s3&aws.profile=none");
    for (u, env) in [(&url, vec![]), (&none, s3.keys())] {
        let r = s3.run("nczdump", &["-n", "coords", u], &env);
        r.success();
        assert_eq!(r.stdout(), want);
    }
    // Unsigned writes are refused by the server, in one line, and leave nothing.
    let w = none.replace("pub.zarr", "anon.zarr");
    let err = s3
        .run("nczgen", &["-o", &w, &cdl.to_string_lossy()], &[])
        .fails_with_one_line(1);
    assert!(
        err.contains("denied") || err.contains("AccessDenied"),
        "{err}"
    );
}

#[test]
fn wrong_credentials_fail_in_one_line_without_showing_secrets() {
    let Some(s3) = server("wrong") else { return };
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let url = s3.url("w.zarr");
    s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &s3.keys())
        .success();
    let bad_secret = "not-the-secret-0123456789";
    let env = vec![
        ("AWS_ACCESS_KEY_ID", s3.key.clone()),
        ("AWS_SECRET_ACCESS_KEY", bad_secret.to_string()),
        ("AWS_SESSION_TOKEN", "token-never-shown-9876".to_string()),
        ("NCTRACING", "1".to_string()),
    ];
    let started = Instant::now();
    for tool_args in [
        vec!["nczdump", "-h", &url],
        vec!["zmapdump", "list", &url],
        vec!["nczgen", "-o", &url, &cdl.to_string_lossy()],
    ] {
        let r = s3.run(tool_args[0], &tool_args[1..], &env);
        assert_ne!(r.code(), 0);
        let all = format!("{}{}", r.stdout(), r.stderr());
        assert!(!all.contains(bad_secret), "{all}");
        assert!(!all.contains("token-never-shown"), "{all}");
        // (A secret as short as a word could appear by chance; the server's is long.)
        if s3.secret.len() >= 8 {
            assert!(!all.contains(&s3.secret), "{all}");
        }
        // The error itself is the last line; tracing lines come before it.
        let last = r.stderr().lines().last().unwrap_or("").to_string();
        assert!(
            last.contains("SignatureDoesNotMatch")
                || last.contains("denied")
                || last.contains("InvalidAccessKeyId")
                || last.contains("already holds a dataset"),
            "{last}"
        );
    }
    assert!(started.elapsed() < Duration::from_secs(30));
    // --help never shows the environment.
    for tool in ["nczdump", "nczgen", "zmapdump"] {
        let r = s3.run(tool, &["--help"], &env);
        assert!(!r.stdout().contains(bad_secret));
    }
}

#[test]
fn zmapdump_lists_searches_and_prints_objects_on_s3() {
    let Some(s3) = server("zmap") else { return };
    let cdl = data_dir().join("golden/cases").join("nested_groups.cdl");
    let tmp = tempfile::tempdir().unwrap();
    let local = tmp.path().join("g.zarr");
    run(
        "nczgen",
        &["-o", &local.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let url = s3.url("g.zarr");
    s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &s3.keys())
        .success();
    let local_s = local.to_string_lossy().into_owned();
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
        let got = s3.run("zmapdump", &remote_args, &s3.keys());
        got.success();
        let want = run("zmapdump", &local_args).stdout();
        assert_eq!(got.stdout(), want, "zmapdump {args:?}");
    }
    let format = s3.run("zmapdump", &["format", &url], &s3.keys()).stdout();
    assert!(
        format.starts_with("NCZarr 2.0.0, netcdf-c 4.9.3+/4.10 layout"),
        "{format}"
    );
    assert!(
        format.contains(&format!("storage: S3 at s3://{}/", s3.bucket)),
        "{format}"
    );
}

#[test]
fn existing_datasets_are_not_overwritten_and_failed_writes_leave_nothing() {
    let Some(s3) = server("safe") else { return };
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let url = s3.url("s.zarr");
    s3.run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &s3.keys())
        .success();
    let before = s3.run("nczdump", &[&url], &s3.keys()).stdout();
    let other = data_dir().join("golden/cases").join("nested_groups.cdl");
    let err = s3
        .run(
            "nczgen",
            &["-o", &url, &other.to_string_lossy()],
            &s3.keys(),
        )
        .fails_with_one_line(1);
    assert!(
        err.ends_with("s.zarr#mode=nczarr,s3: a dataset already exists (lat = 4, lon = 5, level = 2); nothing was written: --overwrite replaces it"),
        "{err}"
    );
    assert_eq!(s3.run("nczdump", &[&url], &s3.keys()).stdout(), before);
    // nczgen --overwrite replaces it, leaving none of the old dataset's objects.
    s3.run(
        "nczgen",
        &["--overwrite", "-o", &url, &other.to_string_lossy()],
        &s3.keys(),
    )
    .success();
    let local = tempfile::tempdir().unwrap();
    let local_s = local.path().join("s.zarr");
    let local_s = local_s.to_string_lossy();
    run("nczgen", &["-o", &local_s, &other.to_string_lossy()]).success();
    let expected = run("nczdump", &[&local_s]).stdout();
    s3.run("nczdump", &[&url], &s3.keys()).stdout_is(&expected);
    assert!(!s3
        .store("s.zarr")
        .list()
        .unwrap()
        .iter()
        .any(|(k, _)| k.as_str().starts_with("lat") || k.as_str().starts_with("lon")));

    // A write that fails half way (a key over S3's 1024-byte limit, refused before any
    // request) removes what it wrote.
    let tmp = tempfile::tempdir().unwrap();
    let long = "n".repeat(300);
    let bad = tmp.path().join("long.cdl");
    fs::write(
        &bad,
        format!(
            "netcdf long {{\ndimensions: x = 2;\nvariables: int a(x);\ndata: a = 1, 2;\ngroup: {long} {{ group: {long} {{ group: {long} {{ group: {long} {{\nvariables: int v(x);\ndata: v = 1, 2;\n}} }} }} }}\n}}\n"
        ),
    )
    .unwrap();
    let failed_url = s3.url("failed.zarr");
    let err = s3
        .run(
            "nczgen",
            &["-o", &failed_url, &bad.to_string_lossy()],
            &s3.keys(),
        )
        .fails_with_one_line(1);
    assert!(err.contains("1024-byte limit"), "{err}");
    let left = s3.store("failed.zarr").list().unwrap();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_missing_bucket_and_a_missing_dataset_are_named() {
    let Some(s3) = server("missing") else { return };
    let url = format!("{}/no-such-bucket-here/x.zarr#mode=nczarr,s3", s3.endpoint);
    let err = s3
        .run("nczdump", &[&url], &s3.keys())
        .fails_with_one_line(1);
    assert!(err.contains("no-such-bucket-here"), "{err}");
    let err = s3
        .run("nczdump", &[&s3.url("nothing.zarr")], &s3.keys())
        .fails_with_one_line(1);
    assert!(err.contains("nothing.zarr"), "{err}");
}

/// A dump without what says where and how the dataset was written.
pub(crate) fn dump_content(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains(":_NCProperties = ") && !l.starts_with("netcdf "))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn nczcopy_up_down_and_across_s3() {
    let Some(s3) = server("copy") else { return };
    let keys = s3.keys();
    let tmp = tempfile::tempdir().unwrap();
    let local = data_dir().join("golden/stores/nc410-nczarr/coords.file");
    let local = local.to_string_lossy();
    let expected = dump_content(&s3.run("nczdump", &[&local], &[]).stdout());
    // Up, across (rechunked, pure Zarr), down to a directory and to a zip.
    let up = s3.url("up.zarr");
    s3.run("nczcopy", &[&local, &up], &keys).success();
    assert_eq!(
        dump_content(&s3.run("nczdump", &[&up], &keys).stdout()),
        expected
    );
    let across = s3.url("across.zarr").replace("mode=nczarr", "mode=zarr");
    s3.run(
        "nczcopy",
        &["-k", "zarr", "-c", "lat/1", "-d", "3", &up, &across],
        &keys,
    )
    .success();
    assert!(s3
        .store("across.zarr")
        .get(&StoreKey::new("temperature/.zarray").unwrap())
        .unwrap()
        .is_some());
    assert!(s3
        .store("across.zarr")
        .get(&StoreKey::new(".zattrs").unwrap())
        .unwrap()
        .is_some());
    for (name, out) in [
        ("dir", tmp.path().join("down.zarr")),
        ("zip", tmp.path().join("down.zip")),
    ] {
        let out = out.to_string_lossy().into_owned();
        s3.run("nczcopy", &[&across, &out], &keys).success();
        let back = s3.run("nczdump", &["-n", "coords", &out], &[]).stdout();
        // Pure Zarr keeps no _FillValue-less attributes apart: values and names agree.
        let data = |t: &str| t[t.find("data:").unwrap_or(0)..].to_string();
        assert_eq!(data(&back), data(&expected), "{name}");
    }
    // The same dataset in and out is refused, and nothing changes.
    let err = s3.run("nczcopy", &[&up, &up], &keys).fails_with_one_line(1);
    assert!(
        err.contains("a dataset cannot be copied onto itself"),
        "{err}"
    );
    assert_eq!(
        dump_content(&s3.run("nczdump", &[&up], &keys).stdout()),
        expected
    );
}

#[test]
fn nczcopy_replaces_an_s3_dataset_only_with_overwrite() {
    let Some(s3) = server("overwrite") else {
        return;
    };
    let keys = s3.keys();
    let golden = data_dir().join("golden/stores/nc410-nczarr");
    let coords = golden.join("coords.file").to_string_lossy().into_owned();
    let nested = golden
        .join("nested_groups.file")
        .to_string_lossy()
        .into_owned();
    let url = s3.url("t.zarr");
    s3.run("nczcopy", &[&coords, &url], &keys).success();
    let before = s3.run("nczdump", &[&url], &keys).stdout();
    let err = s3
        .run("nczcopy", &[&nested, &url], &keys)
        .fails_with_one_line(1);
    assert!(err.contains("--overwrite"), "{err}");
    assert_eq!(s3.run("nczdump", &[&url], &keys).stdout(), before);
    // With --overwrite: the new dataset, and none of the old one's objects left.
    s3.run("nczcopy", &["--overwrite", &nested, &url], &keys)
        .success();
    let after = s3
        .run("nczdump", &["-n", "nested_groups", &url], &keys)
        .stdout();
    let expected = s3
        .run("nczdump", &["-n", "nested_groups", &nested], &[])
        .stdout();
    assert_eq!(dump_content(&after), dump_content(&expected));
    let left: Vec<String> = s3
        .store("t.zarr")
        .list()
        .unwrap()
        .into_iter()
        .map(|(k, _)| k.as_str().to_string())
        .filter(|k| k.starts_with("temperature") || k.starts_with("lat"))
        .collect();
    assert!(left.is_empty(), "old objects left: {left:?}");
}

#[test]
fn objects_that_are_not_a_dataset_are_never_deleted_even_with_overwrite() {
    let Some(s3) = server("foreign") else {
        return;
    };
    let keys = s3.keys();
    let input = data_dir()
        .join("golden/stores/nc410-nczarr/coords.file")
        .to_string_lossy()
        .into_owned();
    let note = StoreKey::new("notes/thesis.txt").unwrap();
    // A prefix holding someone's files, and a dataset with a file of someone's in it.
    s3.store("docs").put(&note, b"four years").unwrap();
    let url = s3.url("mixed.zarr");
    s3.run("nczcopy", &[&input, &url], &keys).success();
    s3.store("mixed.zarr").put(&note, b"mine").unwrap();
    for (name, what) in [
        (
            "docs",
            "is not a Zarr or NCZarr dataset (it holds 'notes/thesis.txt')",
        ),
        ("mixed.zarr", "holds a dataset and also 'notes/thesis.txt'"),
    ] {
        let before: Vec<_> = s3.store(name).list().unwrap();
        for args in [vec![input.as_str()], vec!["--overwrite", input.as_str()]] {
            let mut args = args;
            let url = s3.url(name);
            args.push(&url);
            let err = s3.run("nczcopy", &args, &keys).fails_with_one_line(1);
            assert!(
                err.contains(what) && err.contains("nothing was written"),
                "{err}"
            );
        }
        assert_eq!(s3.store(name).list().unwrap(), before, "{name}");
    }
    assert_eq!(s3.store("docs").get(&note).unwrap().unwrap(), b"four years");
    // What a killed run leaves (chunks, no documents yet) is a dataset's: --overwrite
    // replaces it.
    let debris = s3.store("debris.zarr");
    for k in ["v/0.0", "v/1.0", "g/w/0"] {
        debris.put(&StoreKey::new(k).unwrap(), b"xx").unwrap();
    }
    let url = s3.url("debris.zarr");
    let err = s3
        .run("nczcopy", &[&input, &url], &keys)
        .fails_with_one_line(1);
    assert!(
        err.ends_with("a dataset already exists (it does not open); nothing was written: --append adds to it, --overwrite replaces it"),
        "{err}"
    );
    s3.run("nczcopy", &["--overwrite", &input, &url], &keys)
        .success();
    let left = s3.store("debris.zarr").list().unwrap();
    assert!(
        left.iter()
            .all(|(k, _)| !k.as_str().starts_with("v/") && !k.as_str().starts_with("g/")),
        "{left:?}"
    );
}

#[test]
fn nczcopy_in_parts_on_s3() {
    let Some(s3) = server("parts") else { return };
    let keys = s3.keys();
    let input = data_dir().join("golden/stores/nc410-nczarr/coords.file");
    let input = input.to_string_lossy();
    let url = s3.url("p.zarr");
    let flags = ["-c", "lat/1,lon/1", "-M", "0"];
    let with = |extra: &[&str]| {
        let mut a: Vec<String> = extra.iter().map(|s| (*s).to_string()).collect();
        a.extend(flags.iter().map(|s| (*s).to_string()));
        a.extend([input.to_string(), url.clone()]);
        a
    };
    let args = with(&["--metadata-only"]);
    s3.run(
        "nczcopy",
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &keys,
    )
    .success();
    for k in ["1/3", "2/3", "3/3"] {
        let args = with(&["--part", k]);
        s3.run(
            "nczcopy",
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            &keys,
        )
        .success();
        // Not a dataset until --finish.
        s3.run("nczdump", &["-h", &url], &keys)
            .fails_with_one_line(1);
    }
    s3.run("nczcopy", &["--finish", &url], &keys).success();
    let got = s3.run("nczdump", &["-n", "coords", &url], &keys).stdout();
    let expected = s3.run("nczdump", &["-n", "coords", &input], &[]).stdout();
    assert_eq!(dump_content(&got), dump_content(&expected));
}

#[test]
fn listings_go_past_the_1000_keys_of_one_page() {
    let Some(s3) = server("pages") else { return };
    // 1,100 chunks of one variable: S3 lists 1,000 keys a page.
    let store = s3.store("many.zarr");
    let mut items = vec![
        (StoreKey::new(".zgroup").unwrap(), br#"{"zarr_format": 2}"#.to_vec()),
        (
            StoreKey::new("v/.zarray").unwrap(),
            br#"{"zarr_format": 2, "shape": [1100], "chunks": [1], "dtype": "<i2", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#.to_vec(),
        ),
        (StoreKey::new("v/.zattrs").unwrap(), br#"{"_ARRAY_DIMENSIONS": ["x"]}"#.to_vec()),
    ];
    for i in 0..1100i16 {
        items.push((
            StoreKey::new(&format!("v/{i}")).unwrap(),
            i.to_le_bytes().to_vec(),
        ));
    }
    store.put_many(&items).unwrap();
    assert_eq!(store.list().unwrap().len(), 1103);
    let url = s3.url("many.zarr").replace("nczarr,s3", "zarr,s3");
    let listed = s3
        .run("zmapdump", &["list", &url], &s3.keys())
        .success()
        .stdout();
    assert_eq!(listed.lines().count(), 1103, "{listed}");
    assert!(listed.contains("v/1099"), "{listed}");
    // And a copy takes every chunk.
    let down = tempfile::tempdir().unwrap();
    let local = down.path().join("many.zarr");
    s3.run("nczcopy", &[&url, &local.to_string_lossy()], &s3.keys())
        .success();
    let dump = run("nczdump", &["-v", "v", &local.to_string_lossy()])
        .success()
        .stdout();
    assert!(dump.contains("1097, 1098, 1099 ;"), "{dump}");
}

/// Issue 61: on S3 too, a key under a prefix that holds a dataset is refused by every
/// writing tool (naming the dataset), and an existing netCDF object or dataset only
/// with --overwrite, saying what is there.
#[test]
fn a_key_inside_an_s3_dataset_is_refused_and_existing_objects_need_overwrite() {
    let Some(s3) = server("inside") else {
        return;
    };
    let keys = s3.keys();
    let coords = data_dir()
        .join("golden/stores/nc410-nczarr/coords.file")
        .to_string_lossy()
        .into_owned();
    let url = s3.url("year.zarr");
    s3.run("nczcopy", &[&coords, &url], &keys).success();
    let before: Vec<_> = s3.store("year.zarr").list().unwrap();
    let inner = s3.url("year.zarr/lat");
    for args in [
        vec!["nczcopy".to_string(), coords.clone(), inner.clone()],
        vec![
            "nczcopy".to_string(),
            "-O".into(),
            coords.clone(),
            inner.clone(),
        ],
        vec![
            "nczcopy".to_string(),
            coords.clone(),
            s3.url("year.zarr/sub/x.nc"),
        ],
    ] {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let e = s3.run(a[0], &a[1..], &keys).fails_with_one_line(1);
        assert!(
            e.contains(": inside the dataset s3://") && e.contains("/year.zarr ("),
            "{a:?}: {e}"
        );
    }
    assert_eq!(s3.store("year.zarr").list().unwrap(), before);
    // A netCDF object: refused without --overwrite, replaced with it.
    let nc = s3.url("one.nc").replace("#mode=nczarr,s3", "#mode=s3");
    s3.run("nczcopy", &[&coords, &nc], &keys).success();
    let e = s3
        .run("nczcopy", &[&coords, &nc], &keys)
        .fails_with_one_line(1);
    assert!(
        e.ends_with("one.nc#mode=s3: a dataset already exists (lat = 4, lon = 5, level = 2); nothing was written: --overwrite replaces it"),
        "{e}"
    );
    s3.run("nczcopy", &["--overwrite", &coords, &nc], &keys)
        .success();
}
