//! nczgen's compiler: CDL to a dataset with memory bounded by chunks, not by the file.
//!
//! Two passes over the file. The first (`scan.rs`) finds the large data lists without
//! parsing and cuts them out; what is left, the skeleton (declarations, attributes,
//! small data lists), is parsed and compiled as before, so the dataset, its encodings
//! and the unlimited lengths are known before anything is written. The second pass
//! (`list.rs`, `slab.rs`) reads each cut list from the file in blocks, converts its
//! values with the compiler's own rules straight into slabs of whole chunk rows, and
//! hands each slab to the sink as it fills: the whole list is never held, as tokens,
//! syntax tree or values.
//!
//! A cut list stays on the old path (is put back into the skeleton, which is then
//! parsed again) when its variable is not numeric (char arrays and strings have their
//! own layout rules) or of a user-defined type, is a scalar, or has an unlimited dimension other than the first
//! (whose lists are braced per record). A list whose variable's first dimension is
//! unlimited is read twice: once to count its values (the dimension's length), once
//! to write them. Lists that the scan cannot be sure of (strings, comments, anything
//! not ASCII) are never cut.
//!
//! Errors are the ones the whole-file compiler gives, at the same places: a syntax
//! error anywhere is reported before any semantic error, the first one in the file
//! first (on an error, the cut lists not yet read are checked for syntax errors).
//! The sink is written staged: on an error nothing is left at the output and an
//! existing dataset there is untouched.

mod input;
mod list;
mod scan;
mod slab;

pub use input::CdlInput;

use std::collections::{HashMap, HashSet};
use std::io;

use input::InputLines;
use list::{read_list, Count, ListError};
use scan::{Cut, SkeletonLines};
use slab::{numeric, Elem, Layout};

use crate::cdl::compile::datums::Converter;
use crate::cdl::compile::{Compiled, Staged, StreamTarget};
use crate::cdl::parse::{parse_at, CdlError};
use crate::chunking::Region;
use crate::copy::{write_values, CopyOptions};
use crate::encoding::{item_size, Plan};
use crate::model::{Dataset, NcType, Values};
use crate::sink::DatasetSink;

/// How nczgen compiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenOptions {
    /// Data lists of at least this many bytes are streamed; smaller ones are compiled
    /// in memory with the rest of the file.
    pub stream_bytes: u64,
    /// About how many bytes of values a slab of a streamed variable holds (at least
    /// one row of chunks along the first dimension).
    pub slab_bytes: u64,
    /// Write the dataset without its data (ncgen -H): the data is still read and
    /// checked.
    pub header_only: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            stream_bytes: 1 << 20,
            // Small: the last slab is written alone, after the file is read (16 MiB
            // slabs, five chunks of the benchmark's, were a sixth of its time).
            slab_bytes: 4 << 20,
            header_only: false,
        }
    }
}

/// What nczgen's compiler cannot decide itself: where the dataset goes, how it is
/// stored, and what becomes of warnings.
pub trait GenTarget {
    /// Warnings (positions of the CDL file), as they are found.
    fn warnings(&mut self, warnings: Vec<CdlError>);

    /// The dataset is compiled (streamed variables have no data in it): plan how it
    /// is stored and make the sink it is written to. The target may change the
    /// dataset to what its output holds (user-defined types made atomic).
    ///
    /// # Errors
    /// The caller's, which end the run with nothing written.
    fn open(
        &mut self,
        compiled: &mut Compiled,
    ) -> Result<(Box<dyn DatasetSink>, Plan), Box<dyn std::error::Error + Send + Sync>>;
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// An error in the CDL, placed in the file.
    #[error("{0}")]
    Cdl(CdlError),
    /// Reading the CDL file.
    #[error("reading the CDL: {0}")]
    Read(#[from] io::Error),
    /// Writing the dataset.
    #[error(transparent)]
    Write(#[from] crate::Error),
    /// The target's error (planning, opening the output).
    #[error(transparent)]
    Target(Box<dyn std::error::Error + Send + Sync>),
}

// Here rather than in `error.rs`, which would otherwise import the layer it is
// imported by. The crate's own errors and the CDL's keep their kinds.
impl From<GenError> for crate::Error {
    fn from(e: GenError) -> crate::Error {
        match e {
            GenError::Write(e) => e,
            GenError::Cdl(e) => e.into(),
            other => crate::Error::Layer {
                layer: "generate",
                source: Box::new(other),
            },
        }
    }
}

/// Compile `input` and write the dataset `target` opens, streaming large data lists.
///
/// # Errors
/// The first error of the CDL ([`GenError::Cdl`], see the module's documentation on
/// which comes first), read errors, the target's and the sink's errors. The sink is
/// then dropped unfinished, which leaves the output as it was.
pub fn generate(
    input: &CdlInput,
    options: &GenOptions,
    target: &mut dyn GenTarget,
) -> Result<(), GenError> {
    let lines = InputLines::new(input);
    let mut cuts = scan::find_cuts(input, options.stream_bytes)?;
    // Each round puts lists back into the skeleton, so this ends.
    loop {
        match attempt(input, &lines, &cuts, options, target)? {
            None => return Ok(()),
            Some(kept) => cuts = kept,
        }
    }
}

/// One compilation with `cuts` cut out. `Some(cuts)`: some could not be streamed, and
/// these are the ones that can; nothing was written.
fn attempt(
    input: &CdlInput,
    lines: &InputLines<'_>,
    cuts: &[Cut],
    options: &GenOptions,
    target: &mut dyn GenTarget,
) -> Result<Option<Vec<Cut>>, GenError> {
    let skeleton = scan::skeleton(input, cuts)?;
    let loc = SkeletonLines {
        skeleton: &skeleton,
        lines,
    };
    let checker = Checker { input, cuts, lines };
    let file = match parse_at(&skeleton.text) {
        Ok(f) => f,
        Err((offset, message)) => {
            let at = skeleton.file_offset(offset);
            return Err(checker.first(0..cuts.len(), Some(at), loc.err(offset, message)));
        }
    };
    let cut_at: HashSet<usize> = skeleton.cut_at.iter().copied().collect();
    let staged = Staged::new(&loc, &file, &cut_at)
        .map_err(|e| checker.first(0..cuts.len(), None, GenError::Cdl(e)))?;
    // Every cut must be the list of a data statement that can be streamed; the rest go
    // back into the skeleton.
    let claimed: HashMap<usize, &crate::cdl::compile::CutList> =
        staged.cut().iter().map(|c| (c.list_pos, c)).collect();
    let keep: Vec<Cut> = cuts
        .iter()
        .zip(&skeleton.cut_at)
        .filter(|(_, at)| {
            claimed
                .get(at)
                .is_some_and(|c| streamable(staged.dataset(), &c.var))
        })
        .map(|(c, _)| *c)
        .collect();
    if keep.len() < cuts.len() {
        return Ok(Some(keep));
    }
    let cut_of = |list_pos: usize| -> Option<&Cut> {
        let k = skeleton.cut_at.iter().position(|&a| a == list_pos)?;
        cuts.get(k)
    };
    // Lists that give an unlimited length are counted first.
    let mut counts = HashMap::new();
    for c in staged.cut() {
        let first_unlimited = staged
            .dataset()
            .var(&c.var)
            .and_then(|v| v.dims.first())
            .and_then(|d| staged.dataset().dim(d))
            .is_some_and(|d| d.unlimited);
        if !first_unlimited {
            continue;
        }
        let Some(cut) = cut_of(c.list_pos) else {
            continue;
        };
        let mut count = Count::default();
        match read_list(input, cut, &mut count) {
            Ok(()) => {}
            Err(ListError::Syntax(f)) => {
                let at = f.offset as u64;
                let e = checker.syntax(&f);
                return Err(checker.first(0..cuts.len(), Some(at), e));
            }
            Err(ListError::Other(e)) => return Err(e),
        }
        counts.insert(c.list_pos, count.0);
    }
    let (mut compiled, mut conv, targets) = staged
        .finish(&counts)
        .map_err(|e| checker.first(0..cuts.len(), None, GenError::Cdl(e)))?;
    target.warnings(compiled.warnings.clone());
    let (mut sink, plan) = target.open(&mut compiled).map_err(GenError::Target)?;
    sink.define(&compiled.dataset, &plan)?;
    if !options.header_only {
        write_values(
            &compiled,
            &compiled.dataset,
            &plan,
            sink.as_ref(),
            &CopyOptions::default(),
        )?;
    }
    // The values of cut lists are placed in the file itself.
    conv.loc = lines;
    for (k, t) in targets.iter().enumerate() {
        let Some(cut) = cut_of(t.list.list_pos) else {
            continue;
        };
        let write = t.last && !options.header_only;
        let lists = Lists {
            input,
            conv: &conv,
            plan: &plan,
            sink: sink.as_ref(),
            options,
        };
        let result = stream_list(&lists, cut, t, write);
        target.warnings(conv.take_warnings());
        match result {
            Ok(()) => {}
            // The lists before this one were read whole: this is the first.
            Err(ListError::Syntax(f)) => return Err(checker.syntax(&f)),
            Err(ListError::Other(e @ GenError::Cdl(_))) => {
                let from = cuts.iter().position(|c| c == cut).unwrap_or(k);
                return Err(checker.first(from..cuts.len(), None, e));
            }
            Err(ListError::Other(e)) => return Err(e),
        }
    }
    sink.finish()?;
    Ok(None)
}

/// Whether the data list of the variable at `var` can be streamed (see the module's
/// documentation).
fn streamable(ds: &Dataset, var: &crate::model::VarPath) -> bool {
    let Some(v) = ds.var(var) else {
        return false;
    };
    let unlimited = |k: usize| ds.dim(&v.dims[k]).is_none_or(|d| d.unlimited);
    // Values of user-defined types (enum constants too) are compiled whole.
    numeric(v.nc_type)
        && v.user_type.is_none()
        && !v.dims.is_empty()
        && !(1..v.dims.len()).any(unlimited)
}

/// What every streamed list is read with.
#[derive(Clone, Copy)]
struct Lists<'a> {
    input: &'a CdlInput,
    conv: &'a Converter<'a>,
    plan: &'a Plan,
    sink: &'a dyn DatasetSink,
    options: &'a GenOptions,
}

/// Read the cut list `cut` of `t`'s variable, writing its slabs into the sink when
/// `write`.
fn stream_list(
    lists: &Lists<'_>,
    cut: &Cut,
    t: &StreamTarget,
    write: bool,
) -> Result<(), ListError> {
    macro_rules! typed {
        ($($nc:ident => $t:ty),*) => {
            match t.nc_type {
                $(NcType::$nc => stream_typed::<$t>(lists, cut, t, write),)*
                other => Err(ListError::Other(GenError::Cdl(lists.conv.err(
                    t.list.pos,
                    format!("a {other} variable's data cannot be streamed"),
                )))),
            }
        };
    }
    typed!(Byte => i8, UByte => u8, Short => i16, UShort => u16, Int => i32, UInt => u32,
        Int64 => i64, UInt64 => u64, Float => f32, Double => f64)
}

fn stream_typed<T: Elem>(
    lists: &Lists<'_>,
    cut: &Cut,
    t: &StreamTarget,
    write: bool,
) -> Result<(), ListError> {
    let Lists {
        input,
        conv,
        plan,
        sink,
        options,
    } = *lists;
    let var = &t.list.var;
    let shape = &t.shape;
    let row: u64 = shape[1..].iter().product();
    // Slabs are rows of whole chunks (or shards) along the first dimension: values
    // arrive in C order, so a chunk is complete once its row is.
    let chunk0 = sink
        .write_unit(var)
        .or_else(|| {
            plan.get(var)
                .and_then(|e| e.chunk_shape().map(<[u64]>::to_vec))
        })
        .and_then(|c| c.first().copied())
        .unwrap_or(shape[0])
        .clamp(1, shape[0].max(1));
    let item = item_size(t.nc_type, 1).max(1) as u64;
    let row_bytes = row.saturating_mul(chunk0).saturating_mul(item).max(1);
    let rows = chunk0.saturating_mul((options.slab_bytes / row_bytes).max(1));
    let slab_len = usize::try_from(rows.saturating_mul(row)).unwrap_or(usize::MAX);
    std::thread::scope(|scope| -> Result<(), ListError> {
        // A slab is written while the next fills; one more waits between them.
        let (tx, rx) = std::sync::mpsc::sync_channel::<(u64, Values)>(1);
        // Written slabs come back, to be filled again.
        let (back_tx, back_rx) = std::sync::mpsc::sync_channel::<Values>(2);
        let writer = scope.spawn(move || -> crate::Result<()> {
            for (start, values) in rx {
                let n = values.len() as u64;
                let mut region = Region::whole(shape);
                if let (Some(s), Some(c)) = (region.start.first_mut(), region.count.first_mut()) {
                    *s = start / row.max(1);
                    *c = n / row.max(1);
                }
                sink.write(var, &region, &values)?;
                let _ = back_tx.try_send(values);
            }
            Ok(())
        });
        let mut flush = |start: u64, values: Values| -> Result<Option<Values>, ListError> {
            if !write {
                return Ok(Some(values));
            }
            // A closed channel means the writer failed: its error is returned below.
            let _ = tx.send((start, values));
            Ok(back_rx.try_recv().ok())
        };
        let result = (|| {
            let mut layout = Layout::<T>::new(conv, t, slab_len, &mut flush).ok_or_else(|| {
                ListError::Other(GenError::Cdl(
                    conv.err(t.list.pos, "no fill value for this type"),
                ))
            })?;
            read_list(input, cut, &mut layout)?;
            layout.finish()
        })();
        drop(tx);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(crate::Error::Internal("the writer thread panicked".into())));
        result?;
        written.map_err(|e| ListError::Other(GenError::Write(e)))
    })
}

/// Finds the first syntax error of cut lists, for the error to report.
struct Checker<'a> {
    input: &'a CdlInput,
    cuts: &'a [Cut],
    lines: &'a InputLines<'a>,
}

impl Checker<'_> {
    /// A syntax error at a file offset, placed.
    fn syntax(&self, f: &crate::cdl::parse::SyntaxFault) -> GenError {
        let at = f.offset as u64;
        // The message shows what stands at the fault, which may lie past the list.
        let text = self
            .input
            .bytes(at, at + 256)
            .map(crate::text::lossless)
            .unwrap_or_default();
        GenError::Cdl(CdlError::located(self.lines, f.offset, f.message(&text)))
    }

    /// `found`, unless one of the cuts `range` starting before `before` (all of them
    /// with `None`) holds a syntax error: the first of those.
    fn first(
        &self,
        range: std::ops::Range<usize>,
        before: Option<u64>,
        found: GenError,
    ) -> GenError {
        for cut in &self.cuts[range] {
            if before.is_some_and(|b| cut.start >= b) {
                break;
            }
            match read_list(self.input, cut, &mut Count::default()) {
                Ok(()) => {}
                Err(ListError::Syntax(f)) => return self.syntax(&f),
                Err(ListError::Other(e)) => return e,
            }
        }
        found
    }
}

impl SkeletonLines<'_> {
    fn err(&self, offset: usize, message: String) -> GenError {
        GenError::Cdl(CdlError::located(self, offset, message))
    }
}

#[cfg(test)]
mod tests;
