//! Tests of [`super::digits`] against glibc's printf: the digits, and the whole text
//! the data printer writes with them ([`super::number`]). Beside both files rather than
//! inside `digits.rs`, since the number printer uses the digits and not the reverse.

use super::digits::{digits_exact, digits_float};

/// glibc's `snprintf` of `v` with a format that takes a precision and a double.
fn printf(fmt: &[u8], p: usize, v: f64) -> String {
    let mut buf = [0u8; 64];
    // SAFETY: the buffer's length is passed; the format (NUL-terminated) takes an
    // int and a double.
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr().cast(),
            buf.len(),
            fmt.as_ptr().cast(),
            p as libc::c_int,
            v,
        )
    };
    String::from_utf8(buf[..n as usize].to_vec()).unwrap()
}

/// The digits and exponent of glibc's `%.{p-1}e`.
fn c_digits(a: f64, p: u32) -> (u64, i32) {
    let s = printf(b"%.*e\0", p as usize - 1, a);
    let (mant, exp) = s.split_once('e').unwrap();
    let d = mant.replace('.', "").parse().unwrap();
    (d, exp.parse().unwrap())
}

fn check(a: f64, p: u32) {
    if let Some(got) = digits_exact(a, p) {
        assert_eq!(got, c_digits(a, p), "{a:e} with {p} digits");
    }
}

/// The whole text the data printer writes for `v` equals printf's.
fn check_text(v: f64, p: usize) {
    let mut out = [0u8; 64];
    if let Some(n) = super::number::format_g_into(&mut out, v, p) {
        assert_eq!(
            String::from_utf8_lossy(&out[..n]),
            // glibc's `%.{p}g`: the text ncdump prints.
            printf(b"%.*g\0", p, v),
            "{v:e} with {p} digits"
        );
    }
}

#[test]
fn random_texts_match_printf() {
    let mut next = super::test_words(0x1234_5678_9abc_def1);
    for _ in 0..200_000 {
        let bits = next();
        // Any sign, and every class: normal, subnormal (floats too), zero.
        for v in [
            f64::from_bits(bits & !(0x7ff << 52) | (bits % 2047) << 52),
            f64::from(f32::from_bits(
                bits as u32 & 0x807f_ffff | ((bits >> 32) as u32 % 255) << 23,
            )),
            f64::from(f32::from_bits(bits as u32 & 0x807f_ffff)),
            f64::from_bits(bits & 0x800f_ffff_ffff_ffff),
        ] {
            for p in [1, 4, 6, 7, 9, 15, 16, 17] {
                check_text(v, p);
            }
        }
    }
}

#[test]
fn random_bits_match_printf() {
    let mut next = super::test_words(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300_000 {
        let bits = next();
        for a in [
            f64::from_bits(bits >> 1),
            f64::from(f32::from_bits((bits as u32) >> 1)),
        ] {
            for p in [1, 2, 6, 7, 9, 15, 16, 17] {
                check(a, p);
            }
        }
    }
}

#[test]
fn value_classes_match_printf() {
    let mut values = vec![
        f64::MIN_POSITIVE,
        f64::MAX,
        5e-324,
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::from(f32::MIN_POSITIVE),
        f64::from(f32::MAX),
        f64::from(f32::from_bits(1)),
        f64::from(f32::EPSILON),
        9.969209968386869e36,
        f64::from(9.96921e36f32),
    ];
    // Ties: decimal halves a double holds exactly, at every digit count.
    for p in 1..=17 {
        for base in [
            0.5,
            1.5,
            2.5,
            12.5,
            125.0,
            0.125,
            1e15 + 0.5,
            4503599627370497.5,
        ] {
            values.push(base * 10f64.powi(p - 3));
        }
    }
    // Powers of two and ten, and their neighbours.
    for e in -1074..1024 {
        let x = 2f64.powi(e);
        let b = x.to_bits();
        values.extend([
            x,
            f64::from_bits(b + 1),
            f64::from_bits(b.saturating_sub(1)),
        ]);
    }
    for e in -323..308 {
        let x: f64 = format!("1e{e}").parse().unwrap();
        let b = x.to_bits();
        values.extend([
            x,
            f64::from_bits(b + 1),
            f64::from_bits(b.saturating_sub(1)),
        ]);
    }
    // Every f32 near 1 and 1000: integers, halves, rounding boundaries of 7 digits.
    for i in 0..200_000u32 {
        values.push(f64::from(f32::from_bits(1.0f32.to_bits() + i)));
        values.push(f64::from(f32::from_bits(999.0f32.to_bits() + i)));
    }
    for a in values {
        if a > 0.0 && a.is_finite() {
            for p in 1..=17 {
                check(a, p);
            }
        }
    }
}

/// The float method gives what the integer method gives (checked against printf
/// above) for floats of every class near its edges and at random.
#[test]
fn float_digits_match_exact_digits() {
    let same = |a: f32| {
        for p in 0..=18 {
            assert_eq!(
                digits_float(a, p),
                digits_exact(f64::from(a), p),
                "{a:e} with {p} digits"
            );
        }
    };
    let mut next = super::test_words(0x0bad_cafe_f00d_d00d);
    for _ in 0..300_000 {
        let bits = next();
        same(f32::from_bits(bits as u32));
        same(f32::from_bits((bits >> 32) as u32 & 0x7fff_ffff));
    }
    // Around every power of ten and two a float has (where the exponent's estimate
    // is one low, or a rounding carries into a new digit), and ties.
    for e in -45..=38 {
        let x: f32 = format!("1e{e}").parse().unwrap();
        for d in 0..64 {
            same(f32::from_bits(x.to_bits().wrapping_add(d)));
            same(f32::from_bits(x.to_bits().wrapping_sub(d)));
        }
        for m in [0.5f32, 1.5, 2.5, 9.5, 9.999_999, 12.5, 99.5] {
            same(m * x);
        }
    }
    for e in 0..=255u32 {
        for d in 0..16 {
            same(f32::from_bits((e << 23) + d));
            same(f32::from_bits((e << 23) | (0x7f_ffff - d)));
        }
    }
    for v in [
        0.0f32,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        280.125,
        1e-6,
        9_999_999.0,
    ] {
        same(v);
    }
}

/// Every float, at 7 and 9 digits (minutes:
/// `cargo test --release -p nczarr -- --ignored every_float`).
#[test]
#[ignore]
fn every_float_digits_match_exact_digits() {
    for bits in 0..=u32::MAX {
        let a = f32::from_bits(bits);
        for p in [4, 7, 9] {
            assert_eq!(
                digits_float(a, p),
                digits_exact(f64::from(a), p),
                "{a:e} with {p} digits"
            );
        }
    }
}

#[test]
fn covers_data_magnitudes() {
    // The integer method must take what data mostly holds; the rest goes the long way.
    for a in [1.1e-23, 3.7e-9, 0.1, 1.0, 280.5, 1e15, 1.7e38] {
        assert!(digits_exact(a, 15).is_some(), "{a:e}");
        assert!(digits_exact(a, 7).is_some(), "{a:e}");
    }
    assert!(digits_exact(0.0, 7).is_none());
    assert!(digits_exact(1.0, 18).is_none());
}

/// 10^8 random doubles and floats against glibc at 7, 9, 15 and 17 digits, digits
/// and the printed text (minutes:
/// `cargo test --release -p nczarr -- --ignored hundred_million`).
#[test]
#[ignore]
fn hundred_million_random_values_match_printf() {
    let mut next = super::test_words(0x2545_f491_4f6c_dd1d);
    for i in 0..100_000_000u64 {
        let bits = next();
        let a = if i % 2 == 0 {
            f64::from(f32::from_bits((bits as u32) >> 1))
        } else {
            f64::from_bits(bits >> 1)
        };
        let p = [7, 9, 15, 17][(i / 2 % 4) as usize];
        check(a, p as u32);
        // The printed text, either sign (-p 4,9 too).
        let v = if bits >> 63 == 1 { -a } else { a };
        check_text(v, p);
        check_text(v, [4, 9][(i % 2) as usize]);
    }
}
