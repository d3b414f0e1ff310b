//! nczgen streaming large data lists from the file (issue 15): the same datasets as
//! compiled in memory, errors in the middle of streamed data, standard input, and a
//! signal while it waits for its input (issue 38).

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{data_dir, exe, first_diff, nczgen, run};

/// Issue 15: with every data list streamed from the file (`--stream-bytes 1`), the
/// golden cases dump exactly as when compiled in memory.
#[test]
fn golden_cases_streamed_dump_alike() {
    let golden = data_dir().join("golden");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for cdl in crate::util::golden_cases() {
        let case = crate::util::case_name(&cdl);
        let expected =
            fs::read_to_string(golden.join("expected").join(format!("{case}.cdl"))).unwrap();
        let out = tmp.path().join(format!("{case}.file"));
        let out_s = out.to_string_lossy().into_owned();
        nczgen(&["--stream-bytes", "1", "-o", &out_s, &cdl.to_string_lossy()]).success();
        let dump = run("nczdump", &["-n", &case, &out_s]);
        if dump.stdout() != expected {
            failures.push(format!("{case}: {}", first_diff(&dump.stdout(), &expected)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 15: a syntax error in the middle of a streamed data section (after slabs
/// were written) is one line naming its line, and leaves no dataset, an existing one
/// untouched and nothing beside it; the good file then replaces it.
#[test]
fn a_syntax_error_in_streamed_data_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let rows: Vec<String> = (0..2000)
        .map(|r| {
            let row: Vec<String> = (0..100).map(|k| format!("{}.25", r * 100 + k)).collect();
            format!("  {}", row.join(", "))
        })
        .collect();
    let header = "netcdf s {\ndimensions:\n\tt = 2000 ;\n\tx = 100 ;\nvariables:\n\tdouble v(t, x) ;\n\t\tv:_ChunkSizes = 10, 100 ;\ndata:\n v =\n";
    let good = format!("{header}{} ;\n}}\n", rows.join(",\n"));
    assert!(good.len() > 1 << 20);
    let mut bad_rows = rows.clone();
    bad_rows[1500] = bad_rows[1500].replacen(", ", " ", 1);
    let bad = format!("{header}{} ;\n}}\n", bad_rows.join(",\n"));
    let good_path = tmp.path().join("good.cdl");
    let bad_path = tmp.path().join("bad.cdl");
    fs::write(&good_path, &good).unwrap();
    fs::write(&bad_path, &bad).unwrap();
    let out = tmp.path().join("s.zarr");
    let out_s = out.to_string_lossy().into_owned();
    // Nothing before.
    let err = nczgen(&["-o", &out_s, &bad_path.to_string_lossy()]).fails_with_one_line(1);
    let line = 9 + 1500 + 1;
    let col = bad_rows[1500].find(" 150001.25").unwrap() + 2;
    assert_eq!(
        err,
        format!(
            "nczgen: {}:{line}:{col}: expected ',' or ';', found '150001.25'",
            bad_path.display()
        )
    );
    assert!(!out.exists());
    // Something before: kept as it was.
    fs::write(
        tmp.path().join("small.cdl"),
        "netcdf s {\nvariables:\n\tint w ;\ndata:\n w = 7 ;\n}\n",
    )
    .unwrap();
    nczgen(&[
        "-o",
        &out_s,
        &tmp.path().join("small.cdl").to_string_lossy(),
    ])
    .success();
    let before = run("nczdump", &[&out_s]).stdout();
    nczgen(&["-O", "-o", &out_s, &bad_path.to_string_lossy()]).fails_with_one_line(1);
    assert_eq!(run("nczdump", &[&out_s]).stdout(), before);
    let mut names: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["bad.cdl", "good.cdl", "s.zarr", "small.cdl"]);
    // The good file replaces it, and reads back whole.
    nczgen(&["-O", "-o", &out_s, &good_path.to_string_lossy()]).success();
    let dump = run("nczdump", &["-v", "v", &out_s]).stdout();
    assert!(dump.contains("  0.25, 1.25, 2.25,"), "{}", &dump[..400]);
    assert!(dump.contains("199999.25 ;\n}"));
}

/// Standard input streams too (held in memory when small).
#[test]
fn standard_input_streams() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = "netcdf i {\ndimensions:\n\tt = UNLIMITED ;\nvariables:\n\tshort v(t) ;\ndata:\n v = 1, 2, 70000 ;\n}\n";
    let out = tmp.path().join("i.zarr");
    let got = Command::new(env!("CARGO_BIN_EXE_nczgen"))
        .args(["--stream-bytes", "1", "-o", &out.to_string_lossy()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(cdl.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(
        stderr.trim_end(),
        "nczgen: <stdin>:7:12: warning: 70000 is out of range for short; stored as 4464 (as ncgen)"
    );
    let dump = run("nczdump", &[&out.to_string_lossy()]).stdout();
    assert!(dump.contains("t = UNLIMITED ; // (3 currently)"), "{dump}");
    assert!(dump.contains(" v = 1, 2, 4464 ;"), "{dump}");
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
