//! Every damaged or malformed dataset gives one line naming the problem and exit 1; a
//! damaged array document leaves out its variable only (issue 38).

use std::fs;

use crate::util::datasets::CDL;
use crate::util::{run, run_in, TempStore};

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

#[test]
fn a_damaged_array_document_leaves_out_its_variable_only() {
    let tmp = tempfile::tempdir().unwrap();
    for (kind, doc) in [("zarr", ".zarray"), ("zarr3", "zarr.json")] {
        let out = tmp.path().join(format!("{kind}.zarr"));
        let cdl = tmp.path().join("s.cdl");
        fs::write(&cdl, CDL).unwrap();
        run(
            "nczgen",
            &[
                "-k",
                kind,
                "-o",
                &out.to_string_lossy(),
                &cdl.to_string_lossy(),
            ],
        )
        .success();
        // Without consolidated metadata, as a store another tool changed.
        let _ = fs::remove_file(out.join(".zmetadata"));
        if kind == "zarr3" {
            let root = fs::read_to_string(out.join("zarr.json")).unwrap();
            let cut = root.find(", \"consolidated_metadata\"").unwrap();
            fs::write(out.join("zarr.json"), format!("{}}}", &root[..cut])).unwrap();
        }
        fs::write(out.join("i").join(doc), "{\"broken").unwrap();
        let r = run("nczdump", &[&out.to_string_lossy()]);
        assert_eq!(r.code(), 1, "{kind}: {}", r.stderr());
        assert!(
            r.stdout().contains(" f = 1, 2, NaNf, Infinityf ;"),
            "{kind}: {}",
            r.stdout()
        );
        assert!(!r.stdout().contains(" i ="), "{kind}: {}", r.stdout());
        assert!(
            r.stderr().contains(&format!("key 'i/{doc}'")),
            "{kind}: {}",
            r.stderr()
        );
    }
}
