//! Copied subsets (issue 42): `--dim` by index, coordinate value, date, stride, wrapped
//! and multi-slab, as nccopy and ncks cut them, reading only the chunks they touch; bad
//! options refused in one line. Selecting variables keeps CF whole (issue 61): `-V`
//! brings what it names (as `ncks -v` does), `-C` leaves it out, `--exclude` copies all
//! but some, and NCO's spellings that mean something else here are refused in one line.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::copies::{copy, dump, SUBSET_CDL};
use crate::util::datasets::{gen, grid};
use crate::util::{have, nczgen, path_str, run, s};

/// `nczdump --dim` prints what nczdump prints of `nczcopy --dim`'s output, for Zarr,
/// NCZarr, netCDF-4 and Zarr v3 inputs and outputs.
#[test]
fn a_printed_subset_and_a_copied_one_are_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let nc = tmp.path().join("grid.nc");
    run("nczcopy", &[&s(&store), &s(&nc)]).success();
    let v3 = tmp.path().join("grid3.zarr");
    run("nczcopy", &["-k", "zarr3", &s(&store), &s(&v3)]).success();
    let sets: &[&[&str]] = &[
        &["t,1,4,2", "x,300.,50."],
        &["t,2020-01-02,2020-01-04", "x,-3,"],
        &["x,0,1", "x,5,6"],
    ];
    for (i, dims) in sets.iter().enumerate() {
        for (input, out) in [(&store, "z.zarr"), (&nc, "n.nc"), (&v3, "v3.zarr")] {
            let out = tmp.path().join(format!("{i}-{out}"));
            let mut copy: Vec<String> = Vec::new();
            let mut dump: Vec<String> = Vec::new();
            for d in *dims {
                copy.extend(["--dim".into(), (*d).into()]);
                dump.extend(["-d".into(), (*d).into()]);
            }
            copy.extend([s(input), s(&out)]);
            dump.push(s(input));
            let argv: Vec<&str> = copy.iter().map(String::as_str).collect();
            run("nczcopy", &argv).success();
            let argv: Vec<&str> = dump.iter().map(String::as_str).collect();
            let printed = run("nczdump", &argv);
            printed.success();
            let copied = run("nczdump", &[&s(&out)]);
            copied.success();
            let body = |t: String| t.lines().skip(1).collect::<Vec<_>>().join("\n");
            assert_eq!(
                body(copied.stdout()),
                body(printed.stdout()),
                "{dims:?} from {}",
                input.display()
            );
        }
    }
}

/// ncks (Debian's nco) cuts the same values from the netCDF file: dimensions and every
/// variable compared by netCDF4-python, whatever order ncks writes them in.
#[test]
fn subsets_hold_the_values_ncks_cuts() {
    let Some(py) = crate::util::python_with("netCDF4").filter(|_| have("ncks")) else {
        eprintln!("skipped: no ncks or netCDF4-python");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let nc = tmp.path().join("ocean.nc");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ocean.zarr");
    run("nczcopy", &[&s(&example), &s(&nc)]).success();
    let sets: &[&[&str]] = &[
        &["time,1", "lat,-2,", "lon,300.,60."],
        &["time,0,1", "lat,-10.,10.", "lon,1,7,3"],
        &["lon,5,6", "lon,0,1"],
        &["time,2000-01-02,2000-01-03"],
        &["lat,14."],
        &["lat,25.,-25."],
        &["lon,200.,-100."],
        &["lon,300.,60.,2"],
        &["time,-2,-1", "obs,1,2"],
    ];
    for (i, dims) in sets.iter().enumerate() {
        let theirs = tmp.path().join(format!("{i}-ncks.nc"));
        let ours = tmp.path().join(format!("{i}-ours.nc"));
        let mut ncks = Command::new("ncks");
        ncks.arg("-O");
        let mut copy: Vec<String> = Vec::new();
        for d in *dims {
            ncks.args(["-d", d]);
            copy.extend(["--dim".into(), (*d).into()]);
        }
        assert!(ncks.arg(&nc).arg(&theirs).status().unwrap().success());
        copy.extend([s(&nc), s(&ours)]);
        let argv: Vec<&str> = copy.iter().map(String::as_str).collect();
        run("nczcopy", &argv).success();
        crate::util::assert_same_values(&py, &theirs, &ours, &format!("{dims:?}"));
    }
}

/// A subset reads the chunks it touches and no others: three time steps of one row
/// and column are three chunk reads (byte ranges, the chunks being uncompressed).
#[test]
fn only_the_chunks_a_subset_touches_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let out = Command::new(env!("CARGO_BIN_EXE_nczdump"))
        .args(["-d", "t,0,4,2", "-d", "x,5", "-v", "v"])
        .arg(&store)
        .env("NCTRACING", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let trace = String::from_utf8_lossy(&out.stderr);
    let chunks: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("trace: get v/") && !l.contains("/.z"))
        .collect();
    assert_eq!(chunks.len(), 3, "{chunks:#?}");
    for key in ["v/0.1", "v/2.1", "v/4.1"] {
        assert!(chunks.iter().any(|l| l.contains(key)), "{key}: {chunks:#?}");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("v =\n  5,\n  25,\n  45 ;"), "{text}");
}

/// What cannot be a subset is one line, exit 1, and nothing is written.
#[test]
fn bad_subsets_fail_in_one_line_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let cases = [
        ("depth,0", "no dimension 'depth'"),
        ("t,9", "index 9 is outside"),
        ("t,3,1", "MIN 3 is after MAX 1"),
        ("x,400.,500.", "no value of coordinate 'x'"),
        ("nv,0.5", "has no coordinate variable"),
        ("x,2020-01-01", "is not a time coordinate"),
        ("t,2020-13-01", "2020-13-01"),
        ("t,a", "is not an index"),
        ("t,0,1,0", "stride"),
    ];
    for (i, (dim, says)) in cases.iter().enumerate() {
        let err = run("nczdump", &["-d", dim, &s(&store)]).fails_with_one_line(1);
        assert!(err.contains(says), "{dim}: {err}");
        let out = tmp.path().join(format!("{i}.nc"));
        let err = run("nczcopy", &["--dim", dim, &s(&store), &s(&out)]).fails_with_one_line(1);
        assert!(err.contains(says), "{dim}: {err}");
        assert!(!out.exists(), "{dim}");
    }
    // A coordinate that is not monotonic cannot be cut by value.
    let cdl = tmp.path().join("zig.cdl");
    fs::write(
        &cdl,
        "netcdf zig {\ndimensions:\n\tx = 3 ;\nvariables:\n\tfloat x(x) ;\ndata:\n x = 0, 2, 1 ;\n}\n",
    )
    .unwrap();
    let zig = tmp.path().join("zig.zarr");
    nczgen(&["-k", "nczarr", "-o", &s(&zig), &s(&cdl)]).success();
    let err = run("nczdump", &["-d", "x,0.,1.", &s(&zig)]).fails_with_one_line(1);
    assert!(err.contains("not monotonic"), "{err}");
    // nczdump's deprecated `-d F[,D]` is still the digits.
    run("nczdump", &["-d", "3", &s(&store)]).success();
}

/// xarray's `isel`/`sel` on a pure Zarr copy pick what `nczcopy --dim` copies.
#[test]
fn subsets_hold_what_xarray_selects() {
    let Some(py) = crate::util::python_with("xarray, zarr") else {
        eprintln!("skipped: no xarray");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let nczarr = grid(tmp.path());
    let zarr = tmp.path().join("pure.zarr");
    run("nczcopy", &["-k", "zarr", &s(&nczarr), &s(&zarr)]).success();
    let cases = [
        (
            &["t,1,4,2", "x,300.,50."][..],
            "ds.isel(t=slice(1, 5, 2), x=[7, 0, 1])",
        ),
        (
            &["t,2020-01-02,2020-01-04", "x,40.,100."][..],
            "ds.sel(t=slice('2020-01-02', '2020-01-04'), x=slice(40, 100))",
        ),
        (&["x,-1"][..], "ds.isel(x=[-1])"),
    ];
    for (i, (dims, select)) in cases.iter().enumerate() {
        let out = tmp.path().join(format!("{i}.zarr"));
        let mut copy: Vec<String> = Vec::new();
        for d in *dims {
            copy.extend(["--dim".into(), (*d).into()]);
        }
        copy.extend(["-k".into(), "zarr".into(), s(&zarr), s(&out)]);
        let argv: Vec<&str> = copy.iter().map(String::as_str).collect();
        run("nczcopy", &argv).success();
        let script = format!(
            "import sys, xarray as xr\n\
             ds = xr.open_zarr(sys.argv[1], consolidated=False)\n\
             want = {select}\n\
             got = xr.open_zarr(sys.argv[2], consolidated=False)\n\
             xr.testing.assert_equal(want[['v', 't', 'x']].load(), got[['v', 't', 'x']].load())\n"
        );
        crate::util::python_succeeds(&py, &script, &[&s(&zarr), &s(&out)], &format!("{dims:?}"));
    }
}

/// Subsets combine with the rest: rechunking (`-c`), a copy in parts (`--part`), only
/// some variables (`-V`), JSON, and dimensions named by path in a group.
#[test]
fn subsets_combine_with_every_other_option() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let printed = |args: &[&str]| {
        let r = run("nczdump", args);
        r.success();
        r.stdout().lines().skip(1).collect::<Vec<_>>().join("\n")
    };
    let want = printed(&["-d", "t,1,4", "-d", "x,2,6", &s(&store)]);
    // Rechunked on the way.
    let out = tmp.path().join("c.zarr");
    run(
        "nczcopy",
        &[
            "--dim",
            "t,1,4",
            "--dim",
            "x,2,6",
            "-c",
            "t/2,x/5",
            &s(&store),
            &s(&out),
        ],
    )
    .success();
    assert_eq!(printed(&[&s(&out)]), want);
    let r = run("nczdump", &["-hs", &s(&out)]);
    assert!(
        r.stdout().contains("v:_ChunkSizes = 2, 5 ;"),
        "{}",
        r.stdout()
    );
    // In two parts, then finished.
    let parts = tmp.path().join("p.zarr");
    let base = ["--dim", "t,1,4", "--dim", "x,2,6", &s(&store), &s(&parts)];
    let with = |extra: &[&str]| -> Vec<String> {
        extra
            .iter()
            .chain(base.iter())
            .map(|a| a.to_string())
            .collect()
    };
    for extra in [
        &["--metadata-only"][..],
        &["--part", "1/2"],
        &["--part", "2/2"],
    ] {
        let argv = with(extra);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        run("nczcopy", &argv).success();
    }
    run("nczcopy", &["--finish", &s(&parts)]).success();
    assert_eq!(printed(&[&s(&parts)]), want);
    // Some variables only.
    let only = tmp.path().join("v.nc");
    run(
        "nczcopy",
        &["--dim", "x,0", "-V", "v", &s(&store), &s(&only)],
    )
    .success();
    let text = printed(&[&s(&only)]);
    assert!(
        text.contains("x = 1 ;") && !text.contains("other"),
        "{text}"
    );
    // JSON.
    let r = run(
        "nczdump",
        &["--json", "-d", "t,0", "-d", "x,1,2", "-v", "v", &s(&store)],
    );
    r.success();
    let json = r.stdout();
    assert!(
        json.contains("\"shape\":[1,2]") && json.contains("\"data\": [[1, 2]]"),
        "{json}"
    );
    // A dimension by its path in a group.
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ocean.zarr");
    let text = printed(&["-d", "/station/obs,1,2", "-v", "depth", &s(&example)]);
    assert!(text.contains("obs = 2 ;"), "{text}");
    let err = run("nczdump", &["-d", "/obs,0", &s(&example)]).fails_with_one_line(1);
    assert!(err.contains("no dimension '/obs'"), "{err}");
}

/// On S3 a subset costs the chunks it touches and the metadata, no more: every request
/// of the trace is a metadata document or one of the three chunks.
#[test]
fn on_s3_a_subset_requests_only_its_chunks_and_the_metadata() {
    let Some(s3) = crate::util::s3::server("subset") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let url = s3.url("grid.zarr");
    let keys = s3.keys();
    s3.run("nczcopy", &[&s(&store), &url], &keys).success();
    let mut env = keys.clone();
    env.push(("NCTRACING", "1".into()));
    let r = s3.run(
        "nczdump",
        &["-d", "t,0,4,2", "-d", "x,5", "-v", "v", &url],
        &env,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let requests: Vec<String> = r
        .stderr()
        .lines()
        .filter(|l| {
            l.contains("trace: get") || l.contains("trace: head") || l.contains("trace: list")
        })
        .map(String::from)
        .collect();
    let is_metadata = |l: &String| {
        [
            ".zmetadata",
            ".zgroup",
            ".zattrs",
            ".zarray",
            "zarr.json",
            ".nczarr",
        ]
        .iter()
        .any(|k| l.contains(k))
    };
    let chunks: Vec<&String> = requests.iter().filter(|l| !is_metadata(l)).collect();
    assert_eq!(chunks.len(), 3, "{requests:#?}");
    for key in ["v/0.1", "v/2.1", "v/4.1"] {
        assert!(
            chunks.iter().any(|l| l.contains(key)),
            "{key}: {requests:#?}"
        );
    }
    assert!(
        requests.iter().filter(|l| is_metadata(l)).count() <= 3,
        "the metadata in more requests than consolidated metadata needs: {requests:#?}"
    );
    assert!(
        r.stdout().contains("v =\n  5,\n  25,\n  45 ;"),
        "{}",
        r.stdout()
    );
}

const CF: &str = r#"netcdf cf {
dimensions:
	time = UNLIMITED ;
	lat = 2 ;
	lon = 3 ;
	nv = 2 ;
variables:
	double time(time) ;
		time:units = "days since 2000-01-01" ;
		time:bounds = "time_bnds" ;
	double time_bnds(time, nv) ;
	float lat(lat) ;
		lat:units = "degrees_north" ;
		lat:bounds = "lat_bnds" ;
	float lat_bnds(lat, nv) ;
	float lon(lon) ;
		lon:units = "degrees_east" ;
	int crs ;
		crs:grid_mapping_name = "latitude_longitude" ;
	float area(lat, lon) ;
		area:units = "m2" ;
	byte tas_flag(time, lat, lon) ;
	float height ;
		height:units = "m" ;
	float tas(time, lat, lon) ;
		tas:coordinates = "height" ;
		tas:grid_mapping = "crs" ;
		tas:cell_measures = "area: area" ;
		tas:ancillary_variables = "tas_flag" ;
	float pr(time, lat, lon) ;
		pr:grid_mapping = "crs" ;

// global attributes:
		:Conventions = "CF-1.8" ;
data:
 time = 0.5, 1.5 ;
 time_bnds = 0, 1, 1, 2 ;
 lat = 10, 20 ;
 lat_bnds = 5, 15, 15, 25 ;
 lon = 0, 1, 2 ;
 crs = 0 ;
 area = 1, 2, 3, 4, 5, 6 ;
 tas_flag = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 ;
 height = 2 ;
 tas = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
 pr = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
}
"#;

/// The variables' names in `header` (a dump's), sorted.
fn var_names(header: &str) -> Vec<String> {
    let vars = header.split_once("variables:\n").map_or("", |(_, v)| v);
    let mut names: Vec<String> = vars
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t\t"))
        .filter_map(|l| {
            let decl = l.trim().trim_end_matches(" ;");
            let (_, rest) = decl.split_once(' ')?;
            Some(rest.split('(').next()?.to_string())
        })
        .collect();
    names.sort();
    names
}

fn input(dir: &Path) -> String {
    fs::write(dir.join("cf.cdl"), CF).unwrap();
    let nc = s(&dir.join("cf.nc"));
    run("nczgen", &["-k", "nc4", "-o", &nc, &s(&dir.join("cf.cdl"))]).success();
    nc
}

#[test]
fn only_some_variables_bring_what_they_name_as_ncks_does() {
    let tmp = tempfile::tempdir().unwrap();
    let nc = input(tmp.path());
    let out = s(&tmp.path().join("tas.nc"));
    run("nczcopy", &["-V", "tas", &nc, &out]).success();
    let header = run("nczdump", &["-h", &out]).stdout();
    let ours = var_names(&header);
    assert_eq!(
        ours,
        [
            "area",
            "crs",
            "height",
            "lat",
            "lat_bnds",
            "lon",
            "tas",
            "tas_flag",
            "time",
            "time_bnds"
        ],
        "{header}"
    );
    if have("ncks") {
        let theirs = s(&tmp.path().join("ncks.nc"));
        let st = std::process::Command::new("ncks")
            .args(["-O", "-v", "tas", &nc, &theirs])
            .status()
            .unwrap();
        assert!(st.success());
        assert_eq!(ours, var_names(&run("nczdump", &["-h", &theirs]).stdout()));
    }
    // A Zarr output, and a subset along lat: the bounds are cut with their coordinate.
    let z = s(&tmp.path().join("tas.zarr"));
    run("nczcopy", &["-V", "tas", "--dim", "lat,1,1", &nc, &z]).success();
    let dump = run("nczdump", &["-v", "lat_bnds,lat", &z]).stdout();
    assert!(dump.contains(" lat_bnds =\n  15, 25 ;"), "{dump}");
    assert!(dump.contains(" lat = 20 ;"), "{dump}");
}

#[test]
fn left_out_variables_are_named_by_no_attribute() {
    let tmp = tempfile::tempdir().unwrap();
    let nc = input(tmp.path());
    // -C: tas alone, and none of the attributes that named the others.
    let out = s(&tmp.path().join("c.nc"));
    run("nczcopy", &["-C", "-V", "tas", &nc, &out]).success();
    let header = run("nczdump", &["-h", &out]).stdout();
    assert_eq!(var_names(&header), ["tas"], "{header}");
    for attr in [
        "coordinates",
        "grid_mapping",
        "cell_measures",
        "ancillary_variables",
    ] {
        assert!(!header.contains(&format!("tas:{attr}")), "{header}");
    }
    // --exclude: all but these; their names go from the attributes that gave them.
    let out = s(&tmp.path().join("x.nc"));
    run("nczcopy", &["--exclude", "lat_bnds,crs", &nc, &out]).success();
    let header = run("nczdump", &["-h", &out]).stdout();
    let names = var_names(&header);
    assert!(!names.contains(&"lat_bnds".to_string()) && !names.contains(&"crs".to_string()));
    assert_eq!(names.len(), 9, "{header}");
    assert!(
        !header.contains("lat:bounds") && !header.contains(":grid_mapping"),
        "{header}"
    );
    assert!(header.contains("time:bounds = \"time_bnds\""), "{header}");
    assert!(
        header.contains("tas:cell_measures = \"area: area\""),
        "{header}"
    );
    // A name it does not have is refused, as -V's are.
    let e = run(
        "nczcopy",
        &["--exclude", "nosuch", &nc, &s(&tmp.path().join("n.nc"))],
    )
    .fails_with_one_line(1);
    assert!(e.ends_with("nosuch: No such variable"), "{e}");
}

#[test]
fn ncos_spellings_that_mean_otherwise_here_are_refused_naming_ours() {
    let tmp = tempfile::tempdir().unwrap();
    let nc = input(tmp.path());
    let out = tmp.path().join("o.nc");
    let e = run("nczcopy", &["-x", "-v", "tas", &nc, &s(&out)]).fails_with_one_line(2);
    assert_eq!(
        e,
        "nczcopy: -x is nccopy's experimental caches switch, not NCO's exclusion: for every variable but these, write --exclude VAR,..."
    );
    for args in [vec!["-d", "time,0,0"], vec!["-dtime,0,0"]] {
        let mut a = args.clone();
        a.extend([nc.as_str(), out.to_str().unwrap()]);
        let e = run("nczcopy", &a).fails_with_one_line(2);
        assert_eq!(
            e,
            "nczcopy: -d is nccopy's deflate level (0-9); for a hyperslab (ncks -d) write --dim time,0,0"
        );
    }
    assert!(!out.exists());
    // nccopy's own -d still works.
    run("nczcopy", &["-d", "1", &nc, &s(&out)]).success();
}

/// The variables (as `group/name`) a dump declares, and those it has values for.
fn declared_and_valued(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut group, mut declared, mut valued) = (Vec::<String>::new(), Vec::new(), Vec::new());
    let mut section = "";
    let mut statement = String::new();
    for line in text.lines() {
        let t = line.trim();
        let full = |group: &[String], name: &str| {
            let mut p = group.to_vec();
            p.push(name.to_string());
            p.join("/")
        };
        if let Some(g) = t.strip_prefix("group: ") {
            group.push(g.trim_end_matches(" {").to_string());
            section = "";
        } else if t.starts_with("} // group") {
            group.pop();
        } else if t.ends_with(':') && !t.contains(' ') {
            section = if t == "variables:" || t == "data:" {
                t
            } else {
                ""
            };
        } else if section == "variables:" && t.ends_with(" ;") && !t.contains(':') {
            if let Some(decl) = t.split_whitespace().nth(1) {
                let name = decl.split('(').next().unwrap_or(decl);
                declared.push(full(&group, name));
            }
        } else if section == "data:" && !t.is_empty() {
            statement.push_str(t);
            statement.push(' ');
            if t.ends_with(';') {
                if let Some((name, values)) = statement.split_once(" = ") {
                    if values.chars().any(|c| c.is_ascii_digit()) {
                        valued.push(full(&group, name.trim()));
                    }
                }
                statement.clear();
            }
        }
    }
    (declared, valued)
}

#[test]
fn subsets_follow_nccopy() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("s.cdl");
    fs::write(&cdl, SUBSET_CDL).unwrap();
    let input = tmp.path().join("in.zarr");
    run("nczgen", &["-o", &path_str(&input), &path_str(&cdl)]).success();
    let subset = |args: &[&str]| {
        let out = tmp.path().join("s.zarr");
        let mut a = args.to_vec();
        let (i, o) = (path_str(&input), path_str(&out));
        a.extend([i.as_str(), o.as_str()]);
        copy(&a);
        let text = dump(&["-n", "s", &o]);
        let (d, v) = declared_and_valued(&text);
        let _ = fs::remove_dir_all(&out);
        (d.join(" "), v.join(" "))
    };
    let all = "time lat temp count obs/station obs/temp obs/flag obs/raw/n model/temp";
    assert_eq!(subset(&[]), (all.into(), all.into()));
    // -V: only the variables named (a plain name in any group, a path exactly one),
    // with the coordinate variables of their dimensions.
    assert_eq!(
        subset(&["-V", "temp"]),
        (
            "time lat temp obs/station obs/temp model/temp".into(),
            "time lat temp obs/station obs/temp model/temp".into()
        )
    );
    assert_eq!(
        subset(&["-V", "/obs/temp,count"]),
        (
            "time count obs/station obs/temp".into(),
            "time count obs/station obs/temp".into()
        )
    );
    // -v: every definition, values only for those variables and their coordinates.
    assert_eq!(
        subset(&["-v", "obs/flag"]),
        (all.into(), "obs/station obs/flag".into())
    );
    // -G: only those groups and the groups above them (with the coordinate variables
    // their variables need); -g: every definition, values for those groups' variables.
    assert_eq!(
        subset(&["-G", "obs"]),
        (
            "time obs/station obs/temp obs/flag".into(),
            "time obs/station obs/temp obs/flag".into()
        )
    );
    assert_eq!(
        subset(&["-g", "model"]),
        (all.into(), "time lat model/temp".into())
    );
    // -V and -G together: the named variables within the named groups.
    assert_eq!(
        subset(&["-V", "temp", "-G", "model"]),
        ("time lat model/temp".into(), "time lat model/temp".into())
    );
    let e = run(
        "nczcopy",
        &[
            "-V",
            "nope",
            &path_str(&input),
            &path_str(&tmp.path().join("n.zarr")),
        ],
    )
    .fails_with_one_line(1);
    assert!(e.ends_with("nope: No such variable"), "{e}");
    let e = run(
        "nczcopy",
        &[
            "-G",
            "nogroup",
            &path_str(&input),
            &path_str(&tmp.path().join("n.zarr")),
        ],
    )
    .fails_with_one_line(1);
    assert!(e.ends_with("nogroup: No such group"), "{e}");
    assert!(!tmp.path().join("n.zarr").exists());
}

#[test]
fn an_excluded_grid_mapping_coordinate_leaves_no_empty_mapping() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = gen(
        d,
        "gm.nc",
        "nc4",
        "netcdf gm {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint crs ;\n\tint crs2 ;\n\tfloat lat2d(x) ;\n\tfloat lon(x) ;\n\tfloat ta(x) ;\n\t\tta:grid_mapping = \"crs: lon crs2: lat2d\" ;\ndata:\n lat2d = 1, 2 ;\n lon = 3, 4 ;\n ta = 5, 6 ;\n}\n",
    );
    let out = s(&d.join("x.nc"));
    run("nczcopy", &["--exclude", "lat2d", &nc, &out]).success();
    let header = run("nczdump", &["-h", &out]).stdout();
    assert!(
        header.contains("ta:grid_mapping = \"crs: lon\" ;"),
        "{header}"
    );
}
