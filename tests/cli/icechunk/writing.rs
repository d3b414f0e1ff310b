use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::icechunk::{assert_reads_as, ice, ice_python};
use crate::util::{data_dir, run, s};

/// `data/icechunk/w.cdl` as a netCDF-4 file in `dir`: every type xarray decodes
/// (masked floats, packed shorts, strings, chars, CF times), global attributes.
fn sample_nc(dir: &Path) -> PathBuf {
    let nc = dir.join("w.nc");
    run(
        "nczgen",
        &[
            "-k",
            "nc4",
            "-o",
            &s(&nc),
            &s(&data_dir().join("icechunk/w.cdl")),
        ],
    )
    .success();
    nc
}

/// `w.cdl` with `time` and the time series `note` as given, as a netCDF-4 file.
fn day(dir: &Path, name: &str, time: &str, note: &str) -> PathBuf {
    let cdl = fs::read_to_string(data_dir().join("icechunk/w.cdl"))
        .unwrap()
        .replace(" time = 0, 6 ;", &format!(" time = {time} ;"))
        .replace("\"calm\", \"windy\"", note);
    let cdl_path = dir.join(format!("{name}.cdl"));
    fs::write(&cdl_path, cdl).unwrap();
    let nc = dir.join(format!("{name}.nc"));
    run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl_path)]).success();
    nc
}

/// Icechunk-python's history of main: `id message` lines, then branches and tags.
fn log(py: &str, repo: &Path) -> String {
    ice(py, &["log", &s(repo)])
}

#[test]
fn a_copy_is_one_snapshot_that_icechunk_python_reads_as_the_input() {
    let Some(py) = ice_python("a_copy_is_one_snapshot") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let nc = sample_nc(tmp.path());
    let repo = tmp.path().join("w.ice");
    run(
        "nczcopy",
        &["-k", "icechunk", "--tag", "v1", &s(&nc), &s(&repo)],
    )
    .success();
    assert_reads_as(&py, &repo, "branch:main", &nc);
    assert_reads_as(&py, &repo, "tag:v1", &nc);
    run("nczcmp", &[&s(&repo), &s(&nc)]).success();
    // One snapshot over the initial one, its message the command line.
    let history = log(&py, &repo);
    let lines: Vec<&str> = history.lines().collect();
    assert_eq!(lines.len(), 2 + 1 + 1, "{history}");
    assert!(
        lines[0].ends_with(&format!(
            "nczcopy -k icechunk --tag v1 {} {}",
            s(&nc),
            s(&repo)
        )),
        "{history}"
    );
    assert!(lines[1].ends_with("Repository initialized"), "{history}");
    // Nothing else is left beside it.
    let left: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // `-m` is the message for a repository (nccopy's buffer size otherwise).
    let other = tmp.path().join("m.ice");
    run(
        "nczcopy",
        &["-k", "icechunk", "-m", "daily run", &s(&nc), &s(&other)],
    )
    .success();
    assert!(log(&py, &other)
        .lines()
        .next()
        .unwrap()
        .ends_with(" daily run"));
}

#[test]
fn an_append_is_one_new_snapshot_and_a_refused_one_commits_nothing() {
    let Some(py) = ice_python("an_append_is_one_new_snapshot") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let a = day(d, "a", "0, 6", "\"calm\", \"windy\"");
    let b = day(d, "b", "12, 18", "\"still\", \"gusty\"");
    let joined = d.join("ab.nc");
    run("nczcopy", &[&s(&a), &s(&b), &s(&joined)]).success();
    let repo = d.join("r.ice");
    run("nczcopy", &["-k", "icechunk", &s(&a), &s(&repo)]).success();
    let first = log(&py, &repo).split(' ').next().unwrap().to_string();
    run(
        "nczcopy",
        &[
            "--append",
            "--message",
            "day two",
            "--tag",
            "d2",
            &s(&b),
            &s(&repo),
        ],
    )
    .success();
    assert_reads_as(&py, &repo, "branch:main", &joined);
    assert_reads_as(&py, &repo, "tag:d2", &joined);
    // The snapshot before is untouched.
    assert_reads_as(&py, &repo, &format!("snapshot:{first}"), &a);
    let history = log(&py, &repo);
    assert!(
        history.lines().next().unwrap().ends_with(" day two"),
        "{history}"
    );
    // An append refused (a string wider than the variable stores) commits nothing.
    let wide = day(d, "c", "24, 30", "\"calm\", \"a storm of the century\"");
    let e = run("nczcopy", &["--append", &s(&wide), &s(&repo)]).fails_with_one_line(1);
    assert!(e.contains("strings are never cut"), "{e}");
    assert_eq!(log(&py, &repo), history);
    assert_reads_as(&py, &repo, "branch:main", &joined);
}

#[test]
fn a_repository_is_replaced_only_when_asked_and_its_history_is_kept() {
    let Some(py) = ice_python("a_repository_is_replaced_only_when_asked") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let a = day(d, "a", "0, 6", "\"calm\", \"windy\"");
    let b = day(d, "b", "12, 18", "\"still\", \"a gale\"");
    let repo = d.join("r.ice");
    run(
        "nczcopy",
        &["-k", "icechunk", "--tag", "v1", &s(&a), &s(&repo)],
    )
    .success();
    let before = log(&py, &repo);
    // Without -k: an existing repository is written as a repository, and refused.
    let e = run("nczcopy", &[&s(&b), &s(&repo)]).fails_with_one_line(1);
    assert!(
        e.contains("an Icechunk repository already exists")
            && e.contains("--append")
            && e.contains("--overwrite")
            && e.contains("history is kept"),
        "{e}"
    );
    assert_eq!(log(&py, &repo), before);
    // An existing tag is refused before anything is written.
    let e = run("nczcopy", &["-O", "--tag", "v1", &s(&b), &s(&repo)]).fails_with_one_line(1);
    assert!(e.contains("tag 'v1' already"), "{e}");
    assert_eq!(log(&py, &repo), before);
    run("nczcopy", &["-O", &s(&b), &s(&repo)]).success();
    assert_reads_as(&py, &repo, "branch:main", &b);
    assert_reads_as(&py, &repo, "tag:v1", &a);
    assert_eq!(log(&py, &repo).lines().count(), before.lines().count() + 1);
}

#[test]
fn places_a_write_cannot_go_are_refused_in_one_line() {
    let Some(py) = ice_python("places_a_write_cannot_go") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let nc = sample_nc(tmp.path());
    let repo = tmp.path().join("r.ice");
    run("nczcopy", &["-k", "icechunk", &s(&nc), &s(&repo)]).success();
    let before = log(&py, &repo);
    // Inside a repository: its objects are its own.
    for inside in [repo.join("new.zarr"), repo.join("snapshots")] {
        let e = run("nczcopy", &[&s(&nc), &s(&inside)]).fails_with_one_line(1);
        assert!(
            e.contains("inside the dataset") && e.contains("Icechunk repository"),
            "{e}"
        );
    }
    // A tag or snapshot is not written; a new repository starts on main.
    let e = run("nczcopy", &["-O", &s(&nc), &format!("{}#tag=x", s(&repo))]).fails_with_one_line(1);
    assert!(e.contains("cannot be written"), "{e}");
    let fresh = tmp.path().join("new.ice");
    let e = run(
        "nczcopy",
        &[
            "-k",
            "icechunk",
            &s(&nc),
            // A plain path too: a fragment of known keys on a name not yet there.
            &format!("{}#branch=dev", s(&fresh)),
        ],
    )
    .fails_with_one_line(1);
    assert!(e.contains("first snapshot goes on main"), "{e}");
    assert!(!fresh.exists());
    // Tags and branches no one could name again are refused before anything is written.
    // (an append to the repository, a new repository)
    let on_branch = format!("{}#branch=a..b", s(&repo));
    for (tag, appended, created) in [
        ("", s(&repo), s(&fresh)),
        ("two words", s(&repo), s(&fresh)),
        ("-v1", s(&repo), s(&fresh)),
        (
            "ok",
            on_branch.clone(),
            format!("{}#branch=a..b", s(&fresh)),
        ),
    ] {
        let tag = format!("--tag={tag}");
        for args in [
            vec!["--append", &tag, &s(&nc), &appended],
            vec!["-k", "icechunk", &tag, &s(&nc), &created],
        ] {
            let e = run("nczcopy", &args).fails_with_one_line(1);
            assert!(e.contains(" name: one word"), "{args:?}: {e}");
        }
    }
    assert!(!fresh.exists());
    assert_eq!(log(&py, &repo), before);
}

/// A Zarr v2 store of `rows` x 4096 floats in chunks of 64 rows: a copy that takes a
/// while.
fn big_store(dir: &Path, name: &str, rows: u64) -> PathBuf {
    let st = dir.join(name);
    fs::create_dir_all(st.join("v")).unwrap();
    fs::write(st.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap();
    fs::write(st.join(".zattrs"), r#"{"_ARRAY_DIMENSIONS_unused": 0}"#).unwrap();
    fs::write(
        st.join("v/.zarray"),
        format!(r#"{{"zarr_format": 2, "shape": [{rows}, 4096], "dtype": "<f4", "chunks": [64, 4096], "fill_value": null, "order": "C", "compressor": null, "filters": null}}"#),
    )
    .unwrap();
    fs::write(st.join("v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["y", "x"]}"#).unwrap();
    for c in 0..rows / 64 {
        let chunk: Vec<u8> = (0..64 * 4096u64)
            .flat_map(|i| ((c * 64 * 4096 + i) as f32).to_le_bytes())
            .collect();
        fs::write(st.join(format!("v/{c}.0")), chunk).unwrap();
    }
    st
}

#[test]
fn a_killed_write_or_append_leaves_the_branch_at_its_snapshot() {
    let Some(py) = ice_python("a_killed_write_or_append") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = sample_nc(d);
    let repo = d.join("r.ice");
    run("nczcopy", &["-k", "icechunk", &s(&nc), &s(&repo)]).success();
    let before = log(&py, &repo);
    let big = big_store(d, "big.zarr", 4096);
    let chunks_before = count(&repo.join("chunks"));
    for args in [
        vec!["-O", "-d", "9", "--memory", "8M"],
        vec!["-O", "-k", "icechunk", "--memory", "8M"],
    ] {
        let mut child = Command::new(crate::util::exe("nczcopy"))
            .args(&args)
            .arg(&big)
            .arg(&repo)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Killed once it has uploaded chunks into the repository.
        let started = Instant::now();
        while count(&repo.join("chunks")) <= chunks_before + 2
            && started.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(log(&py, &repo), before, "{args:?}");
        assert_reads_as(&py, &repo, "branch:main", &nc);
    }
    // The next run commits.
    run("nczcopy", &["-O", &s(&nc), &s(&repo)]).success();
    assert_eq!(log(&py, &repo).lines().count(), before.lines().count() + 1);
    // An append killed half way: the branch as it was.
    let small = big_store(d, "small.zarr", 64);
    let grown = d.join("g.ice");
    run("nczcopy", &["-k", "icechunk", &s(&small), &s(&grown)]).success();
    let before = log(&py, &grown);
    let chunks_before = count(&grown.join("chunks"));
    let mut child = Command::new(crate::util::exe("nczcopy"))
        .args(["--append", "--concat", "y", "--memory", "8M"])
        .arg(&big)
        .arg(&grown)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while count(&grown.join("chunks")) <= chunks_before + 2
        && started.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(log(&py, &grown), before);
    let dump = run("nczdump", &["-h", &s(&grown)]).success().stdout();
    assert!(dump.contains("\ty = 64 ;"), "{dump}");
}

fn count(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |r| r.count())
}

#[test]
fn virtual_references_are_one_snapshot_icechunk_python_reads_as_the_files() {
    let Some(py) = ice_python("virtual_references_are_one_snapshot") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // Three netCDF-4 files (and VirtualiZarr's repository of them, not used here).
    ice(&py, &["virtual", &s(d)]);
    let files: Vec<String> = (0..3).map(|i| s(&d.join(format!("f{i}.nc")))).collect();
    let repo = d.join("ours.ice");
    let mut args = vec!["-k", "icechunk", "--virtual", "--concat", "time"];
    args.extend(files.iter().map(String::as_str));
    let repo_s = s(&repo);
    args.push(&repo_s);
    run("nczcopy", &args).success();
    let joined = d.join("joined.nc");
    assert_reads_as(&py, &repo, "branch:main", &joined);
    run("nczcmp", &["-d", "-N", &repo_s, &s(&joined)]).success();
    // References, not values: the chunks are not in the repository.
    assert_eq!(count(&repo.join("chunks")), 0);
    // One file is enough; --virtual is an Icechunk output's.
    let one = d.join("one.ice");
    run(
        "nczcopy",
        &["-k", "icechunk", "--virtual", &files[0], &s(&one)],
    )
    .success();
    assert_reads_as(&py, &one, "branch:main", Path::new(&files[0]));
    let e = run("nczcopy", &["--virtual", &files[0], &s(&d.join("x.zarr"))]).fails_with_one_line(1);
    assert!(e.contains("-k icechunk"), "{e}");
    // A file changed after it was referred to is refused, not read wrong.
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    fs::File::options()
        .append(true)
        .open(&files[1])
        .unwrap()
        .set_modified(later)
        .unwrap();
    let e = run("nczdump", &["-v", "tas", &repo_s]).fails_with_one_line(1);
    assert!(
        e.contains("f1.nc changed after the repository referred to it"),
        "{e}"
    );
}

#[test]
fn a_copy_in_parts_is_one_snapshot_made_by_the_finishing_run() {
    let Some(py) = ice_python("a_copy_in_parts_is_one_snapshot") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = sample_nc(d);
    let big = big_store(d, "big.zarr", 256);
    for (input, name) in [(nc.clone(), "w.ice"), (big.clone(), "big.ice")] {
        let repo = d.join(name);
        let (input, out) = (s(&input), s(&repo));
        run(
            "nczcopy",
            &["-k", "icechunk", "--metadata-only", &input, &out],
        )
        .success();
        // Until --finish the repository holds only its initial snapshot.
        let e = run("nczdump", &["-h", &out]).fails_with_one_line(1);
        assert!(e.contains("holds nothing yet"), "{e}");
        let e = run("nczcopy", &["--finish", &out]).fails_with_one_line(1);
        assert!(
            e.contains("parts not finished: 1/2, 2/2") || e.contains("no part has finished"),
            "{e}"
        );
        for part in ["2/2", "1/2"] {
            run("nczcopy", &["-k", "icechunk", "--part", part, &input, &out]).success();
        }
        run("nczcopy", &["--finish", "--message", "in parts", &out]).success();
        let history = log(&py, &repo);
        assert_eq!(history.lines().count(), 2 + 1, "{history}");
        assert!(
            history.lines().next().unwrap().ends_with(" in parts"),
            "{history}"
        );
        run("nczcmp", &[&out, &input]).success();
        // Nothing left beside it.
        assert!(!d.join(format!(".{name}.parts")).exists());
    }
    assert_reads_as(&py, &d.join("w.ice"), "branch:main", &nc);
}

#[test]
fn a_virtual_append_adds_references_as_one_snapshot() {
    let Some(py) = ice_python("a_virtual_append") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ice(&py, &["virtual", &s(d)]);
    let f = |i: usize| s(&d.join(format!("f{i}.nc")));
    let repo = d.join("v.ice");
    let repo_s = s(&repo);
    // The files are small: their 480 bytes of tas referenced, not inlined.
    let small = ["--inline-threshold", "100"];
    run(
        "nczcopy",
        &[
            &["-k", "icechunk", "--virtual", "--concat", "time"][..],
            &small,
            &[&f(0), &f(1), &repo_s],
        ]
        .concat(),
    )
    .success();
    let before = log(&py, &repo);
    // A file stored otherwise (other chunks) is refused, naming the variable.
    let other = d.join("other.nc");
    run("nczcopy", &["-c", "time/1", &f(2), &s(&other)]).success();
    let other_s = s(&other);
    let e = run(
        "nczcopy",
        &[
            &["--append", "--virtual", "--concat", "time"][..],
            &small,
            &[&other_s, &repo_s],
        ]
        .concat(),
    )
    .fails_with_one_line(1);
    assert!(
        e.contains("variable '/tas'") && e.contains("otherwise"),
        "{e}"
    );
    assert_eq!(log(&py, &repo), before);
    run(
        "nczcopy",
        &[
            &[
                "--append",
                "--virtual",
                "--concat",
                "time",
                "--message",
                "third file",
            ][..],
            &small,
            &[&f(2), &repo_s],
        ]
        .concat(),
    )
    .success();
    assert_reads_as(&py, &repo, "branch:main", &d.join("joined.nc"));
    assert_eq!(count(&repo.join("chunks")), 0, "references only");
    let history = log(&py, &repo);
    assert!(
        history.lines().next().unwrap().ends_with(" third file"),
        "{history}"
    );
    // Into a dataset that is no repository: refused.
    let zarr = d.join("plain.zarr");
    run("nczcopy", &[&f(0), &s(&zarr)]).success();
    let e = run(
        "nczcopy",
        &[
            "--append",
            "--virtual",
            "--concat",
            "time",
            &f(1),
            &s(&zarr),
        ],
    )
    .fails_with_one_line(1);
    assert!(
        e.contains("--virtual appends to an Icechunk repository"),
        "{e}"
    );
}

#[test]
fn what_is_not_a_dataset_is_never_replaced_by_a_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = sample_nc(d);
    let thesis = d.join("thesis");
    fs::create_dir(&thesis).unwrap();
    fs::write(thesis.join("chapter1.txt"), "my thesis").unwrap();
    let file = d.join("notes.txt");
    fs::write(&file, "notes").unwrap();
    let nc_s = s(&nc);
    for place in [&thesis, &file] {
        let place_s = s(place);
        for extra in [&[][..], &["-O"][..], &["--metadata-only"][..]] {
            let args = [&["-k", "icechunk"][..], extra, &[&nc_s, &place_s]].concat();
            let e = run("nczcopy", &args).fails_with_one_line(1);
            assert!(e.contains("nothing was written"), "{args:?}: {e}");
        }
    }
    assert_eq!(
        fs::read_to_string(thesis.join("chapter1.txt")).unwrap(),
        "my thesis"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "notes");
    // A Zarr dataset is replaced by a repository only when asked.
    let zarr = d.join("old.zarr");
    run("nczcopy", &[&s(&nc), &s(&zarr)]).success();
    let e = run("nczcopy", &["-k", "icechunk", &s(&nc), &s(&zarr)]).fails_with_one_line(1);
    assert!(e.contains("--overwrite"), "{e}");
    run("nczcopy", &["-O", "-k", "icechunk", &s(&nc), &s(&zarr)]).success();
    run("nczcmp", &[&s(&zarr), &s(&nc)]).success();
}

/// What references cannot do is refused in one line and writes nothing (each was
/// accepted and ignored, a dry run wrote): storage and selection options, a dry run,
/// copies in parts. An enum is referenced as its base integers with CF's flags.
#[test]
fn options_references_cannot_honour_are_refused_and_enums_are_referenced() {
    let Some(py) = ice_python("options_references_cannot_honour") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = sample_nc(d);
    let nc_s = s(&nc);
    let repo = d.join("v.ice");
    run(
        "nczcopy",
        &["-k", "icechunk", "--virtual", &nc_s, &s(&repo)],
    )
    .success();
    let before = log(&py, &repo);
    let json = d.join("r.json");
    run("nczcopy", &["-k", "kerchunk", &nc_s, &s(&json)]).success();
    let json_before = fs::read(&json).unwrap();
    for (extra, says) in [
        (vec!["-d", "5"], "-d: references keep each file's chunks"),
        (vec!["--codec", "zstd"], "--codec: references keep"),
        (vec!["-V", "tas"], "-V: references cover the whole files"),
        (vec!["--dim", "time,0"], "--dim: references cover"),
        (vec!["--exclude", "tas"], "--exclude: references cover"),
        (
            vec!["--dry-run"],
            "--dry-run: references are written in one run",
        ),
        (vec!["--metadata-only"], "--metadata-only: references"),
    ] {
        for (kind, out) in [
            (vec!["-k", "icechunk", "--virtual"], &repo),
            (vec!["-k", "kerchunk"], &json),
        ] {
            let mut args = kind.clone();
            args.extend(["-O"]);
            args.extend(extra.iter().copied());
            let out = s(out);
            args.extend([nc_s.as_str(), out.as_str()]);
            let e = run("nczcopy", &args).fails_with_one_line(1);
            assert!(e.contains(says), "{args:?}: {e}");
        }
    }
    assert_eq!(log(&py, &repo), before);
    assert_eq!(fs::read(&json).unwrap(), json_before);
    // A part before the first run: said so.
    let e = run(
        "nczcopy",
        &[
            "-k",
            "icechunk",
            "--part",
            "1/2",
            &nc_s,
            &s(&d.join("p.ice")),
        ],
    )
    .fails_with_one_line(1);
    assert!(e.contains("run --metadata-only first"), "{e}");
    // A netCDF file where a repository would go: never replaced, and -O not offered.
    let there = d.join("there.nc");
    fs::copy(&nc, &there).unwrap();
    for o in [&[][..], &["-O"][..]] {
        let mut args = vec!["-k", "icechunk"];
        args.extend(o);
        let there_s = s(&there);
        args.extend([nc_s.as_str(), there_s.as_str()]);
        let e = run("nczcopy", &args).fails_with_one_line(1);
        assert!(
            e.contains("a netCDF file is there") && e.contains("never replaces a file"),
            "{e}"
        );
    }
    // An enum: its base integers, its members as flag_values and flag_meanings.
    let cdl = d.join("e.cdl");
    fs::write(
        &cdl,
        "netcdf e {\ntypes:\n  byte enum cloud_t { Clear = 0, Cumulus = 1, Stratus = 2 } ;\n\
         dimensions: t = 4 ;\nvariables:\n  cloud_t cl(t) ;\n  float v(t) ;\n\
         data:\n  cl = Clear, Stratus, Cumulus, Clear ;\n  v = 1, 2, 3, 4 ;\n}\n",
    )
    .unwrap();
    let e_nc = d.join("e.nc");
    run("nczgen", &["-k", "nc4", "-o", &s(&e_nc), &s(&cdl)]).success();
    let e_ice = d.join("e.ice");
    run(
        "nczcopy",
        &["-k", "icechunk", "--virtual", &s(&e_nc), &s(&e_ice)],
    )
    .success();
    let dump = run("nczdump", &[&s(&e_ice)]).success().stdout();
    assert!(
        dump.contains("cl = 0, 2, 1, 0 ;")
            && dump.contains("cl:flag_meanings = \"Clear Cumulus Stratus\" ;"),
        "{dump}"
    );
}
