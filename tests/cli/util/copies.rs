//! nczcopy and nczdump runs shared by the copy tests, and the dataset of the subset tests.

use crate::util::{run, Run};

/// nczcopy with `args`; must succeed.
pub(crate) fn copy(args: &[&str]) -> Run {
    let r = run("nczcopy", args);
    r.success();
    r
}

/// `nczdump args`, which must succeed.
pub(crate) fn dump(args: &[&str]) -> String {
    let r = run("nczdump", args);
    r.success();
    r.stdout()
}

/// Groups, coordinate variables and a variable name used in three groups.
pub(crate) const SUBSET_CDL: &str = "netcdf s {
dimensions:
\ttime = UNLIMITED ;
\tlat = 2 ;
variables:
\tdouble time(time) ;
\t\ttime:units = \"days since 2000-01-01\" ;
\tfloat lat(lat) ;
\tfloat temp(time, lat) ;
\t\ttemp:_FillValue = -1.f ;
\tint count(time) ;
data:
 time = 1, 2, 3 ;
 lat = 10, 20 ;
 temp = 1, 2, 3, 4, 5, 6 ;
 count = 7, 8, 9 ;

group: obs {
  dimensions:
  \tstation = 2 ;
  variables:
  \tint station(station) ;
  \tfloat temp(time, station) ;
  \tshort flag(station) ;
  data:
   station = 100, 200 ;
   temp = 11, 12, 13, 14, 15, 16 ;
   flag = 1, 0 ;

  group: raw {
    variables:
    \tint n ;
    data:
     n = 5 ;
    } // group raw
  } // group obs

group: model {
  variables:
  \tfloat temp(time, lat) ;
  // group attributes:
  \t\t:name = \"m\" ;
  data:
   temp = 21, 22, 23, 24, 25, 26 ;
  } // group model
}
";
