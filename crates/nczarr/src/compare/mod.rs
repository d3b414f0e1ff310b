//! Two datasets compared (`nczcmp`, nccmp's job) for what the data is, whatever the
//! formats: the structure (`meta.rs`), then each variable's values in slabs, both
//! datasets read at once, compared by a loop per type (`values.rs`). Differences go to
//! the caller as they are found, so a report of millions is never held.

mod attrs;
mod meta;
mod pair;
mod user;
mod values;

use std::collections::BTreeMap;

use crate::cftime::TimeUnits;
use crate::chunking::{block_slabs, c_strides, Region};
use crate::model::select::var_matches;
use crate::model::{Dataset, NcType, VarPath};
use crate::source::DatasetSource;

/// Which of the two datasets compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The first (`A`).
    A,
    /// The second (`B`).
    B,
}

/// Why two datasets could not be compared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompareError {
    /// `-v` or `-x` names a variable that neither dataset has: a typo would otherwise
    /// compare nothing (or everything) and pass.
    #[error("{option} {name}: no such variable in either dataset")]
    NoSuchVar {
        /// The option (`-v`, `-x`).
        option: &'static str,
        /// The name as given.
        name: String,
    },
    /// Reading one of the datasets failed; `side` says which, so that the message
    /// can name it.
    #[error("dataset {side:?}: {source}")]
    Read {
        /// The dataset that failed.
        side: Side,
        /// What failed (names the variable).
        source: crate::Error,
    },
}

// Here rather than in `error.rs`, which would otherwise import the layer it is
// imported by.
impl From<CompareError> for crate::Error {
    fn from(e: CompareError) -> crate::Error {
        crate::Error::Layer {
            layer: "compare",
            source: Box::new(e),
        }
    }
}

/// What is compared, and when values are equal (nccmp's options).
#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    /// `-d`: variables' values.
    pub data: bool,
    /// `-m`: dimensions, variables' types and dimensions, variables' attributes.
    pub metadata: bool,
    /// `-g`: groups' (global) attributes.
    pub global: bool,
    /// `-f`: every differing value of a variable, not only the first.
    pub keep_going: bool,
    /// `-v`: only these variables (names as nczdump's `-v` takes them); empty: all.
    pub include: Vec<String>,
    /// `-x`: not these variables.
    pub exclude: Vec<String>,
    /// `-A`: attributes not compared.
    pub ignore_attrs: Vec<String>,
    /// Groups' (global) attributes not compared: nccmp's `-G`, and `history` unless
    /// its `-h`.
    pub ignore_global_attrs: Vec<String>,
    /// `-t`: absolute tolerance (seconds for CF times in other units).
    pub abs_tol: Option<f64>,
    /// `-T`: relative tolerance, percent of the larger magnitude.
    pub rel_tol: Option<f64>,
    /// `-N`: NaN equals NaN.
    pub nan_equal: bool,
    /// `-M`: a fill (missing) value equals the other dataset's fill value.
    pub missing_equal: bool,
    /// `--ignore-types`: values of other types compare as numbers.
    pub ignore_types: bool,
    /// `--storage`: chunking, codecs, byte order and format are differences too.
    pub storage: bool,
    /// About how many bytes of values each side reads at once.
    pub slab_bytes: u64,
}

impl CompareOptions {
    /// Whether the variable at `path` is compared (`-v`, `-x`).
    pub fn selects(&self, path: &VarPath) -> bool {
        let m = |spec: &String| crate::model::select::var_matches(spec, &path.group, &path.name);
        (self.include.is_empty() || self.include.iter().any(m)) && !self.exclude.iter().any(m)
    }
}

/// What differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffKind {
    /// A value of a variable.
    Value,
    /// A dimension's length, or a dimension only in one.
    Dimension,
    /// A group only in one.
    Group,
    /// A variable only in one.
    Variable,
    /// A variable's type.
    Type,
    /// A variable's dimensions or shape.
    Shape,
    /// An attribute's values, or an attribute only in one.
    Attribute,
    /// How a variable is stored (`--storage`), or the format.
    Storage,
    /// How many values of a variable differ (`-f`).
    Count,
}

impl DiffKind {
    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            DiffKind::Value => "value",
            DiffKind::Dimension => "dimension",
            DiffKind::Group => "group",
            DiffKind::Variable => "variable",
            DiffKind::Type => "type",
            DiffKind::Shape => "shape",
            DiffKind::Attribute => "attribute",
            DiffKind::Storage => "storage",
            DiffKind::Count => "count",
        }
    }
}

/// One difference: what it is about (a variable, `var:attr`, a dimension), where (a
/// value's index), and both sides (`None`: absent from that dataset).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// What kind of difference.
    pub kind: DiffKind,
    /// The variable, attribute (`var:name`, `:name` for global) or dimension.
    pub what: String,
    /// A value's index, C order from 0.
    pub index: Option<Vec<u64>>,
    /// A's side.
    pub a: Option<String>,
    /// B's side.
    pub b: Option<String>,
    /// The difference of two numbers.
    pub diff: Option<f64>,
    /// A's and B's types where they differ and the sides are typed values (an
    /// attribute's): the line then says `type float != double (0.001f != 0.001)`.
    pub types: Option<(String, String)>,
}

impl Difference {
    /// The line nczcmp prints: `tas[12,40,7]: 281.25 != 281.5 (diff 0.25)`,
    /// `dimension time: 10 != 12`, `attribute tas:units: only in a.nc`; indices in
    /// Fortran's order from 1 with `fortran`.
    pub fn line(&self, a_name: &str, b_name: &str, fortran: bool) -> String {
        let what = match (&self.kind, &self.index) {
            (DiffKind::Value, Some(index)) => {
                let idx: Vec<String> = if fortran {
                    index.iter().rev().map(|i| (i + 1).to_string()).collect()
                } else {
                    index.iter().map(u64::to_string).collect()
                };
                if idx.is_empty() {
                    self.what.clone()
                } else {
                    format!("{}[{}]", self.what, idx.join(","))
                }
            }
            (DiffKind::Value | DiffKind::Count, _) => self.what.clone(),
            (kind, _) => format!("{} {}", kind.name(), self.what),
        };
        let sides = match (&self.a, &self.b) {
            (Some(a), Some(b)) => format!("{a} != {b}"),
            (Some(_), None) => format!("only in {a_name}"),
            (None, Some(_)) => format!("only in {b_name}"),
            (None, None) => String::new(),
        };
        match (self.kind, self.diff, &self.types) {
            (DiffKind::Count, _, _) => format!("{what}: {}", self.a.as_deref().unwrap_or("")),
            (_, _, Some((ta, tb))) => format!("{what}: type {ta} != {tb} ({sides})"),
            (_, Some(d), _) => format!("{what}: {sides} (diff {d})"),
            _ => format!("{what}: {sides}"),
        }
    }
}

/// What one variable's values came to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VarSummary {
    /// Values compared (fewer when the comparison stopped at a difference).
    pub compared: u64,
    /// Values that differ among them.
    pub differing: u64,
    /// The largest difference of two numbers.
    pub max_diff: Option<f64>,
}

/// The outcome: how many differences, and each variable's summary.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Differences found (each reported to the caller as found).
    pub differences: u64,
    /// Per variable compared, by its name.
    pub vars: BTreeMap<String, VarSummary>,
}

/// A variable's name in reports: its path without the root's slash (`tas`, `g/tas`).
pub(crate) fn name_of(path: &VarPath) -> String {
    path.to_string().trim_start_matches('/').to_string()
}

/// Compare `a` and `b` as `options` say, giving each difference to `found` as it is
/// found.
///
/// # Errors
/// [`CompareError::NoSuchVar`] before anything is compared when `-v` or `-x` names a
/// variable in neither dataset (one in a single dataset is a difference, reported);
/// [`CompareError::Read`] for a read error of either dataset, saying which.
pub fn compare(
    a: &dyn DatasetSource,
    b: &dyn DatasetSource,
    options: &CompareOptions,
    found: &mut dyn FnMut(&Difference),
) -> Result<Report, CompareError> {
    check_names(a.dataset(), b.dataset(), options)?;
    let mut report = Report::default();
    let mut emit = |d: Difference| {
        if d.kind != DiffKind::Count {
            report.differences += 1;
        }
        found(&d);
    };
    meta::compare(a, b, options, &mut emit);
    let mut vars = BTreeMap::new();
    if options.data {
        for (path, var) in a.dataset().vars() {
            let Some(other) = b.dataset().var(&path) else {
                continue;
            };
            if !options.selects(&path) {
                continue;
            }
            let what = name_of(&path);
            let (shape, theirs) = (a.dataset().var_shape(var), b.dataset().var_shape(other));
            if shape != theirs {
                emit(Difference {
                    kind: DiffKind::Shape,
                    what,
                    index: None,
                    a: Some(format!("{shape:?}")),
                    b: Some(format!("{theirs:?}")),
                    diff: None,
                    types: None,
                });
                continue;
            }
            let (ta, tb) = (
                user::type_text(a.dataset(), var),
                user::type_text(b.dataset(), other),
            );
            // --ignore-types compares numbers as numbers (an enum's are its base
            // integers); records are compared only as the same type.
            let records = user::reads_by_element(a.dataset(), var)
                || user::reads_by_element(b.dataset(), other);
            if ta != tb && (records || !options.ignore_types) {
                if !options.metadata {
                    emit(Difference {
                        kind: DiffKind::Type,
                        what,
                        index: None,
                        a: Some(ta),
                        b: Some(tb),
                        diff: None,
                        types: None,
                    });
                }
                continue;
            }
            if !a.has_data(&path) && !b.has_data(&path) {
                continue;
            }
            if user::reads_by_element(a.dataset(), var) {
                let summary = user::compare_var(
                    a,
                    b,
                    &path,
                    &shape,
                    options.nan_equal,
                    options.keep_going,
                    &mut emit,
                )?;
                vars.insert(what, summary);
                continue;
            }
            let rules = rules_for(a, b, &path, options);
            let summary = compare_var(a, b, &path, &shape, &rules, options, &mut emit)?;
            vars.insert(what, summary);
        }
    }
    report.vars = vars;
    Ok(report)
}

/// Check that each name `-v` and `-x` give is a variable of `a` or of `b`.
fn check_names(a: &Dataset, b: &Dataset, options: &CompareOptions) -> Result<(), CompareError> {
    let known = |ds: &Dataset, name: &str| {
        ds.vars()
            .iter()
            .any(|(p, _)| var_matches(name, &p.group, &p.name))
    };
    for (option, names) in [("-v", &options.include), ("-x", &options.exclude)] {
        if let Some(name) = names.iter().find(|n| !known(a, n) && !known(b, n)) {
            return Err(CompareError::NoSuchVar {
                option,
                name: name.clone(),
            });
        }
    }
    Ok(())
}

/// The rules for one variable: the options', with its fills (`-M`) and its CF time
/// units when they differ between the datasets.
fn rules_for(
    a: &dyn DatasetSource,
    b: &dyn DatasetSource,
    path: &VarPath,
    options: &CompareOptions,
) -> values::Rules {
    let (va, vb) = (a.dataset().var(path), b.dataset().var(path));
    let fill = |src: &dyn DatasetSource, v: Option<&crate::model::Var>| -> f64 {
        v.and_then(|v| v.attr("_FillValue"))
            .filter(|f| f.values.len() == 1)
            .map(|f| f.values.get_f64(0))
            .or_else(|| {
                src.encoding(path)
                    .and_then(|e| e.fill)
                    .filter(|f| f.len() == 1)
                    .map(|f| f.get_f64(0))
            })
            .or_else(|| {
                v.filter(|v| v.nc_type != NcType::String)
                    .map(|v| crate::model::Values::default_fill(v.nc_type).get_f64(0))
            })
            .unwrap_or(f64::NAN)
    };
    // A boundary variable's times are its coordinate's (CF 7.1): `time_bnds` with no
    // units of its own compares as instants whenever `time` does.
    let times = match (
        TimeUnits::of_var_in(a.dataset(), path),
        TimeUnits::of_var_in(b.dataset(), path),
    ) {
        // Units CF libraries give no length (months outside 360_day, years) compare
        // as numbers: no instant can be said for them.
        (Some(ua), Some(ub)) if ua != ub && ua.cf_hours().is_ok() && ub.cf_hours().is_ok() => {
            Some((ua, ub))
        }
        _ => None,
    };
    values::Rules {
        abs: options.abs_tol,
        rel: options.rel_tol,
        nan_equal: options.nan_equal,
        fills: options.missing_equal.then(|| (fill(a, va), fill(b, vb))),
        times,
    }
}

/// Compare the values of the variable at `path` (of `shape`) slab by slab, both
/// datasets read at once; stop at its first difference unless `keep_going`.
fn compare_var(
    a: &dyn DatasetSource,
    b: &dyn DatasetSource,
    path: &VarPath,
    shape: &[u64],
    rules: &values::Rules,
    options: &CompareOptions,
    emit: &mut dyn FnMut(Difference),
) -> Result<VarSummary, CompareError> {
    let what = name_of(path);
    let item = a.dataset().var(path).map_or(8, |v| {
        crate::encoding::item_size(v.nc_type, 1).max(1) as u64
    });
    // Local data in slabs of at most 4 MiB a side: compared while still in the cache,
    // in memory used again (a larger budget only bounds them; the same comparison of a
    // 95 MB variable took 0.20 s in 64 MiB slabs, 0.15 s in 4 MiB ones). Remote data
    // in slabs as large as the budget allows: each is a round of requests in flight.
    let cap = if a.reads_are_cheap() && b.reads_are_cheap() {
        4 << 20
    } else {
        u64::MAX
    };
    let budget = (options.slab_bytes.clamp(1 << 16, cap.max(1 << 16)) / item).max(1);
    let chunks = a
        .encoding(path)
        .and_then(|e| e.chunk_shape().map(<[u64]>::to_vec));
    let ones = vec![1u64; shape.len()];
    let slabs = if shape.is_empty() {
        vec![Region::whole(&[])]
    } else {
        block_slabs(&Region::whole(shape), &ones, chunks.as_deref(), budget)
    };
    let mut summary = VarSummary::default();
    let wanted: Vec<&Region> = slabs
        .iter()
        .filter(|r| !r.is_empty() || shape.is_empty())
        .collect();
    std::thread::scope(|scope| -> Result<(), CompareError> {
        // The next slab of both is read while this one is compared (a rendezvous: no
        // third slab waits between them).
        let (tx, rx) = std::sync::mpsc::sync_channel(0);
        let reading = &wanted;
        scope.spawn(move || {
            for region in reading {
                let (x, y) = rayon::join(|| a.read(path, region), || b.read(path, region));
                let read = |side, r: crate::Result<_>| {
                    r.map_err(|source| CompareError::Read { side, source })
                };
                let both = read(Side::A, x).and_then(|x| Ok((x, read(Side::B, y)?)));
                if tx.send(both).is_err() {
                    break;
                }
            }
        });
        let one = OneVar {
            a,
            b,
            what: &what,
            rules,
            keep_going: options.keep_going,
        };
        for (region, got) in wanted.iter().zip(rx) {
            if one.slab(region, got?, &mut summary, emit) {
                break;
            }
        }
        Ok(())
    })?;
    if options.keep_going {
        emit_count(what, &summary, emit);
    }
    Ok(summary)
}

/// With `-f`, how many values of the variable `what` differ, when some do.
fn emit_count(what: String, summary: &VarSummary, emit: &mut dyn FnMut(Difference)) {
    if summary.differing == 0 {
        return;
    }
    let max = summary
        .max_diff
        .map(|m| format!(" (max diff {m})"))
        .unwrap_or_default();
    emit(Difference {
        kind: DiffKind::Count,
        what,
        index: None,
        a: Some(format!(
            "{} of {} values differ{max}",
            summary.differing, summary.compared
        )),
        b: None,
        diff: None,
        types: None,
    });
}

/// One variable being compared.
struct OneVar<'v> {
    a: &'v dyn DatasetSource,
    b: &'v dyn DatasetSource,
    what: &'v str,
    rules: &'v values::Rules,
    keep_going: bool,
}

impl OneVar<'_> {
    /// Compare one slab (`region`) of both, adding to `summary`; true when the
    /// comparison of this variable stops here.
    fn slab(
        &self,
        region: &Region,
        (x, y): (crate::model::Values, crate::model::Values),
        summary: &mut VarSummary,
        emit: &mut dyn FnMut(Difference),
    ) -> bool {
        summary.compared += x.len() as u64;
        let mut stop = false;
        values::compare(&x, &y, self.rules, &mut |f| {
            summary.differing += 1;
            if let Some(d) = f.diff {
                summary.max_diff = Some(summary.max_diff.map_or(d, |m: f64| m.max(d)));
            }
            emit(Difference {
                kind: DiffKind::Value,
                what: self.what.to_string(),
                index: Some(index_in(region, f.at)),
                a: Some(f.a),
                b: Some(f.b),
                diff: f.diff,
                types: None,
            });
            stop = !self.keep_going;
            !stop
        });
        self.a.recycle(x);
        self.b.recycle(y);
        stop
    }
}

/// The index in the variable of element `at` (C order) of `region`.
fn index_in(region: &Region, at: usize) -> Vec<u64> {
    let strides = c_strides(&region.count);
    let mut rest = at as u64;
    region
        .start
        .iter()
        .zip(&strides)
        .map(|(start, s)| {
            let i = rest / s.max(&1);
            rest %= s.max(&1);
            start + i
        })
        .collect()
}
