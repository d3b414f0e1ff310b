//! Prefix codes for deflate blocks: the code lengths of an optimal code no longer than
//! a limit, and the canonical codes those lengths give (RFC 1951, 3.2.2).

/// The most symbols an alphabet here has (deflate's literal/length alphabet: 288).
const MAX_SYMBOLS: usize = 288;

/// Code lengths for `freq` (one per symbol, zero for a symbol never used) into `lens`,
/// none longer than `limit`: an optimal prefix code where it fits, else the optimal
/// code of frequencies halved until it does (halving flattens the tree by one level a
/// step; the blocks here are small enough that it takes one or two, at a cost of a
/// fraction of a percent). With two or more symbols used the code is complete, as
/// zlib's inflate requires; one symbol used gets a length of 1.
pub(super) fn code_lengths(freq: &[u32], limit: u8, lens: &mut [u8]) {
    debug_assert!(freq.len() <= MAX_SYMBOLS && lens.len() == freq.len());
    // Sorted by frequency, then symbol, so the code depends only on the counts.
    let mut keys = [0u64; MAX_SYMBOLS];
    let mut weights = [0u32; MAX_SYMBOLS];
    let mut shift = 0;
    loop {
        let mut used = 0;
        for (symbol, &f) in freq.iter().enumerate() {
            if f > 0 {
                keys[used] = (u64::from((f >> shift).max(1)) << 16) | symbol as u64;
                used += 1;
            }
        }
        lens.iter_mut().for_each(|l| *l = 0);
        match used {
            0 => return,
            1 => {
                lens[(keys[0] & 0xffff) as usize] = 1;
                return;
            }
            _ => {}
        }
        let keys = &mut keys[..used];
        keys.sort_unstable();
        let weights = &mut weights[..used];
        for (w, k) in weights.iter_mut().zip(keys.iter()) {
            *w = (k >> 16) as u32;
        }
        minimum_redundancy(weights);
        // The rarest symbol has the longest code.
        if weights[0] <= u32::from(limit) {
            for (w, k) in weights.iter().zip(keys.iter()) {
                lens[(k & 0xffff) as usize] = *w as u8;
            }
            return;
        }
        shift += 1;
    }
}

/// Moffat and Katajainen's in-place algorithm ("In-place calculation of
/// minimum-redundancy codes", 1995): `a` holds two or more weights in ascending order
/// and is left holding each one's code length. Linear time, no allocation, which
/// matters at a few hundred codes built per megabyte.
fn minimum_redundancy(a: &mut [u32]) {
    let n = a.len();
    // First pass, left to right: pair the two lightest nodes, leaves or internal ones,
    // leaving each internal node's weight where it was made and parent links behind.
    a[0] += a[1];
    let mut root = 0;
    let mut leaf = 2;
    for next in 1..n - 1 {
        if leaf >= n || a[root] < a[leaf] {
            a[next] = a[root];
            a[root] = next as u32;
            root += 1;
        } else {
            a[next] = a[leaf];
            leaf += 1;
        }
        if leaf >= n || (root < next && a[root] < a[leaf]) {
            a[next] += a[root];
            a[root] = next as u32;
            root += 1;
        } else {
            a[next] += a[leaf];
            leaf += 1;
        }
    }
    // Second pass, right to left: internal nodes' depths from their parents'.
    a[n - 2] = 0;
    for next in (0..n - 2).rev() {
        a[next] = a[a[next] as usize] + 1;
    }
    // Third pass, right to left: leaves' depths from the internal nodes per level.
    let mut available = 1usize;
    let mut depth = 0u32;
    let mut root = n as isize - 2;
    let mut next = n as isize - 1;
    while available > 0 {
        let mut internal = 0;
        while root >= 0 && a[root as usize] == depth {
            internal += 1;
            root -= 1;
        }
        while available > internal {
            a[next as usize] = depth;
            next -= 1;
            available -= 1;
        }
        available = 2 * internal;
        depth += 1;
    }
}

/// The canonical codes of `lens` into `codes`, bit-reversed: deflate packs bits from
/// the least significant end but sends a Huffman code from its most significant bit.
pub(super) fn canonical_codes(lens: &[u8], codes: &mut [u16]) {
    let mut count = [0u16; 16];
    for &l in lens {
        count[usize::from(l)] += 1;
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    for (symbol, &l) in lens.iter().enumerate() {
        if l > 0 {
            let c = next[usize::from(l)];
            next[usize::from(l)] += 1;
            codes[symbol] = c.reverse_bits() >> (16 - u32::from(l));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kraft's sum of the lengths, in units of 2^-limit: 2^limit for a complete code.
    fn kraft(lens: &[u8], limit: u8) -> u64 {
        lens.iter()
            .filter(|&&l| l > 0)
            .map(|&l| 1u64 << (limit - l))
            .sum()
    }

    #[test]
    fn lengths_are_optimal_complete_and_limited() {
        // Known optimal code: weights 1, 1, 2, 4 give lengths 3, 3, 2, 1.
        let mut lens = [0u8; 5];
        code_lengths(&[1, 0, 1, 2, 4], 15, &mut lens);
        assert_eq!(lens, [3, 0, 3, 2, 1]);
        // Fibonacci weights make the deepest tree there is: 24 symbols would need a
        // length of 23 unlimited; limited, the code stays complete.
        let mut fib = vec![1u32, 1];
        while fib.len() < 24 {
            fib.push(fib[fib.len() - 1] + fib[fib.len() - 2]);
        }
        for limit in [7u8, 15] {
            let mut lens = vec![0u8; fib.len()];
            code_lengths(&fib, limit, &mut lens);
            assert!(lens.iter().all(|&l| l <= limit), "limit {limit}: {lens:?}");
            assert_eq!(kraft(&lens, limit), 1 << limit, "limit {limit}");
            // The most frequent symbol never gets a longer code than a rarer one.
            assert!(lens.windows(2).all(|w| w[0] >= w[1]), "{lens:?}");
        }
        let mut one = [0u8; 3];
        code_lengths(&[0, 9, 0], 15, &mut one);
        assert_eq!(one, [0, 1, 0]);
        let mut none = [7u8; 3];
        code_lengths(&[0, 0, 0], 15, &mut none);
        assert_eq!(none, [0, 0, 0]);
    }

    #[test]
    fn canonical_codes_follow_rfc_1951() {
        // RFC 1951's example: lengths (3, 3, 3, 3, 3, 2, 4, 4) give codes 010, 011,
        // 100, 101, 110, 00, 1110, 1111.
        let lens = [3, 3, 3, 3, 3, 2, 4, 4];
        let mut codes = [0u16; 8];
        canonical_codes(&lens, &mut codes);
        let expected = [0b010, 0b011, 0b100, 0b101, 0b110, 0b00, 0b1110, 0b1111];
        for ((&code, &want), &l) in codes.iter().zip(&expected).zip(&lens) {
            assert_eq!(code, (want as u16).reverse_bits() >> (16 - l));
        }
    }
}
