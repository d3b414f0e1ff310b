//! `nczdump -x` (issue 61): NcML for the classic model, against ncdump 4.9.0's `-x`
//! when netcdf-bin is here (skipped, saying so, when not), and against netcdf-c's own
//! expected NcML without it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{case_name, golden_cases, have, ncgen_kind, nczgen, path_str, run, run_in};

/// ncdump's refusal, as nczdump prints it.
const REFUSED: &str = "nczdump: NcML output (-x) currently only permitted for netCDF classic model";

/// netcdf-c's `ncdump/tst_ncml.cdl`.
const TST_NCML: &str = r#"netcdf tst_ncml {
dimensions:
   m = 2;
   t = unlimited;
variables:
   float var (t, m);
     var:tatt = "text attribute value" ;
     var:natt = 1, 2;
     var:datt = 7.02788826649782e-09, -7.02788826649782e-09 ;
   :gtatt = "<, >, \', \", and &" ;
   :gnatt = 3, 4;
   :gdatt = -7.02788826649782e-09, 7.02788826649782e-09 ;
   char :gnul = "\000abcd\000\000hello\000" ;
}
"#;

/// netcdf-c's `ncdump/ref1.ncml`: what its `tst_ncml` test expects of `ncdump -x
/// tst_ncml.nc`.
const REF1_NCML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<netcdf xmlns="https://www.unidata.ucar.edu/namespaces/netcdf/ncml-2.2" location="tst_ncml.nc">
  <dimension name="m" length="2" />
  <dimension name="t" length="0" isUnlimited="true" />
  <attribute name="gtatt" value="&lt;, &gt;, ', &quot;, and &amp;" />
  <attribute name="gnatt" type="int" value="3 4" />
  <attribute name="gdatt" type="double" value="-7.02788826649782e-09 7.02788826649782e-09" />
  <attribute name="gnul" value="&#0;abcd&#0;&#0;hello" />
  <variable name="var" shape="t m" type="float">
    <attribute name="tatt" value="text attribute value" />
    <attribute name="natt" type="int" value="1 2" />
    <attribute name="datt" type="double" value="7.02788826649782e-09 -7.02788826649782e-09" />
  </variable>
</netcdf>
"#;

/// The edge cases: escapes, control and non-ASCII bytes, NULs inside and after a
/// text, empty texts, NaN and infinities, extreme floats, names with `&`, an empty
/// record dimension, attribute-less variables of every sort.
const EDGES: &str = r#"netcdf edges {
dimensions:
	time = UNLIMITED ; // (0 currently)
	x = 3 ;
	a\&b = 2 ;
variables:
	float time(time) ;
	double x(x) ;
		x:units = "m<&>\"'" ;
		x:nl = "line1\nline2\n" ;
		x:ctl = "a\tb\rc\001d\177e\033[0m" ;
		x:utf = "caf\303\251 \200\377" ;
		x:empty = "" ;
		x:vals = 1., 2.5, -3.e+20, 1.e-10, 0.1 ;
		x:nans = NaN, Infinity, -Infinity ;
		x:fnans = NaNf, Infinityf, -Infinityf, 1.5f, 0.1f, 100.f ;
		x:b = 1b, -128b ;
		x:s = -32768s, 7s ;
		x:i = 2147483647, -2147483648 ;
		x:trail = "abc\000\000" ;
		x:nul = "a\000b" ;
	int nov ;
	char c(x, a\&b) ;
	int rec(time, x) ;
	short sc ;
		sc:a = 1s ;

// global attributes:
		:title = "t" ;
		:d = 0.1 ;
		:f = 1.e+30f, 3.4028235e+38f, 1.17549435e-38f ;
}
"#;

/// CDF-5's types, and 64-bit values a `double` cannot hold (ncdump rounds them).
const CDF5_TYPES: &str = r#"netcdf types5 {
dimensions:
	n = 2 ;
variables:
	ubyte ub(n) ;
		ub:a = 0UB, 255UB ;
	ushort us(n) ;
		us:a = 65535US ;
	uint ui(n) ;
		ui:a = 4294967295U ;
	uint64 u64(n) ;
		u64:a = 18446744073709551615ULL, 9223372036854775808ULL, 12345678901234567890ULL, 1ULL ;
	byte b ;
		b:a = 127b ;
		b:i64 = 9223372036854775807LL, -9223372036854775808LL, 9007199254740993LL, -1LL ;
}
"#;

/// ncdump and nczdump with `args` (the last the dataset) run in `cwd`: `None` when
/// both print the same bytes, say the same on stderr (but for the tool's name) and
/// exit alike, else what differs.
fn against_ncdump(cwd: &Path, args: &[&str]) -> Option<String> {
    let theirs = Command::new("ncdump")
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run ncdump");
    let ours = run_in("nczdump", cwd, args);
    let their_err = String::from_utf8_lossy(&theirs.stderr).into_owned();
    let our_err = ours.stderr().replace("nczdump: ", "ncdump: ");
    if theirs.stdout != ours.output.stdout {
        return Some(format!(
            "ncdump {}: stdout differs: {}",
            args.join(" "),
            crate::util::first_diff(&ours.stdout(), &String::from_utf8_lossy(&theirs.stdout))
        ));
    }
    if their_err != our_err || theirs.status.code() != Some(ours.code()) {
        return Some(format!(
            "ncdump {}: exit {:?} {their_err:?}, ours {} {our_err:?}",
            args.join(" "),
            theirs.status.code(),
            ours.code()
        ));
    }
    None
}

/// Both tools' `-x`, with `-h`, `-c` and the other `extra` options, on `file` (a
/// name in `cwd`): the differences.
fn compare_options(cwd: &Path, file: &str, extra: &[&[&str]]) -> Vec<String> {
    let mut sets: Vec<Vec<&str>> = vec![vec![], vec!["-h"], vec!["-c"]];
    sets.extend(extra.iter().map(|e| e.to_vec()));
    sets.into_iter()
        .filter_map(|mut args| {
            args.insert(0, "-x");
            args.push(file);
            against_ncdump(cwd, &args)
        })
        .collect()
}

fn netcdf_bin() -> bool {
    let here = have("ncgen") && have("ncdump");
    if !here {
        eprintln!("skipped: no ncgen/ncdump to compare with (apt-get install netcdf-bin)");
    }
    here
}

/// netcdf-c's own NcML test (`tst_ncml.sh`), without netcdf-c: a classic, CDF-5 and
/// netCDF-4 classic model file of `tst_ncml.cdl` print `ref1.ncml`, with ncdump's
/// remark about the NUL characters on stderr.
#[test]
fn tst_ncml_prints_netcdf_cs_expected_ncml() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("tst_ncml.cdl");
    fs::write(&cdl, TST_NCML).unwrap();
    for kind in ["classic", "nc6", "cdf5", "nc7"] {
        let nc = tmp.path().join("tst_ncml.nc");
        let _ = fs::remove_file(&nc);
        nczgen(&["-k", kind, "-o", &path_str(&nc), &path_str(&cdl)]).success();
        let out = run_in("nczdump", tmp.path(), &["-x", "tst_ncml.nc"]);
        assert_eq!(out.code(), 0, "-k {kind}: {}", out.stderr());
        out.stdout_is(REF1_NCML);
        assert_eq!(
            out.stderr(),
            "Attribute: 'gnul'; value contains nul characters; producing illegal xml\n",
            "-k {kind}"
        );
    }
}

/// Without `-h`, an attribute-less variable that would have data in CDL is an empty
/// pair of tags, with `-h` one element; `-c` and `-v` decide as they do for data.
#[test]
fn attributeless_variables_close_as_ncdumps_data_options_say() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("v.cdl");
    fs::write(
        &cdl,
        "netcdf v {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint x(x) ;\n\tshort s ;\n}\n",
    )
    .unwrap();
    let nc = path_str(&tmp.path().join("v.nc"));
    nczgen(&["-k", "classic", "-o", &nc, &path_str(&cdl)]).success();
    let variables = |args: &[&str]| -> String {
        let mut a = vec!["-x"];
        a.extend_from_slice(args);
        a.push(&nc);
        let out = run("nczdump", &a);
        out.success();
        out.stdout()
            .lines()
            .filter(|l| l.contains("variable"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let open_x = "  <variable name=\"x\" shape=\"x\" type=\"int\">\n  </variable>";
    let closed_x = "  <variable name=\"x\" shape=\"x\" type=\"int\" />";
    let open_s = "  <variable name=\"s\" type=\"short\">\n  </variable>";
    let closed_s = "  <variable name=\"s\" type=\"short\" />";
    assert_eq!(variables(&[]), format!("{open_x}\n{open_s}"));
    assert_eq!(variables(&["-h"]), format!("{closed_x}\n{closed_s}"));
    assert_eq!(variables(&["-c"]), format!("{open_x}\n{closed_s}"));
    assert_eq!(variables(&["-v", "s"]), format!("{closed_x}\n{open_s}"));
}

/// NCZarr, pure Zarr v2 and v3 and netCDF-4 files are refused as ncdump refuses
/// them (netcdf-c opens every Zarr store as netCDF-4): its message, one line, exit 1,
/// nothing on stdout. A `-v` naming no variable is said first, as ncdump does.
#[test]
fn netcdf4_nczarr_and_zarr_refused_as_ncdump_does() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("z.cdl");
    fs::write(
        &cdl,
        "netcdf z {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\n\t\tv:a = 1 ;\n}\n",
    )
    .unwrap();
    for (kind, name) in [
        ("nczarr", "z.zarr"),
        ("zarr", "zp.zarr"),
        ("zarr3", "z3.zarr"),
        ("nc4", "z4.nc"),
    ] {
        let out = path_str(&tmp.path().join(name));
        nczgen(&["-k", kind, "-o", &out, &path_str(&cdl)]).success();
        let dump = run("nczdump", &["-x", &out]);
        assert_eq!(dump.fails_with_one_line(1), REFUSED, "-k {kind}");
        assert!(dump.stdout().is_empty(), "-k {kind}");
        let missing = run("nczdump", &["-x", "-v", "nosuch", &out]);
        assert_eq!(
            missing.fails_with_one_line(1),
            "nczdump: nosuch: No such variable",
            "-k {kind}"
        );
    }
}

#[test]
fn x_with_json_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("j.cdl");
    fs::write(&cdl, "netcdf j {\nvariables:\n\tint v ;\n}\n").unwrap();
    let nc = path_str(&tmp.path().join("j.nc"));
    nczgen(&["-k", "classic", "-o", &nc, &path_str(&cdl)]).success();
    assert_eq!(run("nczdump", &["-x", "--json", &nc]).code(), 2);
}

/// `file` with its first float NaN (`7fc00000`) and double NaN turned negative: C
/// prints those `-nan`, and ncgen cannot write them.
fn negate_nans(file: &Path, out: &Path) {
    let mut bytes = fs::read(file).unwrap();
    for pattern in [&[0x7f, 0xc0, 0, 0][..], &[0x7f, 0xf8, 0, 0, 0, 0, 0, 0][..]] {
        let at = bytes
            .windows(pattern.len())
            .position(|w| w == pattern)
            .expect("a NaN");
        bytes[at] |= 0x80;
    }
    fs::write(out, bytes).unwrap();
}

/// The edge cases as ncgen writes them in each classic kind, and with negative NaNs:
/// ncdump -x's bytes, remarks and exit code, with `-h`, `-c`, `-v`, `-p` and the
/// deprecated `-d F,D`, which NcML's floats follow.
#[test]
fn edge_cases_match_ncdump() {
    if !netcdf_bin() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let mut compared = 0;
    for (name, text, kinds) in [
        ("edges", EDGES, &["classic", "nc6", "nc5", "nc7"][..]),
        ("types5", CDF5_TYPES, &["nc5"][..]),
    ] {
        let cdl = tmp.path().join(format!("{name}.cdl"));
        fs::write(&cdl, text).unwrap();
        for kind in kinds {
            let file = format!("{name}-{kind}.nc");
            assert!(
                ncgen_kind(kind, &cdl, &tmp.path().join(&file)),
                "ncgen -k {kind} {name}"
            );
            problems.extend(compare_options(
                tmp.path(),
                &file,
                &[
                    &["-v", "x,nov"],
                    &["-p", "3,5"],
                    &["-d", "4"],
                    &["-t", "-s"],
                ],
            ));
            compared += 1;
        }
    }
    negate_nans(
        &tmp.path().join("edges-classic.nc"),
        &tmp.path().join("negative-nans.nc"),
    );
    problems.extend(compare_options(tmp.path(), "negative-nans.nc", &[]));
    // The same store through netcdf-c's URL for NCZarr, and a netCDF-4 file: refused.
    let zcdl = tmp.path().join("z.cdl");
    fs::write(
        &zcdl,
        "netcdf z {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\n\t\tv:a = 1 ;\n}\n",
    )
    .unwrap();
    let url = format!(
        "file://{}#mode=nczarr,file",
        path_str(&tmp.path().join("z.zarr"))
    );
    assert!(ncgen_kind("nc4", &zcdl, &tmp.path().join("z4.nc")));
    let made = Command::new("ncgen")
        .args(["-k", "nc4", "-o", &url, &path_str(&zcdl)])
        .status()
        .unwrap();
    assert!(made.success(), "ncgen {url}");
    for target in [url.as_str(), "z4.nc"] {
        problems.extend(compare_options(tmp.path(), target, &[&["-v", "nosuch"]]));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!("{compared} files of edge cases identical to ncdump -x");
}

/// Every CDL of netcdf-c's corpus (but its multi-gigabyte `big*`) and of our golden
/// cases that ncgen writes as a classic, CDF-5 or netCDF-4 classic model file:
/// nczdump -x, -x -h and -x -c print what ncdump prints.
#[test]
fn netcdf_c_corpus_matches_ncdump() {
    if !netcdf_bin() {
        return;
    }
    let mut cdls: Vec<PathBuf> = golden_cases();
    match crate::util::conformance_cdls() {
        Some(c) => cdls.extend(c.into_iter().filter(|p| !case_name(p).starts_with("big"))),
        None => eprintln!("../shared/conformance absent: the golden cases only"),
    }
    let tmp = tempfile::tempdir().unwrap();
    let halves = crate::util::in_two_halves(&cdls, tmp.path(), |cdls, dir| {
        fs::create_dir_all(dir).unwrap();
        let (mut files, mut problems) = (0, Vec::new());
        for cdl in cdls {
            for kind in ["classic", "nc5", "nc7"] {
                let file = format!("{}-{kind}.nc", case_name(cdl));
                if !ncgen_kind(kind, cdl, &dir.join(&file)) {
                    continue;
                }
                files += 1;
                problems.extend(
                    compare_options(dir, &file, &[])
                        .into_iter()
                        .map(|p| format!("{}: {p}", cdl.display())),
                );
            }
        }
        (files, problems)
    });
    let files: usize = halves.iter().map(|(n, _)| n).sum();
    let problems: Vec<&String> = halves.iter().flat_map(|(_, p)| p).collect();
    assert!(
        problems.is_empty(),
        "{} differences:\n{}",
        problems.len(),
        problems
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    eprintln!("{files} files identical to ncdump -x (with -h and -c too)");
}
