//! The name decision table, fragments, prefixes and errors of `url`.
use super::*;

fn flags(u: &DatasetUrl) -> Vec<&str> {
    u.modes.flags().iter().map(String::as_str).collect()
}

#[test]
fn decision_table() {
    // (input, storage, flags after inference)
    let cases: &[(&str, StorageKind, &[&str])] = &[
        ("/data/x.zarr", StorageKind::Dir, &[]),
        ("x.zip", StorageKind::Zip, &[]),
        ("X.ZIP", StorageKind::Zip, &[]),
        (
            "file:///data/x.file#mode=nczarr,file",
            StorageKind::Dir,
            &["nczarr", "file"],
        ),
        (
            "file:///data/x.zarr#mode=zarr,file",
            StorageKind::Dir,
            &["zarr", "file", "nczarr"],
        ),
        (
            "file:///data/x#mode=xarray",
            StorageKind::Dir,
            &["xarray", "zarr", "nczarr"],
        ),
        (
            "file:///d/x#mode=nczarr,noxarray,file&log",
            StorageKind::Dir,
            &["nczarr", "noxarray", "file", "zarr"],
        ),
        (
            "file:///d/x#mode=zarr&mode=file",
            StorageKind::Dir,
            &["zarr", "file", "nczarr"],
        ),
        (
            "file:///d/x.zip#mode=nczarr,zip",
            StorageKind::Zip,
            &["nczarr", "zip"],
        ),
        (
            "file:///d/x#MODE=NCZARR,FILE",
            StorageKind::Dir,
            &["nczarr", "file"],
        ),
        ("file:///d/x#zarr", StorageKind::Dir, &["nczarr", "zarr"]),
        (
            "file:///d/x#noxarray",
            StorageKind::Dir,
            &["nczarr", "noxarray", "zarr"],
        ),
        ("s3://bucket/key", StorageKind::S3, &["s3", "nczarr"]),
        (
            "s3://mybucket/key#mode=zarr&aws.region=eu-west-1",
            StorageKind::S3,
            &["zarr", "s3", "nczarr"],
        ),
        (
            "https://b.s3.us-west-2.amazonaws.com/a/b",
            StorageKind::S3,
            &["s3"],
        ),
        (
            "https://minio.example.com:9000/bkt/key#mode=nczarr,s3",
            StorageKind::S3,
            &["nczarr", "s3"],
        ),
        ("gs://bucket/a/b.zarr", StorageKind::Gcs, &["nczarr"]),
        (
            "gcs://bucket/a#mode=zarr",
            StorageKind::Gcs,
            &["zarr", "nczarr"],
        ),
        ("https://storage.googleapis.com/b/k", StorageKind::Gcs, &[]),
        // Google's S3 API, as netcdf-c reaches it.
        (
            "https://storage.googleapis.com/b/k#mode=gs3",
            StorageKind::S3,
            &["gs3"],
        ),
        ("gs3://b/k", StorageKind::S3, &["gs3", "nczarr"]),
        ("gs://b/k#mode=s3", StorageKind::S3, &["s3", "nczarr"]),
        ("az://container/k", StorageKind::Azure, &["nczarr"]),
        (
            "abfss://c@acct.dfs.core.windows.net/k#mode=zarr3",
            StorageKind::Azure,
            &["zarr3", "nczarr"],
        ),
        (
            "https://acct.blob.core.windows.net/c/k",
            StorageKind::Azure,
            &[],
        ),
        ("https://data.example.org/x.zarr", StorageKind::Http, &[]),
    ];
    for (input, storage, expect) in cases {
        let u = DatasetUrl::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(u.storage, *storage, "{input}");
        assert_eq!(flags(&u), *expect, "{input}");
    }
}

#[test]
fn params_and_locations() {
    let u = DatasetUrl::parse("s3://mybucket/a/b.zarr#mode=zarr&AWS.Profile=unidata&log").unwrap();
    assert_eq!(u.param("aws.profile"), Some("unidata"));
    assert_eq!(u.param("log"), Some(""));
    assert_eq!(
        u.location,
        Location::Remote {
            scheme: "s3".into(),
            host: "mybucket".into(),
            path: "a/b.zarr".into()
        }
    );
    let u = DatasetUrl::parse("file:///a%20b/c.zarr#mode=nczarr,file").unwrap();
    assert_eq!(u.path(), Some(Path::new("/a b/c.zarr")));
    let u = DatasetUrl::parse("file://rel/x.file#mode=nczarr,file").unwrap();
    assert_eq!(u.path(), Some(Path::new("rel/x.file")));
    // A '#' in a plain path is part of the name, not a fragment.
    let u = DatasetUrl::parse("/d/a#b").unwrap();
    assert_eq!(u.path(), Some(Path::new("/d/a#b")));
}

#[test]
fn base_names() {
    let base = |s: &str| DatasetUrl::parse(s).unwrap().base_name();
    assert_eq!(base("file:///d/g1.file#mode=nczarr,file"), "g1");
    assert_eq!(base("/d/zp.zarr/"), "zp");
    assert_eq!(base("t1"), "t1");
    assert_eq!(base("s3://bucket/a/b.zarr"), "b");
    assert_eq!(base("a.b.zip"), "a.b");
    // Inside the store itself: the directory's name.
    let tmp = std::env::temp_dir().join(format!("nczarr-url-{}", std::process::id()));
    let store = tmp.join("inside.zarr");
    std::fs::create_dir_all(store.join("sub")).unwrap();
    assert_eq!(base(&format!("{}/.", store.display())), "inside");
    assert_eq!(base(&format!("{}/sub/..", store.display())), "inside");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn opendap_names_as_netcdf_c_takes_them() {
    let u = DatasetUrl::parse("[log][show=fetch]http://h:8080/dodsC/x.nc?tas[0:1:9]#dap4").unwrap();
    assert_eq!(u.dap(), Some(DapProtocol::Dap4));
    assert_eq!(u.query.as_deref(), Some("tas[0:1:9]"));
    assert_eq!(u.param("show"), Some("fetch"));
    assert_eq!(u.param("log"), Some(""));
    assert_eq!(u.web_base().as_deref(), Some("http://h:8080/dodsC/x.nc"));
    assert_eq!(u.base_name(), "x");
    let u = DatasetUrl::parse("dods://h/x.nc").unwrap();
    assert_eq!(u.dap(), Some(DapProtocol::Dap2));
    assert_eq!(u.web_base().as_deref(), Some("http://h/x.nc"));
    let u = DatasetUrl::parse("dap4://h/x.nc").unwrap();
    assert_eq!(u.dap(), Some(DapProtocol::Dap4));
    let u = DatasetUrl::parse("https://h/x.nc#protocol=dap4").unwrap();
    assert_eq!(u.dap(), Some(DapProtocol::Dap4));
    assert_eq!(
        DatasetUrl::parse("https://h/x.nc#mode=dap2").unwrap().dap(),
        Some(DapProtocol::Dap2)
    );
    assert_eq!(DatasetUrl::parse("https://h/x.nc").unwrap().dap(), None);
    assert_eq!(DatasetUrl::parse("https://h/x.nc").unwrap().query, None);
    // A plain path may start with '['.
    assert!(DatasetUrl::parse("[a]b.zarr").unwrap().path().is_some());
}

#[test]
fn errors() {
    let e = DatasetUrl::parse("file:///x#mode=nczarr,bogus").unwrap_err();
    assert_eq!(
        e,
        UrlError::UnknownMode {
            flag: "bogus".into()
        }
    );
    assert!(e.to_string().starts_with("unknown mode flag 'bogus'"));
    assert_eq!(
        DatasetUrl::parse("file:///x#mode=dap2").unwrap().dap(),
        Some(DapProtocol::Dap2)
    );
    assert_eq!(
        DatasetUrl::parse("file:///x#mode=zoh").unwrap_err(),
        UrlError::UnsupportedMode { flag: "zoh".into() }
    );
    assert!(matches!(
        DatasetUrl::parse("http://h/x#mode=dap2,zarr"),
        Err(UrlError::ConflictingStorage { .. })
    ));
    assert_eq!(
        DatasetUrl::parse("file:///x#mode=zip,s3").unwrap_err(),
        UrlError::ConflictingStorage {
            a: "zip".into(),
            b: "s3".into()
        }
    );
    assert!(matches!(
        DatasetUrl::parse("ftp://h/x"),
        Err(UrlError::UnsupportedScheme { .. })
    ));
    assert!(matches!(
        DatasetUrl::parse("s3:///key"),
        Err(UrlError::Malformed { .. })
    ));
    assert!(matches!(
        DatasetUrl::parse("file:///x%zz"),
        Err(UrlError::Malformed { .. })
    ));
    assert!(matches!(
        DatasetUrl::parse(""),
        Err(UrlError::Malformed { .. })
    ));
    assert_eq!(
        DatasetUrl::parse("http://example.com/x.nc#mode=bytes")
            .unwrap()
            .storage,
        StorageKind::Http
    );
    assert_eq!(
        DatasetUrl::parse("http://example.com/x").unwrap().storage,
        StorageKind::Http
    );
    let s3_file = DatasetUrl::parse("s3://bucket/a/x.nc#bytes").unwrap();
    assert_eq!(s3_file.storage, StorageKind::S3);
    assert!(s3_file.modes.has("bytes"));
    assert!(matches!(
        DatasetUrl::parse("http://example.com/x#mode=zip"),
        Err(UrlError::Malformed { .. })
    ));
}

#[test]
fn a_hash_in_a_plain_path_is_a_fragment_only_where_a_file_name_is_unlikely() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().display().to_string();
    std::fs::create_dir(tmp.path().join("there.ice")).unwrap();
    std::fs::write(tmp.path().join("odd#name=1.nc"), b"").unwrap();
    let path_of = |text: &str| DatasetUrl::parse(text).unwrap();
    // Before the '#' exists: a fragment.
    let u = path_of(&format!("{d}/there.ice#branch=dev"));
    assert_eq!(u.param("branch"), Some("dev"));
    assert_eq!(u.path(), Some(tmp.path().join("there.ice").as_path()));
    // Nothing there yet, only known keys: a dataset to make, not a name with '#'.
    let u = path_of(&format!("{d}/new.ice#mode=icechunk&branch=main"));
    assert!(u.modes.has("icechunk"));
    assert_eq!(u.path(), Some(tmp.path().join("new.ice").as_path()));
    // A file that exists whole is that file; unknown keys in a new name are its name.
    let u = path_of(&format!("{d}/odd#name=1.nc"));
    assert_eq!(u.path(), Some(tmp.path().join("odd#name=1.nc").as_path()));
    let u = path_of(&format!("{d}/new#run=3.nc"));
    assert_eq!(u.path(), Some(tmp.path().join("new#run=3.nc").as_path()));
    assert!(u.params.is_empty());
}
