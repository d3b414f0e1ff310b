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

/// The documents a header read asks a store for (NCTRACING's `get` lines, before
/// any chunk): a consolidated NCZarr store no netcdf-c 4.8 `.nczarr`, and a name with
/// `mode=zarr3` only the root `zarr.json` (each a request on S3, and an edit's count).
#[test]
fn a_header_asks_for_no_document_it_does_not_need() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("nczatted/a.cdl");
    let gets = |name: &str| -> Vec<String> {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_nczdump"))
            .args(["-h", name])
            .env("NCTRACING", "1")
            .output()
            .expect("run nczdump");
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{stderr}");
        stderr
            .lines()
            .filter_map(|l| l.split("trace: get ").nth(1))
            .map(|l| l.split(" -> ").next().unwrap_or(l).to_string())
            .collect()
    };
    let nczarr = tmp.path().join("a.zarr");
    run(
        "nczgen",
        &["-o", &nczarr.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let got = gets(&nczarr.to_string_lossy());
    assert_eq!(got, [".zmetadata"], "{got:?}");
    let v3 = tmp.path().join("b.zarr");
    run(
        "nczgen",
        &[
            "-k",
            "zarr3",
            "-o",
            &v3.to_string_lossy(),
            &cdl.to_string_lossy(),
        ],
    )
    .success();
    let got = gets(&format!("file://{}#mode=zarr3,file", v3.display()));
    assert_eq!(
        got.first().map(String::as_str),
        Some("zarr.json"),
        "{got:?}"
    );
    assert!(
        got.iter().all(|k| !k.starts_with('.')),
        "no version 2 document: {got:?}"
    );
}
