//! Values of a streamed list laid out as its variable's, slab by slab: the `place`
//! of `compile/data.rs` for a variable whose dimensions take a flat list (no
//! unlimited dimension after the first), with slabs of whole chunk rows handed on as
//! they fill, so that only a few slabs are held at a time.

use super::list::{is_space, plain_prefix, ListError, Plain, Visit};
use crate::cdl::ast::Datum;
use crate::cdl::compile::datums::{fits, Converter};
use crate::cdl::compile::StreamTarget;
use crate::model::{NcType, Values};

/// An element type of a numeric variable.
pub(crate) trait Elem: Copy + Send + 'static {
    /// A plain constant as this type, the way `Converter::convert_into` converts it,
    /// and the integer it was cast from when a cast may have changed it.
    fn from_plain(v: Plain) -> (Self, Option<i128>);
    /// The vector inside `values`, of this type.
    fn vec_mut(values: &mut Values) -> Option<&mut Vec<Self>>;
    /// `v` as values.
    fn wrap(v: Vec<Self>) -> Values;
}

/// `Elem` for `$t` stored as `Values::$variant`, converting a plain number with
/// `$from` (a closure from [`Plain`] to the value and, for integers, the exact value
/// before the cast).
macro_rules! elem {
    ($t:ty, $variant:ident, $from:expr) => {
        impl Elem for $t {
            fn from_plain(v: Plain) -> (Self, Option<i128>) {
                $from(v)
            }
            fn vec_mut(values: &mut Values) -> Option<&mut Vec<Self>> {
                match values {
                    Values::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> Values {
                Values::$variant(v)
            }
        }
    };
}

macro_rules! float_elem {
    ($t:ty, $variant:ident) => {
        elem!($t, $variant, |v| match v {
            Plain::Int(i) => (i as f64 as $t, None),
            Plain::Double(d) => (d as $t, None),
        });
    };
}

macro_rules! int_elem {
    ($t:ty, $variant:ident) => {
        // C casts, as ncgen: doubles truncate toward zero, integers wrap.
        elem!($t, $variant, |v| {
            let i = match v {
                Plain::Int(i) => i128::from(i),
                Plain::Double(d) => d as i128,
            };
            (i as $t, Some(i))
        });
    };
}

float_elem!(f32, Float);
float_elem!(f64, Double);
int_elem!(i8, Byte);
int_elem!(u8, UByte);
int_elem!(i16, Short);
int_elem!(u16, UShort);
int_elem!(i32, Int);
int_elem!(u32, UInt);
int_elem!(i64, Int64);
int_elem!(u64, UInt64);

/// Where full slabs go: the values of elements `start..start + len` in C order. May
/// give back an earlier slab, written, for its memory to be filled again.
pub(crate) type Flush<'a> = dyn FnMut(u64, Values) -> Result<Option<Values>, ListError> + 'a;

/// Lays out the values of one list: the first `room` values given, converted, then
/// the fill value; slabs of `slab_len` elements go to `flush` as they fill.
pub(crate) struct Layout<'a, 'c, T: Elem> {
    conv: &'a Converter<'c>,
    target: &'a StreamTarget,
    fill: T,
    room: u64,
    given: u64,
    first_extra: Option<usize>,
    slab: Vec<T>,
    /// Where the slab starts in the variable.
    slab_start: u64,
    slab_len: usize,
    /// A value converted by the converter lands here first.
    scratch: Values,
    flush: &'a mut Flush<'a>,
}

impl<'a, 'c, T: Elem> Layout<'a, 'c, T> {
    /// Lay out the values of `target` in slabs of `slab_len` elements.
    pub(crate) fn new(
        conv: &'a Converter<'c>,
        target: &'a StreamTarget,
        slab_len: usize,
        flush: &'a mut Flush<'a>,
    ) -> Option<Self> {
        let mut f = target.fill.clone();
        let fill = *T::vec_mut(&mut f)?.first()?;
        let room = target.shape.iter().product::<u64>();
        let slab_len = slab_len.max(1);
        Some(Layout {
            conv,
            target,
            fill,
            room,
            given: 0,
            first_extra: None,
            slab: Vec::with_capacity(slab_len.min(usize::try_from(room).unwrap_or(usize::MAX))),
            slab_start: 0,
            slab_len,
            scratch: Values::with_capacity(target.nc_type, 1),
            flush,
        })
    }

    /// Whether the next value has room; counts it.
    fn takes(&mut self, pos: usize) -> bool {
        self.given += 1;
        if self.given <= self.room {
            return true;
        }
        self.first_extra.get_or_insert(pos);
        false
    }

    fn push(&mut self, v: T) -> Result<(), ListError> {
        self.slab.push(v);
        if self.slab.len() >= self.slab_len {
            self.flush_slab()?;
        }
        Ok(())
    }

    fn flush_slab(&mut self) -> Result<(), ListError> {
        let n = self.slab.len();
        let next = Vec::with_capacity(
            self.slab_len
                .min(usize::try_from(self.room - self.slab_start - n as u64).unwrap_or(usize::MAX)),
        );
        let full = std::mem::replace(&mut self.slab, next);
        (self.flush)(self.slab_start, T::wrap(full))?;
        self.slab_start += n as u64;
        Ok(())
    }

    /// The rest of the variable is the fill value; reports values that did not fit.
    ///
    /// # Errors
    /// The flush's.
    pub(crate) fn finish(mut self) -> Result<(), ListError> {
        while self.slab_start + (self.slab.len() as u64) < self.room {
            let left = self.room - self.slab_start - self.slab.len() as u64;
            let space = (self.slab_len - self.slab.len()) as u64;
            let n = usize::try_from(left.min(space)).unwrap_or(usize::MAX);
            self.slab.extend(std::iter::repeat_n(self.fill, n));
            if self.slab.len() >= self.slab_len {
                self.flush_slab()?;
            }
        }
        if !self.slab.is_empty() {
            self.flush_slab()?;
        }
        if let Some(p) = self.first_extra {
            self.conv.warn(
                p,
                format!(
                    "too many values: {} given, {} fit; the rest are ignored",
                    self.given, self.room
                ),
            );
        }
        Ok(())
    }
}

impl<T: Elem> Visit for Layout<'_, '_, T> {
    fn plain(&mut self, value: Plain, pos: usize) -> Result<(), ListError> {
        if !self.takes(pos) {
            return Ok(());
        }
        let (v, cast_from) = T::from_plain(value);
        if let Some(i) = cast_from {
            if !fits(i, self.target.nc_type) {
                self.conv
                    .warn_wrapped(pos, i, self.target.nc_type, &T::wrap(vec![v]));
            }
        }
        self.push(v)
    }

    /// The run is cut into pieces at commas, read in parallel as plain decimals, and
    /// taken only when every piece holds nothing else, no integer changed by its cast
    /// (which is reported, in order) and the values fit: anything else is read one by
    /// one, with the same result.
    fn run(&mut self, run: &[u8]) -> Result<bool, ListError> {
        use rayon::prelude::*;
        let t = self.target.nc_type;
        let pieces = split_at_commas(run, rayon::current_num_threads() * 4);
        let read: Option<Vec<Vec<T>>> = pieces
            .par_iter()
            .map(|piece| read_plain::<T>(piece, t))
            .collect();
        let Some(read) = read else {
            return Ok(false);
        };
        let n: u64 = read.iter().map(|v| v.len() as u64).sum();
        if self.given + n > self.room {
            return Ok(false);
        }
        self.given += n;
        for values in read {
            let mut rest = values.as_slice();
            while !rest.is_empty() {
                let k = (self.slab_len - self.slab.len()).min(rest.len());
                self.slab.extend_from_slice(&rest[..k]);
                rest = &rest[k..];
                if self.slab.len() >= self.slab_len {
                    self.flush_slab()?;
                }
            }
        }
        Ok(true)
    }

    fn datum(&mut self, datum: Datum) -> Result<(), ListError> {
        if !self.takes(datum.pos) {
            return Ok(());
        }
        let t = self.target;
        self.conv
            .convert_into(
                &datum,
                t.nc_type,
                Some(&t.fill),
                t.time.as_ref(),
                &mut self.scratch,
            )
            .map_err(|e| ListError::Other(super::GenError::Cdl(e)))?;
        let v = T::vec_mut(&mut self.scratch).and_then(Vec::pop);
        match v {
            Some(v) => self.push(v),
            None => Err(ListError::Other(super::GenError::Cdl(self.conv.err(
                datum.pos,
                format!("a value converted to {} gave none", t.nc_type),
            )))),
        }
    }
}

/// `run` cut into about `n` pieces, each ending before a comma (the comma is left
/// out).
fn split_at_commas(run: &[u8], n: usize) -> Vec<&[u8]> {
    let step = (run.len() / n.max(1)).max(1);
    let mut pieces = Vec::with_capacity(n + 1);
    let mut start = 0;
    while start < run.len() {
        let target = start + step;
        if target >= run.len() {
            pieces.push(&run[start..]);
            break;
        }
        match run[target..].iter().position(|&c| c == b',') {
            Some(k) => {
                pieces.push(&run[start..target + k]);
                start = target + k + 1;
            }
            None => {
                pieces.push(&run[start..]);
                break;
            }
        }
    }
    pieces
}

/// The values of `piece` (plain decimals separated by commas and white space) as
/// `T`, converted as [`Layout`] converts them one by one; `None` when the piece holds
/// anything else or an integer its cast changes.
fn read_plain<T: Elem>(piece: &[u8], t: NcType) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(piece.len() / 6);
    let mut p = 0;
    loop {
        while p < piece.len() && is_space(piece[p]) {
            p += 1;
        }
        let (v, n) = plain_prefix(&piece[p..])?;
        let (value, cast_from) = T::from_plain(v);
        if cast_from.is_some_and(|i| !fits(i, t)) {
            return None;
        }
        out.push(value);
        p += n;
        while p < piece.len() && is_space(piece[p]) {
            p += 1;
        }
        match piece.get(p) {
            None => return Some(out),
            Some(b',') => p += 1,
            Some(_) => return None,
        }
    }
}

/// Whether a variable of type `t` is laid out by [`Layout`].
pub(crate) fn numeric(t: NcType) -> bool {
    !matches!(t, NcType::Char | NcType::String)
}
