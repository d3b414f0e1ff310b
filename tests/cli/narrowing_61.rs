//! Nothing is narrowed on its way in (issue 61): a join is as wide as its widest input,
//! an append into narrower storage is refused with nothing changed, and a type never
//! narrows (a wider integer into a narrower one is refused, never wrapped).

use std::fs;
use std::path::Path;

use crate::util::{python_succeeds, python_with, run};

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A dataset with a record of `notes` per day from `first`, in days since 2000-01-01.
fn notes_cdl(first: usize, notes: &[&str]) -> String {
    let times: Vec<String> = (first..first + notes.len())
        .map(|t| t.to_string())
        .collect();
    let quoted: Vec<String> = notes.iter().map(|n| format!("\"{n}\"")).collect();
    format!(
        "netcdf n {{\ndimensions:\n\ttime = UNLIMITED ;\nvariables:\n\tint time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\tstring note(time) ;\ndata:\n time = {} ;\n note = {} ;\n}}\n",
        times.join(", "),
        quoted.join(", ")
    )
}

fn gen(dir: &Path, name: &str, kind: &[&str], cdl: &str) -> String {
    let c = dir.join(format!("{name}.cdl"));
    fs::write(&c, cdl).unwrap();
    let out = s(&dir.join(name));
    let mut args: Vec<&str> = kind.to_vec();
    args.extend(["-o", &out, c.to_str().unwrap()]);
    run("nczgen", &args).success();
    out
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(p) = todo.pop() {
        for e in fs::read_dir(&p).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let bytes = fs::read(&path).unwrap();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn strings_are_never_cut_by_a_join_or_an_append() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // NCZarr stores the strings at the longest one's width: 2 bytes.
    let short = gen(d, "s1.zarr", &[], &notes_cdl(0, &["ab", "cd"]));
    assert!(fs::read_to_string(d.join("s1.zarr/note/.zarray"))
        .unwrap()
        .contains("\"|S2\""));
    let long = gen(
        d,
        "long.nc",
        &["-k", "nc4"],
        &notes_cdl(2, &["a much longer note"]),
    );
    // A fresh join, either way round and into every Zarr kind: as wide as the widest.
    for (kind, inputs) in [
        ("nczarr", [&short, &long]),
        ("zarr", [&short, &long]),
        ("zarr3", [&short, &long]),
        ("nczarr", [&long, &short]),
    ] {
        let out = s(&d.join(format!("joined-{kind}-{}.zarr", inputs[0] == &long)));
        run(
            "nczcopy",
            &["--sort", "-k", kind, inputs[0], inputs[1], &out],
        )
        .success();
        let dump = run("nczdump", &["-v", "note", &out]).stdout();
        assert!(dump.contains("\"a much longer note\""), "{kind}: {dump}");
        assert!(
            dump.contains("\"ab\", \"cd\"") || dump.contains("\"cd\" ;"),
            "{kind}: {dump}"
        );
    }
    // An append into the 2-byte store is refused, naming the variable, the width and
    // the longest new value; nothing is changed.
    let before = snapshot(&d.join("s1.zarr"));
    let e = run("nczcopy", &["--append", &long, &short]).fails_with_one_line(1);
    assert!(
        e.ends_with("s1.zarr: variable '/note' stores strings of at most 2 bytes (dtype |S2) and the inputs hold one of 18, \"a much longer note\"; nothing was changed (strings are never cut: copy the dataset and the inputs into a new dataset, which is as wide as its widest input)"),
        "{e}"
    );
    assert_eq!(snapshot(&d.join("s1.zarr")), before);
    // New values that fit are appended.
    let fits = gen(d, "fits.nc", &["-k", "nc4"], &notes_cdl(2, &["ef"]));
    run("nczcopy", &["--append", &fits, &short]).success();
    let dump = run("nczdump", &["-v", "note", &short]).stdout();
    assert!(dump.contains(" note = \"ab\", \"cd\", \"ef\" ;"), "{dump}");
}

/// xarray's own stores: `<U1` strings and `int16` values, grown and joined.
#[test]
fn xarray_stores_are_not_narrowed() {
    let Some(py) = python_with("xarray, zarr, numpy") else {
        eprintln!("skipped: no Python with xarray and zarr (NCZARR_PYTHON)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let store = s(&d.join("xr.zarr"));
    python_succeeds(
        &py,
        r#"
import sys, numpy as np, xarray as xr
ds = xr.Dataset(
    {"note": ("time", np.array(["a", "b"], dtype="<U1")),
     "count": ("time", np.array([1, 2], dtype="int16"))},
    coords={"time": ("time", np.array([0, 1]), {"units": "days since 2000-01-01"})},
)
ds.to_zarr(sys.argv[1], zarr_format=2, consolidated=True)
"#,
        &[&store],
        "xarray writes <U1",
    );
    let cdl = "netcdf d {\ndimensions:\n\ttime = UNLIMITED ;\nvariables:\n\tint64 time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\tstring note(time) ;\n\tshort count(time) ;\ndata:\n time = 2 ;\n note = \"ok day 48\" ;\n count = 3 ;\n}\n";
    let day = gen(d, "day.nc", &["-k", "nc4"], cdl);
    let before = snapshot(&d.join("xr.zarr"));
    let e = run("nczcopy", &["--append", &day, &store]).fails_with_one_line(1);
    assert!(
        e.contains("variable '/note' stores strings of at most 1 character (dtype <U1) and the inputs hold one of 9, \"ok day 48\"; nothing was changed"),
        "{e}"
    );
    assert_eq!(snapshot(&d.join("xr.zarr")), before);
    // A fresh join is as wide as "ok day 48", and xarray reads it whole.
    let joined = s(&d.join("joined.zarr"));
    run("nczcopy", &["-k", "zarr", &store, &day, &joined]).success();
    python_succeeds(
        &py,
        r#"
import sys, xarray as xr
ds = xr.open_zarr(sys.argv[1])
assert list(ds.note.values) == ["a", "b", "ok day 48"], ds.note.values
assert list(ds["count"].values) == [1, 2, 3] and ds["count"].dtype == "int16", ds["count"]
"#,
        &[&joined],
        "xarray reads the join",
    );
    // A wider integer into the int16 store is refused, never wrapped.
    let wide = "netcdf w {\ndimensions:\n\ttime = UNLIMITED ;\nvariables:\n\tint64 time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\tstring note(time) ;\n\tint count(time) ;\ndata:\n time = 2 ;\n note = \"c\" ;\n count = 70000 ;\n}\n";
    let wide = gen(d, "wide.nc", &["-k", "nc4"], wide);
    let e = run("nczcopy", &["--append", &wide, &store]).fails_with_one_line(1);
    assert!(
        e.contains("variable '/count' is of type short in one and int in the other"),
        "{e}"
    );
    assert_eq!(snapshot(&d.join("xr.zarr")), before);
    let e = run("nczcopy", &[&store, &wide, &s(&d.join("w.zarr"))]).fails_with_one_line(1);
    assert!(
        e.contains("is of type short in one and int in the other"),
        "{e}"
    );
}
