//! Datasets and listings for the tests of what writing tools leave at their outputs.

use std::fs;
use std::path::Path;

pub(crate) const SMALL_CDL: &str =
    "netcdf s {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 1, 2 ;\n}\n";

pub(crate) fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub(crate) const CDL: &str = "netcdf year {\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 2 ;\nvariables:\n\tint time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\tfloat tas(time, x) ;\n\tstring note(time) ;\ndata:\n time = 0, 1, 2 ;\n tas = 1, 2, 3, 4, 5, 6 ;\n note = \"a\", \"b\", \"c\" ;\ngroup: obs {\nvariables:\n\tint n ;\n}\n}\n";
