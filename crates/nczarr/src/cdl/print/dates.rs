//! `-t`/`-i`: CF time values as dates, where ncdump prints them (`nctime0.c`): the data
//! of a variable with `<unit> since <date>` units (and of the variable its `bounds`
//! attribute names), and a `// "date", ...` comment after each numeric attribute of
//! such a variable.

use crate::cftime::TimeUnits;
use crate::model::Values;

/// One value as ncdump's `nctime_val_tostring` prints it: a quoted date, or `NaN`,
/// `Infinity`, `-Infinity`.
pub(super) fn date_text(out: &mut Vec<u8>, units: &TimeUnits, value: f64, separator: char) {
    if value.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if value.is_infinite() {
        out.extend_from_slice(if value < 0.0 {
            b"-Infinity"
        } else {
            b"Infinity"
        });
    } else {
        let mut s = String::with_capacity(24);
        units.format(value, separator, &mut s);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// `print_att_times` and `lput2`: the dates of a numeric attribute as a CDL comment
/// after its `;`: on the same line for one or two values, else on lines of their own
/// below, wrapped past `max_len` columns.
pub(super) fn attr_comment(
    buf: &mut Vec<u8>,
    units: &TimeUnits,
    values: &Values,
    separator: char,
    indent: &str,
    max_len: usize,
) {
    let n = values.len();
    let wrap = n > 2;
    let mut linep = 0usize;
    let mut item = Vec::with_capacity(32);
    for i in 0..n {
        item.clear();
        date_text(&mut item, units, values.get_f64(i), separator);
        if i + 1 < n {
            item.push(b',');
        }
        linep += 1 + item.len();
        let newline = wrap && (i == 0 || linep > max_len);
        if newline {
            buf.push(b'\n');
            buf.extend_from_slice(indent.as_bytes());
            buf.extend_from_slice(b"\t\t  ");
            linep = 16 + 2 + item.len();
        } else {
            buf.push(b' ');
        }
        if i == 0 || newline {
            buf.extend_from_slice(b"// ");
            linep += 3;
        }
        buf.extend_from_slice(&item);
    }
}
