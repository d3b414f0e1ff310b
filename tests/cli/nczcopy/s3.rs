//! nczcopy against a real S3 server on 127.0.0.1 (SeaweedFS, started by
//! `scripts/test.sh`): up, down and across, replacement only with `--overwrite`, objects
//! that are not a dataset never deleted, copies in parts, listings past one page, keys
//! inside a dataset refused. Skipped without the server.

use nczarr::store::{ListableStore, ReadableStore, StoreKey, WritableStore};

use crate::util::s3::{dump_content, server};
use crate::util::{data_dir, run};

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
