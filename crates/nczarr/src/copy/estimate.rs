//! What a copy will cost, before it runs (`nczcopy --dry-run`): the bytes stored with
//! the padding of edge chunks (Zarr stores them whole), and how many times each input
//! chunk is read when the memory allowed cuts the output into slabs that cut the
//! input's chunks (a rechunking with little memory reads each input chunk once per slab
//! it meets: `--memory 1K` ran 31 times slower than needed).
//!
//! What this module does not know: compressed sizes (they depend on the values).

use crate::chunking::{aligned_units, slabs, SlabOrder};

/// Bytes stored for a variable of `shape` in chunks `chunks` (`None`: one piece) of
/// `item`-byte elements, padding included, before compression.
pub fn stored_bytes(shape: &[u64], chunks: Option<&[u64]>, item: u64) -> u64 {
    let padded = |(i, &n): (usize, &u64)| {
        let c = chunks
            .and_then(|c| c.get(i).copied())
            .unwrap_or(n)
            .clamp(1, n.max(1));
        n.div_ceil(c).saturating_mul(c)
    };
    shape
        .iter()
        .enumerate()
        .map(padded)
        .fold(item, u64::saturating_mul)
}

/// How many times, on average, each input chunk (`input`) of a variable of `shape` is
/// read when it is written in chunks `output` in slabs of at most `budget` elements, as
/// the copy cuts them; 1.0 when every input chunk is read once.
pub fn reads_per_input_chunk(shape: &[u64], input: &[u64], output: &[u64], budget: u64) -> f64 {
    if shape.is_empty() || shape.contains(&0) || input.len() != shape.len() {
        return 1.0;
    }
    let units = aligned_units(shape, output, Some(input), budget);
    let regions = slabs(shape, &units, budget, SlabOrder::Chunks);
    let chunks_in = |start: u64, count: u64, c: u64| {
        let c = c.clamp(1, u64::MAX);
        (start + count).div_ceil(c) - start / c
    };
    let mut reads = 0f64;
    for r in &regions {
        reads += r
            .start
            .iter()
            .zip(&r.count)
            .zip(input)
            .map(|((&s, &n), &c)| chunks_in(s, n, c) as f64)
            .product::<f64>();
    }
    let total: f64 = shape
        .iter()
        .zip(input)
        .map(|(&n, &c)| n.div_ceil(c.max(1)) as f64)
        .product();
    (reads / total.max(1.0)).max(1.0)
}

/// The least slab budget (elements, a power of two times `from`) at which each input
/// chunk is read at most `times` times, up to the whole variable.
pub fn budget_for_reads(
    shape: &[u64],
    input: &[u64],
    output: &[u64],
    from: u64,
    times: f64,
) -> u64 {
    let whole = shape.iter().fold(1u64, |a, &b| a.saturating_mul(b.max(1)));
    let mut budget = from.max(1);
    while budget < whole && reads_per_input_chunk(shape, input, output, budget) > times {
        budget = budget.saturating_mul(2);
    }
    budget.min(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_of_edge_chunks_is_counted() {
        assert_eq!(
            stored_bytes(&[365, 180, 360], Some(&[76, 87, 158]), 4),
            380 * 261 * 474 * 4
        );
        assert_eq!(
            stored_bytes(&[365, 180, 360], Some(&[73, 90, 180]), 4),
            365 * 180 * 360 * 4
        );
        assert_eq!(stored_bytes(&[10], None, 8), 80);
        assert_eq!(stored_bytes(&[], None, 8), 8);
    }

    #[test]
    fn little_memory_reads_chunks_many_times() {
        // Maps of 1 x 180 x 360 into time series of 365 x 10 x 10.
        let (shape, maps, series) = ([365u64, 180, 360], [1u64, 180, 360], [365u64, 10, 10]);
        assert_eq!(
            reads_per_input_chunk(&shape, &maps, &series, 365 * 180 * 360),
            1.0
        );
        // Slabs of whole rows of series (10 of 180 latitudes) meet every map: 18 times.
        let some = reads_per_input_chunk(&shape, &maps, &series, 365 * 10 * 360);
        assert!((some - 18.0).abs() < 1e-9, "{some}");
        // Slabs of one series chunk (nczcopy --memory 1M) meet each map 648 times.
        let many = reads_per_input_chunk(&shape, &maps, &series, 43_690);
        assert!((many - 648.0).abs() < 1e-9, "{many}");
        let enough = budget_for_reads(&shape, &maps, &series, 43_690, 1.5);
        assert!(reads_per_input_chunk(&shape, &maps, &series, enough) <= 1.5);
        assert!(enough <= 365 * 180 * 360);
        // Chunks kept as they are: each read once.
        assert_eq!(reads_per_input_chunk(&shape, &series, &series, 36_500), 1.0);
    }
}
