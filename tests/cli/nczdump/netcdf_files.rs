//! netCDF files as input (classic, 64-bit offset, CDF-5, netCDF-4 and netCDF-4
//! classic model): nczdump prints them as ncdump does, nczcopy converts them, damage is
//! one line. The files are made by ncgen from the golden corpus's CDL (skipped without
//! netcdf-bin).

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{data_dir, first_diff, have, run};

/// ncgen's `-k` numbers of the file formats.
const KINDS: [(&str, &str); 5] = [
    ("1", "classic"),
    ("2", "offset64"),
    ("5", "cdf5"),
    ("3", "nc4"),
    ("4", "nc4classic"),
];

/// Every golden CDL case ncgen accepts in each file format, as `(file, kind)`.
fn netcdf_files(dir: &Path) -> Vec<(String, &'static str)> {
    let mut files = Vec::new();
    let cases = data_dir().join("golden").join("cases");
    let mut cdls: Vec<_> = fs::read_dir(&cases)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    cdls.sort();
    for cdl in cdls {
        let case = cdl.file_stem().unwrap().to_string_lossy().to_string();
        for (k, kind) in KINDS {
            let nc = dir.join(format!("{case}.{kind}.nc"));
            let made = Command::new("ncgen")
                .args(["-k", k, "-o"])
                .arg(&nc)
                .arg(&cdl)
                .stderr(Stdio::null())
                .status()
                .unwrap()
                .success();
            // ncgen 4.9.0 exits 0 on some CDL it cannot write in these formats (groups),
            // writing nothing: a file counts when ncdump reads it.
            let readable = made
                && Command::new("ncdump")
                    .args(["-k"])
                    .arg(&nc)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success());
            if readable {
                files.push((nc.to_string_lossy().to_string(), kind));
            } else {
                // The case uses netCDF-4 features; ncgen may leave a partial file.
                let _ = fs::remove_file(&nc);
            }
        }
    }
    files
}

fn ncdump(args: &[&str]) -> String {
    let out = Command::new("ncdump").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The name of the last variable a root group's CDL header declares.
fn last_var_name(header: &str) -> Option<String> {
    let vars = header.split("\nvariables:\n").nth(1)?;
    let decls = vars.split("\n\n").next()?;
    decls
        .lines()
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t\t"))
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(|d| {
            d.split('(')
                .next()
                .unwrap_or(d)
                .trim_end_matches(" ;")
                .to_string()
        })
        .next_back()
}

#[test]
fn netcdf_files_dump_like_ncdump_with_every_option() {
    if !have("ncgen") || !have("ncdump") {
        eprintln!("skipped: ncgen/ncdump (netcdf-bin) are not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let files = netcdf_files(tmp.path());
    let mut checked = 0;
    let mut failures = Vec::new();
    for (nc, kind) in &files {
        let mut option_sets: Vec<Vec<&str>> = vec![
            vec![],
            vec!["-h"],
            vec!["-c"],
            vec!["-k"],
            vec!["-b", "c"],
            vec!["-f", "f"],
            vec!["-p", "3,5"],
            vec!["-l", "40"],
            vec!["-n", "renamed"],
        ];
        let header = ncdump(&["-h", nc]);
        let last_var = last_var_name(&header);
        // A declaration without dimensions, in any group.
        let has_scalar = header.lines().any(|l| {
            let l = l.trim_start();
            l.ends_with(" ;")
                && !l.contains('(')
                && !l.contains(" = ")
                && l.contains(' ')
                && !l.starts_with("group:")
        });
        if let Some(v) = &last_var {
            option_sets.push(vec!["-v", v]);
        }
        if nc.contains("nested_groups.") {
            option_sets.push(vec!["-g", "forecast"]);
            option_sets.push(vec!["-v", "/forecast/detail/depth"]);
        }
        // ncdump 4.9.0's -s on a CDF-5 file prints `_Storage` for each variable, then
        // fails ("Attempting netcdf-4 operation on netcdf-3 file"): not copied.
        if *kind != "cdf5" {
            option_sets.push(vec!["-s"]);
        }
        for opts in option_sets {
            // ncdump 4.9.0 prints a scalar's -f index from past its (empty) index array
            // (`// s_byte(34)`), in every format: nothing to copy.
            if opts.first() == Some(&"-f") && has_scalar {
                continue;
            }
            let mut args = opts.clone();
            args.push(nc);
            let expected = ncdump(&args);
            let ours = run("nczdump", &args);
            checked += 1;
            if !ours.output.status.success() || ours.stdout() != expected {
                failures.push(format!(
                    "{nc} {opts:?}: {}\n{}",
                    ours.stderr(),
                    first_diff(&ours.stdout(), &expected)
                ));
            }
        }
    }
    assert!(files.len() >= 50, "only {} netCDF files made", files.len());
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn netcdf_files_are_known_by_their_bytes_and_copy_to_nczarr() {
    if !have("ncgen") || !have("ncdump") || !have("nccopy") {
        eprintln!("skipped: ncgen/ncdump (netcdf-bin) are not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for (nc, _) in netcdf_files(tmp.path()) {
        let stem = Path::new(&nc)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let expected = ncdump(&[&nc]);
        // Whatever the name, also behind a file:// URL.
        let plain = tmp.path().join(format!("{stem}-no-extension"));
        fs::copy(&nc, &plain).unwrap();
        let url = format!("file://{}", plain.display());
        run("nczdump", &["-n", &stem, &url])
            .success()
            .stdout_is(&expected);
        // Converted to NCZarr, the dataset nccopy makes converting it to netCDF-4 (the
        // record dimension stays unlimited; char attributes print as netCDF-4's do).
        let nc4 = tmp.path().join(format!("{stem}.nc4"));
        let status = Command::new("nccopy")
            .args(["-k", "nc4", &nc])
            .arg(&nc4)
            .status()
            .unwrap();
        assert!(status.success());
        let expected = ncdump(&["-n", &stem, &nc4.to_string_lossy()]);
        let zarr = tmp.path().join(format!("{stem}.zarr"));
        run("nczcopy", &[&nc, &zarr.to_string_lossy()]).success();
        let copied = run("nczdump", &["-n", &stem, &zarr.to_string_lossy()]);
        copied.success();
        assert_eq!(
            copied.stdout(),
            expected,
            "{nc}: {}",
            first_diff(&copied.stdout(), &expected)
        );
    }
}

#[test]
fn damaged_classic_files_fail_in_one_line() {
    if !have("ncgen") {
        eprintln!("skipped: ncgen (netcdf-bin) is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("d.cdl");
    fs::write(
        &cdl,
        "netcdf d {\ndimensions:\n\tn = 1000 ;\nvariables:\n\tdouble v(n) ;\n\t\tv:units = \"m\" ;\ndata:\n v = 1 ;\n}\n",
    )
    .unwrap();
    let nc = tmp.path().join("d.nc");
    assert!(Command::new("ncgen")
        .args(["-k", "1", "-o"])
        .arg(&nc)
        .arg(&cdl)
        .status()
        .unwrap()
        .success());
    let bytes = fs::read(&nc).unwrap();
    let name = |n: &str| tmp.path().join(n).to_string_lossy().to_string();
    // The header cut short.
    fs::write(name("head.nc"), &bytes[..40]).unwrap();
    let line = run("nczdump", &[&name("head.nc")]).fails_with_one_line(1);
    assert!(
        line.contains("truncated or damaged: the header needs"),
        "{line}"
    );
    // The values cut short: the header prints, the data names the variable.
    fs::write(name("data.nc"), &bytes[..bytes.len() - 100]).unwrap();
    let out = run("nczdump", &[&name("data.nc")]);
    assert_eq!(out.code(), 1);
    assert!(
        out.stderr()
            .contains("variable '/v': the file ends at byte 8004"),
        "{}",
        out.stderr()
    );
    // A list tag damaged.
    let mut damaged = bytes.clone();
    damaged[8..12].copy_from_slice(&0x55u32.to_be_bytes());
    fs::write(name("tag.nc"), &damaged).unwrap();
    let line = run("nczdump", &["-h", &name("tag.nc")]).fails_with_one_line(1);
    assert!(line.contains("damaged header at byte 8"), "{line}");
    // zmapdump names the format, and says why there are no keys to list.
    let out = run("zmapdump", &["format", &nc.to_string_lossy()]);
    assert!(out
        .success()
        .stdout()
        .starts_with("netCDF classic file (CDF-1)"));
    let line = run("zmapdump", &["list", &nc.to_string_lossy()]).fails_with_one_line(1);
    assert!(
        line.contains("a netCDF classic-format file has no keys or objects"),
        "{line}"
    );
    // netCDF-4 files: described, and damage is one line naming where.
    let nc4 = tmp.path().join("d4.nc");
    assert!(Command::new("ncgen")
        .args(["-k", "3", "-o"])
        .arg(&nc4)
        .arg(&cdl)
        .status()
        .unwrap()
        .success());
    let out = run("zmapdump", &["format", &nc4.to_string_lossy()]);
    assert!(out
        .success()
        .stdout()
        .starts_with("netCDF-4 file (HDF5, superblock version 2), 1 variable\n"));
    let bytes = fs::read(&nc4).unwrap();
    for cut in [100, bytes.len() / 2, bytes.len() - 10] {
        fs::write(name("cut4.nc"), &bytes[..cut]).unwrap();
        let line = run("nczdump", &[&name("cut4.nc")]).fails_with_one_line(1);
        assert!(line.contains("end of data at offset"), "{cut}: {line}");
    }
    let line = run("zmapdump", &["list", &nc4.to_string_lossy()]).fails_with_one_line(1);
    assert!(
        line.contains("a netCDF-4 (HDF5) file has no keys"),
        "{line}"
    );
}

/// A Python with netCDF4-python: `NCZARR_PYTHON`, else `python3` (skipped without).
fn python_with_netcdf4() -> Option<String> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    Command::new(&py)
        .args(["-c", "import netCDF4, numpy"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(py)
}

/// What netCDF4-python writes (the library inside the PyPI wheel, netcdf-c 4.10):
/// deflate with shuffle, Fletcher-32, big-endian, NaN fill, unlimited records written
/// partly, variable-length strings (in chunks that cut rows, and records left
/// unwritten), nested groups, scalars, char; nczdump prints each
/// as ncdump 4.9.0 does and nczcopy's copy dumps the same.
#[test]
fn netcdf4_python_files_dump_and_copy() {
    let Some(py) = python_with_netcdf4() else {
        eprintln!("skipped: no python3 with netCDF4 (set NCZARR_PYTHON)");
        return;
    };
    if !have("ncdump") {
        eprintln!("skipped: ncdump (netcdf-bin) is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let nc = tmp.path().join("py.nc");
    let script = r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], "w", format="NETCDF4") as ds:
    ds.title = "netCDF4-python file"
    ds.createDimension("time", None)
    ds.createDimension("x", 5)
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t[:] = np.arange(4)
    a = ds.createVariable("a", "f4", ("time", "x"), zlib=True, complevel=4, shuffle=True,
                          fill_value=np.float32(np.nan))
    a[0:3] = np.arange(15, dtype="f4").reshape(3, 5)
    b = ds.createVariable("b", ">i4", ("time", "x"), fletcher32=True, chunksizes=(2, 5))
    b[:] = np.arange(20).reshape(4, 5)
    s = ds.createVariable("s", str, ("x",))
    s[0] = "one"; s[1] = "two words"; s[2] = ""; s[3] = "\u00fcn\u00efcode"
    words = np.array([["r%dc%d%s" % (i, j, "\"'\\\t "[(i + j) % 5] * (i % 3)) for j in range(5)]
                      for i in range(4)], dtype=object)
    s2 = ds.createVariable("s2", str, ("time", "x"), chunksizes=(2, 2))
    s2[0:4, :] = words
    s3 = ds.createVariable("s3", str, ("time", "x"), chunksizes=(3, 5))
    s3[0:2, :] = words[0:2]
    sc = ds.createVariable("scalar", "f8", ())
    sc[...] = 3.5
    sc.note = np.array([1, 2, 3], dtype="i2")
    sub = ds.createGroup("grp").createGroup("sub")
    sub.createDimension("y", 3)
    v = sub.createVariable("v", "u8", ("x", "y"), zlib=True)
    v[:] = np.arange(15, dtype="u8").reshape(5, 3)
    v.strs = ["a", "bb"]
    c = ds.createVariable("c", "S1", ("x",))
    c[:] = np.array(list("hello"), dtype="S1")
    z = ds.createVariable("z", "f4", ("time", "x"), zlib=True, complevel=9, shuffle=True,
                          chunksizes=(2, 5))
    z[:] = np.linspace(0, 1, 20, dtype="f4").reshape(4, 5)
"#;
    let made = Command::new(&py)
        .args(["-c", script])
        .arg(&nc)
        .status()
        .unwrap();
    assert!(made.success());
    let nc_s = nc.to_string_lossy().to_string();
    for opts in [&[][..], &["-s"], &["-h"], &["-c"], &["-k"], &["-v", "s,b"]] {
        let mut args = opts.to_vec();
        args.push(&nc_s);
        run("nczdump", &args).success().stdout_is(&ncdump(&args));
    }
    let zarr = tmp.path().join("py.zarr");
    run("nczcopy", &[&nc_s, &zarr.to_string_lossy()]).success();
    run("nczdump", &["-n", "py", &zarr.to_string_lossy()])
        .success()
        .stdout_is(&ncdump(&["-n", "py", &nc_s]));
    // Chunks whose chunking and codecs the copy keeps are the file's own bytes.
    let file = fs::read(&nc).unwrap();
    for key in ["z/0.0", "z/1.0", "grp/sub/v/0.0"] {
        let chunk = fs::read(zarr.join(key)).unwrap();
        assert!(
            chunk.len() > 8 && file.windows(chunk.len()).any(|w| w == chunk),
            "{key} is not the chunk the file stores"
        );
    }
    // Without compression: every chunk decoded once and stored raw, the same values.
    let raw = tmp.path().join("raw.zarr");
    run("nczcopy", &["-d", "0", &nc_s, &raw.to_string_lossy()]).success();
    assert_eq!(fs::read(raw.join("z/0.0")).unwrap().len(), 2 * 5 * 4);
    run("nczdump", &["-n", "py", &raw.to_string_lossy()])
        .success()
        .stdout_is(&ncdump(&["-n", "py", &nc_s]));
}

/// Every file of the corpus on a local web server, read by byte ranges
/// (`#mode=bytes`, and known by its first bytes without it): dumps as ncdump prints
/// the local file, copies, with few requests; a server without `Range` and a missing
/// file are one-line errors.
#[test]
fn remote_files_by_byte_ranges_read_like_local_ones() {
    if !have("ncgen") || !have("ncdump") {
        eprintln!("skipped: ncgen/ncdump (netcdf-bin) are not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let files = netcdf_files(tmp.path());
    assert!(files.len() > 20);
    let server = crate::util::RangeServer::start(tmp.path(), true);
    for (i, (nc, kind)) in files.iter().enumerate() {
        let name = Path::new(nc).file_name().unwrap().to_string_lossy();
        let url = format!("{}/{name}", server.url);
        let expected = ncdump(&[nc]);
        // Every third file without the mode: known by its first bytes.
        let named = if i % 3 == 0 {
            url.clone()
        } else {
            format!("{url}#mode=bytes")
        };
        let got = run("nczdump", &[&named]);
        got.success();
        assert!(
            got.stdout() == expected,
            "{named} ({kind}): {}",
            first_diff(&expected, &got.stdout())
        );
    }
    // Few requests: a netCDF-4 header is read in one or two reads, the first of which
    // also gives the file's length.
    let nc4 = files
        .iter()
        .find(|(f, k)| *k == "nc4" && f.contains("nested_groups"))
        .or_else(|| files.iter().find(|(_, k)| *k == "nc4"))
        .unwrap();
    let name = Path::new(&nc4.0)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let url = format!("{}/{name}#mode=bytes", server.url);
    let before = server.requests();
    run("nczdump", &["-h", &url])
        .success()
        .stdout_is(&ncdump(&["-h", &nc4.0]));
    let used = server.requests() - before;
    assert!(used <= 2, "{used} requests for the header of {name}");
    // NCTRACING shows each request.
    let out = Command::new(env!("CARGO_BIN_EXE_nczdump"))
        .args(["-h", &url])
        .env("NCTRACING", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("trace: head"), "{err}");
    assert!(err.contains("trace: get / bytes=0-1048575 -> "), "{err}");
    assert!(err.contains(" bytes of "), "{err}");
    // A copy from the server dumps as the file does.
    let zarr = tmp.path().join("copy.zarr");
    run("nczcopy", &[&url, &zarr.to_string_lossy()]).success();
    let stem = Path::new(&name)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    run("nczdump", &["-n", &stem, &zarr.to_string_lossy()])
        .success()
        .stdout_is(&ncdump(&["-n", &stem, &nc4.0]));

    let missing = run("nczdump", &[&format!("{}/none.nc#mode=bytes", server.url)]);
    let err = missing.fails_with_one_line(1);
    assert!(
        err.contains("none.nc") && err.contains("no such file"),
        "{err}"
    );
    let not_nc = tmp.path().join("plain.txt");
    fs::write(&not_nc, "just text, not netCDF\n").unwrap();
    let err = run("nczdump", &[&format!("{}/plain.txt", server.url)]).fails_with_one_line(1);
    assert!(err.contains("is not a netCDF file"), "{err}");

    let no_range = crate::util::RangeServer::start(tmp.path(), false);
    let err =
        run("nczdump", &[&format!("{}/{name}#mode=bytes", no_range.url)]).fails_with_one_line(1);
    assert!(err.contains("does not honour Range requests"), "{err}");
}

/// Variables netCDF-4 keeps in HDF5's compact layout print `_Storage = "compact"` as
/// ncdump does, and copy (as contiguous: Zarr has no compact layout).
#[test]
fn compact_variables_show_and_copy() {
    if !have("ncgen") || !have("ncdump") {
        eprintln!("skipped: ncgen/ncdump (netcdf-bin) are not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("compact.cdl");
    fs::write(
        &cdl,
        "netcdf compact {\ndimensions:\n\tx = 4 ;\nvariables:\n\tint small(x) ;\n\t\tsmall:_Storage = \"compact\" ;\n\
         \tdouble s ;\n\t\ts:_Storage = \"compact\" ;\n\tfloat big(x) ;\ndata:\n small = 1, 2, 3, 4 ;\n s = 2.5 ;\n big = 1, 2, 3, 4 ;\n}\n",
    )
    .unwrap();
    for k in ["3", "4"] {
        let nc = tmp.path().join(format!("compact{k}.nc"));
        assert!(Command::new("ncgen")
            .args(["-k", k, "-o"])
            .arg(&nc)
            .arg(&cdl)
            .status()
            .unwrap()
            .success());
        let nc = nc.to_string_lossy().to_string();
        let want = ncdump(&["-s", &nc]);
        assert!(want.contains("small:_Storage = \"compact\""), "{want}");
        run("nczdump", &["-s", &nc]).success().stdout_is(&want);
        let zarr = tmp.path().join(format!("compact{k}.zarr"));
        run("nczcopy", &[&nc, &zarr.to_string_lossy()]).success();
        run(
            "nczdump",
            &["-n", &format!("compact{k}"), &zarr.to_string_lossy()],
        )
        .success()
        .stdout_is(&ncdump(&[&nc]));
    }
}
