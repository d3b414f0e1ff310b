//! nczatted on Zarr stores, in place: ours (NCZarr, pure Zarr v2, Zarr v3) and
//! xarray's consolidated v2 and v3; xarray and netCDF4-python read the edits, no chunk
//! is written (only the attribute documents and the consolidated metadata change), a
//! refused edit changes nothing, and an edit stopped after its record is completed by
//! the next run.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::peers::python_with_readers;
use crate::util::{data_dir, run, s};

/// Every file under `dir`, by its path below it.
pub(super) fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The files that differ between two trees.
pub(super) fn changed(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    a.keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// `stores.py WHAT STORE`'s JSON.
pub(super) fn read(py: &str, what: &str, store: &Path) -> serde_json::Value {
    let out = Command::new(py)
        .arg(data_dir().join("nczatted/stores.py"))
        .args([what, &s(store)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stores.py {what} {}: {}",
        store.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const EDITS: [&str; 8] = [
    "-a",
    "units,tas,o,c,degC",
    "-a",
    "title,global,a,c, (edited)",
    "-a",
    "meaning,flag,d,,",
    "-a",
    "n,flag,o,s,7",
];

#[test]
fn zarr_stores_get_their_attribute_documents_only_and_readers_see_the_edits() {
    let Some(py) = python_with_readers() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let made = Command::new(&py)
        .arg(data_dir().join("nczatted/stores.py"))
        .args(["make", &s(d)])
        .status()
        .unwrap();
    assert!(made.success());
    // Ours, from the same dataset as CDL.
    let xr2 = d.join("xr2.zarr");
    let cdl = d.join("x.cdl");
    fs::write(
        &cdl,
        run("nczdump", &[&s(&xr2)])
            .success()
            .stdout()
            .replace("netcdf xr2", "netcdf x"),
    )
    .unwrap();
    let mut stores = vec![("xr2", xr2.clone()), ("xr3", d.join("xr3.zarr"))];
    for kind in ["nczarr", "zarr", "zarr3"] {
        let store = d.join(format!("{kind}.zarr"));
        run("nczgen", &["-k", kind, "-o", &s(&store), &s(&cdl)]).success();
        stores.push((kind, store));
    }
    for (kind, store) in &stores {
        let before_tree = tree(store);
        let before = read(&py, "attrs", store);
        let mut args: Vec<&str> = EDITS.to_vec();
        let store_s = s(store);
        args.push(&store_s);
        run("nczatted", &args).success();
        let after = read(&py, "attrs", store);
        // xarray reads the edits, and the values as before.
        assert_eq!(after["tas"]["attrs"]["units"], "degC", "{kind}: {after}");
        assert!(
            after["global"]["title"]
                .as_str()
                .unwrap()
                .ends_with(" (edited)"),
            "{kind}: {after}"
        );
        assert!(
            after["flag"]["attrs"].get("meaning").is_none(),
            "{kind}: {after}"
        );
        assert_eq!(after["flag"]["attrs"]["n"], 7, "{kind}: {after}");
        assert!(
            after["global"]["history"]
                .as_str()
                .unwrap()
                .contains(": nczatted -a units,tas,o,c,degC"),
            "{kind}: {after}"
        );
        for var in ["tas", "flag", "time"] {
            assert_eq!(after[var]["values"], before[var]["values"], "{kind} {var}");
        }
        assert_eq!(
            after["tas"]["attrs"]["long_name"], before["tas"]["attrs"]["long_name"],
            "{kind}"
        );
        // Only attribute documents and consolidated metadata were written.
        for file in changed(&before_tree, &tree(store)) {
            let name = file.rsplit('/').next().unwrap_or(&file);
            assert!(
                [".zattrs", ".zmetadata", "zarr.json"].contains(&name),
                "{kind}: {file} changed"
            );
        }
    }
    // NCZarr keeps the types: a short stays a short for netCDF4-python.
    let nc = read(&py, "nc", &d.join("nczarr.zarr"));
    assert_eq!(nc["flag"]["n"], serde_json::json!([7, "int16"]), "{nc}");
    assert_eq!(nc["tas"]["units"][0], "degC", "{nc}");
}

#[test]
fn refused_edits_change_nothing_and_a_stopped_edit_is_completed() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("nczatted/a.cdl");
    let store = tmp.path().join("a.zarr");
    run("nczgen", &["-o", &s(&store), &s(&cdl)]).success();
    let before = tree(&store);
    let store_s = s(&store);
    for (edits, says) in [
        (
            &["units,nope,o,c,x"][..],
            "no variable or group named 'nope'",
        ),
        (
            &["_FillValue,T,o,f,1"][..],
            "_FillValue is also its fill_value",
        ),
        (&["_nczarr_attr,T,o,c,x"][..], "keeps for itself"),
        (&["units,T,o,c,m", "x,T,o,i,1.5"][..], "'1.5' is not an int"),
    ] {
        let mut args = Vec::new();
        for e in edits {
            args.extend(["-a", *e]);
        }
        args.push(&store_s);
        let e = run("nczatted", &args).fails_with_one_line(1);
        assert!(e.contains(says), "{edits:?}: {e}");
        assert!(changed(&before, &tree(&store)).is_empty(), "{edits:?}");
    }
    // An array of the store named alone: editing it would leave the store's
    // consolidated metadata stale, so it is refused (as is a migration of it).
    let inside = s(&store.join("T"));
    let e = run("nczatted", &["-h", "-a", "units,T,o,c,m", &inside]).fails_with_one_line(1);
    assert!(e.contains("a part of the dataset"), "{e}");
    let e = run("nczcopy", &["-k", "zarr3", "--in-place", &inside]).fails_with_one_line(1);
    assert!(e.contains("a part of the dataset"), "{e}");
    assert!(changed(&before, &tree(&store)).is_empty(), "inside");
    // A run stopped after recording its documents (as a kill would leave it): the
    // next run completes that step, then makes its own edit.
    let docs: Vec<serde_json::Value> = [".zattrs", ".zmetadata"]
        .iter()
        .map(|key| {
            let old = fs::read_to_string(store.join(key)).unwrap();
            // Recorded as the consolidated metadata held it, spaced otherwise than the
            // store's document: the same document still.
            let old_compact = serde_json::from_str::<serde_json::Value>(&old)
                .unwrap()
                .to_string();
            assert_ne!(old_compact, old);
            let new = old.replacen(
                "\"title\": \"attribute edits\"",
                "\"title\": \"stopped\"",
                1,
            );
            assert_ne!(new, old, "{key}");
            serde_json::json!({"key": key, "old": old_compact, "new": new})
        })
        .collect();
    let record = serde_json::json!({ "docs": docs });
    fs::create_dir_all(store.join(".nczcopy")).unwrap();
    fs::write(store.join(".nczcopy/append.json"), record.to_string()).unwrap();
    run("nczatted", &["-h", "-a", "units,T,o,c,m", &store_s]).success();
    let dump = run("nczdump", &["-h", &store_s]).success().stdout();
    assert!(
        dump.contains(":title = \"stopped\"") && dump.contains("T:units = \"m\""),
        "{dump}"
    );
    assert!(!store.join(".nczcopy/append.json").exists());
}

/// A store with consolidated metadata is edited as it was read, from the
/// consolidated copy (as xarray and zarr-python read it; no second request for the
/// document): a document changed behind that copy's back is written as the copy has
/// it, the edit made, and the two agree again.
#[test]
fn a_consolidated_store_is_edited_as_read() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("a.zarr");
    run(
        "nczgen",
        &["-o", &s(&store), &s(&data_dir().join("nczatted/a.cdl"))],
    )
    .success();
    let doc = store.join("T/.zattrs");
    let mut behind: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&doc).unwrap()).unwrap();
    behind["behind"] = serde_json::json!("not in .zmetadata");
    fs::write(&doc, behind.to_string()).unwrap();
    run("nczatted", &["-h", "-a", "units,T,o,c,m", &s(&store)]).success();
    let written: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&doc).unwrap()).unwrap();
    let consolidated: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(store.join(".zmetadata")).unwrap()).unwrap();
    assert_eq!(written, consolidated["metadata"]["T/.zattrs"]);
    assert_eq!(written["units"], "m");
    assert!(written.get("behind").is_none(), "{written}");
}

/// `data/nczatted/a.cdl` as a netCDF-4 file in `dir`, and an Icechunk repository copied
/// from it.
fn netcdf_and_repository(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let nc = dir.join("a.nc");
    let cdl = data_dir().join("nczatted/a.cdl");
    run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    let repo = dir.join("a.ice");
    run("nczcopy", &["-k", "icechunk", &s(&nc), &s(&repo)]).success();
    (nc, repo)
}

/// An Icechunk repository's branch gets the edit as one snapshot, which
/// icechunk-python and xarray read as the same edit made to the netCDF file.
#[test]
fn an_icechunk_repository_is_edited_in_one_snapshot() {
    let Some(py) = crate::util::icechunk::ice_python("an_icechunk_repository_is_edited") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (nc, repo) = netcdf_and_repository(tmp.path());
    let edits = [
        "-h",
        "-a",
        "units,T,o,c,degC",
        "-a",
        "title,global,a,c,!",
        "-a",
        "flags,n,d,,",
    ];
    for target in [&repo, &nc] {
        let mut args = edits.to_vec();
        let t = s(target);
        args.push(&t);
        run("nczatted", &args).success();
    }
    crate::util::icechunk::assert_reads_as(&py, &repo, "branch:main", &nc);
    let history = run("zmapdump", &["history", &s(&repo)]).success().stdout();
    assert_eq!(history.lines().count(), 3, "{history}");
    assert!(
        history
            .lines()
            .next()
            .unwrap()
            .contains("nczatted -h -a units,T,o,c,degC"),
        "{history}"
    );
    // A tag is a version, not a branch: not edited.
    run(
        "nczcopy",
        &["-O", "-k", "icechunk", "--tag", "v1", &s(&nc), &s(&repo)],
    )
    .success();
    let tagged = format!("{}#tag=v1", s(&repo));
    let e = run("nczatted", &["-a", "x,T,o,c,y", &tagged]).fails_with_one_line(1);
    assert!(e.contains("cannot be written"), "{e}");
}

/// Renames in an Icechunk repository: variables (a coordinate with its dimension) moved
/// by Icechunk itself, no chunk read or written, the documents that hold the names
/// changed, all in one snapshot; icechunk-python and xarray read it as the same renames
/// made to the netCDF file.
#[test]
fn an_icechunk_repository_gets_renames_in_one_snapshot() {
    let Some(py) = crate::util::icechunk::ice_python("an_icechunk_repository_gets_renames") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (nc, repo) = netcdf_and_repository(tmp.path());
    let renames = [
        "-h",
        "-v",
        "T,tas",
        "-d",
        "time,t",
        "-v",
        "time,t",
        "-a",
        "tas@units,units_",
    ];
    for target in [&repo, &nc] {
        let mut args = renames.to_vec();
        let t = s(target);
        args.push(&t);
        run("nczrename", &args).success();
    }
    crate::util::icechunk::assert_reads_as(&py, &repo, "branch:main", &nc);
    let history = run("zmapdump", &["history", &s(&repo)]).success().stdout();
    assert_eq!(history.lines().count(), 3, "{history}");
    // A variable alone: one move, no document changed.
    for target in [&repo, &nc] {
        run("nczrename", &["-h", "-v", "sub,sub2", &s(target)]).success();
    }
    crate::util::icechunk::assert_reads_as(&py, &repo, "branch:main", &nc);
    // A name taken: refused, nothing committed.
    let e = run("nczrename", &["-v", "tas,n", &s(&repo)]).fails_with_one_line(1);
    assert!(e.contains("already has a variable 'n'"), "{e}");
    let after = run("zmapdump", &["history", &s(&repo)]).success().stdout();
    assert_eq!(after.lines().count(), 4, "{after}");
}
