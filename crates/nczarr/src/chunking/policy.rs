//! How to cut a variable into slabs that bound memory while keeping output order.

use super::Region;

/// Split the whole of an array of `shape` into consecutive slabs, in C order, each at
/// most about `budget` elements, aligned to `chunks` where possible.
///
/// A slab is a range along one dimension `d` with single indices on the dimensions
/// before it and full extents after it, so concatenating slabs gives C order. Ranges
/// follow chunk boundaries so that a chunk is decoded once per slab it meets.
pub fn slabs(shape: &[u64], chunks: &[u64], budget: u64) -> Vec<Region> {
    let rank = shape.len();
    if rank == 0 || shape.contains(&0) {
        return vec![Region::whole(shape)];
    }
    let budget = budget.max(1);
    // Elements in one index of dimension d with everything after it full.
    let inner = |d: usize| {
        shape[d + 1..]
            .iter()
            .fold(1u64, |a, &b| a.saturating_mul(b))
    };
    // The outermost dimension whose chunk-aligned range fits the budget.
    let split = (0..rank)
        .find(|&d| inner(d).saturating_mul(chunks[d].clamp(1, shape[d])) <= budget)
        .unwrap_or(rank - 1);
    let step = {
        let per_index = inner(split).max(1);
        let fit = (budget / per_index).max(1);
        let c = chunks[split].clamp(1, shape[split]);
        if fit >= c {
            fit / c * c
        } else {
            fit
        }
    };
    let mut out = Vec::new();
    let mut prefix = vec![0u64; split];
    loop {
        let mut pos = 0;
        while pos < shape[split] {
            let n = step.min(shape[split] - pos);
            let mut start = prefix.clone();
            start.push(pos);
            start.extend(std::iter::repeat_n(0, rank - split - 1));
            let mut count = vec![1u64; split];
            count.push(n);
            count.extend_from_slice(&shape[split + 1..]);
            out.push(Region::block(start, count));
            pos += n;
        }
        // Next prefix, odometer style.
        let mut d = split;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            prefix[d] += 1;
            if prefix[d] < shape[d] {
                break;
            }
            prefix[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(slabs: &[Region]) -> u64 {
        slabs.iter().map(|r| r.len().unwrap()).sum()
    }

    #[test]
    fn whole_array_when_it_fits() {
        let s = slabs(&[10, 20], &[5, 20], 1000);
        assert_eq!(s, vec![Region::whole(&[10, 20])]);
    }

    #[test]
    fn chunk_aligned_rows() {
        let s = slabs(&[365, 180, 360], &[1, 180, 360], 180 * 360 * 10);
        assert_eq!(s.len(), 37);
        assert_eq!(s[0].count, [10, 180, 360]);
        assert_eq!(total(&s), 365 * 180 * 360);
    }

    #[test]
    fn inner_split_keeps_c_order() {
        let s = slabs(&[2, 4, 1000], &[2, 2, 1000], 2000);
        // One index of dim 0, chunk-aligned pairs along dim 1.
        assert_eq!(s[0], Region::block(vec![0, 0, 0], vec![1, 2, 1000]));
        assert_eq!(s[1], Region::block(vec![0, 2, 0], vec![1, 2, 1000]));
        assert_eq!(s[2], Region::block(vec![1, 0, 0], vec![1, 2, 1000]));
        assert_eq!(total(&s), 8000);
    }

    #[test]
    fn huge_last_dimension_is_cut() {
        let s = slabs(&[10_000_000], &[10_000_000], 1_000_000);
        assert_eq!(s.len(), 10);
        assert_eq!(total(&s), 10_000_000);
    }

    #[test]
    fn scalars_and_empty() {
        assert_eq!(slabs(&[], &[], 10), vec![Region::whole(&[])]);
        assert_eq!(slabs(&[0, 5], &[1, 5], 10), vec![Region::whole(&[0, 5])]);
    }
}
