//! nczcopy: lossless copies of every peer's datasets through every store layout, nccopy's
//! flags (against nccopy's own output where it can make it), rechunking, bad
//! specifications, dry runs and progress; its sub-modules by feature and output.

/// `--append`: datasets grown in place; nothing narrowed (issue 61).
mod append;
/// To GCS and Azure emulators (skipped without them).
mod clouds;
/// Every output kind and chain decoded by xarray, zarr-python and netCDF4-python as its input is.
mod conversions;
/// Many inputs joined into one dataset (issue 43).
mod join;
/// `-k kerchunk`: references to the chunks of netCDF files, read by xarray.
mod kerchunk;
/// `-k kerchunk` with several files: one virtual dataset joined along a dimension.
mod kerchunk_joined;
/// `-k zarr3 --in-place`: Zarr v2 stores given v3 metadata, no chunk rewritten (issue 65).
mod migrate;
/// netCDF classic and netCDF-4 files as output.
mod netcdf_out;
/// As a process: memory budget, killed and stopped runs, copies in parts.
mod runs;
/// To, from and across a local S3 server (skipped without one).
mod s3;
/// Subsets and variable selection copied (issues 42, 61).
mod subset;
/// Zarr version 3 output.
mod zarr3;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use crate::util::copies::{copy, dump};
use crate::util::datasets::{dataset, down_day, gen};
use crate::util::{
    assert_equal_datasets, data_dir, exe, first_diff, have, path_str, run, s, RangeServer,
    TempStore,
};

/// A dump with what describes the file rather than its content left out: the
/// provenance globals, the codec chain as JSON (nczcopy records shuffle's real element
/// size where netcdf-c wrote 0), remarks about the input's Zarr dtypes, and the codecs
/// of scalars (stored plain: netcdf-c refuses any codec on a scalar).
fn content(text: &str) -> String {
    let mut scalar = false;
    text.lines()
        .filter(|l| {
            // A variable's declaration (indented by spaces in groups).
            let t = l.trim_start_matches(' ');
            if t.starts_with('\t') && !t.starts_with("\t\t") && t.ends_with(" ;") {
                scalar = !t.contains('(');
            }
            let codec = [":_Filter = ", ":_Shuffle = ", ":_DeflateLevel = "]
                .iter()
                .any(|a| l.contains(a));
            let provenance = [":_NCProperties = ", ":_SuperblockVersion = ", ":_Codecs = "]
                .iter()
                .any(|a| l.contains(a));
            !(provenance || l.trim_start().starts_with("// ") || (scalar && codec))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every dataset of the golden corpus: (writer, case, store).
fn golden_stores() -> Vec<(String, String, PathBuf)> {
    let root = data_dir().join("golden/stores");
    let mut out = Vec::new();
    let Ok(writers) = fs::read_dir(&root) else {
        return out;
    };
    for w in writers.flatten() {
        for s in fs::read_dir(w.path()).into_iter().flatten().flatten() {
            let name = s.file_name().to_string_lossy().into_owned();
            if let Some(case) = name.strip_suffix(".file") {
                out.push((
                    w.file_name().to_string_lossy().into_owned(),
                    case.to_string(),
                    s.path(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn copies_every_peer_dataset_losslessly() {
    let stores = golden_stores();
    assert!(stores.len() >= 80, "golden corpus missing");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (writer, case, store) in &stores {
        let out = tmp.path().join(format!("{writer}-{case}.zarr"));
        let r = run("nczcopy", &[&path_str(store), &path_str(&out)]);
        if !r.output.status.success() {
            failures.push(format!("{writer}/{case}: copy failed: {}", r.stderr()));
            continue;
        }
        let a = run("nczdump", &["-s", "-n", case, &path_str(store)]).stdout();
        let b = dump(&["-s", "-n", case, &path_str(&out)]);
        if content(&a) != content(&b) {
            failures.push(format!(
                "{writer}/{case}: {}",
                first_diff(&content(&b), &content(&a))
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn copies_through_zip_layouts_and_back() {
    let tmp = tempfile::tempdir().unwrap();
    let input = data_dir().join("golden/stores/nc410-nczarr/nested_groups.file");
    let expected = dump(&["-n", "x", &path_str(&input)]);
    for layout in ["root", "dir"] {
        let zip = tmp.path().join(format!("{layout}.zip"));
        copy(&["--zip-layout", layout, &path_str(&input), &path_str(&zip)]);
        assert_eq!(dump(&["-n", "x", &path_str(&zip)]), expected);
        let back = tmp.path().join(format!("{layout}.zarr"));
        copy(&[&path_str(&zip), &path_str(&back)]);
        assert_eq!(dump(&["-n", "x", &path_str(&back)]), expected);
    }
}

#[test]
fn nczarr_to_pure_zarr_is_what_nczgen_writes_as_pure_zarr() {
    let tmp = tempfile::tempdir().unwrap();
    for case in ["coords", "nested_groups", "fill_values", "chunked"] {
        let cdl = data_dir().join(format!("golden/cases/{case}.cdl"));
        let nczarr = tmp.path().join(format!("{case}.zarr"));
        run("nczgen", &["-o", &path_str(&nczarr), &path_str(&cdl)]).success();
        let generated = tmp.path().join(format!("{case}-gen-pure.zarr"));
        run(
            "nczgen",
            &["-k", "zarr", "-o", &path_str(&generated), &path_str(&cdl)],
        )
        .success();
        let copied = tmp.path().join(format!("{case}-copy-pure.zarr"));
        copy(&["-k", "zarr", &path_str(&nczarr), &path_str(&copied)]);
        // Values, types and storage agree; whether a variable holding netCDF's default
        // fill keeps it as `fill_value` (`_NoFill` in the dump when not) follows what
        // xarray masked in each one's input: nothing in CDL (as in a netCDF file), the
        // NCZarr's `fill_value` in the copy (docs/layout.md).
        let fill_mode = |text: String| -> String {
            text.lines()
                .filter(|l| !l.contains(":_NoFill = "))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let want = fill_mode(dump(&["-s", "-n", case, &path_str(&generated)]));
        assert_eq!(
            fill_mode(dump(&["-s", "-n", case, &path_str(&copied)])),
            want,
            "{case}"
        );
        // mode=zarr in the URL says the same as -k zarr.
        let url = format!(
            "file://{}#mode=zarr,file",
            path_str(&tmp.path().join(format!("{case}-url.zarr")))
        );
        copy(&[&path_str(&nczarr), &url]);
        assert_eq!(
            fill_mode(dump(&["-s", "-n", case, &url])),
            want,
            "{case} by URL"
        );
        // Back to NCZarr: the data are the NCZarr's again.
        let back = tmp.path().join(format!("{case}-back.zarr"));
        copy(&[&path_str(&copied), &path_str(&back)]);
        let data = |t: &str| t[t.find("data:").unwrap_or(0)..].to_string();
        assert_eq!(
            data(&dump(&["-n", case, &path_str(&back)])),
            data(&dump(&["-n", case, &path_str(&nczarr)])),
            "{case}"
        );
    }
}

/// A CDL whose variables are large enough that nccopy chunks them in netCDF-4: nccopy
/// stores any fixed-size variable with chunks under 8192 bytes contiguous, where
/// nczcopy keeps the input's chunks of a variable `-c` does not name.
const FLAGS_CDL: &str = "netcdf f {
dimensions:
	t = UNLIMITED ;
	y = 32 ;
	x = 64 ;
variables:
	float v(t, y, x) ;
		v:_ChunkSizes = 1, 8, 16 ;
		v:units = \"K\" ;
	int w(y, x) ;
		w:_ChunkSizes = 32, 64 ;
data:
 v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ;
 w = 1, 2, 3 ;
}
";

fn special_lines(text: &str, names: &[&str]) -> Vec<String> {
    text.lines()
        .filter(|l| names.iter().any(|n| l.contains(&format!(":{n} = "))))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn chunk_and_compression_flags_mean_what_they_mean_to_nccopy() {
    if !have("nccopy") || !have("ncgen") {
        eprintln!("skipped: nccopy/ncgen (netcdf-bin) are not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("f.cdl");
    fs::write(&cdl, FLAGS_CDL).unwrap();
    let nc = tmp.path().join("f.nc");
    let status = Command::new("ncgen")
        .args(["-4", "-lb", "-o", &path_str(&nc), &path_str(&cdl)])
        .status()
        .unwrap();
    assert!(status.success());
    let zarr = tmp.path().join("f.zarr");
    run("nczgen", &["-o", &path_str(&zarr), &path_str(&cdl)]).success();
    let names = [
        "_Storage",
        "_ChunkSizes",
        "_DeflateLevel",
        "_Shuffle",
        "_Filter",
    ];
    for flags in [
        vec!["-c", "y/"],
        vec!["-c", "y/4"],
        vec!["-c", "t/1,x/"],
        vec!["-c", "v:1,4,8"],
        vec!["-c", "x/30"],
        vec!["-c", "y/4", "-M", "1024"],
        vec!["-c", "w:"],
        vec!["-c", "y/16", "-c", "v:1,2,2"],
        vec!["-d", "1", "-s"],
        vec!["-d", "5"],
        vec!["-F", "v,1,9"],
        vec!["-F", "*,1,5"],
        vec!["-F", "v,2|1,5"],
        vec!["-F", "v&w,1,3"],
        vec!["-d", "4", "-F", "none"],
    ] {
        let ours = tmp.path().join("ours.zarr");
        let theirs = tmp.path().join("theirs.nc");
        let _ = fs::remove_file(&theirs);
        let mut a: Vec<&str> = flags.clone();
        a.push("--overwrite");
        let (i, o, t) = (path_str(&zarr), path_str(&ours), path_str(&theirs));
        a.extend([i.as_str(), o.as_str()]);
        copy(&a);
        let mut b: Vec<String> = flags.iter().map(|s| (*s).to_string()).collect();
        b.extend([path_str(&nc), t.clone()]);
        let status = Command::new("nccopy").args(&b).status().unwrap();
        assert!(status.success(), "nccopy {b:?}");
        let theirs_s = Command::new("ncdump").args(["-hs", &t]).output().unwrap();
        let theirs_s = String::from_utf8_lossy(&theirs_s.stdout).into_owned();
        let ours_s = dump(&["-hs", &o]);
        // NCZarr has no contiguous storage: netcdf-c stores such a variable as one
        // chunk, as nczcopy does.
        let theirs_s = theirs_s.replace(
            "w:_Storage = \"contiguous\" ;",
            "w:_Storage = \"chunked\" ;\n\t\tw:_ChunkSizes = 32, 64 ;",
        );
        assert_eq!(
            special_lines(&ours_s, &names),
            special_lines(&theirs_s, &names),
            "flags {flags:?}"
        );
        // And the values are the input's.
        let data = |t: &str| t[t.find("data:").unwrap_or(0)..].to_string();
        assert_eq!(
            data(&dump(&["-n", "f", &o])),
            data(&dump(&["-n", "f", &path_str(&zarr)]))
        );
    }
}

#[test]
fn codecs_chosen_directly_compress_for_real() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("f.cdl");
    fs::write(&cdl, FLAGS_CDL).unwrap();
    let zarr = tmp.path().join("f.zarr");
    run("nczgen", &["-o", &path_str(&zarr), &path_str(&cdl)]).success();
    for codec in [
        "zstd",
        "zstd:level=9",
        "blosc:cname=lz4,clevel=5,shuffle=1",
        "lz4",
        "zlib:level=4",
        "gzip",
        "bz2",
        r#"{"id": "zstd", "level": 1}"#,
    ] {
        let out = tmp.path().join("c.zarr");
        copy(&[
            "-O",
            "--codec",
            codec,
            "-s",
            &path_str(&zarr),
            &path_str(&out),
        ]);
        assert_equal_datasets(&zarr, &out, codec);
        let zarray = fs::read_to_string(out.join("v/.zarray")).unwrap();
        let id = codec
            .split([':', '"'])
            .find(|s| ["zstd", "blosc", "lz4", "zlib", "gzip", "bz2"].contains(s))
            .unwrap_or(codec);
        assert!(
            zarray.contains(&format!("\"id\": \"{id}\"")),
            "{codec}: {zarray}"
        );
        assert!(zarray.contains("shuffle"), "{codec}: {zarray}");
    }
    // -d 0 removes every filter.
    let out = tmp.path().join("d0.zarr");
    copy(&["-d", "0", &path_str(&zarr), &path_str(&out)]);
    let zarray = fs::read_to_string(out.join("v/.zarray")).unwrap();
    assert!(zarray.contains("\"compressor\": null") && zarray.contains("\"filters\": null"));
}

#[test]
fn rechunking_keeps_every_value_with_ragged_edges_and_unlimited_dimensions() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("r.cdl");
    let values: Vec<String> = (0..7 * 11 * 5).map(|i| i.to_string()).collect();
    fs::write(
        &cdl,
        format!(
            "netcdf r {{\ndimensions:\n\tt = UNLIMITED ;\n\ty = 11 ;\n\tx = 5 ;\nvariables:\n\tint v(t, y, x) ;\n\t\tv:_ChunkSizes = 2, 3, 5 ;\n\t\tv:_FillValue = -1 ;\n\tdouble t(t) ;\ndata:\n v = {} ;\n t = 1, 2, 3 ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let input = tmp.path().join("r.zarr");
    run("nczgen", &["-o", &path_str(&input), &path_str(&cdl)]).success();
    let expected = dump(&["-n", "r", &path_str(&input)]);
    for spec in ["t/3,y/4,x/2", "v:7,11,5", "v:1,1,1", "y/", "t/10"] {
        let out = tmp.path().join("o.zarr");
        copy(&[
            "-O",
            "-c",
            spec,
            "--memory",
            "1M",
            &path_str(&input),
            &path_str(&out),
        ]);
        assert_equal_datasets(&input, &out, &format!("-c {spec}"));
    }
    // -u: the unlimited dimension becomes fixed, the values stay.
    let out = tmp.path().join("u.zarr");
    copy(&["-u", &path_str(&input), &path_str(&out)]);
    let fixed = dump(&["-n", "r", &path_str(&out)]);
    assert!(fixed.contains("\tt = 7 ;"), "{fixed}");
    assert_eq!(
        fixed.replace("\tt = 7 ;", "\tt = UNLIMITED ; // (7 currently)"),
        expected
    );
    // Automatic chunks: ncgen's rule for the unlimited dimension (one record a
    // chunk), the fixed ones whole within 256 bytes.
    let out = tmp.path().join("a.zarr");
    copy(&["--chunks", "auto=256", &path_str(&input), &path_str(&out)]);
    assert_eq!(dump(&["-n", "r", &path_str(&out)]), expected);
    let s = dump(&["-hs", &path_str(&out)]);
    assert!(s.contains("v:_ChunkSizes = 1, 11, 5 ;"), "{s}");
}

#[test]
fn chunks_of_only_fill_are_not_written() {
    let s = TempStore::new("sparse.zarr");
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("s.cdl");
    fs::write(
        &cdl,
        "netcdf s {\ndimensions:\n\tx = 8 ;\nvariables:\n\tint v(x) ;\n\t\tv:_ChunkSizes = 2 ;\n\tint n(x) ;\n\t\tn:_ChunkSizes = 2 ;\n\t\tn:_NoFill = \"true\" ;\ndata:\n v = 1, 2, _, _, _, _, 7, _ ;\n n = 0, 0, 0, 0, 0, 0, 0, 0 ;\n}\n",
    )
    .unwrap();
    run("nczgen", &["-o", &s.path_str(), &path_str(&cdl)]).success();
    assert!(
        s.path().join("v/1").exists(),
        "nczgen writes every chunk, as ncgen"
    );
    let out = tmp.path().join("o.zarr");
    copy(&[&s.path_str(), &path_str(&out)]);
    let chunks = |v: &str| {
        let mut c: Vec<String> = fs::read_dir(out.join(v))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        c.sort();
        c
    };
    assert_eq!(chunks("v"), ["0", "3"]);
    assert_eq!(
        chunks("n").len(),
        4,
        "without a fill value every chunk is written"
    );
    assert_eq!(
        dump(&["-n", "s", &path_str(&out)]),
        dump(&["-n", "s", &s.path_str()])
    );
}

#[test]
fn bad_requests_fail_in_one_line_and_leave_the_target_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let input = TempStore::nczarr_sample("in.zarr");
    let target = tmp.path().join("t.zarr");
    let old = TempStore::nczarr_sample("old.zarr");
    copy(&[&old.path_str(), &path_str(&target)]);
    let before = dump(&["-n", "x", &path_str(&target)]);
    let t = path_str(&target);
    let i = input.path_str();
    for (args, expect) in [
        (
            vec!["-c", "z/2", &i, &t],
            "chunk spec 'z/2': z: No such dimension",
        ),
        (
            vec!["-c", "v:1", &i, &t],
            "1 chunk lengths for variable /v, which has 2 dimensions",
        ),
        (vec!["-c", "x/0", &i, &t], "'0' is not a chunk length"),
        (vec!["-F", "v,4,4,8", &i, &t], "szip"),
        (vec!["--codec", "snappy", &i, &t], "unknown codec 'snappy'"),
        (vec!["-d", "12", &i, &t], "invalid deflation level: 12"),
        (vec!["-v", "w", &i, &t], "w: No such variable"),
        (vec!["-k", "cdf5", &i, &t], "cannot be stored as NCZarr"),
        (vec![&i, &i], "a dataset cannot be copied onto itself"),
        (vec!["--memory", "lots", &i, &t], "is not a size"),
        (vec!["--part", "5/4", &i, &t], "is not K/N"),
        (
            vec![&i, &t],
            "t.zarr: a dataset already exists (x = 2, y = 3); nothing was written: --append adds to it, --overwrite replaces it",
        ),
    ] {
        // Asked to replace the target, each request still fails before touching it.
        let mut args = args;
        if !(args.len() == 2 && args[1] == t) {
            args.insert(0, "--overwrite");
        }
        let e = run("nczcopy", &args).fails_with_one_line(1);
        assert!(
            e.starts_with("nczcopy: ") && e.contains(expect),
            "{args:?}: {e}"
        );
        assert_eq!(
            dump(&["-n", "x", &t]),
            before,
            "{args:?} touched the target"
        );
    }
    let e = run(
        "nczcopy",
        &["-O", &path_str(&tmp.path().join("none.zarr")), &t],
    )
    .fails_with_one_line(1);
    assert!(e.contains("no such file or directory"), "{e}");
}

#[test]
fn progress_lines_when_asked_and_a_dry_run_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let input = data_dir().join("golden/stores/nc410-nczarr/coords.file");
    let out = tmp.path().join("p.zarr");
    let r = run(
        "nczcopy",
        &["--progress", &path_str(&input), &path_str(&out)],
    );
    assert!(r.output.status.success());
    assert!(
        r.stderr().contains("nczcopy: progress: /"),
        "{}",
        r.stderr()
    );
    assert!(
        r.stderr().lines().last().unwrap_or("").contains("chunks"),
        "{}",
        r.stderr()
    );
    let q = run(
        "nczcopy",
        &["-O", "--quiet", &path_str(&input), &path_str(&out)],
    );
    q.success();
    let dry = tmp.path().join("dry.zarr");
    let r = copy(&[
        "--dry-run",
        "-c",
        "lat/1",
        &path_str(&input),
        &path_str(&dry),
    ]);
    assert!(!dry.exists());
    assert!(r.stdout().contains("chunks:"), "{}", r.stdout());
    assert!(r
        .stdout()
        .lines()
        .last()
        .unwrap_or("")
        .starts_with("total: "));
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
fn a_missing_output_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    let r = run("nczcopy", &[&input]);
    assert_eq!(r.code(), 2, "{}", r.stderr());
    assert!(r.stderr().contains("OUTPUT is required"), "{}", r.stderr());
}

#[test]
fn dry_run_names_the_output_kind_the_padding_and_too_little_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("m.cdl");
    fs::write(
        &cdl,
        "netcdf m {\ndimensions:\n\tt = 365 ;\n\ty = 180 ;\n\tx = 36 ;\nvariables:\n\tfloat v(t, y, x) ;\n\t\tv:_ChunkSizes = 1, 180, 36 ;\n}\n",
    )
    .unwrap();
    let maps = tmp.path().join("maps.zarr").to_string_lossy().into_owned();
    run("nczgen", &["-o", &maps, &cdl.to_string_lossy()]).success();
    let out = tmp.path().join("o.zarr").to_string_lossy().into_owned();
    let r = run(
        "nczcopy",
        &[
            "--dry-run",
            "--memory",
            "1K",
            "-c",
            "t/365,y/10,x/10",
            &maps,
            &out,
        ],
    );
    assert!(r.output.status.success(), "{}", r.stderr());
    let plan = r.stdout();
    assert!(
        plan.starts_with("output: NCZarr") && plan.contains("as the input's Zarr version"),
        "{plan}"
    );
    // 180 in chunks of 10 and 36 in chunks of 10: 36 -> 40 along x, 11.1% more.
    assert!(
        plan.contains("9460800 bytes to read; 10512000 bytes stored before compression (11.1% padding in edge chunks)"),
        "{plan}"
    );
    let err = r.stderr();
    assert!(
        err.contains("--memory 1K is below the least a copy uses; using 1M"),
        "{err}"
    );
    assert!(
        err.contains("variable /v: with --memory 1M, each input chunk is read about 72 times")
            && err.contains("reads each about once"),
        "{err}"
    );
    assert!(!std::path::Path::new(&out).exists());
    // A Zarr v3 input copies to Zarr v3 by default.
    let v3 = tmp.path().join("v3.zarr").to_string_lossy().into_owned();
    run("nczcopy", &["-k", "zarr3", &maps, &v3]).success();
    let r = run("nczcopy", &["--dry-run", &v3, &out]);
    assert!(
        r.stdout()
            .starts_with("output: Zarr version 3, as the input's"),
        "{}",
        r.stdout()
    );
    run("nczcopy", &[&v3, &out]).success();
    assert!(tmp.path().join("o.zarr/zarr.json").exists());
}

#[test]
fn progress_into_a_log_says_how_far_a_long_variable_is() {
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..400).map(|i| i.to_string()).collect();
    let cdl = tmp.path().join("p.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf p {{\ndimensions:\n\tn = 400 ;\nvariables:\n\tint v(n) ;\n\t\tv:_ChunkSizes = 1 ;\ndata:\n v = {} ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let src = tmp.path().join("www/p.zarr");
    fs::create_dir(tmp.path().join("www")).unwrap();
    run(
        "nczgen",
        &["-o", &src.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    // 400 chunks at 80 ms, 16 at a time: about 2 s of one variable.
    let server = RangeServer::start_with_delay(
        &tmp.path().join("www"),
        true,
        Arc::new(|p: &str| p.contains("/v/").then(|| Duration::from_millis(80))),
    );
    let out = tmp.path().join("o.zarr");
    let r = Command::new(exe("nczcopy"))
        .env("NCZCOPY_PROGRESS_EVERY", "0.5")
        .args([
            "--progress",
            &format!("{}/p.zarr", server.url),
            &out.to_string_lossy(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    let ticks = err
        .lines()
        .filter(|l| l.starts_with("nczcopy: progress: /v: ") && l.contains(" bytes ("))
        .count();
    assert!(ticks >= 2, "{err}");
    // The totals line is the copy's, not labelled with its last variable (issue 61).
    let last = err.lines().last().unwrap_or("");
    assert!(last.starts_with("nczcopy: progress: done: "), "{err}");
    assert!(
        !last.contains("/v:") && last.contains(" bytes (100%)"),
        "{err}"
    );
}

/// HDF5 1.10's chunk indexes (fixed array, extensible array, single chunk, v2
/// B-tree), which record no size for unfiltered chunks: a copy moves whole chunks,
/// compressed or not, and dumps as the file does (h5py with `libver="latest"`).
#[test]
fn newest_chunk_indexes_copy_whole_chunks() {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_h5py = Command::new(&py)
        .args(["-c", "import h5py, numpy"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_h5py {
        eprintln!("skipped: no python3 with h5py (set NCZARR_PYTHON)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let h5 = tmp.path().join("latest.h5");
    let script = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w", libver="latest") as f:
    f.create_dataset("fixed", data=np.arange(40, dtype="f4").reshape(4, 10), chunks=(2, 5))
    f.create_dataset("ext", data=np.arange(12, dtype="i4").reshape(6, 2), chunks=(2, 2),
                     maxshape=(None, 2))
    f.create_dataset("two", data=np.arange(12, dtype="i4").reshape(6, 2), chunks=(2, 2),
                     maxshape=(None, None))
    f.create_dataset("single", data=np.arange(6, dtype="i2"), chunks=(6,))
    f.create_dataset("zfixed", data=np.arange(40, dtype="f8").reshape(4, 10), chunks=(2, 5),
                     compression="gzip", shuffle=True)
    f.create_dataset("zext", data=np.arange(12, dtype="i4").reshape(6, 2), chunks=(2, 2),
                     maxshape=(None, 2), compression="gzip")
"#;
    assert!(Command::new(&py)
        .args(["-c", script])
        .arg(&h5)
        .status()
        .unwrap()
        .success());
    let h5s = h5.to_string_lossy().to_string();
    let want = run("nczdump", &["-n", "x", &h5s]).stdout();
    assert!(want.contains("fixed ="), "{want}");
    let zarr = tmp.path().join("l.zarr");
    run("nczcopy", &[&h5s, &zarr.to_string_lossy()]).success();
    run("nczdump", &["-n", "x", &zarr.to_string_lossy()])
        .success()
        .stdout_is(&want);
    assert_eq!(fs::read(zarr.join("fixed/1.1")).unwrap().len(), 2 * 5 * 4);
    assert_eq!(fs::read(zarr.join("single/0")).unwrap().len(), 6 * 2);
}
