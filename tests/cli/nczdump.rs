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

const JSON_CDL: &str = "netcdf j {
dimensions:
\ttime = UNLIMITED ;
\tx = 3 ;
\tlen = 4 ;
\tnone = 0 ;
variables:
\tfloat t(time, x) ;
\t\tt:_FillValue = -1.f ;
\t\tt:units = \"K\" ;
\t\tt:valid_range = 0.f, 400.f ;
\tchar name(x, len) ;
\tstring label(x) ;
\tint scalar ;
\tdouble empty(none) ;
\tshort coords(x) ;
data:
 t = 1.5, NaN, _, Infinity, -Infinity, 2 ;
 name = \"ab\", \"cde\", \"\" ;
 label = \"one\", \"two \\\"q\\\"\", \"\" ;
 scalar = 7 ;
 coords = 1, 2, 3 ;

group: sub {
  variables:
  \tint x(x) ;
  data:
   x = 10, 20, 30 ;
}
}
";

/// Walk `path` (object keys, or array indices as numbers) into a JSON document.
fn at<'a>(doc: &'a nczarr::json::Json, path: &[&str]) -> &'a nczarr::json::Json {
    let mut here = doc;
    for p in path {
        here = match p.parse::<usize>() {
            Ok(i) => &here
                .as_array()
                .unwrap_or_else(|| panic!("{p}: not an array"))[i],
            Err(_) => here
                .get(p)
                .unwrap_or_else(|| panic!("no {p} in {}", here.to_text())),
        };
    }
    here
}

#[test]
fn json_output_holds_the_header_and_the_selected_data() {
    use nczarr::json::parse_str;
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("j.cdl");
    std::fs::write(&cdl, JSON_CDL).unwrap();
    let store = tmp.path().join("j.zarr").to_string_lossy().into_owned();
    run("nczgen", &["-o", &store, &cdl.to_string_lossy()]).success();

    // Header only: every field of every variable, no data.
    let r = run("nczdump", &["--json", "-h", &store]);
    r.success();
    let doc = parse_str(&r.stdout()).expect("valid JSON");
    assert_eq!(at(&doc, &["schema"]).as_str(), Some("nczarr-tools/dump"));
    assert_eq!(at(&doc, &["version"]).as_i64_lenient(), Some(1));
    assert_eq!(at(&doc, &["name"]).as_str(), Some("j"));
    assert_eq!(at(&doc, &["format", "kind"]).as_str(), Some("netCDF-4"));
    assert_eq!(at(&doc, &["root", "name"]).as_str(), Some("/"));
    let dim0 = at(&doc, &["root", "dimensions", "0"]);
    assert_eq!(dim0.get("name").and_then(|v| v.as_str()), Some("time"));
    assert_eq!(dim0.get("length").and_then(|v| v.as_i64_lenient()), Some(2));
    assert_eq!(dim0.get("unlimited"), Some(&nczarr::json::Json::Bool(true)));
    let vars = at(&doc, &["root", "variables"]).as_array().unwrap();
    assert_eq!(vars.len(), 6);
    for v in vars {
        for key in [
            "name",
            "type",
            "dimensions",
            "shape",
            "chunks",
            "codecs",
            "fill_value",
            "attributes",
        ] {
            assert!(v.get(key).is_some(), "{key} missing in {}", v.to_text());
        }
        assert!(v.get("data").is_none(), "no data with -h");
    }
    let t = &vars[0];
    assert_eq!(at(t, &["type"]).as_str(), Some("float"));
    assert_eq!(at(t, &["shape"]).to_text(), "[2,3]");
    assert_eq!(
        match at(t, &["fill_value"]) {
            nczarr::json::Json::Number(n) => n.as_f64(),
            _ => None,
        },
        Some(-1.0)
    );
    assert_eq!(at(t, &["attributes", "1", "name"]).as_str(), Some("units"));
    assert_eq!(at(t, &["attributes", "1", "type"]).as_str(), Some("char"));
    assert_eq!(at(t, &["attributes", "1", "values"]).as_str(), Some("K"));
    assert_eq!(
        at(t, &["attributes", "2", "values"]).to_text(),
        "[0.0,400.0]"
    );
    assert_eq!(
        at(&doc, &["root", "groups", "0", "name"]).as_str(),
        Some("sub")
    );

    // All the data: nested arrays, NaN and infinities as strings, char as strings
    // along the last dimension, NIL-free strings, a scalar as one value.
    let r = run("nczdump", &["--json", &store]);
    r.success();
    let doc = parse_str(&r.stdout()).expect("valid JSON");
    let data = |i: &str| at(&doc, &["root", "variables", i, "data"]).to_text();
    assert_eq!(
        data("0"),
        r#"[[1.5,"NaN",-1.0],["Infinity","-Infinity",2.0]]"#
    );
    assert_eq!(data("1"), r#"["ab","cde",""]"#);
    assert_eq!(data("2"), r#"["one","two \"q\"",""]"#);
    assert_eq!(data("3"), "7");
    assert_eq!(data("4"), "[]");
    assert_eq!(
        at(&doc, &["root", "groups", "0", "variables", "0", "data"]).to_text(),
        "[10,20,30]"
    );

    // Fill values as null, on request; -v selects the data, not the header.
    let r = run(
        "nczdump",
        &["--json", "--json-fill", "null", "-v", "t", &store],
    );
    r.success();
    let doc = parse_str(&r.stdout()).expect("valid JSON");
    let vars = at(&doc, &["root", "variables"]).as_array().unwrap();
    assert_eq!(vars.iter().filter(|v| v.get("data").is_some()).count(), 1);
    assert_eq!(
        at(&vars[0], &["data"]).to_text(),
        r#"[[1.5,"NaN",null],["Infinity","-Infinity",2.0]]"#
    );
    // -c: coordinate variables only (x in the subgroup).
    let r = run("nczdump", &["--json", "-c", &store]);
    let doc = parse_str(&r.stdout()).expect("valid JSON");
    assert!(at(&doc, &["root", "variables", "0"]).get("data").is_none());
    assert!(at(&doc, &["root", "groups", "0", "variables", "0"])
        .get("data")
        .is_some());
    // Bad values are one-line errors.
    let e = run("nczdump", &["--json", "--json-fill", "zero", &store]).fails_with_one_line(1);
    assert!(e.contains("invalid value for --json-fill: zero"), "{e}");
}

/// Every form `--json` prints (header only, all data, `--json-fill null`, `-v`, `-c`,
/// groups, every type, strings, NaN) is valid against `docs/json-schema.json`, checked
/// by the `jsonschema` Python package (skipped without it); the validator is shown to
/// reject documents that break the schema.
#[test]
fn json_output_follows_its_schema() {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    let have_validator = std::process::Command::new(&py)
        .args(["-c", "import jsonschema"])
        .status()
        .is_ok_and(|s| s.success());
    if !have_validator {
        assert!(
            std::env::var("CI").is_err(),
            "CI needs the jsonschema package in NCZARR_PYTHON"
        );
        eprintln!("skipped: no python3 with jsonschema (set NCZARR_PYTHON)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut docs = Vec::new();
    let sources = [
        ("j", JSON_CDL.to_string()),
        (
            "cf_times",
            std::fs::read_to_string(crate::util::data_dir().join("times/cf_times.cdl")).unwrap(),
        ),
    ];
    for (name, text) in sources {
        let cdl = tmp.path().join(format!("{name}.cdl"));
        std::fs::write(&cdl, text).unwrap();
        let store = tmp
            .path()
            .join(format!("{name}.zarr"))
            .to_string_lossy()
            .into_owned();
        run("nczgen", &["-o", &store, &cdl.to_string_lossy()]).success();
        for opts in [
            &["-h"][..],
            &[],
            &["--json-fill", "null"],
            &["-c"],
            &["-g", "g"],
        ] {
            if opts == ["-g", "g"] && name != "cf_times" {
                continue;
            }
            let mut args = vec!["--json"];
            args.extend_from_slice(opts);
            args.push(&store);
            let out = run("nczdump", &args).success().stdout();
            let file = tmp.path().join(format!("{name}{}.json", docs.len()));
            std::fs::write(&file, out).unwrap();
            docs.push(file.to_string_lossy().into_owned());
        }
    }
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json-schema.json");
    let script = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for f in sys.argv[2:]:
    doc = json.load(open(f))
    errs = list(v.iter_errors(doc))
    if errs:
        print(f, errs[0].message, list(errs[0].absolute_path)); sys.exit(1)
# The validator can fail: each of these breaks the schema.
doc = json.load(open(sys.argv[2]))
broken = [
    lambda d: d.update(version=2),
    lambda d: d["root"]["variables"][0].update(type="complex"),
    lambda d: d["root"]["variables"][0].pop("shape"),
    lambda d: d["root"]["dimensions"][0].update(length=-1),
    lambda d: d["root"]["attributes"].append({"name": "a", "type": "int", "values": "text"}),
]
for i, breaks in enumerate(broken):
    d = json.loads(json.dumps(doc))
    breaks(d)
    if v.is_valid(d):
        print("broken document", i, "passed"); sys.exit(1)
print("ok", len(sys.argv) - 2)
"#;
    let out = std::process::Command::new(&py)
        .arg("-c")
        .arg(script)
        .arg(&schema)
        .args(&docs)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(said.trim(), format!("ok {}", docs.len()));
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
