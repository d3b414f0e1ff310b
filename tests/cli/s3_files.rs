//! netCDF files in S3 objects: read whole by byte ranges, and written as one object
//! (against the S3 emulator scripts/test.sh starts; skipped without it).

use std::fs;
use std::process::Command;

use nczarr::cloud::s3::{resolve, s3_store, AwsInputs};
use nczarr::store::{ReadableStore, StoreKey, WritableStore};
use nczarr::url::DatasetUrl;

use crate::s3::{dump_content, server};
use crate::util::{data_dir, first_diff};

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
