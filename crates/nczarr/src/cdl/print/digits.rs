//! The first `p` significant decimal digits of a double, correctly rounded the way
//! glibc's `printf` rounds them (the exact binary value, ties to even), in integer
//! arithmetic: `a = m * 2^q` times `10^k` is one 64x64- or 64x128-bit product and a
//! shift (or, for large numbers, one division), so the rounding is decided on the exact
//! remainder rather than estimated. Outside the range those fit in (about 1e-23 to 1e38
//! for 15 digits) the callers take the general path.

use std::cmp::Ordering;

/// 10^0 ..= 10^38: every power of ten a `u128` holds.
const POW10: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^0 ..= 10^19: the powers of ten a `u64` holds, as `u64`.
const POW10_U64: [u64; 20] = {
    let mut t = [0u64; 20];
    let mut i = 0;
    while i < 20 {
        t[i] = POW10[i] as u64;
        i += 1;
    }
    t
};

/// The `p` (1..=17) significant digits of finite `a` > 0 as an integer, correctly
/// rounded, and the decimal exponent of the first digit; `None` out of range.
#[inline(always)]
pub fn digits_exact(a: f64, p: u32) -> Option<(u64, i32)> {
    if !(1..=17).contains(&p) || a.is_nan() || a <= 0.0 || a.is_infinite() {
        return None;
    }
    let bits = a.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, q) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), biased - 1075)
    };
    // Without its trailing zero bits (a float's 29 at least) m * 10^k often fits in 64.
    let zeros = m.trailing_zeros();
    let (m, q) = (m >> zeros, q + zeros as i32);
    // log2(a) lies in [q + top, q + top + 1), so floor(log10(a)) is e or e + 1
    // (78913 / 2^18 is log10(2) to 6 digits; the shift floors negatives too).
    let top = 63 - m.leading_zeros() as i32;
    let e = ((q + top) * 78913) >> 18;
    let lo = POW10_U64[p as usize - 1];
    let k = p as i32 - 1 - e;
    if let (Some(&pow), true) = (POW10_U64.get(k as usize), (-127..0).contains(&q)) {
        let s = q.unsigned_abs();
        if let (Some(n), true) = (m.checked_mul(pow), s < 64) {
            // Most of `float`'s data: as below in 64 bits, cheaper than in 128.
            return Some(round(n >> s, n << (64 - s), 1 << 63, e, lo));
        }
        // What data mostly holds (about 1e-4 to 1e15 at 15 digits): m * 10^k fits in
        // 128 bits, and the bits shifted out, moved to the top, are the fraction.
        let n = u128::from(m) * u128::from(pow);
        return Some(round((n >> s) as u64, n << (128 - s), 1 << 127, e, lo));
    }
    digits_general(m, q, k, e, lo)
}

/// 10^0 ..= 10^12 as doubles (all exact), for [`digits_float`].
const POW10_F64: [f64; 13] = {
    let mut t = [1f64; 13];
    let mut i = 1;
    while i < 13 {
        t[i] = t[i - 1] * 10.0;
        i += 1;
    }
    t
};

/// [`digits_exact`] of a float's value: a float's 24 bits times 5^k (k <= 12) fit in a
/// double's 53, so `a * 10^k` is exact in a double, and the processor's rounding of it
/// to an integer (ties to even) is printf's. A multiplication and two additions where
/// the integer method takes products, a shift and the remainder's comparisons (a float
/// dump's largest step). Values it does not take (`p` over 9, below about 10^(p - 13),
/// from about 10^(p - 1) up, subnormal) go to [`digits_exact`].
#[inline(always)]
pub fn digits_float(a: f32, p: u32) -> Option<(u64, i32)> {
    let biased = (a.to_bits() >> 23) & 0xff;
    // As in digits_exact: floor(log10(a)) is e or e + 1.
    let e = ((biased as i32 - 127) * 78913) >> 18;
    let k = p as i32 - 1 - e;
    if !(a > 0.0 && biased != 0 && (1..=9).contains(&p) && (1..=12).contains(&k)) {
        return digits_exact(f64::from(a), p);
    }
    let (k, p) = (k as usize, p as usize);
    let v = f64::from(a);
    let (x, e) = match v * POW10_F64[k] {
        // One digit too many: the exponent was one low (k - 1 >= 0 is exact too).
        x if x >= POW10_F64[p] => (v * POW10_F64[k - 1], e + 1),
        x => (x, e),
    };
    // Below 2^52, adding 2^52 leaves no bits for a fraction: the sum is x rounded to
    // an integer, ties to even, and taking 2^52 away again is exact.
    const NO_FRACTION: f64 = (1u64 << 52) as f64;
    let r = ((x + NO_FRACTION) - NO_FRACTION) as u64;
    Some(if r == POW10_U64[p] {
        (POW10_U64[p - 1], e + 1)
    } else {
        (r, e)
    })
}

/// [`digits_exact`] beyond 128-bit products: apart, for the common path to stay small.
#[cold]
#[inline(never)]
fn digits_general(m: u64, q: i32, k: i32, mut e: i32, lo: u64) -> Option<(u64, i32)> {
    let Scaled {
        mut y,
        mut rest,
        exact,
    } = scaled(m, q, k)?;
    if y >= lo * 10 {
        let digit = y % 10;
        y /= 10;
        e += 1;
        rest = match digit.cmp(&5) {
            Ordering::Equal if !exact => Ordering::Greater,
            o => o,
        };
    }
    if y < lo || y >= lo * 10 {
        return None;
    }
    let up = (rest == Ordering::Greater) | ((rest == Ordering::Equal) & (y & 1 == 1));
    let r = y + u64::from(up);
    Some(if r == lo * 10 { (lo, e + 1) } else { (r, e) })
}

/// The `p` digits (`lo` is 10^(p-1)) of `y` + `frac` / 2^BITS, correctly rounded, where
/// `y` may have one digit too many (the exponent `e` was one low): that digit then joins
/// the fraction. The cases are selected without branches, for which one it is is random.
#[inline]
fn round<F: Copy + Eq + Ord + Default>(y: u64, frac: F, half: F, e: i32, lo: u64) -> (u64, i32) {
    let over = y >= lo * 10;
    let digit = y % 10;
    let zero = frac == F::default();
    let (y, above, tie) = if over {
        (
            y / 10,
            digit > 5 || (digit == 5 && !zero),
            digit == 5 && zero,
        )
    } else {
        (y, frac > half, frac == half)
    };
    let e = e + i32::from(over);
    let r = y + u64::from(above | (tie & (y & 1 == 1)));
    if r == lo * 10 {
        (lo, e + 1)
    } else {
        (r, e)
    }
}

/// `floor(m * 2^q * 10^k)`, how the rest compares with one half, and whether it is 0.
struct Scaled {
    y: u64,
    rest: Ordering,
    exact: bool,
}

/// [`Scaled`] of `m * 2^q * 10^k`; `None` when the quotient passes 2^64 or the operands
/// do not fit the integer method.
#[inline]
fn scaled(m: u64, q: i32, k: i32) -> Option<Scaled> {
    if k >= 0 {
        // n = m * 10^k = hi * 2^64 + lo, with hi < 2^117.
        let (hi, lo) = if let Some(&pow) = POW10_U64.get(k as usize) {
            let n = u128::from(m) * u128::from(pow);
            (n >> 64, n as u64)
        } else {
            let pow = *POW10.get(k as usize)?;
            let a = u128::from(m) * (pow & u128::from(u64::MAX));
            let b = u128::from(m) * (pow >> 64);
            (b + (a >> 64), a as u64)
        };
        if q >= 0 {
            // An integer: it is the quotient if it fits.
            let s = q as u32;
            if hi != 0 || s >= 64 || lo.leading_zeros() < s {
                return None;
            }
            return Some(Scaled {
                y: lo << s,
                rest: Ordering::Less,
                exact: true,
            });
        }
        shift_right(hi, lo, q.unsigned_abs())
    } else {
        let pow = *POW10.get(k.unsigned_abs() as usize)?;
        let bits_m = 64 - m.leading_zeros();
        // a * 10^k = (m * 2^q) / 10^-k as a fraction of two u128 integers.
        let (num, den) = if q >= 0 {
            if bits_m + q as u32 > 127 {
                return None;
            }
            (u128::from(m) << q, pow)
        } else {
            let s = q.unsigned_abs();
            if 128 - pow.leading_zeros() + s > 127 {
                return None;
            }
            (u128::from(m), pow << s)
        };
        let y = u64::try_from(num / den).ok()?;
        let rem = num % den;
        // rem < den < 2^127, so doubling it cannot overflow.
        Some(Scaled {
            y,
            rest: (rem * 2).cmp(&den),
            exact: rem == 0,
        })
    }
}

/// `(hi * 2^64 + lo) >> s` (s >= 1) as [`Scaled`].
#[inline]
fn shift_right(hi: u128, lo: u64, s: u32) -> Option<Scaled> {
    if hi >> 64 == 0 {
        let n = (hi << 64) | u128::from(lo);
        if s >= 128 {
            return None;
        }
        let rem = n & ((1u128 << s) - 1);
        return Some(Scaled {
            y: u64::try_from(n >> s).ok()?,
            rest: rem.cmp(&(1u128 << (s - 1))),
            exact: rem == 0,
        });
    }
    // Over 128 bits: the quotient only fits when s >= 64.
    if s < 64 || s - 64 >= 128 {
        return None;
    }
    let t = s - 64;
    let y = u64::try_from(hi >> t).ok()?;
    if t == 0 {
        return Some(Scaled {
            y,
            rest: lo.cmp(&(1u64 << 63)),
            exact: lo == 0,
        });
    }
    let rem_hi = hi & ((1u128 << t) - 1);
    let half_hi = 1u128 << (t - 1);
    Some(Scaled {
        y,
        rest: rem_hi.cmp(&half_hi).then(lo.cmp(&0)),
        exact: rem_hi == 0 && lo == 0,
    })
}
