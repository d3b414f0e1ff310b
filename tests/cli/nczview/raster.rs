//! `--raster`: one pixel per cell, every colour mapping back to its cell's value within
//! one step of the colour map, masked cells transparent, north up whatever the order.

use nczarr::view::Colormap;

use super::{field, px, raster};
use crate::util::{run, s};

/// sst at time 0 as field.cdl stores it, rows south to north; NaN where masked
/// (-999 is the fill, 99 is outside valid_range).
const SST: [[f64; 5]; 4] = [
    [1.0, 2.0, 3.0, 4.0, 5.0],
    [6.0, f64::NAN, 8.0, 9.0, 10.0],
    [11.0, 12.0, f64::NAN, 14.0, 15.0],
    [16.0, 17.0, 18.0, 19.0, 20.0],
];

/// The table entry of `map` holding `rgb` (the maps' 256 colours are distinct).
fn entry_of(map: &Colormap, rgb: [u8; 3]) -> Option<usize> {
    (0..256).find(|&i| map.entry(i) == rgb)
}

#[test]
fn every_cell_maps_back_to_its_value_north_up() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc4");
    let (w, h, rgba) = raster(&s(&nc), "sst", &[]);
    assert_eq!((w, h), (5, 4));
    let viridis = Colormap::by_name("viridis").unwrap();
    let (min, max) = (1.0, 20.0);
    for (row, values) in SST.iter().enumerate() {
        // Latitude increases with the index: the last row is the top.
        let y = h - 1 - row;
        for (x, &v) in values.iter().enumerate() {
            let p = px(&rgba, w, x, y);
            if v.is_nan() {
                assert_eq!(
                    p[3], 0,
                    "masked cell ({x}, {row}) is not transparent: {p:?}"
                );
                continue;
            }
            assert_eq!(p[3], 255);
            let i = entry_of(&viridis, [p[0], p[1], p[2]])
                .unwrap_or_else(|| panic!("({x}, {row}): {p:?} is no viridis colour"));
            let back = min + (i as f64 + 0.5) / 256.0 * (max - min);
            assert!(
                (back - v).abs() <= (max - min) / 256.0,
                "({x}, {row}): colour {i} reads {back}, the value is {v}"
            );
        }
    }
}

/// sst at time 0 alone, its rows stored south to north or north to south.
fn sst_alone(north_first: bool) -> String {
    let mut rows: Vec<String> = SST
        .iter()
        .map(|r| {
            r.iter()
                .map(|x| {
                    if x.is_nan() {
                        "_".to_string()
                    } else {
                        x.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let mut lat = ["-45", "-15", "15", "45"];
    if north_first {
        rows.reverse();
        lat.reverse();
    }
    format!(
        "netcdf f {{\ndimensions:\n lat = 4 ;\n lon = 5 ;\nvariables:\n float lat(lat) ;\n  lat:units = \"degrees_north\" ;\n float lon(lon) ;\n float sst(lat, lon) ;\n  sst:_FillValue = -999.f ;\ndata:\n lat = {} ;\n lon = 0, 72, 144, 216, 288 ;\n sst = {} ;\n}}\n",
        lat.join(", "),
        rows.join(",\n  ")
    )
}

#[test]
fn decreasing_latitude_draws_the_same_picture() {
    let dir = tempfile::tempdir().unwrap();
    let mut pictures = Vec::new();
    for north_first in [false, true] {
        let cdl = dir.path().join(format!("{north_first}.cdl"));
        std::fs::write(&cdl, sst_alone(north_first)).unwrap();
        let nc = dir.path().join(format!("{north_first}.nc"));
        run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
        pictures.push(raster(&s(&nc), "sst", &[]));
    }
    assert_eq!(pictures[0], pictures[1]);
    // And the same as the full file's first step.
    let full = field(dir.path(), "nc4");
    assert_eq!(pictures[0], raster(&s(&full), "sst", &[]));
}

#[test]
fn packed_values_unpacked_and_missing_value_masked() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc3");
    let (w, h, rgba) = raster(&s(&nc), "packed", &["--cmap", "gray"]);
    assert_eq!((w, h), (5, 4));
    // packed = 0..1900 by 100 (one -1, missing): 10 to 29 once unpacked; gray's entry
    // i is (i, i, i), so the entry is the value's place on the scale.
    let gray = Colormap::by_name("gray").unwrap();
    for k in 0..20 {
        let (x, row) = (k % 5, k / 5);
        let p = px(&rgba, w, x, h - 1 - row);
        if k == 6 {
            assert_eq!(p[3], 0, "missing_value not masked");
            continue;
        }
        let v = 10.0 + k as f64;
        let t = (v - 10.0) / 19.0;
        let i = ((t * 256.0) as usize).min(255);
        assert_eq!([p[0], p[1], p[2]], gray.entry(i), "cell {k}");
    }
}

#[test]
fn diverging_default_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc4");
    // anom straddles 0: RdBu_r centred on 0, so 0 is the middle entry.
    let (w, h, rgba) = raster(&s(&nc), "anom", &[]);
    let rdbu = Colormap::by_name("RdBu_r").unwrap();
    let zero = px(&rgba, w, 3, h - 1);
    assert_eq!([zero[0], zero[1], zero[2]], rdbu.entry(128));
    // --range clips: everything at or above 1 is the last colour.
    let (w, _, clipped) = raster(&s(&nc), "anom", &["--range", "-1,1", "--cmap", "viridis"]);
    let last = Colormap::by_name("viridis").unwrap().entry(255);
    assert_eq!(&px(&clipped, w, 4, h - 2)[..3], &last);
    // --log masks values <= 0.
    let (w, h, log) = raster(&s(&nc), "anom", &["--log"]);
    assert_eq!(px(&log, w, 0, h - 1)[3], 0);
    assert_eq!(px(&log, w, 4, h - 1)[3], 255);
}

#[test]
fn axes_chosen_and_indices_cut() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc4");
    let (w, h, plain) = raster(&s(&nc), "sst", &[]);
    // --x lat --y lon: the transposed picture, lon increasing upwards.
    let (tw, th, t) = raster(&s(&nc), "sst", &["--x", "lat", "--y", "lon"]);
    assert_eq!((tw, th), (h, w));
    for y in 0..h {
        for x in 0..w {
            assert_eq!(px(&plain, w, x, y), px(&t, tw, h - 1 - y, th - 1 - x));
        }
    }
    // --dim time,1: the second step (values 21..40, none masked).
    let (w, h, second) = raster(&s(&nc), "sst", &["--dim", "time,1"]);
    assert!((0..w * h).all(|i| second[i * 4 + 3] == 255));
    // A date picks the same step.
    assert_eq!(
        raster(&s(&nc), "sst", &["--dim", "time,2001-02-01"]),
        (w, h, second)
    );
    // A longitude range across the seam wraps as ncks: 216 and 288, then 0 and 72.
    let (ww, _, wrapped) = raster(&s(&nc), "sst", &["--dim", "lon,200.,80."]);
    assert_eq!(ww, 4);
    let cols = [3usize, 4, 0, 1];
    for (x, &c) in cols.iter().enumerate() {
        // The bottom row (south) holds no masked cell.
        assert_eq!(px(&wrapped, ww, x, h - 1), px(&plain, w, c, h - 1));
    }
}

#[test]
fn infinite_and_constant_fields_and_the_default_variable() {
    let dir = tempfile::tempdir().unwrap();
    let cdl = dir.path().join("odd.cdl");
    std::fs::write(
        &cdl,
        "netcdf odd {\ndimensions:\n time = 1 ;\n bnds = 2 ;\n y = 2 ;\n x = 3 ;\nvariables:\n double time(time) ;\n  time:bounds = \"time_bnds\" ;\n double time_bnds(time, bnds) ;\n float c(time, y, x) ;\n double inf(time, y, x) ;\ndata:\n time = 0 ;\n time_bnds = 0, 1 ;\n c = 3.5, 3.5, 3.5, 3.5, 3.5, 3.5 ;\n inf = 1, 2, Infinity, 4, 5, -Infinity ;\n}\n",
    )
    .unwrap();
    let nc = dir.path().join("odd.nc");
    run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    // Without -v: the data, not the time bounds (2-D, numeric, written first).
    let t = run("nczview", &[&s(&nc), "--width", "12"]);
    assert_eq!(t.success().stdout().lines().next(), Some("c"));
    let viridis = Colormap::by_name("viridis").unwrap();
    // A constant field: the middle colour, as xarray's widened limits give it.
    let (w, h, c) = raster(&s(&nc), "c", &[]);
    for i in 0..w * h {
        assert_eq!(&c[i * 4..i * 4 + 3], &viridis.entry(128), "cell {i}");
    }
    // Infinities take the end colours; the limits are the finite values' (1 to 5).
    let (w, _, inf) = raster(&s(&nc), "inf", &[]);
    // Rows are drawn north up: y increases with the index, so the first stored row is
    // the bottom one.
    let at = |x: usize, row: usize| px(&inf, w, x, 1 - row);
    assert_eq!(&at(0, 0)[..3], &viridis.entry(0));
    assert_eq!(&at(2, 0)[..3], &viridis.entry(255), "+inf");
    assert_eq!(&at(1, 1)[..3], &viridis.entry(255), "5");
    assert_eq!(&at(2, 1)[..3], &viridis.entry(0), "-inf");
}
