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

/// The chunk size nczgen aims for when a variable does not say (`_ChunkSizes`):
/// large enough for object stores (1–16 MiB is the usual advice), small enough to
/// decode in memory comfortably.
pub const DEFAULT_CHUNK_BYTES: u64 = 4 << 20;

/// Default chunk shape: the whole variable when it fits in `target_bytes`, otherwise
/// Russ Rew's balanced shape ("Chunking Data: Choosing Shapes"): reading a series
/// along the first dimension and reading a slice across the others touch about the
/// same number of chunks, and the chunk is as large as fits in `target_bytes`.
///
/// Unlike netcdf-c this does not depend on how the library was built (4 or 16 MiB).
///
/// ```
/// use nczarr::chunking::default_chunks;
/// // The 38 GB NARR temperature variable of Rew's example, 4 MiB chunks.
/// assert_eq!(default_chunks(&[98128, 277, 349], 4, 4 << 20), vec![1032, 29, 35]);
/// assert_eq!(default_chunks(&[10, 20], 8, 4 << 20), vec![10, 20]);
/// ```
pub fn default_chunks(shape: &[u64], elem_bytes: u64, target_bytes: u64) -> Vec<u64> {
    let rank = shape.len();
    if rank == 0 {
        return Vec::new();
    }
    // A dimension of length 0 (no records yet) still needs a chunk length of at least 1.
    let l: Vec<u64> = shape.iter().map(|&x| x.max(1)).collect();
    let elem = elem_bytes.max(1);
    let per_chunk = (target_bytes / elem).max(1);
    let total: f64 = l.iter().map(|&x| x as f64).product();
    if total <= per_chunk as f64 {
        return l;
    }
    if rank == 1 {
        return vec![per_chunk.min(l[0])];
    }
    let d = per_chunk as f64;
    let n = total / d; // ideal number of chunks
    let mut c = vec![0f64; rank];
    // First dimension: sqrt(N) chunks along it (at least one element per chunk).
    let k0 = n.sqrt();
    c[0] = (l[0] as f64 / k0).max(1.0);
    let mut left = n / (l[0] as f64 / c[0]);
    // The others share the rest equally; dimensions too short for their share get
    // chunk length 1 and the rest is spread over the remaining ones.
    let mut open: Vec<usize> = (1..rank).collect();
    loop {
        let k = left.powf(1.0 / open.len() as f64);
        let short: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&i| (l[i] as f64) < k)
            .collect();
        if short.is_empty() || short.len() == open.len() {
            for &i in &open {
                c[i] = (l[i] as f64 / k).max(1.0);
            }
            break;
        }
        for &i in &short {
            c[i] = 1.0;
            left /= l[i] as f64;
        }
        open.retain(|i| !short.contains(i));
    }
    let base: Vec<u64> = c
        .iter()
        .zip(&l)
        .map(|(&x, &len)| (x.floor() as u64).clamp(1, len))
        .collect();
    // The floors are a little small and all ceilings too big: of the 2^rank vectors
    // "floor + 0 or 1 per dimension", take the largest that fits.
    let bytes = |v: &[u64]| {
        v.iter()
            .try_fold(elem, |acc, &x| acc.checked_mul(x))
            .unwrap_or(u64::MAX)
    };
    let mut best = base.clone();
    if rank <= 12 {
        for mask in 0u32..(1 << rank) {
            let cand: Vec<u64> = base
                .iter()
                .enumerate()
                .map(|(i, &b)| {
                    if mask & (1 << i) != 0 {
                        (b + 1).min(l[i])
                    } else {
                        b
                    }
                })
                .collect();
            let b = bytes(&cand);
            if b <= target_bytes && b > bytes(&best) {
                best = cand;
            }
        }
    }
    best
}

#[cfg(test)]
mod chunk_tests {
    use super::*;

    #[test]
    fn rew_example_vectors() {
        // Rew's table for the NARR variable (float, 98128 x 277 x 349).
        assert_eq!(default_chunks(&[98128, 277, 349], 4, 4096), vec![33, 5, 6]);
        assert_eq!(
            default_chunks(&[98128, 277, 349], 4, 1 << 20),
            vec![516, 20, 25]
        );
        assert_eq!(
            default_chunks(&[98128, 277, 349], 4, 4 << 20),
            vec![1032, 29, 35]
        );
    }

    #[test]
    fn small_and_degenerate() {
        assert_eq!(default_chunks(&[], 4, 100), Vec::<u64>::new());
        assert_eq!(default_chunks(&[0, 5], 4, 100), vec![1, 5]);
        assert_eq!(default_chunks(&[1000], 8, 800), vec![100]);
        let c = default_chunks(&[1, 1, 5000, 5000], 4, 4 << 20);
        assert!(c
            .iter()
            .zip([1, 1, 5000, 5000])
            .all(|(c, l)| *c >= 1 && *c <= l));
        assert!(c.iter().product::<u64>() * 4 <= 4 << 20);
        let c = default_chunks(&[365, 180, 360], 4, 4 << 20);
        assert!(
            c.iter().product::<u64>() * 4 <= 4 << 20 && c.iter().product::<u64>() * 4 > 2 << 20,
            "{c:?}"
        );
    }
}
