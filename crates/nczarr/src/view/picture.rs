//! The decorated picture: the field in a plot area (north up, masked cells hatched),
//! axes with ticks at nice steps labelled with the coordinates' values, axis labels
//! `name (units)`, a colour bar with the variable's units, and a title with the
//! variable's `long_name`, the fixed indices and their dates, and the block means.

use super::canvas::Canvas;
use super::colormap::Colormap;
use super::field::{Axis, Field};
use super::norm::Norm;
use super::ticks::{degree_ticks, label, nice_ticks};

const INK: [u8; 3] = [0, 0, 0];
const TITLE: f32 = 15.0;
const SMALL: f32 = 12.0;
const TICK: i64 = 4;
/// The plot area at most (pixels across and down).
pub const PLOT_MAX: (usize, usize) = (720, 480);
/// The plot area at least along each side (pixels).
pub const PLOT_MIN: usize = 160;
const BAR_WIDTH: i64 = 18;
/// Margins around the plot area: tick labels and the axis label left, the title
/// above, the colour bar and its labels right, tick labels and the label below.
pub const MARGINS: Margins = Margins {
    left: 86,
    top: 58,
    right: 130,
    bottom: 58,
};

/// Pixels around the plot area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Margins {
    /// Left of the plot.
    pub left: usize,
    /// Above.
    pub top: usize,
    /// Right.
    pub right: usize,
    /// Below.
    pub bottom: usize,
}

/// Where the plot area is in the picture (for tests: the raster is drawn there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlotArea {
    /// Left edge.
    pub x: usize,
    /// Top edge.
    pub y: usize,
    /// Width.
    pub width: usize,
    /// Height.
    pub height: usize,
}

/// A drawn picture: RGBA pixels, its size, and where the plot area is.
pub struct Picture {
    /// Pixels, RGBA, opaque.
    pub rgba: Vec<u8>,
    /// Width.
    pub width: usize,
    /// Height.
    pub height: usize,
    /// The plot area.
    pub plot: PlotArea,
}

/// The size of the plot area for a field of `w` x `h` values: square cells, at most
/// [`PLOT_MAX`], small fields scaled up by a whole factor, no side under [`PLOT_MIN`].
pub fn plot_size(w: usize, h: usize) -> (usize, usize) {
    let s = (PLOT_MAX.0 as f64 / w as f64).min(PLOT_MAX.1 as f64 / h as f64);
    let s = if s >= 1.0 { s.floor() } else { s };
    let pw = ((w as f64 * s).round() as usize).clamp(PLOT_MIN, PLOT_MAX.0);
    let ph = ((h as f64 * s).round() as usize).clamp(PLOT_MIN, PLOT_MAX.1);
    (pw, ph)
}

/// The title's two lines: what is drawn, and where in the dataset.
pub fn title_lines(field: &Field) -> (String, String) {
    let mut first = field
        .long_name
        .clone()
        .unwrap_or_else(|| field.var.name.clone());
    if let Some(u) = &field.units {
        first.push_str(&format!(" ({u})"));
    }
    let mut parts = vec![field.var.to_string().trim_start_matches('/').to_string()];
    for f in &field.fixed {
        let mut p = format!("{}={}", f.dim, f.index);
        if let Some(l) = &f.label {
            p.push_str(&format!(" ({l})"));
        }
        parts.push(p);
    }
    let mut second = parts.join(", ");
    if field.block != (1, 1) {
        second.push_str(&format!(
            "; means of {}x{} cells",
            field.block.0, field.block.1
        ));
    }
    (first, second)
}

/// Draw `field` (already coloured as `raster`, `field.width` x `field.height` RGBA).
pub fn draw(field: &Field, raster: &[u8], norm: &Norm, cmap: &Colormap) -> Picture {
    let (pw, ph) = plot_size(field.width, field.height);
    let (left, top) = (MARGINS.left, MARGINS.top);
    let (width, height) = (left + pw + MARGINS.right, top + ph + MARGINS.bottom);
    let mut c = Canvas::new(width, height);
    let (first, second) = title_lines(field);
    let centre = (left + pw / 2) as f32;
    let tw = c.text_width(&first, TITLE);
    c.text((centre - tw / 2.0).max(4.0), 22.0, TITLE, &first, INK);
    let sw = c.text_width(&second, SMALL);
    c.text((centre - sw / 2.0).max(4.0), 42.0, SMALL, &second, INK);

    let (x0, y0) = (left as i64, top as i64);
    c.raster(raster, field.width, field.height, x0, y0, pw, ph);
    frame(&mut c, x0, y0, pw as i64, ph as i64);

    // The horizontal axis: ticks under the plot, the label under them.
    // A label that would run into the one before it is left out (its tick stays).
    let mut free_from = f32::NEG_INFINITY;
    for (pos, text) in axis_ticks(&field.x, pw) {
        let px = x0 + pos as i64;
        c.fill(px, y0 + ph as i64, 1, TICK, INK);
        let w = c.text_width(&text, SMALL);
        if px as f32 - w / 2.0 < free_from {
            continue;
        }
        free_from = px as f32 + w / 2.0 + 8.0;
        c.text(
            px as f32 - w / 2.0,
            (y0 + ph as i64 + TICK) as f32 + 13.0,
            SMALL,
            &text,
            INK,
        );
    }
    let xl = axis_label(&field.x);
    let w = c.text_width(&xl, SMALL);
    c.text(centre - w / 2.0, (top + ph) as f32 + 40.0, SMALL, &xl, INK);

    // The vertical axis: ticks left of the plot (positions from the top, as drawn).
    let mut widest = 0f32;
    for (pos, text) in axis_ticks(&field.y, ph) {
        let py = y0 + pos as i64;
        c.fill(x0 - TICK, py, TICK, 1, INK);
        let w = c.text_width(&text, SMALL);
        widest = widest.max(w);
        c.text(
            (x0 - TICK - 3) as f32 - w,
            py as f32 + 4.0,
            SMALL,
            &text,
            INK,
        );
    }
    let yl = axis_label(&field.y);
    let label_x = ((x0 - TICK - 6) as f32 - widest - 4.0).max(14.0);
    c.text_up(label_x, (top + ph / 2) as f32, SMALL, &yl, INK);

    // The colour bar: bottom is the scale's start.
    let bx = x0 + pw as i64 + 22;
    for row in 0..ph {
        let t = (row as f64 + 0.5) / ph as f64;
        let rgb = cmap.rgb(t).unwrap_or([255, 255, 255]);
        c.fill(bx, y0 + ph as i64 - 1 - row as i64, BAR_WIDTH, 1, rgb);
    }
    frame(&mut c, bx, y0, BAR_WIDTH, ph as i64);
    let mut bar_widest = 0f32;
    for v in bar_ticks(norm) {
        let t = norm.apply(v);
        if !(0.0..=1.0).contains(&t) {
            continue;
        }
        let py = y0 + ph as i64 - 1 - (t * (ph - 1) as f64).round() as i64;
        c.fill(bx + BAR_WIDTH, py, TICK, 1, INK);
        let text = label(v);
        bar_widest = bar_widest.max(c.text_width(&text, SMALL));
        c.text(
            (bx + BAR_WIDTH + TICK + 3) as f32,
            py as f32 + 4.0,
            SMALL,
            &text,
            INK,
        );
    }
    if let Some(u) = &field.units {
        let lx = (bx + BAR_WIDTH + TICK + 8) as f32 + bar_widest + 12.0;
        c.text_up(lx, (top + ph / 2) as f32, SMALL, u, INK);
    }
    Picture {
        rgba: c.into_rgba(),
        width,
        height,
        plot: PlotArea {
            x: left,
            y: top,
            width: pw,
            height: ph,
        },
    }
}

fn frame(c: &mut Canvas, x: i64, y: i64, w: i64, h: i64) {
    c.fill(x - 1, y - 1, w + 2, 1, INK);
    c.fill(x - 1, y + h, w + 2, 1, INK);
    c.fill(x - 1, y, 1, h, INK);
    c.fill(x + w, y, 1, h, INK);
}

/// `name (units)` of an axis's coordinate, or the dimension's name.
fn axis_label(axis: &Axis) -> String {
    match &axis.coord {
        Some(c) => match (&c.units, &c.time) {
            (Some(u), None) => format!("{} ({u})", c.name),
            _ => c.name.clone(),
        },
        None => axis.dim.clone(),
    }
}

/// Ticks along an axis `pixels` long: (pixel from the left or top edge, label), at nice
/// coordinate values placed where they fall between cell centres, or at nice indices.
fn axis_ticks(axis: &Axis, pixels: usize) -> Vec<(f64, String)> {
    let n = axis.len as f64;
    let at = |index: f64| {
        let drawn = if axis.reversed {
            n - 1.0 - index
        } else {
            index
        };
        (drawn + 0.5) * pixels as f64 / n
    };
    let target = (pixels / 90).clamp(2, 8);
    match &axis.coord {
        Some(c) if c.values.iter().all(|v| v.is_finite()) && monotonic(&unwrapped(&c.values)) => {
            let values = unwrapped(&c.values);
            let c = &super::field::Coord {
                values,
                ..c.clone()
            };
            let (lo, hi) = (c.values[0], c.values[c.values.len() - 1]);
            let wrapped = c.values.last().is_some_and(|&v| v >= 360.0) && c.values[0] < 360.0;
            let mut values = if wrapped {
                degree_ticks(lo, hi, target)
            } else {
                nice_ticks(lo, hi, target)
            };
            if c.time.is_some() || c.values.iter().all(|v| v.fract() == 0.0) {
                // Whole time units where there are enough of them (half days read as
                // the same date twice), and whole numbers on an axis of indices.
                let whole: Vec<f64> = values
                    .iter()
                    .copied()
                    .filter(|v| v.fract() == 0.0)
                    .collect();
                if whole.len() >= 2 {
                    values = whole;
                }
            }
            let mut labels: Vec<(f64, String)> = values
                .into_iter()
                .filter_map(|v| {
                    let i = index_of(&c.values, v)?;
                    let text = match &c.time {
                        Some(t) => {
                            let mut s = String::new();
                            t.format(v, ' ', &mut s);
                            super::ticks::date_text(&s)
                        }
                        // An unwrapped longitude is labelled as stored.
                        None if v >= 360.0 && c.values[0] < 360.0 => label(v - 360.0),
                        None => label(v),
                    };
                    Some((at(i), text))
                })
                .collect();
            if labels
                .iter()
                .all(|(_, t)| t.ends_with(" 00:00:00") || !t.contains(' '))
            {
                for (_, t) in &mut labels {
                    if let Some(date) = t.strip_suffix(" 00:00:00") {
                        *t = date.to_string();
                    }
                }
            }
            labels.dedup_by(|a, b| a.1 == b.1);
            labels
        }
        _ => nice_ticks(0.0, n - 1.0, target)
            .into_iter()
            .filter(|i| i.fract() == 0.0)
            .map(|i| (at(i), label(i)))
            .collect(),
    }
}

/// A longitude range wrapped across the seam (`-d lon,200.,80.`: 216, 288, 0, 72)
/// made increasing (216, 288, 360, 432) for placing ticks; other values as they are.
fn unwrapped(v: &[f64]) -> Vec<f64> {
    let drops = v.windows(2).filter(|w| w[1] < w[0]).count();
    if drops != 1 || v.len() < 3 || v.windows(2).any(|w| w[1] < w[0] && w[0] - w[1] < 180.0) {
        return v.to_vec();
    }
    let mut out = Vec::with_capacity(v.len());
    let mut add = 0.0;
    for (i, &x) in v.iter().enumerate() {
        if i > 0 && x < v[i - 1] {
            add = 360.0;
        }
        out.push(x + add);
    }
    out
}

fn monotonic(v: &[f64]) -> bool {
    v.windows(2).all(|w| w[0] < w[1]) || v.windows(2).all(|w| w[0] > w[1])
}

/// The fractional index where a monotonic `values` takes `v` (linear between cells).
fn index_of(values: &[f64], v: f64) -> Option<f64> {
    if values.len() == 1 {
        return (values[0] == v).then_some(0.0);
    }
    let up = values[0] < values[values.len() - 1];
    let k = values.partition_point(|&x| if up { x < v } else { x > v });
    if k == 0 {
        return (values[0] == v).then_some(0.0);
    }
    if k == values.len() {
        return None;
    }
    let (a, b) = (values[k - 1], values[k]);
    Some((k - 1) as f64 + (v - a) / (b - a))
}

/// Colour bar ticks: powers of ten on a log scale (nice steps when fewer than two),
/// nice steps on a linear one.
fn bar_ticks(norm: &Norm) -> Vec<f64> {
    let (lo, hi) = norm.limits();
    if let Norm::Log { .. } = norm {
        let decades: Vec<f64> = (lo.log10().ceil() as i32..=hi.log10().floor() as i32)
            .map(|k| 10f64.powi(k))
            .collect();
        if decades.len() >= 2 {
            return decades;
        }
    }
    nice_ticks(lo, hi, 6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_of_monotonic_values() {
        assert_eq!(index_of(&[0.0, 10.0, 20.0], 15.0), Some(1.5));
        assert_eq!(index_of(&[20.0, 10.0, 0.0], 15.0), Some(0.5));
        assert_eq!(index_of(&[0.0, 10.0], 10.0), Some(1.0));
        assert_eq!(index_of(&[0.0, 10.0], 11.0), None);
    }

    #[test]
    fn wrapped_longitudes_unwrapped() {
        assert_eq!(
            unwrapped(&[216.0, 288.0, 0.0, 72.0]),
            [216.0, 288.0, 360.0, 432.0]
        );
        assert_eq!(unwrapped(&[3.0, 2.0, 1.0]), [3.0, 2.0, 1.0]);
        assert_eq!(unwrapped(&[0.0, 1.0]), [0.0, 1.0]);
    }

    #[test]
    fn plot_sizes() {
        assert_eq!(plot_size(360, 180), (720, 360));
        assert_eq!(plot_size(10, 5), (720, 360));
        assert_eq!(plot_size(3600, 1800), (720, 360));
        assert_eq!(plot_size(1000, 2), (720, PLOT_MIN));
    }
}
