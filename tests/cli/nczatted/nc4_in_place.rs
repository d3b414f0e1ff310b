//! nczatted on netCDF-4 files, in place: the changed object headers are rewritten
//! where they are (the same file: its inode, every hard link sees the edit, the
//! values untouched) for files of ncgen, netCDF4-python and nczgen; after every edit
//! of a series ncdump reads what it reads after the same ncatted edits, netCDF4-python
//! and h5py read the same attributes (netcdf-c's own kept), h5dump reads the file
//! whole, and libhdf5 edits it further; an edit stopped at any of its writes leaves a
//! file that reads as before, or one the next edit completes.

use std::fs;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{header, made, ready};
use crate::util::peers::python_with_readers;
use crate::util::{data_dir, have, run, s};

/// The file `maker` writes in `dir`: ncgen's, nczgen's or netCDF4-python's.
fn written(maker: &str, dir: &Path, py: Option<&str>) -> Option<PathBuf> {
    let cdl = data_dir().join("nczatted/a.cdl");
    let nc = dir.join(format!("{maker}.nc"));
    match maker {
        "ncgen" => return Some(made(dir, "nc4")),
        "nczgen" => {
            run("nczgen", &["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
        }
        _ => {
            let ok = Command::new(py?)
                .arg(data_dir().join("nczatted/stores.py"))
                .args(["nc4", &s(&nc)])
                .status()
                .unwrap();
            assert!(ok.success());
        }
    }
    Some(nc)
}

/// What netCDF4-python and h5py read of the file's attributes.
fn python_reading(py: &str, nc: &Path) -> serde_json::Value {
    super::stores::read(py, "ncfile", nc)
}

/// The values, as nczdump prints them.
fn values(nc: &Path) -> String {
    let text = run("nczdump", &[&s(nc)]).success().stdout();
    text.split("data:").nth(1).unwrap_or_default().to_string()
}

/// `nczatted -h` with `edits` on `nc`, stopped at `point` of its writes (debug builds:
/// `NCZARR_STOP_AT`), as a kill would stop it.
fn stopped_edit(nc: &Path, edits: &[&str], point: &str) {
    let mut args = vec!["-h".to_string()];
    for e in edits {
        args.extend(["-a".to_string(), (*e).to_string()]);
    }
    args.push(s(nc));
    let out = Command::new(crate::util::exe("nczatted"))
        .args(&args)
        .env("NCZARR_STOP_AT", format!("nc4 {point}"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "{point}: not stopped");
}

fn edit(tool: &str, nc: &Path, edits: &[&str]) {
    let mut args = vec!["-h"];
    for e in edits {
        args.extend(["-a", *e]);
    }
    let nc = s(nc);
    args.push(&nc);
    if tool == "ncatted" {
        let ok = Command::new("ncatted").args(&args).status().unwrap();
        assert!(ok.success(), "ncatted {edits:?}");
    } else {
        run(tool, &args).success();
    }
}

#[test]
fn netcdf4_files_are_edited_in_place_as_ncatted_edits_them() {
    if !ready() {
        return;
    }
    let py = python_with_readers();
    let tmp = tempfile::tempdir().unwrap();
    let long = "x".repeat(600);
    let comment = format!("comment,global,o,c,{long}");
    let mut series: Vec<Vec<String>> = [
        &["units,T,o,c,kelvin"][..],
        &[&comment],
        &["s,T,o,sng,one,two"],
        &["units,,d,,"],
        &["title,global,a,c, (more)", "scale,T,m,f,3"],
        &["valid_range,T,d,,", "n,global,c,d,1.5,2.5"],
        &["long_name,sub,o,c,short"],
    ]
    .iter()
    .map(|e| e.iter().map(ToString::to_string).collect())
    .collect();
    // Past the eight attributes HDF5 keeps in a header before it goes dense.
    series.extend((1..=9).map(|k| vec![format!("a{k},global,c,i,{k}")]));
    for maker in ["ncgen", "nczgen", "netCDF4-python"] {
        let dir = tmp.path().join(maker);
        fs::create_dir(&dir).unwrap();
        let Some(nc) = written(maker, &dir, py.as_deref()) else {
            continue;
        };
        let theirs = dir.join("theirs.nc");
        fs::copy(&nc, &theirs).unwrap();
        let other = dir.join("other-name.nc");
        fs::hard_link(&nc, &other).unwrap();
        let (inode, before) = (fs::metadata(&nc).unwrap().ino(), values(&nc));
        for edits in &series {
            let edits: Vec<&str> = edits.iter().map(String::as_str).collect();
            edit("nczatted", &nc, &edits);
            edit("ncatted", &theirs, &edits);
            assert_eq!(header(&nc), header(&theirs), "{maker} {edits:?}");
            assert_eq!(
                fs::metadata(&nc).unwrap().ino(),
                inode,
                "{maker}: rewritten"
            );
        }
        assert_eq!(fs::read(&other).unwrap(), fs::read(&nc).unwrap());
        fs::remove_file(&other).unwrap();
        assert_eq!(values(&nc), before, "{maker}");
        if let Some(py) = &py {
            let (ours, nco) = (python_reading(py, &nc), python_reading(py, &theirs));
            assert_eq!(ours, nco, "{maker}: netCDF4-python and h5py");
        }
        if have("h5dump") {
            let out = Command::new("h5dump").arg(&nc).output().unwrap();
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{maker}: h5dump: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // libhdf5 edits the edited file further.
        edit("ncatted", &nc, &["after,T,c,c,libhdf5", "a1,global,d,,"]);
        edit(
            "ncatted",
            &theirs,
            &["after,T,c,c,libhdf5", "a1,global,d,,"],
        );
        assert_eq!(header(&nc), header(&theirs), "{maker}: libhdf5 after us");
        // A _FillValue is also the dataset's fill value: the file is rewritten.
        edit("nczatted", &nc, &["_FillValue,T,o,f,-1"]);
        edit("ncatted", &theirs, &["_FillValue,T,o,f,-1"]);
        assert_eq!(header(&nc), header(&theirs), "{maker}: _FillValue");
    }
}

/// Stopped after each of its writes (as a kill would stop it), an edit of three
/// headers leaves a file ncdump reads as before, until the last step has begun; from
/// there, the next edit completes it first.
#[test]
fn a_stopped_netcdf4_edit_reads_as_before_or_is_completed() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = made(d, "nc4");
    // time, T and the root group.
    let edits = ["units,,o,c,m", "title,global,o,c,stopped"];
    let next = ["x,global,c,c,y"];
    let whole = d.join("whole.nc");
    fs::copy(&nc, &whole).unwrap();
    edit("nczatted", &whole, &edits);
    edit("nczatted", &whole, &next);
    let only_next = d.join("only-next.nc");
    fs::copy(&nc, &only_next).unwrap();
    edit("nczatted", &only_next, &next);
    for (point, completed) in [
        ("tail", false),
        ("journal", true),
        ("switch 1", true),
        ("switch 2", true),
    ] {
        let copy = d.join(format!("{}.nc", point.replace(' ', "-")));
        fs::copy(&nc, &copy).unwrap();
        stopped_edit(&copy, &edits, point);
        if !completed {
            assert_eq!(header(&copy), header(&nc), "{point}: reads as before");
        }
        edit("nczatted", &copy, &next);
        let expected = if completed { &whole } else { &only_next };
        assert_eq!(header(&copy), header(expected), "{point}");
        let journal = d.join(format!(
            ".{}.nczedit",
            copy.file_name().unwrap().to_string_lossy()
        ));
        assert!(!journal.exists(), "{point}");
    }
}

/// What netcdf-c refuses in a netCDF-4 file is refused before anything is written:
/// the netCDF-4 types in a classic model file, the names netcdf-c keeps for itself,
/// names too long for ncdump; a stopped edit whose file another program changed since
/// is not completed blindly.
#[test]
fn what_netcdf_refuses_is_refused_and_a_stale_record_is_not_replayed() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc4 = made(d, "nc4");
    let nc7 = made(d, "nc7");
    let long = format!("{},T,c,c,x", "n".repeat(256));
    for (tool, nc, args, says) in [
        (
            "nczatted",
            &nc7,
            &["-a", "n,T,c,ub,1"][..],
            "cannot be stored in this format",
        ),
        (
            "nczatted",
            &nc7,
            &["-a", "s,T,c,sng,a"][..],
            "cannot be stored in this format",
        ),
        (
            "nczatted",
            &nc4,
            &["-a", "CLASS,x,c,c,X"][..],
            "keeps for itself",
        ),
        (
            "nczatted",
            &nc4,
            &["-a", "_Codecs,T,o,c,x"][..],
            "keeps for itself",
        ),
        (
            "nczrename",
            &nc4,
            &["-a", "T@units,NAME"][..],
            "keeps for itself",
        ),
        (
            "nczatted",
            &nc4,
            &["-a", long.as_str()][..],
            "longer than 255 bytes",
        ),
    ] {
        let before = fs::read(nc).unwrap();
        let mut all = vec!["-h"];
        all.extend(args);
        let path = s(nc);
        all.push(&path);
        let e = run(tool, &all).fails_with_one_line(1);
        assert!(e.contains(says), "{tool} {args:?}: {e}");
        assert_eq!(fs::read(nc).unwrap(), before, "{tool} {args:?}");
    }
    // Stopped after its first header; then ncatted changes that header.
    stopped_edit(&nc4, &["units,,o,c,m", "title,global,o,c,t"], "switch 1");
    let journal = d.join(".a-nc4.nc.nczedit");
    assert!(journal.exists());
    edit("ncatted", &nc4, &["units,,o,c,other"]);
    let before = fs::read(&nc4).unwrap();
    let e = run("nczatted", &["-h", "-a", "x,global,c,c,y", &s(&nc4)]).fails_with_one_line(1);
    assert!(e.contains("changed since by another program"), "{e}");
    assert_eq!(fs::read(&nc4).unwrap(), before);
    assert!(journal.exists(), "the record is the user's to look at");
}

/// A file another program reads through libhdf5 (which locks it) is not replaced
/// under it by a rewrite, nor edited in place.
#[test]
fn a_file_open_in_libhdf5_is_refused() {
    let Some(py) = python_with_readers() else {
        return;
    };
    if !have("ncgen") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let nc = made(tmp.path(), "nc4");
    let mut reader = Command::new(&py)
        .args([
            "-c",
            "import h5py, sys, time\nf = h5py.File(sys.argv[1], 'r')\nprint('open', flush=True)\ntime.sleep(60)",
            &s(&nc),
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(reader.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "open");
    let before = fs::read(&nc).unwrap();
    for (tool, args) in [
        ("nczatted", &["-h", "-a", "units,T,o,c,m"][..]),
        ("nczrename", &["-h", "-v", "T,t"][..]),
    ] {
        let mut all = args.to_vec();
        let path = s(&nc);
        all.push(&path);
        let e = run(tool, &all).fails_with_one_line(1);
        assert!(e.contains("is open in another program"), "{tool}: {e}");
    }
    let _ = reader.kill();
    let _ = reader.wait();
    assert_eq!(fs::read(&nc).unwrap(), before);
}

/// A changed `_FillValue` changes the values that held the old one, as ncatted does
/// (what was missing stays missing; a created or deleted one changes no value), in
/// classic and netCDF-4 files alike.
#[test]
fn a_changed_fill_value_keeps_the_missing_values_missing() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let dump = |nc: &Path| {
        let out = Command::new("ncdump").arg(nc).output().unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    for kind in ["classic", "nc4"] {
        let nc = made(d, kind);
        for edits in [
            &["_FillValue,T,m,f,-1"][..],
            &["_FillValue,T,d,,"],
            &["_FillValue,n,c,s,2"],
        ] {
            let (ours, theirs) = (d.join("ours.nc"), d.join("theirs.nc"));
            fs::copy(&nc, &ours).unwrap();
            fs::copy(&nc, &theirs).unwrap();
            edit("nczatted", &ours, edits);
            edit("ncatted", &theirs, edits);
            assert_eq!(dump(&ours), dump(&theirs), "{kind} {edits:?}");
        }
        assert!(dump(&nc).contains("4, 5, _ ;"), "{}", dump(&nc));
    }
}
