//! CDL that declares user-defined types, through nczgen: netCDF-4 files as ncgen writes
//! them, and what the outputs without such types make of them.

use std::fs;
use std::process::Command;

use crate::util::peers::{decoded_alike, dump_s, h5dump_reads, nczdump_body, python_with_readers};
use crate::util::{have, ncgen_kind as ncgen, nczgen, run, s};

/// CDL with every kind of user-defined type (our own files) through `nczgen -k nc4`:
/// where ncgen 4.9.0 writes the CDL right, `ncdump -s` prints our file as ncgen's and
/// the readers decode both alike; with string and enum fields and a compound
/// `_FillValue` (which ncgen 4.9.0 cannot write: it crashes, or writes garbage for an
/// enum field), ncdump prints what the CDL says and the dump compiles back to the
/// same file. Other outputs hold no user-defined types: an enum becomes its base type
/// with CF's flag attributes (a warning says so), the other kinds are refused in one
/// line and nothing is written.
#[test]
fn cdl_user_types_are_written_to_netcdf4_files_as_ncgen_writes_them() {
    let dir = crate::util::data_dir().join("cdl_user");
    let tmp = tempfile::tempdir().unwrap();
    let ours = tmp.path().join("all_kinds.nc");
    let all_kinds = dir.join("all_kinds.cdl");
    nczgen(&["-k", "nc4", "-o", &s(&ours), &s(&all_kinds)]).success();
    h5dump_reads(&ours).unwrap();
    let theirs = tmp.path().join("theirs.nc");
    if have("ncgen") && ncgen("nc4", &all_kinds, &theirs) {
        assert_eq!(dump_s(&ours), dump_s(&theirs));
        if let Some(py) = python_with_readers() {
            decoded_alike(&py, &theirs, &ours).unwrap();
        }
    }

    let strings = tmp.path().join("with_strings.nc");
    nczgen(&[
        "-k",
        "nc4",
        "-o",
        &s(&strings),
        &s(&dir.join("with_strings.cdl")),
    ])
    .success();
    h5dump_reads(&strings).unwrap();
    let body = nczdump_body(&strings);
    for line in [
        " obs = {1, \"first\", {\"ab\"}, {10.5, -3}, Cumulus}, _, ",
        "    {3, \"third\", {\"abcd\"}, {1, 2}, Stratus} ;",
        " raw = 0X01020304, 0XCAFE0000, 0X00000000 ;",
        " ragged = {1, 2, 3}, {}, {4}, {5, 6} ;",
        "    {{7, \"seven\", {\"s\"}, {7, 7}, Clear}, {8, \"eight\", {\"e\"}, {8, 8}, Stratus}} ;",
        "\t\tobs_t obs:_FillValue = {-1, \"none\", {\"----\"}, {0, 0}, Missing} ;",
        "\t\tcloud_t :seen = Clear, Stratus ;",
        "\t\traw_t :key = 0XDEADBEEF ;",
    ] {
        assert!(
            body.lines().any(|l| l == line),
            "no line {line:?} in\n{body}"
        );
    }
    if have("ncdump") {
        let out = Command::new("ncdump").arg(&strings).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            run("nczdump", &[&s(&strings)]).stdout()
        );
    }
    let dumped = tmp.path().join("dumped.cdl");
    fs::write(&dumped, run("nczdump", &[&s(&strings)]).stdout()).unwrap();
    let again = tmp.path().join("again.nc");
    nczgen(&["-k", "nc4", "-o", &s(&again), &s(&dumped)]).success();
    assert_eq!(nczdump_body(&again), body);

    // Outputs without user-defined types.
    for kind in ["nczarr", "zarr3", "classic", "nc7"] {
        let out = tmp.path().join(format!("refused-{kind}"));
        let err = nczgen(&[
            "-k",
            kind,
            "-o",
            &s(&out),
            &s(&dir.join("with_strings.cdl")),
        ])
        .fails_with_one_line(1);
        assert!(
            err.contains("with_strings.cdl: attribute ':key' has the opaque type /raw_t, which only netCDF-4 files hold (write it with -k nc4)"),
            "{err}"
        );
        assert!(
            !out.exists(),
            "{kind}: a refused run wrote {}",
            out.display()
        );
    }
    let enum_only = tmp.path().join("enum.cdl");
    fs::write(
        &enum_only,
        "netcdf e {\ntypes:\n  byte enum sky_t {Clear = 0, Cloudy = 1} ;\ndimensions:\n  t = 3 ;\nvariables:\n  sky_t sky(t) ;\ndata:\n  sky = Clear, Cloudy, sky_t.Cloudy ;\n}\n",
    )
    .unwrap();
    let zarr = tmp.path().join("enum.zarr");
    let made = nczgen(&["-o", &s(&zarr), &s(&enum_only)]);
    assert_eq!(made.code(), 0, "{}", made.stderr());
    assert!(
        made.stderr().contains("warning: variable '/sky' of the enum type /sky_t is written as byte with flag_values and flag_meanings"),
        "{}",
        made.stderr()
    );
    let text = nczdump_body(&zarr);
    for line in [
        "\t\tsky:flag_values = 0b, 1b ;",
        "\t\tsky:flag_meanings = \"Clear Cloudy\" ;",
        " sky = 0, 1, 1 ;",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line:?} in\n{text}"
        );
    }
}
