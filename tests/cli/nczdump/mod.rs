//! nczdump: options, output layout, exit codes; its sub-modules by feature and input.

/// Malformed and damaged datasets: one clear line, non-zero exit.
mod bad_inputs;
/// Reading from GCS and Azure emulators and a web server (skipped without them).
mod clouds;
/// Real files of a second corpus (issue 61): each class of difference, reproduced.
mod hdf5_corpus;
/// `-j`: JSON output and its schema.
mod json;
/// `-x` (issue 61): NcML of classic-model datasets, against ncdump -x.
mod ncml;
/// netCDF classic, 64-bit offset, CDF-5 and netCDF-4 files as input.
mod netcdf_files;
/// Real files from other writers (issue 39): each class of difference, reproduced.
mod other_writers;
/// Datasets written by the peers (golden corpus, netcdf-c's fixtures) against ncdump.
mod peers;
/// Reading from a local S3 server (skipped without one).
mod s3;
/// `--dim` subsets printed (issue 42).
mod subset;
/// CF time: `-t`/`-i` against ncdump.
mod times;
/// Zarr version 3 stores read.
mod zarr3;

use std::fs;

use crate::util::options::gen;
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

/// netcdf-c writes a char attribute's bytes into `.zattrs` as they are, even when they
/// are not UTF-8 (Latin-1 text): such a store opens, and the bytes print as ncdump
/// prints them from a netCDF-4 file (as they are; a DEL as `\177`).
#[test]
fn char_attributes_netcdf_c_wrote_as_raw_bytes_keep_their_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("l1.cdl");
    std::fs::write(
        &cdl,
        "netcdf l1 {\nvariables:\n int v ;\n  v:c = \"x\" ;\ndata:\n v = 1 ;\n}\n",
    )
    .unwrap();
    let store = tmp.path().join("l1.zarr");
    run(
        "nczgen",
        &["-o", &store.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let key = store.join("v/.zattrs");
    let attrs = std::fs::read(&key).unwrap();
    let at = attrs.windows(5).position(|w| w == b"\"c\": ").unwrap() + 5;
    let mut raw = attrs[..at].to_vec();
    raw.extend_from_slice(b"\"\x80\x7fAZ \xe9t\xe9 caf\xc3\xa9\"");
    let rest = &attrs[at..];
    let close = rest[1..].iter().position(|&b| b == b'"').unwrap() + 2;
    raw.extend_from_slice(&rest[close..]);
    std::fs::write(&key, raw).unwrap();
    // As netcdf-c writes it: no consolidated metadata.
    std::fs::remove_file(store.join(".zmetadata")).unwrap();
    let out = run("nczdump", &[&store.to_string_lossy()]);
    out.success();
    let line = out
        .output
        .stdout
        .split(|&b| b == b'\n')
        .find(|l| l.starts_with(b"\t\tv:c = "))
        .unwrap()
        .to_vec();
    assert_eq!(
        line,
        b"\t\tv:c = \"\x80\\177AZ \xe9t\xe9 caf\xc3\xa9\" ;".to_vec()
    );
}

/// The header of a dataset with enough variables for the walk to build them on every
/// core (five in the root, twenty in each of three groups), in canonical CDL.
fn many_variables_cdl() -> String {
    let vars = |ind: &str, g: &str, n: usize| {
        let mut out = format!("{ind}variables:\n");
        for v in 0..n {
            out += &format!("{ind}\tfloat v{g}_{v}(x) ;\n");
            out += &format!("{ind}\t\tv{g}_{v}:units = \"m\" ;\n");
            out += &format!("{ind}\t\tv{g}_{v}:scale = {v}.5f ;\n");
        }
        out
    };
    let mut cdl = String::from("netcdf many {\ndimensions:\n\tx = 3 ;\n");
    cdl += &vars("", "r", 5);
    for g in 0..3 {
        cdl += &format!("\ngroup: g{g} {{\n");
        cdl += &vars("  ", &format!("g{g}"), 20);
        cdl += &format!("  }} // group g{g}\n");
    }
    cdl + "}\n"
}

#[test]
fn many_variables_in_groups_come_out_in_order_with_their_problems() {
    let dir = tempfile::tempdir().unwrap();
    let cdl = dir.path().join("many.cdl");
    std::fs::write(&cdl, many_variables_cdl()).unwrap();
    let store = dir.path().join("many.zarr");
    let store_str = store.to_string_lossy().into_owned();
    run("nczgen", &["-o", &store_str, &cdl.to_string_lossy()]).success();
    run("nczdump", &["-h", &store_str])
        .success()
        .stdout_is(&many_variables_cdl());
    // Damage an attribute of the root and one of a variable in g0 (values their types
    // refuse) and a variable's array in g2, and drop the consolidated metadata so the
    // documents are read: each problem is reported once, in the order of a
    // depth-first read (a group's own, its variables', then its subgroups'), the rest
    // printed.
    let damage = |key: &str, add: &str| {
        let path = store.join(key);
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text
            .replacen('{', &format!(r#"{{"bad": "{add}", "#), 1)
            .replacen(r#""types": {"#, r#""types": {"bad": "<f4", "#, 1);
        std::fs::write(&path, text).unwrap();
    };
    damage(".zattrs", "root");
    damage("g0/vg0_3/.zattrs", "var");
    std::fs::write(store.join("g2/vg2_7/.zarray"), r#"{"zarr_format": 2}"#).unwrap();
    std::fs::remove_file(store.join(".zmetadata")).unwrap();
    let out = run("nczdump", &["-h", &store_str]);
    assert_eq!(out.code(), 1, "{}", out.stderr());
    let problems: Vec<String> = out.stderr().lines().map(str::to_string).collect();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems[0].contains("'.zattrs'"), "{problems:?}");
    assert!(problems[1].contains("g0/vg0_3/.zattrs"), "{problems:?}");
    assert!(
        problems[2].contains("g2/vg2_7") && problems[2].contains("skipped"),
        "{problems:?}"
    );
    let dump = out.stdout();
    assert!(dump.contains("vg0_3:units") && !dump.contains("vg2_7") && dump.contains("vg2_8(x)"));
}

#[test]
fn nczdump_p_g_k_and_xf() {
    let tmp = tempfile::tempdir().unwrap();
    let out = gen(tmp.path(), "o.zarr", &[]);
    let p = run("nczdump", &["-p", "3,5", &out]).success().stdout();
    assert!(p.contains("\n f = 3.14, 2.72, _ ;\n"), "{p}");
    assert!(p.contains("\n d = 3.1416, 1e-300, 2 ;\n"), "{p}");
    assert!(p.contains("\t\tf:_FillValue = -1.f ;\n"), "{p}");

    let g = run("nczdump", &["-g", "g", &out]).success().stdout();
    assert!(g.contains("\n   i = 7, 8, 9 ;\n"), "{g}");
    assert!(
        !g.contains(" f = ") && !g.contains(" m ="),
        "root data printed: {g}"
    );
    assert!(g.contains("\tfloat f(x) ;"), "the header stays whole: {g}");

    run("nczdump", &["-K", &out])
        .stdout_is("NCZarr 2.0.0, netcdf-c 4.9.3+/4.10 layout (_nczarr_* attributes in .zattrs)\n");

    let xf = run("nczdump", &["-h", "-XF", &out]).success().stdout();
    assert!(xf.contains("\t\tfloat f:_FillValue = -1.f ;\n"), "{xf}");
    assert!(xf.contains("\t\tshort m:_FillValue = -9s ;\n"), "{xf}");
}

/// Every `-p` precision prints what ncdump prints, on values whose text fills the
/// formatter's word (the point in its last byte: `1234567.8` at 8 digits was printed
/// `9234567.8` before) and on either side of every layout (exponent, leading zeros).
#[test]
fn nczdump_p_every_precision_as_ncdump() {
    if !crate::util::have("ncgen") || !crate::util::have("ncdump") {
        eprintln!("skipped: ncgen/ncdump (netcdf-bin) not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("p.cdl");
    fs::write(
        &cdl,
        "netcdf p {\ndimensions:\n\tn = 9 ;\nvariables:\n\tfloat f(n) ;\n\tdouble d(n) ;\ndata:\n \
         f = 1234567.8, 12345678, 0.1, 1.5e-05, -9.876543e-07, 123.45678, 3.4e+38, 1.e-44, 99999.99 ;\n \
         d = 123456789012345.6, 1.2345678901234567e+300, 0.1, -9.87654321e-07, 1234567.75, \
         99999999.99999999, 4.9e-324, 0.00012345678901234, 1e+16 ;\n}\n",
    )
    .unwrap();
    let nc = tmp.path().join("p.nc");
    let made = std::process::Command::new("ncgen")
        .args(["-4", "-o", nc.to_str().unwrap(), cdl.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(made.success());
    for p in 1..=17 {
        let arg = format!("{p},{p}");
        let theirs = std::process::Command::new("ncdump")
            .args(["-p", &arg, nc.to_str().unwrap()])
            .output()
            .unwrap();
        let ours = run("nczdump", &["-p", &arg, nc.to_str().unwrap()])
            .success()
            .stdout();
        assert_eq!(ours, String::from_utf8_lossy(&theirs.stdout), "-p {arg}");
    }
}

#[test]
fn a_zarr_v2_store_of_one_array_is_a_dataset_of_one_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("one.zarr");
    fs::create_dir(&root).unwrap();
    fs::write(
        root.join(".zarray"),
        r#"{"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "<i2", "fill_value": null, "order": "C", "compressor": null, "filters": null}"#,
    )
    .unwrap();
    fs::write(root.join("0"), [1u8, 0, 2, 0, 3, 0]).unwrap();
    let r = run("nczdump", &[&root.to_string_lossy()]);
    r.success();
    assert!(
        r.stdout().contains("\tshort one(_Anonymous_Dim_3) ;"),
        "{}",
        r.stdout()
    );
    assert!(r.stdout().contains(" one = 1, 2, 3 ;"), "{}", r.stdout());
}
