//! What real files from other writers showed (issue 39), each class with a small file
//! of our own that reproduces it. The corpus itself (`../shared/corpus/real`) is read
//! by `corpus_real` when present.

use std::fs;

use crate::util::run;

const CDL: &str = "netcdf u {\ndimensions:\n\tx = 4 ;\nvariables:\n\tint i(x) ;\n\tfloat f(x) ;\ndata:\n i = 1, 2, 3, 4 ;\n f = 0.5, 1.5, 2.5, 3.5 ;\n}\n";

/// A dataset whose variable `i` has a codec no build has.
fn with_unknown_codec(dir: &std::path::Path) -> String {
    let cdl = dir.join("u.cdl");
    fs::write(&cdl, CDL).unwrap();
    let out = dir.join("u.zarr");
    run(
        "nczgen",
        &["-o", &out.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let mystery = r#"{"id": "mystery", "level": 3}"#;
    let zarray = out.join("i/.zarray");
    let doc = fs::read_to_string(&zarray).unwrap();
    fs::write(
        &zarray,
        doc.replace(
            r#""compressor": null"#,
            &format!(r#""compressor": {mystery}"#),
        ),
    )
    .unwrap();
    let _ = fs::remove_file(out.join(".zmetadata"));
    out.to_string_lossy().into_owned()
}

#[test]
fn an_unreadable_variable_is_left_out_and_the_rest_read() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = with_unknown_codec(tmp.path());
    let r = run("nczdump", &[&ds]);
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert!(
        r.stdout().contains(" f = 0.5, 1.5, 2.5, 3.5 ;"),
        "{}",
        r.stdout()
    );
    assert!(!r.stdout().contains("int i(x)"), "{}", r.stdout());
    let err = r.stderr();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("variable '/i': codec")
            && err.contains("unknown codec 'mystery'")
            && err.ends_with("variable left out\n"),
        "{err}"
    );
    // Named with -v, it is read, and the reason is the error.
    let e = run("nczdump", &["-v", "i", &ds]).fails_with_one_line(1);
    assert!(e.contains("unknown codec 'mystery'"), "{e}");
    // nczcopy refuses, or copies the rest with --skip-unreadable.
    let out = tmp.path().join("c.zarr").to_string_lossy().into_owned();
    let e = run("nczcopy", &[&ds, &out]).fails_with_one_line(1);
    assert!(
        e.contains("variable '/i' cannot be read") && e.contains("--skip-unreadable"),
        "{e}"
    );
    assert!(!std::path::Path::new(&out).exists());
    let r = run("nczcopy", &["--skip-unreadable", &ds, &out]);
    assert!(r.output.status.success(), "{}", r.stderr());
    assert!(
        r.stderr().contains("warning: variable '/i' left out"),
        "{}",
        r.stderr()
    );
    let back = run("nczdump", &[&out]);
    back.success();
    assert!(back.stdout().contains(" f = 0.5, 1.5, 2.5, 3.5 ;") && !back.stdout().contains(" i ="));
}

/// A Python with zarr 3, numcodecs and h5py: `NCZARR_PYTHON`, else `python3`.
fn python_with_zarr_and_h5py() -> Option<String> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    std::process::Command::new(&py)
        .args([
            "-c",
            "import zarr, numcodecs, h5py, zfpy; from zarr.codecs import numcodecs as nz",
        ])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(py)
}

#[test]
fn numcodecs_and_lzf_read_as_zarr_python_and_h5py_read_them() {
    let Some(py) = python_with_zarr_and_h5py() else {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI needs zarr 3, numcodecs, h5py and zfpy in NCZARR_PYTHON"
        );
        eprintln!("skipped: no python3 with zarr 3, numcodecs, h5py and zfpy (set NCZARR_PYTHON)");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(py)
        .arg(crate::util::data_dir().join("real_files/codecs_check.py"))
        .arg(crate::util::exe("nczdump"))
        .arg(crate::util::exe("nczcopy"))
        .arg(work.path())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && report.contains("0 differences"),
        "{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A file of `data/hdf5_other` (written by h5py: `make.py` there).
fn other_writer(name: &str) -> String {
    format!("tests/cli/data/hdf5_other/{name}")
}

/// The expected text of `data/hdf5_other/NAME.cdl`.
fn expected(name: &str) -> String {
    fs::read_to_string(other_writer(&format!("{name}.cdl"))).unwrap()
}

#[test]
fn plain_hdf5_lists_members_and_numbers_phony_dimensions_as_ncdump() {
    // Classes 2 and 8: members by name where no creation order is tracked (z, h, a
    // written in that order), phony dimensions of subgroups numbered first, an
    // unlimited axis, a group of 20 datasets in dense storage. The .cdl files are
    // ncdump 4.9.0's text.
    for name in ["order_phony", "dense_group"] {
        let r = run("nczdump", &[&other_writer(&format!("{name}.h5"))]);
        assert_eq!(r.code(), 0, "{name}: {}", r.stderr());
        assert_eq!(r.stdout(), expected(name), "{name}");
    }
    let r = run("nczdump", &["-h", &other_writer("order_phony.h5")]);
    assert!(r
        .stdout()
        .contains("phony_dim_4 = UNLIMITED ; // (4 currently)"));
}

#[test]
fn fixed_strings_half_floats_and_null_dataspaces_read_as_netcdf_c_reads_them() {
    // Classes 4, 9 and 11. The header is ncdump 4.9.0's; its data section crashes on
    // fixed-length strings and fails on the null dataspace, so the values are
    // netCDF4-python's (netcdf-c 4.10.1) and h5py's: "x\0y" reads "x", a half is the
    // float it equals, and the empty dataset is its fill value, marked as holding none.
    let r = run("nczdump", &[&other_writer("types.h5")]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stdout(), expected("types"));
    assert!(r.stdout().contains(" s = \"ab\", \"cde\", \"x\" ;"));
    assert!(r.stdout().contains("string :Test = \"a   \" ;"));
    assert!(r
        .stdout()
        .contains(" h = 1.5, Infinityf, -0, 65504, 5.960464e-08 ;"));

    // nczcopy copies what nczdump reads.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("types.zarr");
    let c = run(
        "nczcopy",
        &[&other_writer("types.h5"), out.to_str().unwrap()],
    );
    assert_eq!(c.code(), 0, "{}", c.stderr());
    let copied = run("nczdump", &[out.to_str().unwrap()]).stdout();
    let note = "\t\t// e: an HDF5 null dataspace: no values are stored\n";
    assert_eq!(copied, expected("types").replace(note, ""));
}

#[test]
fn an_old_layout_message_reads_as_ncdump_reads_it() {
    // Class 2 on the corpus file that showed it (HDF5 1.6, a version 2 layout).
    let Some(f) = crate::util::corpus_real("nc/netcdf-c/nczarr_test__ref_groups.h5") else {
        return;
    };
    let r = run("nczdump", &[&f]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stdout().contains("  1, 2, 3,\n  1, 2, 3,\n  1, 2, 3 ;"),
        "{}",
        r.stdout()
    );
    assert!(r
        .stdout()
        .contains("\tint dset2(phony_dim_0, phony_dim_1) ;"));
}

#[test]
fn an_attribute_of_a_committed_datatype_reads_as_its_type() {
    // Class 3: h5py and netcdf-c share an attribute's datatype with a committed
    // (named) one; the file failed to open. h5dump shows a = 5, 6 and scalar = 7;
    // ncdump 4.9.0 fails with an HDF error on this file.
    let r = run("nczdump", &[&other_writer("committed.h5")]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stdout(), expected("committed"));
    assert!(r.stdout().contains("\t\t:a = 5, 6 ;\n"));
    assert!(r.stdout().contains("\t\tv:scalar = 7 ;\n"));
}

#[test]
fn object_references_read_as_the_paths_h5py_names() {
    // h5py's object references, in attributes and in a dataset: each reads as the path
    // of the object it points to (h5py's `f[ref].name`: "/", "/grp", "/grp/data"), a
    // null reference as a missing string. ncdump 4.9.0 drops them silently, or fails on
    // the file (jhdf's test_attribute_*.hdf5).
    let r = run("nczdump", &[&other_writer("references.h5")]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stdout(), expected("references"));
    assert!(r.stdout().contains("string :to_data = \"/grp/data\" ;"));
    assert!(r
        .stdout()
        .contains("string data :to_all = \"/\", \"/grp\", \"/grp/data\", NIL ;"));
    assert!(r.stdout().contains(" refs = \"/grp\", \"/grp/data\" ;"));
    // A copy holds the paths as strings.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refs.zarr");
    let out = out.to_str().unwrap();
    run("nczcopy", &[&other_writer("references.h5"), out]).success();
    let back = run("nczdump", &[out]);
    back.success();
    assert!(
        back.stdout().contains(" refs = \"/grp\", \"/grp/data\" ;"),
        "{}",
        back.stdout()
    );
    for file in [
        "nc/jhdf/test_attribute_earliest.hdf5",
        "nc/jhdf/test_attribute_latest.hdf5",
    ] {
        let Some(path) = crate::util::corpus_real(file) else {
            continue;
        };
        let r = run("nczdump", &["-h", &path]);
        assert_eq!(r.code(), 0, "{file}: {}", r.stderr());
        assert!(
            r.stdout().contains(
                "string :\\2D_object_references = \"/\", \"/test_group\", \"/\", \"/test_group\" ;"
            ),
            "{file}: {}",
            r.stdout()
        );
    }
}

#[test]
fn hdf5plugin_lz4_and_bitshuffle_read_as_h5py_reads_them() {
    // Class 5 (found in jhdf's files): hdf5plugin's LZ4 (32004) and bitshuffle
    // (32008, with LZ4, zstd or none, 1001 values so that one is past the last
    // multiple of eight). plugins.cdl was checked value by value against h5py with
    // hdf5plugin; ncdump 4.9.0 has neither filter.
    let r = run("nczdump", &[&other_writer("plugins.h5")]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stdout(), expected("plugins"));

    // A copy recompresses them with zstd, which every Zarr reader has.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("plugins.zarr");
    let c = run(
        "nczcopy",
        &[&other_writer("plugins.h5"), out.to_str().unwrap()],
    );
    assert_eq!(c.code(), 0, "{}", c.stderr());
    let copied = run("nczdump", &[out.to_str().unwrap()]).stdout();
    assert_eq!(copied, expected("plugins"));
    let s = run("nczdump", &["-hs", out.to_str().unwrap()]).stdout();
    assert_eq!(s.matches("_Filter = \"32015,1\"").count(), 4, "{s}");
}

#[test]
fn netcdf4_user_defined_types_print_as_ncdump_prints_them() {
    // Class 3: compound (char, char array, short array, string and nested fields),
    // enum (a member name with a space, a fill value), vlen (an empty one), opaque,
    // types used from a subgroup, attributes of each kind. user_types.nc is ncgen's
    // of user_types_src.cdl; user_types.cdl is ncdump 4.9.0's text of it.
    let file = other_writer("user_types.nc");
    let r = run("nczdump", &[&file]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stdout(), expected("user_types"));
    // -s as ncdump -s prints it: no _Endianness for an enum.
    let s = run("nczdump", &["-s", &file]);
    assert!(!s.stdout().contains("levels:_Endianness"), "{}", s.stdout());
    assert!(
        s.stdout().contains("\t\trecs:_Storage = \"contiguous\" ;"),
        "{}",
        s.stdout()
    );
    let h = run("nczdump", &["-h", &file]);
    assert!(h
        .stdout()
        .starts_with("netcdf user_types {\ntypes:\n  compound rec_t {\n"));
    assert!(!h.stdout().contains("data:"));

    // A copy to Zarr refuses what only netCDF-4 holds, naming it...
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("u.zarr");
    let c = run("nczcopy", &[&file, out.to_str().unwrap()]);
    assert_eq!(c.code(), 1);
    assert!(
        c.stderr()
            .contains("attribute ':ragged' has the vlen type /row_t")
            && c.stderr().lines().count() == 1,
        "{}",
        c.stderr()
    );
    assert!(!out.exists());
    // ...and with --skip-unreadable copies the rest, an enum as its base type with
    // CF's flags naming its members.
    let c = run(
        "nczcopy",
        &["--skip-unreadable", &file, out.to_str().unwrap()],
    );
    assert_eq!(c.code(), 0, "{}", c.stderr());
    assert!(c.stderr().contains("'/rows' has the vlen type /row_t"));
    let d = run("nczdump", &[out.to_str().unwrap()]).stdout();
    assert!(
        d.contains("\tint levels(t, n) ;\n\t\tlevels:_FillValue = 0 ;\n"),
        "{d}"
    );
    assert!(d.contains("levels:flag_values = -1, 0, 1, 1000 ;"), "{d}");
    assert!(
        d.contains("levels:flag_meanings = \"low mid high very_high\" ;"),
        "{d}"
    );
    assert!(d.contains(" levels =\n  -1, _, 1,\n  1000, _, -1 ;"), "{d}");
    assert!(d.contains("\t\t:default_level = 1 ;"), "{d}");
    assert!(!d.contains("recs") && !d.contains("ragged"), "{d}");

    // JSON holds the atomic types: the rest left out, each said, exit 1.
    let j = run("nczdump", &["--json", &file]);
    assert_eq!(j.code(), 1);
    assert!(j.stderr().contains("'/recs' has the compound type /rec_t"));
    assert!(j.stdout().contains("\"flag_meanings\""));
}

#[test]
fn uncommitted_types_of_h5py_are_named_as_netcdf_c_names_them() {
    // Class 3: h5py stores a dataset's compound, enum, vlen and opaque types in the
    // dataset itself; netcdf-c 4.10 names them _Anonymous<Class><N> in its group
    // (netCDF4-python shows those names). ncdump 4.9.0 prints none of these
    // variables; anonymous.cdl was checked value by value against h5py. Types of
    // members that have none (an enum in a record) and of attributes (a record as
    // the root's `version`) are named the same way.
    let r = run("nczdump", &[&other_writer("anonymous.h5")]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.stdout(), expected("anonymous"));
}

#[test]
fn netcdf_c_cdl_files_with_types_print_as_ncdump_prints_them() {
    // Every CDL of netcdf-c's tests that defines types, compiled by ncgen 4.9.0 and
    // printed by its ncdump (skipped without the shared corpus or netcdf-bin).
    let Some(conf) = crate::util::shared_conformance() else {
        eprintln!("skipped: no shared conformance files");
        return;
    };
    if !crate::util::have("ncgen") {
        eprintln!("skipped: no ncgen");
        return;
    }
    // ncdump prints uninitialised memory for the never-written NoFill data of these.
    let garbage = ["ref_tst_ncf213", "ref_tst_special_atts"];
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for sub in ["ncdump", "ncgen"] {
        let Ok(dir) = fs::read_dir(conf.join(sub)) else {
            continue;
        };
        let mut cdls: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        cdls.sort();
        for cdl in cdls {
            let text = fs::read_to_string(&cdl).unwrap_or_default();
            let stem = cdl.file_stem().unwrap().to_string_lossy().into_owned();
            if cdl.extension().is_none_or(|e| e != "cdl")
                || !text.contains("\ntypes:\n")
                || garbage.contains(&stem.as_str())
                || stem == "ref_tst_enum_undef"
            {
                continue;
            }
            let want = crate::util::ncgen_ncdump(&cdl, tmp.path()).unwrap();
            let nc = tmp.path().join(format!("{stem}.nc"));
            let r = run("nczdump", &[nc.to_str().unwrap()]);
            assert_eq!(r.code(), 0, "{stem}: {}", r.stderr());
            assert_eq!(r.stdout(), want, "{stem}");
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} files");
}

#[test]
fn a_zarr3_store_without_a_root_document_is_an_implicit_group() {
    // Class 12: zarrs (and zarr-python 3 before 3.0) may leave the root group with no
    // zarr.json; the nodes below it make it a group.
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("imp.cdl");
    fs::write(
        &cdl,
        "netcdf imp {\n\ngroup: g {\n  dimensions:\n  \tx = 3 ;\n  variables:\n  \tint v(x) ;\n  data:\n\n   v = 1, 2, 3 ;\n  } // group g\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("imp.zarr");
    run(
        "nczgen",
        &[
            "-k",
            "zarr3",
            "-o",
            out.to_str().unwrap(),
            cdl.to_str().unwrap(),
        ],
    )
    .success();
    fs::remove_file(out.join("zarr.json")).unwrap();
    let r = run("nczdump", &[out.to_str().unwrap()]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stdout().contains("group: g {") && r.stdout().contains("v = 1, 2, 3 ;"),
        "{}",
        r.stdout()
    );
    // A directory of other files is still no dataset.
    let other = tmp.path().join("other");
    fs::create_dir_all(other.join("sub")).unwrap();
    fs::write(other.join("sub/notes.txt"), "x").unwrap();
    let r = run("nczdump", &[other.to_str().unwrap()]);
    assert_ne!(r.code(), 0);
    assert!(r.stderr().contains("not a Zarr dataset"), "{}", r.stderr());
}

#[test]
fn pcodec_and_zfpy_stores_of_zarrs_and_zarr_python_read_as_written() {
    // Class 5: numcodecs' pcodec and zfpy (zarrs' test stores hold 0..99 as float32,
    // written by zarrs in Zarr v2 and v3 and by zarr-python 3; zfpy's tolerance of 0.01
    // keeps these integers exact).
    for store in [
        "zarr/zarrs/v2__array_pcodec_C.zarr",
        "zarr/zarrs/v3__array_pcodec.zarr",
        "zarr/zarrs/v3_zarr_python__array_pcodec.zarr",
        "zarr/zarrs/v2__array_zfpy_C.zarr",
        "zarr/zarrs/v3__array_zfpy.zarr",
        "zarr/zarrs/v3_zarr_python__array_zfpy.zarr",
    ] {
        let Some(path) = crate::util::corpus_real(store) else {
            continue;
        };
        let r = run("nczdump", &[&path]);
        assert_eq!(r.code(), 0, "{store}: {}", r.stderr());
        let rows: Vec<String> = (0..10)
            .map(|r| {
                let row: Vec<String> = (0..10).map(|c| (10 * r + c).to_string()).collect();
                format!("  {}", row.join(", "))
            })
            .collect();
        let want = format!("{} ;\n}}\n", rows.join(",\n"));
        // 0 is the fill value, `_` where it is shown as one (Zarr v2).
        let text = r.stdout().replace("  _, 1,", "  0, 1,");
        assert!(text.ends_with(&want), "{store}: {text}");
    }
}
