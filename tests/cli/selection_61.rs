//! Selecting variables keeps CF whole (issue 61): `-V tas` brings the variables tas
//! names (as `ncks -v tas` does), `-C` leaves them out, `--exclude` (NCO's `-x -v`)
//! copies all but some, and no attribute of a copy names a variable it lacks. NCO's
//! spellings that mean something else to nczcopy (`-x -v`, `-d time,0,9`) are refused
//! in one line that names ours.

use std::fs;
use std::path::Path;

use crate::util::{have, run};

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

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

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
