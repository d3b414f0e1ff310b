//! How to cut a variable into slabs that bound memory while keeping output order.

use super::Region;

/// What slabs must respect besides the memory budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlabOrder {
    /// Concatenated in order, the slabs give the array in C order: what printers need.
    /// Ranges follow chunk boundaries where they can, so a chunk is decoded once per
    /// slab it meets.
    Output,
    /// Every slab is a block of whole chunks (cut only by the array's edge), so each
    /// chunk is written once: what writers need. A slab is never smaller than one chunk.
    Chunks,
}

/// Split the whole of an array of `shape` with chunks `chunks` into slabs of at most
/// about `budget` elements, in C order of their starts.
///
/// A slab is a range along one dimension `d` with full extents after it; before it,
/// single indices ([`SlabOrder::Output`]) or one chunk's width ([`SlabOrder::Chunks`]).
/// So memory is bounded along every dimension, not only the first: a `[1, N, M]`
/// variable is cut along `N` when one index of the first dimension is too large.
pub fn slabs(shape: &[u64], chunks: &[u64], budget: u64, order: SlabOrder) -> Vec<Region> {
    let rank = shape.len();
    if rank == 0 || shape.contains(&0) {
        return vec![Region::whole(shape)];
    }
    let budget = budget.max(1);
    let chunk = |d: usize| chunks.get(d).copied().unwrap_or(1).clamp(1, shape[d]);
    // The width of one step along dimension d when d is not the split dimension.
    let unit = |d: usize| match order {
        SlabOrder::Output => 1,
        SlabOrder::Chunks => chunk(d),
    };
    // Elements in one index of dimension d, with the dimensions before it one unit wide
    // and the ones after it full.
    let per_index = |d: usize| {
        let outer = (0..d).fold(1u64, |a, k| a.saturating_mul(unit(k)));
        shape[d + 1..]
            .iter()
            .fold(outer, |a, &b| a.saturating_mul(b))
    };
    // The outermost dimension along which one unit fits the budget: a chunk's width
    // for chunk slabs, one index for output (parts of chunks along it read each chunk
    // fewer times than slabs one index wide before an inner dimension).
    let split = (0..rank)
        .find(|&d| per_index(d).saturating_mul(unit(d)) <= budget)
        .unwrap_or(rank - 1);
    let c = chunk(split);
    let step = {
        let fit = (budget / per_index(split).max(1)).max(1);
        match order {
            _ if fit >= c => fit / c * c,
            SlabOrder::Output => fit,
            // Whole chunks only, even over the budget: a chunk is written whole.
            SlabOrder::Chunks => c,
        }
    };
    let mut out = Vec::new();
    let mut prefix = vec![0u64; split];
    loop {
        // Every step starts at a chunk's edge and is one slab, or, narrower than a
        // chunk (only output slabs are), the chunk cut into as few slabs as the budget
        // allows, of even lengths: slabs shared in turn by two threads, one of each pair
        // a short remainder (32, 32, 32, 4), gave one thread twice the other's work.
        let mut pos = 0;
        while pos < shape[split] {
            let len = step.max(c).min(shape[split] - pos);
            let parts = len.div_ceil(step);
            let (each, longer) = (len / parts, len % parts);
            for j in 0..parts {
                let n = each + u64::from(j < longer);
                let mut start = prefix.clone();
                start.push(pos);
                start.extend(std::iter::repeat_n(0, rank - split - 1));
                let mut count: Vec<u64> = (0..split)
                    .map(|d| unit(d).min(shape[d] - prefix[d]))
                    .collect();
                count.push(n);
                count.extend_from_slice(&shape[split + 1..]);
                out.push(Region::block(start, count));
                pos += n;
            }
        }
        // Next prefix, odometer style, one unit at a time.
        let mut d = split;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            prefix[d] += unit(d);
            if prefix[d] < shape[d] {
                break;
            }
            prefix[d] = 0;
        }
    }
}

/// `slabs` with the first one cut in two along its outer dimension (not the last, of
/// two or more) when it holds over `min` elements, the first part about a `parts`th
/// of it (whole chunks along that dimension where a chunk fits in that share).
///
/// For a pipeline that reads a slab whole before working on it: the stages after the
/// reading wait for the first slab only, so a small one starts them sooner (a string
/// dump's printers waited a tenth of its time for the first 100,000 strings).
pub fn small_first(mut slabs: Vec<Region>, chunks: &[u64], parts: u64, min: u64) -> Vec<Region> {
    let Some(first) = slabs.first() else {
        return slabs;
    };
    // Along an outer dimension: a cut inside rows would leave both parts rows cut short,
    // which printers lay out on one thread.
    let outer = first.count.len().saturating_sub(1).max(1);
    let Some(d) = first.count.iter().take(outer).position(|&n| n > 1) else {
        return slabs;
    };
    if first.len().is_none_or(|n| n <= min) {
        return slabs;
    }
    let n = first.count[d];
    let c = chunks.get(d).copied().unwrap_or(1).max(1);
    let part = n / parts.max(1);
    let part = if part >= c { part / c * c } else { part };
    if part == 0 || part >= n {
        return slabs;
    }
    let mut head = first.clone();
    head.count[d] = part;
    let rest = &mut slabs[0];
    rest.start[d] += part * rest.stride[d];
    rest.count[d] -= part;
    slabs.insert(0, head);
    slabs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_first_slab_is_cut_small_first_along_its_outer_dimension() {
        // 100 rows of a 100-row chunk: an eighth of them first, then the rest.
        let s = slabs(&[1000, 1000], &[100, 1000], 131_072, SlabOrder::Output);
        let cut = small_first(s.clone(), &[100, 1000], 8, 65_536);
        assert_eq!(cut[0], Region::block(vec![0, 0], vec![12, 1000]));
        assert_eq!(cut[1], Region::block(vec![12, 0], vec![88, 1000]));
        assert_eq!(cut[2..], s[1..]);
        // Whole chunks where they fit the share: 8 time steps of 1, one first.
        let s = slabs(&[365, 180, 360], &[1, 180, 360], 1 << 19, SlabOrder::Output);
        let cut = small_first(s.clone(), &[1, 180, 360], 8, 65_536);
        assert_eq!(cut[0].count, [1, 180, 360]);
        assert_eq!((cut[1].start[0], cut[1].count[0]), (1, 7));
        assert_eq!(total(&cut), 365 * 180 * 360);
        let s = slabs(&[64, 10], &[16, 10], 640, SlabOrder::Output);
        let cut = small_first(s, &[16, 10], 4, 100);
        assert_eq!(
            (cut[0].count[0], cut[1].start[0], cut[1].count[0]),
            (16, 16, 48)
        );
        // Never inside rows: a first slab of one row, or of one index of each outer
        // dimension, stays whole.
        for shape in [&[1, 20_000][..], &[1, 1, 50_000][..]] {
            let s = slabs(shape, shape, 1 << 20, SlabOrder::Output);
            assert_eq!(small_first(s.clone(), shape, 8, 100), s, "{shape:?}");
        }
        // A vector is cut along its only dimension.
        let s = slabs(&[20_000], &[20_000], 1 << 20, SlabOrder::Output);
        assert_eq!(small_first(s, &[20_000], 8, 100)[0].count, [2_500]);
        // One part (the whole slab) is no cut.
        let s = slabs(&[64, 10], &[16, 10], 640, SlabOrder::Output);
        assert_eq!(small_first(s.clone(), &[16, 10], 1, 100), s);
        assert_eq!(small_first(s.clone(), &[16, 10], 0, 100), s);
        // Small first slabs, single values and a share below one index stay whole.
        for (shape, min) in [
            (&[1000, 1000][..], 1 << 20),
            (&[1, 1][..], 0),
            (&[4, 5][..], 0),
        ] {
            let s = slabs(shape, shape, 1 << 20, SlabOrder::Output);
            assert_eq!(small_first(s.clone(), shape, 8, min), s, "{shape:?}");
        }
    }

    fn total(slabs: &[Region]) -> u64 {
        slabs.iter().map(|r| r.len().unwrap()).sum()
    }

    #[test]
    fn whole_array_when_it_fits() {
        let s = slabs(&[10, 20], &[5, 20], 1000, SlabOrder::Output);
        assert_eq!(s, vec![Region::whole(&[10, 20])]);
    }

    #[test]
    fn chunk_aligned_rows() {
        let s = slabs(
            &[365, 180, 360],
            &[1, 180, 360],
            180 * 360 * 10,
            SlabOrder::Output,
        );
        assert_eq!(s.len(), 37);
        assert_eq!(s[0].count, [10, 180, 360]);
        assert_eq!(total(&s), 365 * 180 * 360);
    }

    #[test]
    fn inner_split_keeps_c_order() {
        let s = slabs(&[2, 4, 1000], &[2, 2, 1000], 2000, SlabOrder::Output);
        // One index of dim 0, chunk-aligned pairs along dim 1.
        assert_eq!(s[0], Region::block(vec![0, 0, 0], vec![1, 2, 1000]));
        assert_eq!(s[1], Region::block(vec![0, 2, 0], vec![1, 2, 1000]));
        assert_eq!(s[2], Region::block(vec![1, 0, 0], vec![1, 2, 1000]));
        assert_eq!(total(&s), 8000);
    }

    #[test]
    fn output_slabs_take_parts_of_chunks_rather_than_single_rows() {
        let s = slabs(&[1000, 1000], &[100, 1000], 50_000, SlabOrder::Output);
        assert_eq!(s.len(), 20);
        assert_eq!(s[1], Region::block(vec![50, 0], vec![50, 1000]));
        // Cut at chunk edges too: chunk rows 100..200 in two slabs, not three, of
        // even lengths.
        let s = slabs(&[1000, 1000], &[100, 1000], 60_000, SlabOrder::Output);
        let rows: Vec<u64> = s.iter().map(|r| r.start[0]).take(5).collect();
        assert_eq!(rows, [0, 50, 100, 150, 200]);
        assert_eq!(total(&s), 1_000_000);
        // 100 rows in a budget of 32: four slabs of 25, not 32, 32, 32 and 4; the
        // array's last chunk, of 10 rows, in one.
        let s = slabs(&[1010, 1000], &[100, 1000], 32_000, SlabOrder::Output);
        let rows: Vec<u64> = s.iter().map(|r| r.count[0]).collect();
        assert_eq!(rows[..5], [25, 25, 25, 25, 25]);
        assert_eq!(rows.last(), Some(&10));
        assert_eq!(total(&s), 1_010_000);
        // A chunk of 7 rows in a budget of 3: 3, 2 and 2; of 2^44 in a budget of 2^22
        // (lengths whose products overflow): 2^22 slabs of 2^22.
        let s = slabs(&[7, 10], &[7, 10], 30, SlabOrder::Output);
        let rows: Vec<u64> = s.iter().map(|r| r.count[0]).collect();
        assert_eq!(rows, [3, 2, 2]);
        let s = slabs(&[1 << 44], &[1 << 44], 1 << 22, SlabOrder::Output);
        assert_eq!(s.len(), 1 << 22);
        assert!(s.iter().all(|r| r.count[0] == 1 << 22));
        assert_eq!(s.last().map(|r| r.start[0]), Some((1 << 44) - (1 << 22)));
        // Whole chunks where they fit.
        let s = slabs(&[1000, 1000], &[100, 1000], 250_000, SlabOrder::Output);
        assert_eq!(s[0].count, [200, 1000]);
        assert_eq!(total(&s), 1_000_000);
    }

    #[test]
    fn huge_last_dimension_is_cut() {
        let s = slabs(&[10_000_000], &[10_000_000], 1_000_000, SlabOrder::Output);
        assert_eq!(s.len(), 10);
        assert_eq!(total(&s), 10_000_000);
    }

    #[test]
    fn scalars_and_empty() {
        for order in [SlabOrder::Output, SlabOrder::Chunks] {
            assert_eq!(slabs(&[], &[], 10, order), vec![Region::whole(&[])]);
            assert_eq!(
                slabs(&[0, 5], &[1, 5], 10, order),
                vec![Region::whole(&[0, 5])]
            );
        }
    }

    #[test]
    fn output_slabs_follow_each_other_in_c_order_within_budget() {
        for (shape, chunks, budget) in [
            (&[7u64, 5, 3][..], &[2u64, 2, 2][..], 4u64),
            (&[7, 5, 3], &[3, 5, 3], 20),
            (&[10, 9], &[4, 9], 25),
            (&[1000], &[300], 70),
            (&[3, 1000], &[1, 128], 100),
        ] {
            let s = slabs(shape, chunks, budget, SlabOrder::Output);
            let mut next = 0u64;
            let strides = crate::chunking::c_strides(shape);
            for r in &s {
                let first: u64 = r.start.iter().zip(&strides).map(|(a, b)| a * b).sum();
                assert_eq!(first, next, "{shape:?} {chunks:?} {budget}: {r}");
                assert!(r.len().unwrap() <= budget, "{r}");
                next += r.len().unwrap();
            }
            assert_eq!(next, shape.iter().product::<u64>());
        }
    }

    /// Every element exactly once, each slab whole chunks, within budget.
    fn check_chunk_slabs(shape: &[u64], chunks: &[u64], budget: u64) -> Vec<Region> {
        let s = slabs(shape, chunks, budget, SlabOrder::Chunks);
        assert_eq!(
            total(&s),
            shape.iter().product::<u64>(),
            "{shape:?} {chunks:?}"
        );
        let one_chunk: u64 = chunks.iter().product();
        for r in &s {
            assert!(r.len().unwrap() <= budget.max(one_chunk), "{r}");
            for d in 0..shape.len() {
                let end = r.start[d] + r.count[d];
                assert_eq!(r.start[d] % chunks[d], 0, "{r}");
                assert!(end % chunks[d] == 0 || end == shape[d], "{r}");
            }
        }
        s
    }

    #[test]
    fn chunk_slabs_cut_any_dimension() {
        // One record of a [1, N, M] variable is too large: cut along N, by chunk rows.
        let s = check_chunk_slabs(&[1, 1000, 1000], &[1, 100, 1000], 250_000);
        assert_eq!(s.len(), 5);
        assert_eq!(s[0], Region::block(vec![0, 0, 0], vec![1, 200, 1000]));
        // Outer dimensions go a chunk at a time.
        let s = check_chunk_slabs(&[10, 6, 8], &[4, 3, 8], 50);
        assert_eq!(s[0], Region::block(vec![0, 0, 0], vec![4, 3, 8]));
        assert_eq!(s[1], Region::block(vec![0, 3, 0], vec![4, 3, 8]));
        assert_eq!(
            s.last().unwrap(),
            &Region::block(vec![8, 3, 0], vec![2, 3, 8])
        );
        // A chunk over the budget is still one slab, never a part of one.
        let s = check_chunk_slabs(&[4, 4], &[4, 4], 3);
        assert_eq!(s, vec![Region::whole(&[4, 4])]);
        check_chunk_slabs(&[7, 5, 3], &[2, 2, 2], 1);
        check_chunk_slabs(&[7, 5, 3], &[2, 2, 2], 17);
        check_chunk_slabs(&[7, 5, 3], &[7, 5, 3], 1 << 40);
    }
}

/// The block to cut slabs of when writing chunks `out` from values read in chunks
/// `read`: per dimension a multiple of the output chunk that is also a multiple of the
/// read chunk (their least common multiple, or the whole dimension), from the
/// innermost dimension out, as long as one such block fits `budget` elements; the
/// output chunks otherwise. Slabs of these blocks read each input chunk once.
///
/// ```
/// use nczarr::chunking::aligned_units;
/// // Time series out of maps: whole rows of the maps fit, whole maps do not.
/// assert_eq!(aligned_units(&[365, 180, 360], &[365, 10, 10], Some(&[1, 180, 360]), 10_000_000), vec![365, 10, 360]);
/// assert_eq!(aligned_units(&[100], &[10], Some(&[15]), 1000), vec![30]);
/// ```
pub fn aligned_units(shape: &[u64], out: &[u64], read: Option<&[u64]>, budget: u64) -> Vec<u64> {
    let mut units: Vec<u64> = out
        .iter()
        .zip(shape)
        .map(|(&c, &s)| c.clamp(1, s.max(1)))
        .collect();
    let Some(read) = read.filter(|r| r.len() == shape.len()) else {
        return units;
    };
    let size = |u: &[u64]| u.iter().fold(1u64, |a, &b| a.saturating_mul(b));
    for d in (0..shape.len()).rev() {
        let mut candidate = units.clone();
        candidate[d] = lcm(units[d], read[d].max(1)).min(shape[d].max(1));
        if size(&candidate) <= budget {
            units = candidate;
        } else {
            break;
        }
    }
    units
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    (a / gcd(a, b).max(1)).saturating_mul(b)
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
