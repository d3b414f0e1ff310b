//! [`ZarrSource`]: an NCZarr or pure Zarr v2 dataset opened for reading.

use super::super::conventions::array_key;
use super::Arrays;
use crate::chunking::Region;
use crate::encoding::{Chunking, Encoding, Endianness, ZarrKind};
use crate::error::{Error, Result};
use crate::formats::zarr::array::{ArrayReader, ShardCache, StoredArray};
use crate::formats::zarr::v2::{Dtype, Endian};
use crate::model::{Dataset, NcType, Values, VarPath};
use crate::source::{ChunkView, DataSource, DatasetSource, FormatInfo, SpareSlabs};
use crate::store::{ReadStore, StoreKey};

/// A Zarr v2 dataset (NCZarr of any generation, or pure Zarr) in a store.
pub struct ZarrSource {
    store: Box<dyn ReadStore>,
    dataset: Dataset,
    arrays: Arrays,
    format: FormatInfo,
    problems: Vec<String>,
    batch_bytes: u64,
    /// Shard indexes read so far (Zarr v3 sharded arrays).
    shard_cache: ShardCache,
    /// The variable stored at the store's root (a Zarr v3 store that is one array).
    root_array: Option<VarPath>,
    /// Numbers given back by their reader ([`DataSource::recycle`]), to read into (a
    /// slab in new memory was cleared by the allocator, then by the kernel page by
    /// page).
    spare_values: SpareSlabs,
}

impl ZarrSource {
    pub(crate) fn new(
        store: Box<dyn ReadStore>,
        dataset: Dataset,
        arrays: Arrays,
        format: FormatInfo,
        problems: Vec<String>,
    ) -> ZarrSource {
        ZarrSource {
            store,
            dataset,
            arrays,
            format,
            problems,
            batch_bytes: crate::formats::zarr::array::READ_BATCH_BYTES,
            shard_cache: ShardCache::default(),
            root_array: None,
            spare_values: SpareSlabs::default(),
        }
    }

    /// The variable `var` is the array at the store's root.
    pub(crate) fn with_root_array(mut self, var: VarPath) -> ZarrSource {
        self.root_array = Some(var);
        self
    }

    /// Hold about `bytes` of decoded chunks at a time while reading.
    pub fn with_batch_bytes(mut self, bytes: u64) -> ZarrSource {
        self.batch_bytes = bytes;
        self
    }

    /// A reader for the variable at `var`.
    ///
    /// # Errors
    /// [`Error::NoSuchVar`] for an unknown variable; codec errors when its chain cannot
    /// be built.
    pub fn reader(&self, var: &VarPath) -> Result<ArrayReader<'_>> {
        let (v, stored) = self
            .dataset
            .var(var)
            .zip(self.arrays.get(var))
            .ok_or_else(|| Error::NoSuchVar {
                var: var.to_string(),
            })?;
        let key = if self.root_array.as_ref() == Some(var) {
            StoreKey::root()
        } else {
            array_key(var)?
        };
        Ok(ArrayReader::new(
            self.store.as_ref(),
            key,
            var,
            v.nc_type,
            stored,
            self.dataset.var_shape(v),
        )?
        .with_batch_bytes(self.batch_bytes)
        .with_shard_cache(&self.shard_cache))
    }
}

impl ZarrSource {
    /// Say where the dataset comes from before what `-k` and the format line say (an
    /// Icechunk repository's version).
    pub(crate) fn describe_as(&mut self, kind: &str, detail: &str) {
        self.format.kind = kind.to_string();
        self.format.detail = format!("{detail}: {}", self.format.detail);
    }

    /// Where the variable at `var` is stored and how: its array's key and storage
    /// facts (what a writer into this dataset in place needs).
    pub(crate) fn stored_array(&self, var: &VarPath) -> Option<(StoreKey, &StoredArray)> {
        let stored = self.arrays.get(var)?;
        let key = if self.root_array.as_ref() == Some(var) {
            StoreKey::root()
        } else {
            array_key(var).ok()?
        };
        Some((key, stored))
    }
}

impl DataSource for ZarrSource {
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        let reader = self.reader(var)?;
        let n = region
            .len()
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        reader.read_reusing(region, self.spare_values.take(reader.nc_type(), n))
    }

    fn recycle(&self, values: Values) {
        self.spare_values.keep(values);
    }
}

impl DatasetSource for ZarrSource {
    fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn format(&self) -> &FormatInfo {
        &self.format
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        let v = self.dataset.var(var)?;
        let stored = self.arrays.get(var)?;
        Some(Encoding {
            // A copy quantizes again, as nccopy does: the same values (it is idempotent).
            quantize: crate::encoding::quantize::Quantize::of_attrs(&v.attrs),
            chunking: Some(if v.dims.is_empty() {
                Chunking::Contiguous
            } else {
                Chunking::Chunked(stored.chunks.clone())
            }),
            codecs: stored.codec_chain().cloned().collect(),
            fill: stored.fill.clone(),
            no_fill: stored.fill.is_none(),
            endian: match stored.dtype.endian() {
                Endian::Little => Some(Endianness::Little),
                Endian::Big => Some(Endianness::Big),
                Endian::NotApplicable => None,
            },
            string_width: match (v.nc_type, &stored.dtype) {
                (NcType::String, Dtype::Bytes { len, .. }) => Some(*len),
                _ => None,
            },
            string_chars: match (v.nc_type, &stored.dtype) {
                (NcType::String, Dtype::Unicode { chars, .. }) => Some(*chars),
                _ => None,
            },
            zarr_fill_masks: self.format.zarr_version == Some(2)
                && stored.fill.is_some()
                && !stored.fill_implied,
            zarr_kind: match (v.nc_type, &stored.dtype) {
                (_, Dtype::Bool) => Some(ZarrKind::Bool),
                (NcType::String, Dtype::Bytes { .. }) => Some(ZarrKind::Bytes),
                (NcType::String, Dtype::Unicode { .. } | Dtype::Object) => Some(ZarrKind::Text),
                _ => None,
            },
        })
    }

    fn problems(&self) -> &[String] {
        &self.problems
    }

    fn unreadable(&self) -> Vec<(VarPath, String)> {
        // The reader builds the codec chain: an unknown codec fails it.
        self.dataset
            .vars()
            .into_iter()
            .filter_map(|(p, _)| match self.reader(&p) {
                Err(e) => {
                    let text = e.to_string();
                    let why = text
                        .strip_prefix(&format!("variable '{p}': "))
                        .unwrap_or(&text)
                        .to_string();
                    Some((p, why))
                }
                Ok(_) => None,
            })
            .collect()
    }

    fn store(&self) -> Option<&dyn ReadStore> {
        Some(self.store.as_ref())
    }

    fn has_stored_chunks(&self, var: &VarPath) -> bool {
        // A stored chunk is a writer's chunk as it is when it holds the variable's
        // elements in C order at their netCDF size: no shards, no transposition, no
        // strings or half floats, and the netCDF shape (not NCZarr's scalar as [1]).
        let (Some(v), Some(stored)) = (self.dataset.var(var), self.arrays.get(var)) else {
            return false;
        };
        let plain = match &stored.dtype {
            Dtype::Int { bytes, .. } | Dtype::Float { bytes, .. } => *bytes == v.nc_type.size(),
            Dtype::Bytes { len, .. } => *len == 1 && v.nc_type == NcType::Char,
            _ => false,
        };
        plain
            && stored.sharding.is_none()
            && stored.transpose.is_none()
            && Some(stored.shape.clone()) == self.dataset.shape_of(var)
            && !stored.shape.is_empty()
            && stored.codec_chain().all(|c| {
                !matches!(
                    crate::encoding::codec_id(c),
                    "vlen-utf8" | "vlen-bytes" | "categorize"
                )
            })
    }

    fn stored_chunk(&self, var: &VarPath, index: &[u64]) -> Result<Option<Vec<u8>>> {
        if !self.has_stored_chunks(var) {
            return Ok(None);
        }
        let key = self.reader(var)?.chunk_key(index)?;
        Ok(self.store.get(&key)?)
    }

    fn chunk(&self, var: &VarPath, index: &[u64]) -> Result<ChunkView> {
        let reader = self.reader(var)?;
        let stored = self.arrays.get(var).ok_or_else(|| Error::NoSuchVar {
            var: var.to_string(),
        })?;
        // A scalar stored as a 0-d array has the one chunk `[]`, whatever was asked.
        let index = if stored.shape.is_empty() {
            &[][..]
        } else {
            index
        };
        let key = reader.chunk_key(index)?;
        Ok(ChunkView {
            key: key.to_string(),
            stored_type: stored.dtype.to_string(),
            chunk_shape: stored.chunks.clone(),
            codecs: stored.codec_chain().cloned().collect(),
            values: reader.read_chunk(index)?,
            fill: stored.fill.clone(),
        })
    }
}
