//! nczcopy as a process: memory bounded by the budget on a variable larger than it,
//! killed copies, and copies in parts made by separate processes.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::nczcopy::{copy, dump, path_str, SUBSET_CDL};
use crate::util::{run, run_in, TempStore};

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
