//! Subsets (issue 42): `--dim` (nczdump's `-d`) by index, coordinate value, date,
//! stride, wrapped and multi-slab, printed and copied alike, equal to ncks, reading
//! only the chunks they touch; bad options refused in one line.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::{have, nczgen, run};

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A small dataset whose values say where they are: `v(t, x) = 10 t + x`, a time
/// coordinate in days from 2020-01-01 and a longitude of 0 to 315 degrees east.
const GRID: &str = "netcdf grid {\ndimensions:\n\tt = UNLIMITED ;\n\tx = 8 ;\n\tnv = 2 ;\n\
variables:\n\tdouble t(t) ;\n\t\tt:units = \"days since 2020-01-01\" ;\n\t\tt:bounds = \"t_bnds\" ;\n\
\tdouble t_bnds(t, nv) ;\n\tfloat x(x) ;\n\t\tx:units = \"degrees_east\" ;\n\tint v(t, x) ;\n\
\t\tv:_ChunkSizes = 1, 4 ;\n\tint other(nv) ;\n\
data:\n t = 0, 1, 2, 3, 4, 5 ;\n t_bnds = 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6 ;\n\
 x = 0, 45, 90, 135, 180, 225, 270, 315 ;\n\
 v = 0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27,\n\
 30, 31, 32, 33, 34, 35, 36, 37, 40, 41, 42, 43, 44, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57 ;\n\
 other = 7, 8 ;\n}\n";

fn grid(dir: &Path) -> std::path::PathBuf {
    let cdl = dir.join("grid.cdl");
    fs::write(&cdl, GRID).unwrap();
    let store = dir.join("grid.zarr");
    nczgen(&["-k", "nczarr", "-o", &s(&store), &s(&cdl)]).success();
    store
}

/// The data lines of nczdump's text of `v` (and the others named) in a subset.
fn data(store: &Path, dims: &[&str], vars: &str) -> String {
    let mut args: Vec<String> = Vec::new();
    for d in dims {
        args.push("-d".into());
        args.push((*d).into());
    }
    args.extend(["-v".into(), vars.into(), s(store)]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run("nczdump", &argv);
    r.success();
    let text = r.stdout();
    let body = text.split("data:\n").nth(1).unwrap_or_default();
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each form picks what NCO's `-d` picks, worked out by hand from `v = 10 t + x`.
#[test]
fn every_form_picks_the_indices_ncks_picks() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let cases: &[(&[&str], &str)] = &[
        // Indices: a range, one, negative, open ends, a stride.
        (&["t,1,2", "x,3,4"], "v = 13, 14, 23, 24 ; }"),
        (&["t,2", "x,0"], "v = 20 ; }"),
        (&["t,-1", "x,-2,"], "v = 56, 57 ; }"),
        (&["t,,1", "x,7"], "v = 7, 17 ; }"),
        (
            &["t,0,,2", "x,1,7,3"],
            "v = 1, 4, 7, 21, 24, 27, 41, 44, 47 ; }",
        ),
        // Coordinate values: a range, the nearest to one, beyond an end.
        (&["t,3", "x,40.,100."], "v = 31, 32 ; }"),
        (&["t,3", "x,100."], "v = 32 ; }"),
        (&["t,0", "x,1000."], "v = 7 ; }"),
        // Across the seam (MIN above MAX), with a stride over the kept indices.
        (&["t,0", "x,300.,50."], "v = 7, 0, 1 ; }"),
        (&["t,0", "x,200.,100.,2"], "v = 5, 7, 1 ; }"),
        // Dates on the time axis.
        (&["t,2020-01-02,2020-01-03T00", "x,0"], "v = 10, 20 ; }"),
        (&["t,2020-01-05 18:00", "x,0"], "v = 50 ; }"),
        // Multi-slabs: the union, ascending.
        (&["t,0", "x,6,7", "x,0,1"], "v = 0, 1, 6, 7 ; }"),
    ];
    for (dims, want) in cases {
        assert_eq!(&data(&store, dims, "v"), want, "--dim {dims:?}");
    }
    // The coordinate and the bounds are cut with their dimension; the rest is whole.
    assert_eq!(
        data(&store, &["t,4,5"], "t,t_bnds,other"),
        "t = 4, 5 ; t_bnds = 4, 5, 5, 6 ; other = 7, 8 ; }"
    );
    let r = run("nczdump", &["-h", "-d", "t,1,2", "-d", "x,0,2", &s(&store)]);
    r.success();
    let header = r.stdout();
    assert!(
        header.contains("t = UNLIMITED ; // (2 currently)"),
        "{header}"
    );
    assert!(header.contains("x = 3 ;"), "{header}");
}

/// `nczdump --dim` prints what nczdump prints of `nczcopy --dim`'s output, for Zarr,
/// NCZarr, netCDF-4 and Zarr v3 inputs and outputs.
#[test]
fn a_printed_subset_and_a_copied_one_are_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let nc = tmp.path().join("grid.nc");
    run("nczcopy", &[&s(&store), &s(&nc)]).success();
    let v3 = tmp.path().join("grid3.zarr");
    run("nczcopy", &["-k", "zarr3", &s(&store), &s(&v3)]).success();
    let sets: &[&[&str]] = &[
        &["t,1,4,2", "x,300.,50."],
        &["t,2020-01-02,2020-01-04", "x,-3,"],
        &["x,0,1", "x,5,6"],
    ];
    for (i, dims) in sets.iter().enumerate() {
        for (input, out) in [(&store, "z.zarr"), (&nc, "n.nc"), (&v3, "v3.zarr")] {
            let out = tmp.path().join(format!("{i}-{out}"));
            let mut copy: Vec<String> = Vec::new();
            let mut dump: Vec<String> = Vec::new();
            for d in *dims {
                copy.extend(["--dim".into(), (*d).into()]);
                dump.extend(["-d".into(), (*d).into()]);
            }
            copy.extend([s(input), s(&out)]);
            dump.push(s(input));
            let argv: Vec<&str> = copy.iter().map(String::as_str).collect();
            run("nczcopy", &argv).success();
            let argv: Vec<&str> = dump.iter().map(String::as_str).collect();
            let printed = run("nczdump", &argv);
            printed.success();
            let copied = run("nczdump", &[&s(&out)]);
            copied.success();
            let body = |t: String| t.lines().skip(1).collect::<Vec<_>>().join("\n");
            assert_eq!(
                body(copied.stdout()),
                body(printed.stdout()),
                "{dims:?} from {}",
                input.display()
            );
        }
    }
}

/// ncks (Debian's nco) cuts the same values from the netCDF file: dimensions and every
/// variable compared by netCDF4-python, whatever order ncks writes them in.
#[test]
fn subsets_hold_the_values_ncks_cuts() {
    let Some(py) = crate::util::python_with("netCDF4").filter(|_| have("ncks")) else {
        eprintln!("skipped: no ncks or netCDF4-python");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let nc = tmp.path().join("ocean.nc");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ocean.zarr");
    run("nczcopy", &[&s(&example), &s(&nc)]).success();
    let sets: &[&[&str]] = &[
        &["time,1", "lat,-2,", "lon,300.,60."],
        &["time,0,1", "lat,-10.,10.", "lon,1,7,3"],
        &["lon,5,6", "lon,0,1"],
        &["time,2000-01-02,2000-01-03"],
        &["lat,14."],
        &["lat,25.,-25."],
        &["lon,200.,-100."],
        &["lon,300.,60.,2"],
        &["time,-2,-1", "obs,1,2"],
    ];
    for (i, dims) in sets.iter().enumerate() {
        let theirs = tmp.path().join(format!("{i}-ncks.nc"));
        let ours = tmp.path().join(format!("{i}-ours.nc"));
        let mut ncks = Command::new("ncks");
        ncks.arg("-O");
        let mut copy: Vec<String> = Vec::new();
        for d in *dims {
            ncks.args(["-d", d]);
            copy.extend(["--dim".into(), (*d).into()]);
        }
        assert!(ncks.arg(&nc).arg(&theirs).status().unwrap().success());
        copy.extend([s(&nc), s(&ours)]);
        let argv: Vec<&str> = copy.iter().map(String::as_str).collect();
        run("nczcopy", &argv).success();
        crate::util::assert_same_values(&py, &theirs, &ours, &format!("{dims:?}"));
    }
}

/// A subset reads the chunks it touches and no others: three time steps of one row
/// and column are three chunk reads (byte ranges, the chunks being uncompressed).
#[test]
fn only_the_chunks_a_subset_touches_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let out = Command::new(env!("CARGO_BIN_EXE_nczdump"))
        .args(["-d", "t,0,4,2", "-d", "x,5", "-v", "v"])
        .arg(&store)
        .env("NCTRACING", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let trace = String::from_utf8_lossy(&out.stderr);
    let chunks: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("trace: get v/") && !l.contains("/.z"))
        .collect();
    assert_eq!(chunks.len(), 3, "{chunks:#?}");
    for key in ["v/0.1", "v/2.1", "v/4.1"] {
        assert!(chunks.iter().any(|l| l.contains(key)), "{key}: {chunks:#?}");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("v =\n  5,\n  25,\n  45 ;"), "{text}");
}

/// What cannot be a subset is one line, exit 1, and nothing is written.
#[test]
fn bad_subsets_fail_in_one_line_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let cases = [
        ("depth,0", "no dimension 'depth'"),
        ("t,9", "index 9 is outside"),
        ("t,3,1", "MIN 3 is after MAX 1"),
        ("x,400.,500.", "no value of coordinate 'x'"),
        ("nv,0.5", "has no coordinate variable"),
        ("x,2020-01-01", "is not a time coordinate"),
        ("t,2020-13-01", "2020-13-01"),
        ("t,a", "is not an index"),
        ("t,0,1,0", "stride"),
    ];
    for (i, (dim, says)) in cases.iter().enumerate() {
        let err = run("nczdump", &["-d", dim, &s(&store)]).fails_with_one_line(1);
        assert!(err.contains(says), "{dim}: {err}");
        let out = tmp.path().join(format!("{i}.nc"));
        let err = run("nczcopy", &["--dim", dim, &s(&store), &s(&out)]).fails_with_one_line(1);
        assert!(err.contains(says), "{dim}: {err}");
        assert!(!out.exists(), "{dim}");
    }
    // A coordinate that is not monotonic cannot be cut by value.
    let cdl = tmp.path().join("zig.cdl");
    fs::write(
        &cdl,
        "netcdf zig {\ndimensions:\n\tx = 3 ;\nvariables:\n\tfloat x(x) ;\ndata:\n x = 0, 2, 1 ;\n}\n",
    )
    .unwrap();
    let zig = tmp.path().join("zig.zarr");
    nczgen(&["-k", "nczarr", "-o", &s(&zig), &s(&cdl)]).success();
    let err = run("nczdump", &["-d", "x,0.,1.", &s(&zig)]).fails_with_one_line(1);
    assert!(err.contains("not monotonic"), "{err}");
    // nczdump's deprecated `-d F[,D]` is still the digits.
    run("nczdump", &["-d", "3", &s(&store)]).success();
}

/// xarray's `isel`/`sel` on a pure Zarr copy pick what `nczcopy --dim` copies.
#[test]
fn subsets_hold_what_xarray_selects() {
    let Some(py) = crate::util::python_with("xarray, zarr") else {
        eprintln!("skipped: no xarray");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let nczarr = grid(tmp.path());
    let zarr = tmp.path().join("pure.zarr");
    run("nczcopy", &["-k", "zarr", &s(&nczarr), &s(&zarr)]).success();
    let cases = [
        (
            &["t,1,4,2", "x,300.,50."][..],
            "ds.isel(t=slice(1, 5, 2), x=[7, 0, 1])",
        ),
        (
            &["t,2020-01-02,2020-01-04", "x,40.,100."][..],
            "ds.sel(t=slice('2020-01-02', '2020-01-04'), x=slice(40, 100))",
        ),
        (&["x,-1"][..], "ds.isel(x=[-1])"),
    ];
    for (i, (dims, select)) in cases.iter().enumerate() {
        let out = tmp.path().join(format!("{i}.zarr"));
        let mut copy: Vec<String> = Vec::new();
        for d in *dims {
            copy.extend(["--dim".into(), (*d).into()]);
        }
        copy.extend(["-k".into(), "zarr".into(), s(&zarr), s(&out)]);
        let argv: Vec<&str> = copy.iter().map(String::as_str).collect();
        run("nczcopy", &argv).success();
        let script = format!(
            "import sys, xarray as xr\n\
             ds = xr.open_zarr(sys.argv[1], consolidated=False)\n\
             want = {select}\n\
             got = xr.open_zarr(sys.argv[2], consolidated=False)\n\
             xr.testing.assert_equal(want[['v', 't', 'x']].load(), got[['v', 't', 'x']].load())\n"
        );
        crate::util::python_succeeds(&py, &script, &[&s(&zarr), &s(&out)], &format!("{dims:?}"));
    }
}

/// Subsets combine with the rest: rechunking (`-c`), a copy in parts (`--part`), only
/// some variables (`-V`), JSON, and dimensions named by path in a group.
#[test]
fn subsets_combine_with_every_other_option() {
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let printed = |args: &[&str]| {
        let r = run("nczdump", args);
        r.success();
        r.stdout().lines().skip(1).collect::<Vec<_>>().join("\n")
    };
    let want = printed(&["-d", "t,1,4", "-d", "x,2,6", &s(&store)]);
    // Rechunked on the way.
    let out = tmp.path().join("c.zarr");
    run(
        "nczcopy",
        &[
            "--dim",
            "t,1,4",
            "--dim",
            "x,2,6",
            "-c",
            "t/2,x/5",
            &s(&store),
            &s(&out),
        ],
    )
    .success();
    assert_eq!(printed(&[&s(&out)]), want);
    let r = run("nczdump", &["-hs", &s(&out)]);
    assert!(
        r.stdout().contains("v:_ChunkSizes = 2, 5 ;"),
        "{}",
        r.stdout()
    );
    // In two parts, then finished.
    let parts = tmp.path().join("p.zarr");
    let base = ["--dim", "t,1,4", "--dim", "x,2,6", &s(&store), &s(&parts)];
    let with = |extra: &[&str]| -> Vec<String> {
        extra
            .iter()
            .chain(base.iter())
            .map(|a| a.to_string())
            .collect()
    };
    for extra in [
        &["--metadata-only"][..],
        &["--part", "1/2"],
        &["--part", "2/2"],
    ] {
        let argv = with(extra);
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        run("nczcopy", &argv).success();
    }
    run("nczcopy", &["--finish", &s(&parts)]).success();
    assert_eq!(printed(&[&s(&parts)]), want);
    // Some variables only.
    let only = tmp.path().join("v.nc");
    run(
        "nczcopy",
        &["--dim", "x,0", "-V", "v", &s(&store), &s(&only)],
    )
    .success();
    let text = printed(&[&s(&only)]);
    assert!(
        text.contains("x = 1 ;") && !text.contains("other"),
        "{text}"
    );
    // JSON.
    let r = run(
        "nczdump",
        &["--json", "-d", "t,0", "-d", "x,1,2", "-v", "v", &s(&store)],
    );
    r.success();
    let json = r.stdout();
    assert!(
        json.contains("\"shape\":[1,2]") && json.contains("\"data\": [[1, 2]]"),
        "{json}"
    );
    // A dimension by its path in a group.
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ocean.zarr");
    let text = printed(&["-d", "/station/obs,1,2", "-v", "depth", &s(&example)]);
    assert!(text.contains("obs = 2 ;"), "{text}");
    let err = run("nczdump", &["-d", "/obs,0", &s(&example)]).fails_with_one_line(1);
    assert!(err.contains("no dimension '/obs'"), "{err}");
}

/// On S3 a subset costs the chunks it touches and the metadata, no more: every request
/// of the trace is a metadata document or one of the three chunks.
#[test]
fn on_s3_a_subset_requests_only_its_chunks_and_the_metadata() {
    let Some(s3) = crate::s3::server("subset") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = grid(tmp.path());
    let url = s3.url("grid.zarr");
    let keys = s3.keys();
    s3.run("nczcopy", &[&s(&store), &url], &keys).success();
    let mut env = keys.clone();
    env.push(("NCTRACING", "1".into()));
    let r = s3.run(
        "nczdump",
        &["-d", "t,0,4,2", "-d", "x,5", "-v", "v", &url],
        &env,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let requests: Vec<String> = r
        .stderr()
        .lines()
        .filter(|l| {
            l.contains("trace: get") || l.contains("trace: head") || l.contains("trace: list")
        })
        .map(String::from)
        .collect();
    let is_metadata = |l: &String| {
        [
            ".zmetadata",
            ".zgroup",
            ".zattrs",
            ".zarray",
            "zarr.json",
            ".nczarr",
        ]
        .iter()
        .any(|k| l.contains(k))
    };
    let chunks: Vec<&String> = requests.iter().filter(|l| !is_metadata(l)).collect();
    assert_eq!(chunks.len(), 3, "{requests:#?}");
    for key in ["v/0.1", "v/2.1", "v/4.1"] {
        assert!(
            chunks.iter().any(|l| l.contains(key)),
            "{key}: {requests:#?}"
        );
    }
    assert!(
        requests.iter().filter(|l| is_metadata(l)).count() <= 3,
        "the metadata in more requests than consolidated metadata needs: {requests:#?}"
    );
    assert!(
        r.stdout().contains("v =\n  5,\n  25,\n  45 ;"),
        "{}",
        r.stdout()
    );
}
