//! Where a netCDF-4 variable's stored bytes lie in the file, for references to them
//! (kerchunk's): the file's chunks, or a contiguous variable's one block.

use super::chunks;
use super::fault::Fault;
use super::meta::VarInfo;
use super::source::{no_such_var, Hdf5Source};
use crate::encoding::Encoding;
use crate::error::Result;
use crate::model::{NcType, VarPath};
use crate::source::{ChunkPlace, DatasetSource};

impl Hdf5Source {
    /// Chunked: the file's chunks. Contiguous (of plain elements): one chunk, its
    /// bytes as they are.
    pub(super) fn layout_for_references(&self, var: &VarPath) -> Option<Encoding> {
        let info = self.vars.get(var)?;
        if self.has_stored_chunks(var) {
            return Some(info.encoding.clone());
        }
        let shape = self.dataset.shape_of(var)?;
        let plain = info.stored.nc_type != NcType::String
            && !info.stored.half
            && !info.null_space
            && info.user.is_none()
            && info.stored.fixed_string.is_none_or(|w| w == 1)
            && info.missing_filters.is_empty()
            && info.encoding.codecs.is_empty();
        let contiguous = matches!(
            chunks::contiguous_place(&self.file, info.ds.address()),
            Ok(Some(_))
        );
        (plain && contiguous && !shape.is_empty() && !shape.contains(&0)).then(|| Encoding {
            chunking: Some(crate::encoding::Chunking::Chunked(shape)),
            endian: info.encoding.endian,
            ..Encoding::default()
        })
    }

    /// See [`DatasetSource::chunk_place`].
    pub(super) fn place_of_chunk(&self, var: &VarPath, index: &[u64]) -> Result<ChunkPlace> {
        if !self.has_stored_chunks(var) {
            let (Some(info), Some(shape)) = (self.vars.get(var), self.dataset.shape_of(var)) else {
                return Err(no_such_var(var));
            };
            return self.contiguous_chunk_place(var, info, &shape, index);
        }
        Ok(match self.stored_place(var, index)? {
            Some(Some(p)) if p.address.saturating_add(p.size) <= self.file.storage().len() => {
                ChunkPlace::At {
                    offset: p.address,
                    len: p.size,
                }
            }
            Some(None) => ChunkPlace::Missing,
            _ => ChunkPlace::Unreferenced,
        })
    }

    /// Where chunk `index` of a chunked variable is stored, as the file's index says:
    /// `Some(Some(place))`, `Some(None)` when not stored (it reads as the fill value),
    /// `None` when its bytes are not the chunk the codecs describe (a filter skipped,
    /// past the dataset's own extent where the variable was widened to its unlimited
    /// dimension: there it holds no fill) and its values must be read.
    ///
    /// # Errors
    /// The chunk index cannot be read.
    pub(super) fn stored_place(
        &self,
        var: &VarPath,
        index: &[u64],
    ) -> Result<Option<Option<chunks::ChunkPlace>>> {
        let fail = |fault: Fault| self.var_error(var, fault);
        let (Some(info), Some(shape)) = (self.vars.get(var), self.dataset.shape_of(var)) else {
            return Err(no_such_var(var));
        };
        let Some(chunks) = info.encoding.chunk_shape() else {
            return Ok(None);
        };
        let map = info
            .chunk_map
            .get_or_init(|| chunks::chunk_map(&self.file, info.ds.address()))
            .as_ref()
            .map_err(|e| fail(Fault::from(e.to_string()).context("chunk index")))?;
        if index.len() != chunks.len() || map.extent.len() != chunks.len() {
            return Ok(None);
        }
        let widened_edge = (0..chunks.len()).any(|d| {
            index[d].saturating_add(1).saturating_mul(chunks[d]) > map.extent[d]
                && map.extent[d] != shape[d]
        });
        if widened_edge || map.unusable.contains(index) {
            return Ok(None);
        }
        Ok(Some(map.places.get(index).copied()))
    }

    /// The one chunk of a contiguous variable ([`DatasetSource::reference_layout`]):
    /// its bytes when they are the whole variable's, missing when never written.
    fn contiguous_chunk_place(
        &self,
        var: &VarPath,
        info: &VarInfo,
        shape: &[u64],
        index: &[u64],
    ) -> Result<ChunkPlace> {
        if self.layout_for_references(var).is_none() || index.iter().any(|&i| i != 0) {
            return Ok(ChunkPlace::Unreferenced);
        }
        let place = chunks::contiguous_place(&self.file, info.ds.address())
            .map_err(|f| self.var_error(var, f))?;
        let item = info.stored.nc_type.size() as u64;
        let want = shape.iter().product::<u64>().saturating_mul(item);
        let end = self.file.storage().len();
        Ok(match place {
            Some(None) => ChunkPlace::Missing,
            Some(Some(p)) if p.size == want && p.address.saturating_add(p.size) <= end => {
                ChunkPlace::At {
                    offset: p.address,
                    len: p.size,
                }
            }
            _ => ChunkPlace::Unreferenced,
        })
    }
}
