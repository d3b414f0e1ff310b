//! How one Zarr array is stored, as its `.zarray` (v2) or `zarr.json` (v3) says: what
//! the reader and the writer of its chunks need.
//!
//! Both versions meet here: a v3 array's `bytes` codec becomes the dtype's byte order,
//! its `transpose` the element order, its bytes-to-bytes codecs the numcodecs-style
//! chain (`filters`), and `sharding_indexed` the [`Sharding`] around inner chunks.

use crate::formats::zarr::v2::Dtype;
use crate::json::Json;
use crate::model::Values;

/// How chunk grid indices become store keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkKeys {
    /// Zarr v2, and v3's `v2` encoding: `1.0` or `1/0`; `0` for a 0-d array.
    V2(char),
    /// Zarr v3's `default` encoding: `c/1/0` or `c.1.0`; `c` for a 0-d array.
    Default(char),
}

impl ChunkKeys {
    /// The key (relative to the array) of the chunk at grid `index`.
    pub fn key(self, index: &[u64]) -> String {
        let (prefix, separator) = match self {
            ChunkKeys::V2(s) => (None, s),
            ChunkKeys::Default(s) => (Some('c'), s),
        };
        let mut s = String::with_capacity(2 + index.len() * 4);
        match prefix {
            Some(c) => s.push(c),
            None if index.is_empty() => s.push('0'),
            None => {}
        }
        for (i, x) in index.iter().enumerate() {
            if i > 0 || prefix.is_some() {
                s.push(separator);
            }
            s.push_str(&x.to_string());
        }
        s
    }

    /// The separator between indices.
    pub fn separator(self) -> char {
        match self {
            ChunkKeys::V2(s) | ChunkKeys::Default(s) => s,
        }
    }
}

/// A v3 array stored in shards: each stored object holds a block of inner chunks
/// (the array's `chunks`) and an index of where each one is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sharding {
    /// The shard shape: a whole number of inner chunks along each dimension.
    pub shape: Vec<u64>,
    /// True when the index ends with a CRC32C of its entries (`crc32c` index codec).
    pub index_checksum: bool,
    /// True when the index comes first in the shard (`index_location: "start"`).
    pub index_at_start: bool,
}

impl Sharding {
    /// Inner chunks per shard along each dimension, for inner chunks of shape `inner`.
    pub fn per_shard(&self, inner: &[u64]) -> Vec<u64> {
        self.shape
            .iter()
            .zip(inner)
            .map(|(s, c)| (s / c.max(&1)).max(1))
            .collect()
    }
}

/// The storage facts of one array.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredArray {
    /// The Zarr dtype of the stored elements.
    pub dtype: Dtype,
    /// The stored array shape (`[1]` for an NCZarr scalar, `[]` for a pure-Zarr one).
    pub shape: Vec<u64>,
    /// Chunk shape, one entry per stored dimension (inner chunks when sharded).
    pub chunks: Vec<u64>,
    /// The fill value; `None` means no fill (`fill_value: null`, netCDF's NoFill).
    pub fill: Option<Values>,
    /// The `filters`, in encode order.
    pub filters: Vec<Json>,
    /// The `compressor`, applied after the filters.
    pub compressor: Option<Json>,
    /// The element order within a chunk as a permutation of the dimensions (Zarr v3's
    /// `transpose`; v2's `"F"` is the reversal); `None` for C order.
    pub transpose: Option<Vec<usize>>,
    /// How chunk indices become keys.
    pub keys: ChunkKeys,
    /// Shards around the chunks (Zarr v3 `sharding_indexed`).
    pub sharding: Option<Sharding>,
    /// The fill is netCDF's default, restored from NCZarr's `"fill": "default"` marker:
    /// the array's own metadata says `null`, so Zarr readers mask nothing by it.
    pub fill_implied: bool,
}

impl StoredArray {
    /// The codec chain in encode order: filters, then the compressor.
    pub fn codec_chain(&self) -> impl Iterator<Item = &Json> {
        self.filters.iter().chain(self.compressor.iter())
    }

    /// True for Fortran element order (the dimensions reversed) in two or more
    /// dimensions.
    pub fn is_fortran(&self) -> bool {
        self.transpose.as_ref().is_some_and(|p| {
            p.len() > 1 && p.iter().enumerate().all(|(i, &d)| d == p.len() - 1 - i)
        })
    }

    /// The distance in elements, within a stored chunk, between neighbours along each
    /// dimension.
    pub fn element_strides(&self) -> Vec<u64> {
        let c = &self.chunks;
        match &self.transpose {
            // The chunk is stored as the C-order array of shape c[p[0]], c[p[1]], ..;
            // dimension p[k] steps by that array's k-th C stride.
            Some(p) if p.len() == c.len() => {
                let permuted: Vec<u64> = p.iter().map(|&d| c[d]).collect();
                let cs = crate::chunking::c_strides(&permuted);
                let mut s = vec![0u64; c.len()];
                for (k, &d) in p.iter().enumerate() {
                    s[d] = cs[k];
                }
                s
            }
            _ => crate::chunking::c_strides(c),
        }
    }

    /// True when elements within a chunk are in C order.
    pub fn is_c_order(&self) -> bool {
        self.transpose
            .as_ref()
            .is_none_or(|p| p.iter().enumerate().all(|(i, &d)| i == d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_keys_of_both_encodings() {
        assert_eq!(ChunkKeys::V2('.').key(&[1, 0]), "1.0");
        assert_eq!(ChunkKeys::V2('/').key(&[1, 0]), "1/0");
        assert_eq!(ChunkKeys::V2('.').key(&[]), "0");
        assert_eq!(ChunkKeys::Default('/').key(&[1, 0]), "c/1/0");
        assert_eq!(ChunkKeys::Default('.').key(&[1, 0]), "c.1.0");
        assert_eq!(ChunkKeys::Default('/').key(&[]), "c");
    }

    #[test]
    fn strides_follow_the_permutation() {
        let mut s = StoredArray {
            dtype: Dtype::Bool,
            shape: vec![4, 6, 8],
            chunks: vec![2, 3, 4],
            fill: None,
            filters: vec![],
            compressor: None,
            transpose: None,
            keys: ChunkKeys::V2('.'),
            sharding: None,
            fill_implied: false,
        };
        assert_eq!(s.element_strides(), vec![12, 4, 1]);
        s.transpose = Some(vec![2, 1, 0]);
        assert!(s.is_fortran());
        assert_eq!(s.element_strides(), vec![1, 2, 6]);
        s.transpose = Some(vec![1, 0, 2]);
        assert!(!s.is_fortran() && !s.is_c_order());
        // Stored shape (3, 2, 4): dim 1 strides 8, dim 0 strides 4, dim 2 strides 1.
        assert_eq!(s.element_strides(), vec![4, 8, 1]);
    }
}
