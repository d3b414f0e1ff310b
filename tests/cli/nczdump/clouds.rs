//! nczdump reading from Google Cloud Storage and Azure Blob emulators on 127.0.0.1
//! (fake-gcs-server and Azurite, started by `scripts/test.sh` through
//! `scripts/cloud_servers.sh`, which export `NCZARR_TEST_GCS_*` and
//! `NCZARR_TEST_AZURE_*`), and from a plain web server. Without an emulator its tests
//! print why they are skipped and pass (under `CI=true` the script fails first).
//!
//! fake-gcs-server checks no credentials: refusals are tested on Azurite only, and said
//! so when the GCS part is skipped.

use std::fs;
use std::process::Command;

use nczarr::store::{DirStore, ListableStore, ReadableStore};

use crate::util::clouds::{clouds, renamed, var, Kind};
use crate::util::{data_dir, first_diff, run, RangeServer};

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

#[test]
fn gcs_errors_name_the_endpoint_requests_went_to() {
    let home = tempfile::tempdir().unwrap();
    // Port 9 (discard) refuses connections on loopback: nothing answers.
    let sa = home.path().join("sa.json");
    fs::write(
        &sa,
        r#"{"type": "service_account", "gcs_base_url": "http://127.0.0.1:9", "disable_oauth": true, "client_email": "t@example.invalid", "private_key_id": "", "private_key": ""}"#,
    )
    .unwrap();
    for env in [
        vec![(
            "GOOGLE_APPLICATION_CREDENTIALS",
            sa.to_string_lossy().into_owned(),
        )],
        vec![("STORAGE_EMULATOR_HOST", "127.0.0.1:9".to_string())],
    ] {
        let e = crate::util::run_clean("nczdump", home.path(), &["gs://b/x.zarr"], &env)
            .fails_with_one_line(1);
        assert!(e.contains("(http://127.0.0.1:9)"), "{env:?}: {e}");
        assert!(!e.contains("storage.googleapis.com"), "{e}");
    }
}
