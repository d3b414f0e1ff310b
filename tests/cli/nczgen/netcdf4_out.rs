//! netCDF-4 files as output of nczgen (issue 41): the files of every golden case and of
//! netcdf-c's own CDL against ncgen's (`ncdump -s` text; netCDF4-python, xarray with
//! both engines and h5py decoding them alike), registered filters, dense attribute
//! storage, and what a netCDF-4 file cannot hold refused.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::peers::{decoded_alike, dump_s, h5dump_reads, nczdump_body, python_with_readers};
use crate::util::{
    case_name, generate_both, golden_cases, have, ncgen_kind as ncgen, nczgen, run, s,
};

#[test]
fn every_golden_case_as_netcdf4_dumps_and_decodes_as_ncgens_file() {
    if !have("ncgen") {
        eprintln!("skipped: no ncgen/ncdump (apt-get install netcdf-bin)");
        return;
    }
    let py = python_with_readers();
    let tmp = tempfile::tempdir().unwrap();
    let (mut written, mut decoded) = (0, 0);
    let mut problems = Vec::new();
    for cdl in golden_cases() {
        let name = case_name(&cdl);
        for kind in ["nc4", "nc7"] {
            let Some((theirs, ncgen_wrote, ours)) =
                generate_both(kind, &cdl, tmp.path(), &mut problems)
            else {
                continue;
            };
            written += 1;
            if let Err(e) = h5dump_reads(&ours) {
                problems.push(format!("{name} -k {kind}: h5dump: {e}"));
            }
            if !ncgen_wrote {
                // ncgen 4.9.0 refuses some of what netCDF-4 holds in the classic model
                // (an int64 constant in a double); ours must still be readable.
                dump_s(&ours);
                continue;
            }
            let (want, got) = (dump_s(&theirs), dump_s(&ours));
            if want != got {
                problems.push(format!(
                    "{name} -k {kind}: ncdump -s differs: {}",
                    crate::util::first_diff(&want, &got)
                ));
            }
            if let Some(py) = &py {
                match decoded_alike(py, &theirs, &ours) {
                    Ok(()) => decoded += 1,
                    Err(e) => problems.push(format!("{name} -k {kind}: {e}")),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(written >= 25, "{written} written");
    assert!(py.is_none() || decoded >= 25, "{decoded} decoded alike");
}

/// Cases of netcdf-c's CDL where ncgen 4.9.0's file holds other values than the CDL
/// says: `'\0'` in a byte attribute as 48 (the digit), int64 constants cut to 32 bits,
/// time strings of other calendars or in integer variables read as their year.
const NCGEN_MISREADS: [&str; 8] = [
    "ncf345",
    "ref_nulls",
    "ref_const_test",
    "ref_test_360_day_1900",
    "ref_test_365_day_1900",
    "ref_test_366_day_1900",
    "ref_times",
    "ref_times_nc4",
];

/// Cases with a `_NoFill` variable given no values: what it reads is undefined (HDF5
/// returns whatever memory held), so only the headers are compared.
const UNDEFINED_VALUES: [&str; 3] = [
    "ref_tst_special_atts3",
    "ref_tst_special_atts",
    "ref_tst_ncf213",
];

/// netcdf-c's own CDL files (when `../shared/conformance` is present) as netCDF-4:
/// every file we write is read by ncdump and h5dump, and where ncgen writes one too,
/// `ncdump -s` prints the same (user-defined types included).
#[test]
fn netcdf_cs_cdl_corpus_as_netcdf4_files() {
    let Some(mut cdls) = crate::util::conformance_cdls() else {
        eprintln!("skipped: no ../shared/conformance");
        return;
    };
    if !have("ncgen") {
        eprintln!("skipped: no ncgen/ncdump");
        return;
    }
    // Variables of gigabytes of fill: ncdump takes minutes to print them.
    cdls.retain(|p| !case_name(p).starts_with("big"));
    let tmp = tempfile::tempdir().unwrap();
    let results = crate::util::in_two_halves(&cdls, tmp.path(), corpus_half);
    let written: u32 = results.iter().map(|r| r.0).sum();
    let same: u32 = results.iter().map(|r| r.1).sum();
    let problems: Vec<&String> = results.iter().flat_map(|r| &r.2).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(
        written >= 140 && same >= 130,
        "{written} written, {same} alike"
    );
}

/// Each of `cdls` as a netCDF-4 file in `dir`: how many were written, how many dump as
/// ncgen's, and what went wrong.
fn corpus_half(cdls: &[std::path::PathBuf], dir: &Path) -> (u32, u32, Vec<String>) {
    fs::create_dir_all(dir).unwrap();
    let (mut written, mut same, mut problems) = (0, 0, Vec::new());
    for cdl in cdls {
        let name = case_name(cdl);
        let ours = dir.join("ours.nc");
        let theirs = dir.join("theirs.nc");
        let _ = fs::remove_file(&ours);
        let made = nczgen(&["-k", "nc4", "-o", &s(&ours), &s(cdl)]);
        if made.code() != 0 {
            // What the CDL compiler refuses (templates, keywords, filters with no
            // codec, what ncgen refuses too) is refused for every output, and tested
            // with it; the netCDF-4 writer refuses nothing.
            let err = made.fails_with_one_line(1);
            if err.contains("ours.nc:") {
                problems.push(format!("{name}: refused: {err}"));
            }
            continue;
        }
        written += 1;
        if let Err(e) = h5dump_reads(&ours) {
            problems.push(format!("{name}: h5dump: {e}"));
        }
        if cdl_text_has_plugin_filter(cdl) {
            // Debian's netcdf-c has no plugin for its values (nor does ncgen write it).
            let out = Command::new("ncdump")
                .args(["-h", "-s"])
                .arg(&ours)
                .output()
                .unwrap();
            assert!(out.status.success(), "{name}: ncdump -h");
            continue;
        }
        let got = dump_s(&ours);
        if ncgen("nc4", cdl, &theirs) && !NCGEN_MISREADS.contains(&name.as_str()) {
            let header = |text: &str| text.split("data:").next().unwrap_or_default().to_string();
            let (want, got) = match UNDEFINED_VALUES.contains(&name.as_str()) {
                true => (header(&dump_s(&theirs)), header(&got)),
                false => (dump_s(&theirs), got),
            };
            if want == got {
                same += 1;
            } else {
                problems.push(format!(
                    "{name}: ncdump -s differs: {}",
                    crate::util::first_diff(&want, &got)
                ));
            }
        }
    }
    (written, same, problems)
}

/// Whether the CDL asks for a filter netcdf-c reads only with a plugin.
fn cdl_text_has_plugin_filter(cdl: &Path) -> bool {
    let needs_plugin = |l: &str| {
        let Some((_, value)) = l.split_once("_Filter") else {
            return false;
        };
        let value = value.trim_start_matches([' ', '=', '"']);
        value.split('|').any(|f| {
            let id = f.split([',', '"', ' ', ';']).next().unwrap_or_default();
            !matches!(id, "1" | "2" | "3")
        })
    };
    fs::read_to_string(cdl).is_ok_and(|t| t.lines().any(needs_plugin))
}

/// zstd, bzip2 and blosc are written with their registered HDF5 filter ids, as netcdf-c
/// writes them with its plugins (which a reader then needs).
#[test]
fn registered_filters_are_written_with_their_ids() {
    if !have("ncdump") {
        eprintln!("skipped: no ncdump");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("f.cdl");
    let data: Vec<String> = (0..100).map(|i| (i * 7).to_string()).collect();
    let data = data.join(", ");
    fs::write(
        &cdl,
        format!(
            "netcdf f {{\ndimensions:\n\tx = 100 ;\nvariables:\n\
             \tint z(x) ;\n\t\tz:_Filter = \"32015,3\" ;\n\
             \tint b(x) ;\n\t\tb:_Filter = \"307,9\" ;\n\
             \tint l(x) ;\n\t\tl:_Filter = \"32001,0,0,0,0,5,1,1\" ;\n\
             data:\n z = {data} ;\n b = {data} ;\n l = {data} ;\n}}\n"
        ),
    )
    .unwrap();
    let nc = tmp.path().join("f.nc");
    nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    // Debian's ncdump has no plugin to read their values: the header.
    let out = Command::new("ncdump")
        .args(["-s", "-h"])
        .arg(&nc)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for (var, id) in [("z", "32015,3"), ("b", "307,9")] {
        assert!(
            text.contains(&format!("{var}:_Filter = \"{id}\"")),
            "{text}"
        );
    }
    assert!(text.contains("l:_Filter = \"32001,"), "{text}");
    if let Err(e) = h5dump_reads(&nc) {
        panic!("h5dump: {e}");
    }
    // --dry-run says which need a plugin.
    let plan = run(
        "nczcopy",
        &["--dry-run", &s(&nc), &s(&tmp.path().join("g.nc"))],
    )
    .stdout();
    for note in [
        "zstd is HDF5 filter 32015",
        "bz2 is HDF5 filter 307",
        "blosc is HDF5 filter 32001",
    ] {
        assert!(plan.contains(note), "{plan}");
    }
    // Our own reader decodes them.
    let dumped = run("nczdump", &["-v", "z,b,l", &s(&nc)]).stdout();
    assert_eq!(dumped.matches(" = 0, 7, 14, ").count(), 3, "{dumped}");
    assert_eq!(dumped.matches(" 686, 693 ;").count(), 3, "{dumped}");
}

#[test]
fn what_netcdf4_cannot_hold_is_refused_in_one_line_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "nc7",
            "netcdf g {\ngroup: sub {\n  variables:\n\tint v ;\n  }\n}\n",
            "group 'sub': the netCDF-4 classic model has no groups",
        ),
        (
            "nc7",
            "netcdf t {\nvariables:\n\tint64 v ;\n}\n",
            "variable 'v' of type int64: the netCDF-4 classic model has the classic types only",
        ),
        (
            "nc7",
            "netcdf u {\ndimensions:\n\ta = UNLIMITED ;\n\tb = UNLIMITED ;\nvariables:\n\tint v(a, b) ;\n}\n",
            "2 unlimited dimensions: the netCDF-4 classic model has one",
        ),
    ];
    for (i, (kind, text, says)) in cases.iter().enumerate() {
        let cdl = tmp.path().join(format!("{i}.cdl"));
        fs::write(&cdl, text).unwrap();
        let out = tmp.path().join(format!("{i}.nc"));
        let err = nczgen(&["-k", kind, "-o", &s(&out), &s(&cdl)]).fails_with_one_line(1);
        assert!(err.contains(says), "{err}");
        assert!(!out.exists());
    }
}

/// Attributes too large for an object header (a 70 kB text, 20000 doubles) put the
/// object's attributes in HDF5's dense storage, as netcdf-c's HDF5 does: ncdump `-s`
/// prints nczgen's file as ncgen's, h5dump reads it, the readers decode it alike,
/// nczcopy copies it to netCDF-4 again, and ncatted (HDF5) adds attributes to it.
#[test]
fn attributes_over_64_kib_go_to_dense_storage() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "abcdefghij".repeat(7_000);
    let numbers: Vec<String> = (0..20_000).map(|i| format!("{i}.5")).collect();
    let cdl = tmp.path().join("dense.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf dense {{\ndimensions:\n\tx = 3 ;\nvariables:\n\tint v(x) ;\n\t\tv:first = 1 ;\n\
             \t\tv:history = \"{text}\" ;\n\t\tv:units = \"m\" ;\n\tdouble w ;\n\n// global attributes:\n\
             \t\t:table = {} ;\n\t\t:title = \"dense\" ;\ndata:\n v = 1, 2, 3 ;\n w = 4 ;\n}}\n",
            numbers.join(", ")
        ),
    )
    .unwrap();
    let ours = tmp.path().join("ours.nc");
    nczgen(&["-k", "nc4", "-o", &s(&ours), &s(&cdl)]).success();
    if let Err(e) = h5dump_reads(&ours) {
        panic!("h5dump: {e}");
    }
    let copy = tmp.path().join("copy.nc");
    run("nczcopy", &[&s(&ours), &s(&copy)]).success();
    let (want, got) = (nczdump_body(&ours), nczdump_body(&copy));
    assert_eq!(got, want, "{}", crate::util::first_diff(&want, &got));
    assert!(want.contains(&text) && want.contains("19999.5"), "{want}");
    if !have("ncgen") {
        eprintln!("skipped ncgen's file: no netcdf-bin");
        return;
    }
    let theirs = tmp.path().join("theirs.nc");
    assert!(ncgen("nc4", &cdl, &theirs));
    let (want, got) = (dump_s(&theirs), dump_s(&ours));
    assert_eq!(got, want, "{}", crate::util::first_diff(&want, &got));
    if let Some(py) = python_with_readers() {
        decoded_alike(&py, &theirs, &ours).unwrap();
    }
    // HDF5 adds to the dense storage: NCO's ncatted on the variable and the root.
    if have("ncatted") {
        let st = Command::new("ncatted")
            .args([
                "-h",
                "-a",
                "added,v,c,c,hello",
                "-a",
                "added,global,c,d,3.5",
            ])
            .arg(&ours)
            .status()
            .unwrap();
        assert!(st.success());
        let text = dump_s(&ours);
        assert!(
            text.contains("v:added = \"hello\"") && text.contains(":added = 3.5"),
            "{text}"
        );
    }
}
