//! netCDF-4 files as output (issue 41): nczgen's files of every golden case and of
//! netcdf-c's own CDL against ncgen's (`ncdump -s` text; netCDF4-python, xarray with
//! both engines and h5py decoding them alike), nczcopy's of every golden store against
//! its input, storage and filters kept, and what a netCDF-4 file cannot hold refused.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::{case_name, generate_both, golden_cases, have, ncgen_kind as ncgen, nczgen, run};

/// ncdump `-s` of `nc` without its first line (the file's name) and `_NCProperties`
/// (which names the writer).
pub(crate) fn dump_s(nc: &Path) -> String {
    let out = Command::new("ncdump").arg("-s").arg(nc).output().unwrap();
    assert!(
        out.status.success(),
        "ncdump -s {}: {}",
        nc.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .filter(|l| !l.contains(":_NCProperties = "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// nczdump's text of `p` without its first line (the name).
pub(crate) fn nczdump_body(p: &Path) -> String {
    let r = run("nczdump", &[&s(p)]);
    r.success();
    r.stdout()
        .lines()
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect()
}

pub(crate) fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// HDF5's own reader finds no fault in the file's metadata.
pub(crate) fn h5dump_reads(nc: &Path) -> Result<(), String> {
    if !have("h5dump") {
        return Ok(());
    }
    let out = Command::new("h5dump").arg("-H").arg(nc).output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// A Python with netCDF4, xarray, h5py and h5netcdf: `NCZARR_PYTHON`, else `python3`.
pub(crate) fn python_with_readers() -> Option<String> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&py)
        .args(["-c", "import netCDF4, xarray, h5py, h5netcdf"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs netCDF4, xarray, h5py and h5netcdf in NCZARR_PYTHON"
        );
        eprintln!("skipped the Python readers: set NCZARR_PYTHON");
    }
    ok.then_some(py)
}

/// Whether netCDF4-python, xarray (both engines) and h5py decode `ours` as `theirs`.
pub(crate) fn decoded_alike(py: &str, theirs: &Path, ours: &Path) -> Result<(), String> {
    let script = crate::util::data_dir().join("netcdf4/equal.py");
    let out = Command::new(py)
        .arg(script)
        .arg(theirs)
        .arg(ours)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err.lines().last().unwrap_or_default().to_string())
    }
}

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

/// Every dataset of the golden corpus (netcdf-c 4.9.0 and 4.10.1, xarray and
/// zarr-python stores) copied to a netCDF-4 file (nczcopy's default for a `.nc` name),
/// compressed with zlib (Debian's netcdf-c has no blosc or zstd plugin): ncdump of the
/// file prints what nczdump prints of the input. A fixed dimension of length 0 is
/// unlimited in netCDF-4, as netcdf-c reads it.
#[test]
fn golden_stores_copied_to_netcdf4_dump_as_their_inputs() {
    if !have("ncdump") {
        eprintln!("skipped: no ncdump");
        return;
    }
    let stores = crate::util::data_dir().join("golden/stores");
    let tmp = tempfile::tempdir().unwrap();
    let mut same = 0;
    let mut problems = Vec::new();
    for writer in fs::read_dir(&stores).unwrap().flatten() {
        for store in fs::read_dir(writer.path()).unwrap().flatten() {
            let input = s(&store.path());
            let want = run("nczdump", &[&input]).stdout();
            let want: String = want
                .split_once('\n')
                .map_or("", |(_, r)| r)
                .lines()
                .map(
                    |l| match l.strip_prefix('\t').and_then(|l| l.strip_suffix(" = 0 ;")) {
                        Some(name) if !name.contains(' ') => {
                            format!("\t{name} = UNLIMITED ; // (0 currently)\n")
                        }
                        _ => format!("{l}\n"),
                    },
                )
                .collect();
            let out = tmp.path().join(format!("{same}-{}.nc", problems.len()));
            let copied = run("nczcopy", &["--codec", "zlib:level=1", &input, &s(&out)]);
            if copied.code() != 0 {
                problems.push(format!("{input}: {}", copied.stderr()));
                continue;
            }
            let bytes = fs::read(&out).unwrap();
            assert_eq!(&bytes[..4], b"\x89HDF", "{input}: not a netCDF-4 file");
            let got = Command::new("ncdump").arg(&out).output().unwrap();
            let got = String::from_utf8_lossy(&got.stdout);
            let got = got.split_once('\n').map_or("", |(_, r)| r);
            let got = crate::util::without_carried_fills(&want, got);
            if got == want {
                same += 1;
            } else {
                problems.push(format!("{input}: {}", crate::util::first_diff(&want, &got)));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(same >= 60, "{same} copied alike");
}

/// A copy from Zarr to netCDF-4 keeps each variable's chunks, codecs, byte order and
/// fill as `ncdump -s` shows them, as a copy from netCDF-4 to Zarr does.
#[test]
fn a_copy_to_netcdf4_keeps_storage_and_filters() {
    if !have("ncdump") {
        eprintln!("skipped: no ncdump");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("s.cdl");
    fs::write(
        &cdl,
        "netcdf s {\ndimensions:\n\ttime = UNLIMITED ;\n\ty = 6 ;\n\tx = 5 ;\nvariables:\n\
         \tfloat t(time, y, x) ;\n\t\tt:_ChunkSizes = 2, 3, 5 ;\n\t\tt:_DeflateLevel = 2 ;\n\
         \t\tt:_Shuffle = \"true\" ;\n\t\tt:_Fletcher32 = \"true\" ;\n\
         \tint b(y, x) ;\n\t\tb:_Endianness = \"big\" ;\n\t\tb:_ChunkSizes = 6, 5 ;\n\
         \tshort n(x) ;\n\t\tn:_NoFill = \"true\" ;\n\
         \tint c ;\n\t\tc:_Storage = \"compact\" ;\n\
         data:\n t = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60 ;\n\
         b = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30 ;\n\
         n = 1, 2, 3, 4, 5 ;\n c = 7 ;\n}\n",
    )
    .unwrap();
    let zarr = tmp.path().join("s.zarr");
    let nc = tmp.path().join("s.nc");
    let gen = tmp.path().join("g.nc");
    nczgen(&["-o", &s(&zarr), &s(&cdl)]).success();
    run("nczcopy", &[&s(&zarr), &s(&nc)]).success();
    nczgen(&["-k", "nc4", "-o", &s(&gen), &s(&cdl)]).success();
    let specials = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                [
                    "_ChunkSizes",
                    "_DeflateLevel",
                    "_Shuffle",
                    "_Fletcher32",
                    "_Endianness",
                    "_NoFill",
                ]
                .iter()
                .any(|k| l.contains(k))
            })
            .map(str::to_string)
            .collect()
    };
    let want = specials(&run("nczdump", &["-s", &s(&zarr)]).stdout());
    assert!(want.len() >= 7, "{want:?}");
    assert_eq!(specials(&dump_s(&nc)), want);
    // nczgen keeps _Storage = "compact" where Zarr cannot, and "contiguous" where a
    // Zarr store holds one chunk.
    let generated = dump_s(&gen);
    assert!(
        generated.contains("c:_Storage = \"compact\""),
        "{generated}"
    );
    assert!(
        generated.contains("n:_Storage = \"contiguous\""),
        "{generated}"
    );
    let chunked_n = |l: &String| !l.contains("n:_ChunkSizes");
    assert_eq!(
        specials(&generated),
        want.iter()
            .filter(|l| chunked_n(l))
            .cloned()
            .collect::<Vec<_>>()
    );
    let values = |p: &Path| {
        let t = run("nczdump", &[&s(p)]).stdout();
        t.split_once("data:")
            .map(|(_, d)| d.to_string())
            .unwrap_or_default()
    };
    assert_eq!(values(&nc), values(&zarr));
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

/// An enum type, its variable (with an enum `_FillValue`) and an enum attribute copied
/// from a netCDF-4 file to a netCDF-4 file stay enums: ncdump prints the copy as the
/// input, type section included; to the classic model they become their base type with
/// CF's flag attributes, as to Zarr.
#[test]
fn enums_are_kept_from_netcdf4_to_netcdf4() {
    if !have("ncgen") {
        eprintln!("skipped: no ncgen/ncdump");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("e.cdl");
    fs::write(
        &cdl,
        "netcdf e {\ntypes:\n  byte enum cloud_t {Clear = 0, Cumulonimbus = 1, Stratus = 2, Missing = 127} ;\n\
         dimensions:\n\tstation = 5 ;\nvariables:\n\tcloud_t primary(station) ;\n\
         \t\tcloud_t primary:_FillValue = Missing ;\n\tint other(station) ;\n\
         \n// global attributes:\n\t\tcloud_t :sky = Stratus ;\n\
         data:\n primary = Clear, Stratus, Clear, Missing, Cumulonimbus ;\n other = 1, 2, 3, 4, 5 ;\n}\n",
    )
    .unwrap();
    let input = tmp.path().join("in.nc");
    assert!(ncgen("nc4", &cdl, &input));
    let out = tmp.path().join("out.nc");
    run("nczcopy", &[&s(&input), &s(&out)]).success();
    if let Err(e) = h5dump_reads(&out) {
        panic!("h5dump: {e}");
    }
    let want = dump_s(&input);
    let got = dump_s(&out);
    assert_eq!(got, want, "{}", crate::util::first_diff(&want, &got));
    assert!(got.contains("byte enum cloud_t"), "{got}");
    if let Some(py) = python_with_readers() {
        decoded_alike(&py, &input, &out).unwrap();
    }
    let classic = tmp.path().join("c.nc");
    run("nczcopy", &["-k", "nc7", &s(&input), &s(&classic)]).success();
    let text = dump_s(&classic);
    assert!(
        text.contains("primary:flag_meanings = \"Clear Cumulonimbus Stratus Missing\""),
        "{text}"
    );
}

/// netcdf-c's CDL files with user-defined types (when `../shared/conformance` is
/// present), made by ncgen and copied by nczcopy to netCDF-4: ncdump `-s` prints the copy
/// as ncgen's file (types in groups and their scopes, compound, opaque and vlen values,
/// fill values) and h5dump reads it; the readers decode the copies of the files of each
/// kind as the input.
#[test]
fn netcdf_cs_user_type_files_copy_to_netcdf4_as_they_are() {
    let Some(cdls) = crate::util::conformance_cdls() else {
        eprintln!("skipped: no ../shared/conformance");
        return;
    };
    if !have("ncgen") {
        eprintln!("skipped: no ncgen/ncdump");
        return;
    }
    // Files whose readers' checks are worth their time: one of each kind.
    const READ_BY_ALL: [&str; 6] = [
        "ref_tst_comp",
        "ref_tst_opaque_data",
        "ref_tst_vlen_data",
        "ref_tst_vlen_data2",
        "ref_tst_compounds4",
        "ref_typescope",
    ];
    // A `_NoFill` variable never written: netcdf-c reads whatever HDF5 gives.
    const UNWRITTEN: [&str; 2] = ["ref_tst_special_atts", "ref_tst_ncf213"];
    let py = python_with_readers();
    let tmp = tempfile::tempdir().unwrap();
    let (mut same, mut problems) = (0, Vec::new());
    for cdl in cdls {
        if !fs::read_to_string(&cdl).is_ok_and(|t| t.contains("types:")) {
            continue;
        }
        let name = case_name(&cdl);
        let input = tmp.path().join(format!("{name}-in.nc"));
        let out = tmp.path().join(format!("{name}.nc"));
        if !ncgen("nc4", &cdl, &input) {
            continue;
        }
        // Cases of one name in two folders of the corpus share the output.
        let copied = run("nczcopy", &["-O", &s(&input), &s(&out)]);
        if copied.code() != 0 {
            problems.push(format!("{name}: {}", copied.fails_with_one_line(1)));
            continue;
        }
        if let Err(e) = h5dump_reads(&out) {
            problems.push(format!("{name}: h5dump: {e}"));
        }
        let header = |text: String| text.split("data:").next().unwrap_or_default().to_string();
        let (want, got) = match UNWRITTEN.contains(&name.as_str()) {
            true => (header(dump_s(&input)), header(dump_s(&out))),
            false => (dump_s(&input), dump_s(&out)),
        };
        if want != got {
            problems.push(format!("{name}: {}", crate::util::first_diff(&want, &got)));
            continue;
        }
        same += 1;
        if let Some(py) = py
            .as_deref()
            .filter(|_| READ_BY_ALL.contains(&name.as_str()))
        {
            if let Err(e) = decoded_alike(py, &input, &out) {
                problems.push(format!("{name}: readers: {e}"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(same >= 30, "{same} copied alike");
}

/// Our own file of every kind of user-defined type (compound with char, array, string
/// fields, nested compounds, an enum, a vlen, an opaque type; compound `_FillValue`;
/// vlen and opaque attributes) and h5py's uncommitted types, copied to netCDF-4: nczdump
/// (and ncdump, for netcdf-c's file) prints the copies as the inputs, h5dump reads them
/// and the readers decode netcdf-c's file's copy alike.
#[test]
fn every_kind_of_user_type_is_kept_from_netcdf4_to_netcdf4() {
    let tmp = tempfile::tempdir().unwrap();
    let py = python_with_readers();
    for name in ["user_types.nc", "anonymous.h5", "committed.h5"] {
        let input = crate::util::data_dir().join("hdf5_other").join(name);
        let out = tmp.path().join(format!("{name}.nc"));
        run("nczcopy", &[&s(&input), &s(&out)]).success();
        let (want, got) = (nczdump_body(&input), nczdump_body(&out));
        assert_eq!(
            got,
            want,
            "{name}: {}",
            crate::util::first_diff(&want, &got)
        );
        // committed.h5's named types are atomic ones: netCDF has no such thing.
        assert_eq!(got.contains("types:"), name != "committed.h5", "{got}");
        if let Err(e) = h5dump_reads(&out) {
            panic!("{name}: h5dump: {e}");
        }
        if have("ncdump") && name.ends_with(".nc") {
            let (want, got) = (dump_s(&input), dump_s(&out));
            assert_eq!(
                got,
                want,
                "{name}: {}",
                crate::util::first_diff(&want, &got)
            );
        }
        // netCDF4-python does not see h5py's attributes of uncommitted types, which the
        // copy commits: the readers are compared on netcdf-c's file.
        if let Some(py) = py.as_ref().filter(|_| name.ends_with(".nc")) {
            decoded_alike(py, &input, &out).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
