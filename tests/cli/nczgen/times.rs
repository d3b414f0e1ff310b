//! CF time in CDL: date strings read by nczgen, and bad dates as one-line errors.

use crate::util::run;

/// nczgen reads dates as data of a variable with CF time units (and of its bounds
/// variable), in the variable's calendar, with ' ' or 'T' before the time; and
/// ncgen's time("...") function. nczdump -t prints the same dates back.
#[test]
fn nczgen_reads_dates() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("dates.cdl");
    std::fs::write(
        &cdl,
        r#"netcdf dates {
dimensions:
	t = 3 ;
	nv = 2 ;
variables:
	double time(t) ;
		time:units = "hours since 2000-01-01" ;
		time:bounds = "time_bnds" ;
	double time_bnds(t, nv) ;
	int day(t) ;
		day:units = "days since 1900-1-1" ;
		day:calendar = "360_day" ;
	float iso(t) ;
		iso:units = "minutes since 2000-01-01T00:00:00" ;
		iso:calendar = "proleptic_gregorian" ;
	double stamp ;
		stamp:at = time("1970-01-02 12") ;
data:
 time = "2000-01-02", "2000-01-01 06", _ ;
 time_bnds = "2000-01-01 12", "2000-01-02 12", "2000-01-01", "2000-01-01 12:00:00", 0, 1 ;
 day = "1900-01-01", "1900-02-30", "1904-12-30" ;
 iso = "2000-01-01T00:01:30", "1999-12-31 23:00", "2000-01-01" ;
 stamp = time("2000-01-03") ;
}
"#,
    )
    .unwrap();
    let out = tmp.path().join("dates.zarr");
    let out_s = out.to_string_lossy().into_owned();
    run("nczgen", &["-o", &out_s, &cdl.to_string_lossy()]).success();
    let numbers = run("nczdump", &[&out_s]).success().stdout();
    let data = numbers.split_once("data:\n").unwrap().1;
    assert_eq!(
        data,
        "\n time = 24, 6, _ ;\n\n time_bnds =\n  12, 36,\n  0, 12,\n  0, 1 ;\n\n \
         day = 0, 59, 1799 ;\n\n iso = 1.5, -60, 0 ;\n\n stamp = 263016 ;\n}\n"
    );
    assert!(numbers.contains("\t\tstamp:at = 36. ;\n"), "{numbers}");
    let dates = run("nczdump", &["-t", &out_s]).success().stdout();
    let data = dates.split_once("data:\n").unwrap().1;
    assert_eq!(
        data,
        "\n time = \"2000-01-02\", \"2000-01-01 06\", _ ;\n\n time_bnds =\n  \
         \"2000-01-01 12\", \"2000-01-02 12\",\n  \"2000-01-01\", \"2000-01-01 12\",\n  \
         \"2000-01-01\", \"2000-01-01 01\" ;\n\n day = \"1900-01-01\", \"1900-02-30\", \
         \"1904-12-30\" ;\n\n iso = \"2000-01-01 00:01:30\", \"1999-12-31 23\", \"2000-01-01\" ;\n\n \
         stamp = 263016 ;\n}\n"
    );
}

/// A date the variable's calendar does not have, text that is no date, and ncgen's
/// unsupported time conversions: one line naming the place, exit 1, nothing written.
#[test]
fn bad_dates_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    for (data, message) in [
        (
            "t = \"2001-02-29\" ;",
            "dates.cdl:7:6: '2001-02-29' is not a date-time in the standard calendar",
        ),
        (
            "t = \"1582-10-10\" ;",
            "dates.cdl:7:6: '1582-10-10' is not a date-time in the standard calendar",
        ),
        (
            "t = \"next tuesday\" ;",
            "dates.cdl:7:6: 'next tuesday' is not a date-time (no date in it)",
        ),
        (
            "t = \"2000-01-01 25:00\" ;",
            "dates.cdl:7:6: '2000-01-01 25:00' is not a date-time (hour 25)",
        ),
        (
            "t = \"2000-01-01 10:00 GMT\" ;",
            "dates.cdl:7:6: '2000-01-01 10:00 GMT' is not a date-time (YYYY-MM-DD hh:mm:ss)",
        ),
        (
            "t = time(\"julian\", \"2000-01-01\") ;",
            "dates.cdl:7:6: time conversion 'julian' is not supported (as in ncgen)",
        ),
        (
            "t = when(\"2000-01-01\") ;",
            "dates.cdl:7:6: unknown function 'when' (CDL has time(\"date\"))",
        ),
        (
            "n = \"2000-01-01\" ;",
            "dates.cdl:7:6: cannot convert a string to double",
        ),
    ] {
        let cdl = tmp.path().join("dates.cdl");
        std::fs::write(
            &cdl,
            format!(
                "netcdf dates {{\ndimensions: d = 1 ;\nvariables:\n double t(d) ; t:units = \"days since 2000-01-01\" ;\n double n(d) ;\ndata:\n {data}\n}}\n"
            ),
        )
        .unwrap();
        let out = tmp.path().join("dates.zarr");
        let r = run_in_tmp(tmp.path(), &["-o", &out.to_string_lossy(), "dates.cdl"]);
        let line = r.fails_with_one_line(1);
        assert_eq!(line, format!("nczgen: {message}"), "{data}");
        assert!(!out.exists(), "{data}: a dataset was written");
    }
}

fn run_in_tmp(dir: &std::path::Path, args: &[&str]) -> crate::util::Run {
    crate::util::run_in("nczgen", dir, args)
}
