//! The conversion matrix (issue 38): datasets written by netCDF4-python, xarray and
//! zarr-python (and, issue 61, packed shorts at netCDF's default fill with CF bounds,
//! and kerchunk references to them, ours and kerchunk's), copied by nczcopy to every
//! output kind and through chains of them, are
//! decoded by xarray, zarr-python and netCDF4-python exactly as their inputs are (what
//! each output kind promises each reader: `data/conversions/check.py`,
//! `docs/layout.md`). The comparison is of decoded datasets, not of text.

use std::process::{Command, Stdio};

use crate::util::{data_dir, exe};

/// A Python with netCDF4, zarr 3 and xarray: `NCZARR_PYTHON`, else `python3`.
fn python_with_peers() -> Option<String> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    Command::new(&py)
        .args([
            "-c",
            "import netCDF4, xarray, zarr; assert int(zarr.__version__[0]) >= 3",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(py)
}

#[test]
fn every_conversion_decodes_as_its_input() {
    let Some(py) = python_with_peers() else {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs netCDF4, xarray and zarr 3 in NCZARR_PYTHON"
        );
        eprintln!("skipped: no python3 with netCDF4, xarray and zarr 3 (set NCZARR_PYTHON)");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(py)
        .arg(data_dir().join("conversions/check.py"))
        .arg(exe("nczcopy"))
        .arg(work.path())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "conversions differ:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 79 conversions, and one more of kerchunk's own references where it is installed.
    let counted = report
        .lines()
        .find_map(|l| l.strip_prefix("0 of ")?.strip_suffix(" conversions differ"))
        .and_then(|n| n.parse::<usize>().ok());
    assert!(counted.is_some_and(|n| n >= 79), "{report}");
}
