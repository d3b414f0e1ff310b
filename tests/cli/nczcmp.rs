//! nczcmp (issue 45): two datasets of any formats compared for what their data is, with
//! nccmp's options (`-h`, `-G`, `-H` as nccmp means them, issue 61), lines, exit codes
//! and a JSON report.

use std::fs;
use std::path::{Path, PathBuf};

use nczarr::json::Json;

use crate::util::datasets::{down_day, gen};
use crate::util::{nczgen, run, s, Run};

const BASE: &str = r#"netcdf base {
dimensions:
	time = UNLIMITED ;
	y = 3 ;
	s = 4 ;
variables:
	double time(time) ;
		time:units = "days since 2001-01-01" ;
	float tas(time, y) ;
		tas:units = "K" ;
		tas:_FillValue = -999.f ;
	int count(y) ;
	char label(s) ;
	short flag ;

// global attributes:
		:title = "base" ;
data:

 time = 0, 1 ;

 tas = 280.5, 281.25, _, 282, 283.5, 284 ;

 count = 1, 2, 3 ;

 label = "abcd" ;

 flag = 7 ;

group: g {
  variables:
  	int64 big(y) ;
  	string names(y) ;
  data:

   big = 1, 2, 3 ;

   names = "a", "bb", "" ;
  } // group g
}
"#;

/// The CDL `text` as a netCDF-4 file `name` in `dir`.
fn nc(dir: &Path, name: &str, text: &str) -> PathBuf {
    let cdl = dir.join(format!("{name}.cdl"));
    fs::write(&cdl, text).unwrap();
    let out = dir.join(format!("{name}.nc"));
    nczgen(&["-k", "nc4", "-o", &s(&out), &s(&cdl)]).success();
    out
}

fn cmp(args: &[&str]) -> Run {
    run("nczcmp", args)
}

/// A netCDF-4 file and its copies in every format compare equal, every pair, both
/// ways, silently (exit 0); `-s` says so.
#[test]
fn copies_in_every_format_are_equal_to_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let base = nc(tmp.path(), "base", BASE);
    let mut all = vec![base.clone()];
    for (name, kind) in [
        ("n.zarr", "nczarr"),
        ("p.zarr", "zarr"),
        ("v3.zarr", "zarr3"),
        ("z.zip", "nczarr"),
    ] {
        let out = tmp.path().join(name);
        run("nczcopy", &["-k", kind, &s(&base), &s(&out)]).success();
        all.push(out);
    }
    for a in &all {
        for b in &all {
            let r = cmp(&[&s(a), &s(b)]);
            assert_eq!(
                r.code(),
                0,
                "{} {}: {}{}",
                s(a),
                s(b),
                r.stdout(),
                r.stderr()
            );
            assert_eq!(r.stdout(), "");
        }
    }
    let r = cmp(&["-s", &s(&all[0]), &s(&all[3])]);
    assert_eq!(
        r.stdout(),
        format!(
            "Files \"{}\" and \"{}\" are identical.\n",
            s(&all[0]),
            s(&all[3])
        )
    );
    // A classic file and its NCZarr copy (no groups, strings or int64 in classic).
    let classic_cdl = BASE[..BASE.find("group: g").unwrap()].to_string() + "}\n";
    let cdl = tmp.path().join("c.cdl");
    fs::write(&cdl, classic_cdl).unwrap();
    let classic = tmp.path().join("c.nc");
    nczgen(&["-k", "classic", "-o", &s(&classic), &s(&cdl)]).success();
    let copy = tmp.path().join("c.zarr");
    run("nczcopy", &[&s(&classic), &s(&copy)]).success();
    assert_eq!(cmp(&[&s(&classic), &s(&copy)]).code(), 0);
    // --storage: the formats and chunking are differences then.
    let r = cmp(&["--storage", &s(&all[0]), &s(&all[3])]);
    assert_eq!(r.code(), 1);
    assert!(
        r.stdout()
            .starts_with("storage format: netCDF-4 != netCDF-4 (Zarr v3)"),
        "{}",
        r.stdout()
    );
}

/// Each kind of difference, one line each as specified, exit 1.
#[test]
fn each_kind_of_difference_is_reported_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let a = nc(tmp.path(), "a", BASE);
    let case = |name: &str, from: &str, to: &str, args: &[&str]| -> String {
        assert!(BASE.contains(from), "{from}");
        let b = nc(tmp.path(), name, &BASE.replacen(from, to, 1));
        let mut all: Vec<String> = args.iter().map(|x| x.to_string()).collect();
        all.extend([s(&a), s(&b)]);
        let r = cmp(&all.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(r.code(), 1, "{name}: {}{}", r.stdout(), r.stderr());
        r.stdout().replace(&s(&a), "A").replace(&s(&b), "B")
    };
    assert_eq!(
        case("value", "281.25,", "281.5,", &[]),
        "tas[0,1]: 281.25 != 281.5 (diff 0.25)\n"
    );
    assert_eq!(
        case("fortran", "281.25,", "281.5,", &["-F"]),
        "tas[2,1]: 281.25 != 281.5 (diff 0.25)\n"
    );
    assert_eq!(
        case("type", "float tas", "double tas", &[]),
        "type tas: float != double\nattribute tas:_FillValue: type float != double (-999f != -999)\n"
    );
    assert_eq!(
        case("dimension", "y = 3 ;", "y = 4 ;", &["-m"]),
        "dimension y: 3 != 4\n"
    );
    assert!(
        case("shape", "y = 3 ;", "y = 4 ;", &["-d"]).starts_with("shape tas: [2, 3] != [2, 4]\n")
    );
    assert_eq!(
        case("attribute", "\"K\"", "\"degC\"", &[]),
        "attribute tas:units: \"K\" != \"degC\"\n"
    );
    assert_eq!(
        case("global", "\"base\"", "\"other\"", &["-g"]),
        "attribute :title: \"base\" != \"other\"\n"
    );
    let b = nc(
        tmp.path(),
        "variable",
        &BASE
            .replacen("\tshort flag ;\n", "", 1)
            .replacen(" flag = 7 ;\n", "", 1),
    );
    let r = cmp(&[&s(&a), &s(&b)]);
    assert_eq!(
        r.stdout().replace(&s(&a), "A"),
        "variable flag: only in A\n"
    );
    let no_group = BASE[..BASE.find("group: g").unwrap()].to_string() + "}\n";
    let b = nc(tmp.path(), "nogroup", &no_group);
    let r = cmp(&[&s(&a), &s(&b)]);
    assert_eq!(r.stdout().replace(&s(&a), "A"), "group g: only in A\n");
    // -x and -A leave out what they name, -v compares only what it names.
    let d = nc(
        tmp.path(),
        "x",
        &BASE
            .replacen("281.25,", "281.5,", 1)
            .replacen("\"K\"", "\"k\"", 1),
    );
    assert_eq!(cmp(&["-x", "tas", &s(&a), &s(&d)]).code(), 0);
    assert_eq!(cmp(&["-v", "count,flag", &s(&a), &s(&d)]).code(), 0);
    assert_eq!(cmp(&["-m", "-A", "units", &s(&a), &s(&d)]).code(), 0);
    assert_eq!(cmp(&["-m", &s(&a), &s(&d)]).code(), 1);
}

/// NaN differs from NaN unless -N; a fill value differs from another unless -M;
/// tolerances at their edges; -f reports every value and a count.
#[test]
fn nans_fills_tolerances_and_every_value() {
    let tmp = tempfile::tempdir().unwrap();
    let nan = BASE.replacen("283.5,", "NaNf,", 1);
    let a = nc(tmp.path(), "a", &nan);
    let b = nc(tmp.path(), "b", &nan);
    let r = cmp(&["-d", &s(&a), &s(&b)]);
    assert_eq!(r.code(), 1);
    assert_eq!(r.stdout().replace(&s(&a), "A"), "tas[1,1]: NaN != NaN\n");
    assert_eq!(cmp(&["-d", "-N", &s(&a), &s(&b)]).code(), 0);
    // Missing values: -999 in A where B's fill is NaN.
    let c = nc(
        tmp.path(),
        "c",
        &BASE.replacen("tas:_FillValue = -999.f", "tas:_FillValue = NaNf", 1),
    );
    let base = nc(tmp.path(), "base", BASE);
    let r = cmp(&["-d", &s(&base), &s(&c)]);
    assert_eq!(r.stdout(), "tas[0,2]: -999 != NaN\n");
    assert_eq!(cmp(&["-d", "-M", &s(&base), &s(&c)]).code(), 0);
    // Tolerances: 0.25 apart.
    let d = nc(tmp.path(), "d", &BASE.replacen("281.25,", "281.5,", 1));
    assert_eq!(cmp(&["-d", "-t", "0.25", &s(&base), &s(&d)]).code(), 0);
    assert_eq!(cmp(&["-d", "-t", "0.2499", &s(&base), &s(&d)]).code(), 1);
    assert_eq!(cmp(&["-d", "-T", "0.0889", &s(&base), &s(&d)]).code(), 0);
    assert_eq!(cmp(&["-d", "-T", "0.0888", &s(&base), &s(&d)]).code(), 1);
    // -f: every differing value, then a count.
    let e = nc(
        tmp.path(),
        "e",
        &BASE.replacen("280.5, 281.25", "280, 281", 1),
    );
    let r = cmp(&["-d", "-f", &s(&base), &s(&e)]);
    assert_eq!(
        r.stdout(),
        "tas[0,0]: 280.5 != 280 (diff 0.5)\ntas[0,1]: 281.25 != 281 (diff 0.25)\ntas: 2 of 6 values differ (max diff 0.5)\n"
    );
    // -q: nothing printed, the status says.
    let r = cmp(&["-q", &s(&base), &s(&e)]);
    assert_eq!((r.code(), r.stdout()), (1, String::new()));
}

/// Times in other units compare as instants (-t in seconds then); values of other
/// types compare as numbers with --ignore-types; --dim compares a subset.
#[test]
fn times_types_and_subsets() {
    let tmp = tempfile::tempdir().unwrap();
    let base = nc(tmp.path(), "base", BASE);
    let hours = nc(
        tmp.path(),
        "hours",
        &BASE
            .replacen("days since 2001-01-01", "hours since 2000-12-31", 1)
            .replacen("time = 0, 1 ;", "time = 24, 48 ;", 1),
    );
    assert_eq!(cmp(&["-d", &s(&base), &s(&hours)]).code(), 0);
    let off = nc(
        tmp.path(),
        "off",
        &BASE
            .replacen("days since 2001-01-01", "hours since 2000-12-31", 1)
            .replacen("time = 0, 1 ;", "time = 24, 48.5 ;", 1),
    );
    let r = cmp(&["-d", "-v", "time", &s(&base), &s(&off)]);
    assert_eq!(r.stdout(), "time[1]: 1 != 48.5 (diff 1800)\n");
    assert_eq!(cmp(&["-d", "-t", "1800", &s(&base), &s(&off)]).code(), 0);
    let double = nc(
        tmp.path(),
        "double",
        &BASE.replacen("float tas", "double tas", 1),
    );
    assert_eq!(cmp(&["-d", &s(&base), &s(&double)]).code(), 1);
    assert_eq!(
        cmp(&["-d", "--ignore-types", &s(&base), &s(&double)]).code(),
        0
    );
    let d = nc(tmp.path(), "d", &BASE.replacen("284 ;", "285 ;", 1));
    assert_eq!(cmp(&["-d", &s(&base), &s(&d)]).code(), 1);
    assert_eq!(cmp(&["-d", "--dim", "time,0", &s(&base), &s(&d)]).code(), 0);
}

/// Exit 2 on an error (a missing dataset, a bad option), with one line; the JSON
/// report parses and holds the differences.
#[test]
fn errors_exit_2_and_the_json_report() {
    let tmp = tempfile::tempdir().unwrap();
    let base = nc(tmp.path(), "base", BASE);
    let r = cmp(&[&s(&base), &s(&tmp.path().join("none.nc"))]);
    assert_eq!(r.code(), 2);
    assert_eq!(r.stderr().trim().lines().count(), 1, "{}", r.stderr());
    assert_eq!(cmp(&["--no-such-option", &s(&base), &s(&base)]).code(), 2);
    assert_eq!(cmp(&["-t", "-1", &s(&base), &s(&base)]).code(), 2);
    let d = nc(tmp.path(), "d", &BASE.replacen("281.25,", "281.5,", 1));
    let r = cmp(&["--json", &s(&base), &s(&d)]);
    assert_eq!(r.code(), 1);
    let json = nczarr::json::parse(r.stdout().as_bytes()).unwrap();
    assert_eq!(json.get("identical"), Some(&Json::Bool(false)));
    let first = &json.get("differences").and_then(Json::as_array).unwrap()[0];
    assert_eq!(first.get("kind").and_then(Json::as_str), Some("value"));
    let index: Vec<i64> = first
        .get("index")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .filter_map(Json::as_i64_lenient)
        .collect();
    assert_eq!(index, [0, 1]);
    assert_eq!(
        first
            .get("diff")
            .and_then(Json::as_number)
            .and_then(|n| n.as_f64()),
        Some(0.25)
    );
    let tas = json.get("variables").and_then(|v| v.get("tas")).unwrap();
    assert_eq!(tas.get("differing").and_then(Json::as_i64_lenient), Some(1));
    let r = cmp(&["--json", &s(&base), &s(&base)]);
    let json = nczarr::json::parse(r.stdout().as_bytes()).unwrap();
    assert_eq!(
        (r.code(), json.get("identical")),
        (0, Some(&Json::Bool(true)))
    );
}

/// Issue 61: a name `-v` or `-x` gives that neither dataset has is an error (exit 2,
/// one line naming it and both datasets), not a comparison of nothing that passes; a
/// name only one dataset has is a difference, and `-v` says nothing of the groups and
/// variables it did not select.
#[test]
fn unknown_names_in_v_and_x_are_errors_61() {
    let tmp = tempfile::tempdir().unwrap();
    let a = nc(tmp.path(), "a", BASE);
    let b = nc(tmp.path(), "b", &BASE.replacen("281.25,", "281.5,", 1));
    let (sa, sb) = (s(&a), s(&b));
    for (option, list) in [("-v", "nosuch"), ("-v", "tas,nosuch"), ("-x", "nosuch")] {
        let line = cmp(&[option, list, &sa, &sb]).fails_with_one_line(2);
        assert_eq!(
            line,
            format!("nczcmp: {option} nosuch: no such variable in {sa} or {sb}")
        );
    }
    // A path to a group neither has.
    let line = cmp(&["-v", "h/big", &sa, &sb]).fails_with_one_line(2);
    assert!(line.contains("-v h/big: no such variable"), "{line}");
    // In one dataset only: a difference, whatever is compared; with -v, only what
    // it selects (not the group g, nor the other variables only in A).
    let no_group = BASE[..BASE.find("group: g").unwrap()].to_string() + "}\n";
    let c = nc(
        tmp.path(),
        "c",
        &no_group
            .replacen("\tshort flag ;\n", "", 1)
            .replacen(" flag = 7 ;\n", "", 1),
    );
    let sc = s(&c);
    for args in [
        vec!["-v", "flag"],
        vec!["-d", "-v", "flag"],
        vec!["-v", "flag,count"],
    ] {
        let mut all = args.clone();
        all.extend([sa.as_str(), sc.as_str()]);
        let r = cmp(&all);
        assert_eq!(r.code(), 1, "{args:?}: {}{}", r.stdout(), r.stderr());
        assert_eq!(r.stdout().replace(&sa, "A"), "variable flag: only in A\n");
    }
    let r = cmp(&["-v", "g/big", &sc, &sa]);
    assert_eq!(r.stdout().replace(&sa, "A"), "variable g/big: only in A\n");
    // -x of a variable only one has leaves it out.
    let r = cmp(&["-x", "flag", "-v", "count", &sa, &sc]);
    assert_eq!((r.code(), r.stdout()), (0, String::new()));
}

/// Issue 61: a read error says which of the two datasets failed.
#[test]
fn a_read_error_names_its_dataset_61() {
    let tmp = tempfile::tempdir().unwrap();
    let a = nc(tmp.path(), "a", BASE);
    let b = tmp.path().join("b.zarr");
    run("nczcopy", &["-k", "nczarr", "-d", "1", &s(&a), &s(&b)]).success();
    fs::write(b.join("tas/0.0"), b"not a zlib stream").unwrap();
    for (x, y) in [(&a, &b), (&b, &a)] {
        let line = cmp(&["-d", &s(x), &s(y)]).fails_with_one_line(2);
        assert!(
            line.starts_with(&format!("nczcmp: {}: variable '/tas': ", s(&b))),
            "{line}"
        );
    }
}

/// Issue 61: `-d` is nccmp's `--data`; given NCO's hyperslab it says to write `--dim`
/// (not clap's "unexpected argument"), exit 2; `-d` before a dataset is still `--data`.
#[test]
fn data_given_a_hyperslab_names_dim_61() {
    let tmp = tempfile::tempdir().unwrap();
    let a = nc(tmp.path(), "a", BASE);
    let sa = s(&a);
    for args in [
        vec!["-d", "time,0,9", &sa, &sa],
        vec!["-dtime,0,9", &sa, &sa],
        vec!["-md", "time,0,9", &sa, &sa],
        vec!["-d", "time,0,9", &sa],
    ] {
        let line = cmp(&args).fails_with_one_line(2);
        assert_eq!(
            line,
            "nczcmp: -d is nccmp's --data (compare the values); for a hyperslab write --dim time,0,9"
        );
    }
    assert_eq!(cmp(&["-d", &sa, &sa]).code(), 0);
    assert_eq!(cmp(&["-d", "--dim", "time,0,0", &sa, &sa]).code(), 0);
}

/// Issue 61: a boundary variable (named by its coordinate's `bounds` or `climatology`)
/// compares as its coordinate's times when the units differ: `time_bnds` with no units
/// of its own in `days since` against one in `hours since` is equal, and a moved edge
/// is reported in seconds as `time`'s are.
#[test]
fn bounds_compare_as_their_coordinates_times_61() {
    let tmp = tempfile::tempdir().unwrap();
    let with_bounds = |attr: &str, units: &str, t: &str, bnds: &str| {
        BASE.replacen(
            "\t\ttime:units = \"days since 2001-01-01\" ;\n",
            &format!(
                "\t\ttime:units = \"{units}\" ;\n\t\ttime:{attr} = \"time_bnds\" ;\n\tdouble time_bnds(time, nv) ;\n"
            ),
            1,
        )
        .replacen("\ts = 4 ;\n", "\ts = 4 ;\n\tnv = 2 ;\n", 1)
        .replacen("time = 0, 1 ;", &format!("time = {t} ;\n\n time_bnds = {bnds} ;"), 1)
    };
    for attr in ["bounds", "climatology"] {
        let days = nc(
            tmp.path(),
            &format!("{attr}_days"),
            &with_bounds(attr, "days since 2001-01-01", "0, 1", "0, 1, 1, 2"),
        );
        let hours = nc(
            tmp.path(),
            &format!("{attr}_hours"),
            &with_bounds(attr, "hours since 2000-12-31", "24, 48", "24, 48, 48, 72"),
        );
        let r = cmp(&["-d", &s(&days), &s(&hours)]);
        assert_eq!((r.code(), r.stdout()), (0, String::new()), "{attr}");
        let moved = nc(
            tmp.path(),
            &format!("{attr}_moved"),
            &with_bounds(attr, "hours since 2000-12-31", "24, 48", "24, 48, 48, 72.5"),
        );
        let r = cmp(&["-d", &s(&days), &s(&moved)]);
        assert_eq!(
            r.stdout(),
            "time_bnds[1,1]: 2 != 72.5 (diff 1800)\n",
            "{attr}"
        );
        assert_eq!(cmp(&["-d", "-t", "1800", &s(&days), &s(&moved)]).code(), 0);
    }
}

/// Issue 61: a float attribute against a double one of the same value is a type
/// difference, said as one with the values typed as CDL types them (not `0.001 !=
/// 0.001`); with --ignore-types they are equal, as float and double values are when the
/// double rounds to the float.
#[test]
fn attribute_types_are_said_and_ignored_with_ignore_types_61() {
    let tmp = tempfile::tempdir().unwrap();
    let with = |name: &str, attr: &str, tas: &str| {
        nc(
            tmp.path(),
            name,
            &BASE
                .replacen(
                    "\t\ttas:units = \"K\" ;\n",
                    &format!("\t\ttas:units = \"K\" ;\n{attr}"),
                    1,
                )
                .replacen("float tas", tas, 1),
        )
    };
    let f = with("f", "\t\ttas:scale_factor = 0.001f ;\n", "float tas");
    let d = with("d", "\t\ttas:scale_factor = 0.001 ;\n", "float tas");
    let r = cmp(&[&s(&f), &s(&d)]);
    assert_eq!(
        (r.code(), r.stdout()),
        (
            1,
            "attribute tas:scale_factor: type float != double (0.001f != 0.001)\n".into()
        )
    );
    let json = cmp(&["--json", &s(&f), &s(&d)]).stdout();
    let json = nczarr::json::parse(json.as_bytes()).unwrap();
    let first = &json.get("differences").and_then(Json::as_array).unwrap()[0];
    let types: Vec<&str> = first
        .get("types")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .filter_map(Json::as_str)
        .collect();
    assert_eq!(types, ["float", "double"]);
    assert_eq!(first.get("a").and_then(Json::as_str), Some("0.001f"));
    assert_eq!(cmp(&["--ignore-types", &s(&f), &s(&d)]).code(), 0);
    // Other values: still a difference under --ignore-types, as numbers.
    let other = with("other", "\t\ttas:scale_factor = 0.0011 ;\n", "float tas");
    let r = cmp(&["--ignore-types", &s(&f), &s(&other)]);
    assert_eq!(r.stdout(), "attribute tas:scale_factor: 0.001 != 0.0011\n");
    let r = cmp(&[&s(&f), &s(&other)]);
    assert_eq!(
        r.stdout(),
        "attribute tas:scale_factor: type float != double (0.001f != 0.0011)\n"
    );
    // Shorts against ints.
    let short = with("short", "\t\ttas:valid_range = 0s, 400s ;\n", "float tas");
    let int = with("int", "\t\ttas:valid_range = 0, 400 ;\n", "float tas");
    let r = cmp(&["-m", &s(&short), &s(&int)]);
    assert_eq!(
        r.stdout(),
        "attribute tas:valid_range: type short != int (0s, 400s != 0, 400)\n"
    );
    // Values: a float variable against a double one holding the doubles nearest to
    // the floats' decimals (0.1 is no float) is equal with --ignore-types.
    let tenths = |name: &str, tas: &str| {
        nc(
            tmp.path(),
            name,
            &BASE
                .replacen("float tas", tas, 1)
                .replacen("tas:_FillValue = -999.f", "tas:_FillValue = -999.", 1)
                .replacen(
                    "280.5, 281.25, _, 282, 283.5, 284",
                    "0.1, 0.2, _, 0.3, 1e-7, 3.3",
                    1,
                ),
        )
    };
    let (tf, td) = (tenths("tf", "float tas"), tenths("td", "double tas"));
    assert_eq!(cmp(&["-d", "--ignore-types", &s(&tf), &s(&td)]).code(), 0);
    assert_eq!(cmp(&["-d", &s(&tf), &s(&td)]).code(), 1);
}

/// Issue 61: our kerchunk references compare equal to their file, as do pure Zarr
/// copies, for realistic files (netCDF-4 and classic) and every golden case: what pure
/// Zarr cannot record is not a difference. Its attributes are JSON numbers (a `float`
/// `scale_factor` reads back as a `double`: storage, said with --storage), and a
/// variable's fill is Zarr's `fill_value` (`_FillValue = -32767s`, netCDF's default, is
/// no attribute in its netCDF view).
#[test]
fn kerchunk_references_and_pure_zarr_compare_equal_to_their_file_61() {
    let tmp = tempfile::tempdir().unwrap();
    let data = crate::util::data_dir().join("nczcmp");
    let mut files = Vec::new();
    for (cdl, kind) in [
        ("cf_packed", "nc4"),
        ("cf_classic", "classic"),
        ("rich", "nc4"),
    ] {
        let nc = tmp.path().join(format!("{cdl}.nc"));
        nczgen(&[
            "-k",
            kind,
            "-o",
            &s(&nc),
            &s(&data.join(format!("{cdl}.cdl"))),
        ])
        .success();
        files.push((nc, Vec::new()));
    }
    for cdl in crate::util::golden_cases() {
        for kind in ["nc4", "classic"] {
            let nc = tmp
                .path()
                .join(format!("{}-{kind}.nc", crate::util::case_name(&cdl)));
            if nczgen(&["-k", kind, "-o", &s(&nc), &s(&cdl)]).code() == 0 {
                // NaN differs from NaN unless -N (nccmp's rule, the file against itself too).
                files.push((nc, vec!["-N"]));
            }
        }
    }
    assert!(files.len() >= 30, "{} files", files.len());
    for (nc, flags) in &files {
        let refs = nc.with_extension("json");
        run("nczcopy", &["-k", "kerchunk", &s(nc), &s(&refs)]).success();
        let url = format!("file://{}#mode=kerchunk", s(&refs));
        let pure = nc.with_extension("zarr");
        run("nczcopy", &["-k", "zarr", &s(nc), &s(&pure)]).success();
        // Pure Zarr copies write a non-finite attribute as text ("NaN", which
        // zarr-python reads back as text too): a difference of those copies, said.
        let nonfinite = ["nan_inf", "attr_types"]
            .iter()
            .any(|c| s(nc).contains(&format!("/{c}-")));
        if nonfinite {
            let r = cmp(&["-N", "-g", &s(nc), &s(&pure)]);
            assert!(
                r.stdout().contains("\"NaN\", \"Infinity\""),
                "{}",
                r.stdout()
            );
        }
        let others = [Some(s(&refs)), Some(url), (!nonfinite).then(|| s(&pure))];
        for other in others.into_iter().flatten() {
            for (x, y) in [(s(nc), other.clone()), (other.clone(), s(nc))] {
                let mut args: Vec<&str> = flags.clone();
                args.extend([x.as_str(), y.as_str()]);
                let r = cmp(&args);
                assert_eq!(
                    (r.code(), r.stdout(), r.stderr()),
                    (0, String::new(), String::new()),
                    "nczcmp {}",
                    args.join(" ")
                );
            }
        }
    }
    // With --storage, a type pure Zarr cannot record is said, as storage.
    let cf = &files[0].0;
    let r = cmp(&["--storage", &s(cf), &s(&cf.with_extension("json"))]);
    assert!(
        r.stdout()
            .starts_with("storage tas:scale_factor type: float != double\nstorage tas:add_offset type: float != double\n"),
        "{}",
        r.stdout()
    );
    // A netCDF-4 file with those attributes in doubles is another file.
    let doubles = tmp.path().join("doubles.nc");
    let text = fs::read_to_string(data.join("cf_packed.cdl"))
        .unwrap()
        .replace("0.01f", "0.01")
        .replace("273.15f", "273.15");
    let cdl = tmp.path().join("doubles.cdl");
    fs::write(&cdl, text).unwrap();
    nczgen(&["-k", "nc4", "-o", &s(&doubles), &s(&cdl)]).success();
    assert_eq!(cmp(&["-m", &s(cf), &s(&doubles)]).code(), 1);
    assert_eq!(
        cmp(&["-m", &s(&doubles), &s(&cf.with_extension("json"))]).code(),
        0
    );
}

/// Issue 61: variables of user-defined types were never compared, so two netCDF-4
/// files differing only in them were "equal". An enum's values compare as its base
/// integers, a compound's, vlen's or opaque's record by record; a type by its
/// definition.
#[test]
fn variables_of_user_defined_types_are_compared_61() {
    const USER: &str = "netcdf user {\ntypes:\n  ubyte enum cloud_t {clear = 0, cumulus = 1} ;\n  \
        compound pt {\n    int x ;\n    float y ;\n  } ; // pt\n  int(*) vl ;\n  opaque(2) op ;\n\
        dimensions:\n  n = 2 ;\nvariables:\n  cloud_t cloud(n) ;\n  pt p(n) ;\n  vl v(n) ;\n  op o(n) ;\n\
        data:\n  cloud = clear, cumulus ;\n  p = {1, 2.5}, {3, 4.5} ;\n  v = {1, 2}, {3} ;\n  \
        o = 0XCAFE, 0XBEEF ;\n}\n";
    let tmp = tempfile::tempdir().unwrap();
    let a = nc(tmp.path(), "a", USER);
    let (sa, b_of) = (s(&a), |name: &str, from: &str, to: &str| {
        assert!(USER.contains(from), "{from}");
        s(&nc(tmp.path(), name, &USER.replacen(from, to, 1)))
    });
    assert_eq!(cmp(&[&sa, &sa]).code(), 0);
    for (name, from, to, line) in [
        ("enum", "clear, cumulus", "cumulus, cumulus", "cloud[0]: 0 != 1 (diff 1)"),
        ("compound", "{3, 4.5}", "{3, 9.5}", "p[1]: {3, 4.5} != {3, 9.5}"),
        ("vlen", "{3} ;", "{4} ;", "v[1]: {3} != {4}"),
        ("opaque", "0XBEEF", "0XBEEE", "o[1]: 0xBEEF != 0xBEEE"),
        (
            "members",
            "cumulus = 1}",
            "cumulus = 2}",
            "type cloud: enum cloud_t ubyte {clear = 0, cumulus = 1} != enum cloud_t ubyte {clear = 0, cumulus = 2}",
        ),
        (
            "fields",
            "float y",
            "double y",
            "type p: compound pt {int x; float y} != compound pt {int x; double y}",
        ),
    ] {
        let b = b_of(name, from, to);
        let r = cmp(&[&sa, &b]);
        assert_eq!(
            (r.code(), r.stdout()),
            (1, format!("{line}\n")),
            "{name}: {}",
            r.stderr()
        );
    }
    // -f counts records as values; --ignore-types does not make records of other
    // types comparable.
    let b = b_of("f", "{3, 4.5}", "{3, 9.5}");
    let r = cmp(&["-f", "-v", "p", &sa, &b]);
    assert_eq!(
        r.stdout(),
        "p[1]: {3, 4.5} != {3, 9.5}\np: 1 of 2 values differ\n"
    );
    let b = b_of("it", "float y", "double y");
    assert_eq!(cmp(&["--ignore-types", "-v", "p", &sa, &b]).code(), 1);
}

#[test]
fn nczcmp_takes_a_dimension_pure_zarr_placed_elsewhere_as_storage() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // `bnds` lives in /obs; only /obs/sub uses it.
    let nc = gen(
        d,
        "g.nc",
        "nc4",
        "netcdf g {\ngroup: obs {\ndimensions:\n\tbnds = 2 ;\ngroup: sub {\ndimensions:\n\ttime = 2 ;\nvariables:\n\tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\t\ttime:bounds = \"time_bnds\" ;\n\tdouble time_bnds(time, bnds) ;\ndata:\n time = 0.5, 1.5 ;\n time_bnds = 0, 1, 1, 2 ;\n}\n}\n}\n",
    );
    let refs = s(&d.join("g.json"));
    run("nczcopy", &["-k", "kerchunk", &nc, &refs]).success();
    let pure = s(&d.join("g.zarr"));
    run("nczcopy", &["-k", "zarr", &nc, &pure]).success();
    for other in [&refs, &pure] {
        let r = run("nczcmp", &[&nc, other]);
        assert_eq!(r.code(), 0, "{}{}", r.stdout(), r.stderr());
        // With --storage, where each keeps it is said.
        let r = run("nczcmp", &["--storage", &nc, other]);
        assert!(
            r.stdout().contains("dimension obs/bnds: only in"),
            "{}",
            r.stdout()
        );
    }
}

#[test]
fn nccmps_h_g_and_capital_g_mean_what_they_mean_to_nccmp() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let a = down_day(d, 1, true, "made on Monday");
    let dir_b = d.join("b");
    fs::create_dir(&dir_b).unwrap();
    let b = down_day(&dir_b, 1, true, "made on Tuesday");
    // nccmp leaves the global history out unless -h.
    assert_eq!(run("nczcmp", &["-mg", &a, &b]).code(), 0);
    let r = run("nczcmp", &["-mgh", &a, &b]);
    assert_eq!(r.code(), 1, "{}", r.stdout());
    assert!(r.stdout().contains(":history"), "{}", r.stdout());
    assert_eq!(
        run("nczcmp", &["-m", "-g", "-h", "-G", "history", &a, &b]).code(),
        0
    );
    // Help is -H.
    let r = run("nczcmp", &["-H"]);
    assert_eq!(r.code(), 0);
    assert!(r.stdout().contains("Usage"), "{}", r.stdout());
}
