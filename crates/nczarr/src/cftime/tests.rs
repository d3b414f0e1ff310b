use super::*;

fn units(u: &str, cal: &str) -> TimeUnits {
    TimeUnits::parse(u.as_bytes(), Some(cal.as_bytes())).expect(u)
}

fn text(u: &TimeUnits, v: f64) -> String {
    let mut s = String::new();
    u.format(v, ' ', &mut s);
    s
}

const CALENDARS: [&str; 8] = [
    "standard",
    "proleptic_gregorian",
    "julian",
    "noleap",
    "all_leap",
    "360_day",
    "none",
    "",
];

/// netcdf-c's tst_calendars.cdl: each value is 2009-01-01 in its calendar.
#[test]
fn netcdf_c_calendar_cases() {
    for (cal, days) in [
        ("", 185_900.0),
        ("standard", 185_900.0),
        ("gregorian", 185_900.0),
        ("proleptic_gregorian", 185_909.0),
        ("noleap", 185_785.0),
        ("365_day", 185_785.0),
        ("all_leap", 186_294.0),
        ("366_day", 186_294.0),
        ("360_day", 183_240.0),
        ("julian", 185_913.0),
    ] {
        let u = units("days since 1500-01-01 00:00:00", cal);
        assert_eq!(text(&u, days), "2009-01-01", "{cal}");
        assert_eq!(u.value_of("2009-01-01"), Ok(days), "{cal}");
    }
    let u = units("days since 2000-6-15 12:00", "");
    assert_eq!(text(&u, 3121.5), "2009-01-01");
    let u = units("days since 2000-06-15T12:00:00", "proleptic_gregorian");
    assert_eq!(text(&u, 3121.5), "2009-01-01");
    assert_eq!(
        text(&units("DaYs since 1500-1-1", ""), 185_900.0),
        "2009-01-01"
    );
}

#[test]
fn what_counts_as_time_units() {
    for u in [
        "days",
        "m s-1",
        "days since",
        "fortnights since 2000-01-01",
        "",
    ] {
        assert!(TimeUnits::parse(u.as_bytes(), None).is_none(), "{u}");
    }
    assert!(TimeUnits::parse(b"years since 2000-01-01", Some(b"none")).is_none());
    for (u, unit) in [
        ("s since 2000-01-01", Unit::Second),
        ("secs since 2000-01-01", Unit::Second),
        ("mn since 2000-01-01", Unit::Minute),
        ("minutes since 2000-01-01", Unit::Minute),
        ("hr since 2000-01-01", Unit::Hour),
        ("HOURS since 2000-01-01", Unit::Hour),
        ("dy since 2000-01-01", Unit::Day),
        ("wk since 2000-01-01", Unit::Week),
        ("mo since 2000-01-01", Unit::Month),
        ("seasons since 2000-01-01", Unit::Season),
        ("yr since 2000-01-01", Unit::Year),
    ] {
        assert_eq!(
            TimeUnits::parse(u.as_bytes(), None).map(|t| t.unit),
            Some(unit),
            "{u}"
        );
    }
    // A calendar attribute matches a name it is a prefix of; nothing else counts.
    assert_eq!(Calendar::from_attr(Some(b"GREG")), Calendar::Mixed);
    assert_eq!(Calendar::from_attr(Some(b"n")), Calendar::NoLeap);
    assert_eq!(Calendar::from_attr(Some(b"none")), Calendar::None);
    assert_eq!(Calendar::from_attr(Some(b"36")), Calendar::NoLeap);
    assert_eq!(Calendar::from_attr(Some(b"360")), Calendar::Day360);
    assert_eq!(Calendar::from_attr(Some(b"julian_x")), Calendar::Mixed);
    assert_eq!(Calendar::from_attr(Some(b"")), Calendar::Mixed);
}

#[test]
fn ncdump_text_forms() {
    let u = units("hours since 1970-01-01 00:00:00", "julian");
    assert_eq!(text(&u, 0.0), "1970-01-01");
    assert_eq!(text(&u, 1.0), "1970-01-01 01");
    assert_eq!(text(&u, 1.5), "1970-01-01 01:30");
    assert_eq!(text(&u, 1.0 + 1.0 / 3600.0), "1970-01-01 01:00:01");
    assert_eq!(text(&u, 0.001), "1970-01-01 00:00:3.600000");
    assert_eq!(text(&u, 1e20), "");
    let mut iso = String::new();
    u.format(36.25, 'T', &mut iso);
    assert_eq!(iso, "1970-01-02T12:15");
    let u = units("days since 0001-01-01", "proleptic_gregorian");
    assert_eq!(text(&u, -366.0), "0000-01-01");
    assert_eq!(text(&u, -367.0), "-0001-12-31");
    // Months step to the first of a month; zero is the base as written.
    let u = units("months since 2000-06-15 12:00", "");
    assert_eq!(text(&u, 0.0), "2000-06-15 12");
    assert_eq!(text(&u, 1.0), "2000-07-01");
    assert_eq!(text(&u, -7.0), "1999-11-01");
    assert_eq!(
        text(&units("years since 2000-01-01", "360_day"), 2.5),
        "2002-07-01"
    );
    assert_eq!(
        text(&units("seasons since 2000-01-01", "noleap"), 1.0),
        "2000-04-01"
    );
    // The mixed calendar's switch, as cdtime names it.
    let u = units("days since 1582-10-20", "standard");
    assert_eq!(text(&u, -5.0), "1582-10-05");
    assert_eq!(text(&u, -6.0), "1582-10-04");
    assert_eq!(text(&u, -4.5), "1582-10-15 12");
    // No years in calendar none.
    let u = units("days since 1-1", "none");
    assert_eq!(text(&u, 40.0), "02-10");
}

#[test]
fn dates_read_back() {
    let u = units("hours since 2000-01-01", "");
    assert_eq!(u.value_of("2000-01-02"), Ok(24.0));
    assert_eq!(u.value_of("2000-01-01 06"), Ok(6.0));
    assert_eq!(u.value_of("2000-01-01T06:30"), Ok(6.5));
    let v = u.value_of(" 2000-01-01 00:00:36 ").unwrap_or(f64::NAN);
    assert!((v - 0.01).abs() < 1e-9, "{v}");
    assert_eq!(ncgen_time("2000-01-03"), Ok(263_016.0));
    for bad in [
        "",
        "yesterday",
        "2000-01-01x",
        "2000-13-01",
        "2000-02-30",
        "2000-01-01 24",
        "2000-01-01 10:60",
        "2000-01-01 10:10:61",
        "1582-10-10",
    ] {
        assert!(u.value_of(bad).is_err(), "{bad}");
    }
    let u = units("days since 1900-1-1", "360_day");
    assert_eq!(u.value_of("1900-02-30"), Ok(59.0));
    assert!(units("days since 1900-1-1", "noleap")
        .value_of("1904-02-29")
        .is_err());
    assert!(units("days since 1900-1-1", "julian")
        .value_of("1900-02-29")
        .is_ok());
}

/// Days around each calendar's awkward years, and a sample
/// across the whole range a date can print: the printed date reads back as the value.
#[test]
fn round_trips_in_every_calendar() {
    for cal in CALENDARS {
        let base = if cal == "none" {
            "days since 1-1"
        } else {
            "days since 1582-10-15"
        };
        let u = units(base, cal);
        let check = |v: f64| {
            let t = text(&u, v);
            let back = u.value_of(&t).unwrap_or_else(|e| panic!("{cal} {v}: {e}"));
            let back = if cal == "none" {
                v - (v / 365.0).floor() * 365.0 - back
            } else {
                v - back
            };
            assert!(back.abs() < 1e-9, "{cal}: {v} -> {t} -> {}", v - back);
        };
        // Around the switch every day (and a fraction); then every third day through
        // 1700, 1800, 1900, 2000 and 2100.
        let span = if cal == "none" { 0..365 } else { -3000..3000 };
        for d in span {
            check(f64::from(d));
            check(f64::from(d) + 0.75);
        }
        if cal != "none" {
            for d in (40_000..195_000).step_by(3) {
                check(f64::from(d));
            }
        }
        if cal != "none" {
            let mut v = -7e8_f64;
            while v < 7e8 {
                check(v.round());
                v += 9_876_543.21;
            }
        }
    }
    for unit in ["seconds", "minutes", "hours", "weeks"] {
        let u = units(&format!("{unit} since 1970-01-01 00:00:00"), "standard");
        for v in [-1e7, -12_345.0, 0.0, 7.0, 1e6, 3e7] {
            let t = text(&u, v);
            let back = u.value_of(&t).expect(&t);
            assert!(
                (back - v).abs() <= v.abs() * 1e-12 + 1e-6,
                "{unit} {v} {t} {back}"
            );
        }
    }
    let u = units("months since 1970-01-01", "noleap");
    for m in -5000..5000 {
        assert_eq!(u.value_of(&text(&u, f64::from(m))), Ok(f64::from(m)));
    }
}
