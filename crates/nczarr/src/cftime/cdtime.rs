//! cdtime's calendar arithmetic (LLNL's CDMS library, as netcdf-c 4.9.0 carries it in
//! `libdispatch/nctime.c`): component times to and from "epochal" hours since
//! 1970-01-01 in one calendar, month steps, and the mixed Julian/Gregorian calendar
//! stitched at 1582-10-15. The floating-point steps are kept in cdtime's order, so
//! fractional hours round as ncdump's do; the year-by-year loops are replaced by whole
//! leap cycles first, so that no value, however large, makes a dump hang.

/// A date and time of day in some calendar (`cdCompTime`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompTime {
    /// The year (astronomical: year 0 exists; ignored by climatological calendars).
    pub year: i64,
    /// 1..12 when valid.
    pub month: i16,
    /// 1..31 when valid.
    pub day: i16,
    /// The hour and its fraction, 0 <= hour <= 24 when valid.
    pub hour: f64,
}

impl CompTime {
    pub(super) const NULL: CompTime = CompTime {
        year: 0,
        month: 1,
        day: 1,
        hour: 0.0,
    };

    /// cdtime's `cdValidateTime`.
    pub(super) fn is_valid(&self) -> bool {
        (1..=12).contains(&self.month)
            && (1..=31).contains(&self.day)
            && (0.0..=24.0).contains(&self.hour)
    }

    fn before(&self, other: &CompTime) -> bool {
        (self.year, self.month, self.day)
            .cmp(&(other.year, other.month, other.day))
            .then(
                self.hour
                    .partial_cmp(&other.hour)
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
            .is_lt()
    }
}

/// How years and months run in one of cdtime's old time types (`CdTimeType`), all
/// counted from 1970 but the climatological one, which has no years.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Days {
    /// `CdChron`: proleptic Gregorian.
    Gregorian,
    /// `CdJulianCal`.
    Julian,
    /// `CdChronNoLeap`: 365 days every year.
    NoLeap,
    /// `CdChron366`: 366 days every year.
    AllLeap,
    /// `CdChron360`: twelve months of 30 days.
    Thirty,
    /// `CdClim`: 365-day years whose number is always 0.
    Clim,
}

const MONTH_DAYS: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAYS_BEFORE: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

impl Days {
    /// `ISLEAP(year, timeType)`.
    fn is_leap(self, year: i64) -> bool {
        match self {
            Days::AllLeap => true,
            Days::Gregorian => year % 4 == 0 && (year % 100 != 0 || year % 400 == 0),
            Days::Julian => year % 4 == 0,
            Days::NoLeap | Days::Thirty | Days::Clim => false,
        }
    }

    fn year_days(self, year: i64) -> i64 {
        match self {
            Days::Thirty => 360,
            Days::AllLeap => 366,
            _ if self.is_leap(year) => 366,
            _ => 365,
        }
    }

    /// Years and days of the shortest run of years that repeats.
    fn cycle(self) -> (i64, i64) {
        match self {
            Days::Gregorian => (400, 146_097),
            Days::Julian => (4, 1461),
            _ => (1, self.year_days(0)),
        }
    }

    fn chronological(self) -> bool {
        self != Days::Clim
    }

    /// Days in the years `from..to` (negative when `to < from`), as cdtime's loops
    /// add them, with whole cycles skipped first; modulo 2^64, so that the `int`
    /// cdtime keeps the count in wraps as it does there.
    fn days_between(self, from: i64, to: i64) -> i64 {
        let (sign, lo, hi) = if to >= from {
            (1, from, to)
        } else {
            (-1, to, from)
        };
        let (cy, cd) = self.cycle();
        let span = hi.wrapping_sub(lo);
        let cycles = span / cy;
        let mut days = cycles.wrapping_mul(cd);
        let mut y = lo.wrapping_add(cycles.wrapping_mul(cy));
        for _ in 0..span % cy {
            days = days.wrapping_add(self.year_days(y));
            y = y.wrapping_add(1);
        }
        days.wrapping_mul(sign)
    }

    /// Days in a month (1..=12).
    pub(super) fn month_len(self, year: i64, month: i16) -> i64 {
        let m = usize::try_from(month - 1).unwrap_or(0).min(11);
        match self {
            Days::Thirty => 30,
            _ if m == 1 && self.is_leap(if self.chronological() { year } else { 0 }) => 29,
            _ => MONTH_DAYS[m],
        }
    }

    /// `CdDayOfYear`: a month out of range counts as January, as cdtime does after
    /// reporting it.
    fn day_of_year(self, year: i64, month: i16, day: i16) -> i64 {
        let month = if (1..=12).contains(&month) { month } else { 1 };
        let year = if self.chronological() { year } else { 0 };
        let leap_add = i64::from(self.is_leap(year) && month > 2);
        let m = usize::try_from(month - 1).unwrap_or(0);
        match self {
            Days::Thirty => 30 * (i64::from(month) - 1) + i64::from(day) + leap_add,
            _ => DAYS_BEFORE[m] + i64::from(day) + leap_add,
        }
    }

    /// `CdMonthDay`.
    fn month_day(self, year: i64, doy: i64) -> (i16, i16) {
        if doy < 1 {
            return (0, 0);
        }
        let year = if self.chronological() { year } else { 0 };
        let leap = self.is_leap(year);
        let mut left = doy;
        let mut month = 0i16;
        let mut day = 0i16;
        for (i, &len) in MONTH_DAYS.iter().enumerate() {
            month += 1;
            day = left as i16;
            let len = match self {
                Days::Thirty => 30,
                _ if leap && i == 1 => 29,
                _ => len,
            };
            left -= len;
            if left <= 0 {
                break;
            }
        }
        (month, day)
    }

    /// `Cdh2e`: hours since 1970-01-01 (since month 1 day 1 for climatological time).
    pub(super) fn date_to_epoch(self, t: &CompTime) -> f64 {
        let doy = self.day_of_year(t.year, t.month, t.day);
        let (year, base) = if self.chronological() {
            (t.year, 1970)
        } else {
            (0, 0)
        };
        // cdtime counts days in a C int, which wraps.
        let day_cnt = self.days_between(base, year) as i32;
        f64::from(day_cnt.wrapping_add(doy as i32).wrapping_sub(1)) * 24.0 + t.hour
    }

    /// `Cde2h`: the component time of hours since 1970-01-01.
    pub(super) fn epoch_to_date(self, etime: f64) -> CompTime {
        // C converts with `(int)`: x86 makes an out-of-range value INT_MIN.
        let whole = (etime / 24.0).floor();
        let day = if (-2_147_483_648.0..2_147_483_648.0).contains(&whole) {
            whole as i32
        } else {
            i32::MIN
        };
        let mut doy = i64::from(day.wrapping_add(1));
        let mut hour = etime - (doy - 1) as f64 * 24.0;
        if hour >= 24.0 {
            doy += 1;
            hour -= 24.0;
        }
        let base = if self.chronological() { 1970 } else { 0 };
        let (cy, cd) = self.cycle();
        let mut year = base;
        if doy > 0 {
            let cycles = (doy - 1) / cd;
            year += cycles * cy;
            doy -= cycles * cd;
            while doy > self.year_days(year) {
                doy -= self.year_days(year);
                year += 1;
            }
        } else {
            let cycles = -doy / cd;
            year -= cycles * cy;
            doy += cycles * cd;
            while doy <= 0 {
                year -= 1;
                doy += self.year_days(year);
            }
        }
        if !self.chronological() {
            year = 0;
        }
        let (month, day) = self.month_day(year, doy);
        CompTime {
            year,
            month,
            day,
            hour,
        }
    }

    /// `CdAddDelTime` for `months` whole months: day 1 at 00:00 of the month reached.
    pub(super) fn add_months(self, etime: f64, months: i64) -> f64 {
        let b = self.epoch_to_date(etime);
        let months = months.wrapping_add(i64::from(b.month) - 1);
        let years = if months >= 0 {
            months / 12
        } else {
            (months + 1) / 12 - 1
        };
        let e = CompTime {
            year: b.year.wrapping_add(years),
            month: (months - 12 * years + 1) as i16,
            day: 1,
            hour: 0.0,
        };
        self.date_to_epoch(&e)
    }

    /// `CdDivDelTime` for steps of `step` months: how many whole steps lie between
    /// the two times.
    pub(super) fn months_between(self, begin: f64, end: f64, step: i64) -> i64 {
        let b = self.epoch_to_date(begin);
        let e = self.epoch_to_date(end);
        let range = if self.chronological() {
            12 * (e.year - b.year) + i64::from(e.month - b.month)
        } else {
            let r = i64::from(e.month - b.month);
            if r < 0 {
                r + 12
            } else {
                r
            }
        };
        // C takes `abs((int)range)`.
        i64::from((range as i32).unsigned_abs()) / step
    }
}

/// The last Julian day and the first Gregorian day of the mixed calendar.
const ZA: CompTime = CompTime {
    year: 1582,
    month: 10,
    day: 5,
    hour: 0.0,
};
const ZB: CompTime = CompTime {
    year: 1582,
    month: 10,
    day: 15,
    hour: 0.0,
};

/// cdtime's `cdComp2Rel(calendar, t, "hours")`: hours since its default base,
/// 1979-01-01, which the arithmetic below subtracts and adds back as cdtime does.
fn rel_hours(days: Days, t: &CompTime) -> f64 {
    days.date_to_epoch(t) - days.date_to_epoch(&BASE_1979)
}

const BASE_1979: CompTime = CompTime {
    year: 1979,
    month: 1,
    day: 1,
    hour: 0.0,
};

/// `cdCompAdd`: `t` plus `hours` in one calendar.
fn add_hours(days: Days, t: &CompTime, hours: f64) -> CompTime {
    let rel = rel_hours(days, t) + hours;
    days.epoch_to_date(days.date_to_epoch(&BASE_1979) + rel)
}

/// `cdCompAddMixed`: `t` plus `hours` in the mixed Julian/Gregorian calendar.
pub(super) fn mixed_add(t: &CompTime, hours: f64) -> CompTime {
    if t.before(&ZB) {
        let xj = rel_hours(Days::Julian, &ZA) - rel_hours(Days::Julian, t);
        if hours <= xj {
            add_hours(Days::Julian, t, hours)
        } else {
            add_hours(Days::Gregorian, &ZB, hours - xj)
        }
    } else {
        let xg = rel_hours(Days::Gregorian, &ZB) - rel_hours(Days::Gregorian, t);
        if hours > xg {
            add_hours(Days::Gregorian, t, hours)
        } else {
            add_hours(Days::Julian, &ZA, hours - xg)
        }
    }
}

/// `cdDiffMixed`: `a - b` in hours in the mixed Julian/Gregorian calendar.
pub(super) fn mixed_diff(a: &CompTime, b: &CompTime) -> f64 {
    let julian =
        |x: &CompTime, y: &CompTime| rel_hours(Days::Julian, x) - rel_hours(Days::Julian, y);
    let gregorian =
        |x: &CompTime, y: &CompTime| rel_hours(Days::Gregorian, x) - rel_hours(Days::Gregorian, y);
    match (b.before(&ZB), a.before(&ZB)) {
        (true, true) => julian(a, b),
        (true, false) => gregorian(a, &ZB) + julian(&ZA, b),
        (false, true) => julian(a, &ZA) + gregorian(&ZB, b),
        (false, false) => gregorian(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALENDARS: [Days; 5] = [
        Days::Gregorian,
        Days::Julian,
        Days::NoLeap,
        Days::AllLeap,
        Days::Thirty,
    ];

    fn t(year: i64, month: i16, day: i16) -> CompTime {
        CompTime {
            year,
            month,
            day,
            hour: 0.0,
        }
    }

    /// The loops cdtime runs, year by year, against the cycle-skipping versions.
    #[test]
    fn cycles_agree_with_year_loops() {
        for days in CALENDARS {
            for (from, to) in [(1970, 2400), (1970, -3000), (1, 1), (-7, 5), (1600, 1601)] {
                let mut expect = 0;
                if to > from {
                    for y in from..to {
                        expect += days.year_days(y);
                    }
                } else {
                    for y in to..from {
                        expect -= days.year_days(y);
                    }
                }
                assert_eq!(days.days_between(from, to), expect, "{days:?} {from}..{to}");
            }
        }
    }

    #[test]
    fn epoch_round_trips_every_day() {
        for days in CALENDARS {
            let mut prev = days.epoch_to_date(-300_000.0 * 24.0);
            for d in -300_000i64..300_000 {
                let c = days.epoch_to_date(d as f64 * 24.0 + 6.0);
                assert!(c.is_valid(), "{days:?} day {d}: {c:?}");
                assert_eq!(
                    days.date_to_epoch(&c),
                    d as f64 * 24.0 + 6.0,
                    "{days:?} {c:?}"
                );
                assert!(prev.before(&c), "{days:?}: {prev:?} then {c:?}");
                prev = c;
            }
        }
    }

    #[test]
    fn known_dates() {
        assert_eq!(Days::Gregorian.epoch_to_date(0.0), t(1970, 1, 1));
        assert_eq!(Days::Gregorian.epoch_to_date(-24.0), t(1969, 12, 31));
        assert_eq!(Days::Gregorian.epoch_to_date(59.0 * 24.0), t(1970, 3, 1));
        assert_eq!(
            Days::Gregorian.date_to_epoch(&t(2000, 3, 1)),
            11017.0 * 24.0
        );
        assert_eq!(Days::Julian.date_to_epoch(&t(1970, 1, 2)), 24.0);
        assert_eq!(Days::Thirty.epoch_to_date(359.0 * 24.0), t(1970, 12, 30));
        assert_eq!(Days::AllLeap.epoch_to_date(59.0 * 24.0), t(1970, 2, 29));
        assert_eq!(
            Days::NoLeap.epoch_to_date(365.0 * 24.0 * 30.0 + 59.0 * 24.0),
            t(2000, 3, 1)
        );
        // The switch: the day after 1582-10-04 (Julian) is 1582-10-15 (Gregorian), but
        // cdtime (and so ncdump) names the very moment of the switch 1582-10-05.
        let eve = t(1582, 10, 4);
        assert_eq!(mixed_add(&eve, 24.0), t(1582, 10, 5));
        assert_eq!(mixed_add(&eve, 36.0).day, 15);
        assert_eq!(mixed_diff(&t(1582, 10, 15), &eve), 24.0);
        assert_eq!(mixed_add(&t(1582, 10, 15), -24.0), t(1582, 10, 4));
        assert_eq!(
            Days::Gregorian.add_months(0.0, 14),
            Days::Gregorian.date_to_epoch(&t(1971, 3, 1))
        );
        assert_eq!(
            Days::Gregorian.add_months(0.0, -1),
            Days::Gregorian.date_to_epoch(&t(1969, 12, 1))
        );
        assert_eq!(Days::Gregorian.months_between(0.0, 24.0 * 400.0, 1), 13);
    }

    #[test]
    fn absurd_values_end() {
        for v in [1e300, -1e300, f64::MAX, 1e18] {
            let c = Days::Gregorian.epoch_to_date(v);
            let _ = Days::Gregorian.date_to_epoch(&CompTime {
                year: i64::MAX / 2,
                ..c
            });
        }
        let _ = mixed_add(&t(i64::MIN / 4, 1, 1), 1e300);
    }
}
