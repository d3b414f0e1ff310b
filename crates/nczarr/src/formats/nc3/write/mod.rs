//! [`Nc3Sink`]: a netCDF classic (CDF-1), 64-bit offset (CDF-2) or 64-bit data (CDF-5)
//! file written as netcdf-c writes it, streaming.
//!
//! The layout is fixed before any value arrives ([`layout`]): every byte's place is
//! known from the header alone, so slabs are written where they go (`pwrite`), in any
//! order, from memory bounded by the slab. What no slab wrote (variables without
//! values, the padding after an odd-sized variable or record share) gets the fill value
//! at the end, as netcdf-c's fill mode leaves it. The file is written beside its
//! destination and renamed into place when complete ([`crate::store::Staged`]).

mod encode;
mod in_place;
mod layout;

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

use super::header::Version;
use crate::chunking::{block_runs, Region};
use crate::encoding::{Encoding, Plan};
use crate::error::{Error, Result};
use crate::model::{Dataset, Values, VarPath};
use crate::place::FileTarget;
use crate::sink::{check_slab, file_slabs, DatasetSink};
use crate::store::{check_cancelled, start_writeback, StoreError};
pub(crate) use in_place::rewrite_header;
use layout::{layout, FileLayout, VarPlace};

/// Fit `plan` to a `version` file: every variable contiguous, big-endian, with no
/// codecs (what the format stores), as nccopy -k classic writes any input.
///
/// # Errors
/// [`Error::Unsupported`] naming the first thing of `dataset` the format cannot hold.
pub fn fit_plan(dataset: &Dataset, version: Version, plan: &mut Plan) -> Result<()> {
    layout(dataset, version).map_err(Error::Unsupported)?;
    for (path, _) in dataset.vars() {
        if let Some(e) = plan.get_mut(&path) {
            e.chunking = Some(crate::encoding::Chunking::Contiguous);
            e.codecs.clear();
            e.endian = None;
        }
    }
    Ok(())
}

/// Whether `dataset` fits a `version` file (no groups, user-defined types or strings;
/// CDF-5's types only in CDF-5; one unlimited dimension, first; sizes within the
/// format's limits).
pub fn fits(dataset: &Dataset, version: Version) -> bool {
    layout(dataset, version).is_ok()
}

/// Bytes of values turned big-endian and written at once.
const PIECE_BYTES: usize = 1 << 20;

/// Bytes of fill written at once.
const FILL_BYTES: usize = 4 << 20;

/// A classic-family file being written.
pub struct Nc3Sink {
    version: Version,
    staged: Option<FileTarget>,
    file: File,
    layout: Option<FileLayout>,
    index: HashMap<VarPath, usize>,
    /// Each variable's fill value, big-endian, and whether it is filled at all (`_NoFill`).
    fills: Vec<(Vec<u8>, bool)>,
    written: Mutex<HashSet<usize>>,
}

impl Nc3Sink {
    /// A sink writing a `version` file into `file`, the staging `staged` of the
    /// destination (renamed into place by [`DatasetSink::finish`]).
    pub fn new(version: Version, staged: FileTarget, file: File) -> Nc3Sink {
        Nc3Sink {
            version,
            staged: Some(staged),
            file,
            layout: None,
            index: HashMap::new(),
            fills: Vec::new(),
            written: Mutex::new(HashSet::new()),
        }
    }

    fn io(&self, e: std::io::Error) -> Error {
        Error::Store(StoreError::Io {
            location: self
                .staged
                .as_ref()
                .map(FileTarget::location)
                .unwrap_or_default(),
            source: e,
        })
    }

    fn place(&self, var: &VarPath) -> Result<(usize, &VarPlace, &FileLayout)> {
        let layout = self
            .layout
            .as_ref()
            .ok_or_else(|| Error::Internal("values written before the file was defined".into()))?;
        let i = *self
            .index
            .get(var)
            .ok_or_else(|| Error::Invalid(format!("variable '{var}' was not defined")))?;
        Ok((i, &layout.vars[i], layout))
    }

    /// `bytes` (the region's values in native order, C order) where `region` of `p`
    /// goes, big-endian: for a record variable, record by record.
    fn write_region(
        &self,
        p: &VarPlace,
        layout: &FileLayout,
        region: &Region,
        bytes: &[u8],
    ) -> Result<()> {
        let size = p.nc_type.size() as u64;
        if !p.record {
            return self.write_block(p.begin, &p.shape, &region.start, &region.count, size, bytes);
        }
        let per_record = (region.count[1..].iter().product::<u64>() * size) as usize;
        for (i, r) in (region.start[0]..region.start[0] + region.count[0]).enumerate() {
            let at = p.begin + r * layout.record_bytes;
            let from = i * per_record;
            self.write_block(
                at,
                &p.shape[1..],
                &region.start[1..],
                &region.count[1..],
                size,
                &bytes[from..from + per_record],
            )?;
        }
        Ok(())
    }

    /// `bytes` (native order, C order) into the block `start`/`count` of a C-order
    /// array of `shape` that starts at byte `at`: one write per run of elements
    /// contiguous in both.
    fn write_block(
        &self,
        at: u64,
        shape: &[u64],
        start: &[u64],
        count: &[u64],
        size: u64,
        bytes: &[u8],
    ) -> Result<()> {
        let size_b = size as usize;
        let mut failed = None;
        block_runs(shape, start, count, |from, to, len| {
            if failed.is_none() {
                let (from, len) = (from as usize * size_b, len as usize * size_b);
                if let Err(e) = self.write_be(&bytes[from..from + len], size, at + to * size) {
                    failed = Some(e);
                }
            }
        });
        failed.map_or(Ok(()), Err)
    }

    /// Items of `size` bytes in native order, written big-endian at byte `at`: turned
    /// in pieces in a buffer this thread keeps (a slab-sized copy each time cost its
    /// size in page faults, a fifth of a copy's time).
    fn write_be(&self, bytes: &[u8], size: u64, at: u64) -> Result<()> {
        thread_local! {
            static PIECE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let size = size.max(1) as usize;
        if size == 1 || cfg!(target_endian = "big") {
            return self.file.write_all_at(bytes, at).map_err(|e| self.io(e));
        }
        let step = (PIECE_BYTES / size).max(1) * size;
        PIECE.with_borrow_mut(|piece| {
            for (i, part) in bytes.chunks(step).enumerate() {
                piece.clear();
                piece.extend_from_slice(part);
                super::header::be_to_native(piece, size);
                self.file
                    .write_all_at(piece, at + (i * step) as u64)
                    .map_err(|e| self.io(e))?;
            }
            Ok(())
        })
    }

    /// Fill `len` bytes at `at` with `fill` repeated.
    fn fill(&self, at: u64, len: u64, fill: &[u8]) -> Result<()> {
        if len == 0 || fill.is_empty() {
            return Ok(());
        }
        let n = (len as usize).min(FILL_BYTES);
        let pattern: Vec<u8> = fill.iter().copied().cycle().take(n).collect();
        let mut done = 0u64;
        while done < len {
            let k = (len - done).min(pattern.len() as u64) as usize;
            self.file
                .write_all_at(&pattern[..k], at + done)
                .map_err(|e| self.io(e))?;
            done += k as u64;
        }
        Ok(())
    }
}

/// The fill value of a variable of type `p.nc_type` with encoding `e`, big-endian: its
/// `_FillValue`, else the type's default.
fn fill_bytes(p: &VarPlace, dataset: &Dataset, e: Option<&Encoding>) -> Vec<u8> {
    let given = dataset
        .var(&p.path)
        .and_then(|v| v.attr("_FillValue"))
        .map(|a| a.values.clone())
        .or_else(|| e.and_then(|e| e.fill.clone()))
        .filter(|f| f.nc_type() == p.nc_type && f.len() == 1);
    encode::be_bytes(&given.unwrap_or_else(|| Values::default_fill(p.nc_type)))
}

impl DatasetSink for Nc3Sink {
    fn prepare(&self, dataset: &Dataset, plan: &mut Plan) -> Result<Vec<String>> {
        // Chunks, codecs and byte order are not stored in a classic file: the values are
        // (big-endian, contiguous), as nccopy -k classic writes them.
        fit_plan(dataset, self.version, plan)?;
        Ok(Vec::new())
    }

    fn define(&mut self, dataset: &Dataset, plan: &Plan) -> Result<()> {
        let layout = layout(dataset, self.version).map_err(Error::Unsupported)?;
        self.index = layout
            .vars
            .iter()
            .enumerate()
            .map(|(i, p)| (p.path.clone(), i))
            .collect();
        self.fills = layout
            .vars
            .iter()
            .map(|p| {
                let e = plan.get(&p.path);
                (fill_bytes(p, dataset, e), !e.is_some_and(|e| e.no_fill))
            })
            .collect();
        self.file
            .set_len(layout.file_len)
            .and_then(|()| self.file.write_all_at(&layout.header_bytes, 0))
            .map_err(|e| self.io(e))?;
        self.layout = Some(layout);
        Ok(())
    }

    fn slabs(
        &self,
        var: &VarPath,
        budget: u64,
        read_chunks: Option<&[u64]>,
        within: Option<&Region>,
    ) -> Result<Vec<Region>> {
        let (_, p, _) = self.place(var)?;
        // No chunks in the file: any block is a unit.
        let item = p.nc_type.size() as u64;
        Ok(file_slabs(
            &p.shape,
            None,
            item,
            budget,
            read_chunks,
            within,
        ))
    }

    fn write(&self, var: &VarPath, region: &Region, values: &Values) -> Result<()> {
        check_cancelled()?;
        let (i, p, layout) = self.place(var)?;
        let expect = check_slab(var, &p.shape, p.nc_type, region, values)?;
        if expect > 0 {
            let bytes = values.as_ne_bytes().ok_or_else(|| {
                Error::Unsupported(format!("variable '{var}': strings in a classic file"))
            })?;
            self.write_region(p, layout, region, bytes)?;
            start_writeback(&self.file);
        }
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(i);
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<()> {
        let layout = self
            .layout
            .take()
            .ok_or_else(|| Error::Internal("a file finished before it was defined".into()))?;
        let written = std::mem::take(
            &mut *self
                .written
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for (i, p) in layout.vars.iter().enumerate() {
            let (fill, filled) = &self.fills[i];
            if !filled {
                continue;
            }
            check_cancelled()?;
            // What no slab wrote: the whole variable, or only the padding after it.
            let (from, len) = if written.contains(&i) {
                (p.data_len, p.len - p.data_len)
            } else {
                (0, p.len)
            };
            if p.record {
                for r in 0..layout.numrecs {
                    let at = p.begin + r * layout.record_bytes + from;
                    // The one record variable's records are not padded.
                    let len = len.min(layout.record_bytes.saturating_sub(from));
                    self.fill(at, len, fill)?;
                }
            } else {
                self.fill(p.begin + from, len, fill)?;
            }
        }
        // Made durable with its directory by the commit (unless NCZARR_FSYNC=0).
        let staged = self
            .staged
            .take()
            .ok_or_else(|| Error::Internal("a file finished twice".into()))?;
        staged.commit()?;
        Ok(())
    }
}
