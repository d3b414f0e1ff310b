//! [`Concat`]: several inputs seen as one dataset, joined along one dimension. A region
//! of a variable with that dimension is cut where the inputs meet and each piece read
//! from its input; the others are read from the first input (checked equal in all).

use super::check::{self, Input};
use crate::cftime::{boundary_vars, cell_bounds, Calendar, TimeUnits};
use crate::chunking::{block_row_starts, place_block, Region};
use crate::encoding::Encoding;
use crate::error::{Error, JoinError, OrderHint, Result};
use crate::model::{Dataset, DimRef, Group, UValue, Values, Var, VarPath};
use crate::source::{DataSource, DatasetSource, FormatInfo};
use crate::store::ReadStore;

/// How the inputs are joined.
#[derive(Debug, Clone, Default)]
pub struct ConcatOptions {
    /// The dimension to join along (a name or a path); `None`: the first input's
    /// unlimited dimension.
    pub dim: Option<String>,
    /// Trust the first input for the variables without the dimension (`--check first`):
    /// the others' values are not read.
    pub trust_first: bool,
    /// Put the inputs in the order of their first coordinate value along the dimension
    /// (`--sort`), not the order given.
    pub sort: bool,
    /// Join inputs whose coordinate jumps between them by more than its step
    /// (`--allow-gaps`).
    pub allow_gaps: bool,
    /// Read the inputs' headers and nothing else (`--metadata-only`, which sizes a copy
    /// in parts): the checks that read values (the coordinate's order, the variables
    /// without the dimension) are left to the runs that write values, each of which
    /// runs them before writing.
    pub headers_only: bool,
    /// The first input is a dataset being grown (`--append`): an input out of order
    /// is refused as one that does not come after it, not with a hint of `--sort`.
    pub appending: bool,
}

/// Several sources joined along a dimension.
pub struct Concat<'a> {
    inputs: Vec<Input<'a>>,
    dataset: Dataset,
    dim: DimRef,
    /// Where each input starts along the dimension.
    starts: Vec<u64>,
    /// Variables whose values are times to rebase (the coordinate and its bounds), and
    /// each input's units when they differ from the first's.
    rebase: Vec<VarPath>,
    units: Vec<Option<(TimeUnits, TimeUnits)>>,
    allow_gaps: bool,
    /// The inputs were put in order (`--sort`).
    sorted: bool,
    /// The first input is a dataset being grown (`--append`).
    appending: bool,
    /// Slabs the copy is done with, to assemble later slabs in (memory already
    /// touched: a year of daily files took a third of its page faults in fresh slabs).
    spare: crate::source::SpareSlabs,
}

impl<'a> Concat<'a> {
    /// `inputs` (named, in order) joined as `options` says, checked first.
    ///
    /// # Errors
    /// [`Error::Join`], one line naming the inputs: no dimension to join along, a
    /// difference in structure, a variable without the dimension whose values differ,
    /// a coordinate out of order or overlapping, time units in other calendars.
    pub fn new(mut inputs: Vec<Input<'a>>, options: &ConcatOptions) -> Result<Concat<'a>> {
        let first = inputs.first().ok_or(JoinError::NoInput)?;
        // Without --concat: the first input's record dimension, or, when it has none
        // (a Zarr store, which has no unlimited dimensions), the first other input's
        // that the first also has.
        let dim = join_dim(first, options.dim.as_deref()).or_else(|what| {
            inputs[1..]
                .iter()
                .filter(|_| options.dim.is_none())
                .filter_map(|i| join_dim(i, None).ok())
                .find(|d| first.1.dataset().dim(d).is_some())
                .ok_or(what)
        })?;
        if options.sort {
            sort_inputs(&mut inputs, &dim)?;
        }
        let first = &inputs[0];
        let ds = first.1.dataset();
        for other in &inputs[1..] {
            check::same_structure(first, other, &dim)?;
        }
        if !options.trust_first && !options.headers_only {
            for path in check::without_dim(ds, &dim) {
                let want = check::whole(first, &path)?;
                for other in &inputs[1..] {
                    if !check::same_values(&want, &check::whole(other, &path)?) {
                        return Err(JoinError::ValuesDiffer {
                            first: first.0.clone(),
                            other: other.0.clone(),
                            var: path,
                            dim: dim.name.clone(),
                        }
                        .into());
                    }
                }
            }
        }
        let lens: Vec<u64> = inputs
            .iter()
            .map(|i| i.1.dataset().dim(&dim).map_or(0, |d| d.len))
            .collect();
        let starts = lens
            .iter()
            .scan(0u64, |at, n| {
                let here = *at;
                *at += n;
                Some(here)
            })
            .collect();
        let mut dataset = ds.clone();
        set_len(&mut dataset.root, &mut Vec::new(), &dim, lens.iter().sum());
        let mut out = Concat {
            inputs,
            dataset,
            dim,
            starts,
            rebase: Vec::new(),
            units: Vec::new(),
            allow_gaps: options.allow_gaps,
            sorted: options.sort,
            appending: options.appending,
            spare: crate::source::SpareSlabs::default(),
        };
        out.plan_times(options.headers_only)?;
        Ok(out)
    }

    /// The attributes that differ between the inputs, each once: the first input's
    /// are kept (one line each, naming the inputs).
    pub fn attribute_differences(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let Some(first) = self.inputs.first() else {
            return Vec::new();
        };
        self.inputs[1..]
            .iter()
            .flat_map(|other| check::attribute_differences(first, other, &self.rebase, &mut seen))
            .collect()
    }

    /// The dimension the inputs are joined along.
    pub fn dim(&self) -> &DimRef {
        &self.dim
    }

    /// The inputs' names, in the order they are joined.
    pub fn input_names(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().map(|i| i.0.as_str())
    }

    /// The inputs' sources, in the order they are joined.
    pub fn sources(&self) -> impl Iterator<Item = &'a dyn DatasetSource> + '_ {
        self.inputs.iter().map(|i| i.1)
    }

    /// Where each input starts along the joined dimension.
    pub fn starts(&self) -> &[u64] {
        &self.starts
    }

    /// True when the values of the variable at `var` are times that some input holds
    /// in other units: they are read rebased, not as that input stores them.
    pub fn rebases(&self, var: &VarPath) -> bool {
        self.rebase.contains(var) && self.units.iter().any(Option::is_some)
    }

    /// The dimension's coordinate: CF time units of every input in the first's
    /// (rebased when they differ), and, unless `headers_only`, the values in one
    /// direction across the inputs.
    fn plan_times(&mut self, headers_only: bool) -> Result<()> {
        let coord = VarPath::new(&self.dim.group, self.dim.name.clone());
        let names: Vec<String> = self.inputs.iter().map(|i| i.0.clone()).collect();
        let Some(var) = self
            .dataset
            .var(&coord)
            .filter(|v| v.dims == [self.dim.clone()])
        else {
            return Ok(());
        };
        let base = TimeUnits::of_var(var);
        // The standard and proleptic Gregorian calendars agree from 1582-10-15 on
        // (xarray writes the second where a file said neither): inputs mixing them
        // join when every date is from then on.
        let mut gregorian_only = false;
        if let Some(base) = &base {
            for (name, src) in &self.inputs {
                let units = src.dataset().var(&coord).and_then(TimeUnits::of_var);
                let theirs = match units {
                    Some(u) if gregorian_alike(u.calendar, base.calendar) => {
                        gregorian_only = true;
                        Some((u, base.clone()))
                    }
                    Some(u) if u.calendar != base.calendar => {
                        return Err(JoinError::Calendars {
                            first: names[0].clone(),
                            other: name.clone(),
                            dim: self.dim.name.clone(),
                            first_calendar: base.calendar,
                            other_calendar: u.calendar,
                        }
                        .into())
                    }
                    Some(u) if u != *base => {
                        // Moved as cftime moves them, or refused as it refuses them.
                        if let Err(e) = u.cf_hours().and_then(|_| base.cf_hours()) {
                            return Err(JoinError::Rebase {
                                first: names[0].clone(),
                                other: name.clone(),
                                dim: self.dim.name.clone(),
                                source: e,
                            }
                            .into());
                        }
                        Some((u, base.clone()))
                    }
                    _ => None,
                };
                self.units.push(theirs);
            }
            self.rebase.push(coord.clone());
            // Its cell edges are times in its units too, whether named by `bounds` or,
            // for climatological time, by `climatology` (CF 7.4).
            self.rebase.extend(boundary_vars(&self.dim.group, var));
        }
        if headers_only {
            return Ok(());
        }
        let mut coords = Vec::new();
        for (i, input) in self.inputs.iter().enumerate() {
            let raw = check::whole(input, &coord)?;
            if gregorian_only {
                self.check_gregorian(i, &coord, &raw)?;
            }
            let v = self.rebased(i, &coord, raw)?;
            coords.push((0..v.len()).map(|k| v.get_f64(k)).collect());
        }
        let edges = self.cell_edges(var, &coord)?;
        let hint = if self.appending {
            OrderHint::Appending
        } else if self.sorted {
            OrderHint::Sorted
        } else {
            OrderHint::GiveInOrder
        };
        check::runs_one_way(
            &names,
            &coords,
            edges.as_deref(),
            &self.dim.name,
            self.allow_gaps,
            hint,
        )
    }

    /// Each input's lowest and highest cell edge along the dimension, from the coordinate's
    /// `bounds` (CF 7.1: `[n, 2]`, in its units, rebased with it); `None` when it has
    /// none, or they are not that shape. (Climatological bounds are not contiguous
    /// cells: they say nothing of gaps.)
    fn cell_edges(&self, coord_var: &Var, coord: &VarPath) -> Result<Option<Vec<(f64, f64)>>> {
        let Some(path) = cell_bounds(&coord.group, coord_var) else {
            return Ok(None);
        };
        let Some(bvar) = self.dataset.var(&path) else {
            return Ok(None);
        };
        if bvar.dims.len() != 2 || bvar.dims[0] != self.dim {
            return Ok(None);
        }
        let mut edges = Vec::with_capacity(self.inputs.len());
        for (i, input) in self.inputs.iter().enumerate() {
            let shape = input.1.dataset().shape_of(&path).unwrap_or_default();
            if shape.len() != 2 || shape[1] != 2 {
                return Ok(None);
            }
            let v = self.rebased(i, &path, check::whole(input, &path)?)?;
            let n = v.len();
            if n == 0 {
                edges.push((f64::NAN, f64::NAN));
                continue;
            }
            // The cells' outer edges, whichever way the coordinate runs and each
            // cell's two bounds are stored (CF puts them in the coordinate's order,
            // writers do not always).
            let (lo, hi) = (0..n)
                .map(|k| v.get_f64(k))
                .filter(|x| x.is_finite())
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                    (lo.min(x), hi.max(x))
                });
            edges.push((lo, hi));
        }
        Ok(Some(edges))
    }

    /// Check that the times `raw` of input `i`'s coordinate at `coord` are all from
    /// 1582-10-15 on, where its calendar and the first input's agree.
    fn check_gregorian(&self, i: usize, coord: &VarPath, raw: &Values) -> Result<()> {
        let input = &self.inputs[i];
        let Some(units) = input.1.dataset().var(coord).and_then(TimeUnits::of_var) else {
            return Ok(());
        };
        let early = (0..raw.len())
            .map(|k| units.date(raw.get_f64(k)))
            .find(|t| (t.year, t.month, t.day) < (1582, 10, 15));
        match early {
            None => Ok(()),
            Some(date) => Err(JoinError::BeforeGregorian {
                first: self.inputs[0].0.clone(),
                other: input.0.clone(),
                dim: self.dim.name.clone(),
                date,
            }
            .into()),
        }
    }

    /// `values` of the variable at `var` from input `i`, in the first input's time
    /// units when they are times in others.
    ///
    /// # Errors
    /// [`Error::Join`] when a value cannot be rebased or no longer fits the variable's
    /// type.
    fn rebased(&self, i: usize, var: &VarPath, values: Values) -> Result<Values> {
        let Some(Some((theirs, ours))) = self.units.get(i) else {
            return Ok(values);
        };
        if !self.rebase.contains(var) {
            return Ok(values);
        }
        let t = values.nc_type();
        let moved = Values::Double(
            (0..values.len())
                .map(|k| theirs.rebase_to(values.get_f64(k), ours))
                .collect::<std::result::Result<_, _>>()
                .map_err(|source| JoinError::RebaseValue {
                    input: self.inputs[i].0.clone(),
                    var: var.clone(),
                    source,
                })?,
        );
        moved.cast_to(t).ok_or_else(|| {
            JoinError::RebasedTooWide {
                input: self.inputs[i].0.clone(),
                var: var.clone(),
                nc_type: t,
            }
            .into()
        })
    }

    /// The pieces of `region` of a variable whose dimension `k` is the joined one: for
    /// each, the input, its region and where it goes (the start in the output).
    fn pieces(&self, k: usize, region: &Region) -> Vec<(usize, Region, Vec<u64>)> {
        let mut out: Vec<(usize, Region, Vec<u64>)> = Vec::new();
        for j in 0..region.count[k] {
            let g = region.start[k] + j * region.stride[k];
            let i = self.starts.partition_point(|&s| s <= g).saturating_sub(1);
            if let Some((last, r, _)) = out.last_mut() {
                if *last == i {
                    r.count[k] += 1;
                    continue;
                }
            }
            let mut r = region.clone();
            r.start[k] = g - self.starts[i];
            r.count[k] = 1;
            let mut at = vec![0; region.rank()];
            at[k] = j;
            out.push((i, r, at));
        }
        out
    }

    /// Where the joined dimension is among the dimensions of the variable at `var`
    /// (`None`: it has not the dimension, and is read from the first input).
    pub fn axis(&self, var: &VarPath) -> Option<usize> {
        self.dataset
            .var(var)?
            .dims
            .iter()
            .position(|d| *d == self.dim)
    }
}

/// True for the standard and the proleptic Gregorian calendar, one each.
fn gregorian_alike(a: Calendar, b: Calendar) -> bool {
    matches!(
        (a, b),
        (Calendar::Mixed, Calendar::ProlepticGregorian)
            | (Calendar::ProlepticGregorian, Calendar::Mixed)
    )
}

/// Order `inputs` by the first value of `dim`'s coordinate, each a date when it is CF
/// time (so that inputs in other units compare): ascending, or descending where an
/// input's coordinate decreases.
fn sort_inputs(inputs: &mut [Input<'_>], dim: &DimRef) -> Result<()> {
    let coord = VarPath::new(&dim.group, dim.name.clone());
    let mut keys = Vec::with_capacity(inputs.len());
    let mut descending = false;
    for input in inputs.iter() {
        let Some(var) = input.1.dataset().var(&coord) else {
            return Err(JoinError::SortNeedsCoordinate {
                input: input.0.clone(),
                coord,
            }
            .into());
        };
        let n = input.1.dataset().dim(dim).map_or(0, |d| d.len).min(2);
        let first = input.1.read(&coord, &Region::block(vec![0], vec![n]))?;
        if first.len() == 2 && first.get_f64(1) < first.get_f64(0) {
            descending = true;
        }
        let v = if first.is_empty() {
            f64::INFINITY
        } else {
            first.get_f64(0)
        };
        // A date as hours since year 1 of its calendar; other values as they are.
        let key = match TimeUnits::of_var(var) {
            Some(u) => {
                let epoch = TimeUnits {
                    unit: crate::cftime::Unit::Hour,
                    base: crate::cftime::CompTime {
                        year: 1,
                        month: 1,
                        day: 1,
                        hour: 0.0,
                    },
                    ..u.clone()
                };
                epoch.value(&u.date(v))
            }
            None => v,
        };
        keys.push(key);
    }
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]));
    if descending {
        order.reverse();
    }
    let sorted: Vec<Input<'_>> = order.iter().map(|&i| inputs[i].clone()).collect();
    inputs.clone_from_slice(&sorted);
    Ok(())
}

/// The dimension of `input` to join along: `named` (a name in the root group, or a
/// path), else the first unlimited dimension of the root group, or of any group.
fn join_dim(input: &Input<'_>, named: Option<&str>) -> std::result::Result<DimRef, JoinError> {
    let ds = input.1.dataset();
    if let Some(name) = named {
        let r = DimRef::parse_fqn(name).unwrap_or(DimRef {
            group: Vec::new(),
            name: name.to_string(),
        });
        return match ds.dim(&r) {
            Some(_) => Ok(r),
            None => Err(JoinError::NoSuchDim {
                input: input.0.clone(),
                dim: name.to_string(),
            }),
        };
    }
    fn walk(g: &Group, path: &mut Vec<String>) -> Option<DimRef> {
        if let Some(d) = g.dims.iter().find(|d| d.unlimited) {
            return Some(DimRef {
                group: path.clone(),
                name: d.name.clone(),
            });
        }
        for c in &g.groups {
            path.push(c.name.clone());
            let found = walk(c, path);
            path.pop();
            if found.is_some() {
                return found;
            }
        }
        None
    }
    walk(&ds.root, &mut Vec::new()).ok_or_else(|| JoinError::NoRecordDim {
        input: input.0.clone(),
    })
}

fn set_len(g: &mut Group, path: &mut Vec<String>, dim: &DimRef, len: u64) {
    if *path == dim.group {
        if let Some(d) = g.dims.iter_mut().find(|d| d.name == dim.name) {
            d.len = len;
        }
        return;
    }
    for c in &mut g.groups {
        path.push(c.name.clone());
        set_len(c, path, dim, len);
        path.pop();
    }
}

impl DataSource for Concat<'_> {
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        let Some(k) = self.axis(var) else {
            return self.inputs[0].1.read(var, region);
        };
        region
            .check(&self.dataset.shape_of(var).unwrap_or_default())
            .map_err(|e| Error::region(var, e.to_string()))?;
        let pieces = self.pieces(k, region);
        let read_in = |i: usize, r: &Region| {
            let input = &self.inputs[i];
            let values = input
                .1
                .read(var, r)
                .map_err(|e| check::in_input(&input.0, e))?;
            self.rebased(i, var, values)
        };
        if let [(i, r, _)] = pieces.as_slice() {
            return read_in(*i, r);
        }
        let t = self
            .dataset
            .var(var)
            .map_or(crate::model::NcType::Byte, |v| v.nc_type);
        let n = region.len().unwrap_or(0) as usize;
        // Memory of an earlier slab only where the pieces write every value.
        let covered = pieces
            .iter()
            .map(|(_, r, _)| r.len().unwrap_or(0))
            .sum::<u64>()
            == n as u64;
        let mut out = match covered.then(|| self.spare.take(t, n)).flatten() {
            Some(spare) => spare.reused_as(t, n),
            None => Values::zeroed(t, n),
        };
        // The inputs' pieces are read in parallel: each is one input's chunks, decoded
        // by its reader, and a slab of a year of daily files is 365 of them.
        use rayon::prelude::*;
        let read: Vec<Values> = pieces
            .par_iter()
            .map(|(i, r, _)| read_in(*i, r))
            .collect::<Result<_>>()?;
        for ((i, r, at), piece) in pieces.iter().zip(read) {
            if piece.nc_type() != t || piece.len() != r.len().unwrap_or(0) as usize {
                return Err(Error::region(
                    var,
                    format!(
                        "{} gave {} values of type {}",
                        self.inputs[*i].0,
                        piece.len(),
                        piece.nc_type()
                    ),
                ));
            }
            let row = r.count.last().copied().unwrap_or(1) as usize;
            for (n, start) in block_row_starts(&region.count, &r.count, at)
                .into_iter()
                .enumerate()
            {
                out.write_at(start, &piece.slice(n * row..(n + 1) * row));
            }
        }
        Ok(out)
    }

    fn read_user(&self, var: &VarPath, region: &Region) -> Result<Vec<UValue>> {
        let Some(k) = self.axis(var) else {
            return self.inputs[0].1.read_user(var, region);
        };
        let mut out = vec![UValue::Opaque(Vec::new()); region.len().unwrap_or(0) as usize];
        for (i, r, at) in &self.pieces(k, region) {
            let piece = self.inputs[*i].1.read_user(var, r)?;
            place_block(&mut out, &region.count, &piece, &r.count, at);
        }
        Ok(out)
    }

    fn has_data(&self, var: &VarPath) -> bool {
        self.inputs.iter().any(|i| i.1.has_data(var))
    }

    fn recycle(&self, values: Values) {
        self.spare.keep(values);
    }
}

impl DatasetSource for Concat<'_> {
    fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    fn format(&self) -> &FormatInfo {
        self.inputs[0].1.format()
    }

    /// The first input's, but for strings' widths: the widest of the inputs' when every
    /// input declares one, else none (the copy's plan then finds the longest string), so
    /// that a join is never narrower than one of its inputs.
    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        let mut enc = self.inputs[0].1.encoding(var)?;
        if enc.string_width.is_some() || enc.string_chars.is_some() {
            let all: Vec<Option<Encoding>> =
                self.inputs.iter().map(|(_, s)| s.encoding(var)).collect();
            let widest = |f: fn(&Encoding) -> Option<usize>| -> Option<usize> {
                all.iter()
                    .map(|e| e.as_ref().and_then(f))
                    .collect::<Option<Vec<usize>>>()
                    .and_then(|w| w.into_iter().max())
            };
            enc.string_width = widest(|e| e.string_width);
            enc.string_chars = widest(|e| e.string_chars);
        }
        Some(enc)
    }

    fn problems(&self) -> &[String] {
        self.inputs[0].1.problems()
    }

    fn unreadable(&self) -> Vec<(VarPath, String)> {
        let mut all: Vec<(VarPath, String)> = Vec::new();
        for (_, src) in &self.inputs {
            for u in src.unreadable() {
                if !all.iter().any(|(p, _)| *p == u.0) {
                    all.push(u);
                }
            }
        }
        all
    }

    fn store(&self) -> Option<&dyn ReadStore> {
        self.inputs[0].1.store()
    }

    fn reads_are_cheap(&self) -> bool {
        self.inputs.iter().all(|i| i.1.reads_are_cheap())
    }
}
