//! Where a writing tool may write (issue 61): never inside another dataset, and over an
//! existing dataset only with `--overwrite` (`-O`, NCO's spelling). Each rule over
//! every writing tool (nczcopy, its `-k kerchunk` and `--append`, nczgen) and every
//! local target kind (directory, zip, netCDF file, reference file); the object stores'
//! are in `nczgen::s3` and `nczcopy::s3`. Every refusal is one line, exit 1, and leaves
//! every file as it was.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::outputs::CDL;
use crate::util::run;

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(p) = todo.pop() {
        for e in fs::read_dir(&p).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path.clone());
                out.push((path, Vec::new()));
            } else {
                let bytes = fs::read(&path).unwrap();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

struct Place {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Place {
    /// A directory holding `year.zarr` (NCZarr with a group), `year.nc`, `year.zip`,
    /// `refs.json` (references to year.nc) and the CDL.
    fn new() -> Place {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        fs::write(root.join("year.cdl"), CDL).unwrap();
        let at = |n: &str| root.join(n).to_string_lossy().into_owned();
        run("nczgen", &["-o", &at("year.zarr"), &at("year.cdl")]).success();
        run(
            "nczgen",
            &["-k", "nc4", "-o", &at("year.nc"), &at("year.cdl")],
        )
        .success();
        run("nczgen", &["-o", &at("year.zip"), &at("year.cdl")]).success();
        run(
            "nczcopy",
            &["-k", "kerchunk", &at("year.nc"), &at("refs.json")],
        )
        .success();
        Place { _tmp: tmp, root }
    }

    fn at(&self, name: &str) -> String {
        self.root.join(name).to_string_lossy().into_owned()
    }
}

#[test]
fn a_target_inside_a_dataset_is_refused_by_every_writing_tool() {
    let p = Place::new();
    let before = snapshot(&p.root);
    let (cdl, nc) = (p.at("year.cdl"), p.at("year.nc"));
    // (arguments, what the line names)
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["nczcopy".into(), nc.clone(), p.at("year.zarr/tas")],
            "its array 'tas'",
        ),
        (
            vec!["nczcopy".into(), nc.clone(), p.at("year.zarr/obs")],
            "its group 'obs'",
        ),
        (
            vec!["nczcopy".into(), nc.clone(), p.at("year.zarr/obs/n")],
            "its group 'obs'",
        ),
        (
            vec!["nczcopy".into(), nc.clone(), p.at("year.zarr/new.zarr")],
            "a new name 'new.zarr' inside it",
        ),
        (
            vec!["nczcopy".into(), nc.clone(), p.at("year.zarr/out.nc")],
            "a new name 'out.nc' inside it",
        ),
        (
            vec![
                "nczcopy".into(),
                "-O".into(),
                nc.clone(),
                p.at("year.zarr/tas"),
            ],
            "its array 'tas'",
        ),
        (
            vec!["nczcopy".into(), p.at("year.zarr"), p.at("year.nc/x.zarr")],
            "a netCDF file, not a directory",
        ),
        (
            vec!["nczcopy".into(), nc.clone(), p.at("year.zip/x.zarr")],
            "a zip archive, not a directory",
        ),
        (
            vec![
                "nczgen".into(),
                "-o".into(),
                p.at("year.zarr/time"),
                cdl.clone(),
            ],
            "its array 'time'",
        ),
        (
            vec![
                "nczgen".into(),
                "-k".into(),
                "nc4".into(),
                "-o".into(),
                p.at("year.zarr/obs/x.nc"),
                cdl.clone(),
            ],
            "its group 'obs'",
        ),
        (
            vec![
                "nczcopy".into(),
                "-k".into(),
                "kerchunk".into(),
                nc.clone(),
                p.at("year.zarr/refs.json"),
            ],
            "a new name 'refs.json' inside it",
        ),
        (
            vec![
                "nczcopy".into(),
                "--append".into(),
                nc.clone(),
                p.at("year.zarr/tas"),
            ],
            "its array 'tas'",
        ),
    ];
    for (args, what) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let e = run(a[0], &a[1..]).fails_with_one_line(1);
        let target = a.last().unwrap();
        let target = if a[0] == "nczgen" {
            a[a.len() - 2]
        } else {
            target
        };
        let inner = if target.contains("year.nc/") {
            "year.nc"
        } else if target.contains("year.zip/") {
            "year.zip"
        } else {
            "year.zarr"
        };
        assert!(
            e.starts_with(&format!("{}: {target}: inside the dataset ", a[0]))
                && e.contains(&format!("{inner} ({what})")),
            "{a:?}: {e}"
        );
        assert_eq!(snapshot(&p.root), before, "{a:?} changed something");
    }
    // Relative names are named relatively; `..` leads out.
    let e = crate::util::run_in("nczcopy", &p.root, &["year.nc", "year.zarr/tas"])
        .fails_with_one_line(1);
    assert_eq!(
        e,
        "nczcopy: year.zarr/tas: inside the dataset year.zarr (its array 'tas'); a new dataset is never written into another: nothing was written (choose a name outside it)"
    );
    crate::util::run_in("nczcopy", &p.root, &["year.nc", "year.zarr/../beside.zarr"]).success();
    assert!(p.root.join("beside.zarr/.zgroup").exists());
}

#[test]
fn an_existing_dataset_is_replaced_only_with_overwrite() {
    let p = Place::new();
    fs::write(
        p.root.join("small.cdl"),
        "netcdf small {\ndimensions:\n\tx = 3 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 7, 8, 9 ;\n}\n",
    )
    .unwrap();
    let small = p.at("small.cdl");
    let small_nc = p.at("small.nc");
    run("nczgen", &["-o", &small_nc, &small]).success();
    let before = snapshot(&p.root);
    let grow = "--append adds to it, --overwrite replaces it";
    let replace = "--overwrite replaces it";
    // (tool and arguments but the flag, target, ways on)
    let cases: Vec<(Vec<String>, String, &str)> = vec![
        (
            vec!["nczcopy".into(), small_nc.clone()],
            p.at("year.zarr"),
            grow,
        ),
        (
            vec!["nczcopy".into(), small_nc.clone()],
            p.at("year.zip"),
            replace,
        ),
        (
            vec!["nczcopy".into(), small_nc.clone()],
            p.at("year.nc"),
            replace,
        ),
        (
            vec![
                "nczcopy".into(),
                "-k".into(),
                "classic".into(),
                small_nc.clone(),
            ],
            p.at("year.nc"),
            replace,
        ),
        (
            vec![
                "nczcopy".into(),
                "-k".into(),
                "kerchunk".into(),
                small_nc.clone(),
            ],
            p.at("refs.json"),
            replace,
        ),
        (
            vec!["nczgen".into(), small.clone(), "-o".into()],
            p.at("year.zarr"),
            replace,
        ),
        (
            vec!["nczgen".into(), small.clone(), "-o".into()],
            p.at("year.zip"),
            replace,
        ),
        (
            vec!["nczgen".into(), small.clone(), "-o".into()],
            p.at("year.nc"),
            replace,
        ),
    ];
    for (args, target, ways) in &cases {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.push(target);
        let e = run(a[0], &a[1..]).fails_with_one_line(1);
        // Kerchunk's pure Zarr has no unlimited dimension: its first ones are named.
        let what = if target.ends_with(".json") {
            "time = 3, x = 2"
        } else {
            "time = 3"
        };
        assert_eq!(
            e,
            format!(
                "{}: {target}: a dataset already exists ({what}); nothing was written: {ways}",
                a[0]
            ),
            "{a:?}"
        );
        assert_eq!(snapshot(&p.root), before, "{a:?} changed something");
    }
    // With the flag, in either spelling, each replaces its target.
    for (i, (args, target, _)) in cases.iter().enumerate() {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.insert(1, ["-O", "--overwrite"][i % 2]);
        a.push(target);
        run(a[0], &a[1..]).success();
        let dump = run("nczdump", &[target]).stdout();
        assert!(dump.contains("v = 7, 8, 9 ;"), "{a:?}: {dump}");
    }
    // nccopy's and ncgen's replace without asking; ours says so in the docs.
    let docs = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/nczcopy.md")).unwrap();
    assert!(docs.contains("--overwrite"), "docs/nczcopy.md");
}
