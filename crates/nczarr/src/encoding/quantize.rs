//! netCDF's quantization (`_QuantizeBitGroomNumberOfSignificantDigits`,
//! `_QuantizeGranularBitRoundNumberOfSignificantDigits`,
//! `_QuantizeBitRoundNumberOfSignificantBits`): float and double values keep the
//! significant digits (or bits) asked for and lose the rest, so they compress better.
//! The arithmetic is netcdf-c's (`nc4_convert_type` in `libsrc4/nc4var.c`), value for
//! value: fill values, zeros and NaN are left alone; BitGroom shaves the even elements
//! and sets the odd ones (counted from the variable's first element), BitRound and
//! Granular BitRound round half up in the bits kept.

use crate::model::Values;

/// Which quantization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantizeMode {
    /// BitGroom: `nsd` significant decimal digits.
    BitGroom,
    /// Granular BitRound: `nsd` significant decimal digits, per value.
    GranularBitRound,
    /// BitRound: `nsd` significant bits.
    BitRound,
}

/// A variable's quantization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantize {
    /// Which one.
    pub mode: QuantizeMode,
    /// Significant digits (bits for BitRound).
    pub nsd: u32,
}

impl Quantize {
    /// The quantization an attribute named `name` asks for with `nsd`.
    pub fn from_attribute(name: &str, nsd: u32) -> Option<Quantize> {
        let mode = match name {
            "_QuantizeBitGroomNumberOfSignificantDigits" => QuantizeMode::BitGroom,
            "_QuantizeGranularBitRoundNumberOfSignificantDigits" => QuantizeMode::GranularBitRound,
            "_QuantizeBitRoundNumberOfSignificantBits" => QuantizeMode::BitRound,
            _ => return None,
        };
        Some(Quantize { mode, nsd })
    }

    /// The quantization a variable's attributes say (netcdf-c writes one of the three
    /// with the number of digits or bits).
    pub fn of_attrs(attrs: &[crate::model::Attr]) -> Option<Quantize> {
        attrs
            .iter()
            .filter(|a| a.name.starts_with("_Quantize"))
            .find_map(|a| {
                let n = u32::try_from(a.values.get_i128(0)?).ok()?;
                Quantize::from_attribute(&a.name, n)
            })
    }

    /// The attribute netcdf-c names this quantization by.
    pub fn attribute(self) -> &'static str {
        match self.mode {
            QuantizeMode::BitGroom => "_QuantizeBitGroomNumberOfSignificantDigits",
            QuantizeMode::GranularBitRound => "_QuantizeGranularBitRoundNumberOfSignificantDigits",
            QuantizeMode::BitRound => "_QuantizeBitRoundNumberOfSignificantBits",
        }
    }

    /// Why `nsd` does not fit a variable of `double` (else float) values: netcdf-c's
    /// limits (1 to 6 digits or 23 bits for float, 15 digits or 52 bits for double).
    pub fn check(self, double: bool) -> Result<(), String> {
        let max = match (self.mode, double) {
            (QuantizeMode::BitRound, false) => 23,
            (QuantizeMode::BitRound, true) => 52,
            (_, false) => 6,
            (_, true) => 15,
        };
        if (1..=max).contains(&self.nsd) {
            Ok(())
        } else {
            Err(format!(
                "{} = {} is outside 1 to {max} for {} values",
                self.attribute(),
                self.nsd,
                if double { "double" } else { "float" }
            ))
        }
    }
}

/// Bits per decimal digit.
const BIT_PER_DGT: f64 = std::f64::consts::LN_10 / std::f64::consts::LN_2;

/// The masks that keep `keep` explicit significand bits of a `bits`-bit float whose
/// significand has `explicit` explicit bits: (shave, set, half).
fn masks(explicit: i32, keep: i32, bits: u32) -> Option<(u64, u64, u64)> {
    let zero_bits = explicit - keep;
    if zero_bits <= 0 {
        return None;
    }
    let all = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let shave = (all << zero_bits) & all;
    let set = !shave & all;
    let half = set & (shave >> 1);
    Some((shave, set, half))
}

/// Quantize `values` (floats or doubles; others are left alone) as `q` says; `first`
/// is the index of `values[0]` in the variable's C order (BitGroom alternates by it),
/// `fill` the variable's fill value.
pub fn quantize(values: &mut Values, q: Quantize, first: impl Fn(usize) -> u64, fill: Option<f64>) {
    match values {
        Values::Float(v) => {
            let fill = fill.map_or(f32::from_bits(0x7cf0_0000), |f| f as f32);
            let skip = |x: f32| x == fill || x == 0.0 || x.is_nan();
            apply(
                v,
                q,
                &first,
                23,
                32,
                |x| skip(*x),
                |x| f64::from(*x),
                |x| u64::from(x.to_bits()),
                |b| f32::from_bits(b as u32),
            );
        }
        Values::Double(v) => {
            let fill = fill.unwrap_or(9.969_209_968_386_869e36);
            let skip = |x: f64| x == fill || x == 0.0 || x.is_nan();
            apply(
                v,
                q,
                &first,
                52,
                64,
                |x| skip(*x),
                |x| *x,
                |x| x.to_bits(),
                f64::from_bits,
            );
        }
        _ => {}
    }
}

#[allow(clippy::too_many_arguments)]
fn apply<T: Copy>(
    v: &mut [T],
    q: Quantize,
    first: &impl Fn(usize) -> u64,
    explicit: i32,
    bits: u32,
    skip: impl Fn(&T) -> bool,
    as_f64: impl Fn(&T) -> f64,
    to_bits: impl Fn(T) -> u64,
    from_bits: impl Fn(u64) -> T,
) {
    let nsd = q.nsd as i32;
    let all = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    match q.mode {
        QuantizeMode::BitGroom | QuantizeMode::BitRound => {
            let keep = match q.mode {
                QuantizeMode::BitGroom => (f64::from(nsd) * BIT_PER_DGT).ceil() as i32 + 1,
                _ => nsd,
            };
            let Some((shave, set, half)) = masks(explicit, keep, bits) else {
                return;
            };
            for (i, x) in v.iter_mut().enumerate() {
                if skip(x) {
                    continue;
                }
                let b = to_bits(*x);
                let out = match q.mode {
                    QuantizeMode::BitGroom if first(i).is_multiple_of(2) => b & shave,
                    QuantizeMode::BitGroom => b | set,
                    _ => (b.wrapping_add(half) & all) & shave,
                };
                *x = from_bits(out);
            }
        }
        QuantizeMode::GranularBitRound => {
            for x in v.iter_mut() {
                if skip(x) {
                    continue;
                }
                let val = as_f64(x);
                let (mnt, xpn) = frexp(val);
                let mnt_fabs = mnt.abs();
                let mnt_log10 = mnt_fabs.log10();
                let dgt_nbr = (f64::from(xpn) / BIT_PER_DGT + mnt_log10).floor() as i32 + 1;
                let qnt_pwr = (BIT_PER_DGT * f64::from(dgt_nbr - nsd)).floor() as i32;
                // netcdf-c keeps it in an unsigned short, then takes one bit off.
                let keep = if mnt_fabs == 0.0 {
                    0u16
                } else {
                    ((f64::from(xpn) - BIT_PER_DGT * mnt_log10).floor() as i32 - qnt_pwr)
                        .unsigned_abs() as u16
                }
                .wrapping_sub(1);
                let Some((shave, _, half)) = masks(explicit, i32::from(keep), bits) else {
                    continue;
                };
                *x = from_bits((to_bits(*x).wrapping_add(half) & all) & shave);
            }
        }
    }
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1` (0 for 0, as it is for NaN and
/// infinities, which callers leave alone).
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * f64::from_bits(0x4350_0000_0000_0000)); // times 2^54
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_say_the_quantization_and_empty_ones_say_nothing() {
        use crate::model::Attr;
        let attrs = [
            Attr::new("_FillValue", Values::Char(Vec::new())),
            Attr::new(
                "_QuantizeBitRoundNumberOfSignificantBits",
                Values::Int(vec![]),
            ),
            Attr::new(
                "_QuantizeBitGroomNumberOfSignificantDigits",
                Values::Int(vec![3]),
            ),
        ];
        assert_eq!(
            Quantize::of_attrs(&attrs),
            Some(Quantize {
                mode: QuantizeMode::BitGroom,
                nsd: 3
            })
        );
        assert_eq!(Quantize::of_attrs(&attrs[..2]), None);
        assert_eq!(Values::Int(vec![]).get_i128(0), None);
    }

    #[test]
    fn frexp_is_cs() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(0.1), (0.8, -3));
        let (m, e) = frexp(f64::MIN_POSITIVE / 4.0);
        assert_eq!((m, e), (0.5, -1023));
    }

    #[test]
    fn bitround_keeps_the_bits_asked_for_and_leaves_fill_zero_and_nan() {
        let mut v = Values::Double(vec![std::f64::consts::PI, 0.0, f64::NAN, -9.0, 1.0 + 1e-9]);
        let q = Quantize {
            mode: QuantizeMode::BitRound,
            nsd: 5,
        };
        quantize(&mut v, q, |i| i as u64, Some(-9.0));
        let Values::Double(v) = v else { unreachable!() };
        assert_eq!(v[0], 3.125);
        assert_eq!(v[1], 0.0);
        assert!(v[2].is_nan());
        assert_eq!(v[3], -9.0);
        assert_eq!(v[4], 1.0);
    }

    #[test]
    fn bitgroom_shaves_even_elements_and_sets_odd_ones() {
        let mut v = Values::Float(vec![1.1, 1.1, 1.1]);
        let q = Quantize {
            mode: QuantizeMode::BitGroom,
            nsd: 2,
        };
        quantize(&mut v, q, |i| i as u64 + 1, None);
        let Values::Float(v) = v else { unreachable!() };
        // Element 1 of the variable (odd) set, 2 shaved, 3 set.
        assert!(v[0] > 1.1 && v[1] < 1.1 && v[2] == v[0], "{v:?}");
    }
}
