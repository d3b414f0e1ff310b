//! Zarr version 3 written by nczgen: every golden case round trips, shards as asked,
//! and zarr-python and xarray read our output with the same values.

use crate::util::peers::python_with_zarr3;
use crate::util::{data_dir, first_diff, run};

#[test]
fn every_golden_case_round_trips_through_zarr3_and_back() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for d in ["v3", "sh", "back", "again", "v2", "v2v3", "v2v3v2"] {
        std::fs::create_dir(tmp.path().join(d)).expect("mkdir");
    }
    let mut failures = Vec::new();
    for (case, cdl) in crate::util::golden_cases()
        .into_iter()
        .map(|p| (crate::util::case_name(&p), p))
    {
        let expected =
            std::fs::read_to_string(data_dir().join(format!("golden/expected/{case}.cdl")))
                .expect("expected");
        // nczgen straight to v3, sharded along every dimension named "x"/"time" too.
        let v3 = tmp.path().join(format!("v3/{case}.file"));
        let v3s = v3.to_string_lossy().into_owned();
        run(
            "nczgen",
            &["--format", "zarr3", "-o", &v3s, &cdl.to_string_lossy()],
        )
        .success();
        let sharded = tmp.path().join(format!("sh/{case}.file"));
        let shs = sharded.to_string_lossy().into_owned();
        run(
            "nczgen",
            &[
                "-k",
                "zarr3",
                "--shards",
                "x/4,time/2,y/100",
                "-o",
                &shs,
                &cdl.to_string_lossy(),
            ],
        )
        .success();
        // ... and back: v3 -> NCZarr -> v3.
        let back = tmp.path().join(format!("back/{case}.file"));
        let backs = back.to_string_lossy().into_owned();
        run("nczcopy", &["-k", "nczarr", &v3s, &backs]).success();
        let again = tmp.path().join(format!("again/{case}.file"));
        let agains = again.to_string_lossy().into_owned();
        run("nczcopy", &["-k", "zarr3", &backs, &agains]).success();
        // v2 -> v3 (sharded by nczcopy) -> v2.
        let p = |d: &str| {
            tmp.path()
                .join(format!("{d}/{case}.file"))
                .to_string_lossy()
                .into_owned()
        };
        let (v2, v2v3, v2v3v2) = (p("v2"), p("v2v3"), p("v2v3v2"));
        run("nczgen", &["-o", &v2, &cdl.to_string_lossy()]).success();
        run(
            "nczcopy",
            &["-k", "zarr3", "--shards", "x/4,time/2,y/100", &v2, &v2v3],
        )
        .success();
        run("nczcopy", &["-k", "nczarr", &v2v3, &v2v3v2]).success();
        for (what, store) in [
            ("zarr3", &v3s),
            ("sharded", &shs),
            ("nczarr copy", &backs),
            ("zarr3 again", &agains),
            ("v2 to sharded v3", &v2v3),
            ("v2 to v3 to v2", &v2v3v2),
        ] {
            let out = run("nczdump", &[store]);
            if out.stdout() != expected {
                failures.push(format!(
                    "{case} ({what}): {}\n{}",
                    out.stderr(),
                    first_diff(&out.stdout(), &expected)
                ));
            }
        }
        let k = run("nczdump", &["-K", &backs]);
        assert!(k.stdout().contains("NCZarr"), "{}", k.stdout());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn shards_are_written_as_asked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cdl = data_dir().join("golden/cases/chunked.cdl");
    let out = tmp.path().join("c.zarr");
    let outs = out.to_string_lossy().into_owned();
    run(
        "nczgen",
        &[
            "-k",
            "zarr3",
            "--shards",
            "y/5",
            "-o",
            &outs,
            &cdl.to_string_lossy(),
        ],
    )
    .success();
    let doc = std::fs::read_to_string(out.join("grid/zarr.json")).expect("grid zarr.json");
    assert!(doc.contains("\"sharding_indexed\""), "{doc}");
    // grid(x = 7, y = 10) in chunks of 3 x 4: y/5 rounds up to 8 (two chunks), x
    // keeps one chunk per shard.
    assert!(doc.contains("\"chunk_shape\": [3,8]"), "{doc}");
    assert!(doc.contains("\"chunk_shape\": [3,4]"), "{doc}");
    assert!(out.join("grid/c/2/1").is_file());
    let err = run(
        "nczgen",
        &[
            "--shards",
            "y/5",
            "-o",
            &format!("{outs}2"),
            &cdl.to_string_lossy(),
        ],
    )
    .fails_with_one_line(1);
    assert!(err.contains("Zarr version 3"), "{err}");
    let err = run(
        "nczgen",
        &[
            "-k",
            "zarr3",
            "--shards",
            "y",
            "-o",
            &format!("{outs}3"),
            &cdl.to_string_lossy(),
        ],
    )
    .fails_with_one_line(1);
    assert!(err.contains("dim/len"), "{err}");
}

/// Opens every group of a store with xarray (decode_cf=False) and zarr-python and
/// compares each variable's values, dimensions and attributes with the netCDF-4 file
/// ncgen made from the same CDL; netCDF strings must read as text, not bytes.
const CHECK_WITH_PEERS: &str = r#"
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, netCDF4, xarray as xr, zarr
nc, store = sys.argv[1], sys.argv[2]
problems = []
def groups(g, path=""):
    yield path, g
    for k, v in g.groups.items():
        yield from groups(v, path + "/" + k)
def norm(a):
    a = np.asarray(a)
    if a.dtype.kind in "SOU":
        return [s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s) for s in a.ravel()]
    return a.ravel().tolist()
with netCDF4.Dataset(nc) as ds:
    for path, g in groups(ds):
        x = xr.open_dataset(store, engine="zarr", group=path or None, decode_cf=False, zarr_format=3)
        zg = zarr.open_group(store, mode="r", path=path.strip("/"))
        for name, v in g.variables.items():
            v.set_auto_maskandscale(False); v.set_auto_chartostring(False)
            want = v[...]
            for who, got in (("xarray", x[name].values), ("zarr-python", zg[name][...])):
                same = norm(got) == norm(want) or (np.asarray(want).dtype.kind == "f" and np.allclose(
                    np.asarray(got, dtype=float), np.asarray(want, dtype=float), equal_nan=True))
                if not same:
                    problems.append(f"{path}/{name}: {who} reads {norm(got)[:4]}, netCDF has {norm(want)[:4]}")
            if v.dtype is str and np.asarray(zg[name][...]).dtype.kind == "S":
                problems.append(f"{path}/{name}: zarr-python reads bytes, not text")
            if tuple(x[name].dims) != tuple(v.dimensions):
                problems.append(f"{path}/{name}: dims {x[name].dims} != {v.dimensions}")
            for a in v.ncattrs():
                if a != "_FillValue" and a not in x[name].attrs:
                    problems.append(f"{path}/{name}: attribute {a} missing")
print("\n".join(problems))
sys.exit(1 if problems else 0)
"#;

#[test]
fn our_v3_output_opens_in_zarr_python_and_xarray_with_the_same_values() {
    let Some(py) = python_with_zarr3() else {
        eprintln!("skipped: no python3 with zarr 3, xarray and netCDF4 (set NCZARR_PYTHON)");
        return;
    };
    if !crate::util::have("ncgen") {
        eprintln!("skipped: ncgen (netcdf-bin) is not installed");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for (case, cdl) in crate::util::golden_cases()
        .into_iter()
        .map(|p| (crate::util::case_name(&p), p))
    {
        let nc = tmp.path().join(format!("{case}.nc"));
        let made = std::process::Command::new("ncgen")
            .args(["-4", "-o", &nc.to_string_lossy(), &cdl.to_string_lossy()])
            .status()
            .expect("ncgen");
        assert!(made.success(), "ncgen {case}");
        for shards in [None, Some("x/4,time/2,y/100")] {
            let store = tmp.path().join(format!("{case}-{}.zarr", shards.is_some()));
            let s = store.to_string_lossy().into_owned();
            let mut args = vec!["-k", "zarr3", "-o", &s];
            if let Some(spec) = shards {
                args.extend(["--shards", spec]);
            }
            let cdls = cdl.to_string_lossy().into_owned();
            args.push(&cdls);
            run("nczgen", &args).success();
            let out = std::process::Command::new(&py)
                .args(["-c", CHECK_WITH_PEERS, &nc.to_string_lossy(), &s])
                .output()
                .expect("python");
            if !out.status.success() {
                failures.push(format!(
                    "{case} (shards {shards:?}): {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
