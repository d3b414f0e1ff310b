//! nczview (issue 66): `--raster` pixels against the data (north up, masked cells
//! transparent, colours matplotlib's), the decorated picture, the terminal, every input
//! kind giving the same pixels, and refusals.

mod kinds;
mod matplotlib;
mod picture;
mod raster;
mod refusals;

use std::path::{Path, PathBuf};

use crate::util::{data_dir, run, s};

/// `field.cdl` (tests/cli/data/nczview) written by nczgen as `kind` into `dir`.
pub(super) fn field(dir: &Path, kind: &str) -> PathBuf {
    let ext = match kind {
        "nc3" | "nc4" | "nc7" => "nc",
        "zip" => "zip",
        _ => "zarr",
    };
    let out = dir.join(format!("field-{kind}.{ext}"));
    let cdl = data_dir().join("nczview/field.cdl");
    let k = if kind == "zip" { "nczarr" } else { kind };
    run("nczgen", &["-k", k, "-o", &s(&out), &s(&cdl)]).success();
    out
}

/// A PNG's size and RGBA pixels.
pub(super) fn decode(png: &[u8]) -> (usize, usize, Vec<u8>) {
    let dec = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = dec.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width as usize, info.height as usize, buf)
}

/// nczview's `--raster` PNG of `var` in `input` with `extra` options, decoded.
pub(super) fn raster(input: &str, var: &str, extra: &[&str]) -> (usize, usize, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.png");
    let mut args = vec![input, "-v", var, "--raster", "-o"];
    let o = s(&out);
    args.push(&o);
    args.extend_from_slice(extra);
    run("nczview", &args).success();
    decode(&std::fs::read(&out).unwrap())
}

/// The pixel at (`x`, `y`).
pub(super) fn px(rgba: &[u8], width: usize, x: usize, y: usize) -> [u8; 4] {
    let i = (y * width + x) * 4;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}
