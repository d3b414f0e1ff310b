//! Errors every tool gives alike: one line saying each thing once, unknown codec
//! parameters refused by every tool (issue 38), wrong S3, GCS and Azure credentials
//! failing in one line that never shows a secret.

use std::fs;
use std::time::{Duration, Instant};

use crate::util::clouds::{clouds, Kind};
use crate::util::datasets::dataset;
use crate::util::s3::server;
use crate::util::{data_dir, run};

/// The exact text of common errors: the path once, each cause once (no
/// `a.nc: a.nc: not a directory: not a directory`).
#[test]
fn common_errors_say_each_thing_once() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |name: &str| tmp.path().join(name).to_string_lossy().into_owned();
    fs::write(p("empty.nc"), b"").unwrap();
    fs::write(p("text.nc"), b"just text\n").unwrap();
    fs::write(
        p("bad.cdl"),
        "netcdf x { dimensions: n = 2 ; variables: int v(m) ; }\n",
    )
    .unwrap();
    let cdl = data_dir()
        .join("golden/cases/coords.cdl")
        .to_string_lossy()
        .into_owned();
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ocean.zarr")
        .to_string_lossy()
        .into_owned();
    let long = p(&"x".repeat(300));
    let not_nc = "not a netCDF file (no netCDF or HDF5 signature in its first bytes), nor a Zarr dataset (a directory or a .zip)";
    let cases: Vec<(&str, Vec<String>, String)> = vec![
        ("nczdump", vec![p("empty.nc")], format!("nczdump: {}: {not_nc}", p("empty.nc"))),
        ("nczdump", vec![p("text.nc")], format!("nczdump: {}: {not_nc}", p("text.nc"))),
        ("nczcopy", vec![p("text.nc"), p("o.zarr")], format!("nczcopy: {}: {not_nc}", p("text.nc"))),
        ("nczdump", vec![p("missing.zarr")], format!("nczdump: {}: no such file or directory", p("missing.zarr"))),
        ("nczdump", vec![long.clone()], format!("nczdump: {long}: File name too long (os error 36)")),
        (
            "nczgen",
            vec!["-o".into(), p("no/dir/x.zarr"), cdl.clone()],
            format!("nczgen: {}: {}: output directory does not exist", p("no/dir/x.zarr"), p("no/dir")),
        ),
        (
            "nczgen",
            vec![p("missing.cdl")],
            format!("nczgen: {}: No such file or directory (os error 2)", p("missing.cdl")),
        ),
        (
            "nczgen",
            vec!["-o".into(), p("b.zarr"), p("bad.cdl")],
            format!("nczgen: {}:1:49: undefined or forward referenced dimension: m", p("bad.cdl")),
        ),
        (
            "nczdump",
            vec!["ftp://h/x".into()],
            "nczdump: ftp://h/x: unsupported URL scheme 'ftp' (use a path, file://, s3://, gs://, az://, abfs:// or https://)".into(),
        ),
        (
            "nczdump",
            vec!["s3://b/k#mode=zip".into()],
            "nczdump: s3://b/k#mode=zip: conflicting storage modes 'zip' and 's3'".into(),
        ),
        (
            "nczdump",
            vec!["file:///x#mode=bogus".into()],
            "nczdump: file:///x#mode=bogus: unknown mode flag 'bogus' (known: nczarr, zarr, xarray, noxarray, file, zip, s3, gs3, consolidated, v2, zarr3, v3, bytes, kerchunk, dap2, dap4, icechunk)".into(),
        ),
        (
            "nczcopy",
            vec![example.clone(), "https://example.org/x.zarr".into()],
            "nczcopy: https://example.org/x.zarr: a web server (http/https URL) cannot be written; write to a directory, a .zip, S3 ('#mode=s3' for an S3-compatible server), GCS or Azure".into(),
        ),
        (
            "zmapdump",
            vec!["object".into(), example.clone(), "nokey".into()],
            format!("zmapdump: {example}: key 'nokey' does not exist"),
        ),
        (
            "nczdump",
            vec![tmp.path().to_string_lossy().into_owned()],
            format!(
                "nczdump: {}: not a Zarr dataset (no .zgroup, .zarray, .zmetadata, .nczarr or zarr.json at its root)",
                tmp.path().display()
            ),
        ),
    ];
    for (tool, args, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = run(tool, &args).fails_with_one_line(1);
        assert_eq!(got, want, "{tool} {args:?}");
    }
}

#[test]
fn unknown_codec_parameters_are_refused_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    let out = tmp.path().join("o.zarr").to_string_lossy().into_owned();
    for (args, expect) in [
        (
            vec!["--codec", "zstd:levl=3"],
            r#"unknown parameter "levl" (it takes level, checksum)"#,
        ),
        (
            vec!["--codec", r#"{"id": "blosc", "cname": "lz4", "level": 5}"#],
            r#"unknown parameter "level""#,
        ),
        (
            vec!["-F", "*,32015,3,9"],
            "takes at most 1 parameter, not 2",
        ),
        (
            vec!["-d", "9", "--codec", "zstd"],
            "-d 9 and --codec both choose",
        ),
    ] {
        let mut all = args.clone();
        all.extend([input.as_str(), out.as_str()]);
        let e = run("nczcopy", &all).fails_with_one_line(1);
        assert!(e.contains(expect), "{args:?}: {e}");
        assert!(!std::path::Path::new(&out).exists());
    }
    // _Codecs in CDL, as nczgen reads it.
    let cdl = tmp.path().join("c.cdl");
    fs::write(
        &cdl,
        "netcdf c {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\n\t\tv:_Codecs = \"[{\\\"id\\\": \\\"zlib\\\", \\\"lvl\\\": 1}]\" ;\ndata:\n v = 1, 2 ;\n}\n",
    )
    .unwrap();
    let e = run("nczgen", &["-o", &out, &cdl.to_string_lossy()]).fails_with_one_line(1);
    assert!(
        e.contains(r#"unknown parameter "lvl" (it takes level)"#),
        "{e}"
    );
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
