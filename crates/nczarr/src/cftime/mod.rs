//! CF time: values in `<unit> since <date>` units, in every CF calendar, to and from
//! date-time text, exactly as netcdf-c's ncdump (`-t`, `-i`) and ncgen (`time("...")`)
//! do it, for both directions of the tools: `nczdump -t` prints dates, `nczgen` reads
//! them back.
//!
//! netcdf-c does this with cdtime (`libdispatch/nctime.c`), whose quirks ncdump's
//! output carries and which are kept here: units and dates are read with C's `sscanf`
//! rules (the `scan` module), a calendar name matches when the attribute is a prefix of it,
//! month units step to the first day of a month, fractional seconds print with `%lf`,
//! the mixed Julian/Gregorian calendar names its switch moment 1582-10-05, a date
//! that cannot be printed prints as `""`.

mod bounds;
mod cdtime;
mod rebase;
mod scan;
#[cfg(test)]
mod tests;

use crate::model::{Dataset, Var, VarPath};
use bounds::attr_text;
pub use bounds::{boundary_vars, bounds_parent, cell_bounds};
pub use cdtime::CompTime;
use cdtime::{mixed_add, mixed_diff, Days};
pub use rebase::UnitsError;
use scan::{scan, Slot, EOF};

/// A CF calendar, as ncdump names them (`calendar_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calendar {
    /// `standard`, `gregorian`, or no calendar: Julian before 1582-10-15, Gregorian
    /// from then on.
    Mixed,
    /// `proleptic_gregorian`.
    ProlepticGregorian,
    /// `julian`.
    Julian,
    /// `noleap`, `no_leap`, `365_day`.
    NoLeap,
    /// `all_leap`, `allleap`, `366_day`.
    AllLeap,
    /// `360_day`.
    Day360,
    /// `none`: climatological time, months and days with no year.
    None,
}

/// Calendar attribute values in ncdump's order: the first name the attribute's text
/// is a case-insensitive prefix of wins.
const CALENDAR_NAMES: [(&str, Calendar); 12] = [
    ("gregorian", Calendar::Mixed),
    ("standard", Calendar::Mixed),
    ("proleptic_gregorian", Calendar::ProlepticGregorian),
    ("noleap", Calendar::NoLeap),
    ("no_leap", Calendar::NoLeap),
    ("365_day", Calendar::NoLeap),
    ("allleap", Calendar::AllLeap),
    ("all_leap", Calendar::AllLeap),
    ("366_day", Calendar::AllLeap),
    ("360_day", Calendar::Day360),
    ("julian", Calendar::Julian),
    ("none", Calendar::None),
];

impl Calendar {
    /// The calendar a `calendar` attribute's text names, as ncdump reads it: the
    /// mixed calendar when there is none, it is empty or it names no calendar.
    pub fn from_attr(text: Option<&[u8]>) -> Calendar {
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return Calendar::Mixed;
        };
        // strncasecmp(text, name, len(text)) == 0
        let matches = |name: &str| {
            let name = name.as_bytes();
            for (i, &a) in text.iter().enumerate() {
                let b = name.get(i).copied().unwrap_or(0);
                if !a.eq_ignore_ascii_case(&b) {
                    return false;
                }
                if a == 0 {
                    return true;
                }
            }
            true
        };
        CALENDAR_NAMES
            .iter()
            .find(|(name, _)| matches(name))
            .map_or(Calendar::Mixed, |&(_, c)| c)
    }

    /// The CF name.
    pub fn name(self) -> &'static str {
        match self {
            Calendar::Mixed => "standard",
            Calendar::ProlepticGregorian => "proleptic_gregorian",
            Calendar::Julian => "julian",
            Calendar::NoLeap => "noleap",
            Calendar::AllLeap => "all_leap",
            Calendar::Day360 => "360_day",
            Calendar::None => "none",
        }
    }

    /// Whether dates have years (all but `none`).
    fn has_years(self) -> bool {
        self != Calendar::None
    }

    /// cdtime's single-calendar arithmetic for this calendar (the mixed calendar
    /// falls back to proleptic Gregorian where cdtime does: month units).
    fn days(self) -> Days {
        match self {
            Calendar::Mixed | Calendar::ProlepticGregorian => Days::Gregorian,
            Calendar::Julian => Days::Julian,
            Calendar::NoLeap => Days::NoLeap,
            Calendar::AllLeap => Days::AllLeap,
            Calendar::Day360 => Days::Thirty,
            Calendar::None => Days::Clim,
        }
    }

    /// Days in a month of this calendar.
    fn month_len(self, year: i64, month: i16) -> i64 {
        match self {
            Calendar::Mixed if (year, month) < (1582, 10) => Days::Julian.month_len(year, month),
            c => c.days().month_len(year, month),
        }
    }
}

/// A time unit cdtime knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `sec...`, `s`.
    Second,
    /// `min...`, `mn`.
    Minute,
    /// `hour...`, `hr`.
    Hour,
    /// `day...`, `dy`.
    Day,
    /// `week...`, `wk`: 7 days.
    Week,
    /// `month...`, `mo`: calendar months.
    Month,
    /// `season...`: 3 calendar months.
    Season,
    /// `year...`, `yr`: 12 calendar months.
    Year,
}

impl Unit {
    /// cdtime's unit names: case-insensitive prefixes and a few abbreviations.
    fn from_word(word: &str) -> Option<Unit> {
        let w = word.to_ascii_lowercase();
        let starts = |p: &str| w.starts_with(p);
        Some(if starts("sec") || w == "s" {
            Unit::Second
        } else if starts("min") || w == "mn" {
            Unit::Minute
        } else if starts("hour") || w == "hr" {
            Unit::Hour
        } else if starts("day") || w == "dy" {
            Unit::Day
        } else if starts("week") || w == "wk" {
            Unit::Week
        } else if starts("month") || w == "mo" {
            Unit::Month
        } else if starts("season") {
            Unit::Season
        } else if starts("year") || w == "yr" {
            Unit::Year
        } else {
            return None;
        })
    }

    /// Hours in one unit, for the units of fixed length.
    fn hours(self) -> Option<f64> {
        match self {
            Unit::Second | Unit::Minute => None,
            Unit::Hour => Some(1.0),
            Unit::Day => Some(24.0),
            Unit::Week => Some(168.0),
            Unit::Month | Unit::Season | Unit::Year => None,
        }
    }

    /// `value` of this unit in hours, with cdtime's operations (`cdToHours`).
    fn to_hours(self, value: f64) -> f64 {
        match self {
            Unit::Second => value / 3600.0,
            Unit::Minute => value / 60.0,
            u => u.hours().map_or(0.0, |h| h * value),
        }
    }

    /// `hours` in this unit (`cdFromHours` and `cdComp2Rel`'s conversions).
    fn of_hours(self, hours: f64) -> f64 {
        match self {
            Unit::Second => 3600.0 * hours,
            Unit::Minute => 60.0 * hours,
            Unit::Hour => hours,
            Unit::Day => hours / 24.0,
            Unit::Week => hours / 168.0,
            Unit::Month | Unit::Season | Unit::Year => 0.0,
        }
    }

    /// Months in one unit, for the calendar-month units.
    fn months(self) -> Option<i64> {
        match self {
            Unit::Month => Some(1),
            Unit::Season => Some(3),
            Unit::Year => Some(12),
            _ => None,
        }
    }
}

/// Why a date-time text cannot be a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a date-time {why}")]
pub struct DateError {
    text: String,
    why: String,
}

/// `<unit> since <date>` in a calendar: what turns a variable's numbers into dates.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeUnits {
    /// The calendar of the dates.
    pub calendar: Calendar,
    /// What one counts.
    pub unit: Unit,
    /// The date counted from.
    pub base: CompTime,
}

impl TimeUnits {
    /// A variable's `units` and `calendar` attribute texts as ncdump reads them
    /// (`is_valid_time_unit`, `calendar_type`, `cdParseRelunits`): `None` when the
    /// units are not a time since a date (`"days"`, `"m s-1"`, ...).
    pub fn parse(units: &[u8], calendar: Option<&[u8]>) -> Option<TimeUnits> {
        let calendar = Calendar::from_attr(calendar);
        let (mut word, mut b1, mut b2) = (String::new(), String::new(), String::new());
        let n1 = scan_units(units, true, &mut word, &mut b1, &mut b2);
        let n2 = scan_units(units, false, &mut word, &mut b1, &mut b2);
        if n1 <= 1 && n2 <= 1 {
            return None;
        }
        // cdParseRelunits: blank-separated, or ISO 8601's T between date and time.
        let mut nconv = n2;
        if nconv != EOF && nconv >= 2 && b1.contains('T') {
            nconv = scan_units(units, true, &mut word, &mut b1, &mut b2);
        }
        if nconv == EOF || nconv == 0 {
            return None;
        }
        let unit = Unit::from_word(&word)?;
        if unit == Unit::Year && !calendar.has_years() {
            return None;
        }
        let base = match nconv {
            1 if calendar.has_years() => "1979".to_string(),
            1 => "1".to_string(),
            2 => trim(&b1).to_string(),
            _ => format!("{} {}", trim(&b1), trim(&b2)),
        };
        let (base, _) = char_to_comp(calendar, base.as_bytes());
        Some(TimeUnits {
            calendar,
            unit,
            base,
        })
    }

    /// A numeric variable's time units, as ncdump's `get_timeinfo` finds them: its
    /// `units` and `calendar` attributes, char text or (as netcdf-c reads them since
    /// 4.9.1) the first of a string list.
    pub fn of_var(var: &Var) -> Option<TimeUnits> {
        if !var.nc_type.is_numeric() {
            return None;
        }
        let text = |name: &str| var.attr(name).and_then(|a| attr_text(&a.values));
        TimeUnits::parse(text("units")?, text("calendar"))
    }

    /// The time units of the variable at `path` in `dataset`: as [`TimeUnits::of_var`],
    /// but a boundary variable (the one a coordinate's `bounds` or `climatology` names,
    /// [`bounds_parent`]) takes the `units` and `calendar` it lacks from its
    /// coordinate, as CF 7.1 lets it, so that `time_bnds` holds times as `time` does.
    pub fn of_var_in(dataset: &Dataset, path: &VarPath) -> Option<TimeUnits> {
        let var = dataset.var(path)?;
        if !var.nc_type.is_numeric() {
            return None;
        }
        let parent = bounds_parent(dataset, path).map(|(_, p)| p);
        let text = |name: &str| {
            var.attr(name)
                .or_else(|| parent.and_then(|p| p.attr(name)))
                .and_then(|a| attr_text(&a.values))
        };
        TimeUnits::parse(text("units")?, text("calendar"))
    }

    /// The date `value` names (`cdRel2Comp`).
    pub fn date(&self, value: f64) -> CompTime {
        if self.calendar == Calendar::Mixed {
            if self.unit.months().is_none() {
                return mixed_add(&self.base, self.unit.to_hours(value));
            }
            return self.date_in(Days::Gregorian, value);
        }
        self.date_in(self.calendar.days(), value)
    }

    fn date_in(&self, days: Days, value: f64) -> CompTime {
        let base = days.date_to_epoch(&self.base);
        match self.unit.months() {
            Some(m) => {
                if value == 0.0 {
                    return self.base;
                }
                let steps = m as f64 * value + if value < 0.0 { -1e-10 } else { 1e-10 };
                days.epoch_to_date(days.add_months(base, c_long(steps)))
            }
            None => days.epoch_to_date(base + self.unit.to_hours(value)),
        }
    }

    /// ncdump's text for `value` (`cdRel2Iso`), without quotes: `""` when the date
    /// is out of range.
    pub fn format(&self, value: f64, separator: char, out: &mut String) {
        comp_to_iso(self.calendar.has_years(), separator, &self.date(value), out);
    }

    /// The value a date-time text names in these units (`cdChar2Comp`, then
    /// `cdComp2Rel`), for nczgen. Stricter than cdtime: the whole text must be a date
    /// (`YYYY-MM-DD[ hh[:mm[:ss.s]]]`, or `T` before the time) that exists in the
    /// calendar.
    ///
    /// # Errors
    /// A [`DateError`] saying what is wrong with the text.
    pub fn value_of(&self, text: &str) -> Result<f64, DateError> {
        let t = read_date(self.calendar, text)?;
        Ok(self.value(&t))
    }

    /// The value the date `t` has in these units (`cdComp2Rel`).
    pub fn value(&self, t: &CompTime) -> f64 {
        let mut calendar = self.calendar;
        if calendar == Calendar::Mixed {
            if self.unit.months().is_none() {
                return self.unit.of_hours(mixed_diff(t, &self.base));
            }
            calendar = Calendar::ProlepticGregorian;
        }
        let days = calendar.days();
        let base = days.date_to_epoch(&self.base);
        let end = days.date_to_epoch(t);
        match self.unit.months() {
            Some(step) => {
                let n = days.months_between(base, end, step) as f64;
                if calendar.has_years() && base > end {
                    -n
                } else {
                    n
                }
            }
            None => {
                let mut delta = end - base;
                if !calendar.has_years() && !(0.0..8760.0).contains(&delta) {
                    delta -= (delta / 8760.0).floor() * 8760.0;
                }
                self.unit.of_hours(delta)
            }
        }
    }
}

/// ncgen's `time("...")`: hours since 1970-01-01 in the proleptic Gregorian calendar.
///
/// # Errors
/// A [`DateError`] when the text is not a date.
pub fn ncgen_time(text: &str) -> Result<f64, DateError> {
    let t = read_date(Calendar::ProlepticGregorian, text)?;
    Ok(Days::Gregorian.date_to_epoch(&t))
}

/// A whole date-time text in `calendar`, checked as nczgen checks it.
fn read_date(calendar: Calendar, text: &str) -> Result<CompTime, DateError> {
    let fail = |why: &str| DateError {
        text: text.to_string(),
        why: why.to_string(),
    };
    let mut s = text.trim().to_string();
    // ISO 8601's T between the date and the time, as nczdump -i prints it.
    if let Some(i) = s.find('T') {
        if i > 0 && s[..i].bytes().last().is_some_and(|b| b.is_ascii_digit()) {
            s.replace_range(i..=i, " ");
        }
    }
    let (t, used) = char_to_comp(calendar, s.as_bytes());
    let form = if calendar.has_years() {
        "(YYYY-MM-DD hh:mm:ss)"
    } else {
        "(MM-DD hh:mm:ss, calendar none)"
    };
    match used {
        Err(why) => return Err(fail(&why)),
        Ok(n) if n < s.len() || n == 0 => return Err(fail(form)),
        Ok(_) => {}
    }
    if !t.is_valid() {
        return Err(fail(form));
    }
    // The days the mixed calendar skips; cdtime names the switch itself 1582-10-05.
    let skipped =
        calendar == Calendar::Mixed && (t.year, t.month) == (1582, 10) && (6..15).contains(&t.day);
    if i64::from(t.day) > calendar.month_len(t.year, t.month) || skipped {
        return Err(fail(&format!("in the {} calendar", calendar.name())));
    }
    Ok(t)
}

/// cdtime's two readings of units: `%s since %s %s`, or with ISO 8601's `T` between
/// date and time (`%s since %[^T]T%s`). As in C, a reading that converts less leaves
/// the later fields as the other reading set them.
fn scan_units(units: &[u8], iso: bool, word: &mut String, b1: &mut String, b2: &mut String) -> i32 {
    if iso {
        scan(
            units,
            "%s since %[^T]T%s",
            &mut [Slot::Word(word), Slot::NotT(b1), Slot::Word(b2)],
        )
    } else {
        scan(
            units,
            "%s since %s %s",
            &mut [Slot::Word(word), Slot::Word(b1), Slot::Word(b2)],
        )
    }
}

/// `cdTrim`: cut at the first blank, and to at most 47 bytes.
fn trim(s: &str) -> &str {
    let mut end = s.find(|c: char| c.is_ascii_whitespace()).unwrap_or(s.len());
    end = end.min(47);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// C's `(long)` of a double on x86-64: out of range is `LONG_MIN`.
fn c_long(v: f64) -> i64 {
    // 2^63, exactly.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if (-LIMIT..LIMIT).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

/// `cdChar2Comp`: the component time of `text`, with how many bytes the scan used,
/// or why cdtime gave up part way (the fields read so far are kept, as cdtime keeps
/// them).
fn char_to_comp(calendar: Calendar, text: &[u8]) -> (CompTime, Result<usize, String>) {
    let mut t = CompTime::NULL;
    let (mut year, mut month, mut day, mut hr, mut min, mut sec) =
        (0i64, 0i16, 0i16, 0i32, 0i32, 0f64);
    let mut fields: Vec<Slot<'_>> = Vec::with_capacity(6);
    if calendar.has_years() {
        fields.push(Slot::Long(&mut year));
    }
    fields.extend([
        Slot::Short(&mut month),
        Slot::Short(&mut day),
        Slot::Int(&mut hr),
        Slot::Int(&mut min),
        Slot::Double(&mut sec),
    ]);
    let format = if calendar.has_years() {
        "%ld-%hd-%hd %d:%d:%lf"
    } else {
        "%hd-%hd %d:%d:%lf"
    };
    let mut used = 0;
    let n = scan::scan_used(text, format, &mut fields, &mut used);
    drop(fields);
    if n == EOF || n == 0 {
        return (t, Err("(no date in it)".into()));
    }
    // Shift so that field k is the k-th of year, month, day, hour, minute, second.
    let n = if calendar.has_years() { n } else { n + 1 };
    if n >= 1 && calendar.has_years() {
        t.year = year;
    }
    if n >= 2 {
        t.month = month;
    }
    if n >= 3 {
        t.day = day;
    }
    if n >= 4 {
        if !(0..=23).contains(&hr) {
            return (t, Err(format!("(hour {hr})")));
        }
        t.hour = f64::from(hr);
    }
    if n >= 5 {
        if !(0..=59).contains(&min) {
            return (t, Err(format!("(minute {min})")));
        }
        t.hour += f64::from(min) / 60.0;
    }
    if n >= 6 {
        if !(0.0..=60.0).contains(&sec) {
            return (t, Err(format!("(second {sec})")));
        }
        t.hour += sec / 3600.0;
    }
    (t, Ok(used))
}

/// `cdComp2Iso`: zero time parts left off from the right, seconds with `%lf`'s six
/// decimals when they are not whole.
fn comp_to_iso(has_years: bool, separator: char, t: &CompTime, out: &mut String) {
    use std::fmt::Write as _;
    if !t.is_valid() {
        return;
    }
    const EPSSEC: f64 = 0.5e-6;
    const EPSMIN: f64 = EPSSEC / 60.0;
    const EPSHR: f64 = EPSMIN / 60.0;
    let ihr = (t.hour + EPSHR) as i32;
    let dtmp = 60.0 * (t.hour - f64::from(ihr));
    let imin = (dtmp + EPSMIN) as i32;
    let sec = 60.0 * (dtmp - f64::from(imin));
    let isec = (sec + EPSSEC) as i32;
    let skip = if sec - f64::from(isec) < EPSSEC {
        match (isec, imin, ihr) {
            (0, 0, 0) => 4,
            (0, 0, _) => 3,
            (0, _, _) => 2,
            _ => 1,
        }
    } else {
        0
    };
    if has_years {
        // %4.4ld: at least four digits after the sign.
        if t.year < 0 {
            let _ = write!(out, "-{:04}", t.year.unsigned_abs());
        } else {
            let _ = write!(out, "{:04}", t.year);
        }
        out.push('-');
    }
    let _ = write!(out, "{:02}-{:02}", t.month, t.day);
    match skip {
        4 => {}
        3 => {
            let _ = write!(out, "{separator}{ihr:02}");
        }
        2 => {
            let _ = write!(out, "{separator}{ihr:02}:{imin:02}");
        }
        1 => {
            let _ = write!(out, "{separator}{ihr:02}:{imin:02}:{isec:02}");
        }
        _ => {
            let _ = write!(out, "{separator}{ihr:02}:{imin:02}:{sec:.6}");
        }
    }
}
