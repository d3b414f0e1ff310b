use std::path::Path;

use crate::util::icechunk::{ice, ice_python};
use crate::util::{python_with, run, s};

/// The netCDF4 Python (`NCZARR_PYTHON`) that compares two netCDF files' values.
fn same_values(a: &Path, b: &Path, what: &str) {
    if let Some(py) = python_with("netCDF4") {
        crate::util::assert_same_values(&py, a, b, what);
    }
}

#[test]
fn every_version_of_an_xarray_repository_reads_as_xarray_reads_it() {
    let Some(py) = ice_python("every_version_of_an_xarray_repository") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let ids = ice(&py, &["history", &s(d)]);
    let first = ids.split('"').nth(3).unwrap().to_string();
    let repo = d.join("hist.ice");
    for (fragment, nc) in [
        ("", "main.nc"),
        ("#branch=main", "main.nc"),
        ("#tag=v1", "v1.nc"),
        ("#branch=dev", "dev.nc"),
        (&format!("#snapshot={first}") as &str, "v1.nc"),
    ] {
        let name = format!("{}{fragment}", s(&repo));
        // nczcmp: equal to what xarray wrote of the same version.
        run("nczcmp", &["-N", &name, &s(&d.join(nc))]).success();
        // Copied out, netCDF4-python reads the same values.
        let out = d.join(format!("out{}.nc", fragment.len()));
        run("nczcopy", &["-O", &name, &s(&out)]).success();
        same_values(&out, &d.join(nc), &name);
    }
    // nczdump names the version in -k's detail and reads a file URL the same way.
    let url = format!("file://{}#tag=v1", s(&repo));
    run("nczcmp", &["-N", &url, &s(&d.join("v1.nc"))]).success();
    let format = run("zmapdump", &["format", &s(&repo)]).success().stdout();
    assert!(
        format.starts_with("Icechunk repository, branch main: Zarr version 3"),
        "{format}"
    );
    run("nczdump", &["-k", &s(&repo)]).stdout_is("icechunk\n");
}

#[test]
fn history_and_references_are_icechunks() {
    let Some(py) = ice_python("history_and_references_are_icechunks") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ice(&py, &["history", &s(d)]);
    let repo = s(&d.join("hist.ice"));
    let theirs = ice(&py, &["log", &repo]);
    let history = run("zmapdump", &["history", &repo]).success().stdout();
    let refs = run("zmapdump", &["refs", &repo]).success().stdout();
    // The same snapshots, newest first, each `id time message`.
    let ours: Vec<String> = history
        .lines()
        .map(|l| {
            let mut w = l.splitn(3, ' ');
            let id = w.next().unwrap();
            let time = w.next().unwrap();
            assert!(time.ends_with('Z') && time.len() == 20, "{l}");
            format!("{id} {}", w.next().unwrap())
        })
        .collect();
    let their_log: Vec<&str> = theirs
        .lines()
        .filter(|l| !l.starts_with("branch ") && !l.starts_with("tag "))
        .collect();
    assert_eq!(ours, their_log);
    let their_refs: Vec<String> = theirs
        .lines()
        .filter(|l| l.starts_with("branch ") || l.starts_with("tag "))
        .map(String::from)
        .collect();
    let our_refs: Vec<String> = refs
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(our_refs, their_refs);
    // A branch's own history.
    let dev = run("zmapdump", &["history", &format!("{repo}#branch=dev")])
        .success()
        .stdout();
    assert!(
        dev.lines()
            .next()
            .unwrap()
            .ends_with("precipitation on dev"),
        "{dev}"
    );
    assert_eq!(dev.lines().count(), 3, "{dev}");
    // zmapdump's keys of a repository are its Zarr keys.
    let keys = run("zmapdump", &["list", &repo]).success().stdout();
    assert!(
        keys.contains("  tas/zarr.json\n") && keys.contains("  tas/c/0/0/0\n"),
        "{keys}"
    );
    let e = run("zmapdump", &["history", &s(&d.join("main.nc"))]).fails_with_one_line(1);
    assert!(e.contains("not an Icechunk repository"), "{e}");
}

#[test]
fn versions_that_are_not_there_are_named_in_one_line() {
    let Some(py) = ice_python("versions_that_are_not_there") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    ice(&py, &["history", &s(tmp.path())]);
    let repo = s(&tmp.path().join("hist.ice"));
    for (fragment, says) in [
        ("#tag=v9", "no tag v9 in this Icechunk repository"),
        ("#branch=nope", "no branch nope in this Icechunk repository"),
        ("#snapshot=ABC", "snapshot 'ABC' is not a snapshot id"),
        (
            "#snapshot=0000000000000000000G",
            "no snapshot 0000000000000000000G in this Icechunk repository",
        ),
        ("#branch=dev&tag=v1", "name one version"),
        // A typo would read main: refused instead.
        (
            "#brnch=dev",
            "no fragment key #brnch= (did you mean #branch=?",
        ),
        ("#tags=v1", "did you mean #tag=?"),
        ("#snapshots=ABC", "did you mean #snapshot=?"),
        // icechunk-python's own word, and others a user might try.
        ("#snapshot_id=ABC", "takes no fragment key #snapshot_id="),
        ("#commit=ABC", "takes no fragment key #commit="),
    ] {
        let e = run("nczdump", &["-h", &format!("{repo}{fragment}")]).fails_with_one_line(1);
        assert!(e.contains(says), "{fragment}: {e}");
    }
}

#[test]
fn a_virtual_repository_reads_its_files_and_nothing_outside_its_containers() {
    let Some(py) = ice_python("a_virtual_repository") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ice(&py, &["virtual", &s(d)]);
    ice(&py, &["outside", &s(d)]);
    let repo = s(&d.join("virt.ice"));
    // VirtualiZarr adds `coordinates` and a calendar: the values are the files'.
    run("nczcmp", &["-d", "-N", &repo, &s(&d.join("joined.nc"))]).success();
    let out = d.join("copy.nc");
    run("nczcopy", &[&repo, &s(&out)]).success();
    same_values(&out, &d.join("joined.nc"), "virtual repository copied");
    // A chunk of a file outside the declared container is refused, naming both.
    let e = run("nczdump", &[&s(&d.join("outside.ice"))]).fails_with_one_line(1);
    assert!(
        e.contains("key 'v/c/0'")
            && e.contains("elsewhere/raw.bin")
            && e.contains("outside the repository's virtual chunk containers"),
        "{e}"
    );
    // Its metadata is read all the same.
    run("nczdump", &["-h", &s(&d.join("outside.ice"))]).success();
}
