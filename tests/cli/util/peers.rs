//! The peers as judges: ncdump's text, h5dump, netCDF4-python, xarray, h5py and
//! zarr-python 3, each found or skipped; netcdf-c's conformance corpus.

use std::path::Path;
use std::process::Command;

use crate::util::{have, run, s, shared_conformance};

pub(crate) fn skip() -> Option<std::path::PathBuf> {
    let p = shared_conformance();
    if p.is_none() {
        eprintln!("../shared/conformance/netcdf-c not present; skipping");
    }
    p
}

/// ncdump `-s` of `nc` without its first line (the file's name) and `_NCProperties`
/// (which names the writer).
pub(crate) fn dump_s(nc: &Path) -> String {
    let out = Command::new("ncdump").arg("-s").arg(nc).output().unwrap();
    assert!(
        out.status.success(),
        "ncdump -s {}: {}",
        nc.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .filter(|l| !l.contains(":_NCProperties = "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// nczdump's text of `p` without its first line (the name).
pub(crate) fn nczdump_body(p: &Path) -> String {
    let r = run("nczdump", &[&s(p)]);
    r.success();
    r.stdout()
        .lines()
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect()
}

/// HDF5's own reader finds no fault in the file's metadata.
pub(crate) fn h5dump_reads(nc: &Path) -> Result<(), String> {
    if !have("h5dump") {
        return Ok(());
    }
    let out = Command::new("h5dump").arg("-H").arg(nc).output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// A Python with netCDF4, xarray, h5py and h5netcdf: `NCZARR_PYTHON`, else `python3`.
pub(crate) fn python_with_readers() -> Option<String> {
    python_or_skip(
        "NCZARR_PYTHON",
        "python3",
        &["netCDF4", "xarray", "h5py", "h5netcdf"],
        "the Python readers",
    )
}

/// The Python the environment variable `var` names (else `fallback`) if it imports
/// every one of `modules`; else `None`, the skip of `what` said, which CI does not
/// allow (CI installs every peer).
pub(crate) fn python_or_skip(
    var: &str,
    fallback: &str,
    modules: &[&str],
    what: &str,
) -> Option<String> {
    let py = std::env::var(var).unwrap_or_else(|_| fallback.into());
    let ok = Command::new(&py)
        .args(["-c", &format!("import {}", modules.join(", "))])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs {} in {var}",
            modules.join(", ")
        );
        eprintln!(
            "skipped {what}: set {var} to a Python with {}",
            modules.join(", ")
        );
    }
    ok.then_some(py)
}

/// Whether netCDF4-python, xarray (both engines) and h5py decode `ours` as `theirs`.
pub(crate) fn decoded_alike(py: &str, theirs: &Path, ours: &Path) -> Result<(), String> {
    let script = crate::util::data_dir().join("netcdf4/equal.py");
    let out = Command::new(py)
        .arg(script)
        .arg(theirs)
        .arg(ours)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err.lines().last().unwrap_or_default().to_string())
    }
}

/// ncdump's text of `nc`, without its first line (which names the file).
pub(crate) fn dump(nc: &Path) -> String {
    let out = Command::new("ncdump").arg(nc).output().unwrap();
    assert!(
        out.status.success(),
        "ncdump {}: {}",
        nc.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split_once('\n')
        .map(|(_, rest)| rest.to_string())
        .unwrap_or(text)
}

/// A Python with h5py: `NCZARR_PYTHON`, else `python3`; `None`, said, without one
/// (CI must have it).
pub(crate) fn python_with_h5py() -> Option<String> {
    let py = crate::util::python_with("h5py, numpy");
    if py.is_none() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs h5py in NCZARR_PYTHON"
        );
        eprintln!("skipped: no python3 with h5py (set NCZARR_PYTHON)");
    }
    py
}

/// The file `make.py` writes for `case`, in `dir`; `None` without h5py.
pub(crate) fn made(case: &str, dir: &Path) -> Option<String> {
    let py = python_with_h5py()?;
    let out = dir.join(format!("{case}.h5"));
    let r = std::process::Command::new(py)
        .arg(crate::util::data_dir().join("real_files_61/make.py"))
        .arg(case)
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "make.py {case}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    Some(out.to_string_lossy().into_owned())
}

/// ncdump's text of `file`, with `args` before it; `None` without ncdump.
pub(crate) fn ncdump(args: &[&str], file: &str) -> Option<String> {
    if !crate::util::have("ncdump") {
        eprintln!("skipped the comparison with ncdump: not installed");
        return None;
    }
    let r = std::process::Command::new("ncdump")
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&r.stdout).into_owned())
}

/// A Python with zarr 3, xarray and netCDF4: `NCZARR_PYTHON`, else `python3`.
pub(crate) fn python_with_zarr3() -> Option<String> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    std::process::Command::new(&py)
        .args([
            "-c",
            "import zarr, xarray, netCDF4, numpy; assert int(zarr.__version__.split('.')[0]) >= 3",
        ])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(py)
}
