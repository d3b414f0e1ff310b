//! The decorated picture (`-o`) and the terminal (`--term`).

use nczarr::view::picture::{plot_size, MARGINS};

use super::{decode, field, px, raster};
use crate::util::{run, s};

#[test]
fn the_picture_holds_the_raster_in_its_plot_area() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nczarr");
    let out = dir.path().join("sst.png");
    run("nczview", &[&s(&nc), "-v", "sst", "-o", &s(&out)]).success();
    let (w, h, pic) = decode(&std::fs::read(&out).unwrap());
    let (rw, rh, cells) = raster(&s(&nc), "sst", &[]);
    let (pw, ph) = plot_size(rw, rh);
    assert_eq!(
        (w, h),
        (
            MARGINS.left + pw + MARGINS.right,
            MARGINS.top + ph + MARGINS.bottom
        )
    );
    // The centre of every cell in the plot area is the raster's colour; a masked cell is
    // the hatch (grey, never a colour of the map).
    for y in 0..rh {
        for x in 0..rw {
            let cx = MARGINS.left + (2 * x + 1) * pw / (2 * rw);
            let cy = MARGINS.top + (2 * y + 1) * ph / (2 * rh);
            let got = px(&pic, w, cx, cy);
            let want = px(&cells, rw, x, y);
            if want[3] == 0 {
                assert!(
                    got[0] == got[1] && got[1] == got[2],
                    "({x}, {y}) not grey: {got:?}"
                );
            } else {
                assert_eq!(got, want, "cell ({x}, {y})");
            }
        }
    }
    // Opaque everywhere; text drawn in the title's band.
    assert!(pic.chunks(4).all(|p| p[3] == 255));
    assert!((0..MARGINS.top - 10).any(|y| (0..w).any(|x| px(&pic, w, x, y)[0] < 128)));
    // What is drawn is said in the PNG's text chunks.
    let bytes = std::fs::read(&out).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("sea surface temperature (degC); sst, time=0 (2001-01-01"),
        "no title"
    );
    assert!(
        text.contains("viridis colour map, linear 1 to 20"),
        "no scale"
    );
}

#[test]
fn large_slices_are_averaged_in_blocks_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let cdl = dir.path().join("big.cdl");
    // 1000 x 2000 values, each its row's index.
    std::fs::write(
        &cdl,
        "netcdf big {\ndimensions:\n y = 1000 ;\n x = 2000 ;\nvariables:\n float v(y, x) ;\n}\n",
    )
    .unwrap();
    let nc = dir.path().join("big.nc");
    run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    let py = crate::util::python_with("netCDF4, numpy");
    let Some(py) = py else {
        eprintln!("skipped: no netCDF4 in NCZARR_PYTHON");
        return;
    };
    crate::util::python_succeeds(
        &py,
        "import sys, netCDF4, numpy\nd = netCDF4.Dataset(sys.argv[1], 'a')\nd['v'][:] = numpy.add.outer(numpy.arange(1000), numpy.zeros(2000)).astype('f4')\nd.close()",
        &[&s(&nc)],
        "fill v",
    );
    let (w, h, _) = raster(&s(&nc), "v", &[]);
    assert_eq!((w, h), (2000, 1000), "--raster keeps every cell");
    let out = dir.path().join("big.png");
    run("nczview", &[&s(&nc), "-v", "v", "-o", &s(&out)]).success();
    let bytes = std::fs::read(&out).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    // 2000 across at most 720: blocks of 3; 1000 down at most 480: blocks of 3.
    assert!(
        text.contains("means of 3x3 cells"),
        "the reduction is not said"
    );
    // In the terminal: 40 columns (blocks of 50 across and down, 20 values down, 10
    // lines), each line 40 characters.
    let t = crate::util::run_clean(
        "nczview",
        dir.path(),
        &[&s(&nc), "-v", "v", "--width", "40"],
        &[],
    );
    t.success();
    let lines: Vec<String> = t.stdout().lines().map(str::to_string).collect();
    let blocks: Vec<&String> = lines.iter().filter(|l| l.contains('\u{2580}')).collect();
    assert!(!blocks.is_empty());
    for l in &blocks {
        assert_eq!(l.matches('\u{2580}').count(), 40, "{l:?}");
    }
    // One factor across and down: cells stay square.
    assert!(lines[1].contains("means of 50x50 cells"), "{}", lines[1]);
}

#[test]
fn terminal_half_blocks_fit_the_columns_and_carry_the_colours() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc4");
    let (rw, rh, cells) = raster(&s(&nc), "sst", &[]);
    let t = crate::util::run_clean(
        "nczview",
        dir.path(),
        &[&s(&nc), "-v", "sst"],
        &[("COLUMNS", "20".to_string())],
    );
    t.success();
    let out = t.stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "sea surface temperature (degC)");
    assert!(
        lines[1].starts_with("sst, time=0 (2001-01-01"),
        "{}",
        lines[1]
    );
    // 5 cells enlarged 4 times: 20 columns; 4 rows x 4 = 16 values = 8 lines.
    let picture: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains('\u{2580}') || l.contains('\u{2584}'))
        .collect();
    assert_eq!(picture.len(), 8, "{out}");
    for l in &picture {
        let chars =
            l.matches('\u{2580}').count() + l.matches('\u{2584}').count() + l.matches("m ").count();
        assert_eq!(chars, 20, "{l:?}");
    }
    // The first character's upper half is the top-left cell's colour.
    let p = px(&cells, rw, 0, 0);
    let fg = format!("\x1b[38;2;{};{};{};48;2;", p[0], p[1], p[2]);
    assert!(picture[0].starts_with(&fg), "{:?} vs {fg:?}", picture[0]);
    // The bottom-left is the south-west cell.
    let q = px(&cells, rw, 0, rh - 1);
    let bg = format!("48;2;{};{};{}m\u{2580}", q[0], q[1], q[2]);
    assert!(picture[7].contains(&bg));
    // The scale line under it: the limits at both ends.
    let scale = lines
        .iter()
        .find(|l| l.starts_with("1 \x1b[48;2;"))
        .expect("a scale line");
    assert!(scale.ends_with(" 20"), "{scale:?}");
}
