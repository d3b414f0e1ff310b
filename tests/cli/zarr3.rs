//! Zarr version 3: stores written by zarr-python 3 and xarray (`data/zarr3`, made by
//! `make_zarr3.py`) dump as zarr-python reads them; detection, forcing, partial shard
//! reads and errors.

use crate::util::{data_dir, first_diff, run, TempStore};

fn fixtures() -> std::path::PathBuf {
    data_dir().join("zarr3")
}

/// nczdump's output without its remark lines (`// v: Zarr dtype ...`), which ncdump
/// never prints.
fn without_remarks(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("// ") || l.ends_with("attributes:"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn peer_written_v3_stores_dump_as_zarr_python_reads_them() {
    let stores = fixtures().join("stores");
    let mut names: Vec<String> = std::fs::read_dir(&stores)
        .expect("zarr3 fixtures")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 7, "fixtures missing: {names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let stem = name.trim_end_matches(".zarr");
        let expected =
            std::fs::read_to_string(fixtures().join("expected").join(format!("{stem}.cdl")))
                .expect("expected dump");
        let out = run("nczdump", &[&stores.join(name).to_string_lossy()]);
        let got = without_remarks(&out.stdout());
        if !out.output.status.success() || got != expected {
            failures.push(format!(
                "{stem}: {}\n{}",
                out.stderr(),
                first_diff(&got, &expected)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_format_is_named() {
    let store = fixtures().join("stores/sharding.zarr");
    let s = store.to_string_lossy();
    run("nczdump", &["-K", &s])
        .success()
        .stdout_is("Zarr version 3\n");
    assert!(run("zmapdump", &["format", &s])
        .stdout()
        .starts_with("Zarr version 3\n"));
    let out = run("nczdump", &["-k", &s]);
    out.success().stdout_is("netCDF-4\n");
}

#[test]
fn one_sharded_variable_reads_only_its_shards_each_index_once_and_each_shard_in_one_read() {
    let store = fixtures().join("stores/sharding.zarr");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nczdump"))
        .args(["-v", "a_default", &store.to_string_lossy()])
        .env("NCTRACING", "1")
        .output()
        .expect("run nczdump");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let gets: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("trace: get ") && l.contains("/c/"))
        .collect();
    assert!(
        gets.iter().all(|l| l.contains("get a_default/c/")),
        "{gets:#?}"
    );
    // 9x10 in shards of 4x6: 3x2 shards, each index (4 entries + CRC: 68 bytes) once.
    let index_reads = gets.iter().filter(|l| l.contains("bytes=-68")).count();
    assert_eq!(index_reads, 6, "{gets:#?}");
    // Every inner chunk read is a range of a shard, never the whole shard, and the
    // inner chunks of one shard (written end to end) come in one read.
    assert!(gets.iter().all(|l| l.contains("bytes=")), "{gets:#?}");
    assert_eq!(gets.len() - index_reads, 6, "{gets:#?}");
}

/// A v3 store with one int16 array `v(n=4)` in two chunks, its codecs given.
fn v3_store(codecs: &str, data_type: &str) -> TempStore {
    let s = TempStore::new("v3.zarr");
    s.put(
        "zarr.json",
        r#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#,
    );
    s.put(
        "v/zarr.json",
        format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": {data_type},
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [2]}}}},
            "chunk_key_encoding": {{"name": "default", "configuration": {{"separator": "/"}}}},
            "fill_value": 0, "codecs": {codecs}, "attributes": {{}}, "dimension_names": ["n"]}}"#
        ),
    );
    s.put("v/c/0", [1u8, 0, 2, 0]);
    s
}

#[test]
fn unknown_codecs_and_types_are_one_line_errors_naming_array_and_codec() {
    let ok = v3_store(
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}]"#,
        r#""int16""#,
    );
    let out = run("nczdump", &[&ok.path_str()]);
    assert!(
        out.stdout().contains(" v = 1, 2, 0, 0 ;"),
        "{}",
        out.stdout()
    );

    let s = v3_store(
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "fancy_codec", "configuration": {}}]"#,
        r#""int16""#,
    );
    // The header is readable; the data names the variable and the codec.
    run("nczdump", &["-h", &s.path_str()]).success();
    let err = run("nczdump", &[&s.path_str()]).fails_with_one_line(1);
    assert!(err.contains("'/v'") && err.contains("fancy_codec"), "{err}");

    let c = v3_store(
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}]"#,
        r#""complex64""#,
    );
    let out = run("nczdump", &["-h", &c.path_str()]);
    assert!(
        out.stderr().contains("v/zarr.json") && out.stderr().contains("complex"),
        "{}",
        out.stderr()
    );
    assert!(!out.stderr().contains("panicked"));

    let sharded_after = v3_store(
        r#"[{"name": "sharding_indexed", "configuration": {"chunk_shape": [1]}}, {"name": "gzip", "configuration": {"level": 1}}]"#,
        r#""int16""#,
    );
    let out = run("nczdump", &["-h", &sharded_after.path_str()]);
    assert!(
        out.stderr().contains("after sharding_indexed"),
        "{}",
        out.stderr()
    );
}

#[test]
fn a_damaged_shard_index_is_an_error_naming_the_shard() {
    let s = v3_store(
        r#"[{"name": "sharding_indexed", "configuration": {"chunk_shape": [1],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": "end"}}]"#,
        r#""int16""#,
    );
    // Shard c/0: two 2-byte inner chunks, then an index with a wrong checksum.
    let mut shard = vec![1u8, 0, 2, 0];
    for (o, l) in [(0u64, 2u64), (2, 2)] {
        shard.extend_from_slice(&o.to_le_bytes());
        shard.extend_from_slice(&l.to_le_bytes());
    }
    shard.extend_from_slice(&[0, 0, 0, 0]);
    s.put("v/c/0", shard);
    let err = run("nczdump", &[&s.path_str()]).fails_with_one_line(1);
    assert!(err.contains("v/c/0") && err.contains("checksum"), "{err}");
    // A shard shorter than its index.
    s.put("v/c/0", [1u8, 2, 3]);
    let err = run("nczdump", &[&s.path_str()]).fails_with_one_line(1);
    assert!(
        err.contains("v/c/0") && err.contains("shard index"),
        "{err}"
    );
}

#[test]
fn a_store_that_is_one_array_is_one_variable() {
    let s = TempStore::new("temps.zarr");
    s.put(
        "zarr.json",
        r#"{"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0, "codecs": [{"name": "bytes"}], "attributes": {"units": "K"}}"#,
    );
    s.put("c/0", [7u8, 8, 9]);
    let out = run("nczdump", &[&s.path_str()]);
    out.success();
    assert!(
        out.stdout().contains("\tubyte temps(_Anonymous_Dim_3) ;"),
        "{}",
        out.stdout()
    );
    assert!(
        out.stdout().contains(" temps = 7, 8, 9 ;"),
        "{}",
        out.stdout()
    );
}

#[test]
fn version_3_wins_where_both_are_and_a_mode_chooses() {
    let s = v3_store(
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}]"#,
        r#""int16""#,
    );
    // A v3 store holding stale version 2 documents is read as zarr-python reads it
    // (issue 39); mode=v2 reads the version 2 ones.
    s.put(".zgroup", r#"{"zarr_format": 2}"#);
    s.put(".zarray", r#"{"zarr_format": 2, "shape": [1]}"#);
    run("nczdump", &["-K", &s.path_str()])
        .success()
        .stdout_is("Zarr version 3\n");
    let url = format!("file://{}#mode=zarr3,file", s.path_str());
    run("nczdump", &["-K", &url])
        .success()
        .stdout_is("Zarr version 3\n");
    s.remove(".zarray");
    let url = format!("file://{}#mode=v2,file", s.path_str());
    let v2 = run("nczdump", &["-K", &url]);
    assert!(v2.stdout().contains("version 2"), "{}", v2.stdout());
    let v2only = TempStore::nczarr_sample("v2.zarr");
    let url = format!("file://{}#mode=v3,file", v2only.path_str());
    let err = run("nczdump", &[&url]).fails_with_one_line(1);
    assert!(err.contains("zarr.json"), "{err}");
}

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

#[test]
fn the_bundled_example_keeps_its_order_through_zarr3() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ocean.zarr");
    let e = example.to_string_lossy();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("ocean3.zarr");
    let o = out.to_string_lossy();
    run("nczcopy", &["-k", "zarr3", "--shards", "time/4", &e, &o]).success();
    let want = run("nczdump", &[&e]).stdout();
    let got = run("nczdump", &["-n", "ocean", &o]).stdout();
    assert!(got == want, "{}", first_diff(&got, &want));
}

/// Copies into shards with less memory than a variable holds, whole and in parts:
/// every slab and every part's block is made of whole shards (a shard cut between
/// two writes would lose the first write's inner chunks).
#[test]
fn sharded_copies_in_small_memory_and_in_parts_keep_every_value() {
    fn refs(a: &[String]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let p = |name: &str| tmp.path().join(name).to_string_lossy().into_owned();
    let values: Vec<String> = (0..400 * 1000).map(|i| i.to_string()).collect();
    let cdl = format!(
        "netcdf big {{\ndimensions:\n\ttime = 400 ;\n\tx = 1000 ;\nvariables:\n\tint v(time, x) ;\n\t\tv:_ChunkSizes = 1, 1000 ;\ndata:\n v = {} ;\n}}\n",
        values.join(", ")
    );
    std::fs::write(p("big.cdl"), cdl).expect("write cdl");
    run("nczgen", &["-o", &p("in.zarr"), &p("big.cdl")]).success();
    let want = run("nczdump", &["-n", "x", &p("in.zarr")])
        .success()
        .stdout();
    let layout = ["-k", "zarr3", "--shards", "time/150", "--memory", "1M"];
    let args: Vec<String> = layout
        .iter()
        .map(|s| s.to_string())
        .chain([p("in.zarr"), p("whole.zarr")])
        .collect();
    run("nczcopy", &refs(&args)).success();
    let got = run("nczdump", &["-n", "x", &p("whole.zarr")])
        .success()
        .stdout();
    assert!(got == want, "{}", first_diff(&want, &got));
    let parts = |extra: &str| -> Vec<String> {
        layout
            .iter()
            .map(|s| s.to_string())
            .chain(extra.split(' ').map(str::to_string))
            .chain([p("in.zarr"), p("parts.zarr")])
            .collect()
    };
    run("nczcopy", &refs(&parts("--metadata-only"))).success();
    for k in 1..=3 {
        run("nczcopy", &refs(&parts(&format!("--part {k}/3")))).success();
    }
    run("nczcopy", &["--finish", &p("parts.zarr")]).success();
    let got = run("nczdump", &["-n", "x", &p("parts.zarr")])
        .success()
        .stdout();
    assert!(got == want, "{}", first_diff(&want, &got));
}
