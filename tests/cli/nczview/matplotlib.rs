//! The colours against matplotlib itself: netCDF4-python decodes the variable,
//! matplotlib's `Normalize`/`LogNorm` and colour map colour it (limits as xarray's
//! `.plot()` takes them), and the RGBA must equal nczview's `--raster` exactly.

use super::field;
use crate::util::{python_succeeds, python_with, run, s};

const CHECK: &str = r#"
import json, sys
import numpy as np, netCDF4, matplotlib
from matplotlib import colors
from PIL import Image
path, cases = sys.argv[1], json.loads(sys.argv[2])
d = netCDF4.Dataset(path)
for png, var, cmap, mode in cases:
    v = d[var]
    data = np.ma.filled(v[0].astype("f8"), np.nan)
    shown = data[~np.isnan(data)]
    if mode == "log":
        pos = shown[shown > 0]
        norm = colors.LogNorm(pos.min(), pos.max())
    else:
        if mode == "robust":
            vmin, vmax = np.percentile(shown, [2, 98])
        else:
            vmin, vmax = shown.min(), shown.max()
        if vmin < 0 < vmax:
            m = max(abs(vmin), abs(vmax))
            vmin, vmax = -m, m
        norm = colors.Normalize(vmin, vmax)
    want = matplotlib.colormaps[cmap](norm(np.ma.masked_invalid(data)), bytes=True)
    # matplotlib draws the first row at the bottom (latitude increases here).
    want = want[::-1]
    got = np.asarray(Image.open(png).convert("RGBA"))
    if got.shape != want.shape or not np.array_equal(got, want):
        bad = np.argwhere(np.any(got != want, axis=-1)) if got.shape == want.shape else []
        sys.exit(f"{var} {cmap} {mode}: nczview's pixels differ from matplotlib's at {bad[:5]}: "
                 f"{got[tuple(bad[0])] if len(bad) else got.shape} vs {want[tuple(bad[0])] if len(bad) else want.shape}")
print("ok", len(cases))
"#;

#[test]
fn colours_are_matplotlibs_exactly() {
    let Some(py) = python_with("netCDF4, matplotlib, PIL") else {
        let why = "no netCDF4, matplotlib and Pillow in NCZARR_PYTHON";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI: {why}");
        eprintln!("skipped: {why}");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc4");
    // (variable, map, limits, nczview's options)
    let cases: &[(&str, &str, &str, &[&str])] = &[
        ("sst", "viridis", "minmax", &[]),
        ("sst", "turbo_r", "minmax", &["--cmap", "turbo_r"]),
        ("sst", "magma", "log", &["--cmap", "magma", "--log"]),
        ("packed", "gray", "minmax", &["--cmap", "gray"]),
        (
            "packed",
            "Spectral",
            "robust",
            &["--cmap", "Spectral", "--robust"],
        ),
        ("anom", "RdBu_r", "minmax", &[]),
        (
            "anom",
            "coolwarm",
            "robust",
            &["--robust", "--cmap", "coolwarm"],
        ),
    ];
    let mut json = Vec::new();
    for (i, (var, cmap, mode, opts)) in cases.iter().enumerate() {
        let png = dir.path().join(format!("{i}.png"));
        let mut args = vec![s(&nc), "-v".into(), var.to_string(), "--raster".into()];
        args.extend(opts.iter().map(|o| o.to_string()));
        args.extend(["-o".into(), s(&png)]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        run("nczview", &a).success();
        json.push(serde_json::json!([s(&png), var, cmap, mode]));
    }
    let cases_json = serde_json::Value::Array(json).to_string();
    python_succeeds(&py, CHECK, &[&s(&nc), &cases_json], "matplotlib's colours");
}
