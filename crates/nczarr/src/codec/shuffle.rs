//! `shuffle`: byte transposition (numcodecs `Shuffle`, HDF5 filter 2).
//! Config: `{"id": "shuffle", "elementsize": N}`. netcdf-c writes `elementsize: 0`
//! (and 4.9.2 `"0"`), meaning "the dtype's size"; we read it that way.
//! Bytes past the last whole element are left in place, as HDF5's filter does.

use super::hdf5_filter::{param_u32, FilterError, StoredChunk};
use super::{int_param, num, obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// Byte shuffle.
#[derive(Debug, Clone)]
pub(crate) struct Shuffle {
    /// 0 means "use the array's item size".
    element_size: usize,
}

impl Shuffle {
    pub(crate) fn from_config(config: &Json) -> Result<Shuffle, ConfigFault> {
        Ok(Shuffle {
            element_size: int_param(config, "elementsize", 4, 0..=1 << 20)? as usize,
        })
    }

    fn size(&self, info: &ChunkInfo) -> usize {
        if self.element_size == 0 {
            info.item_size.max(1)
        } else {
            self.element_size
        }
    }
}

/// `out[j*n + i] = input[i*es + j]` for `n` whole elements.
pub(crate) fn shuffle(input: &[u8], es: usize) -> Vec<u8> {
    let mut out = input.to_vec();
    match es {
        2 => shuffle_fixed::<2>(input, &mut out),
        4 => shuffle_fixed::<4>(input, &mut out),
        8 => shuffle_fixed::<8>(input, &mut out),
        _ if es > 1 => {
            let n = input.len() / es;
            for (i, elem) in input[..n * es].chunks_exact(es).enumerate() {
                for (j, &b) in elem.iter().enumerate() {
                    out[j * n + i] = b;
                }
            }
        }
        _ => {}
    }
    out
}

/// The inverse of [`shuffle`].
pub(crate) fn unshuffle(input: &[u8], es: usize) -> Vec<u8> {
    let mut out = vec![0; input.len()];
    unshuffle_to(input, es, &mut out);
    out
}

/// [`unshuffle`] into `out`, of the input's length.
fn unshuffle_to(input: &[u8], es: usize, out: &mut [u8]) {
    let es = es.max(1);
    let n = input.len() / es;
    // The bytes past the last whole element stay as they are.
    out[n * es..].copy_from_slice(&input[n * es..]);
    match es {
        1 => out.copy_from_slice(input),
        2 => unshuffle_fixed::<2>(input, out),
        4 => unshuffle_fixed::<4>(input, out),
        8 => unshuffle_fixed::<8>(input, out),
        _ => {
            for (i, elem) in out[..n * es].chunks_exact_mut(es).enumerate() {
                for (j, b) in elem.iter_mut().enumerate() {
                    *b = input[j * n + i];
                }
            }
        }
    }
}

// The common element sizes with the size known to the compiler: shuffled plane by
// plane (one sequential pass per plane), unshuffled element by element from all the
// planes at once; several times faster than the general loop on the chunks a copy
// compresses.

fn shuffle_fixed<const ES: usize>(input: &[u8], out: &mut [u8]) {
    let (elems, _) = input.as_chunks::<ES>();
    let n = elems.len();
    if n == 0 {
        return;
    }
    for (j, plane) in out[..n * ES].chunks_exact_mut(n).enumerate() {
        for (o, e) in plane.iter_mut().zip(elems) {
            *o = e[j];
        }
    }
}

fn unshuffle_fixed<const ES: usize>(input: &[u8], out: &mut [u8]) {
    let n = input.len() / ES;
    if n == 0 {
        return;
    }
    let (elems, _) = out.as_chunks_mut::<ES>();
    // Each element from its bytes in the planes at once (the compiler interleaves 16
    // elements' bytes in registers): plane by plane, each byte was a store of its
    // own, a quarter of the decoding of a zlib and shuffle chunk.
    let planes: [&[u8]; ES] = std::array::from_fn(|j| &input[j * n..(j + 1) * n]);
    for (i, e) in elems[..n].iter_mut().enumerate() {
        *e = std::array::from_fn(|j| planes[j][i]);
    }
}

impl Codec for Shuffle {
    fn id(&self) -> &'static str {
        "shuffle"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Ok(unshuffle(&input, self.size(info)))
    }

    fn decode_to(
        &self,
        input: Vec<u8>,
        out: &mut [u8],
        info: &ChunkInfo,
    ) -> Result<(), ChunkFault> {
        if input.len() != out.len() {
            return Err(super::wrong_size(input.len(), out.len()));
        }
        unshuffle_to(&input, self.size(info), out);
        Ok(())
    }

    fn encode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        Ok(shuffle(&input, self.size(info)))
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("shuffle".into())),
            ("elementsize", num(self.element_size as i64)),
        ])
    }
}

/// What a netCDF-4 file stores for this codec as HDF5's shuffle filter (2): the
/// element size, which the filter's `set_local` fills in from the variable's type. The codec table's `hdf5_write`.
///
/// # Errors
/// Never; the signature is the table's [`StoredParams`](super::hdf5_filter::StoredParams).
pub(super) fn hdf5_params(_config: &Json, chunk: &StoredChunk) -> Result<Vec<u32>, ConfigFault> {
    Ok(vec![chunk.item_size])
}

/// The parameters netCDF's `_Filter` shows for this codec as HDF5's shuffle filter (2):
/// the element size when the JSON gives one (HDF5 keeps it as the parameter). The codec
/// table's `hdf5_attr`.
pub(super) fn hdf5_shown(config: &Json) -> Option<Vec<u32>> {
    match param_u32(config, "elementsize", 0) {
        0 => Some(vec![]),
        n => Some(vec![n]),
    }
}

/// This codec for a `_Filter` entry of HDF5's shuffle filter (2): element size 0, the
/// variable's. The codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(_params: &[u32]) -> Result<Json, FilterError> {
    Ok(obj(vec![
        ("id", Json::String("shuffle".into())),
        ("elementsize", num(0)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, element by element.
    fn reference(input: &[u8], es: usize) -> Vec<u8> {
        let n = input.len() / es;
        let mut out = input.to_vec();
        for i in 0..n {
            for j in 0..es {
                out[j * n + i] = input[i * es + j];
            }
        }
        out
    }

    #[test]
    fn every_element_size_matches_the_definition_and_inverts() {
        for es in 1..=9 {
            for len in [0, 1, es, 3 * es + 1, 1000, 4099] {
                let input: Vec<u8> = (0..len).map(|i| (i * 7 + i / 255) as u8).collect();
                let shuffled = shuffle(&input, es);
                assert_eq!(shuffled, reference(&input, es), "es {es} len {len}");
                assert_eq!(unshuffle(&shuffled, es), input, "es {es} len {len}");
            }
        }
    }
}
