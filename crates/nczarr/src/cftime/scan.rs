//! The few `sscanf` formats cdtime reads units and date strings with, with C's rules:
//! a blank in the format skips any white space (none too), `%s` reads a run of
//! non-space, `%[^T]` a run of anything but `T` (no leading skip), numbers skip white
//! space and take an optional sign; the result counts the conversions made, or is
//! `EOF` (-1) when the input ends before the first one. Matching these rules is what
//! makes ncdump's odd inputs (`"days since1500-1-1"`, `"2000-06-15T12"`) come out the
//! same here.

/// Where one conversion goes.
pub(super) enum Slot<'a> {
    /// `%s`
    Word(&'a mut String),
    /// `%[^T]`
    NotT(&'a mut String),
    /// `%ld`
    Long(&'a mut i64),
    /// `%hd`: stored as C stores a `long` into a `short` (wrapping).
    Short(&'a mut i16),
    /// `%d`: stored as C stores a `long` into an `int` (wrapping).
    Int(&'a mut i32),
    /// `%lf`
    Double(&'a mut f64),
}

/// C's `EOF` from `sscanf`.
pub(super) const EOF: i32 = -1;

/// `sscanf(input, format, slots...)` for the directives cdtime uses. Text stops at a
/// NUL as a C string does.
pub(super) fn scan(input: &[u8], format: &str, slots: &mut [Slot<'_>]) -> i32 {
    let mut used = 0;
    scan_used(input, format, slots, &mut used)
}

/// [`scan`], also telling how many bytes of `input` it read.
pub(super) fn scan_used(
    input: &[u8],
    format: &str,
    slots: &mut [Slot<'_>],
    used: &mut usize,
) -> i32 {
    let input = &input[..input.iter().position(|&b| b == 0).unwrap_or(input.len())];
    let mut at = 0;
    let mut done = 0;
    let mut slots = slots.iter_mut();
    let mut f = format.as_bytes().iter().copied();
    let result = loop {
        let Some(c) = f.next() else {
            break done;
        };
        if c.is_ascii_whitespace() {
            while input.get(at).is_some_and(u8::is_ascii_whitespace) {
                at += 1;
            }
            continue;
        }
        if c != b'%' {
            if input.get(at) != Some(&c) {
                break ended(input, at, done);
            }
            at += 1;
            continue;
        }
        let mut spec = Vec::new();
        for d in f.by_ref() {
            spec.push(d);
            if matches!(d, b's' | b'd' | b'f' | b']') {
                break;
            }
        }
        let Some(slot) = slots.next() else {
            break done;
        };
        let before = at;
        if spec != b"[^T]" {
            while input.get(at).is_some_and(u8::is_ascii_whitespace) {
                at += 1;
            }
        }
        if at >= input.len() {
            let end = ended(input, at, done);
            at = before;
            break end;
        }
        let rest = &input[at..];
        let took = match slot {
            Slot::Word(s) => take_run(rest, |b| !b.is_ascii_whitespace(), s),
            Slot::NotT(s) => take_run(rest, |b| b != b'T', s),
            Slot::Long(v) => integer(rest).map(|(n, x)| {
                **v = x;
                n
            }),
            Slot::Short(v) => integer(rest).map(|(n, x)| {
                **v = x as i16;
                n
            }),
            Slot::Int(v) => integer(rest).map(|(n, x)| {
                **v = x as i32;
                n
            }),
            Slot::Double(v) => strtod(rest).map(|(n, x)| {
                **v = x;
                n
            }),
        };
        match took {
            Some(n) => {
                at += n;
                done += 1;
            }
            None => {
                at = before;
                break done;
            }
        }
    };
    *used = at;
    result
}

/// What `sscanf` returns when it stops: `EOF` if the input ran out before any
/// conversion.
fn ended(input: &[u8], at: usize, done: i32) -> i32 {
    if done == 0 && at >= input.len() {
        EOF
    } else {
        done
    }
}

fn take_run(rest: &[u8], keep: impl Fn(u8) -> bool, to: &mut String) -> Option<usize> {
    let n = rest.iter().position(|&b| !keep(b)).unwrap_or(rest.len());
    if n == 0 {
        return None;
    }
    *to = String::from_utf8_lossy(&rest[..n]).into_owned();
    Some(n)
}

/// `strtol` base 10: optional sign, at least one digit; saturates as glibc does.
fn integer(rest: &[u8]) -> Option<(usize, i64)> {
    let mut n = 0;
    let neg = match rest.first() {
        Some(b'-') => {
            n = 1;
            true
        }
        Some(b'+') => {
            n = 1;
            false
        }
        _ => false,
    };
    let digits = rest[n..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut v: i128 = 0;
    for &b in &rest[n..n + digits] {
        v = (v * 10 + i128::from(b - b'0')).min(i128::from(u64::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    let v = v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    Some((n + digits, v))
}

/// `strtod` on decimal text (with exponent), `inf`/`infinity`/`nan`: the length used
/// and the value.
fn strtod(rest: &[u8]) -> Option<(usize, f64)> {
    let mut n = usize::from(matches!(rest.first(), Some(b'-' | b'+')));
    let lower: Vec<u8> = rest
        .iter()
        .take(n + 8)
        .map(u8::to_ascii_lowercase)
        .collect();
    let sign = if rest.first() == Some(&b'-') {
        -1.0
    } else {
        1.0
    };
    for (word, value) in [
        (&b"infinity"[..], f64::INFINITY),
        (b"inf", f64::INFINITY),
        (b"nan", f64::NAN),
    ] {
        if lower.get(n..n + word.len()) == Some(word) {
            return Some((n + word.len(), sign * value));
        }
    }
    let int = rest[n..].iter().take_while(|b| b.is_ascii_digit()).count();
    n += int;
    let mut frac = 0;
    if rest.get(n) == Some(&b'.') {
        frac = rest[n + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if int + frac > 0 {
            n += 1 + frac;
        }
    }
    if int + frac == 0 {
        return None;
    }
    if matches!(rest.get(n), Some(b'e' | b'E')) {
        let mut m = n + 1;
        m += usize::from(matches!(rest.get(m), Some(b'-' | b'+')));
        let exp = rest[m..].iter().take_while(|b| b.is_ascii_digit()).count();
        if exp > 0 {
            n = m + exp;
        }
    }
    let text = std::str::from_utf8(&rest[..n]).ok()?;
    text.parse::<f64>().ok().map(|v| (n, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> (i32, String, String, String) {
        let (mut a, mut b, mut c) = (String::new(), String::new(), String::new());
        let n = scan(
            text.as_bytes(),
            "%s since %s %s",
            &mut [Slot::Word(&mut a), Slot::Word(&mut b), Slot::Word(&mut c)],
        );
        (n, a, b, c)
    }

    #[test]
    fn words_and_blanks_follow_c() {
        assert_eq!(units(""), (EOF, "".into(), "".into(), "".into()));
        assert_eq!(units("   "), (EOF, "".into(), "".into(), "".into()));
        assert_eq!(units("days"), (1, "days".into(), "".into(), "".into()));
        assert_eq!(
            units("days since1500-1-1"),
            (2, "days".into(), "1500-1-1".into(), "".into())
        );
        assert_eq!(
            units("  hours  since  2000-01-01   12:00 trailing"),
            (3, "hours".into(), "2000-01-01".into(), "12:00".into())
        );
        assert_eq!(
            units("days after 2000"),
            (1, "days".into(), "".into(), "".into())
        );
        let (mut a, mut b, mut c) = (String::new(), String::new(), String::new());
        let n = scan(
            b"days since 2000-06-15T12:00:00",
            "%s since %[^T]T%s",
            &mut [Slot::Word(&mut a), Slot::NotT(&mut b), Slot::Word(&mut c)],
        );
        assert_eq!((n, b.as_str(), c.as_str()), (3, "2000-06-15", "12:00:00"));
    }

    #[test]
    fn numbers_follow_c() {
        let (mut y, mut mo, mut d, mut h, mut mi, mut s) = (0i64, 0i16, 0i16, 0i32, 0i32, 0f64);
        let mut date = |text: &str| {
            let n = scan(
                text.as_bytes(),
                "%ld-%hd-%hd %d:%d:%lf",
                &mut [
                    Slot::Long(&mut y),
                    Slot::Short(&mut mo),
                    Slot::Short(&mut d),
                    Slot::Int(&mut h),
                    Slot::Int(&mut mi),
                    Slot::Double(&mut s),
                ],
            );
            (n, y, mo, d, h, mi, s)
        };
        assert_eq!(date("1500-1-1"), (3, 1500, 1, 1, 0, 0, 0.0));
        assert_eq!(date("2000-06-15 12"), (4, 2000, 6, 15, 12, 0, 0.0));
        assert_eq!(date("-10-02-03 4:5:6.25"), (6, -10, 2, 3, 4, 5, 6.25));
        assert_eq!(date("1804-01-08T03").0, 3);
        assert_eq!(date("x").0, 0);
        assert_eq!(date("1900-70000").2, 70000i64 as i16);
        assert_eq!(date("99999999999999999999999").1, i64::MAX);
    }

    #[test]
    fn strtod_prefixes() {
        assert_eq!(strtod(b"1.5e3x"), Some((5, 1500.0)));
        assert_eq!(strtod(b"7."), Some((2, 7.0)));
        assert_eq!(strtod(b".5"), Some((2, 0.5)));
        assert_eq!(strtod(b"2e"), Some((1, 2.0)));
        assert_eq!(strtod(b"-inf"), Some((4, f64::NEG_INFINITY)));
        assert_eq!(strtod(b"."), None);
        assert_eq!(strtod(b"-"), None);
    }
}
