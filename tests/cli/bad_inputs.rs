//! Every damaged or malformed dataset gives one line naming the problem and exit 1.

use std::fs;

use crate::util::{data_dir, run, run_in, TempStore};

fn dump_error(s: &TempStore) -> String {
    run("nczdump", &[&s.path_str()]).fails_with_one_line(1)
}

#[test]
fn truncated_chunk() {
    let s = TempStore::nczarr_sample("t.file");
    s.put("v/0.0", [1u8, 0, 0, 0, 2, 0]);
    let err = dump_error(&s);
    assert!(
        err.starts_with(&format!(
            "nczdump: {}: variable '/v', chunk 'v/0.0': chunk holds 6 bytes, expected 24",
            s.path_str()
        )),
        "{err}"
    );
}

#[test]
fn corrupt_compressed_bytes() {
    let s = TempStore::nczarr_sample("c.file");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2,3], "fill_value": -2147483647, "order": "C", "compressor": {"id": "zlib", "level": 5}, "filters": null}"#);
    s.put("v/0.0", b"this is not a zlib stream");
    let err = dump_error(&s);
    assert!(
        err.contains("variable '/v': codec 'zlib' failed on chunk 'v/0.0': corrupt zlib stream"),
        "{err}"
    );
}

#[test]
fn malformed_json() {
    let s = TempStore::nczarr_sample("j.file");
    s.put(
        "v/.zarray",
        "{\"zarr_format\": 2,\n \"shape\": [2,3]\n \"dtype\": \"<i4\"}",
    );
    // The variable is left out, the rest printed, the problem said in one line.
    let r = run("nczdump", &[&s.path_str()]);
    let err = r.fails_with_one_line(1);
    assert_eq!(
        err,
        format!(
            "nczdump: {}: key 'v/.zarray': expected ',' or '}}' at line 3 column 2; variable skipped",
            s.path_str()
        )
    );
    assert!(r.stdout().starts_with("netcdf j {"), "{}", r.stdout());
}

#[test]
fn shape_and_chunk_rank_mismatch() {
    let s = TempStore::nczarr_sample("m.file");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#);
    let err = dump_error(&s);
    assert!(
        err.ends_with(
            "key 'v/.zarray': shape [2, 3] has 2 dimensions but chunks [2] has 1; variable skipped"
        ),
        "{err}"
    );
}

#[test]
fn missing_zarray() {
    let s = TempStore::nczarr_sample("z.file");
    s.remove("v/.zarray");
    let err = dump_error(&s);
    assert_eq!(
        err,
        format!(
            "nczdump: {}: key 'v/.zarray': missing: the variable has no .zarray",
            s.path_str()
        )
    );
}

#[test]
fn unknown_dtype() {
    let s = TempStore::nczarr_sample("d.file");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<c8", "chunks": [2,3], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#);
    let err = dump_error(&s);
    assert!(
        err.contains(
            "key 'v/.zarray': unsupported Zarr dtype '<c8': complex numbers have no netCDF type"
        ),
        "{err}"
    );
}

#[test]
fn unknown_codec() {
    let s = TempStore::nczarr_sample("u.file");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2,3], "fill_value": 0, "order": "C", "compressor": {"id": "szip", "mask": 4}, "filters": null}"#);
    let err = dump_error(&s);
    assert!(
        err.contains("variable '/v': codec {\"id\": \"szip\", \"mask\": 4}: unknown codec 'szip'"),
        "{err}"
    );
}

#[test]
fn directory_that_is_not_zarr() {
    let s = TempStore::new("plain");
    s.put("readme.txt", "hello");
    let err = dump_error(&s);
    assert_eq!(err, format!("nczdump: {}: not a Zarr dataset (no .zgroup, .zarray, .zmetadata, .nczarr or zarr.json at its root)", s.path_str()));
}

#[test]
fn empty_zip() {
    let dir = tempfile::tempdir().unwrap();
    let w = zip::ZipWriter::new(std::fs::File::create(dir.path().join("e.zip")).unwrap());
    w.finish().unwrap();
    let err = run_in("nczdump", dir.path(), &["e.zip"]).fails_with_one_line(1);
    assert_eq!(err, "nczdump: e.zip: empty zip archive: it holds no files");
}

#[test]
fn file_that_is_not_a_zip() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.zip"), b"PK? no").unwrap();
    let err = run_in("nczdump", dir.path(), &["x.zip"]).fails_with_one_line(1);
    assert!(
        err.starts_with("nczdump: x.zip: not a readable zip archive"),
        "{err}"
    );
}

#[test]
fn fill_value_that_does_not_fit() {
    let s = TempStore::nczarr_sample("f.file");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2,3], "fill_value": 1e20, "order": "C", "compressor": null, "filters": null}"#);
    let err = dump_error(&s);
    assert!(
        err.contains("fill_value 1e20 does not fit dtype <i4"),
        "{err}"
    );
}

#[test]
fn huge_declared_shape_is_refused() {
    let s = TempStore::nczarr_sample("h.file");
    s.put(".zattrs", r#"{"_nczarr_group": {"dimensions": {"x": 4294967296, "y": 4294967296}, "arrays": ["v"], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}}"#);
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [4294967296, 4294967296], "dtype": "<i4", "chunks": [1, 1], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#);
    let err = dump_error(&s);
    assert!(err.contains("more than 2^48 chunks"), "{err}");
}

#[test]
fn shape_disagrees_with_dimension() {
    let s = TempStore::nczarr_sample("s.file");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [5,3], "dtype": "<i4", "chunks": [5,3], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#);
    let err = dump_error(&s);
    assert!(
        err.ends_with(
            "variable '/v': its array has length 5 along dimension '/x', which has length 2"
        ),
        "{err}"
    );
}

#[test]
fn checksum_mismatch() {
    let s = TempStore::nczarr_sample("k.file");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2,3], "fill_value": 0, "order": "C", "compressor": {"id": "fletcher32"}, "filters": null}"#);
    let mut data: Vec<u8> = (1..=6i32).flat_map(|v| v.to_le_bytes()).collect();
    data.extend_from_slice(&[0, 0, 0, 0]);
    s.put("v/0.0", data);
    let err = dump_error(&s);
    assert!(
        err.contains("codec 'fletcher32' failed on chunk 'v/0.0': fletcher32 checksum mismatch"),
        "{err}"
    );
}

/// The exact text of common errors: the path once, each cause once (no
/// `a.nc: a.nc: not a directory: not a directory`).
#[test]
fn common_errors_say_each_thing_once() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |name: &str| tmp.path().join(name).to_string_lossy().into_owned();
    fs::write(p("empty.nc"), b"").unwrap();
    fs::write(p("text.nc"), b"just text\n").unwrap();
    fs::write(
        p("bad.cdl"),
        "netcdf x { dimensions: n = 2 ; variables: int v(m) ; }\n",
    )
    .unwrap();
    let cdl = data_dir()
        .join("golden/cases/coords.cdl")
        .to_string_lossy()
        .into_owned();
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ocean.zarr")
        .to_string_lossy()
        .into_owned();
    let long = p(&"x".repeat(300));
    let not_nc = "not a netCDF file (no netCDF or HDF5 signature in its first bytes), nor a Zarr dataset (a directory or a .zip)";
    let cases: Vec<(&str, Vec<String>, String)> = vec![
        ("nczdump", vec![p("empty.nc")], format!("nczdump: {}: {not_nc}", p("empty.nc"))),
        ("nczdump", vec![p("text.nc")], format!("nczdump: {}: {not_nc}", p("text.nc"))),
        ("nczcopy", vec![p("text.nc"), p("o.zarr")], format!("nczcopy: {}: {not_nc}", p("text.nc"))),
        ("nczdump", vec![p("missing.zarr")], format!("nczdump: {}: no such file or directory", p("missing.zarr"))),
        ("nczdump", vec![long.clone()], format!("nczdump: {long}: File name too long (os error 36)")),
        (
            "nczgen",
            vec!["-o".into(), p("no/dir/x.zarr"), cdl.clone()],
            format!("nczgen: {}: {}: output directory does not exist", p("no/dir/x.zarr"), p("no/dir")),
        ),
        (
            "nczgen",
            vec![p("missing.cdl")],
            format!("nczgen: {}: No such file or directory (os error 2)", p("missing.cdl")),
        ),
        (
            "nczgen",
            vec!["-o".into(), p("b.zarr"), p("bad.cdl")],
            format!("nczgen: {}:1:49: undefined or forward referenced dimension: m", p("bad.cdl")),
        ),
        (
            "nczdump",
            vec!["ftp://h/x".into()],
            "nczdump: ftp://h/x: unsupported URL scheme 'ftp' (use a path, file://, s3://, gs://, az://, abfs:// or https://)".into(),
        ),
        (
            "nczdump",
            vec!["s3://b/k#mode=zip".into()],
            "nczdump: s3://b/k#mode=zip: conflicting storage modes 'zip' and 's3'".into(),
        ),
        (
            "nczdump",
            vec!["file:///x#mode=bogus".into()],
            "nczdump: file:///x#mode=bogus: unknown mode flag 'bogus' (known: nczarr, zarr, xarray, noxarray, file, zip, s3, gs3, consolidated, v2, zarr3, v3, bytes, kerchunk)".into(),
        ),
        (
            "nczcopy",
            vec![example.clone(), "https://example.org/x.zarr".into()],
            "nczcopy: https://example.org/x.zarr: a web server (http/https URL) cannot be written; write to a directory, a .zip, S3 ('#mode=s3' for an S3-compatible server), GCS or Azure".into(),
        ),
        (
            "zmapdump",
            vec!["object".into(), example.clone(), "nokey".into()],
            format!("zmapdump: {example}: key 'nokey' does not exist"),
        ),
        (
            "nczdump",
            vec![tmp.path().to_string_lossy().into_owned()],
            format!(
                "nczdump: {}: not a Zarr dataset (no .zgroup, .zarray, .zmetadata, .nczarr or zarr.json at its root)",
                tmp.path().display()
            ),
        ),
    ];
    for (tool, args, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = run(tool, &args).fails_with_one_line(1);
        assert_eq!(got, want, "{tool} {args:?}");
    }
}
