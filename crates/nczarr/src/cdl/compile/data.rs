//! Data: unlimited dimensions as long as their longest data (ncgen's
//! `processunlimiteddims`), and each data list laid out as its variable's values the
//! way ncgen lays it out (fill for what is not given, braces for non-first unlimited
//! dimensions, ncgen's rules for char arrays).

use super::{Builder, CdlError};
use crate::cdl::ast::{item_count, items, Datum, Value};
use crate::cftime::TimeUnits;
use crate::model::{Dim, DimRef, NcType, Values, Var, VarPath};

/// The most memory one variable's data may take once laid out (see `place_data`).
const MAX_DATA_BYTES: u64 = 2 << 30;

/// The leaves of a data list in order, braces and runs removed, without collecting them.
pub(super) struct Flat<'d> {
    stack: Vec<std::slice::Iter<'d, Datum>>,
}

impl<'d> Flat<'d> {
    pub(super) fn new(list: &'d [Datum]) -> Flat<'d> {
        Flat {
            stack: vec![list.iter()],
        }
    }
}

impl<'d> Iterator for Flat<'d> {
    type Item = &'d Datum;

    fn next(&mut self) -> Option<&'d Datum> {
        loop {
            let top = self.stack.last_mut()?;
            match top.next() {
                None => {
                    self.stack.pop();
                }
                Some(Datum {
                    value: Value::List(inner) | Value::Run(inner),
                    ..
                }) => self.stack.push(inner.iter()),
                Some(d) => return Some(d),
            }
        }
    }
}

/// What one element of a variable is in its data list, for counting them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Leaves {
    /// A constant: braces only group dimensions.
    Values,
    /// A character of a char variable: a string gives one per byte.
    Chars,
    /// An item of the list: a compound's or vlen's value is itself braced.
    Items,
}

impl Leaves {
    /// How many elements `list` gives.
    fn count(self, list: &[Datum]) -> u64 {
        match self {
            Leaves::Values => Flat::new(list).count() as u64,
            Leaves::Chars => Flat::new(list)
                .map(|d| match &d.value {
                    Value::Text(s) => s.len() as u64,
                    _ => 1,
                })
                .sum(),
            Leaves::Items => item_count(list) as u64,
        }
    }
}

/// Writes the elements one list gives for the innermost dimensions: the list, the
/// first element's index, and how many elements there is room for.
type Put<'p> = dyn FnMut(&[Datum], usize, usize) -> Result<(), CdlError> + 'p;

impl Builder<'_> {
    fn var_info(&self, var: &VarPath) -> Option<(NcType, Vec<DimRef>)> {
        let v = self.ds.var(var)?;
        Some((v.nc_type, v.dims.clone()))
    }

    fn dim_of(&self, r: &DimRef) -> Option<Dim> {
        self.ds.dim(r).cloned()
    }

    fn set_dim_len(&mut self, r: &DimRef, len: u64) {
        let dim = self
            .ds
            .group_mut(&r.group)
            .and_then(|g| g.dims.iter_mut().find(|d| d.name == r.name));
        if let Some(d) = dim {
            d.len = d.len.max(len);
        }
    }

    /// Grow the first (unlimited) dimension of the variable at `var` to hold `n` values
    /// of a data list laid out flat: the length [`Builder::unlimited_lengths`] gives
    /// a list whose variable has no other unlimited dimension.
    pub(super) fn first_unlimited_length(&mut self, var: &VarPath, n: u64) {
        let Some((_, refs)) = self.var_info(var) else {
            return;
        };
        let Some(first) = refs.first().cloned() else {
            return;
        };
        if !self.dim_of(&first).is_some_and(|d| d.unlimited) {
            return;
        }
        let inner: u64 = refs[1..]
            .iter()
            .map(|r| self.dim_of(r).map_or(0, |d| d.len))
            .product::<u64>()
            .max(1);
        self.set_dim_len(&first, n.div_ceil(inner));
    }

    /// ncgen's `processunlimiteddims`: an unlimited dimension is as long as the longest
    /// data given for it.
    pub(super) fn unlimited_lengths(&mut self) -> Result<(), CdlError> {
        let data = std::mem::take(&mut self.data);
        for (var, list, _) in &data {
            let Some((t, dims)) = self.var_info(var) else {
                continue;
            };
            if dims.is_empty() {
                continue;
            }
            let dims: Vec<Dim> = dims.iter().filter_map(|d| self.dim_of(d)).collect();
            let Some(first) = dims.iter().position(|d| d.unlimited) else {
                continue;
            };
            let refs = self.var_info(var).map(|(_, r)| r).unwrap_or_default();
            let leaves = self.leaves_of(var, t);
            if first == 0 {
                self.unlimited_sizes(&refs, &dims, 0, list, leaves)?;
            } else {
                for d in items(list) {
                    match &d.value {
                        Value::List(inner) => {
                            self.unlimited_sizes(&refs, &dims, first, inner, leaves)?
                        }
                        _ => {
                            return Err(self.err(
                                d.pos,
                                "UNLIMITED dimension (other than first) must be enclosed in {}",
                            ))
                        }
                    }
                }
            }
        }
        self.data = data;
        Ok(())
    }

    fn unlimited_sizes(
        &mut self,
        refs: &[DimRef],
        dims: &[Dim],
        at: usize,
        list: &[Datum],
        leaves: Leaves,
    ) -> Result<(), CdlError> {
        let next = (at + 1..dims.len())
            .find(|&k| dims[k].unlimited)
            .unwrap_or(dims.len());
        let current = |k: usize, b: &Builder<'_>| b.dim_of(&refs[k]).map_or(0, |d| d.len);
        let xproduct: u64 = (at + 1..next)
            .map(|k| current(k, self))
            .product::<u64>()
            .max(1);
        if next < dims.len() {
            let n = item_count(list) as u64;
            self.set_dim_len(&refs[at], n.div_ceil(xproduct));
            for d in items(list) {
                match &d.value {
                    Value::List(inner) => self.unlimited_sizes(refs, dims, next, inner, leaves)?,
                    _ => {
                        return Err(self.err(
                            d.pos,
                            "UNLIMITED dimension (other than first) must be enclosed in {}",
                        ))
                    }
                }
            }
        } else {
            let length = leaves.count(list);
            self.set_dim_len(&refs[at], length.div_ceil(xproduct));
        }
        Ok(())
    }

    /// Lay every data list out as its variable's values.
    pub(super) fn place_data(&mut self) -> Result<(), CdlError> {
        let data = std::mem::take(&mut self.data);
        for (var, list, pos) in data {
            let Some((t, refs)) = self.var_info(&var) else {
                continue;
            };
            let shape: Vec<u64> = refs
                .iter()
                .map(|r| self.dim_of(r).map_or(0, |d| d.len))
                .collect();
            let unlimited: Vec<bool> = refs
                .iter()
                .map(|r| self.dim_of(r).is_some_and(|d| d.unlimited))
                .collect();
            let total = self.data_size(&var, &shape, t, pos)?;
            if let Some(id) = self.user_type_of(&var) {
                self.place_user(&var, &id, list, &shape, &unlimited, total)?;
                continue;
            }
            let fill = self.fill_of(&var, t);
            self.data_time = self.time_units_of(&var);
            let values = if t == NcType::Char {
                self.char_data(list, &shape, &unlimited, &fill, total, pos)?
            } else {
                // Everything the data does not give is the fill value.
                let mut out = Values::repeat(&fill, total);
                let mut put = |list: &[Datum], base: usize, room: usize| {
                    let mut run = Values::with_capacity(t, room);
                    self.each_leaf(list, room, Leaves::Values, |d| {
                        self.convert_into(d, t, Some(&fill), self.data_time.as_ref(), &mut run)
                    })?;
                    out.write_at(base, &run);
                    Ok(())
                };
                self.place(list, &shape, &unlimited, 0, 0, &mut put)?;
                out
            };
            self.values.insert(var, values);
        }
        self.data_time = None;
        Ok(())
    }

    /// Call `f` on each of the first `room` leaves of `list`; those past it are
    /// reported once and left out.
    pub(super) fn each_leaf<'d>(
        &self,
        list: &'d [Datum],
        room: usize,
        leaves: Leaves,
        f: impl FnMut(&'d Datum) -> Result<(), CdlError>,
    ) -> Result<(), CdlError> {
        // Each kind of leaf walks its own iterator type: the atomic values of a large
        // data section go through here, one call each, with no dynamic dispatch.
        match leaves {
            Leaves::Items => self.each_within(items(list), room, f),
            Leaves::Values | Leaves::Chars => self.each_within(Flat::new(list), room, f),
        }
    }

    fn each_within<'d>(
        &self,
        all: impl Iterator<Item = &'d Datum>,
        room: usize,
        mut f: impl FnMut(&'d Datum) -> Result<(), CdlError>,
    ) -> Result<(), CdlError> {
        let mut given = 0;
        let mut first_extra = None;
        for d in all {
            if given < room {
                f(d)?;
            } else if first_extra.is_none() {
                first_extra = Some(d.pos);
            }
            given += 1;
        }
        if let Some(p) = first_extra {
            self.warn(
                p,
                format!("too many values: {given} given, {room} fit; the rest are ignored"),
            );
        }
        Ok(())
    }

    /// How many values the variable at `var` (of `shape` and type `t`) holds, when its
    /// data may be laid out: the data section is laid out whole in memory, so a data
    /// list for a variable of billions of values (one datum, the rest fill) must fail
    /// here, not in the allocator. Streamed lists keep the same limit, so that a file
    /// compiles alike whichever way its lists go.
    pub(super) fn data_size(
        &self,
        var: &VarPath,
        shape: &[u64],
        t: NcType,
        pos: usize,
    ) -> Result<usize, CdlError> {
        shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .filter(|&n| n.saturating_mul(t.size().max(1) as u64) <= MAX_DATA_BYTES)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                self.err(
                    pos,
                    format!(
                        "variable '{}' has {} values: data for it would take more than 2 GiB of memory (give it no data, or fewer values)",
                        var,
                        shape.iter().map(u64::to_string).collect::<Vec<_>>().join(" x ")
                    ),
                )
            })
    }

    /// A variable's CF time units, for date strings in its data: its own, or, for a
    /// variable another's `bounds` attribute names (in its group first, then
    /// anywhere, as ncdump -t matches bounds by name), that variable's.
    pub(super) fn time_units_of(&self, var: &VarPath) -> Option<TimeUnits> {
        let v = self.ds.var(var)?;
        if !v.nc_type.is_numeric() {
            return None;
        }
        let names_this = |p: &Var| matches!(p.attr("bounds").map(|a| &a.values), Some(Values::Char(t)) if t.as_slice() == v.name.as_bytes());
        let parent = self
            .ds
            .group(&var.group)
            .and_then(|g| g.vars.iter().find(|p| names_this(p)))
            .or_else(|| {
                self.ds
                    .vars()
                    .into_iter()
                    .map(|(_, p)| p)
                    .find(|p| names_this(p))
            });
        TimeUnits::of_var(parent.unwrap_or(v))
    }

    /// What `_` and missing data mean for a variable: its `_FillValue`, or the default.
    pub(super) fn fill_of(&self, var: &VarPath, t: NcType) -> Values {
        self.encodings
            .get(var)
            .and_then(|e| e.fill.clone())
            .filter(|f| f.nc_type() == t && f.len() == 1)
            .unwrap_or_else(|| Values::default_fill(t))
    }

    /// Place the values of `list` (one instance of dimensions `at..`) starting at
    /// element `base`: `put` writes the lists of the innermost dimensions. Lists for
    /// non-first unlimited dimensions must be braced.
    pub(super) fn place(
        &self,
        list: &[Datum],
        shape: &[u64],
        unlimited: &[bool],
        at: usize,
        base: usize,
        put: &mut Put<'_>,
    ) -> Result<(), CdlError> {
        let rank = shape.len();
        let stride = |k: usize| -> usize { shape[k + 1..].iter().product::<u64>() as usize };
        match (at + 1..rank).find(|&k| unlimited[k]) {
            None => {
                let room = if rank == 0 {
                    1
                } else {
                    shape[at..].iter().product::<u64>() as usize
                };
                put(list, base, room)
            }
            Some(u) => {
                // Elements at this level are instances of dimension u, one per index of
                // dimensions at..u, in row-major order; each must be braced.
                let outer: usize = shape[at..u].iter().product::<u64>() as usize;
                for (k, d) in items(list).enumerate() {
                    if k >= outer {
                        self.warn(d.pos, "too many records; the rest are ignored");
                        break;
                    }
                    let Value::List(inner) = &d.value else {
                        return Err(self.err(
                            d.pos,
                            "UNLIMITED dimension (other than first) must be enclosed in {}",
                        ));
                    };
                    // Index k over dims at..u → element offset.
                    let mut rem = k;
                    let mut offset = base;
                    for j in (at..u).rev() {
                        let n = shape[j] as usize;
                        offset += (rem % n) * stride(j);
                        rem /= n;
                    }
                    self.place(inner, shape, unlimited, u, offset, put)?;
                }
                Ok(())
            }
        }
    }

    /// ncgen's char array rules (`gen_chararray`): consecutive character constants form
    /// one string; each string is padded with the fill character to a multiple of the
    /// last dimension (rank ≥ 2, fixed last dimension); the whole is padded or cut to
    /// the variable's size.
    #[allow(clippy::too_many_arguments)]
    fn char_data(
        &mut self,
        list: &[Datum],
        shape: &[u64],
        unlimited: &[bool],
        fill: &Values,
        total: usize,
        pos: usize,
    ) -> Result<Values, CdlError> {
        let fillchar = match fill {
            Values::Char(c) => c.first().copied().unwrap_or(0),
            _ => 0,
        };
        let rank = shape.len();
        let unit = if rank >= 2 && !unlimited[rank - 1] {
            shape[rank - 1] as usize
        } else {
            1
        };
        // Runs of character constants become one string.
        let mut strings: Vec<(Vec<u8>, usize)> = Vec::new();
        let mut run: Option<(Vec<u8>, usize)> = None;
        for d in Flat::new(list) {
            match &d.value {
                Value::Char(c) => run.get_or_insert_with(|| (Vec::new(), d.pos)).0.push(*c),
                Value::Int {
                    value,
                    typ: NcType::Byte | NcType::UByte,
                } => run
                    .get_or_insert_with(|| (Vec::new(), d.pos))
                    .0
                    .push(value.get() as u8),
                other => {
                    if let Some(r) = run.take() {
                        strings.push(r);
                    }
                    match other {
                        Value::Text(s) => strings.push((s.clone(), d.pos)),
                        Value::Fill => strings.push((vec![fillchar], d.pos)),
                        _ => self.warn(
                            d.pos,
                            "a char variable takes strings and characters; value ignored",
                        ),
                    }
                }
            }
        }
        if let Some(r) = run.take() {
            strings.push(r);
        }
        let mut buf: Vec<u8> = Vec::with_capacity(total);
        for (s, _) in &strings {
            buf.extend_from_slice(s);
            if s.is_empty() || s.len() % unit != 0 {
                let pad = unit - (s.len() % unit);
                buf.extend(std::iter::repeat_n(fillchar, pad));
            }
        }
        if buf.len() > total && !(buf.len() == 1 && total == 0) {
            let p = strings.last().map_or(pos, |s| s.1);
            if total > 0 {
                self.warn(p, format!("character data list too long: {} characters for {} places; the rest are ignored", buf.len(), total));
            }
            buf.truncate(total);
        }
        buf.resize(total, fillchar);
        Ok(Values::Char(buf))
    }
}
