//! Options that had no test of their own: nczdump `-p`, `-g`, `-K`, `-XF`; nczgen `-x`,
//! `-H`, `--separator`; and zip output as zarr-python reads it.

use std::fs;
use std::path::Path;

use crate::util::run;

const CDL: &str = "netcdf o {
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
fn gen(dir: &Path, name: &str, args: &[&str]) -> String {
    let cdl = dir.join("o.cdl");
    fs::write(&cdl, CDL).unwrap();
    let out = dir.join(name).to_string_lossy().into_owned();
    let mut all = args.to_vec();
    all.extend(["-o", &out, cdl.to_str().unwrap()]);
    run("nczgen", &all).success();
    out
}

fn zarray(store: &str, var: &str) -> nczarr::json::Json {
    let text = fs::read_to_string(Path::new(store).join(var).join(".zarray")).unwrap();
    nczarr::json::parse_str(&text).unwrap()
}

#[test]
fn nczdump_p_g_k_and_xf() {
    let tmp = tempfile::tempdir().unwrap();
    let out = gen(tmp.path(), "o.zarr", &[]);
    let p = run("nczdump", &["-p", "3,5", &out]).success().stdout();
    assert!(p.contains("\n f = 3.14, 2.72, _ ;\n"), "{p}");
    assert!(p.contains("\n d = 3.1416, 1e-300, 2 ;\n"), "{p}");
    assert!(p.contains("\t\tf:_FillValue = -1.f ;\n"), "{p}");

    let g = run("nczdump", &["-g", "g", &out]).success().stdout();
    assert!(g.contains("\n   i = 7, 8, 9 ;\n"), "{g}");
    assert!(
        !g.contains(" f = ") && !g.contains(" m ="),
        "root data printed: {g}"
    );
    assert!(g.contains("\tfloat f(x) ;"), "the header stays whole: {g}");

    run("nczdump", &["-K", &out])
        .stdout_is("NCZarr 2.0.0, netcdf-c 4.9.3+/4.10 layout (_nczarr_* attributes in .zattrs)\n");

    let xf = run("nczdump", &["-h", "-XF", &out]).success().stdout();
    assert!(xf.contains("\t\tfloat f:_FillValue = -1.f ;\n"), "{xf}");
    assert!(xf.contains("\t\tshort m:_FillValue = -9s ;\n"), "{xf}");
}

#[test]
fn nczgen_x_h_and_separator() {
    let tmp = tempfile::tempdir().unwrap();
    // -x: no fill value for any variable; the values given are kept.
    let out = gen(tmp.path(), "nofill.zarr", &["-x"]);
    for v in ["f", "d", "m"] {
        assert_eq!(
            zarray(&out, v).get("fill_value"),
            Some(&nczarr::json::Json::Null),
            "{v}"
        );
    }
    let d = run("nczdump", &["-v", "d", &out]).success().stdout();
    assert!(d.contains("\n d = 3.14159265358979, 1e-300, 2 ;\n"), "{d}");

    // -H: the header written, no chunk at all; values read as fill.
    let out = gen(tmp.path(), "header.zarr", &["-H"]);
    let chunks: Vec<String> = ["f", "d", "m", "g/i"]
        .iter()
        .flat_map(|v| fs::read_dir(Path::new(&out).join(v)).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert!(chunks.is_empty(), "{chunks:?}");
    let h = run("nczdump", &[&out]).success().stdout();
    assert!(h.contains("\n f = _, _, _ ;\n"), "{h}");

    // --separator /: nested chunk keys, named in .zarray.
    let out = gen(tmp.path(), "slash.zarr", &["--separator", "/"]);
    assert_eq!(
        zarray(&out, "m")
            .get("dimension_separator")
            .and_then(|s| s.as_str()),
        Some("/")
    );
    assert!(Path::new(&out).join("m/0/0").is_file());
    let m = run("nczdump", &["-v", "m", &out]).success().stdout();
    assert!(
        m.contains("\n m =\n  1, 2, 3,\n  4, _, 6,\n  7, 8, 9 ;\n"),
        "{m}"
    );
}

#[test]
fn zip_output_is_read_by_zarr_python() {
    let Some(py) = crate::zarr3::python_with_zarr3() else {
        eprintln!("skipped: no python3 with zarr 3 (set NCZARR_PYTHON)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["zarr", "nczarr"] {
        let out = gen(tmp.path(), &format!("{kind}.zip"), &["-k", kind]);
        let check = r#"
import sys, zarr, numpy as np
g = zarr.open_group(zarr.storage.ZipStore(sys.argv[1], mode="r"), mode="r")
assert np.allclose(g["f"][:], [3.1415927, 2.7182817, -1.0]), g["f"][:]
assert list(g["m"][1]) == [4, -9, 6], g["m"][:]
assert list(g["g"]["i"][:]) == [7, 8, 9]
"#;
        crate::util::python_succeeds(&py, check, &[&out], kind);
    }
}

/// Every `-p` precision prints what ncdump prints, on values whose text fills the
/// formatter's word (the point in its last byte: `1234567.8` at 8 digits was printed
/// `9234567.8` before) and on either side of every layout (exponent, leading zeros).
#[test]
fn nczdump_p_every_precision_as_ncdump() {
    if !crate::util::have("ncgen") || !crate::util::have("ncdump") {
        eprintln!("skipped: ncgen/ncdump (netcdf-bin) not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("p.cdl");
    fs::write(
        &cdl,
        "netcdf p {\ndimensions:\n\tn = 9 ;\nvariables:\n\tfloat f(n) ;\n\tdouble d(n) ;\ndata:\n \
         f = 1234567.8, 12345678, 0.1, 1.5e-05, -9.876543e-07, 123.45678, 3.4e+38, 1.e-44, 99999.99 ;\n \
         d = 123456789012345.6, 1.2345678901234567e+300, 0.1, -9.87654321e-07, 1234567.75, \
         99999999.99999999, 4.9e-324, 0.00012345678901234, 1e+16 ;\n}\n",
    )
    .unwrap();
    let nc = tmp.path().join("p.nc");
    let made = std::process::Command::new("ncgen")
        .args(["-4", "-o", nc.to_str().unwrap(), cdl.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(made.success());
    for p in 1..=17 {
        let arg = format!("{p},{p}");
        let theirs = std::process::Command::new("ncdump")
            .args(["-p", &arg, nc.to_str().unwrap()])
            .output()
            .unwrap();
        let ours = run("nczdump", &["-p", &arg, nc.to_str().unwrap()])
            .success()
            .stdout();
        assert_eq!(ours, String::from_utf8_lossy(&theirs.stdout), "-p {arg}");
    }
}
