//! nczdump's subsets (issue 42): `--dim` (`-d`) by index, coordinate value, date,
//! stride, wrapped and multi-slab picks the indices ncks picks; a range on a decreasing
//! coordinate does not wrap (issue 61). Copied subsets are in `nczcopy::subset`.

use std::path::Path;

use crate::util::datasets::{gen, grid};
use crate::util::{run, s};

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

#[test]
fn a_range_on_a_decreasing_coordinate_does_not_wrap() {
    let tmp = tempfile::tempdir().unwrap();
    let nc = gen(
        tmp.path(),
        "desc.nc",
        "nc4",
        "netcdf e {\ndimensions:\n\ttime = 8 ;\nvariables:\n\tdouble time(time) ;\n\tint x(time) ;\ndata:\n time = 9.5, 8.5, 7.5, 6.5, 5.5, 4.5, 3.5, 2.5 ;\n x = 9, 8, 7, 6, 5, 4, 3, 2 ;\n}\n",
    );
    let e = run("nczdump", &["--dim", "time,7.0,4.0", &nc]).fails_with_one_line(1);
    assert!(
        e.contains(
            "coordinate 'time' decreases (9.5 to 2.5), and a range wraps only on an increasing one"
        ),
        "{e}"
    );
    let dump = run("nczdump", &["--dim", "time,4.0,7.0", &nc]).stdout();
    assert!(dump.contains(" time = 6.5, 5.5, 4.5 ;"), "{dump}");
}
