//! nczatted against NCO's ncatted: the same edits on the same files give the same
//! `ncdump -s -h` (classic and netCDF-4, every mode and type; storage and
//! `_NCProperties` kept); what ncatted refuses is
//! refused and changes nothing (and what it wraps or crashes on, too); the history
//! line; an edit into a copy.

/// netCDF-4 files edited in place, as ncatted (libhdf5) edits them.
mod nc4_in_place;
/// nczrename against NCO's ncrename.
mod rename;
mod rename_stores;
/// Zarr stores edited in place, read by xarray and netCDF4-python.
mod stores;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{data_dir, have, run, s};

/// `data/nczatted/a.cdl` as a netCDF file of `kind` (ncgen's -k) in `dir`.
fn made(dir: &Path, kind: &str) -> PathBuf {
    let nc = dir.join(format!("a-{kind}.nc"));
    let ok = Command::new("ncgen")
        .args([
            "-k",
            kind,
            "-o",
            &s(&nc),
            &s(&data_dir().join("nczatted/a.cdl")),
        ])
        .status()
        .unwrap();
    assert!(ok.success());
    nc
}

/// `ncdump -s -h` of `nc` without its first line (the file's name): the storage of
/// every variable too (chunks, codecs, byte order), and what made the file.
fn header(nc: &Path) -> String {
    let out = Command::new("ncdump")
        .args(["-s", "-h"])
        .arg(nc)
        .output()
        .unwrap();
    assert!(out.status.success(), "ncdump -h {}", nc.display());
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().skip(1).collect::<Vec<_>>().join("\n")
}

/// Run `ncatted` or `nczatted` with `-h` and each of `edits` on a copy of `nc` in
/// `dir`; its exit success and the copy.
fn edited(tool: &str, nc: &Path, dir: &Path, edits: &[&str]) -> (bool, PathBuf) {
    let copy = dir.join(format!("{tool}.nc"));
    fs::copy(nc, &copy).unwrap();
    let mut args = vec!["-h".to_string()];
    for e in edits {
        args.extend(["-a".to_string(), (*e).to_string()]);
    }
    args.push(s(&copy));
    let ok = if tool == "ncatted" {
        Command::new("ncatted")
            .args(&args)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success()
    } else {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run("nczatted", &args);
        if out.code() != 0 {
            // Refusals are one line, naming the file.
            out.fails_with_one_line(1);
        }
        out.code() == 0
    };
    (ok, copy)
}

fn ready() -> bool {
    let ok = have("ncatted") && have("ncgen") && have("ncdump");
    if !ok {
        eprintln!("skipped: NCO's ncatted and netcdf-bin are needed");
    }
    ok
}

#[test]
fn every_mode_and_type_edits_as_ncatted_does() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cases: &[&[&str]] = &[
        &["units,T,a,c,/s"],
        &["scale,T,a,f,3,4"],
        &["valid_range,T,p,f,-1"],
        &["title,global,p,c,pre: "],
        &["title,GLOBAL,a,c,\\n(appended)\\ttabbed"],
        &["units,T,c,c,no", "comment,T,c,c,new"],
        &["units,T,d,,", "nothing,T,d,,"],
        &[",T,d,,"],
        &["units,,d,,"],
        &["units,T,m,c,degC", "missing,T,m,c,x"],
        &["flags,n,n,s,3", "missing,n,n,s,3"],
        &["units,T,o,c,kelvin, really", "new,n,o,d,1.5,2.5"],
        &["units,,o,c,m"],
        &["long_name,sub,o,c,by variable"],
        &[
            "b,T,o,b,-128,127",
            "s,T,o,s,-32768",
            "i,T,o,i,2147483647",
            "l,T,o,l,-5",
        ],
        &["f,T,o,f,1e30", "d,T,o,d,-1.25e-300", "c,T,o,c,"],
        &["_FillValue,T,o,f,-1"],
        &["history,global,d,,", "Conventions,global,o,c,CF-1.8"],
    ];
    let nc4_only: &[&[&str]] = &[
        &["ub,T,o,ub,255", "us,T,o,us,65535", "u,T,o,u,4294967295"],
        &[
            "ll,T,o,ll,-9223372036854775808",
            "ull,T,o,ull,18446744073709551615",
        ],
        &["s,T,o,sng,one,two"],
    ];
    for kind in ["classic", "nc4"] {
        let dir = tmp.path().join(kind);
        fs::create_dir(&dir).unwrap();
        let nc = made(&dir, kind);
        let all = cases
            .iter()
            .chain(nc4_only.iter().filter(|_| kind == "nc4"));
        for edits in all {
            let (theirs_ok, theirs) = edited("ncatted", &nc, &dir, edits);
            let (ours_ok, ours) = edited("nczatted", &nc, &dir, edits);
            assert_eq!(ours_ok, theirs_ok, "{kind} {edits:?}");
            assert_eq!(header(&ours), header(&theirs), "{kind} {edits:?}");
        }
        // What classic files cannot hold is refused by both, the file unchanged.
        if kind == "classic" {
            for edits in nc4_only {
                let before = fs::read(&nc).unwrap();
                let (theirs_ok, _) = edited("ncatted", &nc, &dir, edits);
                let (ours_ok, ours) = edited("nczatted", &nc, &dir, edits);
                assert!(!theirs_ok && !ours_ok, "{edits:?}");
                assert_eq!(fs::read(&ours).unwrap(), before, "{edits:?}");
            }
        }
    }
}

#[test]
fn bad_edits_change_nothing_and_say_why_in_one_line() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let nc = made(tmp.path(), "nc4");
    let before = fs::read(&nc).unwrap();
    for (edits, says) in [
        (
            &["units,nope,o,c,x"][..],
            "no variable or group named 'nope'",
        ),
        (&["units,T,q,c,x"][..], "'q' is not a mode"),
        (&["units,T,o,z,1"][..], "'z' is not a type"),
        (&["v,T,o,s,abc"][..], "'abc' is not a short"),
        (
            &["scale,T,a,d,3"][..],
            "is float, not double: cannot add to it",
        ),
        (
            &["_FillValue,T,o,d,1"][..],
            "must be of its own type (float)",
        ),
        // A good edit before a bad one is not made either.
        (&["units,T,o,c,m", "v,T,o,d,"][..], "needs a value"),
        // NCO wraps this to 4464 and exits 0.
        (&["v,T,o,s,70000"][..], "70000 does not fit a short"),
        // NCO crashes on this (segmentation fault).
        (&["v,T,o,d,1,,2"][..], "empty item"),
    ] {
        let mut args = Vec::new();
        for e in edits {
            args.extend(["-a", *e]);
        }
        let nc_s = s(&nc);
        args.push(&nc_s);
        let e = run("nczatted", &args).fails_with_one_line(1);
        assert!(e.contains(says) && e.contains("a-nc4.nc"), "{edits:?}: {e}");
        assert_eq!(fs::read(&nc).unwrap(), before, "{edits:?}");
    }
}

#[test]
fn history_is_prepended_and_a_second_name_is_a_copy() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let nc = made(tmp.path(), "classic");
    let before = fs::read(&nc).unwrap();
    let out = tmp.path().join("out.nc");
    run("nczatted", &["-a", "units,T,o,c,m", &s(&nc), &s(&out)]).success();
    assert_eq!(fs::read(&nc).unwrap(), before, "the input is not edited");
    let text = header(&out);
    let history = text
        .lines()
        .find(|l| l.contains(":history = "))
        .unwrap_or_default()
        .to_string();
    // `Sun Nov 29 10:19:59 2026: nczatted -a units,T,o,c,m IN OUT\nmade by ncgen`
    let line = history.split('"').nth(1).unwrap_or_default();
    let (date, command) = line.split_once(": ").unwrap_or_default();
    assert_eq!(date.len(), 24, "{history}");
    assert!(
        command.starts_with("nczatted -a units,T,o,c,m ") && command.ends_with("\\n"),
        "{history}"
    );
    assert!(text.contains("\"made by ncgen\""), "{text}");
    assert!(text.contains("T:units = \"m\""), "{text}");
    // An existing output only with -O.
    let e = run("nczatted", &["-a", "units,T,o,c,K", &s(&nc), &s(&out)]).fails_with_one_line(1);
    assert!(e.contains("--overwrite replaces it"), "{e}");
    run(
        "nczatted",
        &["-O", "-a", "units,T,o,c,K", &s(&nc), &s(&out)],
    )
    .success();
    assert!(header(&out).contains("T:units = \"K\""));
    // The values are the file's.
    let dump = |p: &Path| {
        let out = Command::new("ncdump")
            .arg("-v")
            .arg("T,n,time")
            .arg(p)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text[text.find("data:").unwrap()..].to_string()
    };
    assert_eq!(dump(&out), dump(&nc));
}

/// Found by an edge walk: an edit in place follows a symbolic link (the link stays a
/// link), keeps the file's permissions, refuses a file with several names and one this
/// user may not write; names netCDF refuses, a name already taken by another kind of
/// object, a _FillValue of several values, and deleting a Zarr array's _FillValue with
/// all its attributes are refused; nothing is changed by a refusal.
#[test]
fn in_place_edits_keep_links_and_modes_and_refuse_what_netcdf_refuses() {
    if !have("ncgen") || !have("ncdump") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let real = d.join("real.nc");
    let ok = Command::new("ncgen")
        .args([
            "-k",
            "nc4",
            "-o",
            &s(&real),
            &s(&data_dir().join("nczatted/r4.cdl")),
        ])
        .status()
        .unwrap();
    assert!(ok.success());
    let link = d.join("link.nc");
    std::os::unix::fs::symlink("real.nc", &link).unwrap();
    run("nczatted", &["-h", "-a", "x,global,o,c,y", &s(&link)]).success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(header(&real).contains(":x = \"y\""));
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    run("nczrename", &["-h", "-a", "global@x,z", &s(&real)]).success();
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
    let other = d.join("other.nc");
    fs::hard_link(&real, &other).unwrap();
    // An attribute edit is made in place: both names see it. A rename rewrites the
    // file, which would leave the other name as it was: refused.
    run("nczatted", &["-h", "-a", "x,global,o,c,w", &s(&real)]).success();
    assert_eq!(fs::read(&other).unwrap(), fs::read(&real).unwrap());
    assert!(header(&other).contains(":x = \"w\""));
    let before = fs::read(&real).unwrap();
    let e = run("nczrename", &["-v", "T,t", &s(&real)]).fails_with_one_line(1);
    assert!(e.contains("has 2 names (hard links)"), "{e}");
    assert_eq!(fs::read(&real).unwrap(), before);
    fs::remove_file(&other).unwrap();
    let real_s = s(&real);
    for (tool, args, says) in [
        ("nczrename", &["-v", "T,g"][..], "already has a group 'g'"),
        (
            "nczrename",
            &["-g", "g,T"][..],
            "already has a variable 'T'",
        ),
        ("nczrename", &["-d", "lon,g"][..], "already has a group 'g'"),
        (
            "nczrename",
            &["-v", "T, sp"][..],
            "starts or ends with a space",
        ),
        (
            "nczatted",
            &["-a", " units,T,o,c,k"][..],
            "starts or ends with a space",
        ),
        ("nczatted", &["-a", "a\tb,T,o,c,k"][..], "control character"),
        (
            "nczatted",
            &["-a", "_FillValue,T,o,f,1,2"][..],
            "a _FillValue is one value",
        ),
    ] {
        let mut all = args.to_vec();
        all.push(&real_s);
        let e = run(tool, &all).fails_with_one_line(1);
        assert!(e.contains(says), "{tool} {args:?}: {e}");
        assert_eq!(fs::read(&real).unwrap(), before, "{tool} {args:?}");
    }
    // Another user may not write it: refused, as NCO refuses it.
    let nobody = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if nobody {
        fs::set_permissions(d, fs::Permissions::from_mode(0o777)).unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o444)).unwrap();
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_nczatted"))
            .args(["-a", "x,global,o,c,w", &real_s])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("cannot be edited in place"),
            "{err}"
        );
        assert_eq!(fs::read(&real).unwrap(), before);
    }
    // A Zarr array's _FillValue, deleted with every attribute or renamed: refused.
    let store = d.join("a.zarr");
    run(
        "nczgen",
        &["-o", &s(&store), &s(&data_dir().join("nczatted/a.cdl"))],
    )
    .success();
    let e = run("nczatted", &["-a", ",T,d,,", &s(&store)]).fails_with_one_line(1);
    assert!(e.contains("_FillValue is also its fill_value"), "{e}");
    let e = run("nczrename", &["-a", "_FillValue,fv", &s(&store)]).fails_with_one_line(1);
    assert!(e.contains("_FillValue is also its fill_value"), "{e}");
}

/// A classic file's header is rewritten in place when the edit still fits before the
/// values (the same file: its inode, length and values; every name of a hard-linked
/// file sees it), and the file rewritten when it does not; both as ncatted and
/// ncrename read them.
#[test]
fn a_classic_header_is_rewritten_in_place_when_it_fits() {
    if !(ready() && have("ncrename")) {
        return;
    }
    use std::os::unix::fs::MetadataExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nc = made(d, "classic");
    let theirs = d.join("theirs.nc");
    fs::copy(&nc, &theirs).unwrap();
    let other = d.join("other.nc");
    fs::hard_link(&nc, &other).unwrap();
    let (inode, len) = (
        fs::metadata(&nc).unwrap().ino(),
        fs::metadata(&nc).unwrap().len(),
    );
    let values = |p: &Path| -> String {
        let text = run("nczdump", &[&s(p)]).success().stdout();
        text.split("data:").nth(1).unwrap_or_default().to_string()
    };
    let before = values(&nc);
    // Shorter: a title cut, a variable and a dimension renamed to shorter names.
    let shorter = ["-a", "title,global,o,c,t"];
    run("nczatted", &[&["-h"][..], &shorter, &[&s(&nc)]].concat()).success();
    run("nczrename", &["-h", "-v", "T,t", &s(&nc)]).success();
    let nco = |tool: &str, args: &[&str]| {
        let ok = Command::new(tool)
            .arg("-h")
            .args(args)
            .arg(&theirs)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(ok.success(), "{tool} {args:?}");
    };
    nco("ncatted", &shorter);
    nco("ncrename", &["-v", "T,t"]);
    assert_eq!(header(&nc), header(&theirs));
    let meta = fs::metadata(&nc).unwrap();
    assert_eq!(
        (meta.ino(), meta.len()),
        (inode, len),
        "rewritten, not edited in place"
    );
    assert_eq!(values(&nc), before.replace(" T =", " t ="));
    assert_eq!(fs::read(&other).unwrap(), fs::read(&nc).unwrap());
    // Longer than the room before the values: the file is rewritten (a hard link
    // refused, as for any rewrite), as ncatted reads it.
    fs::remove_file(&other).unwrap();
    let longer = [
        "-a",
        "title,global,o,c,a title far longer than the room the header has left",
    ];
    run("nczatted", &[&["-h"][..], &longer, &[&s(&nc)]].concat()).success();
    nco("ncatted", &longer);
    assert_eq!(header(&nc), header(&theirs));
    assert_ne!(fs::metadata(&nc).unwrap().ino(), inode);
    assert_eq!(values(&nc), before.replace(" T =", " t ="));
}
