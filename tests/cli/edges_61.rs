//! What a new user's walk along issue 61's edges found after the fixes (each a test
//! that failed before its mend): reference files never replace a directory, pure Zarr's
//! dimensions placed in another group are storage to nczcmp, a range on a decreasing
//! coordinate does not wrap, nccmp's `-h`/`-G`/`-H`, typos in `-F` and `--concat`, `-C`
//! without `-V`, descending joins with their bounds either way round and `--sort`,
//! links to netCDF files, and what a refusal or a dry run says.

use std::fs;
use std::path::Path;

use crate::util::run;

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn gen(dir: &Path, name: &str, kind: &str, cdl: &str) -> String {
    let c = dir.join(format!("{name}.cdl"));
    fs::write(&c, cdl).unwrap();
    let out = s(&dir.join(name));
    run("nczgen", &["-O", "-k", kind, "-o", &out, &s(&c)]).success();
    out
}

/// A day of descending time: `time = t + 0.5`, bounds `[t + 1, t]` or `[t, t + 1]`.
fn down_day(dir: &Path, t: u32, high_first: bool, with_history: &str) -> String {
    let (a, b) = if high_first { (t + 1, t) } else { (t, t + 1) };
    gen(
        dir,
        &format!("d{t}{}.nc", if high_first { "h" } else { "l" }),
        "nc4",
        &format!(
            "netcdf d {{\ndimensions:\n\ttime = UNLIMITED ;\n\tnv = 2 ;\nvariables:\n\tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\t\ttime:bounds = \"time_bnds\" ;\n\tdouble time_bnds(time, nv) ;\n\n// global attributes:\n\t\t:history = \"{with_history}\" ;\ndata:\n time = {t}.5 ;\n time_bnds = {a}, {b} ;\n}}\n"
        ),
    )
}

#[test]
fn a_reference_file_never_replaces_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = down_day(d, 1, true, "h");
    fs::create_dir_all(d.join("mine/deep")).unwrap();
    fs::write(d.join("mine/deep/notes.txt"), "four years").unwrap();
    let zarr = s(&d.join("ds.zarr"));
    run("nczcopy", &[&nc, &zarr]).success();
    for target in [s(&d.join("mine")), zarr.clone()] {
        for flag in [None, Some("-O")] {
            let mut args = vec!["-k", "kerchunk"];
            args.extend(flag);
            args.extend([nc.as_str(), target.as_str()]);
            let e = run("nczcopy", &args).fails_with_one_line(1);
            assert!(
                e.contains("already exists and is a directory, not a reference file"),
                "{args:?}: {e}"
            );
        }
    }
    assert_eq!(
        fs::read_to_string(d.join("mine/deep/notes.txt")).unwrap(),
        "four years"
    );
    assert!(d.join("ds.zarr/.zgroup").exists());
    let e = run(
        "nczcopy",
        &["-k", "kerchunk", &nc, &format!("{}/", s(&d.join("new")))],
    )
    .fails_with_one_line(1);
    assert!(e.contains("a reference file is one local file"), "{e}");
}

#[test]
fn nczcmp_takes_a_dimension_pure_zarr_placed_elsewhere_as_storage() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // `bnds` lives in /obs; only /obs/sub uses it.
    let nc = gen(
        d,
        "g.nc",
        "nc4",
        "netcdf g {\ngroup: obs {\ndimensions:\n\tbnds = 2 ;\ngroup: sub {\ndimensions:\n\ttime = 2 ;\nvariables:\n\tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\t\ttime:bounds = \"time_bnds\" ;\n\tdouble time_bnds(time, bnds) ;\ndata:\n time = 0.5, 1.5 ;\n time_bnds = 0, 1, 1, 2 ;\n}\n}\n}\n",
    );
    let refs = s(&d.join("g.json"));
    run("nczcopy", &["-k", "kerchunk", &nc, &refs]).success();
    let pure = s(&d.join("g.zarr"));
    run("nczcopy", &["-k", "zarr", &nc, &pure]).success();
    for other in [&refs, &pure] {
        let r = run("nczcmp", &[&nc, other]);
        assert_eq!(r.code(), 0, "{}{}", r.stdout(), r.stderr());
        // With --storage, where each keeps it is said.
        let r = run("nczcmp", &["--storage", &nc, other]);
        assert!(
            r.stdout().contains("dimension obs/bnds: only in"),
            "{}",
            r.stdout()
        );
    }
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

#[test]
fn nccmps_h_g_and_capital_g_mean_what_they_mean_to_nccmp() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let a = down_day(d, 1, true, "made on Monday");
    let dir_b = d.join("b");
    fs::create_dir(&dir_b).unwrap();
    let b = down_day(&dir_b, 1, true, "made on Tuesday");
    // nccmp leaves the global history out unless -h.
    assert_eq!(run("nczcmp", &["-mg", &a, &b]).code(), 0);
    let r = run("nczcmp", &["-mgh", &a, &b]);
    assert_eq!(r.code(), 1, "{}", r.stdout());
    assert!(r.stdout().contains(":history"), "{}", r.stdout());
    assert_eq!(
        run("nczcmp", &["-m", "-g", "-h", "-G", "history", &a, &b]).code(),
        0
    );
    // Help is -H.
    let r = run("nczcmp", &["-H"]);
    assert_eq!(r.code(), 0);
    assert!(r.stdout().contains("Usage"), "{}", r.stdout());
}

#[test]
fn typos_in_filters_concat_and_c_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = down_day(d, 1, true, "h");
    let out = s(&d.join("o.nc"));
    let e = run("nczcopy", &["-F", "novar,1,5", &nc, &out]).fails_with_one_line(1);
    assert!(
        e.contains("filter spec 'novar,1,5': novar: No such variable"),
        "{e}"
    );
    let e = run("nczcopy", &["--concat", "nodim", &nc, &out]).fails_with_one_line(1);
    assert!(e.contains("nodim"), "{e}");
    for args in [vec!["-C"], vec!["-C", "-v", "time"]] {
        let mut a = args.clone();
        a.extend([nc.as_str(), out.as_str()]);
        let e = run("nczcopy", &a).fails_with_one_line(1);
        assert!(e.ends_with("give it with -V"), "{a:?}: {e}");
    }
    assert!(!Path::new(&out).exists());
    // The right spellings copy.
    run("nczcopy", &["-F", "time,1,5", &nc, &out]).success();
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

#[test]
fn a_link_to_a_netcdf_file_is_that_file_and_refusals_say_what_is_there() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let day = down_day(d, 1, true, "h");
    let target = s(&d.join("t.nc"));
    run("nczcopy", &[&day, &target]).success();
    let link = d.join("link.nc");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let e = run("nczcopy", &[&day, &s(&link)]).fails_with_one_line(1);
    assert!(e.ends_with("link.nc: a dataset already exists (time = 1); nothing was written: --overwrite replaces it"), "{e}");
    // A dry run says it too, and writes nothing.
    let plan = run("nczcopy", &["--dry-run", &day, &s(&link)]).stdout();
    assert!(
        plan.contains("note: ") && plan.contains("a dataset already exists"),
        "{plan}"
    );
    run("nczcopy", &["-O", &day, &s(&link)]).success();
    assert!(!fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    // The unlimited dimension of a group is named as the group's.
    let grouped = gen(
        d,
        "grouped.zarr",
        "nczarr",
        "netcdf g {\ngroup: obs {\ndimensions:\n\ttime = UNLIMITED ;\nvariables:\n\tint time(time) ;\ndata:\n time = 1, 2, 3 ;\n}\n}\n",
    );
    let e = run("nczcopy", &[&day, &grouped]).fails_with_one_line(1);
    assert!(e.contains("a dataset already exists (obs/time = 3)"), "{e}");
}

#[test]
fn an_excluded_grid_mapping_coordinate_leaves_no_empty_mapping() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = gen(
        d,
        "gm.nc",
        "nc4",
        "netcdf gm {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint crs ;\n\tint crs2 ;\n\tfloat lat2d(x) ;\n\tfloat lon(x) ;\n\tfloat ta(x) ;\n\t\tta:grid_mapping = \"crs: lon crs2: lat2d\" ;\ndata:\n lat2d = 1, 2 ;\n lon = 3, 4 ;\n ta = 5, 6 ;\n}\n",
    );
    let out = s(&d.join("x.nc"));
    run("nczcopy", &["--exclude", "lat2d", &nc, &out]).success();
    let header = run("nczdump", &["-h", &out]).stdout();
    assert!(
        header.contains("ta:grid_mapping = \"crs: lon\" ;"),
        "{header}"
    );
}
