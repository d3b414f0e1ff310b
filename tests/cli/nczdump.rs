use crate::util::{run, run_in, sample_dump, TempStore};

#[test]
fn plain_path_and_url_give_the_same_dump() {
    let s = TempStore::nczarr_sample("sample.file");
    run("nczdump", &[&s.path_str()])
        .success()
        .stdout_is(&sample_dump("sample"));
    let url = format!("file://{}#mode=nczarr,file", s.path_str());
    run("nczdump", &[&url])
        .success()
        .stdout_is(&sample_dump("sample"));
}

#[test]
fn name_option_and_header_only() {
    let s = TempStore::nczarr_sample("x.zarr");
    let out = run("nczdump", &["-h", "-n", "other", &s.path_str()]);
    out.success();
    assert!(out.stdout().starts_with("netcdf other {\n"));
    assert!(!out.stdout().contains("data:"));
    assert!(out.stdout().ends_with("\t\t:title = \"sample\" ;\n}\n"));
}

#[test]
fn kind_prints_netcdf4() {
    let s = TempStore::nczarr_sample("k.file");
    run("nczdump", &["-k", &s.path_str()])
        .success()
        .stdout_is("netCDF-4\n");
}

#[test]
fn special_attributes() {
    let s = TempStore::nczarr_sample("sp.file");
    let out = run("nczdump", &["-s", "-h", &s.path_str()]);
    out.success();
    let text = out.stdout();
    assert!(text.contains("\t\tv:_Storage = \"chunked\" ;\n\t\tv:_ChunkSizes = 2, 3 ;\n\t\tv:_Endianness = \"little\" ;\n"), "{text}");
    assert!(
        text.contains(
            "\t\t:_SuperblockVersion = 2 ;\n\t\t:_IsNetcdf4 = 1 ;\n\t\t:_Format = \"netCDF-4\" ;\n"
        ),
        "{text}"
    );
}

#[test]
fn variable_selection() {
    let s = TempStore::nczarr_sample("sel.file");
    let out = run("nczdump", &["-v", "v", &s.path_str()]);
    out.success();
    assert!(out.stdout().contains(" v =\n  1, 2, 3,\n"));
    let err = run("nczdump", &["-v", "nope", &s.path_str()]).fails_with_one_line(1);
    assert_eq!(err, "nczdump: nope: No such variable");
}

#[test]
fn line_length_and_annotations() {
    let s = TempStore::nczarr_sample("ann.file");
    let out = run("nczdump", &["-b", "c", &s.path_str()]);
    out.success();
    assert!(
        out.stdout()
            .contains(" v =\n  // v(0, 0-2)\n    1, 2, 3,\n  // v(1, 0-2)\n    4, 5, 6 ;\n"),
        "{}",
        out.stdout()
    );
    let out = run("nczdump", &["-f", "f", &s.path_str()]);
    out.success();
    assert!(
        out.stdout()
            .contains(" v =\n  1,   // v(1,1)\n    2,   // v(2,1)\n    3,  // v(3,1)\n"),
        "{}",
        out.stdout()
    );
    let err = run("nczdump", &["-l", "5", &s.path_str()]).fails_with_one_line(1);
    assert_eq!(err, "nczdump: unreasonably small line length specified: 5");
}

#[test]
fn ncml_is_refused_like_ncdump() {
    let s = TempStore::nczarr_sample("x.file");
    let err = run("nczdump", &["-x", &s.path_str()]).fails_with_one_line(1);
    assert_eq!(
        err,
        "nczdump: NcML output (-x) currently only permitted for netCDF classic model"
    );
}

#[test]
fn missing_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let err = run_in("nczdump", dir.path(), &["nothere.zarr"]).fails_with_one_line(1);
    assert_eq!(err, "nczdump: nothere.zarr: no such file or directory");
}

#[test]
fn unknown_mode_flag() {
    let err = run("nczdump", &["file:///tmp/x#mode=nczarr,bogus"]).fails_with_one_line(1);
    assert!(
        err.starts_with("nczdump: file:///tmp/x#mode=nczarr,bogus: unknown mode flag 'bogus'"),
        "{err}"
    );
}

#[test]
fn usage_error_keeps_clap_exit_code() {
    let out = run("nczdump", &[]);
    assert_eq!(out.code(), 2);
}

#[test]
fn broken_pipe_is_quiet() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let s = TempStore::new("big.file");
    s.put(".zgroup", r#"{"zarr_format": 2}"#);
    s.put(".zattrs", "{}");
    s.put("v/.zarray", r#"{"zarr_format": 2, "shape": [200000], "dtype": "<f8", "chunks": [50000], "fill_value": 0.5, "order": "C", "compressor": null, "filters": null}"#);
    s.put("v/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["n"]}"#);
    let mut child = Command::new(env!("CARGO_BIN_EXE_nczdump"))
        .arg(s.path_str())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 64];
    stdout.read_exact(&mut buf).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn tracing_goes_to_stderr() {
    let s = TempStore::nczarr_sample("t.file");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nczdump"))
        .arg(s.path_str())
        .env("NCTRACING", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nczdump: trace: metadata generation: NCZarr 2.0.0, netcdf-c 4.9.3+"),
        "{err}"
    );
    assert!(err.contains("nczdump: trace: get v/.zarray"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        crate::util::sample_dump("t")
    );
}

#[test]
fn pure_zarr_with_groups_and_inherited_dims() {
    let s = TempStore::new("pz.zarr");
    s.put(".zgroup", r#"{"zarr_format": 2}"#);
    s.put(".zattrs", r#"{"title": "p", "n": 3, "vals": [1, 2.5], "flags": [true, false], "names": ["a", "b"], "meta": {"k": [1,2]}}"#);
    s.put("lat/.zarray", r#"{"zarr_format": 2, "shape": [2], "dtype": "<f4", "chunks": [2], "fill_value": "NaN", "order": "C", "compressor": null, "filters": null}"#);
    s.put("lat/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["lat"]}"#);
    s.put(
        "lat/0",
        [1.5f32, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    s.put("g/.zgroup", r#"{"zarr_format": 2}"#);
    s.put("g/w/.zarray", r#"{"zarr_format": 2, "shape": [2], "dtype": ">i2", "chunks": [1], "fill_value": null, "order": "C", "compressor": null, "filters": null, "dimension_separator": "/"}"#);
    s.put("g/w/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["lat"]}"#);
    s.put("g/w/0", [0u8, 7]);
    s.put("g/w/1", [1u8, 0]);
    let expected = "netcdf pz {\ndimensions:\n\tlat = 2 ;\nvariables:\n\tfloat lat(lat) ;\n\t\tlat:_FillValue = NaNf ;\n\n// global attributes:\n\t\t:title = \"p\" ;\n\t\t:n = 3 ;\n\t\t:vals = 1., 2.5 ;\n\t\t:flags = 1UB, 0UB ;\n\t\tstring :names = \"a\", \"b\" ;\n\t\t:meta = \"{\\\"k\\\": [1, 2]}\" ;\ndata:\n\n lat = 1.5, -2 ;\n\ngroup: g {\n  variables:\n  \tshort w(lat) ;\n  data:\n\n   w = 7, 256 ;\n  } // group g\n}\n";
    run("nczdump", &[&s.path_str()])
        .success()
        .stdout_is(expected);
}

#[test]
fn fortran_order_comes_out_in_c_order() {
    let s = TempStore::new("f.zarr");
    s.put(".zgroup", r#"{"zarr_format": 2}"#);
    s.put("a/.zarray", r#"{"zarr_format": 2, "shape": [2, 3], "dtype": "<i4", "chunks": [2, 3], "fill_value": 0, "order": "F", "compressor": null, "filters": null}"#);
    s.put("a/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["r", "c"]}"#);
    // Logical [[1,2,3],[4,5,6]] stored column-major: 1,4,2,5,3,6.
    s.put(
        "a/0.0",
        [1i32, 4, 2, 5, 3, 6]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let out = run("nczdump", &[&s.path_str()]);
    out.success();
    assert!(
        out.stdout().contains(" a =\n  1, 2, 3,\n  4, 5, 6 ;\n"),
        "{}",
        out.stdout()
    );
}

#[test]
fn zip_store_with_keys_at_root_or_under_a_directory() {
    use std::io::Write;
    for top in ["", "sample.file/"] {
        let s = TempStore::nczarr_sample("sample.file");
        let zpath = s.dir.path().join("sample.zip");
        let mut w = zip::ZipWriter::new(std::fs::File::create(&zpath).unwrap());
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for key in [".zgroup", ".zattrs", "v/.zarray", "v/.zattrs", "v/0.0"] {
            w.start_file(format!("{top}{key}"), opts).unwrap();
            w.write_all(&std::fs::read(s.path().join(key)).unwrap())
                .unwrap();
        }
        w.finish().unwrap();
        run("nczdump", &[&zpath.to_string_lossy()])
            .success()
            .stdout_is(&sample_dump("sample"));
        let url = format!("file://{}#mode=nczarr,zip", zpath.to_string_lossy());
        run("nczdump", &[&url])
            .success()
            .stdout_is(&sample_dump("sample"));
    }
}
