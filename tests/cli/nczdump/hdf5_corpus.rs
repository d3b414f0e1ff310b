//! What a second corpus of real files showed (issue 61, "Real files: a second corpus"),
//! each class with a small file of our own that reproduces it (written by
//! `data/real_files_61/make.py` with h5py, or by the tools), and the corpus file that
//! showed it where `../shared/corpus/real` has it. What nczgen makes of these files'
//! dumps is in `nczgen::corpus`.

use crate::util::peers::{made, ncdump, python_with_h5py};
use crate::util::{corpus_real, run};

#[test]
fn shuffle_unshuffles_by_its_parameter_not_the_type() {
    // Item 1: PyTables shuffled vlen datasets by 8 bytes (its parameter) where the
    // stored element is 16; read by the type's size, every element was garbage and
    // the dump said `{}` with exit 0. An int shuffled by 8 went wrong the same way
    // through our own chunk reader. The values are h5py's.
    let tmp = tempfile::tempdir().unwrap();
    let Some(file) = made("shuffle_param", tmp.path()) else {
        return;
    };
    let r = run("nczdump", &[&file]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    assert!(
        out.contains(" i = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 ;"),
        "{out}"
    );
    assert!(
        out.contains(" v = {5, 6}, {5, 6, 7}, {5, 6, 9, 8} ;"),
        "{out}"
    );
    // The element size is the file's, for -s and for copies.
    let s = run("nczdump", &["-hs", &file]).stdout();
    assert!(s.contains("i:_Shuffle = \"true\" ;"), "{s}");
    let copy = tmp.path().join("c.zarr");
    run("nczcopy", &["-V", "i", &file, copy.to_str().unwrap()]).success();
    let back = run("nczdump", &[copy.to_str().unwrap()]).stdout();
    assert!(
        back.contains(" i = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 ;"),
        "{back}"
    );
}

#[test]
fn the_corpus_vlen_of_pytables_reads_as_h5py_reads_it() {
    // Item 1 on the PyTables file that showed it.
    let Some(f) = corpus_real("nc/PyTables/tests__flavored_vlarrays-format1.6.h5") else {
        return;
    };
    let r = run("nczdump", &[&f]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    assert!(
        out.contains(" vlarray1 = {5, 6}, {5, 6, 7}, {5, 6, 9, 8} ;"),
        "{out}"
    );
    assert!(
        out.contains(
            " vlarray2 = {\"5\", \"66\"}, {\"5\", \"6\", \"77\"}, {\"5\", \"6\", \"9\", \"88\"} ;"
        ),
        "{out}"
    );
}

/// The attribute names of `var` as `nczdump -h` prints them, in order.
fn attr_names(cdl: &str, var: &str) -> Vec<String> {
    let prefix = format!("{var}:");
    cdl.lines()
        .filter_map(|l| {
            let l = l.trim_start_matches('\t');
            let l = l.strip_prefix("string ").unwrap_or(l);
            l.strip_prefix(&prefix)
                .and_then(|rest| rest.split(' ').next())
                .map(str::to_string)
        })
        .collect()
}

/// h5py's attribute order of the object `path` of `file` (`H5Aiterate` by creation
/// order, which is the order of the header's messages where none is tracked, as
/// netcdf-c lists them).
fn h5py_attr_order(file: &str, path: &str) -> Option<Vec<String>> {
    let py = python_with_h5py()?;
    let script = "import sys, h5py\nf = h5py.File(sys.argv[1], 'r')\nnames = []\nh5py.h5a.iterate(f[sys.argv[2]].id, lambda n: names.append(n.decode()), index_type=h5py.h5.INDEX_CRT_ORDER)\nprint(' '.join(names))";
    let r = std::process::Command::new(py)
        .args(["-c", script, file, path])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    Some(
        String::from_utf8_lossy(&r.stdout)
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn a_header_continued_in_several_chunks_lists_attributes_in_order() {
    // Item 2: chunks of an object header were read last-found first, which moved
    // attributes of one chunk after those of the next; libhdf5 (so ncdump and h5py)
    // reads them in the order their continuation messages are met.
    let tmp = tempfile::tempdir().unwrap();
    let Some(file) = made("continued", tmp.path()) else {
        return;
    };
    let ours = run("nczdump", &["-h", &file]);
    assert_eq!(ours.code(), 0, "{}", ours.stderr());
    let want = h5py_attr_order(&file, "v").unwrap();
    assert_eq!(attr_names(&ours.stdout(), "v"), want);
    if let Some(want) = ncdump(&["-h"], &file) {
        ours.stdout_is(&want);
    }
}

#[test]
fn the_corpus_satellite_product_lists_attributes_as_ncdump() {
    // Item 2 on the satellite product that showed it.
    let Some(f) =
        corpus_real("nc/wradlib-data/hdf5__SAFNWC_MSG3_CT___201304290415_BEL_________.h5")
    else {
        return;
    };
    let out = run("nczdump", &["-h", &f]).stdout();
    let theirs = ncdump(&["-h"], &f);
    for var in ["CT", "CT_PHASE", "CT_QUALITY"] {
        let ours = attr_names(&out, var);
        // ncdump leaves out the object reference PALETTE, which we read as a path.
        if let Some(text) = &theirs {
            let mut shown = ours.clone();
            shown.retain(|n| n != "PALETTE");
            assert_eq!(shown, attr_names(text, var), "{var}");
        }
        // h5py lists CLASS too (hidden, as netcdf-c hides it).
        if let Some(mut want) = h5py_attr_order(&f, var) {
            want.retain(|n| n != "CLASS");
            assert_eq!(ours, want, "{var}");
        }
    }
}

#[test]
fn an_axis_with_two_scales_takes_the_last_as_netcdf_c_does() {
    // Item 3: netcdf-c's `dimscale_visitor` keeps every scale H5DSiterate_scales
    // visits, so the last attached wins; we took the first.
    let tmp = tempfile::tempdir().unwrap();
    let Some(file) = made("two_scales", tmp.path()) else {
        return;
    };
    let r = run("nczdump", &[&file]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stdout().contains("\tint d(y, x2) ;\n\tint e(x1) ;\n"),
        "{}",
        r.stdout()
    );
    if let Some(want) = ncdump(&[], &file) {
        r.stdout_is(&want);
    }
}

#[test]
fn the_corpus_file_with_two_scales_reads_as_ncdump_reads_it() {
    // Item 3 on pyfive's file.
    let Some(f) = corpus_real("nc/pyfive/dim_scales.hdf5") else {
        return;
    };
    let r = run("nczdump", &[&f]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stdout().contains("\tint dset1(z1, y1, x2) ;\n"),
        "{}",
        r.stdout()
    );
    if let Some(want) = ncdump(&[], &f) {
        r.stdout_is(&want);
    }
}

#[test]
fn a_new_dimension_of_length_zero_is_unlimited_as_in_netcdf_c() {
    // Item 4: netcdf-c's nc4_dim_list_add reads a length of 0 as NC_UNLIMITED, so
    // every dimension it makes for an empty axis (phony or a scale) is unlimited,
    // whatever the dataset's maximum; a later empty axis of fixed maximum does not
    // match it and gets its own. We printed `phony_dim_0 = 0 ;`.
    let tmp = tempfile::tempdir().unwrap();
    let Some(file) = made("empty", tmp.path()) else {
        return;
    };
    let r = run("nczdump", &[&file]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    assert!(
        out.contains("\tphony_dim_3 = UNLIMITED ; // (0 currently)\n\tphony_dim_4 = UNLIMITED ; // (0 currently)\n\tphony_dim_5 = 2 ;\n"),
        "{out}"
    );
    assert!(
        out.contains("\tint a(phony_dim_3) ;\n\tint b(phony_dim_3) ;\n"),
        "{out}"
    );
    assert!(
        out.contains("  \tz = UNLIMITED ; // (0 currently)\n"),
        "{out}"
    );
    if let Some(want) = ncdump(&[], &file) {
        r.stdout_is(&want);
    }
}

#[test]
fn the_corpus_nwb_file_without_data_has_unlimited_dimensions() {
    // Item 4 on NWB's image series without data.
    let Some(f) = corpus_real("nc/pynwb/2.1.0_imageseries_no_data.nwb") else {
        return;
    };
    let r = run("nczdump", &["-h", &f]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    for n in 0..3 {
        assert!(
            out.contains(&format!(
                "    \tphony_dim_{n} = UNLIMITED ; // (0 currently)\n"
            )),
            "{out}"
        );
    }
    // The rest is ncdump's but for the object reference it leaves out.
    if let Some(want) = ncdump(&["-h"], &f) {
        let ours = out.replace("\t\tstring :.specloc = \"/specifications\" ;\n", "");
        assert_eq!(ours, want);
    }
}

#[test]
fn is_netcdf4_counts_what_netcdf_c_counts() {
    // Item 5: netcdf-c 4.9.0's NC4_walk counts netCDF-4's markers (every name it
    // reserves, and a dataset named phony_dim) on datasets reached by hard links
    // only; `_IsNetcdf4` is 1 from two. We counted datasets reached by soft links
    // (PyTables' slink file: 1 where ncdump says 0) and knew six names of fourteen.
    // The reserved names are all hidden, as ncdump hides them, and a _NCProperties
    // that is not a string is no provenance.
    let tmp = tempfile::tempdir().unwrap();
    for (case, want) in [("soft_link", 0), ("markers", 1)] {
        let Some(file) = made(case, tmp.path()) else {
            return;
        };
        let r = run("nczdump", &["-hs", &file]);
        assert_eq!(r.code(), 0, "{}", r.stderr());
        let line = format!("\t\t:_IsNetcdf4 = {want} ;\n");
        assert!(r.stdout().contains(&line), "{case}: {}", r.stdout());
        if let Some(text) = ncdump(&["-hs"], &file) {
            r.stdout_is(&text);
        }
    }
    let Some(file) = made("markers", tmp.path()) else {
        return;
    };
    let h = run("nczdump", &["-h", &file]).stdout();
    for hidden in [
        "_ARRAY_DIMENSIONS",
        "_Codecs",
        "_Format",
        "_NCZARR_ATTR",
        "_NCProperties",
    ] {
        assert!(!h.contains(hidden), "{hidden}: {h}");
    }
}

#[test]
fn the_corpus_soft_link_file_is_not_netcdf4() {
    // Item 5 on PyTables' soft links.
    let Some(f) = corpus_real("nc/PyTables/tests__slink.h5") else {
        return;
    };
    let r = run("nczdump", &["-hs", &f]);
    assert!(
        r.stdout().contains("\t\t:_IsNetcdf4 = 0 ;\n"),
        "{}",
        r.stdout()
    );
    if let Some(text) = ncdump(&["-hs"], &f) {
        r.stdout_is(&text);
    }
}

/// A vlen equal to its fill value, for item 6: of ints (narrower than a vlen),
/// of 16-byte records, of one element and of none, in a compound.
const VLEN_FILLS: &str = "netcdf v6 {
types:
  int(*) vl_t ;
  compound p_t { double x ; double y ; } ;
  p_t(*) vp_t ;
  compound cv_t { int x ; vl_t v ; } ;
dimensions:
  n = 3 ;
variables:
  vl_t s ;
    vl_t s:_FillValue = {1, 2} ;
  vl_t w(n) ;
    vl_t w:_FillValue = {1, 2} ;
  vl_t one(n) ;
    vl_t one:_FillValue = {5} ;
  vl_t none(n) ;
    vl_t none:_FillValue = {} ;
  vp_t p ;
    vp_t p:_FillValue = {{1, 2}, {3, 4}} ;
  cv_t cv(n) ;
    cv_t cv:_FillValue = {1, {3, 4}} ;
data:
 s = {1, 2} ;
 w = {1, 2}, {3}, {1, 2} ;
 one = {5}, {5, 5}, {5} ;
 none = {}, {1}, {} ;
 p = {{1, 2}, {3, 4}} ;
 cv = {1, {3, 4}}, {1, {3}}, {2, {3, 4}} ;
}
";

#[test]
fn a_vlen_equal_to_its_fill_prints_as_ncdump_prints_it() {
    // Item 6: ncdump's ncvlen_val_equals steps through the elements by the vlen's
    // own size (16 bytes), so a vlen of two or more narrower elements is never the
    // fill (its values are printed) while one of a single element, or of 16-byte
    // records, is `_`. We printed `_` for every vlen equal to the fill.
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("v6.cdl");
    std::fs::write(&cdl, VLEN_FILLS).unwrap();
    let nc = tmp.path().join("v6.nc");
    let nc = nc.to_str().unwrap();
    run("nczgen", &["-k", "nc4", "-o", nc, cdl.to_str().unwrap()]).success();
    let r = run("nczdump", &[nc]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    for line in [
        " s = {1, 2} ;",
        " w = {1, 2}, {3}, {1, 2} ;",
        " one = _, {5, 5}, _ ;",
        " none = _, {1}, _ ;",
        " p = _ ;",
        " cv = {1, {3, 4}}, {1, {3}}, {2, {3, 4}} ;",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    if let Some(want) = ncdump(&[], nc) {
        r.stdout_is(&want);
    }
}

/// numcodecs' vlen-utf8 encoding of `items`: their count, then each one's length
/// and bytes (little-endian u32s).
fn vlen_utf8(items: &[&str]) -> Vec<u8> {
    let mut out = (items.len() as u32).to_le_bytes().to_vec();
    for s in items {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

#[test]
fn unwritten_chunks_of_text_arrays_read_as_their_fill_value() {
    // Item 7: zarr-python reads a `|O` (vlen-utf8) array's fill value 0 as the text
    // "0" (zarrs' zarr_python_compat stores), text fills of `<U` and `|O` as they
    // are and only byte strings' in base64; we read 0 as "" (and "ab" of a text
    // dtype as base64, "i"), so unwritten chunks printed `_`.
    let store = crate::util::TempStore::new("t.zarr");
    store.put(".zgroup", r#"{"zarr_format": 2}"#);
    let zarray = |dtype: &str, fill: &str, filters: &str| {
        format!(
            r#"{{"zarr_format": 2, "shape": [5], "chunks": [2], "dtype": "{dtype}", "fill_value": {fill}, "order": "C", "compressor": null, "filters": {filters}, "dimension_separator": "."}}"#
        )
    };
    let utf8 = r#"[{"id": "vlen-utf8"}]"#;
    store.put("o/.zarray", zarray("|O", "0", utf8));
    store.put("o/0", vlen_utf8(&["a", "bb"]));
    store.put("o/1", vlen_utf8(&["", ""]));
    store.put("o5/.zarray", zarray("|O", "5", utf8));
    store.put("oab/.zarray", zarray("|O", r#""ab""#, utf8));
    store.put("u/.zarray", zarray("<U3", r#""ab""#, "null"));
    store.put("s/.zarray", zarray("|S3", r#""YWI=""#, "null"));
    let r = run("nczdump", &[&store.path_str()]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    for line in [
        " o = \"a\", \"bb\", _, _, \"0\" ;",
        " o5 = \"5\", \"5\", \"5\", \"5\", \"5\" ;",
        " oab = \"ab\", \"ab\", \"ab\", \"ab\", \"ab\" ;",
        " u = \"ab\", \"ab\", \"ab\", \"ab\", \"ab\" ;",
        " s = \"ab\", \"ab\", \"ab\", \"ab\", \"ab\" ;",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    // zarr-python reads the same.
    if let Some(py) = crate::util::python_with("zarr") {
        let script = "import sys, zarr\ng = zarr.open_group(sys.argv[1], mode='r')\nfor n in ['o', 'o5', 'oab', 'u', 's']:\n    v = [x.decode() if isinstance(x, bytes) else str(x) for x in g[n][:]]\n    print(n, v)";
        let p = std::process::Command::new(py)
            .args(["-c", script, &store.path_str()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&p.stdout);
        assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
        assert!(text.contains("o ['a', 'bb', '', '', '0']"), "{text}");
        for n in ["o5 ['5'", "oab ['ab'", "u ['ab'", "s ['ab'"] {
            assert!(text.contains(n), "{n}: {text}");
        }
    } else {
        eprintln!("skipped the comparison with zarr-python: no zarr (set NCZARR_PYTHON)");
    }

    let Some(s) = corpus_real("zarr/zarrs/zarr_python_compat__str_v2_fv_0.zarr") else {
        return;
    };
    let r = run("nczdump", &[&s]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stdout()
            .contains(" zarr_python_compat__str_v2_fv_0 = \"a\", \"bb\", _, _, \"0\" ;"),
        "{}",
        r.stdout()
    );
}
