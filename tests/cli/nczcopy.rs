//! nczcopy: lossless copies of every peer's datasets through every store layout, nccopy's
//! flags (against nccopy's own output where it can make it), rechunking, subsets, the
//! memory budget, killed runs, copies in parts, bad specifications.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{assert_equal_datasets, data_dir, first_diff, have, run, Run, TempStore};

pub(crate) fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// nczcopy with `args`; must succeed.
pub(crate) fn copy(args: &[&str]) -> Run {
    let r = run("nczcopy", args);
    r.success();
    r
}

/// `nczdump args`, which must succeed.
pub(crate) fn dump(args: &[&str]) -> String {
    let r = run("nczdump", args);
    r.success();
    r.stdout()
}

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

/// Groups, coordinate variables and a variable name used in three groups.
pub(crate) const SUBSET_CDL: &str = "netcdf s {
dimensions:
\ttime = UNLIMITED ;
\tlat = 2 ;
variables:
\tdouble time(time) ;
\t\ttime:units = \"days since 2000-01-01\" ;
\tfloat lat(lat) ;
\tfloat temp(time, lat) ;
\t\ttemp:_FillValue = -1.f ;
\tint count(time) ;
data:
 time = 1, 2, 3 ;
 lat = 10, 20 ;
 temp = 1, 2, 3, 4, 5, 6 ;
 count = 7, 8, 9 ;

group: obs {
  dimensions:
  \tstation = 2 ;
  variables:
  \tint station(station) ;
  \tfloat temp(time, station) ;
  \tshort flag(station) ;
  data:
   station = 100, 200 ;
   temp = 11, 12, 13, 14, 15, 16 ;
   flag = 1, 0 ;

  group: raw {
    variables:
    \tint n ;
    data:
     n = 5 ;
    } // group raw
  } // group obs

group: model {
  variables:
  \tfloat temp(time, lat) ;
  // group attributes:
  \t\t:name = \"m\" ;
  data:
   temp = 21, 22, 23, 24, 25, 26 ;
  } // group model
}
";

/// The variables (as `group/name`) a dump declares, and those it has values for.
fn declared_and_valued(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut group, mut declared, mut valued) = (Vec::<String>::new(), Vec::new(), Vec::new());
    let mut section = "";
    let mut statement = String::new();
    for line in text.lines() {
        let t = line.trim();
        let full = |group: &[String], name: &str| {
            let mut p = group.to_vec();
            p.push(name.to_string());
            p.join("/")
        };
        if let Some(g) = t.strip_prefix("group: ") {
            group.push(g.trim_end_matches(" {").to_string());
            section = "";
        } else if t.starts_with("} // group") {
            group.pop();
        } else if t.ends_with(':') && !t.contains(' ') {
            section = if t == "variables:" || t == "data:" {
                t
            } else {
                ""
            };
        } else if section == "variables:" && t.ends_with(" ;") && !t.contains(':') {
            if let Some(decl) = t.split_whitespace().nth(1) {
                let name = decl.split('(').next().unwrap_or(decl);
                declared.push(full(&group, name));
            }
        } else if section == "data:" && !t.is_empty() {
            statement.push_str(t);
            statement.push(' ');
            if t.ends_with(';') {
                if let Some((name, values)) = statement.split_once(" = ") {
                    if values.chars().any(|c| c.is_ascii_digit()) {
                        valued.push(full(&group, name.trim()));
                    }
                }
                statement.clear();
            }
        }
    }
    (declared, valued)
}

#[test]
fn subsets_follow_nccopy() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("s.cdl");
    fs::write(&cdl, SUBSET_CDL).unwrap();
    let input = tmp.path().join("in.zarr");
    run("nczgen", &["-o", &path_str(&input), &path_str(&cdl)]).success();
    let subset = |args: &[&str]| {
        let out = tmp.path().join("s.zarr");
        let mut a = args.to_vec();
        let (i, o) = (path_str(&input), path_str(&out));
        a.extend([i.as_str(), o.as_str()]);
        copy(&a);
        let text = dump(&["-n", "s", &o]);
        let (d, v) = declared_and_valued(&text);
        let _ = fs::remove_dir_all(&out);
        (d.join(" "), v.join(" "))
    };
    let all = "time lat temp count obs/station obs/temp obs/flag obs/raw/n model/temp";
    assert_eq!(subset(&[]), (all.into(), all.into()));
    // -V: only the variables named (a plain name in any group, a path exactly one),
    // with the coordinate variables of their dimensions.
    assert_eq!(
        subset(&["-V", "temp"]),
        (
            "time lat temp obs/station obs/temp model/temp".into(),
            "time lat temp obs/station obs/temp model/temp".into()
        )
    );
    assert_eq!(
        subset(&["-V", "/obs/temp,count"]),
        (
            "time count obs/station obs/temp".into(),
            "time count obs/station obs/temp".into()
        )
    );
    // -v: every definition, values only for those variables and their coordinates.
    assert_eq!(
        subset(&["-v", "obs/flag"]),
        (all.into(), "obs/station obs/flag".into())
    );
    // -G: only those groups and the groups above them (with the coordinate variables
    // their variables need); -g: every definition, values for those groups' variables.
    assert_eq!(
        subset(&["-G", "obs"]),
        (
            "time obs/station obs/temp obs/flag".into(),
            "time obs/station obs/temp obs/flag".into()
        )
    );
    assert_eq!(
        subset(&["-g", "model"]),
        (all.into(), "time lat model/temp".into())
    );
    // -V and -G together: the named variables within the named groups.
    assert_eq!(
        subset(&["-V", "temp", "-G", "model"]),
        ("time lat model/temp".into(), "time lat model/temp".into())
    );
    let e = run(
        "nczcopy",
        &[
            "-V",
            "nope",
            &path_str(&input),
            &path_str(&tmp.path().join("n.zarr")),
        ],
    )
    .fails_with_one_line(1);
    assert!(e.ends_with("nope: No such variable"), "{e}");
    let e = run(
        "nczcopy",
        &[
            "-G",
            "nogroup",
            &path_str(&input),
            &path_str(&tmp.path().join("n.zarr")),
        ],
    )
    .fails_with_one_line(1);
    assert!(e.ends_with("nogroup: No such group"), "{e}");
    assert!(!tmp.path().join("n.zarr").exists());
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
