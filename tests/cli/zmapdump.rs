//! zmapdump: listing, searching and printing the objects of a store, on disk, S3, GCS
//! and Azure.

use crate::util::clouds::{clouds, Kind};
use crate::util::datasets::dataset;
use crate::util::s3::server;
use crate::util::{data_dir, run, TempStore};

#[test]
fn list_and_search() {
    let s = TempStore::nczarr_sample("z.file");
    let out = run("zmapdump", &["list", &s.path_str()]);
    out.success();
    let lines: Vec<String> = out
        .stdout()
        .lines()
        .map(|l| l.split_whitespace().last().unwrap().to_string())
        .collect();
    assert_eq!(
        lines,
        [".zattrs", ".zgroup", "v/.zarray", "v/.zattrs", "v/0.0"]
    );
    assert!(out.stdout().contains("          24  v/0.0\n"));
    run("zmapdump", &["search", &s.path_str()])
        .success()
        .stdout_is(".zattrs\n.zgroup\nv\n");
    run("zmapdump", &["search", &s.path_str(), "v"])
        .success()
        .stdout_is(".zarray\n.zattrs\n0.0\n");
}

#[test]
fn object_json_and_hex() {
    let s = TempStore::nczarr_sample("o.file");
    let out = run("zmapdump", &["object", &s.path_str(), "v/.zarray"]);
    out.success();
    assert!(
        out.stdout()
            .starts_with("{\n  \"zarr_format\": 2,\n  \"shape\": [2,3],\n"),
        "{}",
        out.stdout()
    );
    let out = run("zmapdump", &["object", &s.path_str(), "v/0.0"]);
    out.success();
    assert!(
        out.stdout().starts_with(
            "00000000  01 00 00 00 02 00 00 00  03 00 00 00 04 00 00 00  |................|\n"
        ),
        "{}",
        out.stdout()
    );
    let err = run("zmapdump", &["object", &s.path_str(), "v/9.9"]).fails_with_one_line(1);
    assert!(err.ends_with("key 'v/9.9' does not exist"), "{err}");
}

#[test]
fn chunk_values_and_missing_chunks() {
    let s = TempStore::nczarr_sample("c.file");
    let out = run("zmapdump", &["chunk", &s.path_str(), "v", "0.0"]);
    out.success();
    assert!(out.stdout().contains("key: v/0.0\n"));
    assert!(
        out.stdout().ends_with("values:\n  1, 2, 3\n  4, 5, 6\n"),
        "{}",
        out.stdout()
    );
    s.remove("v/0.0");
    let out = run("zmapdump", &["chunk", &s.path_str(), "v", "0,0"]);
    out.success();
    assert!(
        out.stdout()
            .ends_with("not stored: reads as the fill value -2147483647\n"),
        "{}",
        out.stdout()
    );
    let err = run("zmapdump", &["chunk", &s.path_str(), "v", "3.0"]).fails_with_one_line(1);
    assert!(
        err.contains("chunk index [3, 0] is outside the chunk grid [1, 1]"),
        "{err}"
    );
}

#[test]
fn format_names_the_generation() {
    let s = TempStore::nczarr_sample("g.file");
    let out = run("zmapdump", &["format", &s.path_str()]);
    out.success();
    assert!(
        out.stdout()
            .starts_with("NCZarr 2.0.0, netcdf-c 4.9.3+/4.10 layout"),
        "{}",
        out.stdout()
    );
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
fn zmapdump_prints_nan_and_infinities() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    let r = run("zmapdump", &["chunk", &input, "f", "0"]);
    r.success();
    assert!(
        r.stdout().contains("  1, 2, NaN, Infinity\n"),
        "{}",
        r.stdout()
    );
}
