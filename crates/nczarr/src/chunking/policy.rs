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

/// A writer's slabs of `block` (a region of whole output chunks `out`, or the whole
/// variable): whole chunks, aligned with the chunks `read` values come in where that
/// fits `budget` elements ([`aligned_units`]), each at most about `budget`, placed where
/// `block` starts.
pub fn block_slabs(block: &Region, out: &[u64], read: Option<&[u64]>, budget: u64) -> Vec<Region> {
    let units = aligned_units(&block.count, out, read, budget);
    slabs(&block.count, &units, budget, SlabOrder::Chunks)
        .into_iter()
        .map(|mut r| {
            for (s, o) in r.start.iter_mut().zip(&block.start) {
                *s += o;
            }
            r
        })
        .collect()
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
/// Russ Rew's balanced shape ("Chunking Data: Choosing Shapes": reading a series along
/// the first dimension and reading a slice across the others touch about the same
/// number of chunks, each chunk about `target_bytes`) with lengths that cut each
/// dimension nearly evenly. Zarr stores edge chunks whole, so a length that leaves a
/// thin last chunk wastes the rest of it: 76x87x158 chunks of a 365x180x360 variable
/// stored 216 MiB for 110 MiB of values; 73x90x180 cuts it exactly. The stored bytes
/// (padding included) are less than 5% over the values', chunks at most a quarter over
/// `target_bytes`.
///
/// Unlike netcdf-c this does not depend on how the library was built (4 or 16 MiB).
///
/// ```
/// use nczarr::chunking::default_chunks;
/// assert_eq!(default_chunks(&[365, 180, 360], 4, 4 << 20), vec![73, 90, 180]);
/// assert_eq!(default_chunks(&[10, 20], 8, 4 << 20), vec![10, 20]);
/// ```
pub fn default_chunks(shape: &[u64], elem_bytes: u64, target_bytes: u64) -> Vec<u64> {
    let l: Vec<u64> = shape.iter().map(|&x| x.max(1)).collect();
    let elem = elem_bytes.max(1);
    let total: f64 = l.iter().map(|&x| x as f64).product();
    if l.is_empty() || total * elem as f64 <= target_bytes as f64 {
        return l;
    }
    let ideal = balanced(&l, elem, target_bytes);
    even_lengths(&l, &ideal, elem, target_bytes)
}

/// Default chunk shape of a variable some of whose dimensions are unlimited, by
/// ncgen's rule (netcdf-c's `nc4_find_default_chunksizes2`): a chunk length of 1 along
/// each unlimited dimension (records are written one at a time), the fixed dimensions
/// shared as [`default_chunks`] shares a whole variable; a variable whose only
/// dimension is unlimited gets 4 KiB chunks, and one whose every dimension is
/// unlimited the same length along each, `target_bytes` in all.
///
/// ```
/// use nczarr::chunking::default_chunks_unlimited;
/// assert_eq!(default_chunks_unlimited(&[10, 180, 360], &[true, false, false], 4, 4 << 20), vec![1, 180, 360]);
/// assert_eq!(default_chunks_unlimited(&[100000], &[true], 4, 4 << 20), vec![1024]);
/// ```
pub fn default_chunks_unlimited(
    shape: &[u64],
    unlimited: &[bool],
    elem_bytes: u64,
    target_bytes: u64,
) -> Vec<u64> {
    let unlim = |d: usize| unlimited.get(d).copied().unwrap_or(false);
    if !(0..shape.len()).any(unlim) {
        return default_chunks(shape, elem_bytes, target_bytes);
    }
    let elem = elem_bytes.max(1);
    if shape.len() == 1 {
        // netcdf-c: at most 4 KiB, not a whole default chunk, per 1-D record variable.
        return vec![((target_bytes / elem).min(4096) / elem).max(1)];
    }
    if (0..shape.len()).all(unlim) {
        let side = ((target_bytes / elem) as f64)
            .powf(1.0 / shape.len() as f64)
            .floor() as u64;
        return vec![side.max(1); shape.len()];
    }
    let fixed: Vec<u64> = (0..shape.len())
        .filter(|&d| !unlim(d))
        .map(|d| shape[d])
        .collect();
    let mut fixed_chunks = default_chunks(&fixed, elem, target_bytes).into_iter();
    (0..shape.len())
        .map(|d| {
            if unlim(d) {
                1
            } else {
                fixed_chunks.next().unwrap_or(1)
            }
        })
        .collect()
}

/// netcdf-c 4.9's default chunk shape for a netCDF-4 variable (`nc4_find_default_chunksizes2`,
/// with the 16 MiB default chunk of Debian's build): 1 along unlimited dimensions (4 KiB
/// for a variable whose only dimension is unlimited, an even share when all are), the
/// fixed ones shared to make the chunk 16 MiB, halved while a chunk passes 4 GiB, then
/// shortened to spread the last chunk's overhang, so that `ncdump -s` of a file of
/// ours shows the chunks ncgen's shows. `item` is the stored element size (8 for a
/// string, netcdf-c's pointer).
///
/// ```
/// use nczarr::chunking::netcdf4_default_chunks;
/// assert_eq!(netcdf4_default_chunks(&[7, 1000, 2000], &[false; 3], 8), vec![3, 500, 1000]);
/// assert_eq!(netcdf4_default_chunks(&[2], &[true], 8), vec![512]);
/// assert_eq!(netcdf4_default_chunks(&[2, 3], &[true, false], 4), vec![1, 3]);
/// ```
pub fn netcdf4_default_chunks(shape: &[u64], unlimited: &[bool], item: u64) -> Vec<u64> {
    const DEFAULT_CHUNK_SIZE: u64 = 16 << 20;
    const DEFAULT_1D_UNLIM_SIZE: u64 = 4096;
    let item = item.max(1);
    let unlim = |d: usize| unlimited.get(d).copied().unwrap_or(false);
    let rank = shape.len();
    let mut chunks = vec![0u64; rank];
    // netcdf-c counts the values in a float.
    let mut num_values = 1f32;
    let mut num_unlim = 0usize;
    for d in 0..rank {
        if unlim(d) {
            num_unlim += 1;
            chunks[d] = 1;
        } else {
            num_values *= shape[d] as f32;
        }
    }
    if rank == 1 && num_unlim == 1 {
        let suggested = (DEFAULT_CHUNK_SIZE / item).clamp(1, DEFAULT_1D_UNLIM_SIZE);
        chunks[0] = suggested / item;
    }
    if rank > 1 && num_unlim == rank {
        let s = (DEFAULT_CHUNK_SIZE as f64 / item as f64).powf(1.0 / rank as f64) as u64;
        chunks.fill(s.max(1));
    }
    for d in 0..rank {
        if chunks[d] == 0 {
            let s = ((DEFAULT_CHUNK_SIZE as f64 / (f64::from(num_values) * item as f64))
                .powf(1.0 / (rank - num_unlim) as f64)
                * shape[d] as f64
                - 0.5) as u64;
            chunks[d] = s.min(shape[d]).max(1);
        }
    }
    while chunks.iter().fold(item as f64, |p, &c| p * c as f64) > f64::from(u32::MAX) {
        for c in &mut chunks {
            *c = (*c / 2).max(1);
        }
    }
    // Unlimited dimensions have no length yet when netcdf-c decides.
    for d in (0..rank).filter(|&d| !unlim(d)) {
        let n = shape[d].div_ceil(chunks[d]);
        if let Some(cut) = (n * chunks[d] - shape[d]).checked_div(n) {
            chunks[d] -= cut;
        }
    }
    chunks
}

/// Rew's balanced chunk lengths (real numbers) of a variable of lengths `l`, about
/// `target_bytes` each: sqrt(N) chunks along the first dimension for N chunks in all,
/// the rest shared equally by the others (those too short for their share take 1).
fn balanced(l: &[u64], elem: u64, target_bytes: u64) -> Vec<f64> {
    let rank = l.len();
    let per_chunk = ((target_bytes / elem).max(1)) as f64;
    let total: f64 = l.iter().map(|&x| x as f64).product();
    if rank == 1 {
        return vec![per_chunk.min(l[0] as f64)];
    }
    let n = total / per_chunk;
    let mut c = vec![0f64; rank];
    c[0] = (l[0] as f64 / n.sqrt()).max(1.0);
    let mut left = n / (l[0] as f64 / c[0]);
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
            return c;
        }
        for &i in &short {
            c[i] = 1.0;
            left /= l[i] as f64;
        }
        open.retain(|i| !short.contains(i));
    }
}

/// The stored bytes over the values' allowed by the default shape.
const MAX_PADDING: f64 = 0.05;

/// How far over the target a default chunk may go.
const MAX_OVER_TARGET: f64 = 1.25;

/// Chunk lengths near `ideal` that cut each dimension of `l` evenly: per dimension the
/// lengths `ceil(l / k)` for chunk counts `k` near `l / ideal` whose last chunk is
/// (nearly) full, and of their combinations the one closest to `ideal` and to
/// `target_bytes` whose padding is under [`MAX_PADDING`] and bytes under
/// [`MAX_OVER_TARGET`] times the target. Lengths of 1 cut every dimension exactly, so
/// one always fits.
fn even_lengths(l: &[u64], ideal: &[f64], elem: u64, target_bytes: u64) -> Vec<u64> {
    let rank = l.len();
    // Per dimension: (length, stored / values along it), best first.
    let options: Vec<Vec<(u64, f64)>> = l
        .iter()
        .zip(ideal)
        .map(|(&len, &c)| {
            let c = c.clamp(1.0, len as f64);
            let k_ideal = len as f64 / c;
            let (lo, hi) = ((k_ideal / 3.0).floor().max(1.0), (k_ideal * 3.0).ceil());
            let mut found: Vec<(u64, f64)> = Vec::new();
            let mut k = lo as u64;
            while k as f64 <= hi && k <= len {
                let chunk = len.div_ceil(k);
                let pad = (len.div_ceil(chunk) * chunk) as f64 / len as f64;
                if pad < 1.0 + MAX_PADDING && found.iter().all(|(x, _)| *x != chunk) {
                    found.push((chunk, pad));
                }
                // Chunk counts far from the ideal are tried more sparsely.
                k += 1 + k / 64;
            }
            for extra in [1, len] {
                if found.iter().all(|(x, _)| *x != extra) {
                    found.push((extra, 1.0));
                }
            }
            found.sort_by(|a, b| {
                let dev = |x: u64| (x as f64 / c).ln().abs();
                dev(a.0).total_cmp(&dev(b.0))
            });
            // The nearest few, and lengths of 1 and the whole dimension, which cut it
            // exactly (one of them keeps the product within the target).
            let mut keep: Vec<(u64, f64)> = found
                .iter()
                .take(if rank <= 4 { 6 } else { 3 })
                .copied()
                .collect();
            for extra in [1, len] {
                if keep.iter().all(|(x, _)| *x != extra) {
                    keep.push((extra, 1.0));
                }
            }
            keep
        })
        .collect();
    let target = target_bytes as f64;
    let mut best: Option<(f64, Vec<u64>)> = None;
    let mut pick = vec![0usize; rank];
    loop {
        let lens: Vec<u64> = (0..rank).map(|d| options[d][pick[d]].0).collect();
        let pad: f64 = (0..rank).map(|d| options[d][pick[d]].1).product();
        let bytes = lens.iter().fold(elem as f64, |a, &x| a * x as f64);
        if pad < 1.0 + MAX_PADDING && bytes <= target * MAX_OVER_TARGET {
            let balance: f64 = (0..rank)
                .map(|d| (lens[d] as f64 / ideal[d].max(1.0)).ln().abs())
                .sum();
            let score = balance + 2.0 * (bytes / target).ln().abs();
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, lens));
            }
        }
        // Next combination, odometer style.
        let mut d = rank;
        loop {
            if d == 0 {
                return best.map_or_else(|| vec![1; rank], |(_, lens)| lens);
            }
            d -= 1;
            pick[d] += 1;
            if pick[d] < options[d].len() {
                break;
            }
            pick[d] = 0;
        }
    }
}

#[cfg(test)]
mod chunk_tests {
    use super::*;

    /// Stored bytes over the values' for chunks `c` of an array `l`.
    fn padding(l: &[u64], c: &[u64]) -> f64 {
        let stored: f64 = l
            .iter()
            .zip(c)
            .map(|(&n, &k)| (n.max(1).div_ceil(k) * k) as f64)
            .product();
        let values: f64 = l.iter().map(|&n| n.max(1) as f64).product();
        stored / values - 1.0
    }

    #[test]
    fn rew_example_cut_evenly() {
        // Rew's NARR variable (float, 98128 x 277 x 349): his shapes, near-even cuts.
        let c = default_chunks(&[98128, 277, 349], 4, 4 << 20);
        assert!(padding(&[98128, 277, 349], &c) < 0.05, "{c:?}");
        let bytes = c.iter().product::<u64>() * 4;
        assert!((2 << 20..=5 << 20).contains(&bytes), "{c:?}");
        // Balanced: within a factor of two of Rew's 1032 x 29 x 35.
        for (got, rew) in c.iter().zip([1032u64, 29, 35]) {
            assert!(*got * 2 >= rew && *got <= rew * 2, "{c:?}");
        }
        // The issue's case: 216 MiB stored for 110 MiB of values before.
        assert_eq!(
            default_chunks(&[365, 180, 360], 4, 4 << 20),
            vec![73, 90, 180]
        );
    }

    #[test]
    fn padding_stays_under_five_percent_for_a_sweep_of_shapes() {
        // Lengths of every kind: primes, powers of two, just over and under them.
        let lengths = [
            1u64, 2, 3, 5, 7, 10, 12, 31, 64, 65, 97, 100, 127, 128, 129, 180, 251, 360, 365, 500,
            720, 1000, 1023, 1440, 2047, 3239, 4096, 5000, 7919, 10007, 65537,
        ];
        let mut checked = 0;
        for (i, &a) in lengths.iter().enumerate() {
            for (j, &b) in lengths.iter().enumerate() {
                for &c in &lengths[(i + j) % 7..][..3] {
                    for (shape, elem) in [
                        (vec![a * b], 8u64),
                        (vec![a, b], 4),
                        (vec![a, b, c], 4),
                        (vec![c, a, b, 3], 2),
                    ] {
                        for target in [4u64 << 20, 1 << 20, 64 << 10] {
                            let ch = default_chunks(&shape, elem, target);
                            assert_eq!(ch.len(), shape.len());
                            assert!(ch
                                .iter()
                                .zip(&shape)
                                .all(|(&x, &n)| x >= 1 && x <= n.max(1)));
                            let p = padding(&shape, &ch);
                            assert!(p < 0.05, "{shape:?} x{elem} @{target}: {ch:?} pads {p:.3}");
                            let bytes = ch.iter().product::<u64>() * elem;
                            let whole = shape.iter().product::<u64>() * elem;
                            assert!(
                                bytes as f64 <= target as f64 * 1.25 || bytes == whole,
                                "{shape:?}: {ch:?} is {bytes} bytes"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000);
    }

    #[test]
    fn unlimited_dimensions_follow_ncgen() {
        assert_eq!(
            default_chunks_unlimited(&[10, 180, 360], &[true, false, false], 4, 4 << 20),
            vec![1, 180, 360]
        );
        assert_eq!(
            default_chunks_unlimited(&[0], &[true], 8, 4 << 20),
            vec![512]
        );
        assert_eq!(
            default_chunks_unlimited(&[5, 5], &[true, true], 4, 4 << 20),
            vec![1024, 1024]
        );
        // Fixed dimensions larger than the target are cut as a whole variable would be.
        let c = default_chunks_unlimited(&[3, 2000, 2000], &[true, false, false], 4, 4 << 20);
        assert_eq!(c[0], 1);
        assert!(c[1] * c[2] * 4 <= 5 << 20 && padding(&[2000, 2000], &c[1..]) < 0.05);
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
            c.iter().product::<u64>() * 4 <= 5 << 20 && c.iter().product::<u64>() * 4 > 2 << 20,
            "{c:?}"
        );
    }
}
