//! The dataset of the option tests of nczdump and nczgen.

use std::fs;
use std::path::Path;

use crate::util::run;

pub(crate) const CDL: &str = "netcdf o {
dimensions:
\tx = 3 ;
variables:
\tfloat f(x) ;
\t\tf:_FillValue = -1.f ;
\tdouble d(x) ;
\tshort m(x, x) ;
\t\tm:_FillValue = -9s ;
data:
 f = 3.14159265, 2.718281828, _ ;
 d = 3.14159265358979, 1e-300, 2 ;
 m = 1, 2, 3, 4, _, 6, 7, 8, 9 ;
group: g {
  variables:
  \tint i(x) ;
  data:
   i = 7, 8, 9 ;
  } // group g
}
";

/// `CDL` compiled by nczgen with `args` into `dir/o.zarr` (or the name given last).
pub(crate) fn gen(dir: &Path, name: &str, args: &[&str]) -> String {
    let cdl = dir.join("o.cdl");
    fs::write(&cdl, CDL).unwrap();
    let out = dir.join(name).to_string_lossy().into_owned();
    let mut all = args.to_vec();
    all.extend(["-o", &out, cdl.to_str().unwrap()]);
    run("nczgen", &all).success();
    out
}
