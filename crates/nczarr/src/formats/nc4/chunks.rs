//! Where a chunked HDF5 dataset keeps each chunk, for reading chunks as stored (still
//! compressed): a copy whose output keeps the file's chunking and codecs moves these
//! bytes instead of decoding and encoding every value.
//!
//! `hdf5-reader` walks the chunk indexes only inside its decoding reads; its index
//! walkers are public, and this file picks the one the dataset's layout message names,
//! as the reader does.

use super::fault::Fault;
use std::collections::HashMap;

use hdf5_reader::chunk_index::{self, ChunkEntry};
use hdf5_reader::messages::layout::{ChunkIndexing, DataLayout};
use hdf5_reader::messages::HdfMessage;
use hdf5_reader::{btree_v1, extensible_array, fixed_array, Hdf5File};

/// A chunk's place in the file: its address and stored size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ChunkPlace {
    pub address: u64,
    pub size: u64,
}

/// The chunks of a dataset that are stored with every filter applied, by chunk index
/// (chunk offsets divided by the chunk shape). Chunks written with a filter skipped
/// (a non-zero filter mask) are left out: their bytes are not what the codec chain
/// describes.
#[derive(Debug, Default)]
pub(super) struct ChunkMap {
    /// The dataset's own extent (before a shorter variable is widened to its
    /// unlimited dimension's length).
    pub extent: Vec<u64>,
    pub places: HashMap<Vec<u64>, ChunkPlace>,
    /// Chunks the file stores whose bytes are not what the codec chain describes (a
    /// filter skipped, a size past any chunk's): read as values, never referenced.
    pub unusable: std::collections::HashSet<Vec<u64>>,
}

/// Where a contiguous dataset's bytes are (`address` is its object header's): `None`
/// when it is not contiguous; `Some(None)` when its storage was never allocated (it
/// reads as its fill value).
pub(super) fn contiguous_place(
    file: &Hdf5File,
    address: u64,
) -> Result<Option<Option<ChunkPlace>>, Fault> {
    let header = file.get_or_parse_header(address).map_err(Fault::from)?;
    for m in &header.messages {
        if let HdfMessage::DataLayout(l) = m {
            return Ok(match l.layout {
                DataLayout::Contiguous { address, size } => {
                    Some((address != u64::MAX && size > 0).then_some(ChunkPlace { address, size }))
                }
                _ => None,
            });
        }
    }
    Ok(None)
}

/// The chunk map of the dataset whose object header is at `address`.
pub(super) fn chunk_map(file: &Hdf5File, address: u64) -> Result<ChunkMap, Fault> {
    let header = file.get_or_parse_header(address).map_err(Fault::from)?;
    let (mut shape, mut max_dims) = (Vec::new(), None);
    let mut layout = None;
    for m in &header.messages {
        match m {
            HdfMessage::Dataspace(d) => (shape, max_dims) = (d.dims.clone(), d.max_dims.clone()),
            HdfMessage::DataLayout(l) => layout = Some(l.layout.clone()),
            _ => {}
        }
    }
    let mut map = ChunkMap {
        extent: shape.clone(),
        places: HashMap::new(),
        unusable: Default::default(),
    };
    let shape = shape.as_slice();
    let Some(DataLayout::Chunked {
        address: index,
        dims,
        element_size,
        chunk_indexing,
    }) = layout
    else {
        return Ok(map);
    };
    let sb = file.superblock();
    let (offsets, lengths) = (sb.offset_size, sb.length_size);
    let undefined = match offsets {
        8 => index == u64::MAX,
        n => index == (1u64 << (u32::from(n) * 8)) - 1,
    };
    if undefined || dims.len() != shape.len() || dims.contains(&0) {
        return Ok(map);
    }
    let storage = file.storage();
    let e = |e: hdf5_reader::error::Error| e.to_string();
    let entries: Vec<ChunkEntry> = match chunk_indexing {
        None => {
            let leaves = btree_v1::collect_btree_v1_leaves_storage(
                storage,
                index,
                offsets,
                lengths,
                Some(shape.len() as u32),
                &dims,
                None,
            )
            .map_err(e)?;
            leaves
                .into_iter()
                .filter_map(|(key, address)| match key {
                    btree_v1::BTreeV1Key::RawData {
                        chunk_size,
                        filter_mask,
                        offsets,
                    } => Some(ChunkEntry {
                        address,
                        size: u64::from(chunk_size),
                        filter_mask,
                        offsets: offsets.into_iter().take(shape.len()).collect(),
                    }),
                    _ => None,
                })
                .collect()
        }
        Some(ChunkIndexing::SingleChunk {
            filtered_size,
            filters,
        }) => vec![chunk_index::single_chunk_entry(
            index,
            filtered_size,
            filters,
            shape.len(),
        )],
        Some(ChunkIndexing::BTreeV2) => chunk_index::collect_v2_chunk_entries_storage(
            storage,
            index,
            offsets,
            lengths,
            shape.len() as u32,
            &dims,
            None,
        )
        .map_err(e)?,
        Some(ChunkIndexing::Implicit) => chunk_index::collect_implicit_chunk_entries(
            index,
            shape,
            &dims,
            element_size as usize,
            None,
            storage.len(),
        )
        .map_err(e)?,
        Some(ChunkIndexing::FixedArray { .. }) => {
            fixed_array::collect_fixed_array_chunk_entries_storage(
                storage, index, offsets, lengths, shape, &dims, None,
            )
            .map_err(e)?
        }
        Some(ChunkIndexing::ExtensibleArray { .. }) => {
            extensible_array::collect_extensible_array_chunk_entries_storage(
                storage,
                index,
                offsets,
                lengths,
                shape,
                max_dims.as_deref(),
                &dims,
                None,
            )
            .map_err(e)?
        }
    };
    // The newer indexes record no size for a chunk stored unfiltered: it is a whole
    // chunk of elements.
    let whole = dims
        .iter()
        .try_fold(u64::from(element_size), |a, &d| a.checked_mul(u64::from(d)));
    map.places.reserve(entries.len());
    for entry in entries {
        if entry.offsets.len() != shape.len() {
            continue;
        }
        // Offsets on the chunk grid and inside the extent (stale chunks past a
        // shrunk extent are not the dataset's).
        let index: Option<Vec<u64>> = entry
            .offsets
            .iter()
            .zip(&dims)
            .zip(shape)
            .map(|((&o, &c), &n)| {
                let c = u64::from(c);
                (o % c == 0 && o < n).then_some(o / c)
            })
            .collect();
        let size = match (entry.size, whole) {
            (0, Some(w)) => Some(w),
            (0, None) => None,
            // Compressed, a chunk is about as large as its elements at most: a size far
            // past that is damage, and such a chunk is read (and refused) as values.
            (n, Some(w)) if n > w.saturating_mul(2).saturating_add(1 << 16) => None,
            (n, _) => Some(n),
        };
        let Some(size) = size.filter(|_| entry.filter_mask == 0) else {
            if let Some(index) = index {
                map.unusable.insert(index);
            }
            continue;
        };
        if let Some(index) = index {
            map.places.insert(
                index,
                ChunkPlace {
                    address: entry.address,
                    size,
                },
            );
        }
    }
    Ok(map)
}
