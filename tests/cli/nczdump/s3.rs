//! nczdump reading from a real S3 server on 127.0.0.1 (SeaweedFS, started by
//! `scripts/test.sh`, which exports `NCZARR_TEST_S3_*`): URLs, profiles, unsigned
//! requests, missing buckets, netCDF files in S3 objects read by byte ranges. Without a
//! server each test prints why it is skipped and passes.
//!
//! Tools run with a clean environment: `HOME` and the working directory are empty
//! temporary directories (no `~/.aws`, no `.ncrc`), and only the variables a test sets.

use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

use nczarr::cloud::s3::{resolve, s3_store, AwsInputs};
use nczarr::store::{DirStore, ReadStore, StoreKey, WritableStore, ZipStore};
use nczarr::url::DatasetUrl;

use crate::util::s3::server;
use crate::util::{data_dir, first_diff, first_line, run};

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

/// netCDF files that sit whole in one S3 object, read by byte ranges (`#mode=bytes`,
/// or known by their first bytes), from the private bucket with keys and from the
/// public one unsigned; without keys the private bucket refuses in one line.
#[test]
fn netcdf_files_in_s3_objects_read_by_byte_ranges() {
    let Some(s3) = server("bytes") else { return };
    if !crate::util::have("ncgen") || !crate::util::have("ncdump") {
        eprintln!("skipped: ncgen/ncdump (netcdf-bin) are not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let public = std::env::var("NCZARR_TEST_S3_PUBLIC_BUCKET").ok();
    for kind in ["1", "3"] {
        let nc = tmp.path().join(format!("coords{kind}.nc"));
        assert!(Command::new("ncgen")
            .args(["-k", kind, "-o"])
            .arg(&nc)
            .arg(&cdl)
            .status()
            .unwrap()
            .success());
        let bytes = fs::read(&nc).unwrap();
        let want =
            String::from_utf8(Command::new("ncdump").arg(&nc).output().unwrap().stdout).unwrap();
        let name = format!("coords{kind}.nc");
        s3.store("files")
            .put(&StoreKey::new(&name).unwrap(), &bytes)
            .unwrap();
        let object = format!("{}/{}/{}/files/{name}", s3.endpoint, s3.bucket, s3.prefix);
        for url in [
            format!("{object}#mode=bytes,s3"),
            format!("{object}#mode=s3"),
        ] {
            let got = s3.run("nczdump", &[&url], &s3.keys());
            got.success();
            assert_eq!(
                got.stdout(),
                want,
                "{url}: {}",
                first_diff(&got.stdout(), &want)
            );
        }
        let err = s3
            .run("nczdump", &[&format!("{object}#mode=bytes,s3")], &[])
            .fails_with_one_line(1);
        assert!(err.contains("denied"), "{err}");
        if let Some(public) = &public {
            let key = format!("{}/{name}", s3.prefix);
            let up = DatasetUrl::parse(&format!("{}/{public}/{key}#mode=bytes,s3", s3.endpoint))
                .unwrap();
            let inputs = AwsInputs {
                vars: s3
                    .keys()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
                ..AwsInputs::default()
            };
            s3_store(&resolve(&up, &inputs).unwrap())
                .unwrap()
                .put(&StoreKey::root(), &bytes)
                .unwrap();
            let got = s3.run("nczdump", &[&up.original], &[]);
            got.success();
            assert_eq!(got.stdout(), want);
        }
    }
}
