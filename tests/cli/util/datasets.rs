//! Datasets made for the tests of several tools: parts to join, a grid to subset,
//! descending days, a small dataset with NaN and infinities (issue 38).

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{nczgen, run, s};

/// A part of a record: `time` in days since `base`, `v(time, x) = values`, `lat` fixed.
pub(crate) fn part(
    dir: &Path,
    name: &str,
    base: &str,
    times: &str,
    values: &str,
    lat: &str,
) -> PathBuf {
    let cdl = dir.join(format!("{name}.cdl"));
    fs::write(
        &cdl,
        format!(
            "netcdf {name} {{\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 2 ;\nvariables:\n\
             \tdouble time(time) ;\n\t\ttime:units = \"days since {base}\" ;\n\tfloat lat(x) ;\n\
             \tint v(time, x) ;\n\t\tv:units = \"m\" ;\n\n// global attributes:\n\t\t:title = \"{name}\" ;\n\
             data:\n time = {times} ;\n lat = {lat} ;\n v = {values} ;\n}}\n"
        ),
    )
    .unwrap();
    let nc = dir.join(format!("{name}.nc"));
    nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    nc
}

/// Three monthly-like parts, the third counting days from its own start.
pub(crate) fn parts(dir: &Path) -> [PathBuf; 3] {
    [
        part(
            dir,
            "a",
            "2001-01-01",
            "0, 1, 2",
            "1, 2, 3, 4, 5, 6",
            "10, 20",
        ),
        part(dir, "b", "2001-01-01", "3, 4", "7, 8, 9, 10", "10, 20"),
        part(dir, "c", "2001-01-06", "0", "11, 12", "10, 20"),
    ]
}

pub(crate) fn data(p: &Path) -> String {
    let r = run("nczdump", &[&s(p)]);
    r.success();
    let text = r.stdout();
    text.split("data:")
        .nth(1)
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn gen(dir: &Path, name: &str, kind: &str, cdl: &str) -> String {
    let c = dir.join(format!("{name}.cdl"));
    fs::write(&c, cdl).unwrap();
    let out = s(&dir.join(name));
    run("nczgen", &["-O", "-k", kind, "-o", &out, &s(&c)]).success();
    out
}

/// A day of descending time: `time = t + 0.5`, bounds `[t + 1, t]` or `[t, t + 1]`.
pub(crate) fn down_day(dir: &Path, t: u32, high_first: bool, with_history: &str) -> String {
    let (a, b) = if high_first { (t + 1, t) } else { (t, t + 1) };
    gen(
        dir,
        &format!("d{t}{}.nc", if high_first { "h" } else { "l" }),
        "nc4",
        &format!(
            "netcdf d {{\ndimensions:\n\ttime = UNLIMITED ;\n\tnv = 2 ;\nvariables:\n\tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\t\ttime:bounds = \"time_bnds\" ;\n\tdouble time_bnds(time, nv) ;\n\n// global attributes:\n\t\t:history = \"{with_history}\" ;\ndata:\n time = {t}.5 ;\n time_bnds = {a}, {b} ;\n}}\n"
        ),
    )
}

pub(crate) const CDL: &str = "netcdf s {\ndimensions:\n\tx = 4 ;\nvariables:\n\tfloat f(x) ;\n\tint i(x) ;\ndata:\n f = 1, 2, NaN, Infinity ;\n i = 1, 0, 5, 7 ;\n}\n";

pub(crate) fn dataset(dir: &std::path::Path) -> String {
    let cdl = dir.join("s.cdl");
    fs::write(&cdl, CDL).unwrap();
    let out = dir.join("s.zarr").to_string_lossy().into_owned();
    run("nczgen", &["-o", &out, &cdl.to_string_lossy()]).success();
    out
}

/// A small dataset whose values say where they are: `v(t, x) = 10 t + x`, a time
/// coordinate in days from 2020-01-01 and a longitude of 0 to 315 degrees east.
pub(crate) const GRID: &str = "netcdf grid {\ndimensions:\n\tt = UNLIMITED ;\n\tx = 8 ;\n\tnv = 2 ;\n\
variables:\n\tdouble t(t) ;\n\t\tt:units = \"days since 2020-01-01\" ;\n\t\tt:bounds = \"t_bnds\" ;\n\
\tdouble t_bnds(t, nv) ;\n\tfloat x(x) ;\n\t\tx:units = \"degrees_east\" ;\n\tint v(t, x) ;\n\
\t\tv:_ChunkSizes = 1, 4 ;\n\tint other(nv) ;\n\
data:\n t = 0, 1, 2, 3, 4, 5 ;\n t_bnds = 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6 ;\n\
 x = 0, 45, 90, 135, 180, 225, 270, 315 ;\n\
 v = 0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27,\n\
 30, 31, 32, 33, 34, 35, 36, 37, 40, 41, 42, 43, 44, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57 ;\n\
 other = 7, 8 ;\n}\n";

pub(crate) fn grid(dir: &Path) -> std::path::PathBuf {
    let cdl = dir.join("grid.cdl");
    fs::write(&cdl, GRID).unwrap();
    let store = dir.join("grid.zarr");
    nczgen(&["-k", "nczarr", "-o", &s(&store), &s(&cdl)]).success();
    store
}

/// netcdf-c's own NCZarr store of `data/nczatted/r4.cdl` at `dir/c.zarr`, made by its
/// ncgen, without what 4.9.0 cannot write there (an unlimited dimension; a scalar, on
/// which its ncdump crashes); its `file://...#mode=nczarr,file` URL. `None` without
/// ncgen and ncdump.
pub(crate) fn netcdf_c_nczarr(dir: &Path) -> Option<(PathBuf, String)> {
    if !(crate::util::have("ncgen") && crate::util::have("ncdump")) {
        return None;
    }
    let cdl: String = fs::read_to_string(crate::util::data_dir().join("nczatted/r4.cdl"))
        .unwrap()
        .replace("time = UNLIMITED", "time = 2")
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("int n ;") || t.starts_with("n:") || t.starts_with("n = "))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let fixed = dir.join("fixed.cdl");
    fs::write(&fixed, cdl).unwrap();
    let store = dir.join("c.zarr");
    let url = format!("file://{}#mode=nczarr,file", store.display());
    let ok = std::process::Command::new("ncgen")
        .args(["-4", "-o", &url, &s(&fixed)])
        .status()
        .unwrap();
    assert!(ok.success(), "ncgen {url}");
    Some((store, url))
}

/// xarray's consolidated Zarr v2 and v3 stores `dir/xr2.zarr`, `dir/xr3.zarr`
/// (`data/nczatted/stores.py make`), written by `py`.
pub(crate) fn xarray_stores(py: &str, dir: &Path) -> [PathBuf; 2] {
    let made = std::process::Command::new(py)
        .arg(crate::util::data_dir().join("nczatted/stores.py"))
        .args(["make", &s(dir)])
        .status()
        .unwrap();
    assert!(made.success(), "stores.py make");
    [dir.join("xr2.zarr"), dir.join("xr3.zarr")]
}
