//! NCO's `history` line: `Sun Nov 29 10:19:59 2026: ncatted -a units,T,o,c,K in.nc`,
//! prepended to the global `history` attribute (with a newline before the old text),
//! as every NCO operator does unless `-h`.

use super::apply::{put_attr, AttRules};
use crate::model::{Dataset, Values};

/// The line for `command` (the program and its arguments as given) run at `when`
/// (seconds since 1970 in UTC), its date as C's `ctime` writes it.
pub fn history_line(command: &[String], when: i64) -> String {
    format!("{}: {}", ctime(when), command.join(" "))
}

/// Prepend `line` to the root group's `history` (created when missing; a `string`
/// history gets the line as its first string's start, as a `char` one does), where
/// `rules` put a changed attribute.
pub fn prepend_history(dataset: &mut Dataset, line: &str, rules: AttRules) {
    let attrs = &mut dataset.root.attrs;
    let values = match attrs
        .iter()
        .find(|a| a.name == "history")
        .map(|a| &a.values)
    {
        None => Values::text(line),
        Some(Values::Char(text)) => {
            let mut joined = format!("{line}\n").into_bytes();
            joined.extend_from_slice(text);
            Values::Char(joined)
        }
        Some(Values::String(strings)) if !strings.is_empty() => {
            let mut items: Vec<Option<Vec<u8>>> =
                strings.iter().map(|s| s.map(<[u8]>::to_vec)).collect();
            let first = items[0].take().unwrap_or_default();
            let mut joined = format!("{line}\n").into_bytes();
            joined.extend_from_slice(&first);
            items[0] = Some(joined);
            Values::String(items.into())
        }
        // Another type (numbers): left alone, a new one is not made over it.
        Some(_) => return,
    };
    put_attr(attrs, "history", values, rules);
}

/// `Sun Nov 29 10:19:59 2026` (C's `ctime`, without its newline) for `secs` since
/// 1970 in UTC.
fn ctime(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let in_day = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {y}",
        DAYS[usize::try_from(days.rem_euclid(7)).unwrap_or(0)],
        MONTHS[usize::try_from(m - 1).unwrap_or(0)],
        d,
        in_day / 3600,
        in_day % 3600 / 60,
        in_day % 60
    )
}

/// The proleptic Gregorian date of day `z` since 1970-01-01 (Howard Hinnant's
/// algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_ncos() {
        // 2026-11-29 10:19:59 UTC, a Sunday.
        let line = history_line(
            &["nczatted".into(), "-a".into(), "x,T,o,c,1".into()],
            1_795_947_599,
        );
        assert_eq!(line, "Sun Nov 29 10:19:59 2026: nczatted -a x,T,o,c,1");
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn history_is_prepended() {
        let mut d = Dataset::default();
        prepend_history(&mut d, "two", AttRules::ALL);
        prepend_history(&mut d, "three", AttRules::ALL);
        assert_eq!(d.root.attrs[0].values, Values::text("three\ntwo"));
    }
}
