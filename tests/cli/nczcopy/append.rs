//! `nczcopy --append` (issue 43): an existing Zarr dataset grown in place by new
//! inputs: NCZarr, pure Zarr v2 and v3, ours and xarray's, on disk and on S3; the
//! partial last chunk completed; a stopped run leaving the dataset as it was. Nothing
//! is narrowed on its way in (issue 61): a join is as wide as its widest input, an
//! append into narrower storage is refused with nothing changed.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::datasets::{data, part, parts};
use crate::util::{python_succeeds, python_with, run, s};

const JOINED: &str =
    "time = 0, 1, 2, 3, 4, 5 ; lat = 10, 20 ; v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ; }";

/// The statements of a data section, in any order (pure Zarr lists its variables by
/// name).
fn statements(data: &str) -> std::collections::BTreeSet<&str> {
    data.split(" ; ").collect()
}

/// Every kind of store, chunked so that the first part leaves a partial chunk (3 rows
/// in chunks of 2): appending the other parts, together or one at a time, gives what
/// joining all three gives, the third's times rebased.
#[test]
fn appending_equals_joining_in_every_zarr_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let kinds: [&[&str]; 5] = [
        &[],
        &["--nczarr-layout", "4.9.0"],
        &["-k", "zarr"],
        &["-k", "zarr3"],
        &["-k", "zarr3", "--shards", "time/4"],
    ];
    for (i, kind) in kinds.iter().enumerate() {
        let out = tmp.path().join(format!("out{i}.zarr"));
        let mut args = vec!["-c", "time/2"];
        args.extend_from_slice(kind);
        let start = |out: &Path| {
            let mut a2: Vec<String> = args.iter().map(|x| x.to_string()).collect();
            a2.extend([s(&a), s(out)]);
            // (4.9.0's layout warns that the record dimension is written fixed.)
            let r = run(
                "nczcopy",
                &a2.iter().map(String::as_str).collect::<Vec<_>>(),
            );
            assert_eq!(r.code(), 0, "{}", r.stderr());
        };
        start(&out);
        run("nczcopy", &["--append", &s(&b), &s(&c), &s(&out)]).success();
        assert_eq!(statements(&data(&out)), statements(JOINED), "{kind:?}");
        let header = run("nczdump", &["-h", &s(&out)]).stdout();
        assert!(
            header.contains("time = ") && header.contains('6'),
            "{header}"
        );
        // One at a time: the partial chunk is completed twice.
        let one = tmp.path().join(format!("one{i}.zarr"));
        start(&one);
        run("nczcopy", &["--append", &s(&b), &s(&one)]).success();
        run("nczcopy", &["--append", &s(&c), &s(&one)]).success();
        assert_eq!(
            statements(&data(&one)),
            statements(JOINED),
            "{kind:?} one at a time"
        );
        // The store is what a join of the three writes, document for document.
        let joined = tmp.path().join(format!("joined{i}.zarr"));
        let mut a3: Vec<String> = args.iter().map(|x| x.to_string()).collect();
        a3.extend([s(&a), s(&b), s(&c), s(&joined)]);
        let r = run(
            "nczcopy",
            &a3.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        assert_eq!(
            run("nczdump", &[&s(&out)])
                .stdout()
                .replace(&format!("out{i}"), "x"),
            run("nczdump", &[&s(&joined)])
                .stdout()
                .replace(&format!("joined{i}"), "x"),
            "{kind:?}"
        );
    }
}

/// The new length is recorded in every document readers take it from: netCDF4-python
/// (netcdf-c 4.10) reads an appended NCZarr store as the joined file, and ncdump 4.9.0
/// one in its layout.
#[test]
fn netcdf_c_reads_an_appended_nczarr_store() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let joined = tmp.path().join("joined.nc");
    run("nczcopy", &[&s(&a), &s(&b), &s(&c), &s(&joined)]).success();
    let out = tmp.path().join("n.zarr");
    run("nczcopy", &["-c", "time/2", &s(&a), &s(&out)]).success();
    run("nczcopy", &["--append", &s(&b), &s(&c), &s(&out)]).success();
    if let Some(py) = python_with("netCDF4") {
        let url = format!("file://{}#mode=nczarr,file", s(&out));
        python_succeeds(
            &py,
            "import netCDF4, sys, numpy as np\n\
             a = netCDF4.Dataset(sys.argv[1]); b = netCDF4.Dataset(sys.argv[2])\n\
             assert len(a.dimensions['time']) == 6 and a.dimensions['time'].isunlimited()\n\
             for v in b.variables:\n    assert np.array_equal(a[v][:], b[v][:]), v\n",
            &[&url, &s(&joined)],
            "netCDF4-python reads the appended store",
        );
    }
    if crate::util::have("ncdump") {
        let old = tmp.path().join("old.zarr");
        run(
            "nczcopy",
            &["--nczarr-layout", "4.9.0", "-c", "time/2", &s(&a), &s(&old)],
        );
        run("nczcopy", &["--append", &s(&b), &s(&c), &s(&old)]).success();
        let out = Command::new("ncdump")
            .arg(format!("file://{}#mode=nczarr,file", s(&old)))
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;"),
            "{text}"
        );
    }
}

/// Stores xarray wrote (Zarr v2 and v3, consolidated) grow as xarray would grow them:
/// xarray then reads exactly its own join of the files; and xarray appends to ours.
#[test]
fn xarray_stores_grow_and_xarray_grows_ours() {
    let Some(py) = python_with("xarray, zarr, netCDF4") else {
        eprintln!("skipped: no Python with xarray, zarr and netCDF4");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    for format in ["2", "3"] {
        let theirs = tmp.path().join(format!("xr{format}.zarr"));
        python_succeeds(
            &py,
            "import sys, warnings, xarray as xr\nwarnings.simplefilter('ignore')\n\
             xr.open_dataset(sys.argv[1]).to_zarr(sys.argv[2], zarr_format=int(sys.argv[3]), encoding={'v': {'chunks': (2, 2)}})\n",
            &[&s(&a), &s(&theirs), format],
            "xarray writes a store",
        );
        run("nczcopy", &["--append", &s(&b), &s(&c), &s(&theirs)]).success();
        python_succeeds(
            &py,
            "import sys, warnings, xarray as xr\nwarnings.simplefilter('ignore')\n\
             want = xr.concat([xr.open_dataset(f) for f in sys.argv[2:5]], dim='time', data_vars='minimal', coords='minimal', compat='override').load()\n\
             got = xr.open_zarr(sys.argv[1]).load()\n\
             xr.testing.assert_identical(got.drop_attrs(), want.drop_attrs())\n",
            &[&s(&theirs), &s(&a), &s(&b), &s(&c)],
            &format!("xarray reads its v{format} store grown by nczcopy as its own join"),
        );
        // And the other way: xarray appends to a store of ours.
        let ours = tmp.path().join(format!("ours{format}.zarr"));
        let kind = if format == "2" { "zarr" } else { "zarr3" };
        run("nczcopy", &["-k", kind, "-c", "time/2", &s(&a), &s(&ours)]).success();
        python_succeeds(
            &py,
            "import sys, warnings, xarray as xr\nwarnings.simplefilter('ignore')\n\
             for f in sys.argv[2:]:\n    xr.open_dataset(f).to_zarr(sys.argv[1], append_dim='time')\n",
            &[&s(&ours), &s(&b), &s(&c)],
            "xarray appends to our store",
        );
        assert_eq!(statements(&data(&ours)), statements(JOINED), "v{format}");
    }
}

/// The dataset path reads as before at every point a run can be stopped at: killed at
/// growing delays, each run leaves the old dataset or (once it got through) the new
/// one; a run stopped in its metadata step is completed by `nczcopy --append OUT`.
#[test]
fn a_killed_append_leaves_the_dataset_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let (n, x) = (4, 2000);
    let values = |from: usize, rows: usize| -> String {
        (from * x..(from + rows) * x)
            .map(|i| (i % 1000).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let times = |from: usize, rows: usize| -> String {
        (from..from + rows)
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let big = |name: &str, from: usize, rows: usize| {
        let cdl = tmp.path().join(format!("{name}.cdl"));
        fs::write(
            &cdl,
            format!(
                "netcdf {name} {{\ndimensions:\n\ttime = UNLIMITED ;\n\tx = {x} ;\nvariables:\n\
                 \tdouble time(time) ;\n\t\ttime:units = \"days since 2001-01-01\" ;\n\
                 \tint v(time, x) ;\ndata:\n time = {} ;\n v = {} ;\n}}\n",
                times(from, rows),
                values(from, rows)
            ),
        )
        .unwrap();
        let nc = tmp.path().join(format!("{name}.nc"));
        run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
        nc
    };
    let first = big("first", 0, n);
    let more = big("more", n, 400);
    let out = tmp.path().join("t.zarr");
    run(
        "nczcopy",
        &["-d", "9", "-c", "time/3,x/100", &s(&first), &s(&out)],
    )
    .success();
    let before = run("nczdump", &[&s(&out)]).stdout();
    let chunks = || fs::read_dir(out.join("v")).unwrap().count();
    let chunks_before = chunks();
    // Kills after new chunks were written, the old dataset reading on.
    let mut mid_way = 0;
    let mut got_through = false;
    for delay in [0u64, 2, 5, 10, 20, 40, 80, 160, 320, 640, 1280, 5000] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nczcopy"))
            .args(["--append", "--memory", "4M", &s(&more), &s(&out)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill();
        child.wait().unwrap();
        if out.join(".nczcopy/append.json").exists() {
            assert_eq!(run("nczcopy", &["--append", &s(&out)]).code(), 0);
        }
        let now = run("nczdump", &[&s(&out)]).stdout();
        if now != before {
            assert!(
                now.contains(&format!("time = UNLIMITED ; // ({} currently)", n + 400)),
                "after a kill at {delay} ms the dataset is neither the old nor the new one"
            );
            got_through = true;
            break;
        }
        if chunks() > chunks_before {
            mid_way += 1;
        }
    }
    assert!(got_through, "no run got through");
    assert!(mid_way > 0, "no run was stopped after writing chunks");
    // The grown dataset is the join of the two.
    let joined = tmp.path().join("joined.zarr");
    run(
        "nczcopy",
        &[
            "-d",
            "9",
            "-c",
            "time/3,x/100",
            &s(&first),
            &s(&more),
            &s(&joined),
        ],
    )
    .success();
    crate::util::assert_equal_datasets(&out, &joined, "appended");
}

/// A run stopped between the documents it writes last is completed on the next: the
/// record it left is found, a dry run refuses to go on, `--append OUT` completes it.
#[test]
fn an_append_stopped_in_its_metadata_step_is_completed() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, _] = parts(tmp.path());
    let out = tmp.path().join("o.zarr");
    run("nczcopy", &["-c", "time/2", &s(&a), &s(&out)]).success();
    let docs = ["v/.zarray", "time/.zarray", ".zattrs", ".zmetadata"];
    let old: Vec<String> = docs
        .iter()
        .map(|d| fs::read_to_string(out.join(d)).unwrap())
        .collect();
    run("nczcopy", &["--append", &s(&b), &s(&out)]).success();
    let new: Vec<String> = docs
        .iter()
        .map(|d| fs::read_to_string(out.join(d)).unwrap())
        .collect();
    // As if stopped after the first two documents.
    for (d, text) in docs.iter().zip(&old).skip(2) {
        fs::write(out.join(d), text).unwrap();
    }
    let entries: Vec<String> = docs
        .iter()
        .zip(old.iter().zip(&new))
        .map(|(d, (o, n))| {
            format!(
                "{{\"key\":{},\"old\":{},\"new\":{}}}",
                json_string(d),
                json_string(o),
                json_string(n)
            )
        })
        .collect();
    fs::create_dir_all(out.join(".nczcopy")).unwrap();
    fs::write(
        out.join(".nczcopy/append.json"),
        format!("{{\"docs\":[{}]}}", entries.join(",")),
    )
    .unwrap();
    let dry = run("nczcopy", &["--append", "--dry-run", &s(&b), &s(&out)]);
    assert_eq!(dry.code(), 1);
    assert!(
        dry.stderr().contains("nczcopy --append"),
        "{}",
        dry.stderr()
    );
    let done = run("nczcopy", &["--append", &s(&out)]);
    assert_eq!(done.code(), 0, "{}", done.stderr());
    assert!(done.stderr().contains("completed"), "{}", done.stderr());
    assert!(!out.join(".nczcopy").exists());
    for (d, n) in docs.iter().zip(&new) {
        assert_eq!(&fs::read_to_string(out.join(d)).unwrap(), n, "{d}");
    }
    assert!(
        data(&out).starts_with("time = 0, 1, 2, 3, 4 ;"),
        "{}",
        data(&out)
    );
    // A document someone else changed since the record: refused, nothing written.
    fs::create_dir_all(out.join(".nczcopy")).unwrap();
    fs::write(
        out.join(".nczcopy/append.json"),
        format!("{{\"docs\":[{}]}}", entries.join(",")),
    )
    .unwrap();
    // (Changed as JSON: spacing alone is the same document.)
    fs::write(
        out.join(".zattrs"),
        new[2].replacen('{', "{\"changed\": 1, ", 1),
    )
    .unwrap();
    let before = tree(&out);
    let r = run("nczcopy", &["--append", &s(&out)]);
    assert_eq!(r.code(), 1);
    assert!(r.stderr().contains("has changed since"), "{}", r.stderr());
    assert_eq!(tree(&out), before);
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What cannot be appended is refused in one line, and nothing is written: a zip
/// archive, a missing dataset, an input that comes before the dataset or overlaps it,
/// one of another structure, options that would change the store; a dry run prints
/// the plan and writes nothing.
#[test]
fn appends_that_cannot_be_done_are_refused_and_a_dry_run_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let out = tmp.path().join("o.zarr");
    run("nczcopy", &["-c", "time/2", &s(&b), &s(&out)]).success();
    let before = tree(&out);
    let other = part(tmp.path(), "other", "2001-02-01", "0", "1, 2", "30, 40");
    let zip = tmp.path().join("o.zip");
    run("nczcopy", &[&s(&a), &s(&zip)]).success();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![s(&a), s(&out)], "out of order"),
        (vec!["--sort".into(), s(&a), s(&out)], "comes before"),
        (vec![s(&b), s(&out)], "overlaps"),
        (
            vec![s(&other), s(&out)],
            "variable '/lat' does not have the dimension 'time' and its values differ",
        ),
        (
            vec![s(&c), s(&zip)],
            "zip archive cannot be changed in place",
        ),
        (vec![s(&c), s(&tmp.path().join("none.zarr"))], "none.zarr"),
        (vec![s(&c), s(&a)], "a file"),
    ];
    for (args, says) in cases {
        let mut all = vec!["--append".to_string()];
        all.extend(args);
        let r = run(
            "nczcopy",
            &all.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(r.code(), 1, "{all:?}: {}", r.stderr());
        assert!(r.stderr().contains(says), "{all:?}: {}", r.stderr());
        assert_eq!(r.stderr().trim().lines().count(), 1, "{}", r.stderr());
        assert_eq!(tree(&out), before);
    }
    let r = run("nczcopy", &["--append", "-c", "time/4", &s(&c), &s(&out)]);
    assert_eq!(r.code(), 2, "{}", r.stderr());
    let dry = run("nczcopy", &["--append", "--dry-run", &s(&c), &s(&out)]);
    dry.success();
    assert!(
        dry.stdout().contains("dimension 'time' from 2 to 3")
            && dry.stdout().contains("/v: writes [2:3, 0:2]"),
        "{}",
        dry.stdout()
    );
    assert_eq!(tree(&out), before);
}

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((s(&p), fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// On S3 (each put replaces an object whole): NCZarr and Zarr v3 stores grow there as
/// on disk, and no record of the metadata step is left.
#[test]
fn stores_on_s3_grow_in_place() {
    let Some(s3) = crate::util::s3::server("append") else {
        return;
    };
    let keys = s3.keys();
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    for (name, kind) in [("n.zarr", "nczarr"), ("v3.zarr", "zarr3")] {
        let url = s3.url(name);
        s3.run(
            "nczcopy",
            &["-k", kind, "-c", "time/2", &s(&a), &url],
            &keys,
        )
        .success();
        s3.run("nczcopy", &["--append", &s(&b), &s(&c), &url], &keys)
            .success();
        let dump = s3.run("nczdump", &[&url], &keys).stdout();
        let flat: String = dump.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;")
                && flat.contains("time = 0, 1, 2, 3, 4, 5 ;"),
            "{kind}: {dump}"
        );
        let journal = nczarr::store::StoreKey::new(nczarr::append::JOURNAL).unwrap();
        use nczarr::store::ReadableStore;
        assert!(s3.store(name).get(&journal).unwrap().is_none(), "{kind}");
    }
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
