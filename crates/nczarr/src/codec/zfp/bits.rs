//! zfp's bit stream, read side: bits are packed least significant first into
//! little-endian 64-bit words, so bit `i` of the stream is bit `i % 8` of byte `i / 8`.

/// A reader over a zfp stream. Reading past the end yields zeros and marks the reader
/// overrun, which the caller checks once per block instead of on every bit.
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    pos: u64,
    overrun: bool,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader {
            bytes,
            pos: 0,
            overrun: false,
        }
    }

    /// True once a read went beyond the last byte.
    pub(super) fn overrun(&self) -> bool {
        self.overrun
    }

    pub(super) fn read_bit(&mut self) -> bool {
        let byte = usize::try_from(self.pos >> 3)
            .ok()
            .and_then(|i| self.bytes.get(i));
        self.pos += 1;
        match byte {
            Some(b) => (b >> ((self.pos - 1) & 7)) & 1 == 1,
            None => {
                self.overrun = true;
                false
            }
        }
    }

    /// The next `n` (at most 64) bits, the first read as the least significant.
    pub(super) fn read_bits(&mut self, n: u32) -> u64 {
        debug_assert!(n <= 64);
        let mut value = 0u64;
        let mut done = 0u32;
        while done < n {
            let Some(&byte) = usize::try_from(self.pos >> 3)
                .ok()
                .and_then(|i| self.bytes.get(i))
            else {
                self.overrun = true;
                self.pos += u64::from(n - done);
                return value;
            };
            let offset = (self.pos & 7) as u32;
            let take = (8 - offset).min(n - done);
            let bits = (u64::from(byte) >> offset) & ((1u64 << take) - 1);
            value |= bits << done;
            done += take;
            self.pos += u64::from(take);
        }
        value
    }

    /// Skip `n` bits (fixed-rate blocks are padded to their size).
    pub(super) fn skip(&mut self, n: u64) {
        self.pos = self.pos.saturating_add(n);
        if self.pos > (self.bytes.len() as u64) * 8 {
            self.overrun = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_come_least_significant_first() {
        let mut r = BitReader::new(&[0b1010_0110, 0xff]);
        assert!(!r.read_bit());
        assert!(r.read_bit());
        assert_eq!(r.read_bits(4), 0b1001);
        assert_eq!(r.read_bits(6), 0b11_1110);
        r.skip(3);
        assert_eq!(r.read_bits(1), 1);
        assert!(!r.overrun());
        assert_eq!(r.read_bits(3), 0);
        assert!(r.overrun());
    }
}
