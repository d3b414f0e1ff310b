//! What is at an output path survives every writing tool's run (issue 38): anything
//! that is not a dataset is refused and left as it was; a dataset is replaced only by a
//! complete one, when asked (on GCS and Azure too); what a `kill -9` left is removed by
//! the next run writing there; a full disk is one line for every output kind. The
//! stopped runs of one tool are with it (`nczcopy::runs`, `nczgen::stream`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::clouds::{clouds, renamed};
use crate::util::outputs::{names_in, SMALL_CDL};
use crate::util::{data_dir, run};

/// Every file and directory under `dir`, with the bytes of each file: what a user
/// would miss.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(p) = todo.pop() {
        for e in fs::read_dir(&p).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                out.push((path.clone(), None));
                todo.push(path);
            } else {
                out.push((path.clone(), Some(fs::read(&path).unwrap())));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn foreign_outputs_are_refused_and_left_as_they_were() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let cdl = root.join("s.cdl");
    fs::write(&cdl, SMALL_CDL).unwrap();
    let input = root.join("in.zarr");
    run(
        "nczgen",
        &["-o", &input.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();

    fs::create_dir_all(root.join("mydocs/chapters")).unwrap();
    fs::write(root.join("mydocs/thesis.txt"), "four years").unwrap();
    fs::write(root.join("mydocs/chapters/1.tex"), "intro").unwrap();
    fs::create_dir(root.join("data")).unwrap();
    fs::write(root.join("data/obs.csv"), "1,2").unwrap();
    fs::write(root.join("notes.txt"), "remember").unwrap();
    fs::write(root.join("junk.zip"), "not a zip").unwrap();
    // A dataset that also holds a file of the user's: replacing it would lose the file.
    run(
        "nczgen",
        &[
            "-o",
            &root.join("mixed.zarr").to_string_lossy(),
            &cdl.to_string_lossy(),
        ],
    )
    .success();
    fs::write(root.join("mixed.zarr/README"), "mine").unwrap();
    let before = snapshot(root);

    let cases: &[(&str, &str)] = &[
        ("mydocs", "is not a Zarr or NCZarr dataset (it holds "),
        (
            "data/",
            "is not a Zarr or NCZarr dataset (it holds 'obs.csv')",
        ),
        ("notes.txt", "is a file (8 bytes), not a dataset directory"),
        ("junk.zip", "is not a zip archive (a file of 9 bytes)"),
        (
            "mixed.zarr",
            "holds a dataset and also 'README', which is not part of it",
        ),
    ];
    for (target, what) in cases {
        let out = root.join(target).to_string_lossy().into_owned();
        for args in [
            vec!["nczcopy", input.to_str().unwrap(), &out],
            vec!["nczcopy", "--overwrite", input.to_str().unwrap(), &out],
            vec!["nczgen", "-o", &out, cdl.to_str().unwrap()],
        ] {
            let err = run(args[0], &args[1..]).fails_with_one_line(1);
            assert!(err.contains(what), "{args:?}: {err}");
            assert!(err.contains("nothing was written"), "{err}");
        }
    }
    assert_eq!(snapshot(root), before, "something was changed");
}

/// A dataset, or an empty directory, at the output is replaced when asked
/// (`--overwrite`, `-O`); without it, the run writes nothing and says what is there.
#[test]
fn datasets_and_empty_directories_are_replaced_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let cdl = root.join("s.cdl");
    fs::write(&cdl, SMALL_CDL).unwrap();
    let other = root.join("o.cdl");
    fs::write(
        &other,
        "netcdf o {\nvariables:\n\tdouble w ;\ndata:\n w = 2.5 ;\n}\n",
    )
    .unwrap();
    fs::create_dir(root.join("empty.zarr")).unwrap();
    for target in ["d.zarr", "empty.zarr", "d.zip"] {
        let out = root.join(target).to_string_lossy().into_owned();
        for (i, cdl) in [&cdl, &other, &cdl].into_iter().enumerate() {
            let cdl = cdl.to_string_lossy();
            let mut args = vec!["-o", &out, &cdl];
            if i > 0 {
                args.insert(0, ["-O", "--overwrite"][i - 1]);
            }
            run("nczgen", &args).success();
        }
        let before = run("nczdump", &[&out]).stdout();
        let e = run("nczgen", &["-o", &out, &other.to_string_lossy()]).fails_with_one_line(1);
        assert!(
            e.ends_with(
                "a dataset already exists (x = 2); nothing was written: --overwrite replaces it"
            ),
            "{e}"
        );
        let input = root.join("d.zarr").to_string_lossy().into_owned();
        if target != "d.zarr" {
            let e = run("nczcopy", &[&input, &out]).fails_with_one_line(1);
            let ways = if target == "d.zip" {
                "--overwrite replaces it"
            } else {
                "--append adds to it, --overwrite replaces it"
            };
            assert!(
                e.ends_with(&format!(
                    "a dataset already exists (x = 2); nothing was written: {ways}"
                )),
                "{e}"
            );
            run("nczcopy", &["-O", &input, &out]).success();
        }
        assert_eq!(run("nczdump", &[&out]).stdout(), before);
        let dump = run("nczdump", &[&out]).stdout();
        assert!(
            dump.contains(" v = 1, 2 ;") && !dump.contains(" w ="),
            "{dump}"
        );
    }
    assert_eq!(
        names_in(root),
        ["d.zarr", "d.zip", "empty.zarr", "o.cdl", "s.cdl"]
    );
}

#[test]
fn what_killed_runs_left_is_removed_by_the_next_write_there() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let cdl = root.join("s.cdl");
    fs::write(&cdl, SMALL_CDL).unwrap();
    // A process that is gone: above Linux's largest pid.
    let dead = 4_194_304 + 99;
    fs::create_dir_all(root.join(format!(".other.zarr.tmp-{dead}/v"))).unwrap();
    fs::write(root.join(format!(".other.zarr.tmp-{dead}/v/0")), [0u8; 64]).unwrap();
    fs::write(root.join(format!(".x.zip.tmp-{dead}")), [0u8; 64]).unwrap();
    // A staging of a run still going (this test's own process) stays.
    let alive = format!(".other.zarr.tmp-{}", std::process::id());
    fs::create_dir(root.join(&alive)).unwrap();
    run(
        "nczgen",
        &[
            "-o",
            &root.join("new.zarr").to_string_lossy(),
            &cdl.to_string_lossy(),
        ],
    )
    .success();
    assert_eq!(names_in(root), [alive.as_str(), "new.zarr", "s.cdl"]);
}

/// A small file system to fill, where this test may mount one (as root); `None` says
/// why not.
struct TinyFs {
    dir: tempfile::TempDir,
}

impl TinyFs {
    fn mount(bytes: u64) -> Result<TinyFs, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            Ok(TinyFs { dir })
        } else {
            Err("cannot mount a tmpfs here (not root?)".into())
        }
    }
}

impl Drop for TinyFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_disk_is_one_line_for_every_output_kind() {
    let fs_ = match TinyFs::mount(256 << 10) {
        Ok(f) => f,
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("{why}"),
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..200_000).map(|i| i.to_string()).collect();
    let cdl = tmp.path().join("big.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf big {{\ndimensions:\n\tn = 200000 ;\nvariables:\n\tint v(n) ;\ndata:\n v = {} ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    for (name, kind) in [
        ("x.zip", None),
        ("x.zarr", None),
        ("x.nc", None),
        ("y.nc", Some("nc4")),
    ] {
        let out = fs_.dir.path().join(name);
        let mut args = kind.map_or(vec![], |k| vec!["-k", k]);
        let (out_s, cdl_s) = (out.to_string_lossy(), cdl.to_string_lossy());
        args.extend(["-o", &out_s, &cdl_s]);
        let err = run("nczgen", &args).fails_with_one_line(1);
        assert!(err.contains("No space left on device"), "{err}");
        assert!(names_in(fs_.dir.path()).is_empty(), "left behind");
    }
}

#[test]
fn existing_datasets_are_not_overwritten_on_gcs_and_azure() {
    let cdl = data_dir().join("golden/cases").join("coords.cdl");
    let other = data_dir().join("golden/cases").join("scalars.cdl");
    for cloud in clouds("safe") {
        let url = cloud.url("s.zarr");
        cloud
            .run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &cloud.env)
            .success();
        let before = cloud.run("nczdump", &[&url], &cloud.env).stdout();
        let e = cloud
            .run(
                "nczgen",
                &["-o", &url, &other.to_string_lossy()],
                &cloud.env,
            )
            .fails_with_one_line(1);
        assert!(
            e.ends_with("a dataset already exists (lat = 4, lon = 5, level = 2); nothing was written: --overwrite replaces it"),
            "{e}"
        );
        assert_eq!(cloud.run("nczdump", &[&url], &cloud.env).stdout(), before);
        // A key inside it is refused, naming it.
        let inner = cloud.url("s.zarr/lat");
        let e = cloud
            .run(
                "nczgen",
                &["-O", "-o", &inner, &other.to_string_lossy()],
                &cloud.env,
            )
            .fails_with_one_line(1);
        assert!(
            e.contains(": inside the dataset ") && e.contains("/s.zarr ('lat' inside it)"),
            "{e}"
        );
        // nczcopy --overwrite replaces it.
        let src = cloud.url("src.zarr");
        cloud
            .run(
                "nczgen",
                &["-o", &src, &other.to_string_lossy()],
                &cloud.env,
            )
            .success();
        cloud
            .run("nczcopy", &["--overwrite", &src, &url], &cloud.env)
            .success();
        let after = cloud.run("nczdump", &[&url], &cloud.env).stdout();
        let want = cloud.run("nczdump", &[&src], &cloud.env).stdout();
        assert_eq!(after, renamed(&want, &after), "{:?}", cloud.kind);
    }
}
