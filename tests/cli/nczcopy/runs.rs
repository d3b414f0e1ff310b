//! nczcopy as a process: memory bounded by the budget on a variable larger than it,
//! killed and stopped copies (the old dataset or netCDF file left as it was), and copies
//! in parts made by separate processes.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::util::copies::{copy, dump, SUBSET_CDL};
use crate::util::outputs::{names_in, SMALL_CDL};
use crate::util::{exe, path_str, run, run_in, RangeServer, TempStore};

/// The most memory a process used (VmHWM), polled until it exits.
fn run_measuring_rss(args: &[&str]) -> (bool, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nczcopy"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(s) = fs::read_to_string(&status_file) {
            for line in s.lines() {
                if let Some(v) = line.strip_prefix("VmHWM:") {
                    let kb: u64 = v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                    peak = peak.max(kb * 1024);
                }
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status.success(), peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A float variable of `rows` x 4096 in uncompressed chunks of 64 rows.
fn big_store(rows: u64) -> TempStore {
    let s = TempStore::new("big.zarr");
    s.put(".zgroup", r#"{"zarr_format": 2}"#);
    s.put(".zattrs", format!(r#"{{"_nczarr_group": {{"dimensions": {{"y": {rows}, "x": 4096}}, "arrays": ["v"], "groups": []}}, "_nczarr_superblock": {{"version": "2.0.0"}}, "_nczarr_attr": {{"types": {{"_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}}}}"#));
    s.put("v/.zarray", format!(r#"{{"zarr_format": 2, "shape": [{rows}, 4096], "dtype": "<f4", "chunks": [64, 4096], "fill_value": null, "order": "C", "compressor": null, "filters": null}}"#));
    s.put("v/.zattrs", r#"{"_nczarr_array": {"dimension_references": ["/y", "/x"], "storage": "chunked"}, "_nczarr_attr": {"types": {"_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}"#);
    for c in 0..rows / 64 {
        let chunk: Vec<u8> = (0..64 * 4096u64)
            .flat_map(|i| ((c * 64 * 4096 + i) as f32).to_le_bytes())
            .collect();
        s.put(&format!("v/{c}.0"), chunk);
    }
    s
}

#[test]
fn memory_stays_under_the_budget_on_a_variable_larger_than_it() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc to measure memory");
        return;
    }
    // 128 MiB of values, copied with 32 MiB: rechunked into columns, compressed.
    let input = big_store(8192);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("cols.zarr");
    let (ok, peak) = run_measuring_rss(&[
        "--memory",
        "32M",
        "-c",
        "v:8192,64",
        "-d",
        "1",
        &input.path_str(),
        &path_str(&out),
    ]);
    assert!(ok);
    // The budget, plus the program and its thread stacks.
    assert!(peak < (32 + 48) << 20, "peak RSS {} MiB", peak >> 20);
    // Back to the input's chunks, uncompressed: the same chunk files, byte for byte
    // (cheaper than dumping 32 million values as text).
    let back = tmp.path().join("rows.zarr");
    copy(&[
        "-c",
        "v:64,4096",
        "-d",
        "0",
        &path_str(&out),
        &path_str(&back),
    ]);
    for c in 0..8192 / 64 {
        let key = format!("v/{c}.0");
        assert!(
            fs::read(back.join(&key)).unwrap() == fs::read(input.path().join(&key)).unwrap(),
            "{key} differs"
        );
    }
}

#[test]
fn a_killed_copy_leaves_the_target_as_it_was_and_the_next_run_cleans_up() {
    let input = big_store(4096);
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("t.zarr");
    let old = TempStore::nczarr_sample("old.zarr");
    copy(&[&old.path_str(), &path_str(&target)]);
    let before = dump(&["-n", "x", &path_str(&target)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_nczcopy"))
        .args([
            "--overwrite",
            "-d",
            "9",
            "--memory",
            "8M",
            &input.path_str(),
            &path_str(&target),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it has written something beside the target.
    let started = Instant::now();
    let staged = || {
        fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".t.zarr.tmp-"))
    };
    while !staged() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(dump(&["-n", "x", &path_str(&target)]), before);
    // The next run to the same target removes what the killed one left.
    copy(&["-O", &old.path_str(), &path_str(&target)]);
    let left: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["t.zarr"]);
}

#[test]
fn four_parts_in_separate_processes_make_the_one_process_copy() {
    for format in [None, Some("zarr3")] {
        four_parts(format);
    }
}

/// A copy in four parts (each its own process) against the one-process copy, in
/// Zarr v2 (`format` `None`) or the given `-k` format: same values, and the same
/// opening documents (`.zmetadata` and `.zgroup`, or `zarr.json`).
fn four_parts(format: Option<&str>) {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("s.cdl");
    fs::write(&cdl, SUBSET_CDL).unwrap();
    let input = tmp.path().join("in.zarr");
    run("nczgen", &["-o", &path_str(&input), &path_str(&cdl)]).success();
    let one = tmp.path().join("one.zarr");
    // One value per chunk: 22 chunks to share out.
    let mut flags = vec!["-c", "time/1,lat/1,station/1", "-M", "0", "--memory", "1M"];
    if let Some(f) = format {
        flags.extend(["-k", f]);
    }
    let args = |extra: &[&str], out: &Path| {
        let mut a: Vec<String> = extra.iter().map(|s| (*s).to_string()).collect();
        a.extend(flags.iter().map(|s| (*s).to_string()));
        a.extend([path_str(&input), path_str(out)]);
        a
    };
    let as_refs = |a: &[String]| a.to_vec();
    let r = run(
        "nczcopy",
        &as_refs(&args(&[], &one))
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    r.success();
    let parts = tmp.path().join("parts.zarr");
    run(
        "nczcopy",
        &args(&["--metadata-only"], &parts)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    )
    .success();
    assert!(!parts.exists(), "nothing at the target before --finish");
    let children: Vec<_> = (1..=4)
        .map(|k| {
            Command::new(env!("CARGO_BIN_EXE_nczcopy"))
                .args(args(&["--part", &format!("{k}/4")], &parts))
                .output()
        })
        .collect();
    for c in children {
        let c = c.unwrap();
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    }
    assert!(
        !parts.exists(),
        "every part done, still nothing at the target before --finish"
    );
    run("nczcopy", &["--finish", &path_str(&parts)]).success();
    assert_eq!(
        dump(&["-s", "-n", "x", &path_str(&parts)]),
        dump(&["-s", "-n", "x", &path_str(&one)])
    );
    let openers: &[&str] = match format {
        None => &[".zmetadata", ".zgroup"],
        Some(_) => &["zarr.json"],
    };
    for name in openers {
        assert_eq!(
            fs::read(parts.join(name)).unwrap(),
            fs::read(one.join(name)).unwrap(),
            "{name} ({format:?})"
        );
    }
    assert!(
        !parts.join(".nczcopy").exists(),
        "the parts' notes are gone"
    );
    if format.is_some() {
        return;
    }
    // A zip cannot be written in parts.
    let e = run_in(
        "nczcopy",
        tmp.path(),
        &["--metadata-only", &path_str(&input), "z.zip"],
    )
    .fails_with_one_line(1);
    assert!(e.contains("cannot be made in parts"), "{e}");
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
