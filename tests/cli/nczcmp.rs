//! nczcmp (issue 45): two datasets of any formats compared for what their data is, with
//! nccmp's options, lines, exit codes and a JSON report.

use std::fs;
use std::path::{Path, PathBuf};

use nczarr::json::Json;

use crate::util::{nczgen, run, Run};

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

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

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
        "type tas: float != double\nattribute tas:_FillValue: -999 != -999\n"
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
