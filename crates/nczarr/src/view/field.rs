//! One 2-D slice of a variable, read as a field of shown values: only the chunks the
//! slice touches, in bands of rows of bounded memory, each band reduced to the picture's
//! size by block means as it arrives, so that a slice larger than the picture is never
//! held whole.

use crate::cftime::TimeUnits;
use crate::chunking::Region;
use crate::encoding::Chunking;
use crate::error::{Result, ViewError};
use crate::model::{Dataset, DimRef, Values, Var, VarPath};
use crate::source::{DataSource as _, DatasetSource};
use crate::subset::{resolve, DimSpec, Selections, Subset};

use super::decode::CfDecode;

/// Values held in one band of rows at most (their stored values, and as `f64`).
const BAND_VALUES: u64 = 4 << 20;

/// What to draw: the variable, which dimensions are the axes, and the largest picture.
#[derive(Debug, Clone, Default)]
pub struct FieldRequest {
    /// The variable: a name (the first so named, root first) or a path `/g/v`, `g/v`.
    pub var: String,
    /// The horizontal axis's dimension (default: the last).
    pub x: Option<String>,
    /// The vertical axis's dimension (default: the one before the last, or the last
    /// other than `x`).
    pub y: Option<String>,
    /// At most this many values across; more cells are averaged in blocks.
    pub max_width: usize,
    /// At most this many values down.
    pub max_height: usize,
}

/// A coordinate variable along an axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Coord {
    /// Its name.
    pub name: String,
    /// Its `units`, if any.
    pub units: Option<String>,
    /// Its values, in stored order (one per cell of the slice).
    pub values: Vec<f64>,
    /// Its CF time units, when it is a time axis.
    pub time: Option<TimeUnits>,
}

/// One axis of the picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The dimension's name.
    pub dim: String,
    /// Cells along it in the slice.
    pub len: usize,
    /// Its coordinate variable, when it has a 1-D one.
    pub coord: Option<Coord>,
    /// Drawn in the reverse of the stored order, so that values increase up the
    /// vertical axis and to the right along the horizontal one, as matplotlib draws.
    pub reversed: bool,
}

/// A dimension held at one index.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixed {
    /// The dimension's name.
    pub dim: String,
    /// The index in the dataset (before any `--dim` cut).
    pub index: u64,
    /// Its coordinate's value there as text: a date on a time axis, else the number
    /// and units.
    pub label: Option<String>,
}

/// The slice, decoded and reduced, ready to colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The variable.
    pub var: VarPath,
    /// Its `long_name`, else `standard_name`.
    pub long_name: Option<String>,
    /// Its `units`.
    pub units: Option<String>,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The other dimensions, each at one index.
    pub fixed: Vec<Fixed>,
    /// Values across (after block means).
    pub width: usize,
    /// Values down.
    pub height: usize,
    /// Cells averaged into one value, across and down (1, 1 when not reduced).
    pub block: (usize, usize),
    /// `width * height` values, row 0 at the top, drawn order; NaN where masked.
    pub values: Vec<f64>,
}

/// Read the slice `request` asks for from `source` cut by `dims` (`--dim`, as ncks).
///
/// # Errors
/// [`ViewError`] for a variable that cannot be drawn or axes that do not fit; `--dim`
/// errors; read errors.
pub fn read_field(
    source: &dyn DatasetSource,
    dims: &[DimSpec],
    request: &FieldRequest,
) -> Result<Field> {
    let selections = resolve(source, dims)?;
    let cut = Subset::new(source, &selections);
    let ds = cut.dataset();
    let missing = || ViewError::NoVariable {
        name: request.var.clone(),
        drawable: drawable(ds),
    };
    let path = find_var(ds, &request.var).ok_or_else(missing)?;
    let var = ds.var(&path).ok_or_else(missing)?;
    check_var(var)?;
    let shape = ds.var_shape(var);
    let (ix, iy) = axes(var, request)?;
    // Any empty dimension: the axes have no cells, a held one no index to hold.
    if let Some(i) = shape.iter().position(|&n| n == 0) {
        return Err(ViewError::Empty {
            var: var.name.clone(),
            dim: var.dims[i].name.clone(),
        }
        .into());
    }
    let (nx, ny) = (shape[ix] as usize, shape[iy] as usize);
    // One factor across and down, so that cells stay square when averaged.
    let b = nx
        .div_ceil(request.max_width.max(1))
        .max(ny.div_ceil(request.max_height.max(1)));
    let (bx, by) = (b, b);
    let (w, h) = (nx.div_ceil(bx), ny.div_ceil(by));
    let decode = CfDecode::of_var(var);
    let mut sums = vec![0f64; w * h];
    let mut counts = vec![0u32; w * h];
    // Bands of whole blocks of rows, and of whole chunks where the chunks are small
    // enough, so that each chunk is decoded once.
    let chunk_rows = match cut.encoding(&path).and_then(|e| e.chunking) {
        Some(Chunking::Chunked(c)) => c.get(iy).copied().unwrap_or(1).max(1) as usize,
        _ => 1,
    };
    let unit = lcm(by, chunk_rows.min(ny));
    let rows_fit = (BAND_VALUES / nx as u64).max(1) as usize;
    let band = if unit <= rows_fit {
        unit * (rows_fit / unit)
    } else {
        by * (rows_fit / by).max(1)
    };
    let mut shown = Vec::new();
    let mut r0 = 0;
    while r0 < ny {
        let rows = band.min(ny - r0);
        let mut start = vec![0u64; shape.len()];
        let mut count = vec![1u64; shape.len()];
        start[iy] = r0 as u64;
        count[iy] = rows as u64;
        count[ix] = nx as u64;
        let stored = cut.read(&path, &Region::block(start, count))?;
        shown.clear();
        decode.extend(&stored, &mut shown);
        // C order over the region: the later of the two axes varies fastest.
        let (sx, sy) = if ix > iy { (1, nx) } else { (rows, 1) };
        for r in 0..rows {
            let out_row = (r0 + r) / by;
            for c in 0..nx {
                let v = shown[r * sy + c * sx];
                if !v.is_nan() {
                    let o = out_row * w + c / bx;
                    sums[o] += v;
                    counts[o] += 1;
                }
            }
        }
        r0 += rows;
    }
    let mut x = axis(&cut, &selections, var, ix, nx)?;
    let mut y = axis(&cut, &selections, var, iy, ny)?;
    x.reversed = x.coord.as_ref().is_some_and(|c| decreasing(&c.values));
    y.reversed = !y.coord.as_ref().is_some_and(|c| decreasing(&c.values));
    let mut values = vec![f64::NAN; w * h];
    for row in 0..h {
        let src_row = if y.reversed { h - 1 - row } else { row };
        for col in 0..w {
            let src_col = if x.reversed { w - 1 - col } else { col };
            let i = src_row * w + src_col;
            if counts[i] > 0 {
                values[row * w + col] = sums[i] / f64::from(counts[i]);
            }
        }
    }
    let fixed = fixed_dims(&cut, &selections, var, &[ix, iy])?;
    let text = |name: &str| text_attr(var, name);
    Ok(Field {
        long_name: text("long_name").or_else(|| text("standard_name")),
        units: text("units"),
        var: path,
        x,
        y,
        fixed,
        width: w,
        height: h,
        block: (bx, by),
        values,
    })
}

/// The variable `name` names: a path, or the first variable so named (root first,
/// then groups in order).
pub fn find_var(ds: &Dataset, name: &str) -> Option<VarPath> {
    let trimmed = name.trim_start_matches('/');
    if trimmed.contains('/') {
        let mut parts: Vec<String> = trimmed.split('/').map(str::to_string).collect();
        let leaf = parts.pop()?;
        let p = VarPath::new(&parts, leaf);
        return ds.var(&p).map(|_| p);
    }
    let mut all = ds.vars();
    all.sort_by_key(|(p, _)| p.group.len());
    all.into_iter()
        .find(|(p, _)| p.name == trimmed)
        .map(|(p, _)| p)
}

/// The variable drawn when none is named: the first numeric one of two or more
/// dimensions that is not a coordinate variable (root first).
pub fn default_var(ds: &Dataset) -> Option<String> {
    let mut all = ds.vars();
    // Cell bounds and auxiliary coordinates (named by another variable's `bounds`,
    // `climatology` or `coordinates`) are not the data.
    let named: Vec<String> = all
        .iter()
        .flat_map(|(_, v)| {
            ["bounds", "climatology", "coordinates"]
                .into_iter()
                .filter_map(|a| text_attr(v, a))
                .flat_map(|t| t.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        })
        .collect();
    all.sort_by_key(|(p, _)| p.group.len());
    all.into_iter()
        .find(|(p, v)| check_var(v).is_ok() && !named.contains(&p.name))
        .map(|(p, _)| p.to_string().trim_start_matches('/').to_string())
}

/// The variables that can be drawn, by path, at most 12 of them named.
fn drawable(ds: &Dataset) -> String {
    let names: Vec<String> = ds
        .vars()
        .into_iter()
        .filter(|(_, v)| check_var(v).is_ok())
        .map(|(p, _)| p.to_string().trim_start_matches('/').to_string())
        .collect();
    match names.len() {
        0 => "none".into(),
        n if n > 12 => format!("{} and {} more", names[..12].join(", "), n - 12),
        _ => names.join(", "),
    }
}

fn check_var(var: &Var) -> Result<()> {
    if var.user_type.is_some() || !var.nc_type.is_numeric() {
        let ty = if var.user_type.is_some() {
            "user-defined".to_string()
        } else {
            var.nc_type.cdl_name().to_string()
        };
        return Err(ViewError::NotNumeric {
            var: var.name.clone(),
            ty,
        }
        .into());
    }
    if var.dims.len() < 2 {
        return Err(ViewError::TooFewDims {
            var: var.name.clone(),
            rank: var.dims.len(),
        }
        .into());
    }
    Ok(())
}

/// The positions of the x and y dimensions among the variable's.
fn axes(var: &Var, request: &FieldRequest) -> Result<(usize, usize)> {
    let n = var.dims.len();
    let find = |axis: &'static str, name: &str| {
        var.dims
            .iter()
            .position(|d| d.name == name || d.fqn() == name)
            .ok_or_else(|| ViewError::NoDimension {
                axis,
                dim: name.to_string(),
                var: var.name.clone(),
                has: var
                    .dims
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            })
    };
    let ix = match &request.x {
        Some(name) => find("x", name)?,
        None => match &request.y {
            Some(y) if find("y", y)? == n - 1 => n - 2,
            _ => n - 1,
        },
    };
    let iy = match &request.y {
        Some(name) => find("y", name)?,
        None => {
            if ix == n - 1 {
                n - 2
            } else {
                n - 1
            }
        }
    };
    if ix == iy {
        return Err(ViewError::SameDimension(var.dims[ix].name.clone()).into());
    }
    Ok((ix, iy))
}

/// The 1-D coordinate variable of dimension `d` (same name, in the dimension's group).
fn coord_of<'a>(ds: &'a Dataset, d: &DimRef) -> Option<(VarPath, &'a Var)> {
    let p = VarPath::new(&d.group, d.name.clone());
    let v = ds.var(&p)?;
    (v.dims.len() == 1 && v.dims[0] == *d && v.nc_type.is_numeric() && v.user_type.is_none())
        .then_some((p, v))
}

fn axis(
    source: &dyn DatasetSource,
    selections: &Selections,
    var: &Var,
    i: usize,
    len: usize,
) -> Result<Axis> {
    let d = &var.dims[i];
    let ds = source.dataset();
    let coord = match coord_of(ds, d) {
        Some((p, c)) => {
            let raw = source.read(&p, &Region::whole(&[len as u64]))?;
            let decode = CfDecode::of_var(c);
            let mut values = Vec::with_capacity(len);
            decode.extend(&raw, &mut values);
            Some(Coord {
                name: c.name.clone(),
                units: text_attr(c, "units"),
                values,
                time: TimeUnits::of_var(c),
            })
        }
        // A dimension without a coordinate variable, cut by `--dim`: its cells are
        // labelled with their indices in the dataset, not from 0.
        None => selections.get(d).map(|kept| Coord {
            name: d.name.clone(),
            units: None,
            values: kept.iter().map(|&k| k as f64).collect(),
            time: None,
        }),
    };
    Ok(Axis {
        dim: d.name.clone(),
        len,
        coord,
        reversed: false,
    })
}

fn fixed_dims(
    source: &dyn DatasetSource,
    selections: &Selections,
    var: &Var,
    axes: &[usize],
) -> Result<Vec<Fixed>> {
    let mut out = Vec::new();
    for (i, d) in var.dims.iter().enumerate() {
        if axes.contains(&i) {
            continue;
        }
        let index = selections
            .get(d)
            .and_then(|ix| ix.first().copied())
            .unwrap_or(0);
        let label = match coord_of(source.dataset(), d) {
            Some((p, c)) => {
                let raw = source.read(&p, &Region::block(vec![0], vec![1]))?;
                let mut v = Vec::new();
                CfDecode::of_var(c).extend(&raw, &mut v);
                v.first()
                    .filter(|x| !x.is_nan())
                    .map(|&x| match TimeUnits::of_var(c) {
                        Some(t) => {
                            let mut s = String::new();
                            t.format(x, ' ', &mut s);
                            super::ticks::date_text(&s)
                        }
                        None => match text_attr(c, "units") {
                            Some(u) => format!("{} {u}", super::ticks::label(x)),
                            None => super::ticks::label(x),
                        },
                    })
            }
            None => None,
        };
        out.push(Fixed {
            dim: d.name.clone(),
            index,
            label,
        });
    }
    Ok(out)
}

/// A text attribute of `var` that is not blank.
pub fn text_attr(var: &Var, name: &str) -> Option<String> {
    match &var.attr(name)?.values {
        Values::Char(t) if !t.trim_ascii().is_empty() => Some(
            String::from_utf8_lossy(t)
                .trim_end_matches('\0')
                .to_string(),
        ),
        _ => None,
    }
}

/// Strictly decreasing (a longitude range wrapped across the seam is neither way: drawn
/// as stored).
fn decreasing(v: &[f64]) -> bool {
    v.len() > 1 && v.windows(2).all(|w| w[0] > w[1])
}

fn lcm(a: usize, b: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b).max(1) * b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdl::{compile, parse};

    #[test]
    fn cut_axes_without_coordinates_keep_their_indices() {
        let text = "netcdf t {\ndimensions:\n y = 6 ;\n x = 8 ;\nvariables:\n float v(y, x) ;\n}\n";
        let file = parse(text).unwrap();
        let source = compile(text, &file).unwrap();
        let dims: Vec<DimSpec> = ["x,2,7,5", "y,1,4"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let request = FieldRequest {
            var: "v".into(),
            max_width: 100,
            max_height: 100,
            ..FieldRequest::default()
        };
        // Every value is the fill: the axes are what is asked of here.
        let f = read_field(&source, &dims, &request).unwrap();
        assert_eq!((f.width, f.height), (2, 4));
        let x = f.x.coord.expect("x labelled");
        assert_eq!((x.name.as_str(), x.values), ("x", vec![2.0, 7.0]));
        assert_eq!(
            f.y.coord.expect("y labelled").values,
            vec![1.0, 2.0, 3.0, 4.0]
        );
        // Uncut, a dimension without a coordinate has none: indices from 0.
        let whole = read_field(&source, &[], &request).unwrap();
        assert!(whole.x.coord.is_none());
    }
}
