//! One zfp block (4^d values): its integer coefficients coded bit plane by bit plane,
//! the inverse decorrelating transform, and the block-floating-point or reversible
//! mapping back to values. Values come out as raw bit patterns (`u64`, low bits for
//! 32-bit types) so that one traversal serves every scalar type.

use super::bits::BitReader;
use super::perm::{PERM_2, PERM_3, PERM_4};

/// zfp's smallest floating-point exponent; a stream whose `minexp` is below it is
/// reversible (lossless).
pub(super) const MIN_EXP: i32 = -1074;

/// The coding parameters a stream's header sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Params {
    pub(super) minbits: u32,
    pub(super) maxbits: u32,
    pub(super) maxprec: u32,
    pub(super) minexp: i32,
}

impl Params {
    fn reversible(&self) -> bool {
        self.minexp < MIN_EXP
    }
}

/// The scalar types zfp codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scalar {
    I32,
    I64,
    F32,
    F64,
}

impl Scalar {
    pub(super) fn size(self) -> usize {
        match self {
            Scalar::I32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::F64 => 8,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Scalar::I32 => "int32",
            Scalar::I64 => "int64",
            Scalar::F32 => "float32",
            Scalar::F64 => "float64",
        }
    }

    fn wide(self) -> bool {
        self.size() == 8
    }

    /// Bits of the integer type the values are coded in.
    fn int_bits(self) -> u32 {
        if self.wide() {
            64
        } else {
            32
        }
    }

    /// Wrap an `i64` to the coding integer's width, as its own arithmetic would.
    fn wrap(self, x: i64) -> i64 {
        if self.wide() {
            x
        } else {
            i64::from(x as i32)
        }
    }

    /// Two's complement from zfp's negabinary coding.
    fn negabinary_to_int(self, u: u64) -> i64 {
        if self.wide() {
            const MASK: u64 = 0xaaaa_aaaa_aaaa_aaaa;
            ((u ^ MASK).wrapping_sub(MASK)) as i64
        } else {
            const MASK: u32 = 0xaaaa_aaaa;
            i64::from(((u as u32 ^ MASK).wrapping_sub(MASK)) as i32)
        }
    }

    /// The integer's bit pattern, as the value's storage.
    fn pattern(self, x: i64) -> u64 {
        if self.wide() {
            x as u64
        } else {
            u64::from(x as u32)
        }
    }

    /// Exponent bits and bias of a floating-point type.
    fn exponent(self) -> (u32, i32) {
        if self.wide() {
            (11, 1023)
        } else {
            (8, 127)
        }
    }
}

/// Decode `data.len()` unsigned coefficients, most significant bit plane first, within
/// `maxbits` bits and `maxprec` planes; returns the bits read. Each plane sends the bits
/// of the coefficients already known to be significant, then a unary run-length code
/// that finds the next ones (a group test per run).
fn decode_ints(
    r: &mut BitReader,
    maxbits: u32,
    maxprec: u32,
    int_bits: u32,
    data: &mut [u64],
) -> u32 {
    data.fill(0);
    let size = data.len();
    let kmin = int_bits.saturating_sub(maxprec);
    // A budget below a block's own header wraps around, as zfp's unsigned arithmetic
    // does (zfpy's fixed rates ignore the type, so 1D doubles at rate 1 have 4 bits
    // per block): the block is then coded without a limit.
    let mut bits = maxbits;
    let mut n = 0usize;
    let mut k = int_bits;
    while bits > 0 && k > kmin {
        k -= 1;
        let plane = 1u64 << k;
        let m = n.min(bits as usize);
        bits -= m as u32;
        for d in &mut data[..m] {
            if r.read_bit() {
                *d += plane;
            }
        }
        while bits > 0 && n < size {
            bits -= 1;
            if !r.read_bit() {
                break;
            }
            while bits > 0 && n < size - 1 {
                bits -= 1;
                if r.read_bit() {
                    break;
                }
                n += 1;
            }
            data[n] += plane;
            n += 1;
        }
    }
    maxbits - bits
}

fn perm(dims: u32) -> &'static [u8] {
    const PERM_1: [u8; 4] = [0, 1, 2, 3];
    match dims {
        1 => &PERM_1,
        2 => &PERM_2,
        3 => &PERM_3,
        _ => &PERM_4,
    }
}

/// Apply `lift` to every line of 4 along each axis, the slowest axis first.
fn each_line(block: &mut [i64], dims: u32, mut lift: impl FnMut(&mut [i64], usize, usize)) {
    for axis in (0..dims).rev() {
        let stride = 4usize.pow(axis);
        for base in 0..block.len() {
            if (base / stride) % 4 == 0 {
                lift(block, base, stride);
            }
        }
    }
}

/// zfp's inverse decorrelating transform (a non-orthogonal lifting scheme).
fn inv_xform(block: &mut [i64], dims: u32, t: Scalar) {
    let add = |a: i64, b: i64| t.wrap(a.wrapping_add(b));
    let sub = |a: i64, b: i64| t.wrap(a.wrapping_sub(b));
    each_line(block, dims, |p, i, s| {
        let (mut x, mut y, mut z, mut w) = (p[i], p[i + s], p[i + 2 * s], p[i + 3 * s]);
        y = add(y, w >> 1);
        w = sub(w, y >> 1);
        y = add(y, w);
        w = sub(w, sub(y, w));
        z = add(z, x);
        x = sub(x, sub(z, x));
        y = add(y, z);
        z = sub(z, sub(y, z));
        w = add(w, x);
        x = sub(x, sub(w, x));
        (p[i], p[i + s], p[i + 2 * s], p[i + 3 * s]) = (x, y, z, w);
    });
}

/// The reversible mode's inverse transform (a Lorenzo predictor, exact in integers).
fn rev_inv_xform(block: &mut [i64], dims: u32, t: Scalar) {
    let add = |a: i64, b: i64| t.wrap(a.wrapping_add(b));
    each_line(block, dims, |p, i, s| {
        let (x, mut y, mut z, mut w) = (p[i], p[i + s], p[i + 2 * s], p[i + 3 * s]);
        w = add(w, z);
        z = add(z, y);
        w = add(w, z);
        y = add(y, x);
        z = add(z, y);
        w = add(w, z);
        (p[i], p[i + s], p[i + 2 * s], p[i + 3 * s]) = (x, y, z, w);
    });
}

/// Coefficients in coding order to signed integers in block order.
fn inv_order(ublock: &[u64], iblock: &mut [i64], dims: u32, t: Scalar) {
    for (u, &at) in ublock.iter().zip(perm(dims)) {
        iblock[usize::from(at)] = t.negabinary_to_int(*u);
    }
}

/// Pad a block to `minbits` (fixed rate), returning the bits it takes.
fn pad(r: &mut BitReader, bits: u32, minbits: u32) -> u32 {
    if bits < minbits {
        r.skip(u64::from(minbits - bits));
        minbits
    } else {
        bits
    }
}

/// A block of integers in the lossy mode; returns the bits read.
fn int_block(
    r: &mut BitReader,
    minbits: u32,
    maxbits: u32,
    maxprec: u32,
    dims: u32,
    t: Scalar,
    iblock: &mut [i64],
) -> u32 {
    let mut ublock = [0u64; 256];
    let ublock = &mut ublock[..iblock.len()];
    let bits = decode_ints(r, maxbits, maxprec, t.int_bits(), ublock);
    let bits = pad(r, bits, minbits);
    inv_order(ublock, iblock, dims, t);
    inv_xform(iblock, dims, t);
    bits
}

/// A block of integers in the reversible mode: its precision first, then the planes.
fn rev_int_block(
    r: &mut BitReader,
    minbits: u32,
    maxbits: u32,
    dims: u32,
    t: Scalar,
    iblock: &mut [i64],
) -> u32 {
    let pbits = if t.wide() { 6 } else { 5 };
    let prec = r.read_bits(pbits) as u32 + 1;
    let mut ublock = [0u64; 256];
    let ublock = &mut ublock[..iblock.len()];
    let bits = pbits + decode_ints(r, maxbits.wrapping_sub(pbits), prec, t.int_bits(), ublock);
    let bits = pad(r, bits, minbits);
    inv_order(ublock, iblock, dims, t);
    rev_inv_xform(iblock, dims, t);
    bits
}

/// 2^e as an `f32`, 0 below the smallest subnormal (as `ldexpf` gives).
fn pow2_f32(e: i32) -> f32 {
    if e >= -126 {
        f32::from_bits(((e + 127) as u32) << 23)
    } else if e >= -149 {
        f32::from_bits(1u32 << (e + 149))
    } else {
        0.0
    }
}

/// 2^e as an `f64`, 0 below the smallest subnormal.
fn pow2_f64(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else if e >= -1074 {
        f64::from_bits(1u64 << (e + 1074))
    } else {
        0.0
    }
}

/// Block-floating-point integers relative to the common exponent `emax` to values.
fn inv_cast(iblock: &[i64], out: &mut [u64], emax: i32, t: Scalar) {
    if t.wide() {
        let s = pow2_f64(emax - 62);
        for (o, &i) in out.iter_mut().zip(iblock) {
            *o = (s * i as f64).to_bits();
        }
    } else {
        let s = pow2_f32(emax - 30);
        for (o, &i) in out.iter_mut().zip(iblock) {
            *o = u64::from((s * i as f32).to_bits());
        }
    }
}

/// Decode one block of `4^dims` values of type `t` into `out` (bit patterns).
pub(super) fn decode_block(r: &mut BitReader, p: &Params, dims: u32, t: Scalar, out: &mut [u64]) {
    let mut iblock = [0i64; 256];
    let iblock = &mut iblock[..out.len()];
    match t {
        Scalar::I32 | Scalar::I64 => {
            if p.reversible() {
                rev_int_block(r, p.minbits, p.maxbits, dims, t, iblock);
            } else {
                int_block(r, p.minbits, p.maxbits, p.maxprec, dims, t, iblock);
            }
            for (o, &i) in out.iter_mut().zip(iblock.iter()) {
                *o = t.pattern(i);
            }
        }
        Scalar::F32 | Scalar::F64 => {
            if p.reversible() {
                rev_float_block(r, p, dims, t, iblock, out)
            } else {
                float_block(r, p, dims, t, iblock, out)
            }
        }
    }
}

/// Read a floating-point block's first bit; when it says the block is all zeros, fill
/// `out` with them and pad the block to `minbits` (fixed rate).
fn all_zero(r: &mut BitReader, p: &Params, out: &mut [u64]) -> bool {
    if r.read_bit() {
        return false;
    }
    out.fill(0);
    pad(r, 1, p.minbits);
    true
}

/// A block's common exponent, and the bits it takes.
fn read_exponent(r: &mut BitReader, t: Scalar) -> (i32, u32) {
    let (ebits, ebias) = t.exponent();
    (r.read_bits(ebits) as i32 - ebias, ebits)
}

/// The lossy mode's floating-point block: a nonzero flag, the common exponent, then
/// the integers.
fn float_block(
    r: &mut BitReader,
    p: &Params,
    dims: u32,
    t: Scalar,
    iblock: &mut [i64],
    out: &mut [u64],
) {
    if all_zero(r, p, out) {
        return;
    }
    let (emax, ebits) = read_exponent(r, t);
    let bits = 1 + ebits;
    // As many bit planes as the accuracy asks for, at most maxprec.
    let wanted = i64::from(emax) - i64::from(p.minexp) + 2 * i64::from(dims) + 2;
    let maxprec = wanted.clamp(0, i64::from(p.maxprec)) as u32;
    int_block(
        r,
        p.minbits.saturating_sub(bits),
        p.maxbits.wrapping_sub(bits),
        maxprec,
        dims,
        t,
        iblock,
    );
    inv_cast(iblock, out, emax, t);
}

/// The reversible mode's floating-point block: either the values' own bits as
/// sign-magnitude integers, or block-floating-point integers that are exact.
fn rev_float_block(
    r: &mut BitReader,
    p: &Params,
    dims: u32,
    t: Scalar,
    iblock: &mut [i64],
    out: &mut [u64],
) {
    if all_zero(r, p, out) {
        return;
    }
    // The values' own bits as sign-magnitude integers, or block-floating-point
    // integers with a common exponent first.
    let (emax, bits) = if r.read_bit() {
        (None, 2)
    } else {
        let (emax, ebits) = read_exponent(r, t);
        (Some(emax), 2 + ebits)
    };
    rev_int_block(
        r,
        p.minbits.saturating_sub(bits),
        p.maxbits.wrapping_sub(bits),
        dims,
        t,
        iblock,
    );
    match emax {
        None => {
            // Two's complement back to sign-magnitude: the value's own bits.
            let magnitude = if t.wide() {
                i64::MAX as u64
            } else {
                0x7fff_ffff
            };
            for (o, &i) in out.iter_mut().zip(iblock.iter()) {
                let u = t.pattern(i);
                *o = if i < 0 { u ^ magnitude } else { u };
            }
        }
        Some(emax) if emax == -t.exponent().1 => out.fill(0),
        Some(emax) => inv_cast(iblock, out, emax, t),
    }
}
