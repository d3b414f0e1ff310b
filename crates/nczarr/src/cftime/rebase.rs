//! Times moved from one `<unit> since <date>` to another as the CF libraries move
//! them (cftime, which xarray uses), not as cdtime prints them.
//!
//! cdtime (ncdump's `-t`) steps calendar months and drops a value's fraction of one:
//! 1.5 `months since 2000-01-01` prints as 2000-02-01. A join that rebases a file in
//! months to another in days must not lose half a month: cftime takes a month as 30
//! days, exactly, in the `360_day` calendar, where every month is, and refuses months
//! in every other calendar (they have no one length) and years in all of them.
//! ncrcat, through UDUnits, takes a month as a twelfth of a tropical year
//! (30.436849898 days): a length no calendar's months have, so that 1.5 months is
//! 45.655 days. The tools follow cftime: what it refuses is refused, in one line.

use super::{Calendar, TimeUnits, Unit};

/// Why times cannot be moved between two units as the CF libraries move them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{units}' in the {calendar} calendar has no fixed length: CF libraries (cftime, xarray) take months only in the 360_day calendar, as 30 days, and years in none; times in days, hours, minutes or seconds since a date convert"
)]
pub struct UnitsError {
    /// The units, as `months since 2000-01-01`.
    pub units: String,
    /// The calendar's CF name.
    pub calendar: &'static str,
}

impl TimeUnits {
    /// Hours in one unit, as cftime takes it.
    ///
    /// # Errors
    /// [`UnitsError`] for a unit cftime refuses in this calendar.
    pub fn cf_hours(&self) -> Result<f64, UnitsError> {
        match (self.unit, self.calendar) {
            (Unit::Second, _) => Ok(1.0 / 3600.0),
            (Unit::Minute, _) => Ok(1.0 / 60.0),
            (Unit::Hour, _) => Ok(1.0),
            (Unit::Day, _) => Ok(24.0),
            (Unit::Week, _) => Ok(168.0),
            (Unit::Month, Calendar::Day360) => Ok(30.0 * 24.0),
            _ => Err(UnitsError {
                units: self.describe(),
                calendar: self.calendar.name(),
            }),
        }
    }

    /// `value` in these units as a value in `to`, as cftime converts it: the exact
    /// instant, fractions of a month included.
    ///
    /// # Errors
    /// [`UnitsError`] when either unit has no length cftime gives it here.
    pub fn rebase_to(&self, value: f64, to: &TimeUnits) -> Result<f64, UnitsError> {
        let (ours, theirs) = (self.cf_hours()?, to.cf_hours()?);
        if self.unit.months().is_none() && to.unit.months().is_none() {
            // Fixed units: cdtime's arithmetic is exact, and knows the mixed calendar.
            return Ok(to.value(&self.date(value)));
        }
        // Hours from `to`'s reference date to ours, in the calendar (both 360_day).
        let hours = TimeUnits {
            calendar: to.calendar,
            unit: Unit::Hour,
            base: to.base,
        };
        let between = hours.value(&self.base);
        Ok((between + value * ours) / theirs)
    }

    /// `days since 2000-01-01`, for messages.
    fn describe(&self) -> String {
        let unit = match self.unit {
            Unit::Second => "seconds",
            Unit::Minute => "minutes",
            Unit::Hour => "hours",
            Unit::Day => "days",
            Unit::Week => "weeks",
            Unit::Month => "months",
            Unit::Season => "seasons",
            Unit::Year => "years",
        };
        let b = &self.base;
        format!("{unit} since {:04}-{:02}-{:02}", b.year, b.month, b.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str, calendar: &str) -> TimeUnits {
        TimeUnits::parse(text.as_bytes(), Some(calendar.as_bytes())).unwrap()
    }

    #[test]
    fn months_of_the_360_day_calendar_are_30_days_with_their_fractions() {
        let months = units("months since 2000-01-01", "360_day");
        let days = units("days since 2000-01-01", "360_day");
        assert_eq!(months.rebase_to(1.5, &days), Ok(45.0));
        assert_eq!(days.rebase_to(45.0, &months), Ok(1.5));
        // Another reference date: 2000-03-01 is day 60 of a 360-day year.
        let later = units("months since 2000-03-01", "360_day");
        assert_eq!(later.rebase_to(1.5, &days), Ok(105.0));
    }

    #[test]
    fn months_elsewhere_and_years_anywhere_are_refused_as_cftime_refuses_them() {
        let days = units("days since 2000-01-01", "standard");
        for (text, calendar) in [
            ("months since 2000-01-01", "standard"),
            ("months since 2000-01-01", "noleap"),
            ("years since 2000-01-01", "360_day"),
            ("seasons since 2000-01-01", "360_day"),
        ] {
            let e = units(text, calendar).rebase_to(1.5, &days).unwrap_err();
            assert_eq!(e.units, text, "{calendar}");
        }
        let e = units("months since 2000-01-01", "gregorian")
            .rebase_to(1.0, &days)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "'months since 2000-01-01' in the standard calendar has no fixed length: CF libraries (cftime, xarray) take months only in the 360_day calendar, as 30 days, and years in none; times in days, hours, minutes or seconds since a date convert"
        );
    }

    #[test]
    fn fixed_units_convert_as_before() {
        let days = units("days since 2000-01-01", "standard");
        let hours = units("hours since 2000-01-02", "standard");
        assert_eq!(days.rebase_to(1.5, &hours), Ok(12.0));
        assert_eq!(hours.rebase_to(-24.0, &days), Ok(0.0));
    }
}
