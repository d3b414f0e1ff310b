//! nczrename on Zarr stores, in place: variables, dimensions (with their coordinate
//! variables) and groups renamed in ours (NCZarr, pure Zarr v2, v3), netcdf-c's own
//! NCZarr and xarray's consolidated v2 and v3 stores. xarray (through the consolidated
//! metadata and without), netcdf-c and our reader read a renamed store as they read a
//! fresh copy of the netCDF file renamed; every chunk keeps its bytes under its new
//! key; a rename stopped between moving the keys and writing the documents is
//! completed by the next run.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use super::stores::{read, tree};
use crate::util::peers::python_with_readers;
use crate::util::{data_dir, run, s};

const RENAMES: [&str; 10] = [
    "-v",
    "T,tas",
    "-d",
    "lon,longitude",
    "-v",
    "lon,longitude",
    "-g",
    "g,h",
    "-d",
    "time,t",
];

/// The chunks of a store (every file but the metadata documents), as a count of each
/// content: a rename moves them, it never writes one.
fn chunks(dir: &Path) -> BTreeMap<Vec<u8>, usize> {
    let mut out = BTreeMap::new();
    for (path, bytes) in tree(dir) {
        let name = path.rsplit('/').next().unwrap_or(&path);
        if !(name.starts_with('.') || name == "zarr.json") {
            *out.entry(bytes).or_insert(0) += 1;
        }
    }
    out
}

/// `data/nczatted/r4.cdl` as a netCDF-4 file in `dir`, and a copy of it given
/// [`RENAMES`] (nczrename on files is tested against ncrename): the input and the
/// expected result.
fn file_and_renamed(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let nc = dir.join("r4.nc");
    let cdl = data_dir().join("nczatted/r4.cdl");
    run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    let renamed = dir.join("renamed.nc");
    fs::copy(&nc, &renamed).unwrap();
    let mut args = vec!["-h"];
    args.extend(RENAMES);
    run("nczrename", &[&args[..], &[&s(&renamed)]].concat()).success();
    (nc, renamed)
}

/// nczdump of `store` without its first line (the name).
fn dump(store: &Path) -> String {
    let text = run("nczdump", &[&s(store)]).success().stdout();
    text.lines().skip(1).collect::<Vec<_>>().join("\n")
}

#[test]
fn zarr_stores_are_renamed_in_place_as_the_netcdf_file_is() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (nc, renamed_nc) = file_and_renamed(d);
    let mut args = vec!["-h"];
    args.extend(RENAMES);
    let renamed_s = s(&renamed_nc);
    let py = python_with_readers();
    for kind in ["nczarr", "zarr", "zarr3"] {
        let store = d.join(format!("{kind}.zarr"));
        let fresh = d.join(format!("{kind}-fresh.zarr"));
        run("nczcopy", &["-k", kind, &s(&nc), &s(&store)]).success();
        run("nczcopy", &["-k", kind, &renamed_s, &s(&fresh)]).success();
        let before = chunks(&store);
        let store_s = s(&store);
        run("nczrename", &[&args[..], &[&store_s]].concat()).success();
        assert_eq!(dump(&store), dump(&fresh), "{kind}");
        assert_eq!(chunks(&store), before, "{kind}: chunks rewritten");
        let files = tree(&store);
        assert!(
            files
                .keys()
                .all(|k| !k.starts_with("T/") && !k.starts_with("g/")),
            "{kind}: old keys left: {:?}",
            files.keys().collect::<Vec<_>>()
        );
        if let Some(py) = &py {
            assert_eq!(
                read(py, "vars", &store),
                read(py, "vars", &fresh),
                "{kind}: xarray"
            );
        }
    }
    // netcdf-c's own NCZarr (its 4.9.0 layout: records in .zgroup and .zarray) reads
    // our rename of it as it reads the renamed file.
    if let Some((_, url)) = crate::util::datasets::netcdf_c_nczarr(d) {
        let fixed_nc = d.join("fixed.nc");
        run("nczcopy", &[&url, &s(&fixed_nc)]).success();
        let fixed_s = s(&fixed_nc);
        run("nczrename", &[&args[..], &[&fixed_s]].concat()).success();
        run("nczrename", &[&args[..], &[&url]].concat()).success();
        let ncdump = |name: &str| {
            let out = Command::new("ncdump").arg(name).output().unwrap();
            assert!(out.status.success(), "ncdump {name}");
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .skip(1)
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(ncdump(&url), ncdump(&fixed_s), "netcdf-c's NCZarr");
    }
}

#[test]
fn xarray_stores_are_renamed_in_place() {
    let Some(py) = python_with_readers() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for store in crate::util::datasets::xarray_stores(&py, d) {
        let name = store.display();
        let before = read(&py, "vars", &store);
        run(
            "nczrename",
            &[
                "-v",
                "tas,air",
                "-d",
                "x,xx",
                "-d",
                "time,t",
                "-v",
                "time,t",
                &s(&store),
            ],
        )
        .success();
        let after = read(&py, "vars", &store);
        for how in ["consolidated", "listed"] {
            let (b, a) = (&before[how]["/"], &after[how]["/"]);
            assert_eq!(
                a["air"]["dims"],
                serde_json::json!(["t", "xx"]),
                "{name} {how}: {a}"
            );
            assert_eq!(a["air"]["values"], b["tas"]["values"], "{name} {how}");
            assert_eq!(a["t"]["values"], b["time"]["values"], "{name} {how}");
            assert_eq!(a["flag"]["dims"], serde_json::json!(["xx"]), "{name} {how}");
            assert!(
                a.get("tas").is_none() && a.get("time").is_none(),
                "{name} {how}: {a}"
            );
        }
    }
}

#[test]
fn a_rename_stopped_after_its_moves_is_completed_by_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let cdl = data_dir().join("nczatted/r4.cdl");
    let store = d.join("a.zarr");
    let done = d.join("done.zarr");
    for p in [&store, &done] {
        run("nczgen", &["-o", &s(p), &s(&cdl)]).success();
    }
    run("nczrename", &["-h", "-v", "T,tas", "-g", "g,h", &s(&done)]).success();
    // What the run recorded, and the state it left: the keys of one move copied (the
    // other's not yet), no document written. Readers see the store as it was.
    let (old, new) = (tree(&store), tree(&done));
    // `-v T,tas` renames T in every group, as ncrename does.
    let moves = [("T", "tas"), ("g", "h"), ("h/T", "h/tas")];
    let before_moves = |key: &str| -> String {
        moves
            .iter()
            .rev()
            .fold(key.to_string(), |k, (from, to)| match k.strip_prefix(to) {
                Some(rest) if rest.starts_with('/') => format!("{from}{rest}"),
                _ => k,
            })
    };
    let docs: Vec<serde_json::Value> = new
        .iter()
        .filter(|(k, _)| k.rsplit('/').next().is_some_and(|n| n.starts_with('.')))
        .filter_map(|(k, v)| {
            let o = &old[&before_moves(k)];
            (o != v).then(|| {
                serde_json::json!({
                    "key": k,
                    "old": String::from_utf8(o.clone()).unwrap(),
                    "new": String::from_utf8(v.clone()).unwrap(),
                })
            })
        })
        .collect();
    assert!(docs.len() >= 3, "{docs:?}");
    let record = serde_json::json!({
        "moves": moves.iter().map(|(f, t)| serde_json::json!({"from": f, "to": t})).collect::<Vec<_>>(),
        "docs": docs,
    });
    fs::create_dir_all(store.join(".nczcopy")).unwrap();
    fs::write(store.join(".nczcopy/append.json"), record.to_string()).unwrap();
    let copy = |from: &Path, to: &Path| {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap().flatten() {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    };
    copy(&store.join("T"), &store.join("tas"));
    let mut expected_before = run("nczdump", &[&s(&store)]).success().stdout();
    expected_before = expected_before.replace("netcdf a ", "netcdf x ");
    let original = d.join("x.zarr");
    run("nczgen", &["-o", &s(&original), &s(&cdl)]).success();
    assert_eq!(
        expected_before,
        run("nczdump", &[&s(&original)]).success().stdout()
    );
    run("nczatted", &["-h", "-a", "units,tas,o,c,m", &s(&store)]).success();
    assert!(!store.join(".nczcopy/append.json").exists());
    run("nczatted", &["-h", "-a", "units,tas,o,c,m", &s(&done)]).success();
    assert_eq!(dump(&store), dump(&done));
}

/// On S3, GCS and Azure a rename is the service's copies, then the documents, then
/// the old keys removed: the store dumps as the renamed file, and lists no old key.
#[test]
fn stores_in_the_cloud_are_renamed_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let (nc, renamed_nc) = file_and_renamed(tmp.path());
    let mut args = vec!["-h"];
    args.extend(RENAMES);
    let expected = dump(&renamed_nc);
    let check = |name: &str, list: String| {
        let keys: Vec<&str> = list
            .split_whitespace()
            .filter(|w| w.contains('/') || w.starts_with('.'))
            .collect();
        assert!(
            keys.iter()
                .all(|k| !k.starts_with("T/") && !k.starts_with("g/")),
            "{name}: old keys left: {keys:?}"
        );
    };
    let nc_s = s(&nc);
    if let Some(server) = crate::util::s3::server("nczrename on S3") {
        let env = server.keys();
        let url = server.url("r.zarr");
        server.run("nczcopy", &[&nc_s, &url], &env).success();
        server
            .run("nczrename", &[&args[..], &[&url]].concat(), &env)
            .success();
        let got = server.run("nczdump", &[&url], &env).success().stdout();
        assert_eq!(
            got.lines().skip(1).collect::<Vec<_>>().join("\n"),
            expected,
            "S3"
        );
        check(
            "S3",
            server
                .run("zmapdump", &["list", &url], &env)
                .success()
                .stdout(),
        );
    }
    for cloud in crate::util::clouds::clouds("nczrename on GCS and Azure") {
        let env = &cloud.env;
        let url = format!("{}#mode=nczarr", cloud.url("r.zarr"));
        cloud.run("nczcopy", &[&nc_s, &url], env).success();
        cloud
            .run("nczrename", &[&args[..], &[&url]].concat(), env)
            .success();
        let got = cloud.run("nczdump", &[&url], env).success().stdout();
        let kind = format!("{:?}", cloud.kind);
        assert_eq!(
            got.lines().skip(1).collect::<Vec<_>>().join("\n"),
            expected,
            "{kind}"
        );
        check(
            &kind,
            cloud
                .run("zmapdump", &["list", &url], env)
                .success()
                .stdout(),
        );
    }
}

/// An edited copy of a Zarr store (a second name), and a zip archive edited in place
/// (rewritten beside itself and renamed over it): each reads as the store edited in
/// place; the input of a copy is left as it was.
#[test]
fn an_edited_copy_and_a_zip_archive_read_as_the_store_edited_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let store = d.join("a.zarr");
    run(
        "nczgen",
        &["-o", &s(&store), &s(&data_dir().join("nczatted/r4.cdl"))],
    )
    .success();
    let zip = d.join("a.zip");
    run("nczcopy", &[&s(&store), &s(&zip)]).success();
    let before = tree(&store);
    let copy = d.join("b.zarr");
    let edits = ["-h", "-v", "T,tas", "-g", "g,h", "-d", "time,t"];
    run(
        "nczrename",
        &[&edits[..], &[&s(&store), &s(&copy)]].concat(),
    )
    .success();
    assert!(super::stores::changed(&before, &tree(&store)).is_empty());
    run("nczrename", &[&edits[..], &[&s(&zip)]].concat()).success();
    run("nczrename", &[&edits[..], &[&s(&store)]].concat()).success();
    assert_eq!(dump(&copy), dump(&store));
    assert_eq!(dump(&zip), dump(&store));
    // Refused without -O once the copy is there, as any output.
    let e = run(
        "nczrename",
        &[&edits[..], &[&s(&store), &s(&copy)]].concat(),
    )
    .fails_with_one_line(1);
    assert!(e.contains("-O") || e.contains("overwrite"), "{e}");
}

/// Names a Zarr store cannot hold as a node (netCDF's rule: a letter, a digit or '_'
/// first, else `.zarray` would be a document; v3's `zarr.json`) and renames that reuse a
/// name freed in the same run are refused, nothing written; a decomposed name is
/// written composed (NFC), as netcdf-c keeps names, so that netcdf-c finds it.
#[test]
fn bad_new_names_and_swaps_are_refused_and_names_are_composed() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("a.zarr");
    run(
        "nczgen",
        &["-o", &s(&store), &s(&data_dir().join("nczatted/r4.cdl"))],
    )
    .success();
    let before = tree(&store);
    let store_s = s(&store);
    for (args, says) in [
        (&["-v", "T,.zarray"][..], "does not start with a letter"),
        (&["-v", "T,-x"][..], "does not start with a letter"),
        (&["-v", "T,zarr.json"][..], "'zarr.json'"),
        (
            &["-v", "T,tmp", "-v", "n,T", "-v", "tmp,n"][..],
            "one at a time",
        ),
    ] {
        let e = run("nczrename", &[args, &[&store_s]].concat()).fails_with_one_line(1);
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(
            super::stores::changed(&before, &tree(&store)).is_empty(),
            "{args:?}"
        );
    }
    let decomposed = "te\u{301}st";
    run(
        "nczrename",
        &["-h", "-v", &format!("T,{decomposed}"), &store_s],
    )
    .success();
    assert!(tree(&store).keys().any(|k| k.starts_with("t\u{e9}st/")));
    let text = run("nczdump", &["-h", &store_s]).success().stdout();
    assert!(text.contains("float t\u{e9}st(time, lon)"), "{text}");
}
