//! Large contiguous variables referenced in pieces along their first dimension: as
//! one reference, every read of one value would fetch the whole variable (a gigabyte
//! from S3 for one time step).

use crate::encoding::{Chunking, Encoding};

/// A contiguous variable cut into chunks of `rows` rows of `row_bytes` each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Split {
    pub rows: u64,
    pub row_bytes: u64,
}

impl Split {
    /// The layout of the pieces: `layout` with chunks of `rows` rows.
    pub(super) fn layout(&self, layout: &Encoding, shape: &[u64]) -> Encoding {
        let mut chunks = shape.to_vec();
        if let Some(first) = chunks.first_mut() {
            *first = self.rows;
        }
        Encoding {
            chunking: Some(Chunking::Chunked(chunks)),
            ..layout.clone()
        }
    }

    /// Piece `k`'s bytes in the file, the whole variable's starting at `offset`.
    pub(super) fn piece(&self, offset: u64, k: u64) -> (u64, u64) {
        let len = self.rows * self.row_bytes;
        (offset + k * len, len)
    }
}

/// How a variable of `shape` and `item`-byte values, stored as `layout`, is cut into
/// pieces of at most `most` bytes: `None` when it is not one uncompressed block larger
/// than that, or when no piece size fits well.
pub(super) fn split_of(layout: &Encoding, shape: &[u64], item: u64, most: u64) -> Option<Split> {
    if most == 0 || !layout.codecs.is_empty() || layout.chunk_shape() != Some(shape) {
        return None;
    }
    let (&n, rest) = shape.split_first()?;
    let row_bytes = rest.iter().product::<u64>().checked_mul(item)?;
    if row_bytes == 0 || n.checked_mul(row_bytes)? <= most {
        return None;
    }
    // The rows of a piece divide the rows of the variable: Zarr v2 reads an edge chunk
    // as a whole chunk, and the file's bytes end with the variable's last row.
    let fit = (most / row_bytes).max(1);
    let rows = divisors(n).filter(|d| *d <= fit).max()?;
    // A prime number of small rows would make a reference a row: not worth it.
    if rows * row_bytes < most / 16 && rows * row_bytes < most.min(1 << 16) {
        return None;
    }
    Some(Split { rows, row_bytes })
}

/// The divisors of `n`, in no order.
fn divisors(n: u64) -> impl Iterator<Item = u64> {
    (1..)
        .take_while(move |d| d * d <= n)
        .filter(move |d| n.is_multiple_of(*d))
        .flat_map(move |d| [d, n / d])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(shape: &[u64]) -> Encoding {
        Encoding {
            chunking: Some(Chunking::Chunked(shape.to_vec())),
            ..Encoding::default()
        }
    }

    #[test]
    fn pieces_divide_the_rows_and_fit_the_size() {
        // 1000 rows of 4000 bytes in pieces of at most 1 MB: 250 rows.
        let s = split_of(&whole(&[1000, 1000]), &[1000, 1000], 4, 1 << 20).unwrap();
        assert_eq!(
            s,
            Split {
                rows: 250,
                row_bytes: 4000
            }
        );
        assert_eq!(s.piece(100, 2), (100 + 2 * 1_000_000, 1_000_000));
        // Small enough already, compressed, or chunked otherwise: not cut.
        assert_eq!(split_of(&whole(&[10, 10]), &[10, 10], 4, 1 << 20), None);
        let zlib = Encoding {
            codecs: vec![crate::json::Json::Null],
            ..whole(&[1000, 1000])
        };
        assert_eq!(split_of(&zlib, &[1000, 1000], 4, 1 << 20), None);
        assert_eq!(
            split_of(&whole(&[1, 1000]), &[1000, 1000], 4, 1 << 20),
            None
        );
        // A prime number of 4-byte values: no piece size fits well.
        assert_eq!(
            split_of(&whole(&[1_000_003]), &[1_000_003], 4, 1 << 20),
            None
        );
        // Rows larger than the size: a row a piece.
        let s = split_of(&whole(&[3, 1 << 20]), &[3, 1 << 20], 4, 1 << 20).unwrap();
        assert_eq!(s.rows, 1);
    }
}
