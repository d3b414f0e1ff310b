//! Icechunk's own Python (icechunk-python, xarray, VirtualiZarr; Python >= 3.12): the
//! peer that makes the repositories our tools read, and reads the ones they write.

use std::path::Path;
use std::process::Command;

/// The Python with icechunk, xarray, zarr, netCDF4 and virtualizarr:
/// `NCZARR_ICECHUNK_PYTHON`, else `python3.12`; `None` (the test skipped, said) when
/// there is none, which CI does not allow.
pub fn ice_python(test: &str) -> Option<String> {
    let py = std::env::var("NCZARR_ICECHUNK_PYTHON").unwrap_or_else(|_| "python3.12".into());
    let ok = Command::new(&py)
        .args([
            "-c",
            "import icechunk, xarray, zarr, netCDF4, virtualizarr, obstore",
        ])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs icechunk, xarray, zarr, netCDF4 and virtualizarr in NCZARR_ICECHUNK_PYTHON"
        );
        eprintln!("skipped {test}: no Python with icechunk (NCZARR_ICECHUNK_PYTHON)");
    }
    ok.then_some(py)
}

/// Run `data/icechunk/ice.py` with `args`; its standard output. Fails the test, saying
/// Python's error, unless it succeeds.
pub fn ice(py: &str, args: &[&str]) -> String {
    let out = Command::new(py)
        .arg(crate::util::data_dir().join("icechunk/ice.py"))
        .args(args)
        .env("ICECHUNK_LOG", "error")
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "ice.py {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Fail the test unless icechunk-python and xarray read `version` (`branch:main`,
/// `tag:v1`, `snapshot:ID`) of `repo` as xarray reads the netCDF file `nc`.
pub fn assert_reads_as(py: &str, repo: &Path, version: &str, nc: &Path) {
    ice(
        py,
        &[
            "same",
            &repo.to_string_lossy(),
            version,
            &nc.to_string_lossy(),
        ],
    );
}
