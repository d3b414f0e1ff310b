//! CF time: `nczdump -t`/`-i` against ncdump 4.9.0 on CDL written here, and netcdf-c's
//! own time references. Date strings read by nczgen are in `nczgen::times`.

use crate::util::{data_dir, have, run, shared_conformance};

fn cf_times_cdl() -> std::path::PathBuf {
    data_dir().join("times/cf_times.cdl")
}

/// Every calendar, unit form, reference-date form, fill, NaN, bounds variable,
/// attribute comment (one, two, many values; in a group) of cf_times.cdl prints as
/// ncdump prints the file ncgen makes of it, with each option that changes the data
/// layout; both from nczgen's Zarr and from ncgen's netCDF file.
#[test]
fn times_print_as_ncdump_prints_them() {
    let tmp = tempfile::tempdir().unwrap();
    let zarr = tmp.path().join("cf_times.zarr");
    let zarr_s = zarr.to_string_lossy().into_owned();
    let cdl = cf_times_cdl();
    run("nczgen", &["-o", &zarr_s, &cdl.to_string_lossy()]).success();

    // Checked with or without netcdf-bin: values ncdump 4.9.0 prints for these.
    let dump = run("nczdump", &["-t", &zarr_s]).success().stdout();
    for line in [
        " mixed = \"1582-10-01\", \"1582-10-04\", \"1582-10-05\", \"1582-10-31\" ;",
        " standard = \"1970-01-01\", \"1970-01-01 01:30\", _, \"1958-08-05 08\" ;",
        " gregorian = \"2000-02-28 23\", \"2000-02-29\", \"2000-02-29 00:30:30\", NaN ;",
        " none = \"01-01\", \"02-10\", \"12-31 06\", \"02-05\" ;",
        " secs = \"1970-01-01 00:00:0.500000\", \"1970-01-01 00:00:0.750000\", ",
        " months = \"2000-06-15 12\", \"2000-07-01\", \"1999-11-01\", \"2008-10-01\" ;",
        "\t\tmixed:actual_range = 0., 20. ; // \"1582-10-01\", \"1582-10-31\"",
        "\t\tstandard:_FillValue = -9999. ; // \"1968-11-10 09\"",
        "\t\t  // \"1900-03-01\", \"1900-12-30\", \"1901-01-01\", \"1901-12-30\",",
        "  \"1804-01-10 12\", \"1804-01-11 12\",",
        " not_time = 1, 2, 3, 4 ;",
        "\t\tnot_time:att = 1, 2 ;",
        "\t\t:numbers = 1., 2., 3. ;",
    ] {
        assert!(
            dump.lines().any(|l| l == line),
            "missing line {line:?} in\n{dump}"
        );
    }
    let iso = run("nczdump", &["-i", "-v", "day360", &zarr_s])
        .success()
        .stdout();
    assert!(iso
        .contains(" day360 = \"1900-01-01\", \"1900-01-30\", \"1900-12-30T12\", \"1902-12-30\" ;"));

    if !have("ncgen") || !have("ncdump") {
        eprintln!("skipped the comparison with ncdump: netcdf-bin is not installed");
        return;
    }
    let nc = tmp.path().join("cf_times.nc");
    let nc_s = nc.to_string_lossy().into_owned();
    let made = std::process::Command::new("ncgen")
        .args(["-4", "-o", &nc_s, &cdl.to_string_lossy()])
        .status()
        .unwrap();
    assert!(made.success());
    for opts in [
        &["-t"][..],
        &["-i"],
        &["-t", "-v", "time,mixed"],
        &["-t", "-b", "c"],
        &["-i", "-f", "f"],
        &["-t", "-l", "50"],
        &["-t", "-h"],
        &["-i", "-g", "g"],
        &["-t", "-c"],
    ] {
        let mut args = opts.to_vec();
        args.push(&nc_s);
        let out = std::process::Command::new("ncdump")
            .args(&args)
            .output()
            .unwrap();
        let expected = String::from_utf8_lossy(&out.stdout).into_owned();
        run("nczdump", &args).success().stdout_is(&expected);
        *args.last_mut().unwrap() = &zarr_s;
        run("nczdump", &args).success().stdout_is(&expected);
    }
}

/// netcdf-c's own time tests: tst_calendars.cdl dumps as ref_times.cdl (and the
/// netCDF-4 variant with string attributes, as netcdf-c reads them since 4.9.1), and
/// its `-t` reference dumps, dates as data, compile with nczgen and dump back to
/// themselves.
#[test]
fn netcdf_c_time_references() {
    let Some(root) = shared_conformance() else {
        eprintln!("../shared/conformance not present; skipping");
        return;
    };
    let dir = root.join("ncdump");
    let tmp = tempfile::tempdir().unwrap();
    for (cdl, store, expected) in [
        ("tst_calendars.cdl", "tst_times", "ref_times.cdl"),
        (
            "tst_calendars_nc4.cdl",
            "tst_times_nc4",
            "ref_times_nc4.cdl",
        ),
        ("ref_times.cdl", "tst_times", "ref_times.cdl"),
        ("ref_times_nc4.cdl", "tst_times_nc4", "ref_times_nc4.cdl"),
        (
            "ref_test_360_day_1900.cdl",
            "test_360_day_1900",
            "ref_test_360_day_1900.cdl",
        ),
        (
            "ref_test_365_day_1900.cdl",
            "test_365_day_1900",
            "ref_test_365_day_1900.cdl",
        ),
        (
            "ref_test_366_day_1900.cdl",
            "test_366_day_1900",
            "ref_test_366_day_1900.cdl",
        ),
    ] {
        let dir_out = tmp.path().join(cdl);
        std::fs::create_dir_all(&dir_out).unwrap();
        let out = dir_out.join(store);
        let out_s = out.to_string_lossy().into_owned();
        run("nczgen", &["-o", &out_s, &dir.join(cdl).to_string_lossy()]).success();
        let want = std::fs::read_to_string(dir.join(expected)).unwrap();
        run("nczdump", &["-t", &out_s]).success().stdout_is(&want);
    }
}

/// Issue 61: `-t` on ordinary CF files. ncdump remembers only the last `bounds`
/// attribute it printed (nctime0.c, 4.9.0 to now), so `time_bnds` prints as dates only
/// where `time` named its bounds last; with `lat` or `lon` naming theirs after, as
/// numbers. nczdump prints each as ncdump prints it.
#[test]
fn bounds_print_as_dates_only_as_ncdump_decides() {
    let tmp = tempfile::tempdir().unwrap();
    let time = "\tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\t\ttime:bounds = \"time_bnds\" ;\n\tdouble time_bnds(time, nv) ;\n";
    let lat = "\tfloat lat(lat) ;\n\t\tlat:bounds = \"lat_bnds\" ;\n\tfloat lat_bnds(lat, nv) ;\n";
    let data = "data:\n time = 15.5, 45 ;\n time_bnds = 0, 31, 31, 60 ;\n lat = 1, 2 ;\n lat_bnds = 0, 1, 1, 2 ;\n}\n";
    let cases = [
        ("time_first", format!("{time}{lat}"), false),
        ("time_last", format!("{lat}{time}"), true),
        (
            "global_after",
            format!("{lat}{time}\n// global attributes:\n\t\t:bounds = \"other\" ;\n"),
            false,
        ),
    ];
    for (name, vars, dates) in cases {
        let cdl = tmp.path().join(format!("{name}.cdl"));
        std::fs::write(
            &cdl,
            format!("netcdf {name} {{\ndimensions:\n\ttime = 2 ;\n\tlat = 2 ;\n\tnv = 2 ;\nvariables:\n{vars}{data}"),
        )
        .unwrap();
        let out = tmp.path().join(format!("{name}.nc"));
        let (cdl_s, out_s) = (cdl.to_string_lossy(), out.to_string_lossy());
        run("nczgen", &["-k", "nc4", "-o", &out_s, &cdl_s]).success();
        let ours = run("nczdump", &["-t", &out_s]).success().stdout();
        let bnds = if dates {
            " time_bnds =\n  \"2000-01-01\", \"2000-02-01\",\n  \"2000-02-01\", \"2000-03-01\" ;"
        } else {
            " time_bnds =\n  0, 31,\n  31, 60 ;"
        };
        assert!(ours.contains(bnds), "{name}: {ours}");
        if have("ncdump") {
            let theirs = std::process::Command::new("ncdump")
                .args(["-t", &out_s])
                .output()
                .unwrap();
            assert_eq!(ours, String::from_utf8_lossy(&theirs.stdout), "{name}");
        }
    }
}
