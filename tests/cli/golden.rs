//! The golden corpus: for each case and peer writer, nczdump of the dataset the peer
//! wrote equals ncdump of the netCDF-4 file ncgen made from the same CDL.
//! `data/golden/make_golden.sh` made the datasets, the expected text and the manifest.

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
