//! A small RGBA canvas: rectangles, a raster scaled into a rectangle, and text in
//! DejaVu Sans (a subset bundled in `assets/`, drawn by `ab_glyph`), enough for a
//! plot's axes, colour bar and title without a system font or library.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};

/// The bundled font: DejaVu Sans, Latin, Greek and a few symbols (assets/LICENSE_DEJAVU).
static FONT_BYTES: &[u8] = include_bytes!("../../assets/DejaVuSans-subset.ttf");

/// Where masked cells are drawn in a decorated picture: a hatch of two greys, a pattern
/// no colour map has.
const HATCH: ([u8; 3], [u8; 3]) = ([150, 150, 150], [228, 228, 228]);

/// An opaque RGB picture being drawn (stored RGBA, alpha 255).
pub struct Canvas {
    /// Pixels across.
    pub width: usize,
    /// Pixels down.
    pub height: usize,
    pixels: Vec<u8>,
    font: Option<FontRef<'static>>,
}

impl Canvas {
    /// A white canvas.
    pub fn new(width: usize, height: usize) -> Canvas {
        Canvas {
            width,
            height,
            pixels: vec![255; width * height * 4],
            // The bundled font is ours and known good; a canvas without it draws no text.
            font: FontRef::try_from_slice(FONT_BYTES).ok(),
        }
    }

    /// The pixels, RGBA.
    pub fn into_rgba(self) -> Vec<u8> {
        self.pixels
    }

    /// Set one pixel (outside the canvas: nothing).
    pub fn put(&mut self, x: i64, y: i64, rgb: [u8; 3]) {
        self.blend(x, y, rgb, 1.0);
    }

    fn blend(&mut self, x: i64, y: i64, rgb: [u8; 3], coverage: f32) {
        if x < 0 || y < 0 || x as usize >= self.width || y as usize >= self.height {
            return;
        }
        let i = (y as usize * self.width + x as usize) * 4;
        let a = coverage.clamp(0.0, 1.0);
        for (p, &new) in self.pixels[i..i + 3].iter_mut().zip(&rgb) {
            let old = f32::from(*p);
            *p = (old + (f32::from(new) - old) * a).round() as u8;
        }
    }

    /// Fill the rectangle at (`x`, `y`) of `w` x `h` pixels.
    pub fn fill(&mut self, x: i64, y: i64, w: i64, h: i64, rgb: [u8; 3]) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.put(xx, yy, rgb);
            }
        }
    }

    /// `rgba` (`sw` x `sh`) scaled into the rectangle at (`x`, `y`) of `w` x `h`
    /// pixels, nearest neighbour; transparent pixels drawn as the masked hatch.
    #[allow(clippy::too_many_arguments)]
    pub fn raster(
        &mut self,
        rgba: &[u8],
        sw: usize,
        sh: usize,
        x: i64,
        y: i64,
        w: usize,
        h: usize,
    ) {
        for dy in 0..h {
            let sy = (dy * sh / h.max(1)).min(sh.saturating_sub(1));
            for dx in 0..w {
                let sx = (dx * sw / w.max(1)).min(sw.saturating_sub(1));
                let i = (sy * sw + sx) * 4;
                let (px, py) = (x + dx as i64, y + dy as i64);
                let rgb = if rgba[i + 3] == 0 {
                    if (px + py).rem_euclid(6) < 2 {
                        HATCH.0
                    } else {
                        HATCH.1
                    }
                } else {
                    [rgba[i], rgba[i + 1], rgba[i + 2]]
                };
                self.put(px, py, rgb);
            }
        }
    }

    /// The width of `text` at `size` pixels.
    pub fn text_width(&self, text: &str, size: f32) -> f32 {
        let Some(font) = &self.font else { return 0.0 };
        let scaled = font.as_scaled(PxScale::from(size));
        let mut w = 0.0;
        let mut last = None;
        for ch in text.chars() {
            let id = scaled.glyph_id(ch);
            if let Some(prev) = last {
                w += scaled.kern(prev, id);
            }
            w += scaled.h_advance(id);
            last = Some(id);
        }
        w
    }

    /// Draw `text` with its left end at `x` and its baseline at `y`, `size` pixels high.
    pub fn text(&mut self, x: f32, y: f32, size: f32, text: &str, rgb: [u8; 3]) {
        for (px, py, c) in self.glyph_coverage(x, y, size, text) {
            self.blend(px, py, rgb, c);
        }
    }

    /// `text` drawn upwards (turned a quarter left), centred on `cy`, its baseline at
    /// `x`.
    pub fn text_up(&mut self, x: f32, cy: f32, size: f32, text: &str, rgb: [u8; 3]) {
        let w = self.text_width(text, size);
        // Laid out horizontally from (0, 0), then (u, v) -> (x + v, cy + w/2 - u).
        for (u, v, c) in self.glyph_coverage(0.0, 0.0, size, text) {
            let px = x as i64 + v;
            let py = (cy + w / 2.0) as i64 - u;
            self.blend(px, py, rgb, c);
        }
    }

    fn glyph_coverage(&self, x: f32, y: f32, size: f32, text: &str) -> Vec<(i64, i64, f32)> {
        let mut out = Vec::new();
        let Some(font) = &self.font else { return out };
        let scale = PxScale::from(size);
        let scaled = font.as_scaled(scale);
        let mut caret = x;
        let mut last = None;
        for ch in text.chars() {
            let id = scaled.glyph_id(ch);
            if let Some(prev) = last {
                caret += scaled.kern(prev, id);
            }
            let glyph = id.with_scale_and_position(scale, ab_glyph::point(caret, y));
            caret += scaled.h_advance(id);
            last = Some(id);
            if let Some(outline) = font.outline_glyph(glyph) {
                let b = outline.px_bounds();
                outline.draw(|gx, gy, c| {
                    out.push((
                        b.min.x as i64 + i64::from(gx),
                        b.min.y as i64 + i64::from(gy),
                        c,
                    ));
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_drawn_and_measured() {
        let mut c = Canvas::new(60, 20);
        assert!(c.text_width("Temp", 12.0) > 20.0);
        c.text(2.0, 15.0, 12.0, "Temp", [0, 0, 0]);
        let px = c.into_rgba();
        assert!(px.chunks(4).any(|p| p[0] < 100), "no dark pixel drawn");
    }

    #[test]
    fn raster_scales_and_hatches_masked() {
        let mut c = Canvas::new(4, 2);
        let src = [10, 20, 30, 255, 0, 0, 0, 0];
        c.raster(&src, 2, 1, 0, 0, 4, 2);
        let px = c.into_rgba();
        assert_eq!(&px[0..3], &[10, 20, 30]);
        assert_eq!(&px[4..7], &[10, 20, 30]);
        assert!(px[8] == HATCH.0[0] || px[8] == HATCH.1[0]);
    }
}
