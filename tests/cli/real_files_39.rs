//! What real files from other writers showed (issue 39), each class with a small file
//! of our own that reproduces it. The corpus itself (`../shared/corpus/real`) is read
//! by `corpus_real` when present.

use std::fs;

use crate::util::run;

const CDL: &str = "netcdf u {\ndimensions:\n\tx = 4 ;\nvariables:\n\tint i(x) ;\n\tfloat f(x) ;\ndata:\n i = 1, 2, 3, 4 ;\n f = 0.5, 1.5, 2.5, 3.5 ;\n}\n";

/// A dataset whose variable `i` has a codec no build has.
fn with_unknown_codec(dir: &std::path::Path) -> String {
    let cdl = dir.join("u.cdl");
    fs::write(&cdl, CDL).unwrap();
    let out = dir.join("u.zarr");
    run(
        "nczgen",
        &["-o", &out.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let mystery = r#"{"id": "mystery", "level": 3}"#;
    let zarray = out.join("i/.zarray");
    let doc = fs::read_to_string(&zarray).unwrap();
    fs::write(
        &zarray,
        doc.replace(
            r#""compressor": null"#,
            &format!(r#""compressor": {mystery}"#),
        ),
    )
    .unwrap();
    let _ = fs::remove_file(out.join(".zmetadata"));
    out.to_string_lossy().into_owned()
}

#[test]
fn an_unreadable_variable_is_left_out_and_the_rest_read() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = with_unknown_codec(tmp.path());
    let r = run("nczdump", &[&ds]);
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert!(
        r.stdout().contains(" f = 0.5, 1.5, 2.5, 3.5 ;"),
        "{}",
        r.stdout()
    );
    assert!(!r.stdout().contains("int i(x)"), "{}", r.stdout());
    let err = r.stderr();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("variable '/i': codec")
            && err.contains("unknown codec 'mystery'")
            && err.ends_with("variable left out\n"),
        "{err}"
    );
    // Named with -v, it is read, and the reason is the error.
    let e = run("nczdump", &["-v", "i", &ds]).fails_with_one_line(1);
    assert!(e.contains("unknown codec 'mystery'"), "{e}");
    // nczcopy refuses, or copies the rest with --skip-unreadable.
    let out = tmp.path().join("c.zarr").to_string_lossy().into_owned();
    let e = run("nczcopy", &[&ds, &out]).fails_with_one_line(1);
    assert!(
        e.contains("variable '/i' cannot be read") && e.contains("--skip-unreadable"),
        "{e}"
    );
    assert!(!std::path::Path::new(&out).exists());
    let r = run("nczcopy", &["--skip-unreadable", &ds, &out]);
    assert!(r.output.status.success(), "{}", r.stderr());
    assert!(
        r.stderr().contains("warning: variable '/i' left out"),
        "{}",
        r.stderr()
    );
    let back = run("nczdump", &[&out]);
    back.success();
    assert!(back.stdout().contains(" f = 0.5, 1.5, 2.5, 3.5 ;") && !back.stdout().contains(" i ="));
}

/// A Python with zarr 3, numcodecs and h5py: `NCZARR_PYTHON`, else `python3`.
fn python_with_zarr_and_h5py() -> Option<String> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    std::process::Command::new(&py)
        .args([
            "-c",
            "import zarr, numcodecs, h5py; from zarr.codecs import numcodecs as nz",
        ])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(py)
}

#[test]
fn numcodecs_and_lzf_read_as_zarr_python_and_h5py_read_them() {
    let Some(py) = python_with_zarr_and_h5py() else {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs zarr 3, numcodecs and h5py in NCZARR_PYTHON"
        );
        eprintln!("skipped: no python3 with zarr 3, numcodecs and h5py (set NCZARR_PYTHON)");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(py)
        .arg(crate::util::data_dir().join("real_files/codecs_check.py"))
        .arg(crate::util::exe("nczdump"))
        .arg(crate::util::exe("nczcopy"))
        .arg(work.path())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && report.contains("0 differences"),
        "{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
