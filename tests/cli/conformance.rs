//! netcdf-c's own fixtures (from `../shared/conformance`, skipped when absent): the
//! stores netcdf-c's tests ship, in every layout, must open and dump.

use crate::util::{run, shared_conformance};

fn skip() -> Option<std::path::PathBuf> {
    let p = shared_conformance();
    if p.is_none() {
        eprintln!("../shared/conformance/netcdf-c not present; skipping");
    }
    p
}

#[test]
fn netcdf_c_zip_fixtures_open() {
    let Some(root) = skip() else { return };
    for (zip, expect) in [
        (
            "nczarr_test/ref_oldformat.zip",
            "int pos(_Anonymous_Dim_8, _Anonymous_Dim_10) ;",
        ),
        ("nczarr_test/ref_oldkeys.file.zip", "int v(d0, d1, d2) ;"),
        (
            "nczarr_test/ref_byte.zarr.zip",
            "ubyte byte(_Anonymous_Dim_20, _Anonymous_Dim_20) ;",
        ),
        (
            "nczarr_test/ref_byte_fill_value_null.zarr.zip",
            "ubyte byt(_Anonymous_Dim_20, _Anonymous_Dim_20) ;",
        ),
        (
            "nczarr_test/ref_quotes_orig.zip",
            "float fractional_snow_cover(time, lat, lon) ;",
        ),
        ("observed/head-4.10.2-dev/s1_nczarr.zip", "int v(x) ;"),
    ] {
        let p = root.join(zip);
        let out = run("nczdump", &["-h", &p.to_string_lossy()]);
        out.success();
        assert!(out.stdout().contains(expect), "{zip}:\n{}", out.stdout());
    }
}

#[test]
fn every_generation_netcdf_c_wrote_dumps_like_its_ncdump() {
    let Some(root) = skip() else { return };
    // Outputs captured from netcdf-c's own ncdump, where netcdf-c reads its own
    // format correctly (the bugs nczdump fixes are excluded from this list).
    for (store, args, expected) in [
        (
            "observed/head-4.10.2-dev/ch_nczarr.file",
            &[][..],
            "observed/head-4.10.2-dev/ch_nczarr.file.dump.txt",
        ),
        (
            "observed/head-4.10.2-dev/t1_nczarr.file",
            &[],
            "observed/head-4.10.2-dev/t1_nczarr.file.dump.txt",
        ),
        (
            "observed/head-4.10.2-dev/e_nczarr.file",
            &["-s"],
            "observed/head-4.10.2-dev/e_nczarr.file.dump_s.txt",
        ),
        (
            "observed/head-4.10.2-dev/filt_nczarr.file",
            &["-s", "-h"],
            "observed/head-4.10.2-dev/filt_nczarr.file.dump_sh.txt",
        ),
        (
            "observed/head-4.10.2-dev/filt_nczarr.file",
            &["-s", "-h", "-F"],
            "observed/head-4.10.2-dev/filt_nczarr.file.dump_shF.txt",
        ),
        (
            "observed/head-4.10.2-dev/g1_nczarr.file",
            &["-f", "c", "-v", "lat"],
            "observed/head-4.10.2-dev/g1_nczarr.file.dump_fc.txt",
        ),
        (
            "observed/head-4.10.2-dev/g1_nczarr.file",
            &["-l", "40", "-v", "big"],
            "observed/head-4.10.2-dev/g1_nczarr.file.dump_l40.txt",
        ),
        (
            "observed/head-4.10.2-dev/g1_nczarr.file",
            &["-c"],
            "observed/head-4.10.2-dev/g1_nczarr.file.dump_c.txt",
        ),
        (
            "observed/head-4.10.2-dev/s1_nczarr.zip",
            &[],
            "observed/head-4.10.2-dev/s1_nczarr.zip.dump.txt",
        ),
        (
            "observed/v4.9.0/s1_nczarr.file",
            &["-s"],
            "observed/v4.9.0/s1_nczarr.file.dump_s.txt",
        ),
        (
            "observed/v4.9.0/s3_nczarr.file",
            &["-s"],
            "observed/v4.9.0/s3_nczarr.file.dump_s.txt",
        ),
        (
            "observed/v4.9.2/t1_nczarr.file",
            &["-s"],
            "observed/v4.9.2/t1_nczarr.file.dump_s.txt",
        ),
    ] {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.push(root.join(store).to_string_lossy().into_owned());
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let expected = std::fs::read_to_string(root.join(expected)).expect("expected output");
        run("nczdump", &a).success().stdout_is(&expected);
    }
}
