//! `nczcopy -k zarr3 --in-place STORE`: a Zarr version 2 store (ours, netcdf-c's,
//! xarray's) given version 3 metadata in place, as zarr-python's `zarr migrate v3`:
//! zarr-python opens it as version 3, xarray reads it as it reads nczcopy's version 3
//! copy of it, our reader dumps it the same, every chunk is left as it was, netcdf-c still reads its
//! version 2 documents; what is not a version 2 store in a directory is refused.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::peers::python_with_readers;
use crate::util::{data_dir, run, s};

/// Every file under `dir` but the metadata documents: the chunks, by path.
fn chunks(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                todo.push(p);
            } else if !(name.starts_with('.') || name == "zarr.json") {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// nczdump of `store` without its first line.
fn dump(store: &Path) -> String {
    let text = run("nczdump", &[&s(store)]).success().stdout();
    text.lines().skip(1).collect::<Vec<_>>().join("\n")
}

/// What zarr-python and xarray read of `store`: its Zarr version, and xarray's dataset
/// (every group) as JSON text.
fn python_reading(py: &str, store: &Path) -> String {
    let out = Command::new(py)
        .args(["-W", "ignore", "-c"])
        .arg(
            r#"
import sys, json, zarr, xarray as xr
store = sys.argv[1]
root = zarr.open_group(store, mode="r")
groups = [""] + [p for p, _ in root.groups()]
seen = {p or "/": xr.open_zarr(store, group=p or None).load().to_dict(data="list") for p in groups}
print(root.metadata.zarr_format)
print(json.dumps(seen, sort_keys=True, default=str))
"#,
        )
        .arg(store)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn version_2_stores_are_given_version_3_metadata_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let cdl = data_dir().join("nczatted/r4.cdl");
    let mut stores = Vec::new();
    for kind in ["nczarr", "zarr"] {
        let store = d.join(format!("{kind}.zarr"));
        run("nczgen", &["-k", kind, "-o", &s(&store), &s(&cdl)]).success();
        stores.push(store);
    }
    let py = python_with_readers();
    if let Some(py) = &py {
        let [xr2, _] = crate::util::datasets::xarray_stores(py, d);
        stores.push(xr2);
    }
    for store in &stores {
        let (before, chunks_before) = (dump(store), chunks(store));
        // What xarray reads of it as version 3: what it reads of nczcopy's version 3
        // copy (a scalar a scalar, where NCZarr v2 stores a one-element array).
        let fresh = store.with_extension("v3.zarr");
        run("nczcopy", &["-k", "zarr3", &s(store), &s(&fresh)]).success();
        let reading = py.as_ref().map(|py| python_reading(py, &fresh));
        run("nczcopy", &["-k", "zarr3", "--in-place", &s(store)]).success();
        let name = store.display();
        assert!(
            run("zmapdump", &["format", &s(store)])
                .success()
                .stdout()
                .starts_with("Zarr version 3"),
            "{name}"
        );
        assert_eq!(dump(store), before, "{name}");
        assert_eq!(chunks(store), chunks_before, "{name}: chunks changed");
        assert!(!store.join(".zmetadata").exists(), "{name}");
        assert!(store.join(".zgroup").exists(), "{name}: v2 documents kept");
        if let (Some(py), Some(reading)) = (&py, reading) {
            let after = python_reading(py, store);
            assert!(after.starts_with("3\n"), "{name}: {after}");
            assert_eq!(after[2..], reading[2..], "{name}: xarray");
        }
        // A second migration: refused, nothing written.
        let e = run("nczcopy", &["-k", "zarr3", "--in-place", &s(store)]).fails_with_one_line(1);
        assert!(e.contains("version 3 metadata already"), "{e}");
    }
    // netcdf-c's own NCZarr: its ncdump still reads the version 2 documents.
    if let Some((theirs, url)) = crate::util::datasets::netcdf_c_nczarr(d) {
        let ncdump = || Command::new("ncdump").arg(&url).output().unwrap().stdout;
        let (before, ours) = (ncdump(), dump(&theirs));
        run("nczcopy", &["-k", "zarr3", "--in-place", &s(&theirs)]).success();
        assert_eq!(ncdump(), before);
        assert_eq!(dump(&theirs), ours);
    }
    // What is not a version 2 store in a directory: refused.
    let zip = d.join("a.zip");
    run("nczgen", &["-o", &s(&zip), &s(&cdl)]).success();
    let e = run("nczcopy", &["-k", "zarr3", "--in-place", &s(&zip)]).fails_with_one_line(1);
    assert!(e.contains("only in a directory or a bucket"), "{e}");
    let e = run("nczcopy", &["-k", "nczarr", "--in-place", &s(&zip)]).fails_with_one_line(1);
    assert!(e.contains("-k zarr3 --in-place"), "{e}");
}
