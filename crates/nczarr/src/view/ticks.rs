//! Axis ticks at "nice" steps (1, 2, 2.5 or 5 times a power of ten, as matplotlib's
//! `MaxNLocator` prefers) and their labels.

/// Tick values in `[lo, hi]` (either order) at a nice step, about `target` of them and
/// at least two where the range holds two at any nice step.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let mut ticks = nice_ticks_once(lo, hi, target);
    let mut t = target.max(1);
    while ticks.len() < 2 && t < 64 && lo != hi {
        t *= 2;
        ticks = nice_ticks_once(lo, hi, t);
    }
    ticks
}

/// A date as ncdump -t prints it, its time of day made readable: `1850-01-16 12` is
/// `1850-01-16 12:00`.
pub fn date_text(ncdump: &str) -> String {
    match ncdump.split_once(' ') {
        Some((day, time)) if !time.contains(':') => format!("{day} {time}:00"),
        _ => ncdump.to_string(),
    }
}

fn nice_ticks_once(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    if !lo.is_finite() || !hi.is_finite() {
        return Vec::new();
    }
    if hi == lo {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    ticks_at(lo, hi, step)
}

/// Ticks for degrees of longitude across the seam: steps that divide 360 (so that 0
/// is a tick, as on a map), about `target` of them.
pub fn degree_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    if !lo.is_finite() || !hi.is_finite() || hi == lo {
        return nice_ticks(lo, hi, target);
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let step = [1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 45.0, 60.0, 90.0, 180.0]
        .into_iter()
        .find(|s| *s >= raw)
        .unwrap_or(180.0);
    ticks_at(lo, hi, step)
}

/// The multiples of `step` in `[lo, hi]`.
fn ticks_at(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .map(|k| {
            let v = k as f64 * step;
            // -0 and rounding dust (0.30000000000000004) print badly.
            if v.abs() < step * 1e-9 {
                0.0
            } else {
                v
            }
        })
        .collect()
}

/// A number as a tick label: up to 6 significant digits, no trailing zeros,
/// exponent notation for very large or small magnitudes.
pub fn label(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return v.to_string();
    }
    let a = v.abs();
    if !(1e-4..1e6).contains(&a) {
        let s = format!("{v:.3e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = trim_zeros(m);
        return format!("{m}e{e}");
    }
    let digits = (5 - a.log10().floor() as i32).clamp(0, 10) as usize;
    trim_zeros(&format!("{v:.digits$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_nice() {
        assert_eq!(
            nice_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(nice_ticks(-89.5, 89.5, 6), vec![-50.0, 0.0, 50.0]);
        assert_eq!(
            nice_ticks(-89.5, 89.5, 8),
            vec![-75.0, -50.0, -25.0, 0.0, 25.0, 50.0, 75.0]
        );
        assert_eq!(nice_ticks(3.0, 3.0, 5), vec![3.0]);
        let t = nice_ticks(0.0, 0.9, 3);
        assert_eq!(
            t.iter().map(|v| label(*v)).collect::<Vec<_>>(),
            ["0", "0.5"]
        );
    }

    #[test]
    fn degrees_across_the_seam() {
        assert_eq!(
            degree_ticks(180.5, 539.5, 7),
            vec![240.0, 300.0, 360.0, 420.0, 480.0]
        );
    }

    #[test]
    fn at_least_two_ticks_and_readable_dates() {
        assert_eq!(nice_ticks(-89.5, 89.5, 3), vec![-50.0, 0.0, 50.0]);
        assert!(nice_ticks(-89.5, 89.5, 2).len() >= 2);
        assert_eq!(date_text("1850-01-16 12"), "1850-01-16 12:00");
        assert_eq!(date_text("2001-01-01"), "2001-01-01");
        assert_eq!(date_text("2001-01-01 10:30"), "2001-01-01 10:30");
    }

    #[test]
    fn labels() {
        assert_eq!(label(271.15), "271.15");
        assert_eq!(label(-0.5), "-0.5");
        assert_eq!(label(1e9), "1e9");
        assert_eq!(label(0.00001234), "1.234e-5");
        assert_eq!(label(100.0), "100");
    }
}
