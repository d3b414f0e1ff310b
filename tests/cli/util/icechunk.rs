//! Icechunk's own Python (icechunk-python, xarray, VirtualiZarr; Python >= 3.12): the
//! peer that makes the repositories our tools read, and reads the ones they write.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python with icechunk, xarray, zarr, netCDF4 and virtualizarr:
/// `NCZARR_ICECHUNK_PYTHON`, else `python3.12`; `None` (the test skipped, said) when
/// there is none, which CI does not allow.
pub fn ice_python(test: &str) -> Option<String> {
    crate::util::peers::python_or_skip(
        "NCZARR_ICECHUNK_PYTHON",
        "python3.12",
        &[
            "icechunk",
            "xarray",
            "zarr",
            "netCDF4",
            "virtualizarr",
            "obstore",
        ],
        test,
    )
}

/// Run `data/icechunk/ice.py` with `args`; its standard output. Fails the test, saying
/// Python's error, unless it succeeds.
pub fn ice(py: &str, args: &[&str]) -> String {
    ice_with(py, args, &[])
}

/// [`ice`] with more environment (`ICE_S3_ENDPOINT` and keys for a repository on S3).
pub fn ice_with(py: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(py)
        .arg(crate::util::data_dir().join("icechunk/ice.py"))
        .args(args)
        .env("ICECHUNK_LOG", "error")
        .envs(env.iter().copied())
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

/// Two days of `data/icechunk/w.cdl` as netCDF-4 files in `dir`, and the two joined:
/// `[a.nc, b.nc (times 12 and 18), ab.nc]`.
pub fn two_days(dir: &Path) -> [PathBuf; 3] {
    use crate::util::{data_dir, run, s};
    let cdl = data_dir().join("icechunk/w.cdl");
    let a = dir.join("a.nc");
    run("nczgen", &["-k", "nc4", "-o", &s(&a), &s(&cdl)]).success();
    let text = std::fs::read_to_string(&cdl)
        .unwrap()
        .replace(" time = 0, 6 ;", " time = 12, 18 ;");
    let cdl_b = dir.join("b.cdl");
    std::fs::write(&cdl_b, text).unwrap();
    let b = dir.join("b.nc");
    run("nczgen", &["-k", "nc4", "-o", &s(&b), &s(&cdl_b)]).success();
    let ab = dir.join("ab.nc");
    run("nczcopy", &[&s(&a), &s(&b), &s(&ab)]).success();
    [a, b, ab]
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
