//! What is at an output path survives every run (issue 38): anything that is not a
//! dataset is refused and left as it was; a dataset is replaced only by a complete
//! one; a run stopped by Ctrl-C, SIGTERM or SIGHUP removes its staging and ends by
//! that signal; what a `kill -9` left is removed by the next run writing there.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::util::{exe, run, RangeServer};

const SMALL_CDL: &str =
    "netcdf s {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 1, 2 ;\n}\n";

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

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
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

/// A dataset of 400 chunks of one variable, served over HTTP.
fn served_source(root: &Path) -> PathBuf {
    let values: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
    let cdl = root.join("big.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf big {{\ndimensions:\n\tn = 2000 ;\nvariables:\n\tint v(n) ;\n\t\tv:_ChunkSizes = 5 ;\ndata:\n v = {} ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let src = root.join("www/big.zarr");
    fs::create_dir_all(src.parent().unwrap()).unwrap();
    run(
        "nczgen",
        &["-o", &src.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    src
}

/// The staging a run of process `pid` keeps beside `target`.
fn staging_of(target: &Path, pid: u32) -> PathBuf {
    let name = target.file_name().unwrap().to_string_lossy();
    target.with_file_name(format!(".{name}.tmp-{pid}"))
}

/// Start `nczcopy [-k kind] url target` and wait until its staging beside `target`
/// appears (and it has written for a moment); the child and its staging.
fn copy_under_way(kind: Option<&str>, url: &str, target: &Path) -> (Child, PathBuf) {
    let mut child = Command::new(exe("nczcopy"))
        .args(["--quiet", "--overwrite"])
        .args(kind.map(|k| ["-k", k]).into_iter().flatten())
        .args([url, &target.to_string_lossy()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let staging = staging_of(target, child.id());
    let start = Instant::now();
    while !staging.exists() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "no staging {} appeared: {}",
                staging.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert!(child.try_wait().unwrap().is_none(), "nczcopy ended early");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    (child, staging)
}

/// Start `nczcopy [-k kind] url target`, wait for its staging to appear, send
/// `signal`, and check how it ended.
fn stop_a_copy(kind: Option<&str>, url: &str, target: &Path, signal: (&str, i32)) {
    let (child, staging) = copy_under_way(kind, url, target);
    let sent = Command::new("kill")
        .args(["-s", signal.0, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.signal(),
        Some(signal.1),
        "{signal:?}: {:?}, stderr: {err}",
        out.status
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("nczcopy: stopped by SIG{}", signal.0)),
        "{err}"
    );
    assert!(!staging.exists(), "{signal:?}: staging left behind");
}

#[test]
fn a_stopped_copy_leaves_the_old_dataset_and_nothing_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let src = served_source(root);
    // Chunks come slowly (the run stops at its next write), or not at all (the run is
    // blocked reading and its staging is removed for it).
    let slow = RangeServer::start_with_delay(
        src.parent().unwrap(),
        true,
        Arc::new(|path: &str| path.contains("/v/").then(|| Duration::from_millis(60))),
    );
    let stalled = RangeServer::start_with_delay(
        src.parent().unwrap(),
        true,
        Arc::new(|path: &str| path.contains("/v/").then(|| Duration::from_secs(600))),
    );
    let out_dir = root.join("out");
    fs::create_dir(&out_dir).unwrap();
    let target = out_dir.join("t.zarr");
    let cdl = root.join("s.cdl");
    fs::write(&cdl, SMALL_CDL).unwrap();
    run(
        "nczgen",
        &["-o", &target.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let before = run("nczdump", &[&target.to_string_lossy()]).stdout();
    for (server, signal) in [
        (&slow, ("INT", 2)),
        (&slow, ("TERM", 15)),
        (&slow, ("HUP", 1)),
        (&stalled, ("INT", 2)),
    ] {
        stop_a_copy(None, &format!("{}/big.zarr", server.url), &target, signal);
        assert_eq!(names_in(&out_dir), ["t.zarr"], "{signal:?}");
        assert_eq!(
            run("nczdump", &[&target.to_string_lossy()]).stdout(),
            before
        );
    }
}

#[test]
fn nczgen_stops_on_a_signal_while_it_waits_for_its_input() {
    let child = Command::new(exe("nczgen"))
        .args(["-o", "/nonexistent-dir/never.zarr"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(15), "{:?}", out.status);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("nczgen: stopped by SIGTERM"), "{err}");
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
fn a_stopped_or_killed_copy_into_a_netcdf_file_leaves_the_old_file() {
    for kind in ["classic", "nc4"] {
        stopped_or_killed_copy_into_a_file(kind);
    }
}

/// A copy into an existing netCDF file of `kind`, stopped by signals and killed: the
/// old file is left as it was.
fn stopped_or_killed_copy_into_a_file(kind: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let src = served_source(root);
    let slow = RangeServer::start_with_delay(
        src.parent().unwrap(),
        true,
        Arc::new(|path: &str| path.contains("/v/").then(|| Duration::from_millis(60))),
    );
    let out_dir = root.join("out");
    fs::create_dir(&out_dir).unwrap();
    let target = out_dir.join("t.nc");
    let cdl = root.join("s.cdl");
    fs::write(&cdl, SMALL_CDL).unwrap();
    run(
        "nczgen",
        &[
            "-k",
            kind,
            "-o",
            &target.to_string_lossy(),
            &cdl.to_string_lossy(),
        ],
    )
    .success();
    let before = fs::read(&target).unwrap();
    let url = format!("{}/big.zarr", slow.url);
    for signal in [("INT", 2), ("TERM", 15)] {
        stop_a_copy(Some(kind), &url, &target, signal);
        assert_eq!(names_in(&out_dir), ["t.nc"], "{signal:?}");
        assert_eq!(fs::read(&target).unwrap(), before, "{signal:?}");
    }
    // kill -9: the old file is intact; the staging it left goes with the next run.
    let (mut child, staging) = copy_under_way(Some(kind), &url, &target);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(fs::read(&target).unwrap(), before);
    assert!(staging.exists(), "kill -9 cannot clean up");
    run(
        "nczcopy",
        &[
            "-O",
            "-k",
            kind,
            &src.to_string_lossy(),
            &target.to_string_lossy(),
        ],
    )
    .success();
    assert_eq!(names_in(&out_dir), ["t.nc"]);
    let dumped = run("nczdump", &["-v", "v", &target.to_string_lossy()]).stdout();
    assert!(dumped.contains("1998, 1999 ;"), "{dumped}");
}
