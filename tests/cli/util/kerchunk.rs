//! Reference files: a netCDF file and its references, and the references in a file.

use std::fs;
use std::path::Path;

use crate::util::{nczgen, run, s};

/// The references in the reference file at `path`, by key.
pub(crate) fn refs_in(path: &Path) -> Vec<(String, nczarr::json::Json)> {
    let json = nczarr::json::parse(&fs::read(path).unwrap()).unwrap();
    json.get("refs")
        .and_then(nczarr::json::Json::as_object)
        .unwrap()
        .to_vec()
}

/// `cdl` compiled into a file `nc` of `kind`, and our references to it at `refs`.
pub(crate) fn file_and_refs(cdl: &Path, kind: &str, nc: &Path, refs: &Path) {
    nczgen(&["-k", kind, "-o", &s(nc), &s(cdl)]).success();
    run("nczcopy", &["-k", "kerchunk", &s(nc), &s(refs)]).success();
}
