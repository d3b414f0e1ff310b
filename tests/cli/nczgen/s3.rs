//! nczgen writing to a real S3 server on 127.0.0.1 (SeaweedFS, started by
//! `scripts/test.sh`): datasets that dump like the file store's, existing datasets not
//! overwritten, netCDF files written as one object. Skipped without the server.

use std::fs;

use nczarr::store::{ListableStore, ReadableStore, StoreKey, WritableStore};

use crate::util::s3::{dump_content, server};
use crate::util::{data_dir, first_diff, run};

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

/// netCDF files written to S3 objects (issue 41): nczgen and nczcopy write a netCDF-4
/// and a classic file as one object each (uploaded when complete), read back by byte
/// ranges as their local twins; an object that is not a netCDF file is refused and
/// kept, a netCDF object replaced.
#[test]
fn netcdf_files_written_to_s3_objects() {
    let Some(s3) = server("ncout") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let cdl_s = cdl.to_string_lossy().into_owned();
    let place = format!("{}/{}/{}/out", s3.endpoint, s3.bucket, s3.prefix);
    for (kind, name) in [("nc4", "x.nc"), ("classic", "y.nc")] {
        let local = tmp.path().join(name);
        s3.run(
            "nczgen",
            &["-k", kind, "-o", &local.to_string_lossy(), &cdl_s],
            &[],
        )
        .success();
        let object = format!("{place}/{name}#mode=s3");
        s3.run("nczgen", &["-k", kind, "-o", &object, &cdl_s], &s3.keys())
            .success();
        let stored = s3
            .store("out")
            .get(&StoreKey::new(name).unwrap())
            .unwrap()
            .expect("the object");
        assert_eq!(
            &stored[..3],
            if kind == "nc4" {
                &b"\x89HD"[..]
            } else {
                b"CDF"
            }
        );
        let local_text = s3.run("nczdump", &[&local.to_string_lossy()], &[]).stdout();
        let got = s3
            .run(
                "nczdump",
                &[&format!("{place}/{name}#mode=bytes,s3")],
                &s3.keys(),
            )
            .stdout();
        assert_eq!(dump_content(&got), dump_content(&local_text), "{kind}");
        // Copied again over it: a netCDF object is replaced when asked (issue 61).
        let err = s3
            .run("nczcopy", &[&local.to_string_lossy(), &object], &s3.keys())
            .fails_with_one_line(1);
        assert!(
            err.ends_with("nothing was written: --overwrite replaces it"),
            "{err}"
        );
        s3.run(
            "nczcopy",
            &["-O", &local.to_string_lossy(), &object],
            &s3.keys(),
        )
        .success();
    }
    // An object that is not a netCDF file is refused and kept.
    s3.store("out")
        .put(&StoreKey::new("notes.nc").unwrap(), b"my notes")
        .unwrap();
    let err = s3
        .run(
            "nczgen",
            &[
                "-k",
                "nc4",
                "-o",
                &format!("{place}/notes.nc#mode=s3"),
                &cdl_s,
            ],
            &s3.keys(),
        )
        .fails_with_one_line(1);
    assert!(err.contains("not a netCDF file"), "{err}");
    let kept = s3
        .store("out")
        .get(&StoreKey::new("notes.nc").unwrap())
        .unwrap();
    assert_eq!(kept.as_deref(), Some(&b"my notes"[..]));
}
