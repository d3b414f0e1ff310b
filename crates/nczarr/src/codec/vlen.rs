//! `vlen-utf8` and `vlen-bytes` (numcodecs `VLenUTF8`, `VLenBytes`): the object codecs
//! zarr-python uses for `|O` string arrays. Layout: LE u32 item count, then for each
//! item a LE u32 length and the bytes.

use super::ChunkFault;

/// What a vlen buffer is cut short of.
const TRUNCATED: ChunkFault = ChunkFault::Truncated {
    what: "the vlen items its header announces",
};

/// Decode a vlen buffer into its items.
///
/// # Errors
/// [`ChunkFault`] when the buffer is truncated or its count disagrees with `expected`.
pub(crate) fn decode(input: &[u8], expected: usize) -> Result<Vec<Vec<u8>>, ChunkFault> {
    let u32_at = |at: usize| -> Result<usize, ChunkFault> {
        input
            .get(at..at.saturating_add(4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or(TRUNCATED)
    };
    let n = u32_at(0)?;
    if n != expected {
        return Err(ChunkFault::ItemCount {
            found: n as u64,
            expected: expected as u64,
        });
    }
    let mut items = Vec::with_capacity(n);
    let mut at = 4;
    for _ in 0..n {
        let len = u32_at(at)?;
        at += 4;
        let item = input.get(at..at.saturating_add(len)).ok_or(TRUNCATED)?;
        items.push(item.to_vec());
        at += len;
    }
    Ok(items)
}

/// Encode items into a vlen buffer.
pub(crate) fn encode(items: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + items.iter().map(|i| i.len() + 4).sum::<usize>());
    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
    for item in items {
        out.extend_from_slice(&(item.len() as u32).to_le_bytes());
        out.extend_from_slice(item);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        let b = super::encode(&[b"ab", b"", "Ω".as_bytes()]);
        assert_eq!(
            super::decode(&b, 3).unwrap(),
            vec![b"ab".to_vec(), vec![], "Ω".as_bytes().to_vec()]
        );
        assert!(super::decode(&b[..b.len() - 1], 3).is_err());
        assert!(super::decode(&b, 2).is_err());
    }
}
