//! [`Subset`]: a source seen through `--dim` selections, a dataset of its own. A
//! region of a cut variable maps to runs of the source's indices (one run per
//! dimension for a plain range or stride), each read from the source as a strided
//! region, so only the chunks the subset touches are read.

use std::collections::HashMap;

use super::resolve::Selections;
use crate::chunking::{block_row_starts, place_block, Region};
use crate::encoding::{Chunking, Encoding};
use crate::error::{Error, Result};
use crate::model::{Dataset, DimRef, Group, UValue, Values, VarPath};
use crate::source::{ChunkView, DataSource, DatasetSource, FormatInfo};
use crate::store::ReadStore;

/// A region of the source and where it goes in the output (its start per dimension,
/// in the output's indices).
type Piece = (Region, Vec<u64>);

/// The source a subset is cut from: borrowed, or owned when the subset is the last
/// of a stack of views built in one place (the jobs' inputs: joined, then cut).
enum Inner<'a> {
    Borrowed(&'a dyn DatasetSource),
    Owned(Box<dyn DatasetSource + 'a>),
}

impl<'a> std::ops::Deref for Inner<'a> {
    type Target = dyn DatasetSource + 'a;

    fn deref(&self) -> &Self::Target {
        match self {
            Inner::Borrowed(s) => *s,
            Inner::Owned(s) => s.as_ref(),
        }
    }
}

/// A source seen through selections of some of its dimensions.
pub struct Subset<'a> {
    inner: Inner<'a>,
    dataset: Dataset,
    /// For each variable with a cut dimension: per dimension, the source indices kept
    /// (`None` where the dimension is whole).
    cuts: HashMap<VarPath, Vec<Option<Vec<u64>>>>,
}

impl<'a> Subset<'a> {
    /// `inner` with the dimensions of `selections` cut to the indices kept.
    pub fn new(inner: &'a dyn DatasetSource, selections: &Selections) -> Subset<'a> {
        Subset::cut(Inner::Borrowed(inner), selections)
    }

    /// `inner`, owned, with the dimensions of `selections` cut to the indices kept.
    pub fn owning(inner: Box<dyn DatasetSource + 'a>, selections: &Selections) -> Subset<'a> {
        Subset::cut(Inner::Owned(inner), selections)
    }

    fn cut(inner: Inner<'a>, selections: &Selections) -> Subset<'a> {
        let mut dataset = inner.dataset().clone();
        cut_dims(&mut dataset.root, &mut Vec::new(), selections);
        let cuts = inner
            .dataset()
            .vars()
            .into_iter()
            .filter_map(|(path, v)| {
                let per_dim: Vec<Option<Vec<u64>>> =
                    v.dims.iter().map(|d| selections.get(d).cloned()).collect();
                per_dim
                    .iter()
                    .any(Option::is_some)
                    .then_some((path, per_dim))
            })
            .collect();
        Subset {
            inner,
            dataset,
            cuts,
        }
    }

    /// The source's pieces of `region` of the cut variable `var`: each a region of the
    /// source and where it goes in the output (its start per dimension, in the
    /// output's indices).
    fn pieces(&self, var: &VarPath, region: &Region) -> Result<Option<Vec<Piece>>> {
        let Some(cut) = self.cuts.get(var) else {
            return Ok(None);
        };
        let shape = self.dataset.shape_of(var).ok_or_else(|| Error::NoSuchVar {
            var: var.to_string(),
        })?;
        region
            .check(&shape)
            .map_err(|e| Error::region(var, e.to_string()))?;
        // Per dimension: runs (source start, count, stride, output offset).
        let runs: Vec<Vec<(u64, u64, u64, u64)>> = cut
            .iter()
            .enumerate()
            .map(|(k, kept)| {
                let wanted = (0..region.count[k]).map(|j| region.start[k] + j * region.stride[k]);
                match kept {
                    None if region.count[k] > 0 => {
                        vec![(region.start[k], region.count[k], region.stride[k], 0)]
                    }
                    None => Vec::new(),
                    Some(kept) => runs_of(wanted.map(|i| kept[i as usize])),
                }
            })
            .collect();
        let mut out = Vec::new();
        let mut at = vec![0usize; runs.len()];
        if runs.iter().any(Vec::is_empty) {
            return Ok(Some(out));
        }
        loop {
            let mut r = Region {
                start: Vec::new(),
                count: Vec::new(),
                stride: Vec::new(),
            };
            let mut offset = Vec::new();
            for (k, &i) in at.iter().enumerate() {
                let (s, n, st, o) = runs[k][i];
                r.start.push(s);
                r.count.push(n);
                r.stride.push(st);
                offset.push(o);
            }
            out.push((r, offset));
            // The next combination, the last dimension fastest.
            let mut k = at.len();
            loop {
                if k == 0 {
                    return Ok(Some(out));
                }
                k -= 1;
                at[k] += 1;
                if at[k] < runs[k].len() {
                    break;
                }
                at[k] = 0;
            }
        }
    }
}

/// `indices` as arithmetic runs: (first, count, step, position of the first).
fn runs_of(indices: impl Iterator<Item = u64>) -> Vec<(u64, u64, u64, u64)> {
    let mut runs: Vec<(u64, u64, u64, u64)> = Vec::new();
    for (pos, i) in indices.enumerate() {
        if let Some(last) = runs.last_mut() {
            let (s, n, st, _) = *last;
            let next = s + n * st;
            if n == 1 && i > s {
                last.1 = 2;
                last.2 = i - s;
                continue;
            }
            if n > 1 && i == next {
                last.1 += 1;
                continue;
            }
        }
        runs.push((i, 1, 1, pos as u64));
    }
    runs
}

/// Set the length of each dimension a selection cuts.
fn cut_dims(g: &mut Group, path: &mut Vec<String>, selections: &Selections) {
    for d in &mut g.dims {
        let r = DimRef {
            group: path.clone(),
            name: d.name.clone(),
        };
        if let Some(kept) = selections.get(&r) {
            d.len = kept.len() as u64;
        }
    }
    for c in &mut g.groups {
        path.push(c.name.clone());
        cut_dims(c, path, selections);
        path.pop();
    }
}

impl DataSource for Subset<'_> {
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        let Some(pieces) = self.pieces(var, region)? else {
            return self.inner.read(var, region);
        };
        if let [(one, _)] = pieces.as_slice() {
            return self.inner.read(var, one);
        }
        let total = region.len().unwrap_or(0) as usize;
        let t = self
            .dataset
            .var(var)
            .map_or(crate::model::NcType::Byte, |v| v.nc_type);
        let mut out = Values::zeroed(t, total);
        for (r, offset) in &pieces {
            let piece = self.inner.read(var, r)?;
            if piece.nc_type() != t || piece.len() != r.len().unwrap_or(0) as usize {
                return Err(Error::region(
                    var,
                    format!(
                        "the source gave {} values of type {}",
                        piece.len(),
                        piece.nc_type()
                    ),
                ));
            }
            let row = r.count.last().copied().unwrap_or(1) as usize;
            for (k, at) in block_row_starts(&region.count, &r.count, offset)
                .into_iter()
                .enumerate()
            {
                out.write_at(at, &piece.slice(k * row..(k + 1) * row));
            }
        }
        Ok(out)
    }

    fn read_user(&self, var: &VarPath, region: &Region) -> Result<Vec<UValue>> {
        let Some(pieces) = self.pieces(var, region)? else {
            return self.inner.read_user(var, region);
        };
        let mut out = vec![UValue::Opaque(Vec::new()); region.len().unwrap_or(0) as usize];
        for (r, offset) in &pieces {
            let piece = self.inner.read_user(var, r)?;
            place_block(&mut out, &region.count, &piece, &r.count, offset);
        }
        Ok(out)
    }

    fn has_data(&self, var: &VarPath) -> bool {
        self.inner.has_data(var)
    }

    fn recycle(&self, values: Values) {
        self.inner.recycle(values);
    }
}

impl DatasetSource for Subset<'_> {
    fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn format(&self) -> &FormatInfo {
        self.inner.format()
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        let mut e = self.inner.encoding(var)?;
        if self.cuts.contains_key(var) {
            // Chunks no longer than the cut dimensions.
            if let (Some(Chunking::Chunked(c)), Some(shape)) =
                (&mut e.chunking, self.dataset.shape_of(var))
            {
                for (c, len) in c.iter_mut().zip(shape) {
                    *c = (*c).min(len.max(1));
                }
            }
        }
        Some(e)
    }

    fn problems(&self) -> &[String] {
        self.inner.problems()
    }

    fn unreadable(&self) -> Vec<(VarPath, String)> {
        self.inner.unreadable()
    }

    fn store(&self) -> Option<&dyn ReadStore> {
        self.inner.store()
    }

    fn reads_are_cheap(&self) -> bool {
        self.inner.reads_are_cheap()
    }

    fn stored_chunk(&self, var: &VarPath, index: &[u64]) -> Result<Option<Vec<u8>>> {
        self.inner.stored_chunk(var, index)
    }

    fn prefetch(&self, var: &VarPath, region: &Region) -> Result<()> {
        match self.cuts.contains_key(var) {
            true => Ok(()),
            false => self.inner.prefetch(var, region),
        }
    }

    fn has_stored_chunks(&self, var: &VarPath) -> bool {
        !self.cuts.contains_key(var) && self.inner.has_stored_chunks(var)
    }

    fn chunk(&self, var: &VarPath, index: &[u64]) -> Result<ChunkView> {
        self.inner.chunk(var, index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_become_strided_runs() {
        assert_eq!(runs_of([3, 4, 5].into_iter()), vec![(3, 3, 1, 0)]);
        assert_eq!(
            runs_of([0, 2, 4, 9].into_iter()),
            vec![(0, 3, 2, 0), (9, 1, 1, 3)]
        );
        // Across a seam: 350.. then 0..
        assert_eq!(
            runs_of([142, 143, 0, 1].into_iter()),
            vec![(142, 2, 1, 0), (0, 2, 1, 2)]
        );
        assert_eq!(runs_of(std::iter::empty()), vec![]);
    }

    #[test]
    fn a_piece_lands_at_its_offset() {
        let mut out = vec![0; 12];
        place_block(&mut out, &[3, 4], &[1, 2, 3, 4], &[2, 2], &[1, 2]);
        assert_eq!(out, vec![0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4]);
    }
}
