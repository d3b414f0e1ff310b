//! Many inputs into one dataset (issue 43): `nczcopy A B C OUT` joins them along the
//! record dimension (or `--concat DIM`) as ncrcat does, time units rebased, after
//! checks that refuse in one line what does not fit.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::datasets::{data, down_day, gen, part, parts};
use crate::util::{have, nczgen, run, s};

/// The parts joined, to a netCDF file and a Zarr store: the record dimension's values
/// in order, the third's times rebased to the first's units; and the same values as
/// ncrcat's join (netCDF4-python comparing), where NCO is installed.
#[test]
fn inputs_join_along_the_record_dimension_as_ncrcat_joins_them() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let want =
        "time = 0, 1, 2, 3, 4, 5 ; lat = 10, 20 ; v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ; }";
    for out in ["all.nc", "all.zarr"] {
        let out = tmp.path().join(out);
        run("nczcopy", &[&s(&a), &s(&b), &s(&c), &s(&out)]).success();
        assert_eq!(data(&out), want, "{}", out.display());
    }
    let header = run("nczdump", &["-h", &s(&tmp.path().join("all.nc"))]);
    assert!(header
        .stdout()
        .contains("time = UNLIMITED ; // (6 currently)"));
    if let Some(py) = crate::util::python_with("netCDF4").filter(|_| have("ncrcat")) {
        let theirs = tmp.path().join("ncrcat.nc");
        let st = Command::new("ncrcat")
            .arg("-O")
            .args([&a, &b, &c])
            .arg(&theirs)
            .status()
            .unwrap();
        assert!(st.success());
        crate::util::assert_same_values(&py, &theirs, &tmp.path().join("all.nc"), "ncrcat");
    }
}

/// `--sort` orders the inputs by their first time (as dates), `--inputs-from` reads
/// more names from a file or stdin, `--dim` subsets the joined dataset.
#[test]
fn inputs_sorted_listed_and_subset() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let out = tmp.path().join("sorted.nc");
    run("nczcopy", &["--sort", &s(&c), &s(&a), &s(&b), &s(&out)]).success();
    assert!(
        data(&out).starts_with("time = 0, 1, 2, 3, 4, 5 ;"),
        "{}",
        data(&out)
    );
    let list = tmp.path().join("list.txt");
    fs::write(&list, format!("{}\n\n{}\n", s(&b), s(&c))).unwrap();
    let out = tmp.path().join("listed.zarr");
    run("nczcopy", &["--inputs-from", &s(&list), &s(&a), &s(&out)]).success();
    assert!(data(&out).contains("v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_nczcopy"))
        .args([
            "--inputs-from",
            "-",
            &s(&a),
            &s(&tmp.path().join("stdin.nc")),
        ])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{}\n{}", s(&b), s(&c)).unwrap();
    }
    assert!(child.wait().unwrap().success());
    crate::util::assert_equal_datasets(&tmp.path().join("stdin.nc"), &out, "stdin");
    // Every input from the list, OUTPUT the only name given; an empty list is refused.
    let all = tmp.path().join("all.txt");
    fs::write(&all, format!("{}\n{}\n{}\n", s(&a), s(&b), s(&c))).unwrap();
    let only = tmp.path().join("only.zarr");
    run("nczcopy", &["--inputs-from", &s(&all), &s(&only)]).success();
    crate::util::assert_equal_datasets(&only, &out, "--inputs-from only");
    let empty = tmp.path().join("empty.txt");
    fs::write(&empty, "\n").unwrap();
    let r = run(
        "nczcopy",
        &["--inputs-from", &s(&empty), &s(&tmp.path().join("e.zarr"))],
    );
    assert!(r.fails_with_one_line(1).contains("no input names"));
    let cut = tmp.path().join("cut.nc");
    run(
        "nczcopy",
        &["--dim", "time,2,4", &s(&a), &s(&b), &s(&c), &s(&cut)],
    )
    .success();
    assert!(
        data(&cut).contains("v = 5, 6, 7, 8, 9, 10 ;"),
        "{}",
        data(&cut)
    );
}

/// `--concat DIM` joins along a fixed dimension; `--check first` takes the variables
/// without it from the first input.
#[test]
fn another_dimension_and_trusting_the_first() {
    let tmp = tempfile::tempdir().unwrap();
    let west = part(tmp.path(), "w", "2001-01-01", "0", "1, 2", "10, 20");
    let mut cdl = fs::read_to_string(tmp.path().join("w.cdl")).unwrap();
    cdl = cdl
        .replace("netcdf w", "netcdf e")
        .replace("lat = 10, 20", "lat = 30, 40");
    cdl = cdl
        .replace("v = 1, 2", "v = 3, 4")
        .replace("time = 0 ;", "time = 1 ;");
    fs::write(tmp.path().join("e.cdl"), cdl).unwrap();
    let east = tmp.path().join("e.nc");
    nczgen(&["-k", "nc4", "-o", &s(&east), &s(&tmp.path().join("e.cdl"))]).success();
    let out = tmp.path().join("x.nc");
    let err = run(
        "nczcopy",
        &["--concat", "x", &s(&west), &s(&east), &s(&out)],
    )
    .fails_with_one_line(1);
    assert!(
        err.contains("variable '/time' does not have the dimension 'x'"),
        "{err}"
    );
    run(
        "nczcopy",
        &[
            "--concat",
            "x",
            "--check",
            "first",
            &s(&west),
            &s(&east),
            &s(&out),
        ],
    )
    .success();
    assert_eq!(
        data(&out),
        "time = 0 ; lat = 10, 20, 30, 40 ; v = 1, 2, 3, 4 ; }"
    );
}

/// What does not fit is refused in one line naming both inputs, and nothing is written.
#[test]
fn inputs_that_do_not_fit_are_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let lat = part(tmp.path(), "l", "2001-01-01", "6", "13, 14", "11, 20");
    let typed = {
        let cdl = fs::read_to_string(tmp.path().join("b.cdl")).unwrap();
        fs::write(
            tmp.path().join("t.cdl"),
            cdl.replace("int v", "short v")
                .replace("netcdf b", "netcdf t"),
        )
        .unwrap();
        let nc = tmp.path().join("t.nc");
        nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&tmp.path().join("t.cdl"))]).success();
        nc
    };
    let noleap = {
        let cdl = fs::read_to_string(tmp.path().join("c.cdl")).unwrap();
        let cdl = cdl.replace(
            "time:units = \"days since 2001-01-06\" ;",
            "time:units = \"days since 2001-01-06\" ;\n\t\ttime:calendar = \"noleap\" ;",
        );
        fs::write(
            tmp.path().join("n.cdl"),
            cdl.replace("netcdf c", "netcdf n"),
        )
        .unwrap();
        let nc = tmp.path().join("n.nc");
        nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&tmp.path().join("n.cdl"))]).success();
        nc
    };
    let cases: Vec<(Vec<&Path>, &str)> = vec![
        (vec![&b, &a], "overlaps or is out of order"),
        (vec![&a, &a], "overlaps or is out of order"),
        (
            vec![&a, &lat],
            "variable '/lat' does not have the dimension 'time'",
        ),
        (
            vec![&a, &typed],
            "variable '/v' is of type int in one and short in the other",
        ),
        (vec![&a, &noleap], "calendar"),
    ];
    for (i, (inputs, says)) in cases.iter().enumerate() {
        let out = tmp.path().join(format!("{i}.nc"));
        let mut argv: Vec<String> = inputs.iter().map(|p| s(p)).collect();
        argv.push(s(&out));
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let err = run("nczcopy", &argv).fails_with_one_line(1);
        assert!(err.contains(says), "{says}: {err}");
        let named = inputs.iter().filter(|p| err.contains(&s(p))).count();
        assert!(named >= 1, "{err}");
        assert!(!out.exists());
    }
    // A gap (days 0-2, then 6), unless allowed.
    let later = part(tmp.path(), "g", "2001-01-01", "6", "13, 14", "10, 20");
    let out = tmp.path().join("gap.nc");
    let err = run("nczcopy", &[&s(&a), &s(&later), &s(&out)]).fails_with_one_line(1);
    assert!(
        err.contains("a gap in coordinate 'time' (2 then 6"),
        "{err}"
    );
    assert!(!out.exists());
    run("nczcopy", &["--allow-gaps", &s(&a), &s(&later), &s(&out)]).success();
    // No record dimension to join along.
    let cdl = tmp.path().join("f.cdl");
    fs::write(
        &cdl,
        "netcdf f {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 1, 2 ;\n}\n",
    )
    .unwrap();
    let f = tmp.path().join("f.nc");
    nczgen(&["-k", "nc4", "-o", &s(&f), &s(&cdl)]).success();
    let err =
        run("nczcopy", &[&s(&f), &s(&f), &s(&tmp.path().join("o.nc"))]).fails_with_one_line(1);
    assert!(err.contains("give --concat DIM"), "{err}");
    // An input that is the output.
    let out = tmp.path().join("all.nc");
    run("nczcopy", &[&s(&a), &s(&out)]).success();
    let err = run("nczcopy", &[&s(&a), &s(&out), &s(&out)]).fails_with_one_line(1);
    assert!(err.contains("also an input"), "{err}");
    let _ = c;
}

/// The Dask recipe (examples/dask_parts.py) runs a copy of joined inputs in three parts
/// on a LocalCluster of worker processes; the result prints as a one-process copy.
#[test]
fn the_dask_recipe_copies_in_parts_as_one_process_does() {
    let Some(py) = crate::util::python_with("distributed") else {
        eprintln!("skipped: no dask distributed");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let one = tmp.path().join("one.zarr");
    run(
        "nczcopy",
        &["-c", "time/2", &s(&a), &s(&b), &s(&c), &s(&one)],
    )
    .success();
    let parted = tmp.path().join("parts.zarr");
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dask_parts.py");
    let out = Command::new(&py)
        .arg(&recipe)
        .args([
            "3",
            &s(&parted),
            &s(&a),
            &s(&b),
            &s(&c),
            "--",
            "-c",
            "time/2",
        ])
        .env("NCZCOPY", env!("CARGO_BIN_EXE_nczcopy"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::util::assert_equal_datasets(&parted, &one, "parts");
}

/// Inputs of every kind join alike: a netCDF-4 file, an NCZarr store and a Zarr v3
/// store holding the same structure.
#[test]
fn inputs_of_mixed_formats_join() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let b_zarr = tmp.path().join("b.zarr");
    run("nczcopy", &[&s(&b), &s(&b_zarr)]).success();
    let c_v3 = tmp.path().join("c3.zarr");
    run("nczcopy", &["-k", "zarr3", &s(&c), &s(&c_v3)]).success();
    let out = tmp.path().join("mixed.nc");
    run("nczcopy", &[&s(&a), &s(&b_zarr), &s(&c_v3), &s(&out)]).success();
    assert_eq!(
        data(&out),
        "time = 0, 1, 2, 3, 4, 5 ; lat = 10, 20 ; v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ; }"
    );
}

/// `--verbose` reports each attribute that differs between the inputs once (the
/// first input's are kept); the rebased time's units are not a difference.
#[test]
fn differing_attributes_are_reported_once_with_verbose() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let out = tmp.path().join("v.zarr");
    let r = run("nczcopy", &["--verbose", &s(&a), &s(&b), &s(&c), &s(&out)]);
    assert_eq!(r.code(), 0);
    let lines: Vec<String> = r.stderr().lines().map(String::from).collect();
    assert_eq!(
        lines,
        [format!(
            "nczcopy: note: global: attribute 'title' differs in {} (the attributes of {} are kept)",
            s(&b),
            s(&a)
        )],
        "{}",
        r.stderr()
    );
    let quiet = tmp.path().join("q.zarr");
    run("nczcopy", &[&s(&a), &s(&b), &s(&c), &s(&quiet)]).success();
    assert!(run("nczdump", &["-h", &s(&quiet)])
        .stdout()
        .contains(":title = \"a\""));
}

/// A dataset with groups, cut into three along time with `--dim` into a netCDF-4
/// file, a Zarr v3 store and an NCZarr store, joins back into itself.
#[test]
fn a_dataset_with_groups_split_into_every_kind_joins_back() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("g.cdl");
    fs::write(
        &cdl,
        "netcdf g {\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 2 ;\nvariables:\n\
         \tdouble time(time) ;\n\t\ttime:units = \"hours since 2000-01-01\" ;\n\
         \tint v(time, x) ;\ndata:\n time = 0, 1, 2, 3, 4, 5 ;\n v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;\n\n\
         group: sub {\n  dimensions:\n  \ty = 3 ;\n  variables:\n  \tfloat w(time, y) ;\n  \tshort k(y) ;\n  \
         data:\n   w = 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5 ;\n   k = 7, 8, 9 ;\n  } // group sub\n}\n",
    )
    .unwrap();
    let orig = tmp.path().join("orig.nc");
    nczgen(&["-k", "nc4", "-o", &s(&orig), &s(&cdl)]).success();
    let p1 = tmp.path().join("p1.nc");
    let p2 = tmp.path().join("p2.zarr");
    let p3 = tmp.path().join("p3.zarr");
    run("nczcopy", &["--dim", "time,0,1", &s(&orig), &s(&p1)]).success();
    run(
        "nczcopy",
        &["--dim", "time,2,4", "-k", "zarr3", &s(&orig), &s(&p2)],
    )
    .success();
    run(
        "nczcopy",
        &["--dim", "time,5", "-k", "nczarr", &s(&orig), &s(&p3)],
    )
    .success();
    let back = tmp.path().join("back.nc");
    run("nczcopy", &[&s(&p1), &s(&p2), &s(&p3), &s(&back)]).success();
    let body = |p: &Path| {
        let text = run("nczdump", &[&s(p)]).stdout();
        text.split_once('\n')
            .map(|(_, rest)| rest.to_string())
            .unwrap_or_default()
    };
    assert_eq!(body(&back), body(&orig));
}

/// With several inputs, `--metadata-only` reads their headers and nothing else: an
/// input whose time values cannot be read (its chunk damaged) does not stop it, while
/// the part that writes values runs the checks, reads them, and fails in one line
/// naming the input; with the input mended, the parts finish into the one-run copy.
#[test]
fn metadata_only_reads_the_inputs_headers_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = parts(tmp.path());
    let b_zarr = tmp.path().join("b.zarr");
    run("nczcopy", &["-d", "0", &s(&b), &s(&b_zarr)]).success();
    let chunk = b_zarr.join("time/0");
    let good = fs::read(&chunk).unwrap();
    fs::write(&chunk, b"not the chunk").unwrap();
    let out = tmp.path().join("parted.zarr");
    let names = [s(&a), s(&b_zarr), s(&c), s(&out)];
    let with = |first: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = first.iter().map(|a| a.to_string()).collect();
        v.extend(names.iter().cloned());
        v
    };
    let run_with = |first: &[&str]| {
        let args = with(first);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        run("nczcopy", &a)
    };
    run_with(&["-c", "time/2", "--metadata-only"]).success();
    let line = run_with(&["-c", "time/2", "--part", "1/1"]).fails_with_one_line(1);
    assert!(line.contains("b.zarr") && line.contains("time"), "{line}");
    fs::write(&chunk, good).unwrap();
    run_with(&["-c", "time/2", "--part", "1/1"]).success();
    run("nczcopy", &["--finish", &s(&out)]).success();
    let one = tmp.path().join("one.zarr");
    let one_s = s(&one);
    run(
        "nczcopy",
        &["-c", "time/2", &names[0], &names[1], &names[2], &one_s],
    )
    .success();
    crate::util::assert_equal_datasets(&out, &one, "parts");
}

/// Issue 61: a coordinate's boundary variable is rebased with it, whether its
/// `bounds` or (climatological time, CF 7.4) its `climatology` names it.
#[test]
fn boundary_variables_are_rebased_with_their_coordinate_61() {
    let tmp = tempfile::tempdir().unwrap();
    for attr in ["bounds", "climatology"] {
        let part = |name: &str, base: &str, times: &str, edges: &str| {
            let cdl = tmp.path().join(format!("{attr}_{name}.cdl"));
            fs::write(
                &cdl,
                format!(
                    "netcdf {name} {{\ndimensions:\n\ttime = UNLIMITED ;\n\tnv = 2 ;\nvariables:\n\
                     \tdouble time(time) ;\n\t\ttime:units = \"days since {base}\" ;\n\
                     \t\ttime:{attr} = \"edges\" ;\n\tdouble edges(time, nv) ;\n\
                     data:\n time = {times} ;\n edges = {edges} ;\n}}\n"
                ),
            )
            .unwrap();
            let nc = tmp.path().join(format!("{attr}_{name}.nc"));
            nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
            nc
        };
        let a = part("a", "2001-01-01", "0.5, 1.5", "0, 1, 1, 2");
        let b = part("b", "2001-01-03", "0.5", "0, 1");
        let out = tmp.path().join(format!("{attr}.nc"));
        run("nczcopy", &[&s(&a), &s(&b), &s(&out)]).success();
        assert_eq!(
            data(&out),
            "time = 0.5, 1.5, 2.5 ; edges = 0, 1, 1, 2, 2, 3 ; }",
            "{attr}"
        );
    }
}

/// A day's file of one record, with or without CF bounds on time.
fn one_day(dir: &Path, day: u32, bounds: bool) -> PathBuf {
    let name = format!("day{day:03}{}", if bounds { "b" } else { "" });
    let cdl = dir.join(format!("{name}.cdl"));
    let (bdim, bvar, bdata) = if bounds {
        (
            "\tnv = 2 ;\n",
            "\t\ttime:bounds = \"time_bnds\" ;\n\tdouble time_bnds(time, nv) ;\n",
            format!(" time_bnds = {day}, {} ;\n", day + 1),
        )
    } else {
        ("", "", String::new())
    };
    fs::write(
        &cdl,
        format!(
            "netcdf {name} {{\ndimensions:\n\ttime = UNLIMITED ;\n{bdim}variables:\n\tdouble time(time) ;\n\t\ttime:units = \"days since 2001-01-01\" ;\n{bvar}\tfloat tas(time) ;\ndata:\n time = {day}.5 ;\n{bdata} tas = {day} ;\n}}\n"
        ),
    )
    .unwrap();
    let nc = dir.join(format!("{name}.nc"));
    nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    nc
}

/// Issue 61: daily files of one record each, one day missing, joined silently though
/// the docs promise a gap is refused: the step is now taken across the inputs, or
/// from their bounds (which also tell two files a gap apart, where a step cannot).
#[test]
fn a_gap_between_one_record_files_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for bounds in [false, true] {
        let days: Vec<String> = [0, 1, 2, 4, 5]
            .iter()
            .map(|&day| s(&one_day(d, day, bounds)))
            .collect();
        let out = s(&d.join(format!("year-{bounds}.zarr")));
        let mut args: Vec<&str> = days.iter().map(String::as_str).collect();
        args.push(&out);
        let e = run("nczcopy", &args).fails_with_one_line(1);
        let want = if bounds {
            "day002b.nc and ".to_string() + &days[3] + ": a gap in coordinate 'time' (its cells end at 3 in one and start at 4 in the next); --allow-gaps joins them anyway"
        } else {
            "day002.nc and ".to_string() + &days[3] + ": a gap in coordinate 'time' (2.5 then 4.5, where the inputs step by 1); --allow-gaps joins them anyway"
        };
        assert!(e.ends_with(&want), "{bounds}: {e}");
        assert!(!Path::new(&out).exists());
        args.insert(0, "--allow-gaps");
        run("nczcopy", &args).success();
        // Days in order and whole: joined.
        let whole: Vec<String> = [6, 7, 8]
            .iter()
            .map(|&day| s(&one_day(d, day, bounds)))
            .collect();
        let out = s(&d.join(format!("whole-{bounds}.zarr")));
        let mut args: Vec<&str> = whole.iter().map(String::as_str).collect();
        args.push(&out);
        run("nczcopy", &args).success();
    }
    // Two files a gap apart: only their bounds tell.
    let (a, b) = (one_day(d, 10, true), one_day(d, 12, true));
    let e = run("nczcopy", &[&s(&a), &s(&b), &s(&d.join("two.zarr"))]).fails_with_one_line(1);
    assert!(
        e.contains(
            "a gap in coordinate 'time' (its cells end at 11 in one and start at 12 in the next)"
        ),
        "{e}"
    );
    // The same gap found by --append into a dataset of one record.
    let one = s(&d.join("one.zarr"));
    run("nczcopy", &[&s(&a), &one]).success();
    let e = run("nczcopy", &["--append", &s(&b), &one]).fails_with_one_line(1);
    assert!(e.contains("a gap in coordinate 'time'"), "{e}");
}

/// Months of different lengths, one record a file with bounds: no gap.
#[test]
fn monthly_one_record_files_with_bounds_join() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let edges = [0, 31, 59, 90, 120];
    let files: Vec<String> = edges
        .windows(2)
        .enumerate()
        .map(|(m, w)| {
            let cdl = d.join(format!("m{m}.cdl"));
            fs::write(
                &cdl,
                format!(
                    "netcdf m {{\ndimensions:\n\ttime = UNLIMITED ;\n\tnv = 2 ;\nvariables:\n\tdouble time(time) ;\n\t\ttime:units = \"days since 2001-01-01\" ;\n\t\ttime:bounds = \"time_bnds\" ;\n\tdouble time_bnds(time, nv) ;\ndata:\n time = {} ;\n time_bnds = {}, {} ;\n}}\n",
                    f64::from(w[0] + w[1]) / 2.0,
                    w[0],
                    w[1]
                ),
            )
            .unwrap();
            let nc = d.join(format!("m{m}.nc"));
            nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
            s(&nc)
        })
        .collect();
    let out = s(&d.join("months.zarr"));
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.push(&out);
    run("nczcopy", &args).success();
}

/// A file of `calendar` times in `units` with `values`.
fn times_file(dir: &Path, name: &str, units: &str, calendar: &str, values: &str) -> String {
    let cdl = dir.join(format!("{name}.cdl"));
    let n = values.split(',').count();
    let tas: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    fs::write(
        &cdl,
        format!(
            "netcdf {name} {{\ndimensions:\n\ttime = UNLIMITED ;\nvariables:\n\tdouble time(time) ;\n\t\ttime:units = \"{units}\" ;\n\t\ttime:calendar = \"{calendar}\" ;\n\tfloat tas(time) ;\ndata:\n time = {values} ;\n tas = {} ;\n}}\n",
            tas.join(", ")
        ),
    )
    .unwrap();
    let nc = dir.join(format!("{name}.nc"));
    nczgen(&["-O", "-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    s(&nc)
}

/// Issue 61: 1.5 `months since` rebased to days is day 45 in the 360_day calendar, as
/// cftime (xarray) and ncrcat take it (cdtime's stepping gave day 30); months in any
/// other calendar, and years in all, are refused, as cftime refuses them.
#[test]
fn months_since_are_rebased_as_cf_libraries_rebase_them() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let days = times_file(d, "days", "days since 2000-01-01", "360_day", "0, 30");
    let months = times_file(
        d,
        "months",
        "months since 2000-01-01",
        "360_day",
        "1.5, 2.5",
    );
    let out = s(&d.join("joined.nc"));
    run("nczcopy", &[&days, &months, &out]).success();
    let dump = run("nczdump", &["-v", "time", &out]).stdout();
    assert!(dump.contains(" time = 0, 30, 45, 75 ;"), "{dump}");
    if have("ncrcat") {
        let theirs = s(&d.join("ncrcat.nc"));
        let st = Command::new("ncrcat")
            .args(["-O", &days, &months, &theirs])
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
        let dump = run("nczdump", &["-v", "time", &theirs]).stdout();
        assert!(dump.contains(" time = 0, 30, 45, 75 ;"), "ncrcat: {dump}");
    }
    // nczcmp sees the same instants.
    let again = times_file(
        d,
        "again",
        "months since 2000-01-01",
        "360_day",
        "0, 1, 1.5, 2.5",
    );
    let r = run("nczcmp", &["-d", "-v", "time", &out, &again]);
    assert_eq!(r.code(), 0, "{}{}", r.stdout(), r.stderr());
    // Months of the standard calendar, and years: refused, naming both inputs.
    for (units, calendar) in [
        ("months since 2000-01-01", "standard"),
        ("years since 2000-01-01", "360_day"),
    ] {
        let days = times_file(d, "d2", "days since 2000-01-01", calendar, "0, 30");
        let other = times_file(d, "o2", units, calendar, "1.5, 2.5");
        let e = run("nczcopy", &["-O", &days, &other, &s(&d.join("no.nc"))]).fails_with_one_line(1);
        assert!(
            e.contains("d2.nc and ")
                && e.contains(&format!("o2.nc: coordinate 'time' cannot be rebased: '{units}' in the {calendar} calendar has no fixed length: CF libraries (cftime, xarray) take months only in the 360_day calendar")),
            "{e}"
        );
        assert!(!d.join("no.nc").exists());
    }
}

#[test]
fn descending_days_join_whatever_way_their_bounds_are_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for high_first in [true, false] {
        let days: Vec<String> = [3, 2, 1, 0]
            .iter()
            .map(|&t| down_day(d, t, high_first, "h"))
            .collect();
        let out = s(&d.join(format!("desc-{high_first}.zarr")));
        let mut args: Vec<&str> = days.iter().map(String::as_str).collect();
        args.push(&out);
        run("nczcopy", &args).success();
        let dump = run("nczdump", &["-v", "time", &out]).stdout();
        assert!(dump.contains(" time = 3.5, 2.5, 1.5, 0.5 ;"), "{dump}");
        // A missing day is a gap, either way round.
        let gap = s(&d.join(format!("gap-{high_first}.zarr")));
        let e = run("nczcopy", &[&days[0], &days[2], &days[3], &gap]).fails_with_one_line(1);
        assert!(e.contains("a gap in coordinate 'time'"), "{e}");
    }
    // --sort puts inputs that descend (two days each) in descending order.
    let pairs: Vec<String> = [6, 4, 2, 0]
        .iter()
        .map(|&t| {
            gen(
                d,
                &format!("pair{t}.nc"),
                "nc4",
                &format!(
                    "netcdf p {{
dimensions:
	time = UNLIMITED ;
variables:
	double time(time) ;
		time:units = \"days since 2000-01-01\" ;
data:
 time = {}.5, {t}.5 ;
}}
",
                    t + 1
                ),
            )
        })
        .collect();
    let sorted = s(&d.join("sorted.zarr"));
    run(
        "nczcopy",
        &[
            "--sort", &pairs[2], &pairs[0], &pairs[3], &pairs[1], &sorted,
        ],
    )
    .success();
    let dump = run("nczdump", &["-v", "time", &sorted]).stdout();
    assert!(
        dump.contains(" time = 7.5, 6.5, 5.5, 4.5, 3.5, 2.5, 1.5, 0.5 ;"),
        "{dump}"
    );
    // Out of order: --sort is offered where it helps; not to an append, which adds
    // at the end.
    let (later, earlier) = (&pairs[1], &pairs[0]);
    let e = run("nczcopy", &[later, earlier, &s(&d.join("o.zarr"))]).fails_with_one_line(1);
    assert!(e.ends_with("; give the inputs in order (or --sort)"), "{e}");
    let grown = s(&d.join("grown.zarr"));
    run("nczcopy", &[later, &grown]).success();
    let e = run("nczcopy", &["--append", earlier, &grown]).fails_with_one_line(1);
    assert!(
        !e.contains("--sort") && e.ends_with("(--append adds at the end)"),
        "{e}"
    );
}
