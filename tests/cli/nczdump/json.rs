//! nczdump `-j`: JSON output, its fields and its schema, and the CDL-shaping options it
//! refuses (issue 38).

use crate::util::datasets::dataset;
use crate::util::run;

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

#[test]
fn json_refuses_the_options_that_shape_cdl() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    for (flag, what) in [
        (vec!["-t"], "-t (dates)"),
        (vec!["-s"], "-s (special attributes)"),
        (vec!["-b", "c"], "-b (row indices)"),
        (vec!["-p", "3"], "-p (digits)"),
    ] {
        let mut args = vec!["--json"];
        args.extend(flag.iter().copied());
        args.push(&input);
        let e = run("nczdump", &args).fails_with_one_line(1);
        assert!(e.contains(&format!("--json does not take {what}")), "{e}");
    }
    run("nczdump", &["--json", "-h", "-n", "x", &input]).success();
}
