//! The picture in a terminal: 24-bit colour half blocks (two values a character:
//! the upper one the foreground of `▀`, the lower one its background), with a one-line
//! colour scale under it; or, where the terminal says it speaks it, the kitty graphics
//! protocol (the PNG itself, base64 in `ESC _G` chunks).

use std::fmt::Write as _;

/// Text of half blocks for `width` x `height` RGBA pixels (alpha 0 drawn as the
/// terminal's own background): `height.div_ceil(2)` lines of `width` characters.
pub fn half_blocks(rgba: &[u8], width: usize, height: usize) -> String {
    let mut out = String::new();
    let px = |x: usize, y: usize| -> Option<[u8; 3]> {
        let i = (y * width + x) * 4;
        (y < height && rgba[i + 3] != 0).then(|| [rgba[i], rgba[i + 1], rgba[i + 2]])
    };
    for row in (0..height).step_by(2) {
        for col in 0..width {
            match (px(col, row), px(col, row + 1)) {
                (Some(u), Some(l)) => {
                    let _ = write!(
                        out,
                        "\x1b[38;2;{};{};{};48;2;{};{};{}m\u{2580}",
                        u[0], u[1], u[2], l[0], l[1], l[2]
                    );
                }
                (Some(u), None) => {
                    let _ = write!(out, "\x1b[49;38;2;{};{};{}m\u{2580}", u[0], u[1], u[2]);
                }
                (None, Some(l)) => {
                    let _ = write!(out, "\x1b[49;38;2;{};{};{}m\u{2584}", l[0], l[1], l[2]);
                }
                (None, None) => out.push_str("\x1b[0m "),
            }
        }
        out.push_str("\x1b[0m\n");
    }
    out
}

/// Block means of RGBA pixels down to at most `max_w` across (and the same factor
/// down), transparent where every pixel of a block is; returns the pixels and their
/// size.
pub fn shrink(rgba: &[u8], width: usize, height: usize, max_w: usize) -> (Vec<u8>, usize, usize) {
    let b = width.div_ceil(max_w.max(1)).max(1);
    if b == 1 {
        return (rgba.to_vec(), width, height);
    }
    let (w, h) = (width.div_ceil(b), height.div_ceil(b));
    let mut out = vec![0u8; w * h * 4];
    for oy in 0..h {
        for ox in 0..w {
            let (mut sum, mut n) = ([0u32; 3], 0u32);
            for y in oy * b..((oy + 1) * b).min(height) {
                for x in ox * b..((ox + 1) * b).min(width) {
                    let i = (y * width + x) * 4;
                    if rgba[i + 3] != 0 {
                        for c in 0..3 {
                            sum[c] += u32::from(rgba[i + c]);
                        }
                        n += 1;
                    }
                }
            }
            if let Some(half) = n.checked_div(2).filter(|_| n > 0) {
                let o = (oy * w + ox) * 4;
                for (p, s) in out[o..o + 3].iter_mut().zip(sum) {
                    *p = ((s + half) / n) as u8;
                }
                out[o + 3] = 255;
            }
        }
    }
    (out, w, h)
}

/// Pixels enlarged by a whole factor (nearest neighbour) to fill up to `max_w` across
/// and `max_h` down: a small field on a wide terminal is not a few characters.
pub fn enlarge(
    rgba: &[u8],
    width: usize,
    height: usize,
    max_w: usize,
    max_h: usize,
) -> (Vec<u8>, usize, usize) {
    let k = (max_w / width.max(1)).min(max_h / height.max(1)).max(1);
    if k == 1 {
        return (rgba.to_vec(), width, height);
    }
    let (w, h) = (width * k, height * k);
    let mut out = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        for x in 0..w {
            let i = ((y / k) * width + x / k) * 4;
            out.extend_from_slice(&rgba[i..i + 4]);
        }
    }
    (out, w, h)
}

/// One line: `min` label, `width` characters of the colour scale, `max` label.
pub fn scale_line(colours: &[[u8; 3]], min: &str, max: &str) -> String {
    let mut out = format!("{min} ");
    for c in colours {
        let _ = write!(out, "\x1b[48;2;{};{};{}m ", c[0], c[1], c[2]);
    }
    let _ = write!(out, "\x1b[0m {max}");
    out
}

/// The kitty graphics protocol's escape sequences sending `png` to be shown at the
/// cursor, in chunks of 4096 base64 characters as the protocol requires.
pub fn kitty(png: &[u8]) -> String {
    let data = base64(png);
    let chunks: Vec<&[u8]> = data.as_bytes().chunks(4096).collect();
    let mut out = String::new();
    for (i, c) in chunks.iter().enumerate() {
        let more = u8::from(i + 1 < chunks.len());
        let text = std::str::from_utf8(c).unwrap_or_default();
        if i == 0 {
            let _ = write!(out, "\x1b_Ga=T,f=100,m={more};{text}\x1b\\");
        } else {
            let _ = write!(out, "\x1b_Gm={more};{text}\x1b\\");
        }
    }
    out.push('\n');
    out
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(char::from(A[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Whether the environment says the terminal shows kitty's graphics (kitty, WezTerm,
/// Ghostty), or `NCZVIEW_TERM` chooses (`kitty` or `blocks`).
pub fn speaks_kitty(var: impl Fn(&str) -> Option<String>) -> bool {
    if let Some(choice) = var("NCZVIEW_TERM") {
        return choice == "kitty";
    }
    var("KITTY_WINDOW_ID").is_some()
        || var("TERM").is_some_and(|t| t.contains("kitty") || t.contains("ghostty"))
        || var("TERM_PROGRAM").is_some_and(|t| t == "WezTerm" || t == "ghostty")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_values_a_character() {
        let px = [1, 2, 3, 255, 0, 0, 0, 0, 4, 5, 6, 255, 7, 8, 9, 255];
        let s = half_blocks(&px, 2, 2);
        assert_eq!(s.lines().count(), 1);
        assert!(s.contains("\x1b[38;2;1;2;3;48;2;4;5;6m\u{2580}"));
        assert!(s.contains("\x1b[49;38;2;7;8;9m\u{2584}"));
        let odd = half_blocks(&px[..8], 2, 1);
        assert!(odd.contains("\x1b[49;38;2;1;2;3m\u{2580}"));
    }

    #[test]
    fn shrink_averages_opaque_pixels() {
        let px = [0, 0, 0, 255, 10, 20, 30, 255, 0, 0, 0, 0, 0, 0, 0, 0];
        let (out, w, h) = shrink(&px, 2, 2, 1);
        assert_eq!((w, h), (1, 1));
        assert_eq!(out, vec![5, 10, 15, 255]);
    }

    #[test]
    fn enlarge_by_whole_factors() {
        let px = [1, 1, 1, 255, 2, 2, 2, 255];
        let (out, w, h) = enlarge(&px, 2, 1, 7, 10);
        assert_eq!((w, h), (6, 3));
        assert_eq!(&out[8..12], &[1, 1, 1, 255]);
        assert_eq!(&out[12..16], &[2, 2, 2, 255]);
        assert_eq!(enlarge(&px, 2, 1, 3, 10).1, 2);
    }

    #[test]
    fn base64_and_kitty_chunks() {
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"M"), "TQ==");
        let k = kitty(&vec![0u8; 4000]);
        assert!(k.starts_with("\x1b_Ga=T,f=100,m=1;"));
        assert!(k.contains("\x1b_Gm=0;"));
        assert!(speaks_kitty(
            |k| (k == "TERM").then(|| "xterm-kitty".to_string())
        ));
        assert!(!speaks_kitty(
            |k| (k == "TERM").then(|| "xterm-256color".to_string())
        ));
    }
}
