//! Virtual Zarr (issue 44): `nczcopy -k kerchunk FILE refs.json` writes kerchunk's
//! references to the chunks of a netCDF file, which xarray opens through fsspec and
//! decodes as it decodes the file.

use std::fs;
use std::process::Command;

use crate::util::datasets::down_day;
use crate::util::kerchunk::{file_and_refs, refs_in};
use crate::util::{case_name, data_dir, golden_cases, nczgen, python_with, run, s};

/// Fail unless xarray reads each file of `pairs` (file, references, file, ...) and its
/// references as the same dataset (data/kerchunk/same_through_refs.py).
fn assert_xarray_reads_as_the_files(py: &str, pairs: &[String]) {
    let out = Command::new(py)
        .arg(data_dir().join("kerchunk/same_through_refs.py"))
        .args(pairs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every golden case as a netCDF-4 file and (where the case fits one) a classic
/// file: its references open in xarray as the file does (cases xarray cannot open by
/// itself are skipped by the script, said).
#[test]
fn xarray_reads_references_to_every_golden_netcdf_file_as_the_file() {
    let Some(py) = python_with("xarray, zarr, fsspec, kerchunk") else {
        eprintln!("skipped: no Python with xarray, zarr, fsspec and kerchunk");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    let mut refused = Vec::new();
    for (cdl, kind) in golden_cases()
        .into_iter()
        .flat_map(|c| [(c.clone(), "nc4"), (c, "classic")])
    {
        let name = format!("{}-{kind}", case_name(&cdl));
        let nc = tmp.path().join(format!("{name}.nc"));
        if nczgen(&["-k", kind, "-o", &s(&nc), &s(&cdl)]).code() != 0 {
            continue;
        }
        let refs = tmp.path().join(format!("{name}.json"));
        let r = run("nczcopy", &["-k", "kerchunk", &s(&nc), &s(&refs)]);
        if r.code() != 0 {
            refused.push(format!("{name}: {}", r.stderr().trim()));
            continue;
        }
        pairs.push(s(&nc));
        pairs.push(s(&refs));
    }
    assert!(refused.is_empty(), "refused: {refused:#?}");
    assert!(pairs.len() >= 2 * 25, "{} files", pairs.len() / 2);
    assert_xarray_reads_as_the_files(&py, &pairs);
}

/// A larger chunked file: chunks are byte ranges of it (none inlined), a chunk the
/// file does not store is left out, and the output replaces only a reference file.
#[test]
fn chunks_are_byte_ranges_of_the_file_and_missing_ones_are_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..4 * 300).map(|i| i.to_string()).collect();
    let cdl = tmp.path().join("c.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf c {{\ndimensions:\n\tt = 4 ;\n\tx = 300 ;\nvariables:\n\tint v(t, x) ;\n\t\tv:_ChunkSizes = 1, 300 ;\n\t\tv:_DeflateLevel = 1 ;\n\
             \tint w(t, x) ;\n\t\tw:_ChunkSizes = 1, 300 ;\ndata:\n v = {} ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let nc = tmp.path().join("c.nc");
    nczgen(&["-k", "nc4", "-o", &s(&nc), &s(&cdl)]).success();
    let refs = tmp.path().join("c.json");
    run("nczcopy", &["-k", "kerchunk", &s(&nc), &s(&refs)]).success();
    let all = refs_in(&refs);
    let file = fs::canonicalize(&nc).unwrap();
    for t in 0..4 {
        let r = all
            .iter()
            .find(|(k, _)| *k == format!("v/{t}.0"))
            .map(|(_, v)| v)
            .unwrap();
        let parts = r.as_array().unwrap();
        assert_eq!(parts[0].as_str(), Some(s(&file).as_str()));
    }
    // `w` has no data: its chunks are not stored, so not referenced (they read as fill).
    assert!(!all
        .iter()
        .any(|(k, _)| k.starts_with("w/") && !k.contains(".z")));
    // Not a reference file: refused, left alone.
    let other = tmp.path().join("notes.json");
    fs::write(&other, "my notes").unwrap();
    let r = run("nczcopy", &["-k", "kerchunk", &s(&nc), &s(&other)]);
    assert_eq!(r.code(), 1);
    assert_eq!(fs::read_to_string(&other).unwrap(), "my notes");
    // Writing again over a reference file is refused; with --overwrite it replaces
    // it, and --url-prefix names the file where it will be served.
    let e = run("nczcopy", &["-k", "kerchunk", &s(&nc), &s(&refs)]).fails_with_one_line(1);
    assert!(
        e.ends_with("c.json: a dataset already exists (t = 4, x = 300); nothing was written: --overwrite replaces it"),
        "{e}"
    );
    run(
        "nczcopy",
        &[
            "-O",
            "-k",
            "kerchunk",
            "--url-prefix",
            "s3://bucket/dir/",
            &s(&nc),
            &s(&refs),
        ],
    )
    .success();
    let all = refs_in(&refs);
    let chunk = &all.iter().find(|(k, _)| k == "v/0.0").unwrap().1;
    assert_eq!(
        chunk.as_array().unwrap()[0].as_str(),
        Some("s3://bucket/dir/c.nc")
    );
}

/// Record variables of a classic file are one chunk a record, fixed ones one chunk,
/// big-endian, referenced where they lie; a netCDF-4 file of the same data likewise
/// by its chunks: xarray reads both sets of references as it reads the files.
#[test]
fn classic_records_and_netcdf4_chunks_are_referenced_and_read_as_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let x = 300;
    let list = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    let cdl = tmp.path().join("r.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf r {{\ndimensions:\n\ttime = UNLIMITED ;\n\tx = {x} ;\nvariables:\n\
             \tdouble time(time) ;\n\t\ttime:units = \"days since 2001-01-01\" ;\n\
             \tint v(time, x) ;\n\tshort s(time, x) ;\n\tdouble w(x) ;\ndata:\n\
             time = {} ;\n v = {} ;\n s = {} ;\n w = {} ;\n}}\n",
            list(6, &|i| i.to_string()),
            list(6 * x, &|i| i.to_string()),
            list(6 * x, &|i| (i % 3000).to_string()),
            list(x, &|i| format!("{}.5", i)),
        ),
    )
    .unwrap();
    let mut pairs = Vec::new();
    for kind in ["classic", "nc4"] {
        let nc = tmp.path().join(format!("r-{kind}.nc"));
        let refs = tmp.path().join(format!("r-{kind}.json"));
        file_and_refs(&cdl, kind, &nc, &refs);
        let all = refs_in(&refs);
        let ranges = all.iter().filter(|(_, v)| v.as_array().is_some()).count();
        // v and s a chunk a record, w (contiguous in both kinds) one chunk.
        assert_eq!(ranges, 13, "{kind}: {ranges} ranges");
        if kind == "classic" {
            let zarray = &all.iter().find(|(k, _)| k == "v/.zarray").unwrap().1;
            let text = zarray.as_str().unwrap();
            assert!(
                text.contains("\">i4\"") && text.contains("[1,300]"),
                "{text}"
            );
        }
        pairs.push(s(&nc));
        pairs.push(s(&refs));
    }
    if let Some(py) = python_with("xarray, zarr, fsspec") {
        assert_xarray_reads_as_the_files(&py, &pairs);
    }
}

/// A contiguous variable larger than --split is referenced in pieces along its first
/// dimension (rows that divide it, each piece a byte range of the one block), in
/// netCDF-4 and classic files alike: equal to the file for nczcmp and xarray.
#[test]
fn large_contiguous_variables_are_referenced_in_pieces() {
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..100 * 250).map(|i| format!("{}.5", i)).collect();
    let cdl = tmp.path().join("big.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf big {{\ndimensions:\n\ty = 100 ;\n\tx = 250 ;\nvariables:\n\
             \tfloat v(y, x) ;\n\t\tv:_Storage = \"contiguous\" ;\ndata:\n v = {} ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let mut pairs = Vec::new();
    for kind in ["nc4", "classic"] {
        let nc = tmp.path().join(format!("big-{kind}.nc"));
        let refs = tmp.path().join(format!("big-{kind}.json"));
        nczgen(&["-k", kind, "-o", &s(&nc), &s(&cdl)]).success();
        run(
            "nczcopy",
            &["-k", "kerchunk", "--split", "8K", &s(&nc), &s(&refs)],
        )
        .success();
        let all = refs_in(&refs);
        let zarray = all
            .iter()
            .find(|(k, _)| k == "v/.zarray")
            .unwrap()
            .1
            .clone();
        assert!(
            zarray.as_str().unwrap().contains("\"chunks\": [5,250]"),
            "{zarray:?}"
        );
        let mut pieces: Vec<(u64, u64)> = all
            .iter()
            .filter(|(k, _)| k.starts_with("v/") && !k.contains(".z"))
            .map(|(_, v)| {
                let a = v.as_array().unwrap();
                (
                    a[1].as_number().and_then(|n| n.as_u64()).unwrap(),
                    a[2].as_number().and_then(|n| n.as_u64()).unwrap(),
                )
            })
            .collect();
        pieces.sort_unstable();
        assert_eq!(pieces.len(), 20, "{kind}");
        assert!(
            pieces
                .windows(2)
                .all(|w| w[0].0 + w[0].1 == w[1].0 && w[0].1 == 5000),
            "{kind}: {pieces:?}"
        );
        crate::util::assert_equal_datasets(&nc, &refs, kind);
        // Without --split (16M) it stays one piece.
        run("nczcopy", &["-O", "-k", "kerchunk", &s(&nc), &s(&refs)]).success();
        assert!(refs_in(&refs).iter().any(|(k, _)| k == "v/0.0"));
        assert!(!refs_in(&refs).iter().any(|(k, _)| k == "v/1.0"));
        run(
            "nczcopy",
            &["-O", "-k", "kerchunk", "--split", "8K", &s(&nc), &s(&refs)],
        )
        .success();
        pairs.push(s(&nc));
        pairs.push(s(&refs));
    }
    if let Some(py) = python_with("xarray, zarr, fsspec") {
        assert_xarray_reads_as_the_files(&py, &pairs);
    }
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
