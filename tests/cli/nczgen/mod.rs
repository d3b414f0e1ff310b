//! nczgen: CDL to datasets that dump back exactly, errors with file:line:col, safe
//! replacement, ncgen's spellings, options (`-x`, `-H`, `--separator`, zip output),
//! default chunks and the 4.9.0 layout (issue 38); its sub-modules by feature and
//! output.

/// Writing to GCS and Azure emulators (skipped without them).
mod clouds;
/// netcdf-c's CDL corpus, and dumps of real files read back.
mod corpus;
/// netCDF-4 files as output: against ncgen's, decoded by netCDF4-python, xarray, h5py.
mod netcdf4_out;
/// netCDF classic files as output, against ncgen's files.
mod netcdf_out;
/// Writing to a local S3 server (skipped without one).
mod s3;
/// Streaming large data lists: same datasets, errors mid-stream, stdin, signals.
mod stream;
/// Date strings in CDL.
mod times;
/// CDL's user-defined types.
mod user_types;
/// Zarr version 3 output.
mod zarr3;

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::options::gen;
use crate::util::{data_dir, first_diff, have, nczgen, run, run_in};

#[test]
fn golden_cases_compile_and_dump_like_ncdump() {
    let golden = data_dir().join("golden");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for cdl in crate::util::golden_cases() {
        let case = crate::util::case_name(&cdl);
        let expected =
            fs::read_to_string(golden.join("expected").join(format!("{case}.cdl"))).unwrap();
        for (out_name, extra) in [
            (format!("{case}.file"), vec![]),
            (format!("{case}.zip"), vec![]),
            (format!("{case}.z2.zip"), vec!["--zip-layout", "dir"]),
        ] {
            let out = tmp.path().join(&out_name);
            let mut args: Vec<&str> = extra.clone();
            let out_s = out.to_string_lossy().into_owned();
            let cdl_s = cdl.to_string_lossy().into_owned();
            args.extend(["-o", &out_s, &cdl_s]);
            nczgen(&args).success();
            let dump = run("nczdump", &["-n", &case, &out_s]);
            n += 1;
            if dump.stdout() != expected || !dump.output.status.success() {
                failures.push(format!(
                    "{out_name}: {}\n{}",
                    dump.stderr(),
                    first_diff(&dump.stdout(), &expected)
                ));
            }
        }
    }
    assert!(n >= 3 * 15, "only {n} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn errors_are_one_line_with_file_line_and_column() {
    let dir = data_dir().join("cdl_errors");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.zarr");
    let out_s = out.to_string_lossy().into_owned();
    let mut n = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_none_or(|e| e != "cdl") {
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let expected = fs::read_to_string(p.with_extension("err")).unwrap();
        // Compiled in memory, and with every data list streamed.
        for extra in [&[][..], &["--stream-bytes", "1"]] {
            let mut args = extra.to_vec();
            args.extend(["-o", &out_s, &name]);
            let got = run_in("nczgen", &dir, &args).fails_with_one_line(1);
            assert_eq!(got, expected.trim_end(), "{name} {extra:?}");
            assert!(!out.exists(), "{name}: a failed run left {out_s}");
        }
        n += 1;
    }
    assert!(n >= 15);
}

#[test]
fn a_failed_run_leaves_the_existing_dataset_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good.cdl");
    fs::write(
        &good,
        "netcdf g {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 1, 2 ;\n}\n",
    )
    .unwrap();
    let bad = tmp.path().join("bad.cdl");
    fs::write(&bad, "netcdf g {\nvariables:\n\tint v(nodim) ;\n}\n").unwrap();
    let out = tmp.path().join("g.zarr");
    let out_s = out.to_string_lossy().into_owned();
    nczgen(&["-o", &out_s, &good.to_string_lossy()]).success();
    let before = run("nczdump", &[&out_s]).stdout();
    assert!(before.contains(" v = 1, 2 ;"));
    nczgen(&["--overwrite", "-o", &out_s, &bad.to_string_lossy()]).fails_with_one_line(1);
    assert_eq!(run("nczdump", &[&out_s]).stdout(), before);
    // Nothing left behind beside it.
    let names: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    // A good run replaces it completely.
    fs::write(
        &good,
        "netcdf g {\nvariables:\n\tdouble w ;\ndata:\n w = 2.5 ;\n}\n",
    )
    .unwrap();
    nczgen(&["--overwrite", "-o", &out_s, &good.to_string_lossy()]).success();
    let after = run("nczdump", &[&out_s]).stdout();
    assert!(
        after.contains(" w = 2.5 ;") && !after.contains(" v ="),
        "{after}"
    );
}

#[test]
fn ncgen_spelling_and_urls() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("s.cdl");
    fs::write(&cdl, "netcdf s {\ndimensions:\n\tn = 3 ;\nvariables:\n\tfloat t(n) ;\n\t\tt:units = \"K\" ;\ndata:\n t = 1.5, _, 3 ;\n}\n").unwrap();
    let url = format!(
        "file://{}#mode=nczarr,file",
        tmp.path().join("s.file").display()
    );
    nczgen(&["-4", "-lb", "-o", &url, &cdl.to_string_lossy()]).success();
    let out = run("nczdump", &[&url]);
    out.success();
    assert!(
        out.stdout().contains(" t = 1.5, _, 3 ;"),
        "{}",
        out.stdout()
    );
    let err = nczgen(&["-lc", "-o", &url, &cdl.to_string_lossy()]).fails_with_one_line(1);
    assert!(err.contains("only binary output"), "{err}");
    let err = nczgen(&["-k", "cdf5", "-o", &url, &cdl.to_string_lossy()]).fails_with_one_line(1);
    assert!(err.contains("cannot be stored as NCZarr"), "{err}");
}

#[test]
fn pure_zarr_has_no_nczarr_metadata_and_keeps_the_data() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("p.cdl");
    fs::write(&cdl, "netcdf p {\ndimensions:\n\tn = 2 ;\nvariables:\n\tshort v(n) ;\n\t\tv:_FillValue = -1s ;\n\t\tv:scale = 0.5 ;\n\tint s ;\ndata:\n v = 7, _ ;\n s = 3 ;\n}\n").unwrap();
    for (out, args) in [("p1.zarr", vec!["-k", "zarr"]), ("p2.zarr", vec![])] {
        let path = tmp.path().join(out);
        let target = if args.is_empty() {
            format!("file://{}#mode=zarr,file", path.display())
        } else {
            path.to_string_lossy().into_owned()
        };
        let mut a = args.clone();
        let cdl_s = cdl.to_string_lossy().into_owned();
        a.extend(["-o", &target, &cdl_s]);
        nczgen(&a).success();
        for e in walk(&path) {
            let text = fs::read(&e).unwrap();
            assert!(
                !String::from_utf8_lossy(&text).contains("_nczarr"),
                "{}",
                e.display()
            );
        }
        let zarray = fs::read_to_string(path.join("v/.zarray")).unwrap();
        assert!(
            zarray.contains("\"dtype\": \"<i2\"") && zarray.contains("\"fill_value\": -1"),
            "{zarray}"
        );
        assert!(fs::read_to_string(path.join("s/.zarray"))
            .unwrap()
            .contains("\"shape\": []"));
        let out = run("nczdump", &[&path.to_string_lossy()]);
        out.success();
        assert!(
            out.stdout().contains(" v = 7, _ ;") && out.stdout().contains(" s = 3 ;"),
            "{}",
            out.stdout()
        );
    }
}

fn walk(p: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(p).unwrap() {
        let e = e.unwrap().path();
        if e.is_dir() {
            out.extend(walk(&e));
        } else {
            out.push(e);
        }
    }
    out
}

#[test]
fn reads_standard_input_and_reports_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("w.zarr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nczgen"))
        .args(["-o", &out.to_string_lossy()])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"netcdf w {\ndimensions:\n\tn = 2 ;\nvariables:\n\tint v(n) ;\ndata:\n v = 1, 2, 3 ;\n}\n")
        .unwrap();
    let res = child.wait_with_output().unwrap();
    assert!(res.status.success());
    assert_eq!(
        String::from_utf8_lossy(&res.stderr),
        "nczgen: <stdin>:7:12: warning: too many values: 3 given, 2 fit; the rest are ignored\n"
    );
    assert!(run("nczdump", &[&out.to_string_lossy()])
        .stdout()
        .contains(" v = 1, 2 ;"));
}

#[test]
fn out_of_range_integers_are_stored_as_ncgen_stores_them_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("rng.cdl");
    fs::write(
        &cdl,
        "netcdf rng {\ndimensions: n = 3;\nvariables: byte b(n); short s;\ndata: b = 300, -1, 255; s = 70000.5;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("rng.zarr");
    let r = nczgen(&["-o", &out.to_string_lossy(), &cdl.to_string_lossy()]);
    let label = cdl.to_string_lossy();
    assert_eq!(r.code(), 0);
    assert_eq!(
        r.stderr(),
        format!(
            "nczgen: {label}:4:11: warning: 300 is out of range for byte; stored as 44 (as ncgen)\n\
             nczgen: {label}:4:29: warning: 70000 is out of range for short; stored as 4464 (as ncgen)\n"
        )
    );
    let dump = run("nczdump", &[&out.to_string_lossy()]).stdout();
    assert!(dump.contains(" b = 44, -1, -1 ;"), "{dump}");
    assert!(dump.contains(" s = 4464 ;"), "{dump}");
}

/// The netcdf-c 4.9.0 layout holds every golden case without strings, and dumps back
/// the same, except that unlimited dimensions become fixed (4.9.0 has none).
#[test]
fn netcdf_490_layout_round_trips_what_it_can_hold() {
    let golden = data_dir().join("golden");
    let tmp = tempfile::tempdir().unwrap();
    let (mut written, mut refused) = (0, 0);
    for cdl in crate::util::golden_cases() {
        let case = crate::util::case_name(&cdl);
        let expected =
            fs::read_to_string(golden.join("expected").join(format!("{case}.cdl"))).unwrap();
        let out = tmp.path().join(format!("{case}.490"));
        let out_s = out.to_string_lossy().into_owned();
        let r = nczgen(&[
            "--nczarr-layout",
            "4.9.0",
            "-o",
            &out_s,
            &cdl.to_string_lossy(),
        ]);
        if expected.contains("\tstring ") || expected.contains(" string ") {
            let err = r.fails_with_one_line(1);
            assert!(
                err.contains("netcdf-c 4.9.0 cannot read strings"),
                "{case}: {err}"
            );
            assert!(!out.exists(), "{case}: a refused write left {out_s}");
            refused += 1;
            continue;
        }
        assert_eq!(r.code(), 0, "{case}: {}", r.stderr());
        // The same values, with unlimited lengths fixed.
        let fixed: String = expected
            .lines()
            .map(|l| match l.split_once(" = UNLIMITED ; // (") {
                Some((name, rest)) => {
                    format!("{name} = {} ;\n", rest.trim_end_matches(" currently)"))
                }
                None => format!("{l}\n"),
            })
            .collect();
        let dump = run("nczdump", &["-n", &case, &out_s]);
        assert_eq!(
            dump.stdout(),
            fixed,
            "{case}: {}",
            first_diff(&dump.stdout(), &fixed)
        );
        if fixed != expected {
            assert!(
                r.stderr().contains("is written as fixed"),
                "{case}: {}",
                r.stderr()
            );
        }
        // The metadata is where 4.9.0 keeps it, and char arrays are typed as it types them.
        let zgroup = fs::read_to_string(out.join(".zgroup")).unwrap();
        assert!(
            zgroup.contains("\"_NCZARR_SUPERBLOCK\""),
            "{case}: {zgroup}"
        );
        assert!(!fs::read_to_string(out.join(".zattrs"))
            .unwrap()
            .contains("_nczarr_"));
        written += 1;
    }
    assert!(
        written >= 10 && refused >= 1,
        "{written} written, {refused} refused"
    );
}

#[test]
fn netcdf_490_layout_stores_scalars_chars_and_byte_order_as_490_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("l.cdl");
    fs::write(
        &cdl,
        "netcdf l {\ndimensions: x = 3;\nvariables: char c(x); int sc; int be(x); be:_Endianness = \"big\"; be:_DeflateLevel = 1;\ndata: c = \"ab\"; sc = 7; be = 1, 2, 3;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("l.zarr");
    let out_s = out.to_string_lossy().into_owned();
    let r = nczgen(&[
        "--nczarr-layout",
        "4.9.0",
        "-o",
        &out_s,
        &cdl.to_string_lossy(),
    ]);
    assert_eq!(r.code(), 0);
    let err = r.stderr();
    assert!(
        err.contains("variable /be is written little-endian"),
        "{err}"
    );
    assert!(
        err.contains("variable /be is written without its codecs (zlib)"),
        "{err}"
    );
    let zarray = |v: &str| fs::read_to_string(out.join(v).join(".zarray")).unwrap();
    assert!(zarray("c").contains("\"dtype\": \"<U1\""));
    assert_eq!(fs::read(out.join("c/0")).unwrap(), b"ab\0");
    assert!(zarray("sc").contains("\"dimrefs\": [\"/_scalar_\"]"));
    assert!(zarray("be").contains("\"dtype\": \"<i4\""));
    assert!(zarray("be").contains("\"compressor\": null"));
    let dump = run("nczdump", &[&out_s]).stdout();
    assert!(dump.contains("\tint sc ;\n"), "{dump}");
    assert!(!dump.contains("_scalar_"), "{dump}");
    assert!(dump.contains(" c = \"ab\" ;"), "{dump}");
    assert!(dump.contains(" be = 1, 2, 3 ;"), "{dump}");
    // Pure Zarr has no NCZarr generation to choose.
    nczgen(&[
        "--nczarr-layout",
        "4.9.0",
        "-k",
        "zarr",
        "-o",
        &tmp.path().join("p.zarr").to_string_lossy(),
        &cdl.to_string_lossy(),
    ])
    .fails_with_one_line(1);
}

/// A data section large enough to be parsed in parallel pieces, including records of a
/// second unlimited dimension in braces, lands exactly where a small one would.
#[test]
fn large_data_sections_compile_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 700_000;
    let values: Vec<String> = (0..n).map(|k| format!("{}.5", k as i64 - 1000)).collect();
    let records: Vec<String> = (0..300_000)
        .map(|r| format!("{{{}, {}}}", r, r + 1))
        .collect();
    let cdl = format!(
        "netcdf big {{\ndimensions:\n\tn = {n} ;\n\tr = UNLIMITED ;\n\tu = UNLIMITED ;\nvariables:\n\tdouble v(n) ;\n\tint w(r, u) ;\ndata:\n v = {} ;\n w = {} ;\n}}\n",
        values.join(", "),
        records.join(",\n ")
    );
    assert!(cdl.len() > 6 << 20);
    let path = tmp.path().join("big.cdl");
    fs::write(&path, &cdl).unwrap();
    let out = tmp.path().join("big.zarr");
    nczgen(&["-o", &out.to_string_lossy(), &path.to_string_lossy()]).success();
    let dump = run("nczdump", &["-v", "w", &out.to_string_lossy()]).stdout();
    assert!(
        dump.contains("\tr = UNLIMITED ; // (300000 currently)\n"),
        "{}",
        &dump[..300]
    );
    assert!(dump.contains("\tu = UNLIMITED ; // (2 currently)\n"));
    assert!(dump.contains(" w =\n  {0, 1},\n  {1, 2},\n"));
    assert!(dump.contains("  {299999, 300000} ;\n}"));
    let dump = run("nczdump", &["-v", "v", &out.to_string_lossy()]).stdout();
    let data = &dump[dump.find(" v = ").unwrap() + 5..];
    let got: Vec<&str> = data
        .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|s| !s.is_empty() && *s != "}")
        .collect();
    assert_eq!(got.len(), n);
    assert_eq!(got[0], "-1000.5");
    assert_eq!(got[n - 1], format!("{}.5", n as i64 - 1001));
}

/// `.zmetadata` holds every `.zgroup`, `.zarray` and `.zattrs` of the store, each
/// equal to the document beside it, in every v2 layout; a reader given only the
/// consolidated documents (the others removed) dumps the same dataset.
#[test]
fn v2_output_has_consolidated_metadata_equal_to_its_documents() {
    use nczarr::json::{parse_str, Json};
    let tmp = tempfile::tempdir().unwrap();
    let cdl = data_dir().join("golden/cases/nested_groups.cdl");
    let cdl_s = cdl.to_string_lossy().into_owned();
    for (name, extra) in [
        ("nczarr", vec![]),
        ("pure", vec!["-k", "zarr"]),
        ("v490", vec!["--nczarr-layout", "4.9.0"]),
    ] {
        let path = tmp.path().join(format!("{name}.zarr"));
        let out = path.to_string_lossy().into_owned();
        let mut args = extra.clone();
        args.extend(["-o", &out, &cdl_s]);
        nczgen(&args).success();
        let text = fs::read_to_string(path.join(".zmetadata")).expect(".zmetadata");
        let doc = parse_str(&text).unwrap();
        assert_eq!(
            doc.get("zarr_consolidated_format")
                .and_then(Json::as_i64_lenient),
            Some(1)
        );
        let held = doc.get("metadata").and_then(Json::as_object).unwrap();
        let mut on_disk: Vec<String> = walk(&path)
            .into_iter()
            .map(|p| {
                p.strip_prefix(&path)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|k| k.ends_with(".zgroup") || k.ends_with(".zarray") || k.ends_with(".zattrs"))
            .collect();
        on_disk.sort();
        let keys: Vec<String> = held.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(keys, on_disk, "{name}");
        for (k, v) in held {
            let beside = parse_str(&fs::read_to_string(path.join(k)).unwrap()).unwrap();
            assert_eq!(v, &beside, "{name}: {k}");
        }
        if let Some(py) = crate::util::peers::python_with_zarr3() {
            // xarray opens it from the consolidated metadata, without its warning.
            let check = "import sys, warnings, xarray\nwarnings.simplefilter('error')\nxarray.open_zarr(sys.argv[1], consolidated=True, zarr_format=2, decode_cf=False).load()";
            crate::util::python_succeeds(&py, check, &[&out], name);
        }
        let whole = run("nczdump", &[&out]);
        whole.success();
        for k in keys.iter().filter(|k| k.contains('/')) {
            fs::remove_file(path.join(k)).unwrap();
        }
        let consolidated_only = run("nczdump", &[&out]);
        consolidated_only.success();
        assert_eq!(consolidated_only.stdout(), whole.stdout(), "{name}");
    }
}

/// ncgen's reading of `_FillValue = ""` on a char variable: the NUL character, so the
/// unwritten values are NULs and the attribute prints as `""`.
#[test]
fn an_empty_char_fill_value_is_nul_as_in_ncgen() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("cf.cdl");
    fs::write(
        &cdl,
        "netcdf cf {\ndimensions:\n\tn = 3 ;\nvariables:\n\tchar c(n) ;\n\t\tc:_FillValue = \"\" ;\ndata:\n c = \"a\" ;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("cf.zarr");
    nczgen(&["-o", &out.to_string_lossy(), &cdl.to_string_lossy()]).success();
    let got = run("nczdump", &[&out.to_string_lossy()]);
    got.success();
    let want = "netcdf cf {\ndimensions:\n\tn = 3 ;\nvariables:\n\tchar c(n) ;\n\t\tc:_FillValue = \"\" ;\ndata:\n\n c = \"a\" ;\n}\n";
    assert_eq!(got.stdout(), want);
    if let Some(peer) = crate::util::ncgen_ncdump(&cdl, tmp.path()) {
        assert_eq!(peer, want, "ncdump of ncgen's file");
    }
}

/// A CDL file that is not UTF-8 (Latin-1 in a comment and in char data, as netcdf-c's
/// corpus has): the bytes are kept as ncgen keeps them, and the dump is ncdump's.
#[test]
fn latin1_bytes_in_cdl_strings_are_kept_as_ncgen_keeps_them() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("l1.cdl");
    fs::write(
        &cdl,
        b"netcdf l1 { // caf\xe9\ndimensions:\n\tn = 3 ;\nvariables:\n\tchar c(n) ;\ndata:\n c = \"\xe9t\xe9\" ;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("l1.zarr");
    nczgen(&["-o", &out.to_string_lossy(), &cdl.to_string_lossy()]).success();
    let got = run("nczdump", &[&out.to_string_lossy()]);
    assert!(got.output.status.success());
    // ncdump prints char bytes that are not UTF-8 as octal escapes.
    assert!(
        got.stdout().contains(r#" c = "\351t\351" ;"#),
        "{}",
        got.stdout()
    );
    if let Some(peer) = crate::util::ncgen_ncdump(&cdl, tmp.path()) {
        assert_eq!(got.stdout(), peer, "ncdump of ncgen's file");
    }
}

/// netcdf-c's quantization (`_Quantize...` attributes), applied as netcdf-c 4.10
/// (netCDF4-python) applies it: every mode, float and double, random values over many
/// magnitudes, with fill values, zeros and NaN left alone.
#[test]
fn quantize_attributes_give_netcdf_cs_values() {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = std::process::Command::new(&py)
        .args(["-c", "import netCDF4, zarr"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs netCDF4 and zarr"
        );
        eprintln!("skipped: no python3 with netCDF4 and zarr (set NCZARR_PYTHON)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let script = r#"
import sys, numpy as np, netCDF4, zarr, subprocess
nczgen, work = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
n = 997
vals = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)
vals[::37] = 0.0
vals[5::41] = np.nan
vals[7::43] = -999.0
specs = []
for t in ("f4", "f8"):
    for mode, ns in (("BitGroom", (1, 3, 6)), ("GranularBitRound", (1, 2, 5)), ("BitRound", (1, 7, 20))):
        for nsd in ns:
            specs.append((f"{mode}_{t}_{nsd}", t, mode, nsd))
ref = netCDF4.Dataset(f"{work}/ref.nc", "w")
ref.createDimension("n", n)
attr = {"BitGroom": "_QuantizeBitGroomNumberOfSignificantDigits",
        "GranularBitRound": "_QuantizeGranularBitRoundNumberOfSignificantDigits",
        "BitRound": "_QuantizeBitRoundNumberOfSignificantBits"}
cdl = ["netcdf q {", "dimensions:", f"\tn = {n} ;", "variables:"]
data = ["data:"]
for name, t, mode, nsd in specs:
    v = ref.createVariable(name, t, ("n",), significant_digits=nsd, quantize_mode=mode, fill_value=-999.0)
    x = vals.astype(t)
    v[:] = np.ma.masked_equal(x, -999.0)
    ctype = "float" if t == "f4" else "double"
    cdl += [f"\t{ctype} {name}(n) ;", f"\t\t{name}:_FillValue = -999 ;", f"\t\t{name}:{attr[mode]} = {nsd} ;"]
    data.append(f" {name} = " + ", ".join("NaN" if np.isnan(y) else repr(float(y)) for y in x) + " ;")
ref.close()
open(f"{work}/q.cdl", "w").write("\n".join(cdl + data + ["}"]) + "\n")
subprocess.run([nczgen, "-o", f"{work}/q.zarr", f"{work}/q.cdl"], check=True)
ref = netCDF4.Dataset(f"{work}/ref.nc")
ref.set_auto_mask(False)
ours = zarr.open_group(f"{work}/q.zarr", mode="r")
bad = []
for name, t, mode, nsd in specs:
    a, b = ref[name][:], ours[name][:]
    same = (a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")) | (np.isnan(a) & np.isnan(b))
    if not same.all():
        i = int(np.argmin(same))
        bad.append(f"{name}: element {i}: netcdf-c {a[i]!r}, ours {b[i]!r} (of {x[i]!r})")
assert not bad, "\n".join(bad)
"#;
    crate::util::python_succeeds(
        &py,
        script,
        &[crate::util::exe("nczgen"), &tmp.path().to_string_lossy()],
        "quantization against netCDF4-python",
    );
}

fn zarray(store: &str, var: &str) -> nczarr::json::Json {
    let text = fs::read_to_string(Path::new(store).join(var).join(".zarray")).unwrap();
    nczarr::json::parse_str(&text).unwrap()
}

#[test]
fn nczgen_x_h_and_separator() {
    let tmp = tempfile::tempdir().unwrap();
    // -x: no fill value for any variable; the values given are kept.
    let out = gen(tmp.path(), "nofill.zarr", &["-x"]);
    for v in ["f", "d", "m"] {
        assert_eq!(
            zarray(&out, v).get("fill_value"),
            Some(&nczarr::json::Json::Null),
            "{v}"
        );
    }
    let d = run("nczdump", &["-v", "d", &out]).success().stdout();
    assert!(d.contains("\n d = 3.14159265358979, 1e-300, 2 ;\n"), "{d}");

    // -H: the header written, no chunk at all; values read as fill.
    let out = gen(tmp.path(), "header.zarr", &["-H"]);
    let chunks: Vec<String> = ["f", "d", "m", "g/i"]
        .iter()
        .flat_map(|v| fs::read_dir(Path::new(&out).join(v)).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert!(chunks.is_empty(), "{chunks:?}");
    let h = run("nczdump", &[&out]).success().stdout();
    assert!(h.contains("\n f = _, _, _ ;\n"), "{h}");

    // --separator /: nested chunk keys, named in .zarray.
    let out = gen(tmp.path(), "slash.zarr", &["--separator", "/"]);
    assert_eq!(
        zarray(&out, "m")
            .get("dimension_separator")
            .and_then(|s| s.as_str()),
        Some("/")
    );
    assert!(Path::new(&out).join("m/0/0").is_file());
    let m = run("nczdump", &["-v", "m", &out]).success().stdout();
    assert!(
        m.contains("\n m =\n  1, 2, 3,\n  4, _, 6,\n  7, 8, 9 ;\n"),
        "{m}"
    );
}

#[test]
fn zip_output_is_read_by_zarr_python() {
    let Some(py) = crate::util::peers::python_with_zarr3() else {
        eprintln!("skipped: no python3 with zarr 3 (set NCZARR_PYTHON)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["zarr", "nczarr"] {
        let out = gen(tmp.path(), &format!("{kind}.zip"), &["-k", kind]);
        let check = r#"
import sys, zarr, numpy as np
g = zarr.open_group(zarr.storage.ZipStore(sys.argv[1], mode="r"), mode="r")
assert np.allclose(g["f"][:], [3.1415927, 2.7182817, -1.0]), g["f"][:]
assert list(g["m"][1]) == [4, -9, 6], g["m"][:]
assert list(g["g"]["i"][:]) == [7, 8, 9]
"#;
        crate::util::python_succeeds(&py, check, &[&out], kind);
    }
}

#[test]
fn default_chunks_waste_little_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("big.cdl");
    fs::write(
        &cdl,
        "netcdf big {\ndimensions:\n\tt = 365 ;\n\ty = 180 ;\n\tx = 360 ;\nvariables:\n\tfloat v(t, y, x) ;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("b.zarr");
    run(
        "nczgen",
        &["-o", &out.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let zarray = fs::read_to_string(out.join("v/.zarray")).unwrap();
    assert!(zarray.contains(r#""chunks": [73,90,180]"#), "{zarray}");
}

#[test]
fn the_4_9_0_layout_keeps_chunks_within_dimensions() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("u.cdl");
    fs::write(
        &cdl,
        "netcdf u {\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 4 ;\nvariables:\n\tfloat t(time, x) ;\n\t\tt:_ChunkSizes = 512, 4 ;\ndata:\n t = 1,2,3,4,5,6,7,8,9,10,11,12 ;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("u.zarr");
    let r = run(
        "nczgen",
        &[
            "--nczarr-layout",
            "4.9.0",
            "-o",
            &out.to_string_lossy(),
            &cdl.to_string_lossy(),
        ],
    );
    assert!(r.output.status.success(), "{}", r.stderr());
    let zarray = fs::read_to_string(out.join("t/.zarray")).unwrap();
    assert!(zarray.contains(r#""chunks": [3,4]"#), "{zarray}");
    if have("ncdump") {
        let url = format!("file://{}#mode=nczarr,file", out.display());
        let o = Command::new("ncdump").arg(&url).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("9, 10, 11, 12 ;"));
    } else {
        eprintln!("skipped the ncdump 4.9.0 read: no ncdump");
    }
}
