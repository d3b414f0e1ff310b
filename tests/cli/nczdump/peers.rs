//! Datasets the peers wrote. The golden corpus: for each case and peer writer, nczdump
//! of the dataset the peer wrote equals ncdump of the netCDF-4 file ncgen made from the
//! same CDL (`data/golden/make_golden.sh` made the datasets, the expected text and the
//! manifest). netcdf-c's own fixtures (from `../shared/conformance`, skipped when
//! absent): the stores netcdf-c's tests ship, in every layout, open and dump.

use crate::util::peers::skip;
use crate::util::{data_dir, first_diff, run};

#[test]
fn peer_written_datasets_dump_like_ncdump() {
    let root = data_dir().join("golden");
    // The corpus is part of the repository: without it the test must fail, not pass.
    let manifest = std::fs::read_to_string(root.join("manifest.tsv"))
        .expect("tests/cli/data/golden/manifest.tsv (the golden corpus) is missing");
    let mut checked = 0;
    let mut explained = 0;
    let mut failures = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let (case, writer, status) = (cols[0], cols[1], cols.get(2).copied().unwrap_or(""));
        let reason = cols.get(3).copied().unwrap_or("").trim();
        match status {
            "match" => {}
            "write-fail" | "differs" => {
                // A known difference says why, and a "differs" row still differs: one
                // that became equal must move to "match", where it is guarded.
                assert!(
                    !reason.is_empty(),
                    "{case} / {writer}: {status} without a reason"
                );
                explained += 1;
                if status == "differs" {
                    let store = root
                        .join("stores")
                        .join(writer)
                        .join(format!("{case}.file"));
                    let expected =
                        std::fs::read_to_string(root.join("expected").join(format!("{case}.cdl")))
                            .expect("expected file");
                    let out = run("nczdump", &[&store.to_string_lossy()]);
                    assert!(
                        out.output.status.success() && out.stdout() != expected,
                        "{case} / {writer}: listed as differing, but it {}",
                        if out.output.status.success() {
                            "now matches"
                        } else {
                            "fails to dump"
                        }
                    );
                    assert!(
                        root.join("diffs")
                            .join(writer)
                            .join(format!("{case}.diff"))
                            .is_file(),
                        "{case} / {writer}: no diff file"
                    );
                }
                continue;
            }
            other => panic!("{case} / {writer}: unknown status {other:?}"),
        }
        let store = root
            .join("stores")
            .join(writer)
            .join(format!("{case}.file"));
        let expected = std::fs::read_to_string(root.join("expected").join(format!("{case}.cdl")))
            .expect("expected file");
        let out = run("nczdump", &[&store.to_string_lossy()]);
        checked += 1;
        if !out.output.status.success() || out.stdout() != expected {
            failures.push(format!(
                "{case} / {writer}: {}\n{}",
                out.stderr(),
                first_diff(&out.stdout(), &expected)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} golden dumps differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // As many as the corpus held when it was last made: a manifest that loses rows fails.
    assert!(checked >= 78, "only {checked} matching cases (78 expected)");
    assert_eq!(explained, 17, "known differences and write failures");
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
