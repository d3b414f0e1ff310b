//! The header numcodecs' ZFPY writes before each chunk's stream (zfp's "full" header):
//! a magic word, the field (scalar type and up to four dimensions) and the mode
//! (fixed rate, precision, accuracy, reversible, or the four parameters in full).

use super::bits::BitReader;
use super::block::{Params, Scalar, MIN_EXP};

/// The codec version zfp 0.5 and 1.0 write; the only one there is.
const CODEC_VERSION: u64 = 5;
const MAX_BITS: u32 = 16658;
const MAX_PREC: u32 = 64;
/// The largest mode number in the 12-bit short form.
const MODE_SHORT_MAX: u64 = (1 << 12) - 2;

/// What the header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) scalar: Scalar,
    /// `1..=4`.
    pub(super) dims: u32,
    /// Sizes from the fastest-varying axis (x) on; 1 beyond `dims`.
    pub(super) shape: [usize; 4],
    pub(super) params: Params,
}

impl Header {
    /// Values in the field.
    pub(super) fn len(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    }
}

/// Read the header at the start of `r`.
pub(super) fn read(r: &mut BitReader) -> Result<Header, String> {
    let magic = [r.read_bits(8), r.read_bits(8), r.read_bits(8)];
    if magic != [u64::from(b'z'), u64::from(b'f'), u64::from(b'p')] {
        return Err("no zfp header (the stream does not start with \"zfp\")".into());
    }
    let version = r.read_bits(8);
    if version != CODEC_VERSION {
        return Err(format!(
            "zfp codec version {version}; this build reads version {CODEC_VERSION}"
        ));
    }
    let (scalar, dims, shape) = field(r.read_bits(52));
    let mut mode = r.read_bits(12);
    if mode > MODE_SHORT_MAX {
        mode += r.read_bits(52) << 12;
    }
    if r.overrun() {
        return Err("the zfp header is cut short".into());
    }
    let params = params(mode)?;
    Ok(Header {
        scalar,
        dims,
        shape,
        params,
    })
}

/// The 52 bits of field metadata: type (2 bits), dimensions less one (2 bits), then
/// each size less one, x first, in 48 bits shared among the axes.
fn field(meta: u64) -> (Scalar, u32, [usize; 4]) {
    let scalar = match meta & 3 {
        0 => Scalar::I32,
        1 => Scalar::I64,
        2 => Scalar::F32,
        _ => Scalar::F64,
    };
    let dims = ((meta >> 2) & 3) as u32 + 1;
    let sizes = meta >> 4;
    let (bits, mask) = match dims {
        // zfp limits 1D fields to 2^32 values though the header has room for 48 bits.
        1 => (48, 0xffff_ffff),
        2 => (24, 0xff_ffff),
        3 => (16, 0xffff),
        _ => (12, 0xfff),
    };
    let mut shape = [1usize; 4];
    for (axis, size) in shape.iter_mut().enumerate().take(dims as usize) {
        *size = ((sizes >> (bits * axis)) & mask) as usize + 1;
    }
    (scalar, dims, shape)
}

/// The coding parameters a mode number stands for.
fn params(mode: u64) -> Result<Params, String> {
    let p = if mode <= MODE_SHORT_MAX {
        let m = mode as u32;
        let lossy = |maxprec, minexp| Params {
            minbits: 1,
            maxbits: MAX_BITS,
            maxprec,
            minexp,
        };
        if m < 2048 {
            // fixed rate: every block takes the same bits
            Params {
                minbits: m + 1,
                maxbits: m + 1,
                maxprec: MAX_PREC,
                minexp: MIN_EXP,
            }
        } else if m < 2048 + 128 {
            lossy(m + 1 - 2048, MIN_EXP)
        } else if m == 2048 + 128 {
            lossy(MAX_PREC, MIN_EXP - 1)
        } else {
            lossy(MAX_PREC, m as i32 + MIN_EXP - (2048 + 128 + 1))
        }
    } else {
        let m = mode >> 12;
        Params {
            minbits: (m & 0x7fff) as u32 + 1,
            maxbits: ((m >> 15) & 0x7fff) as u32 + 1,
            maxprec: ((m >> 30) & 0x7f) as u32 + 1,
            minexp: ((m >> 37) & 0x7fff) as i32 - 16495,
        }
    };
    if p.minbits > p.maxbits || p.maxprec == 0 || p.maxprec > MAX_PREC {
        return Err(format!(
            "zfp mode {mode:#x}: bits {}..{}, precision {} are not a valid setting",
            p.minbits, p.maxbits, p.maxprec
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_modes() {
        assert_eq!(params(63).unwrap().maxbits, 64);
        assert_eq!(params(63).unwrap().minbits, 64);
        assert_eq!(params(2048 + 15).unwrap().maxprec, 16);
        assert!(params(2048 + 128).unwrap().minexp < MIN_EXP);
        // tolerance 2^-7
        assert_eq!(params(2048 + 128 + 1 + 1074 - 7).unwrap().minexp, -7);
    }

    #[test]
    fn field_sizes_start_at_x() {
        let meta = 2 | (1 << 2) | ((4u64) << 4) | ((9u64) << 28);
        let (t, d, shape) = field(meta);
        assert_eq!((t, d, shape), (Scalar::F32, 2, [5, 10, 1, 1]));
    }
}
