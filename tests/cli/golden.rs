//! The golden corpus: for each case and peer writer, nczdump of the dataset the peer
//! wrote equals ncdump of the netCDF-4 file ncgen made from the same CDL.
//! `data/golden/make_golden.sh` made the datasets, the expected text and the manifest.

use crate::util::{data_dir, first_diff, run};

#[test]
fn peer_written_datasets_dump_like_ncdump() {
    let root = data_dir().join("golden");
    let manifest = match std::fs::read_to_string(root.join("manifest.tsv")) {
        Ok(m) => m,
        Err(_) => {
            eprintln!("golden corpus not present; skipping");
            return;
        }
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let (case, writer, status) = (cols[0], cols[1], cols.get(2).copied().unwrap_or(""));
        if status != "match" {
            continue;
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
    assert!(checked > 0, "manifest lists no matching cases");
}
